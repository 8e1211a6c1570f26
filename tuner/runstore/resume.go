package runstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"evotune/db"
	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner/compare"
	"evotune/tuner/config"
	"evotune/tuner/record"
)

// ResumeOptions are what a resume may change or allow; everything else comes from the run.
type ResumeOptions struct {
	// Workers replaces the run's number of workers (0: keep it); never above MaxWorkers,
	// the most this machine plays at once (0: no bound). Workers never change results.
	Workers, MaxWorkers int
	// Force takes over a run whose recorded process is alive (its PID reused).
	Force bool
	// Allow are the outside engines' command lines this machine may run (protocol.Disallowed):
	// a stored configuration may come from someone else.
	Allow []string
	// Command is the command line as the user typed it: a refusal's suggestion repeats it
	// whole with what to add ("": ResumeCommand's).
	Command string
	// VerifyOpenings names the run's verification opening file again, for a database that
	// stored the file's name without its openings.
	VerifyOpenings string
	// MaxWorkersNote says where MaxWorkers comes from, for the warning ("4× its 2 CPUs").
	MaxWorkersNote string
	// BudgetGames and TimeBudget, when set, extend (or shorten) the run's budget from its
	// next generation on (resume --budget-games, --time-budget): a finished run goes on.
	// The change is stored with the run (config.Config.Extensions).
	BudgetGames int
	TimeBudget  string
	// Fix and Free freeze and thaw genes from the run's next generation on (resume --fix,
	// --free): a frozen gene keeps the champion's value; a thawed one moves from its value.
	// The GA and the steady-state GA only.
	Fix, Free []string
	// Alive says whether a process lives, Name what it is ("" unknown); Self is this
	// process's PID.
	Alive func(pid int) bool
	Name  func(pid int) string
	Self  int
}

// Resumable is a stored run checked for resuming: its configuration with the options
// applied, the state of its last saved generation, and warnings to show (workers capped).
type Resumable struct {
	Run      db.Run
	Config   config.Config
	State    record.ResumeState
	Warnings []string
	// Extended is set when the options changed the run's budget: the new configuration
	// is stored when the run is claimed (db.ClaimRunConfig).
	Extended bool
}

