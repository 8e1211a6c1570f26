package runstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"evotune/db"
	"evotune/engine/protocol"
	"evotune/tuner"
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
	// VerifyOpenings names the run's verification opening file again, for a database that
	// stored the file's name without its openings.
	VerifyOpenings string
	// MaxWorkersNote says where MaxWorkers comes from, for the warning ("4× its 2 CPUs").
	MaxWorkersNote string
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
	Config   tuner.Config
	State    tuner.ResumeState
	Warnings []string
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
	switch {
	case run.Status == db.StatusFinished:
		return r, fmt.Errorf("run %d is already finished; nothing to resume", runID)
	case run.Status == db.StatusRunning && run.PID > 0 && o.Alive(run.PID) && run.PID != o.Self && !o.Force:
		return r, RunningError(runID, run.PID, o.Name(run.PID), d.Path())
	}
	cfg, err := tuner.DecodeConfig(string(run.Config))
	if err != nil {
		return r, fmt.Errorf("run %d: %w", runID, err)
	}
	engines := cfg.Opponents
	if cfg.Engine != "" {
		engines = append([]string{cfg.Engine}, engines...)
	}
	if err := allowEngines(runID, ResumeCommand(runID, d.Path()), engines, o.Allow); err != nil {
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
	r.Config = cfg
	return r, nil
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
	return fmt.Sprintf("resuming run %d (%s) after generation %d%s, %d workers, database %s",
		r.Run.ID, cfg.Game, r.State.LastGeneration, end, cfg.Workers, dbPath)
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
		fmt.Fprintf(&b, "\n  %s", tuner.Printable(m))
		flags = append(flags, "--allow-engine "+protocol.ShellQuote(m))
	}
	fmt.Fprintf(&b, "\nread what they are, then allow each: %s %s", command, strings.Join(flags, " "))
	return errors.New(b.String())
}
