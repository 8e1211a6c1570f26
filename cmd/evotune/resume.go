package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"evotune/db"
	"evotune/engine/protocol"
	"evotune/tuner"
	"evotune/tuner/runstore"
)

type resumeOpts struct {
	dbPath  string
	workers int
	force   bool
	allow   []string
	// verifyOpenings names the run's verification opening file again, for a database that
	// stored its name without its openings.
	verifyOpenings string
	cluster        clusterOpts
	changed        func(string) bool
}

func newResumeCmd() *cobra.Command {
	var o resumeOpts
	c := &cobra.Command{
		Use:   "resume RUN [--db FILE] [--workers N]",
		Short: "Continue a stopped, failed or interrupted run from its last saved generation",
		Long: "resume continues a run with its stored configuration, population, hall of fame, time budget\n" +
			"and random streams, so it ends exactly as an uninterrupted run with the same seed would (with\n" +
			"a time budget, only where it stops depends on the clock). Only the number of workers may\n" +
			"change (it never changes results).",
		Args:    cobra.ExactArgs(1),
		Example: "  evotune resume 3\n  evotune tune --resume 3 --workers 2",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.changed = cmd.Flags().Changed
			return runResume(cmd.Context(), o, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	c.Flags().StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	c.Flags().IntVar(&o.workers, "workers", 0, "games played at once (default: the run's)")
	addClusterFlags(c, &o.cluster)
	c.Flags().StringArrayVar(&o.allow, "allow-engine", nil, "an external engine command line the run's stored configuration names that this machine may run, compared whole ('cmd:PROG ARGS'; repeat for each; a database can come from someone else)")
	c.Flags().StringVar(&o.verifyOpenings, "verify-openings", "", "the run's verification opening file, named again: needed only for a database that stored the file's name without its openings (evotune never opens a path found in a database)")
	c.Flags().BoolVar(&o.force, "force", false, "take the run over even though its recorded process is alive (its PID was reused by another program); the old writer, if it is still evotune, stops at its next save")
	return c
}

func runResume(ctx context.Context, o resumeOpts, arg string, out, errOut io.Writer) error {
	runID, err := parseRunID(arg)
	if err != nil {
		return err
	}
	return continueRun(ctx, o, runID, out, errOut)
}

// continueRun resumes run runID (resume RUN, tune --resume RUN): it refuses a finished
// run or one a live process holds, loads the run's state (runstore.LoadResume) and goes
// on from its last saved generation.
func continueRun(ctx context.Context, o resumeOpts, runID int64, out, errOut io.Writer) error {
	d, run, err := openRun(ctx, o.dbPath, runID)
	if err != nil {
		return err
	}
	defer d.Release() // no end-of-process checkpoint while readers may be reading
	switch {
	case run.Status == db.StatusFinished:
		return fmt.Errorf("run %d is already finished; nothing to resume", runID)
	case run.Status == db.StatusRunning && run.PID > 0 && processAlive(run.PID) && run.PID != os.Getpid() && !o.force:
		return runningError(runID, run.PID)
	}
	cfg, err := runConfig(run)
	if err != nil {
		return err
	}
	engines := cfg.Opponents
	if cfg.Engine != "" {
		engines = append([]string{cfg.Engine}, engines...)
	}
	if err := allowEngines(runID, engines, o.allow); err != nil {
		return err
	}
	if o.verifyOpenings != "" {
		switch {
		case o.verifyOpenings != cfg.VerifyOpenings:
			return fmt.Errorf("--verify-openings %s: run %d's verification openings are %q; only that file may be named again", o.verifyOpenings, runID, cfg.VerifyOpenings)
		case len(cfg.VerifyOpeningList) > 0:
			return fmt.Errorf("--verify-openings %s: run %d already stores that file's %d openings; leave the flag out", o.verifyOpenings, runID, len(cfg.VerifyOpeningList))
		}
		if err := cfg.ReadVerifyOpenings(); err != nil {
			return fmt.Errorf("--verify-openings: %w", err)
		}
	}
	if o.workers != 0 {
		if o.workers < 0 {
			return fmt.Errorf("--workers %d: want at least 1", o.workers)
		}
		cfg.Workers = o.workers
	}
	if cfg.Workers > maxWorkers() {
		fmt.Fprintf(errOut, "warning: run %d was tuned with %d workers; this machine plays %d at once (%d× its %d CPUs); results do not change\n", runID, cfg.Workers, maxWorkers(), workersPerCPU, runtime.NumCPU())
		cfg.Workers = maxWorkers()
	}
	state, err := runstore.LoadResume(ctx, d, runID, cfg.AdmitZ)
	if err != nil {
		return err
	}
	prog := newProgress(errOut)
	prog.limits = engineLimitsText(cfg)
	t, err := tuner.New(cfg, runstore.New(d, cfg.AdmitZ), prog.update, version)
	if err != nil {
		return fmt.Errorf("run %d: %w", runID, err)
	}
	if err := probeOpponents(ctx, errOut, cfg); err != nil {
		return err // before the claim: a refused resume writes nothing
	}
	if err := probeSubject(ctx, errOut, cfg); err != nil {
		return err
	}
	detach, err := o.cluster.attach(ctx, errOut, t.SetRunner)
	if err != nil {
		return err
	}
	defer detach()
	// The claim is the lock: atomic in the database, so of two resumes started at once one
	// claims the run and the other stops here, before writing anything.
	prev, err := d.ClaimRun(ctx, runID, os.Getpid(), o.force, processAlive)
	var locked *db.RunLockedError
	if errors.As(err, &locked) {
		return runningError(runID, locked.PID)
	}
	if err != nil {
		return err
	}
	if o.force && prev > 0 && prev != os.Getpid() && processAlive(prev) {
		name := processName(prev)
		fmt.Fprintf(errOut, "warning: --force: run %d was marked running by live process %d (%s); taking it over. If that process is an evotune still tuning this run, it stops at its next save.\n",
			runID, prev, orDash(name))
	}
	// The run's end: its generations, else its budgets (a budget run has generations 0).
	end := ""
	if cfg.Generations > 0 {
		end = fmt.Sprintf(" of %d", cfg.Generations)
	}
	if cfg.BudgetGames > 0 {
		end += fmt.Sprintf(", budget %d games", cfg.BudgetGames)
	}
	if cfg.TimeBudget != "" {
		end += ", time budget " + cfg.TimeBudget
	}
	fmt.Fprintf(errOut, "resuming run %d (%s) after generation %d%s, %d workers, database %s\n",
		runID, cfg.Game, state.LastGeneration, end, cfg.Workers, o.dbPath)
	sum, err := t.Resume(ctx, state)
	prog.finish()
	printSummary(out, sum, o.dbPath)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("run %d stopped; its %d saved generations are kept: continue with 'evotune resume %d --db %s'", runID, sum.Generations, runID, o.dbPath)
	}
	return err
}

// allowEngines is the trust rule for stored configurations (the same as a cluster
// worker's): a run's database may come from someone else, so each external engine its
// configuration names runs only if --allow-engine names its whole command line (the same
// program, as a path or the same file once both are resolved, and the same arguments; see
// protocol.CommandAllowed). The error lists every command and how to allow them; nothing has run.
func allowEngines(runID int64, opponents, allowed []string) error {
	missing, err := protocol.Disallowed(opponents, allowed)
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
		fmt.Fprintf(&b, "\n  %s", safe(m))
		flags = append(flags, "--allow-engine "+shellQuote(m))
	}
	fmt.Fprintf(&b, "\nread what they are, then allow each: evotune resume %d %s", runID, strings.Join(flags, " "))
	return errors.New(b.String())
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == ',' || r == '=' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runningError refuses to resume a run another live process holds, naming that process
// and both ways out.
func runningError(runID int64, pid int) error {
	name := processName(pid)
	what := fmt.Sprintf("process %d", pid)
	if name != "" {
		what = fmt.Sprintf("process %d (%s)", pid, name)
	}
	return fmt.Errorf("run %d is marked running by %s, which is alive; stop it first (Ctrl-C or kill %d), or, if that process is not tuning this run (its PID was reused), 'evotune resume %d --force'",
		runID, what, pid, runID)
}

// openRun opens an existing database for writing (it is never created here) and loads
// one of its runs; the caller releases the database.
func openRun(ctx context.Context, path string, runID int64) (*db.DB, db.Run, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, db.Run{}, fmt.Errorf("database %s: %w", path, err)
	}
	d, err := db.Open(ctx, path)
	if err != nil {
		return nil, db.Run{}, err
	}
	run, err := d.Run(ctx, runID)
	if err != nil {
		d.Release()
		return nil, db.Run{}, err
	}
	return d, run, nil
}