// PrepareResume checks that run runID of d can be resumed here and loads it: not finished,
// not held by a live process (unless Force), every outside engine it runs allowed, the
// verification openings file named again only where the run lacks its openings. Errors
// name the run and the way out; nothing is written (the claim is the caller's, last, with
// db.ClaimRun).
func PrepareResume(ctx context.Context, d *db.DB, runID int64, o ResumeOptions) (Resumable, error) {
	var r Resumable
	run, err := d.Run(ctx, runID)
	if err != nil {
		return r, err
	}
	r.Run = run
	extend := o.BudgetGames != 0 || o.TimeBudget != ""
	switch {
	case run.Status == db.StatusFinished && !extend && len(o.Fix)+len(o.Free) > 0:
		return r, fmt.Errorf("run %d is finished: --fix and --free change its next generations, and it has none left to play; give it more games too (--budget-games N or --time-budget D)", runID)
	case run.Status == db.StatusFinished && !extend:
		return r, fmt.Errorf("run %d is already finished; nothing to resume (to give it more games: %s --budget-games N, or --time-budget D)", runID, ResumeCommand(runID, d.Path()))
	case run.Status == db.StatusRunning && run.PID > 0 && o.Alive(run.PID) && run.PID != o.Self && !o.Force:
		return r, RunningError(runID, run.PID, o.Name(run.PID), d.Path())
	}
	cfg, err := config.DecodeConfig(string(run.Config))
	if err != nil {
		return r, fmt.Errorf("run %d: %w", runID, err)
	}
	engines := cfg.Opponents
	if cfg.Engine != "" {
		engines = append([]string{cfg.Engine}, engines...)
	}
	if err := allowEngines(runID, cmp.Or(o.Command, ResumeCommand(runID, d.Path())), engines, o.Allow); err != nil {
		return r, err
	}
	if o.VerifyOpenings != "" {
		switch {
		case o.VerifyOpenings != cfg.VerifyOpenings:
			return r, fmt.Errorf("--verify-openings %s: run %d's verification openings are %q; only that file may be named again", o.VerifyOpenings, runID, cfg.VerifyOpenings)
		case len(cfg.VerifyOpeningList) > 0:
			return r, fmt.Errorf("--verify-openings %s: run %d already stores that file's %d openings; leave the flag out", o.VerifyOpenings, runID, len(cfg.VerifyOpeningList))
		}
		if err := cfg.ReadVerifyOpenings(); err != nil {
			return r, fmt.Errorf("--verify-openings: %w", err)
		}
	}
	if o.Workers != 0 {
		if o.Workers < 0 {
			return r, fmt.Errorf("--workers %d: want at least 1", o.Workers)
		}
		cfg.Workers = o.Workers
	}
	if o.MaxWorkers > 0 && cfg.Workers > o.MaxWorkers {
		r.Warnings = append(r.Warnings, fmt.Sprintf("run %d was tuned with %d workers; this machine plays %d at once (%s); results do not change", runID, cfg.Workers, o.MaxWorkers, o.MaxWorkersNote))
		cfg.Workers = o.MaxWorkers
	}
	if r.State, err = LoadResume(ctx, d, runID, cfg.AdmitZ); err != nil {
		return r, err
	}
	if extend || len(o.Fix)+len(o.Free) > 0 {
		st := r.State
		ext := config.Extension{FromGeneration: st.LastGeneration + 1, Games: st.Games, At: time.Now().UTC().Format(time.RFC3339),
			Before: config.Budget{BudgetGames: cfg.BudgetGames, TimeBudget: cfg.TimeBudget, Generations: cfg.Generations}}
		ext.Budget = ext.Before
		if extend {
			if err := extendBudget(&cfg, st, o.BudgetGames, o.TimeBudget); err != nil {
				return r, fmt.Errorf("run %d: %w", runID, err)
			}
			ext.Budget = config.Budget{BudgetGames: cfg.BudgetGames, TimeBudget: cfg.TimeBudget}
		}
		if len(o.Fix)+len(o.Free) > 0 {
			champ, err := LoadIndividual(ctx, d, string(run.BestIndividual))
			if err != nil {
				return r, fmt.Errorf("run %d: --fix, --free: its champion: %w", runID, err)
			}
			if err := refreeze(&cfg, o.Fix, o.Free, champ.Genes, &ext); err != nil {
				return r, fmt.Errorf("run %d: %w", runID, err)
			}
		}
		cfg.Extensions = append(cfg.Extensions, ext)
		if err := cfg.Check(); err != nil {
			return r, fmt.Errorf("run %d: %w", runID, err)
		}
		r.Extended = true
	}
	r.Config = cfg
	return r, nil
}

