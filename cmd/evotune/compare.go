package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"evotune/db"
	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner"
	"evotune/tuner/runstore"
	"evotune/tuner/stats"
)

type compareOpts struct {
	cc         tuner.CompareConfig
	methods    string
	seeds      string
	depth      string
	layoutFile string
	configFile string
	dbPath     string
	show       int64
	asJSON     bool
	changed    func(string) bool
}

func newCompareCmd() *cobra.Command {
	var o compareOpts
	def := tuner.DefaultConfig("")
	c := &cobra.Command{
		Use:   "compare --game G --budget-games N [--methods ga,spsa,cmaes --seeds 1,2,3 --verify-games N --verify-depth D --db FILE]",
		Short: "Run tuning methods side by side at an equal budget of games and measure each result on held-out openings",
		Long: "compare runs every method (--methods) once per seed (--seeds) with the same game, depth, free genes and\n" +
			"budget of distinct tuning games (--budget-games), then plays each result against the paper's weights\n" +
			"on held-out openings drawn from the seed (the same openings for every method of a seed), every game\n" +
			"played (no SPRT stop), and at --verify-depth if given. It prints the table (Elo ± 95% per seed, mean,\n" +
			"worst seed) and stores it: the runs are ordinary runs of the database, linked in the tables\n" +
			"comparisons and comparison_runs; 'compare --show ID' prints a stored comparison again.",
		Args: cobra.NoArgs,
		Example: "  evotune compare --game gomoku --budget-games 44000 --seeds 1,2,3 --verify-games 8000 --verify-depth 5 --verify-depth-games 2000\n" +
			"  evotune compare --game amazons --methods ga,spsa --budget-games 4000 --seeds 1 --verify-games 1000\n" +
			"  evotune compare --show 1",
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.changed = cmd.Flags().Changed
			return runCompare(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.StringVar(&o.cc.Base.Game, "game", "", gameFlagHelp())
	f.StringVar(&o.methods, "methods", "ga,spsa", "methods to compare, in the table's order: any of "+tuner.MethodNames())
	f.StringVar(&o.seeds, "seeds", "1,2,3", "seeds: each method runs once per seed")
	f.IntVar(&o.cc.BudgetGames, "budget-games", 0, "distinct tuning games of each run (required)")
	f.IntVar(&o.cc.VerifyGames, "verify-games", 2000, "held-out games of each result against the paper's weights at the tuning depth")
	f.IntVar(&o.cc.VerifyDepth, "verify-depth", 0, "also measure each result at this search depth (0 = none)")
	f.IntVar(&o.cc.VerifyDepthGames, "verify-depth-games", 0, "games of the measurement at --verify-depth (0 = --verify-games)")
	f.StringVar(&o.depth, "depth", "", "search depth of every game (default: the game's)")
	f.IntVar(&o.cc.Base.Width, "width", 0, "search width of every game (0 = the game's default)")
	f.StringSliceVar(&o.cc.Base.Fix, "fix", nil, "genes to hold at the paper's value")
	f.StringSliceVar(&o.cc.Base.Free, "free", nil, "fixed genes to tune anyway")
	f.IntVar(&o.cc.Base.Workers, "workers", def.Workers, "games played at once (never changes results)")
	f.StringVar(&o.layoutFile, "layout", "", "compare the methods on an outside engine: its layout file or OpenBench parameter list (as tune --layout); needs --engine")
	f.StringVar(&o.cc.Base.Engine, "engine", "", "the outside engine, 'cmd:PROG ARGS' (as tune --engine)")
	f.Int64Var(&o.cc.Base.Nodes, "nodes", 0, "UCI outside engine: nodes per search (go nodes N)")
	f.IntVar(&o.cc.Base.EngineDepth, "engine-depth", 0, "UCI outside engine: depth per search (go depth D)")
	f.StringArrayVar(&o.cc.Base.EngineOptions, "engine-option", nil, "a fixed option of the outside engine, NAME=VALUE (repeatable)")
	f.StringVar(&o.configFile, "config", "", "YAML config file: the base of every run (method, seed, budget and verification are set by compare)")
	f.StringVar(&o.cc.NamePrefix, "name", "", "run names PREFIX-METHOD-seedS (default: compare-ID)")
	f.StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	f.Int64Var(&o.show, "show", 0, "print stored comparison ID instead of running one")
	f.BoolVar(&o.asJSON, "json", false, "print JSON")
	return c
}

// compareRecord is the comparisons.config JSON.
type compareRecord struct {
	Methods          []string     `json:"methods"`
	Seeds            []int64      `json:"seeds"`
	BudgetGames      int          `json:"budget_games"`
	VerifyGames      int          `json:"verify_games"`
	VerifyDepth      int          `json:"verify_depth"`
	VerifyDepthGames int          `json:"verify_depth_games"`
	Base             tuner.Config `json:"base"`
}

// compareConfig resolves the flags into a comparison (the error names the flag).
func compareConfig(o compareOpts) (tuner.CompareConfig, error) {
	cc := o.cc
	if cc.Base.Game == "" && o.configFile == "" && o.layoutFile == "" {
		return cc, fmt.Errorf("--game is required (or --layout)")
	}
	base := tuner.DefaultConfig(cc.Base.Game)
	if o.configFile != "" {
		var err error
		if base, err = tuner.LoadConfigFile(o.configFile, base); err != nil {
			return cc, err
		}
	}
	ch := func(n string) bool { return o.changed != nil && o.changed(n) }
	overlay(o.changed, "game", &base.Game, cc.Base.Game)
	overlay(o.changed, "width", &base.Width, cc.Base.Width)
	overlay(o.changed, "fix", &base.Fix, cc.Base.Fix)
	overlay(o.changed, "free", &base.Free, cc.Base.Free)
	overlay(o.changed, "workers", &base.Workers, cc.Base.Workers)
	overlay(o.changed, "engine", &base.Engine, cc.Base.Engine)
	overlay(o.changed, "nodes", &base.Nodes, cc.Base.Nodes)
	overlay(o.changed, "engine-depth", &base.EngineDepth, cc.Base.EngineDepth)
	overlay(o.changed, "engine-option", &base.EngineOptions, cc.Base.EngineOptions)
	if o.layoutFile != "" {
		lf, err := genomes.LoadLayoutFile(o.layoutFile)
		if err != nil {
			return cc, fmt.Errorf("--layout: %w", err)
		}
		if ch("game") && cc.Base.Game != lf.Game {
			return cc, fmt.Errorf("--game %s: the layout %s says game %s", cc.Base.Game, o.layoutFile, lf.Game)
		}
		base.Layout, base.Game, base.Rule, base.Board = &lf, lf.Game, lf.Rule, lf.Board
	}
	if ch("depth") {
		d, err := strconv.Atoi(o.depth)
		if err != nil || d < 1 || d > engine.MaxDepth {
			return cc, fmt.Errorf("--depth %q: want a depth 1–%d", o.depth, engine.MaxDepth)
		}
		base.Depth, base.Depths = d, nil
	}
	if base.Workers > maxWorkers() {
		return cc, fmt.Errorf("--workers %d: at most %d here (%d× the %d CPUs)", base.Workers, maxWorkers(), workersPerCPU, runtime.NumCPU())
	}
	cc.Base = base
	cc.Methods = nil
	for _, m := range strings.Split(o.methods, ",") {
		cc.Methods = append(cc.Methods, strings.TrimSpace(m))
	}
	cc.Seeds = nil
	for _, s := range strings.Split(o.seeds, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return cc, fmt.Errorf("--seeds %q: %q is not a whole number", o.seeds, s)
		}
		cc.Seeds = append(cc.Seeds, n)
	}
	if cc.BudgetGames <= 0 {
		return cc, fmt.Errorf("--budget-games is required: the distinct tuning games each run may play (e.g. 44000 for gomoku at depth 3, about 2 minutes here)")
	}
	if err := cc.Validate(); err != nil {
		return cc, fmt.Errorf("compare: %w", err)
	}
	return cc, nil
}

func runCompare(ctx context.Context, o compareOpts, out, errOut io.Writer) error {
	if o.show != 0 {
		return showComparison(ctx, o, out)
	}
	cc, err := compareConfig(o)
	if err != nil {
		return err
	}
	if err := probeSubject(ctx, errOut, cc.Base); err != nil { // before any database is written
		return err
	}
	d, err := db.Open(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Release()
	rec, _ := json.Marshal(compareRecord{Methods: cc.Methods, Seeds: cc.Seeds, BudgetGames: cc.BudgetGames, VerifyGames: cc.VerifyGames,
		VerifyDepth: cc.VerifyDepth, VerifyDepthGames: cc.VerifyDepthGames, Base: cc.Base})
	id, err := d.CreateComparison(ctx, cc.Base.Game, cc.BudgetGames, string(rec))
	if err != nil {
		return err
	}
	if cc.NamePrefix == "" {
		cc.NamePrefix = fmt.Sprintf("compare-%d", id)
	}
	fmt.Fprintf(errOut, "comparison %d: %s, methods %s, seeds %v, %d distinct tuning games per run, each result measured on %d held-out games; database %s\n",
		id, cc.Base.Game, strings.Join(cc.Methods, ", "), cc.Seeds, cc.BudgetGames, cc.VerifyGames, o.dbPath)
	prog := newProgress(errOut)
	cells, err := tuner.Compare(ctx, cc, runstore.New(d, cc.Base.AdmitZ), prog.update, version, os.Getpid(),
		func(c tuner.CompareCell) error {
			return d.AddComparisonRun(ctx, id, db.ComparisonRun{Method: c.Method, Seed: c.Seed, RunID: c.RunID})
		},
		func(c tuner.CompareCell) error {
			prog.finish()
			fmt.Fprintf(errOut, "%s seed %d (run %d, %d games): %s\n", c.Method, c.Seed, c.RunID, c.Games, cellText(c.V, baselineName(cc.Base)))
			return nil
		})
	prog.finish()
	status, text := "finished", ""
	switch {
	case err != nil && ctx.Err() != nil:
		status, text = "stopped", ctx.Err().Error()
	case err != nil:
		status, text = "failed", err.Error()
	}
	if serr := d.SetComparisonStatus(context.WithoutCancel(ctx), id, status, text); serr != nil && err == nil {
		err = serr
	}
	printComparison(out, id, cc.Base.Game, baselineName(cc.Base), cc.BudgetGames, cc.VerifyGames, cc.VerifyDepth, cc.Methods, cc.Seeds, cells, o.asJSON)
	if err != nil {
		return fmt.Errorf("comparison %d %s: %w", id, status, err)
	}
	return nil
}

// showComparison prints a stored comparison from its runs' stored verifications.
func showComparison(ctx context.Context, o compareOpts, out io.Writer) error {
	d, err := db.OpenReadOnly(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	c, links, err := d.ComparisonByID(ctx, o.show)
	if err != nil {
		return err
	}
	var rec compareRecord
	if err := json.Unmarshal([]byte(c.Config), &rec); err != nil {
		return fmt.Errorf("comparison %d: config: %w", c.ID, err)
	}
	var cells []tuner.CompareCell
	for _, l := range links {
		r, err := d.Run(ctx, l.RunID)
		if err != nil {
			return err
		}
		cell := tuner.CompareCell{Method: l.Method, Seed: l.Seed, RunID: l.RunID, Champion: string(r.BestIndividual)}
		if r.Verification != "" {
			var v tuner.Verification
			if err := json.Unmarshal([]byte(r.Verification), &v); err != nil {
				return fmt.Errorf("run %d: verification: %w", l.RunID, err)
			}
			cell.V, cell.Deep = &v, v.Deep
		}
		cells = append(cells, cell)
	}
	if c.Status != "finished" && !o.asJSON {
		why := ""
		if c.Error != "" {
			why = " (" + safeText(c.Error) + ")"
		}
		fmt.Fprintf(out, "comparison %d is %s%s: the table shows the runs measured so far\n", c.ID, safe(c.Status), why)
	}
	printComparison(out, c.ID, c.Game, baselineName(rec.Base), c.BudgetGames, rec.VerifyGames, rec.VerifyDepth, rec.Methods, rec.Seeds, cells, o.asJSON)
	return nil
}

// baselineName is what a comparison's results are measured against: the paper's weights,
// or an outside engine's layout defaults.
func baselineName(base tuner.Config) string {
	if base.Engine != "" {
		return "the layout's defaults"
	}
	return "the paper's weights"
}

func cellText(v *tuner.Verification, baseline string) string {
	if v != nil && v.Baseline {
		return baseline + ": nothing beat them (+0.0 by identity, no games played)"
	}
	if v == nil || v.Games == 0 {
		return "not measured"
	}
	return fmt.Sprintf("%s (%d games, %d distinct pairs)", stats.FormatEloCI(v.Elo, v.EloCI95), v.Games, v.Pairs)
}

func eloOrDash(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%+.1f", x)
}

// printComparison prints a comparison as a Markdown table (or JSON).
func printComparison(out io.Writer, id int64, game, baseline string, budget, verifyGames, verifyDepth int, methods []string, seeds []int64, cells []tuner.CompareCell, asJSON bool) {
	rows := tuner.CompareTable(cells, methods, seeds)
	if asJSON {
		type row struct {
			Method   string     `json:"method"`
			Elo      []*float64 `json:"elo"`
			CI95     []*float64 `json:"elo_ci95"`
			Deep     []*float64 `json:"deep_elo"`
			Mean     *float64   `json:"mean"`
			Worst    *float64   `json:"worst"`
			DeepMean *float64   `json:"deep_mean"`
		}
		num := func(x float64) *float64 {
			if math.IsNaN(x) {
				return nil // not measured: null, never 0
			}
			return &x
		}
		nums := func(xs []float64) []*float64 {
			out := make([]*float64, len(xs))
			for i, x := range xs {
				out[i] = num(x)
			}
			return out
		}
		doc := struct {
			ID          int64               `json:"id"`
			Game        string              `json:"game"`
			BudgetGames int                 `json:"budget_games"`
			Seeds       []int64             `json:"seeds"`
			Rows        []row               `json:"methods"`
			Runs        []tuner.CompareCell `json:"runs"`
		}{ID: id, Game: game, BudgetGames: budget, Seeds: seeds, Runs: cells}
		for _, r := range rows {
			doc.Rows = append(doc.Rows, row{Method: r.Method, Elo: nums(r.Elo), CI95: nums(r.CI), Deep: nums(r.Deep), Mean: num(r.Mean), Worst: num(r.Worst), DeepMean: num(r.DeepMean)})
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.Encode(doc)
		return
	}
	fmt.Fprintf(out, "comparison %d: %s, %d distinct tuning games per run; Elo ± 95%% against %s on %d held-out games per result\n", id, game, budget, baseline, verifyGames)
	head := "| method |"
	sep := "|---|"
	for _, s := range seeds {
		head += fmt.Sprintf(" seed %d |", s)
		sep += "---|"
	}
	head += " mean | worst |"
	sep += "---|---|"
	if verifyDepth > 0 {
		head += fmt.Sprintf(" depth %d (mean) |", verifyDepth)
		sep += "---|"
	}
	fmt.Fprintln(out, head)
	fmt.Fprintln(out, sep)
	for _, r := range rows {
		line := "| " + r.Method + " |"
		for i := range seeds {
			switch {
			case r.Baseline[i]:
				line += " +0.0 (" + baseline + ") |"
			case math.IsNaN(r.Elo[i]):
				line += " – |"
			default:
				line += " " + stats.FormatEloCI(r.Elo[i], r.CI[i]) + " |"
			}
		}
		line += " " + eloOrDash(r.Mean) + " | " + eloOrDash(r.Worst) + " |"
		if verifyDepth > 0 {
			var ds []string
			for _, d := range r.Deep {
				ds = append(ds, eloOrDash(d))
			}
			line += " " + strings.Join(ds, ", ") + " (" + eloOrDash(r.DeepMean) + ") |"
		}
		fmt.Fprintln(out, line)
	}
	for _, c := range cells {
		fmt.Fprintf(out, "  %s seed %d: run %d, champion %s\n", c.Method, c.Seed, c.RunID, safe(c.Champion))
	}
}
