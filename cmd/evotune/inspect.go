package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"evotune/db"
	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/runstore"
	"evotune/tuner/runview"
)

type inspectOpts struct {
	dbPath string
	json   bool
}

func addInspectFlags(c *cobra.Command, o *inspectOpts) {
	c.Flags().StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
}

func openRO(ctx context.Context, path string) (*db.DB, error) {
	return db.OpenReadOnly(ctx, path)
}

// openRunRO opens the database at path read-only and reads run runID; the caller closes
// the database (closed here on error).
func openRunRO(ctx context.Context, path string, runID int64) (*db.DB, db.Run, error) {
	d, err := openRO(ctx, path)
	if err != nil {
		return nil, db.Run{}, err
	}
	run, err := d.Run(ctx, runID)
	if err != nil {
		d.Close()
		return nil, db.Run{}, err
	}
	return d, run, nil
}

func parseRunID(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("run ID %q: want a positive number (see 'evotune runs')", s)
	}
	return n, nil
}

// ---- runs ----

func newRunsCmd() *cobra.Command {
	var o inspectOpts
	c := &cobra.Command{
		Use:     "runs [--db FILE] [--json]",
		Short:   "List the tuning runs in the database",
		Args:    cobra.NoArgs,
		Example: "  evotune runs\n  evotune runs --db t.db --json",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRuns(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	addInspectFlags(c, &o)
	return c
}

func runRuns(ctx context.Context, o inspectOpts, out io.Writer) error {
	d, err := openRO(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	runs, err := d.Runs(ctx)
	if err != nil {
		return err
	}
	for i := range runs {
		runs[i].Status = effectiveStatus(runs[i])
	}
	if o.json {
		return writeJSON(out, runs)
	}
	return runview.RunsText(out, runs)
}

// ---- generations ----

func newGenerationsCmd() *cobra.Command {
	var o inspectOpts
	c := &cobra.Command{
		Use:     "generations RUN [--db FILE] [--json]",
		Short:   "Show a run's generations: race winner's score ± SE, hall-of-fame test, champion, verified Elo, time",
		Args:    cobra.ExactArgs(1),
		Example: "  evotune generations 1\n  evotune generations 1 --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGenerations(cmd.Context(), o, args[0], cmd.OutOrStdout())
		},
	}
	addInspectFlags(c, &o)
	return c
}

func runGenerations(ctx context.Context, o inspectOpts, arg string, out io.Writer) error {
	id, err := parseRunID(arg)
	if err != nil {
		return err
	}
	d, run, err := openRunRO(ctx, o.dbPath, id)
	if err != nil {
		return err
	}
	defer d.Close()
	views, err := runview.GenerationTable(ctx, d, id)
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(out, views)
	}
	cfg, err := runConfig(run)
	if err != nil {
		cfg = config.Config{} // a configuration this build cannot read: the GA's columns
	}
	return runview.GenerationsText(out, id, cfg, views)
}

// ---- individual ----

func newIndividualCmd() *cobra.Command {
	var o inspectOpts
	c := &cobra.Command{
		Use:     "individual ID [--db FILE] [--json]",
		Short:   "Show one individual: genes, parents, operator and results in every generation it lived in",
		Args:    cobra.ExactArgs(1),
		Example: "  evotune individual 1-g3-02",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runIndividual(cmd.Context(), o, args[0], cmd.OutOrStdout())
		},
	}
	addInspectFlags(c, &o)
	return c
}

func runIndividual(ctx context.Context, o inspectOpts, id string, out io.Writer) error {
	if _, err := genomes.RunOfIndividual(id); err != nil {
		return err
	}
	d, err := openRO(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	v, err := runstore.LoadIndividual(ctx, d, id)
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(out, v)
	}
	run, err := d.Run(ctx, v.Run)
	if err != nil {
		return err
	}
	rcfg, err := runConfig(run)
	if err != nil {
		return err
	}
	layout, err := rcfg.GeneLayout()
	if err != nil {
		return err
	}
	return runview.IndividualText(out, id, v, layout, rcfg.Engine != "")
}

// ---- lineage ----

type lineageOpts struct {
	inspectOpts
	dot bool
}

func newLineageCmd() *cobra.Command {
	var o lineageOpts
	c := &cobra.Command{
		Use:     "lineage ID [--db FILE] [--json | --dot]",
		Short:   "Show an individual's ancestry tree (--dot for Graphviz)",
		Args:    cobra.ExactArgs(1),
		Example: "  evotune lineage 1-g5-03\n  evotune lineage 1-g5-03 --dot | dot -Tpng > lineage.png",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLineage(cmd.Context(), o, args[0], cmd.OutOrStdout())
		},
	}
	addInspectFlags(c, &o.inspectOpts)
	c.Flags().BoolVar(&o.dot, "dot", false, "print a Graphviz digraph")
	c.MarkFlagsMutuallyExclusive("json", "dot")
	return c
}