// refreeze freezes the genes of fix at the champion's values (champ: gene name to value)
// and thaws those of free, from the run's next generation on, and records both in ext. Only
// a GA or steady-state GA run: SPSA rebuilds θ on resume by replaying every saved step
// over the run's free genes and CMA-ES keeps a covariance over them, and a changed set
// would change both. The error names the method, a gene that is not in the layout, a gene
// already fixed (--fix) or already free (--free).
func refreeze(cfg *config.Config, fix, free []string, champ map[string]float64, ext *config.Extension) error {
	if m, ok := config.MethodOf(cfg.Method); !ok || !m.Refreezable {
		return fmt.Errorf("--fix, --free: the run is tuned by %s, which rebuilds its state over the run's free genes (SPSA replays every saved step over them; CMA-ES keeps a covariance over them): a changed set would change that state; freeze or free genes in a new run (tune --fix, --free)", cfg.Method)
	}
	layout, err := cfg.GeneLayout()
	if err != nil {
		return err
	}
	gene := func(flag, name string) (genomes.Gene, error) {
		for _, g := range layout.Genes {
			if g.Name == name {
				return g, nil
			}
		}
		return genomes.Gene{}, fmt.Errorf("%s %s: no such gene (evotune weights layout lists them)", flag, name)
	}
	for _, n := range fix {
		g, err := gene("--fix", n)
		if err != nil {
			return err
		}
		if g.Fixed {
			return fmt.Errorf("--fix %s: already fixed", n)
		}
		v, ok := champ[n]
		if !ok {
			return fmt.Errorf("--fix %s: the champion has no value for it", n)
		}
		if cfg.Hold == nil {
			cfg.Hold = map[string]float64{}
		}
		cfg.Hold[n] = v
		if ext.Held == nil {
			ext.Held = map[string]float64{}
		}
		ext.Held[n] = v
		cfg.Free = slices.DeleteFunc(cfg.Free, func(s string) bool { return s == n })
	}
	for _, n := range free {
		g, err := gene("--free", n)
		if err != nil {
			return err
		}
		if !g.Fixed {
			return fmt.Errorf("--free %s: already free", n)
		}
		switch _, held := cfg.Hold[n]; {
		case held:
			delete(cfg.Hold, n)
		case slices.Contains(cfg.Fix, n):
			cfg.Fix = slices.DeleteFunc(cfg.Fix, func(s string) bool { return s == n })
		default: // fixed by the layout itself
			cfg.Free = append(cfg.Free, n)
		}
	}
	ext.Fix, ext.Free = fix, free
	return nil
}

// extendBudget sets the run's budget to budgetGames and timeBudget (those given) from the
// generation after st's last on (the caller records the change). The run then plays
// until its budget: Generations becomes 0. An SPSA run given a time budget alone keeps its
// pace: its game budget (over which its gains are planned) grows in proportion to the time
// (the games played so far per second of the run so far). The error names a budget already
// spent — games already played, a time already passed — or one that does not parse.
func extendBudget(cfg *config.Config, st record.ResumeState, budgetGames int, timeBudget string) error {
	if budgetGames < 0 {
		return fmt.Errorf("--budget-games %d: want a positive number of distinct tuning games", budgetGames)
	}
	if budgetGames > 0 {
		if budgetGames <= st.Games {
			return fmt.Errorf("--budget-games %d: the run has already played %d distinct tuning games; give more than that", budgetGames, st.Games)
		}
		cfg.BudgetGames = budgetGames
	}
	if timeBudget != "" {
		d, err := time.ParseDuration(timeBudget)
		if err != nil || d <= 0 {
			return fmt.Errorf("--time-budget %q: want a duration such as 30m or 8h", timeBudget)
		}
		if d <= st.Elapsed {
			return fmt.Errorf("--time-budget %s: the run has already played for %s; give more than that", timeBudget, st.Elapsed.Round(time.Second))
		}
		cfg.TimeBudget = timeBudget
		if m, _ := config.MethodOf(cfg.Method); budgetGames == 0 && m.GainSchedule && cfg.BudgetGames > 0 && st.Elapsed > 0 && st.Games > 0 {
			cfg.BudgetGames = max(cfg.BudgetGames, int(float64(st.Games)*d.Seconds()/st.Elapsed.Seconds()))
		}
	}
	cfg.Generations = 0
	return nil
}

