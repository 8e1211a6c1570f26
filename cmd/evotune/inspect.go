package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"evotune/db"
	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner"
	"evotune/tuner/runstore"
	"evotune/tuner/runview"
	"evotune/tuner/stats"
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

func fmtFloat(p *float64, format string) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf(format, *p)
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
	tw := tabwriter.NewWriter(newTermWriter(out), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tGAME\tSTATUS\tGENERATIONS\tCHAMPION\tITS LAST SCORE\tVERIFIED ELO\tCREATED")
	for _, r := range runs {
		var score *float64
		if r.BestFitness != nil {
			s := 1 - *r.BestFitness
			score = &s
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", r.ID, safeCell(r.Name), safeCell(r.Game), safeCell(r.Status), r.GenerationsDone, safeCell(string(r.BestIndividual)), fmtFloat(score, "%.3f"), verifiedElo(r), shortTime(r.CreatedAt))
	}
	return tw.Flush()
}

// verifiedElo summarises a run's verification: "+35.2 ± 40.1 (H0, 1-g4-02, 60 games)", the
// verdict left out when no SPRT ran; "not measured" when it played no games.
func verifiedElo(r db.Run) string {
	if r.Verification == "" {
		return "-"
	}
	var v struct {
		Champion string  `json:"champion"`
		Games    int     `json:"games"`
		Elo      float64 `json:"elo"`
		CI       float64 `json:"elo_ci95"`
		Verdict  string  `json:"verdict"`
	}
	if json.Unmarshal([]byte(r.Verification), &v) != nil {
		return "?"
	}
	if v.Games == 0 {
		return "not measured"
	}
	verdict := ""
	if v.Verdict != "" {
		verdict = v.Verdict + ", "
	}
	return fmt.Sprintf("%s (%s%s, %d games)", stats.FormatEloCI(v.Elo, v.CI), verdict, v.Champion, v.Games)
}

func shortTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.Local().Format("2006-01-02 15:04")
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
	if err == nil && cfg.Method == tuner.MethodSPSA {
		return printSPSASteps(id, views, out)
	}
	best := "RACE WINNER"
	switch {
	case cfg.Method == tuner.MethodSteady:
		best = "BEST MEMBER"
	case cfg.Method == tuner.MethodCMAES:
		best = "BEST CANDIDATE"
	case cfg.Selection == tuner.SelectionPeers:
		best = "BEST OF PEERS"
	}
	tw := tabwriter.NewWriter(newTermWriter(out), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GEN\t"+best+"\tSCORE ± SE\tGAMES\tMEAN\tDIVERSITY\tPLAYED\tELAPSED\tHALL OF FAME TEST\tCHAMPION\tVERIFIED ELO")
	for _, v := range views {
		g := v.GenerationRow
		score := "-"
		if v.BestScoreSE != nil {
			score = fmt.Sprintf("%.3f ± %.3f", v.BestScore, *v.BestScoreSE)
		}
		test := "-"
		if a := v.Admission; a != nil {
			verdict := "rejected"
			if a.Admitted {
				verdict = "admitted"
			}
			test = fmt.Sprintf("%s %+.3f ± %.3f over %s: %s", safeCell(a.Candidate), a.Diff, a.DiffSE, safeCell(a.Opponent), verdict)
		}
		verified := "-"
		if c := v.Checkpoint; c != nil && c.Games == 0 {
			verified = "not measured (the paper's weights)"
		} else if c != nil && c.Elo != nil {
			verified = fmt.Sprintf("%s (%d pairs)", stats.FormatEloCI(*c.Elo, *c.EloCI95), c.Pairs)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%.3f\t%.3f\t%d\t%s\t%s\t%s\t%s\n", g.Generation, safeCell(g.Best), score, v.BestGames, 1-g.FitMean, g.Diversity, g.Games,
			(time.Duration(g.ElapsedMS) * time.Millisecond).Round(time.Second), test, safeCell(orDash(g.Champion)), verified)
	}
	return tw.Flush()
}

// printSPSASteps is `generations` for an SPSA run: per step, θ+'s score against θ− (the
// step's only games), and θ after the step, which plays no game.
func printSPSASteps(runID int64, views []runview.GenerationRow, out io.Writer) error {
	tw := tabwriter.NewWriter(newTermWriter(out), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tθ+ AGAINST θ− (SCORE ± SE)\tGAMES\tθ AFTER THE STEP (CHAMPION)\tELAPSED\tVERIFIED ELO")
	for _, v := range views {
		g := v.GenerationRow
		score, games := "-", 0
		for _, in := range v.Individuals {
			if in.ID == tuner.SPSAPlusID(runID, g.Generation) && in.ScoreSE != nil {
				score, games = fmt.Sprintf("%.3f ± %.3f", in.Score, *in.ScoreSE), in.Games
			}
		}
		verified := "-"
		if c := v.Checkpoint; c != nil && c.Elo != nil {
			verified = fmt.Sprintf("%s (%d pairs)", stats.FormatEloCI(*c.Elo, *c.EloCI95), c.Pairs)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\n", g.Generation, score, games, safeCell(orDash(g.Champion)),
			(time.Duration(g.ElapsedMS) * time.Millisecond).Round(time.Second), verified)
	}
	return tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
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
	out = newTermWriter(out)
	parents := strings.Trim(safeCell(v.Genome.Parent1)+" "+safeCell(v.Genome.Parent2), " ")
	if parents == "" {
		parents = "-"
	}
	fmt.Fprintf(out, "individual %s (run %d): born in generation %d by %s, parents %s\n", safe(id), v.Run, v.Genome.Born, safeCell(v.Genome.Operator), parents)
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
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	def := "PAPER"
	if rcfg.Engine != "" {
		def = "DEFAULT"
	}
	fmt.Fprintf(tw, "GENE\tVALUE\t%s\n", def)
	for _, g := range layout.Genes {
		fmt.Fprintf(tw, "%s\t%.6g\t%.6g\n", safeCell(g.Name), v.Genes[g.Name], g.Default)
	}
	tw.Flush()
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GEN\tRANK\tROUND\tSCORE ± SE\tELO ± 95%\tGAMES\tW\tD\tL\tPENTANOMIAL 0/½/1/1½/2")
	for _, h := range v.History {
		score, elo := fmt.Sprintf("%.3f", h.Score), "-"
		if h.ScoreSE != nil {
			score += fmt.Sprintf(" ± %.3f", *h.ScoreSE)
		}
		if h.Elo != nil && h.EloCI95 != nil {
			elo = stats.FormatEloCI(*h.Elo, *h.EloCI95)
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%v\n", h.Generation, h.Rank, h.Round, score, elo, h.Games, h.Wins, h.Draws, h.Losses, h.Penta)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out, "(each generation's row holds only that generation's games against its references; rows of different generations are not added up)")
	if h := v.Famer; h != nil {
		fmt.Fprintf(out, "hall of fame: admitted in generation %d; since then %d games against the paper's weights", h.Admitted, h.Games)
		if h.Elo != nil && h.EloSE != nil {
			fmt.Fprintf(out, ", Elo %s ± %.1f (1 SE), lower bound %s", stats.EloText(*h.Elo), *h.EloSE, stats.EloText(*h.EloLCB))
		}
		fmt.Fprintln(out)
	}
	return nil
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
	byID := map[string]db.GenomeRow{}
	for _, g := range anc {
		byID[g.ID] = g
	}
	switch {
	case o.json:
		return writeJSON(out, anc)
	case o.dot:
		fmt.Fprintf(out, "digraph lineage {\n  rankdir=BT;\n  node [shape=box];\n")
		for _, g := range anc {
			dotq := strings.NewReplacer(`"`, `\"`).Replace
			fmt.Fprintf(out, "  \"%s\" [label=\"%s\\ngen %d, %s\"];\n", dotq(safe(g.ID)), dotq(safe(g.ID)), g.Born, dotq(safe(g.Operator)))
			for _, p := range []string{g.Parent1, g.Parent2} {
				if p != "" {
					fmt.Fprintf(out, "  \"%s\" -> \"%s\";\n", dotq(safe(g.ID)), dotq(safe(p)))
				}
			}
		}
		fmt.Fprintln(out, "}")
		return nil
	}
	out = newTermWriter(out)
	printed := map[string]bool{}
	var walk func(id, indent string)
	walk = func(id, indent string) {
		g := byID[id]
		if printed[id] {
			fmt.Fprintf(out, "%s%s (see above)\n", indent, safeCell(id))
			return
		}
		printed[id] = true
		fmt.Fprintf(out, "%s%s  gen %d  %s\n", indent, safeCell(id), g.Born, safeCell(g.Operator))
		for _, p := range []string{g.Parent1, g.Parent2} {
			if p != "" {
				walk(p, indent+"  ")
			}
		}
	}
	walk(id, "")
	return nil
}

// ---- export ----

type exportOpts struct {
	dbPath     string
	individual string
	out        string
	format     string
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
			return runExport(cmd.Context(), o, args[0], cmd.OutOrStdout())
		},
	}
	c.Flags().StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	c.Flags().StringVar(&o.individual, "individual", "", "export this individual instead of the run's best")
	c.Flags().StringVar(&o.out, "out", "", "weights file to write (atomically); - for standard output")
	c.Flags().StringVar(&o.format, "format", "", "an outside engine's run: openbench (OpenBench/fishtest SPSA lines: NAME, int, VALUE, MIN, MAX, C_END, R_END) or setoption (UCI setoption lines); default: the run's weights format")
	return c
}

func runExport(ctx context.Context, o exportOpts, arg string, out io.Writer) error {
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
		return err
	}
	if err := engine.WriteFileAtomic(o.out, ex.Data); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(out, "wrote %s: %s\n", o.out, ex.What)
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// runConfig decodes the configuration stored with a run.
func runConfig(run db.Run) (tuner.Config, error) {
	cfg, err := tuner.DecodeConfig(string(run.Config))
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
