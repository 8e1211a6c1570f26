package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"evotune/db"
	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/compare"
	"evotune/tuner/config"
	"evotune/tuner/outside"
	"evotune/tuner/progress"
	"evotune/tuner/runstore"
	"evotune/tuner/runview"
)

type compareOpts struct {
	cc         compare.Config
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
	def := config.DefaultConfig("")
	c := &cobra.Command{
		Use:   "compare --game G --budget-games N [--methods " + strings.ReplaceAll(config.MethodNames(), " ", "") + " --seeds 1,2,3 --verify-games N --verify-depth D --db FILE]",
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
			o.changed = flagChanged(cmd.Flags())
			return runCompare(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.StringVar(&o.cc.Base.Game, "game", "", gameFlagHelp())
	f.StringVar(&o.methods, "methods", "ga,spsa", "methods to compare, in the table's order: any of "+config.MethodNames())
	f.StringVar(&o.seeds, "seeds", "1,2,3", "seeds: each method runs once per seed")
	f.IntVar(&o.cc.BudgetGames, "budget-games", 0, "distinct tuning games of each run (required)")
	f.IntVar(&o.cc.VerifyGames, "verify-games", 2000, "held-out games of each result against the paper's weights at the tuning depth")
	f.IntVar(&o.cc.VerifyDepth, "verify-depth", 0, "also measure each result at this search depth (0 = none)")
	f.IntVar(&o.cc.VerifyDepthGames, "verify-depth-games", 0, "games of the measurement at --verify-depth (0 = --verify-games)")
	f.StringVar(&o.depth, "depth", "", "search depth of every game (default: the game's); an outside engine's go depth (UCI), for engines that ignore go nodes")
	f.IntVar(&o.cc.Base.Width, "width", 0, "search width of every game (0 = the game's default)")
	f.StringSliceVar(&o.cc.Base.Fix, "fix", nil, "genes to hold at the paper's value")
	f.StringSliceVar(&o.cc.Base.Free, "free", nil, "fixed genes to tune anyway")
	f.IntVar(&o.cc.Base.Workers, "workers", def.Workers, "games played at once (never changes results)")
	f.StringVar(&o.layoutFile, "layout", "", "compare the methods on an outside engine: its layout file or OpenBench parameter list (as tune --layout); needs --engine")
	f.StringVar(&o.cc.Base.Engine, "engine", "", "the outside engine, 'cmd:PROG ARGS' (as tune --engine)")
	f.Int64Var(&o.cc.Base.Nodes, "nodes", 0, "UCI outside engine: nodes per search (go nodes N)")
	f.StringArrayVar(&o.cc.Base.EngineOptions, "engine-option", nil, "a fixed option of the outside engine, NAME=VALUE (repeatable)")
	f.StringVar(&o.configFile, "config", "", "YAML config file: the base of every run (method, seed, budget and verification are set by compare)")
	f.StringVar(&o.cc.NamePrefix, "name", "", "run names PREFIX-METHOD-seedS (default: compare-ID)")
	f.StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	f.Int64Var(&o.show, "show", 0, "print stored comparison ID instead of running one")
	f.BoolVar(&o.asJSON, "json", false, "print JSON")
	renameFlag(f, "engine-depth", "depth")
	return c
}

// compareRecord is the comparisons.config JSON.
// compareConfig resolves the flags into a comparison (the error names the flag).
func compareConfig(o compareOpts) (compare.Config, error) {
	cc := o.cc
	if cc.Base.Game == "" && o.configFile == "" && o.layoutFile == "" {
		return cc, fmt.Errorf("--game is required (or --layout)")
	}
	base := config.DefaultConfig(cc.Base.Game)
	if o.configFile != "" {
		var err error
		if base, err = config.LoadConfigFile(o.configFile, base); err != nil {
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
		if err != nil || d < 1 || d > config.MaxEngineDepth {
			return cc, fmt.Errorf("--depth %q: want a depth 1–%d (an outside engine's go depth: to %d)", o.depth, engine.MaxDepth, config.MaxEngineDepth)
		}
		base.Depth, base.Depths = d, nil
	}
	if err := base.TakeEngineDepth(); err != nil {
		return cc, fmt.Errorf("--depth: %w", err)
	}
	if base.Workers > config.MaxWorkers() {
		return cc, fmt.Errorf("--workers %d: at most %d here (%s)", base.Workers, config.MaxWorkers(), config.MaxWorkersText())
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
	if err := outside.ProbeSubject(ctx, cc.Base, errOut); err != nil { // before any database is written
		return err
	}
	d, err := db.Open(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Release()
	rec, _ := json.Marshal(cc.Record())
	id, err := d.CreateComparison(ctx, cc.Base.Game, cc.BudgetGames, string(rec))
	if err != nil {
		return err
	}
	if cc.NamePrefix == "" {
		cc.NamePrefix = fmt.Sprintf("compare-%d", id)
	}
	fmt.Fprintf(errOut, "comparison %d: %s, methods %s, seeds %v, %d distinct tuning games per run, each result measured on %d held-out games; database %s\n",
		id, cc.Base.Game, strings.Join(cc.Methods, ", "), cc.Seeds, cc.BudgetGames, cc.VerifyGames, o.dbPath)
	prog := progress.New(errOut)
	cells, err := compare.Run(ctx, cc, runstore.New(d, cc.Base.AdmitZ), prog.Update, version, os.Getpid(),
		func(c compare.Cell) error {
			return d.AddComparisonRun(ctx, id, db.ComparisonRun{Method: c.Method, Seed: c.Seed, RunID: c.RunID})
		},
		func(c compare.Cell) error {
			prog.Finish()
			fmt.Fprintf(errOut, "%s seed %d (run %d, %d games): %s\n", c.Method, c.Seed, c.RunID, c.Games, compare.CellText(c.V, cc.Base.BaselineName()))
			return nil
		})
	prog.Finish()
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
	if perr := printComparison(out, compare.Report{ID: id, Game: cc.Base.Game, Record: cc.Record(), Cells: cells}, o.asJSON); perr != nil && err == nil {
		err = perr
	}
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
	c, rep, err := runstore.LoadComparison(ctx, d, o.show)
	if err != nil {
		return err
	}
	if c.Status != "finished" && !o.asJSON {
		why := ""
		if c.Error != "" {
			why = " (" + runview.SafeText(c.Error) + ")"
		}
		fmt.Fprintf(out, "comparison %d is %s%s: the table shows the runs measured so far\n", c.ID, runview.Safe(c.Status), why)
	}
	return printComparison(out, rep, o.asJSON)
}

// printComparison prints a comparison as a Markdown table (or JSON).
func printComparison(out io.Writer, r compare.Report, asJSON bool) error {
	if asJSON {
		data, err := r.JSON()
		if err != nil {
			return err
		}
		_, err = out.Write(data)
		return err
	}
	_, err := io.WriteString(out, r.Markdown())
	return err
}