func runLineage(ctx context.Context, o lineageOpts, id string, out io.Writer) error {
	run, err := genomes.RunOfIndividual(id)
	if err != nil {
		return err
	}
	d, err := openRO(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	anc, err := d.Ancestors(ctx, run, id)
	if err != nil {
		return err
	}
	switch {
	case o.json:
		return writeJSON(out, anc)
	case o.dot:
		return runview.LineageDot(out, anc)
	}
	return runview.LineageText(out, id, anc)
}

// ---- export ----

type exportOpts struct {
	dbPath     string
	individual string
	out        string
	format     string
	force      bool
}

func newExportCmd() *cobra.Command {
	var o exportOpts
	c := &cobra.Command{
		Use:   "export RUN [--individual ID] --out FILE [--db FILE]",
		Short: "Write the best (or a named) individual's weights as a weights file with provenance",
		Args:  cobra.ExactArgs(1),
		Example: "  evotune export 1 --out best.json\n  evotune export 1 --individual 1-g3-02 --out g3.json\n" +
			"  evotune export 2 --format openbench --out tune.txt\n  evotune export 2 --format setoption --out best.uci\n" +
			"  evotune play --game connect6 --black best.json --white default",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd.Context(), o, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	c.Flags().StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	c.Flags().StringVar(&o.individual, "individual", "", "export this individual instead of the run's best")
	c.Flags().StringVar(&o.out, "out", "", "weights file to write (atomically; an existing file only with --force); - for standard output")
	c.Flags().BoolVar(&o.force, "force", false, "replace an existing --out file (never a weights file of another game)")
	c.Flags().StringVar(&o.format, "format", "", "an outside engine's run: openbench (OpenBench/fishtest SPSA lines: NAME, int, VALUE, MIN, MAX, C_END, R_END) or setoption (UCI setoption lines); default: the run's weights format")
	return c
}

func runExport(ctx context.Context, o exportOpts, arg string, out, errOut io.Writer) error {
	runID, err := parseRunID(arg)
	if err != nil {
		return err
	}
	if o.out == "" {
		return errors.New("--out is required (a file name, or - for standard output)")
	}
	d, run, err := openRunRO(ctx, o.dbPath, runID)
	if err != nil {
		return err
	}
	defer d.Close()
	ex, err := runstore.Export(ctx, d, run, o.individual, "evotune "+version, o.format)
	if err != nil {
		return err
	}
	if o.out == "-" {
		_, err = out.Write(ex.Data)
		if ex.Provenance != "" {
			fmt.Fprint(errOut, ex.Provenance)
		}
		return err
	}
	if err := checkOverwrite(o.out, run.Game, o.force); err != nil {
		return err
	}
	if err := engine.WriteFileAtomic(o.out, ex.Data); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(out, "wrote %s: %s\n", o.out, ex.What)
	fmt.Fprint(out, ex.Provenance)
	return nil
}

// checkOverwrite refuses an export over an existing file unless force, and even with force
// over a weights file of another game than game: a user's file is never replaced by
// surprise. The error names the file, what it holds and the way out.
func checkOverwrite(path, game string, force bool) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil // nothing there (WriteFileAtomic names a missing directory)
	}
	if !fi.Mode().IsRegular() {
		return nil // WriteFileAtomic refuses it with its kind
	}
	holds := "a file"
	if data, err := engine.ReadInputFile(path, "--out", engine.MaxWeightsFileSize); err == nil {
		var w struct {
			Game string `json:"game"`
		}
		if json.Unmarshal(data, &w) == nil && w.Game != "" {
			if w.Game != game {
				return fmt.Errorf("--out %s holds %s weights, and the run's are %s: not replaced, even with --force; choose another name", path, w.Game, game)
			}
			holds = w.Game + " weights"
		}
	}
	if !force {
		return fmt.Errorf("--out %s exists (%s): choose another name, or add --force to replace it", path, holds)
	}
	return nil
}

// runConfig decodes the configuration stored with a run.
func runConfig(run db.Run) (config.Config, error) {
	cfg, err := config.DecodeConfig(string(run.Config))
	if err != nil {
		return cfg, fmt.Errorf("run %d: %w", run.ID, err)
	}
	return cfg, nil
}

// effectiveStatus reports a "running" run whose process is gone as "interrupted".
func effectiveStatus(r db.Run) string {
	if r.Status == db.StatusRunning && r.PID > 0 && !processAlive(r.PID) {
		return db.StatusInterrupted
	}
	return r.Status
}
