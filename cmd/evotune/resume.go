package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/spf13/cobra"

	"evotune/db"
	"evotune/tuner"
	"evotune/tuner/config"
	"evotune/tuner/outside"
	"evotune/tuner/progress"
	"evotune/tuner/runstore"
	"evotune/tuner/runview"
)

type resumeOpts struct {
	dbPath  string
	workers int
	force   bool
	allow   []string
	// verifyOpenings names the run's verification opening file again, for a database that
	// stored its name without its openings.
	verifyOpenings string
	// budgetGames and timeBudget extend the run's budget (a finished run goes on).
	budgetGames int
	timeBudget  string
	// fix and free freeze and thaw genes from the next generation on.
	fix, free []string
	cluster   clusterOpts
	changed   func(string) bool
}

func newResumeCmd() *cobra.Command {
	var o resumeOpts
	c := &cobra.Command{
		Use:   "resume RUN [--db FILE] [--workers N] [--budget-games N] [--time-budget D] [--fix GENES] [--free GENES]",
		Short: "Continue a stopped, failed or interrupted run from its last saved generation, or give a run more games",
		Long: "resume continues a run with its stored configuration, population, hall of fame, time budget\n" +
			"and random streams, so it ends exactly as an uninterrupted run with the same seed would (with\n" +
			"a time budget, only where it stops depends on the clock). The number of workers may change\n" +
			"(it never changes results), and so may the budget: --budget-games N or --time-budget D lets a\n" +
			"stopped or finished run play on to the new budget (the GA and CMA-ES continue their generations;\n" +
			"SPSA plans its later steps' gains over the new total, as fishtest plans a run of that length),\n" +
			"stored with the run (its config's extensions), and verifies the champion again at the end.\n" +
			"--fix and --free freeze genes at the champion's values and thaw fixed ones from the next\n" +
			"generation on (the GA and the steady-state GA).",
		Args:    cobra.ExactArgs(1),
		Example: "  evotune resume 3\n  evotune tune --resume 3 --workers 2\n  evotune resume 3 --budget-games 8000",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.changed = cmd.Flags().Changed
			return runResume(cmd.Context(), o, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	c.Flags().StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	c.Flags().IntVar(&o.workers, "workers", 0, "games played at once (default: the run's)")
	c.Flags().IntVar(&o.budgetGames, "budget-games", 0, "play on until this many distinct tuning games (more than the run has played; a finished run goes on)")
	c.Flags().StringVar(&o.timeBudget, "time-budget", "", "play on until the run's wall time reaches this, e.g. 12h (more than it has run; a finished run goes on)")
	c.Flags().StringSliceVar(&o.fix, "fix", nil, "freeze these genes (k1,k2) at the champion's values from the next generation on (GA, steady-state GA)")
	c.Flags().StringSliceVar(&o.free, "free", nil, "thaw these fixed genes from the next generation on: they move from their current values (GA, steady-state GA)")
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
	d, _, err := openRun(ctx, o.dbPath, runID)
	if err != nil {
		return err
	}
	defer d.Release() // no end-of-process checkpoint while readers may be reading
	r, err := runstore.PrepareResume(ctx, d, runID, runstore.ResumeOptions{Workers: o.workers, MaxWorkers: config.MaxWorkers(), Force: o.force,
		MaxWorkersNote: fmt.Sprintf("%d× its %d CPUs", config.WorkersPerCPU, runtime.NumCPU()), Allow: o.allow, Command: commandLine(), VerifyOpenings: o.verifyOpenings, Alive: processAlive, Name: processName, Self: os.Getpid(),
		BudgetGames: o.budgetGames, TimeBudget: o.timeBudget, Fix: o.fix, Free: o.free})
	if err != nil {
		return err
	}
	for _, w := range r.Warnings {
		fmt.Fprintln(errOut, "warning: "+w)
	}
	cfg, state := r.Config, r.State
	prog := progress.New(errOut)
	prog.Limits = cfg.EngineLimitsText()
	t, err := tuner.New(cfg, runstore.New(d, cfg.AdmitZ), prog.Update, version)
	if err != nil {
		return fmt.Errorf("run %d: %w", runID, err)
	}
	if err := outside.ProbeEngines(ctx, cfg, errOut); err != nil {
		return err // before the claim: a refused resume writes nothing
	}
	detach, err := o.cluster.attach(ctx, errOut, t.SetRunner)
	if err != nil {
		return err
	}
	defer detach()
	// The claim is the lock: atomic in the database, so of two resumes started at once one
	// claims the run and the other stops here, before writing anything.
	stored := ""
	if r.Extended {
		b, err := json.Marshal(cfg)
		if err != nil {
			return err
		}
		stored = string(b)
	}
	prev, err := d.ClaimRunConfig(ctx, runID, os.Getpid(), o.force, processAlive, stored)
	var locked *db.RunLockedError
	if errors.As(err, &locked) {
		return runstore.RunningError(runID, locked.PID, processName(locked.PID), o.dbPath)
	}
	if err != nil {
		return err
	}
	if o.force && prev > 0 && prev != os.Getpid() && processAlive(prev) {
		name := processName(prev)
		fmt.Fprintf(errOut, "warning: --force: run %d was marked running by live process %d (%s); taking it over. If that process is an evotune still tuning this run, it stops at its next save.\n",
			runID, prev, runview.OrDash(name))
	}
	fmt.Fprintln(errOut, r.Header(o.dbPath))
	sum, err := t.Resume(ctx, state)
	prog.Finish()
	printSummary(out, sum, o.dbPath)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("run %d stopped; its %d saved generations are kept: continue with 'evotune resume %d --db %s'", runID, sum.Generations, runID, o.dbPath)
	}
	return err
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