// Header is the line a resume starts with: the run, where it goes on, its end (its
// generations, else its budgets), the workers and the database.
func (r Resumable) Header(dbPath string) string {
	cfg, end := r.Config, ""
	if cfg.Generations > 0 {
		end = fmt.Sprintf(" of %d", cfg.Generations)
	}
	if cfg.BudgetGames > 0 {
		end += fmt.Sprintf(", budget %d games", cfg.BudgetGames)
	}
	if cfg.TimeBudget != "" {
		end += ", time budget " + cfg.TimeBudget
	}
	ext := ""
	if n := len(cfg.Extensions); r.Extended && n > 0 {
		e := cfg.Extensions[n-1]
		ext = fmt.Sprintf(" (extended after %d distinct tuning games from %s)", e.Games, budgetText(e.Before))
		if e.Budget == e.Before {
			ext = fmt.Sprintf(" (changed after %d distinct tuning games)", e.Games)
		}
		var held []string
		for _, n := range e.Fix {
			held = append(held, fmt.Sprintf("%s=%g", n, e.Held[n]))
		}
		if len(held) > 0 {
			ext += ", frozen from generation " + strconv.Itoa(e.FromGeneration) + ": " + strings.Join(held, ", ")
		}
		if len(e.Free) > 0 {
			ext += ", thawed from generation " + strconv.Itoa(e.FromGeneration) + ": " + strings.Join(e.Free, ", ")
		}
	}
	return fmt.Sprintf("resuming run %d (%s) after generation %d%s%s, %d workers, database %s",
		r.Run.ID, cfg.Game, r.State.LastGeneration, end, ext, cfg.Workers, dbPath)
}

// budgetText says what a budget was: "a budget of 2000 games", "5 generations", …
func budgetText(b config.Budget) string {
	var parts []string
	if b.Generations > 0 {
		parts = append(parts, fmt.Sprintf("%d generations", b.Generations))
	}
	if b.BudgetGames > 0 {
		parts = append(parts, fmt.Sprintf("a budget of %d games", b.BudgetGames))
	}
	if b.TimeBudget != "" {
		parts = append(parts, "a time budget of "+b.TimeBudget)
	}
	if len(parts) == 0 {
		return "no budget"
	}
	return strings.Join(parts, " and ")
}

// RunningError refuses to resume a run that live process pid (name: what it is, "" unknown)
// holds, naming that process and both ways out.
func RunningError(runID int64, pid int, name, dbPath string) error {
	what := fmt.Sprintf("process %d", pid)
	if name != "" {
		what = fmt.Sprintf("process %d (%s)", pid, name)
	}
	return fmt.Errorf("run %d is marked running by %s, which is alive; stop it first (Ctrl-C or kill %d), or, if that process is not tuning this run (its PID was reused), '%s --force'",
		runID, what, pid, ResumeCommand(runID, dbPath))
}

// ResumeCommand is the command line that resumes run runID of the database at dbPath, as
// a suggestion prints it: "evotune resume 3 --db runs/x.db" (the path quoted for a shell
// when it needs it).
func ResumeCommand(runID int64, dbPath string) string {
	return fmt.Sprintf("evotune resume %d --db %s", runID, protocol.ShellQuote(dbPath))
}

// allowEngines is the trust rule for stored configurations (the same as a cluster
// worker's): a run's database may come from someone else, so each outside engine its
// configuration names runs only if allowed names its whole command line (the same
// program, as a path or the same file once both are resolved, and the same arguments; see
// protocol.CommandAllowed). The error lists every command and how to allow them (command,
// the command line refused, with each --allow-engine added); nothing has run.
func allowEngines(runID int64, command string, engines, allowed []string) error {
	missing, err := protocol.Disallowed(engines, allowed)
	if err != nil {
		return fmt.Errorf("run %d: stored %w", runID, err)
	}
	if len(missing) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "run %d's stored configuration runs external engines this machine has not allowed; none was started:", runID)
	var flags []string
	for _, m := range missing {
		fmt.Fprintf(&b, "\n  %s", compare.Printable(m))
		flags = append(flags, "--allow-engine "+protocol.ShellQuote(m))
	}
	fmt.Fprintf(&b, "\nread what they are, then allow each: %s %s", command, strings.Join(flags, " "))
	return errors.New(b.String())
}
