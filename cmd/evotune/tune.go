package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"evotune/db"
	"evotune/engine/protocol"
	"evotune/tuner"
	"evotune/tuner/config"
	"evotune/tuner/outside"
	"evotune/tuner/progress"
	"evotune/tuner/report"
	"evotune/tuner/runstore"
)

type tuneOpts struct {
	cfg        config.Config
	layoutFile string // --layout: an outside engine's layout file
	depth      string // --depth: one depth or a comma list (mixed depths)
	configFile string
	dbPath     string
	resume     int64
	cluster    clusterOpts
	changed    func(string) bool
}

func newTuneCmd() *cobra.Command {
	var o tuneOpts
	c := &cobra.Command{
		Use:   "tune --game G [--method " + strings.ReplaceAll(config.MethodNames(), ", ", "|") + " --budget-games N --time-budget D --generations N --workers N --depth D --width W --seed S --name NAME --db FILE --config run.yaml]",
		Short: "Tune a game's weights by the genetic algorithm (the default), SPSA or CMA-ES, with self-play fitness, every generation stored in SQLite",
		Long: "tune tunes the evaluation weights (or an outside engine's parameters, --layout/--engine) from\n" +
			"self-play and commits each step or generation to the database in one transaction.\n\n" +
			"GA (--method ga, the default): generation 0 is the paper's weights plus perturbations of\n" +
			"them. Every generation the individuals play each other in --race-rounds+1 random pairings\n" +
			"(--selection peers; with --opponent or --champions, or --selection race, they race the\n" +
			"references instead: the better half plays more games, race-rounds times), on the same\n" +
			"openings, each twice with colours swapped. The best enters the hall of fame only if a fresh\n" +
			"match against the paper's weights proves it better than the champion; the exported and\n" +
			"verified champion is the hall of fame's centre (its members' weighted mean, the latest\n" +
			"weighing most; --champion best: the member with the best lower confidence bound on its Elo).\n" +
			"Every method plays the game's default budget (" + config.DefaultBudgetsText() + ") unless\n" +
			"--budget-games, --time-budget or --generations says otherwise.\n\n" +
			"SPSA (--method spsa; fishtest's formulation): each step plays --spsa-pairs colour-swapped\n" +
			"pairs of θ+ = θ + c_k·Δ against θ− = θ − c_k·Δ and moves θ along Δ by the result; the gains\n" +
			"are scheduled over the run's game pairs: the budget, or what a calibration at the start finds\n" +
			"fits in --time-budget. The result is the last θ.",
		Args: cobra.NoArgs,
		Example: "  evotune tune --game connect6\n" +
			"  evotune tune --game gomoku --method spsa --budget-games 20000\n" +
			"  evotune tune --game gomoku --time-budget 8h --verify-every 10 --verify-depth 5 --name overnight\n" +
			"  evotune tune --game gomoku --fix k1 --depth 3,4 --time-budget 30m\n" +
			"  evotune tune --config run.yaml",
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.changed = flagChanged(cmd.Flags())
			return runTune(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.StringVar(&o.layoutFile, "layout", "", "tune an outside engine: its layout file (evotune.layout/v1: game, genes with bounds; template: 'evotune weights layout --game G --format yaml'); needs --engine")
	o.cfg = config.DefaultConfig("")
	for _, st := range config.Settings {
		addSettingFlag(f, &o, st)
	}
	for _, st := range config.Settings {
		renameFlag(f, st.Renamed, st.Flag)
	}
	f.StringVar(&o.configFile, "config", "", "YAML config file (flags given on the command line override it)")
	f.StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	addClusterFlags(c, &o.cluster)
	f.Int64Var(&o.resume, "resume", 0, "continue run RUN instead of starting one (as 'evotune resume RUN'; only --db, --workers and --opponent apply: the run's external engines must be named again with --opponent cmd:PATH to be allowed)")
	// --help shows the flags by concern.
	for _, n := range []string{"config", "db", "resume"} {
		setGroup(f, n, "run")
	}
	setGroup(f, "layout", "outside engine")
	f.VisitAll(func(fl *pflag.Flag) {
		if _, ok := fl.Annotations[groupAnnotation]; !ok && fl.Name != "help" {
			setGroup(f, fl.Name, clusterGroup) // what is left: addClusterFlags's
		}
	})
	groupFlags(c)
	return c
}

// addSettingFlag registers setting st's tune flag (none for keys only a config file sets)
// on o.cfg's field, with the field's default, the setting's unit and its help.
func addSettingFlag(f *pflag.FlagSet, o *tuneOpts, st config.Setting) {
	if st.Flag == "" {
		return
	}
	defer setGroup(f, st.Flag, st.Group)
	help := st.HelpText()
	if st.Unit == "depths" {
		f.StringVar(&o.depth, st.Flag, "", help)
		return
	}
	v, err := o.cfg.Field(st.Key)
	if err != nil {
		return // TestSettingsHaveFlags finds it
	}
	switch p := v.Addr().Interface().(type) {
	case *float64:
		if st.Unit == "seconds" {
			f.Var(secondsFlag{p}, st.Flag, help)
		} else {
			f.Float64Var(p, st.Flag, *p, help)
		}
	case *int:
		f.IntVar(p, st.Flag, *p, help)
	case *int64:
		f.Int64Var(p, st.Flag, *p, help)
	case *string:
		f.StringVar(p, st.Flag, *p, help)
	case *bool:
		f.BoolVar(p, st.Flag, *p, help)
	case *[]string:
		if st.Repeatable {
			f.StringArrayVar(p, st.Flag, *p, help)
		} else {
			f.StringSliceVar(p, st.Flag, *p, help)
		}
	}
}

// overlay sets *dst to src when flag name was given (changed), as a flag the user set
// overrides the config file's value; nil changed sets nothing.
func overlay[T any](changed func(string) bool, name string, dst *T, src T) {
	if changed != nil && changed(name) {
		*dst = src
	}
}

// commandLine is o as config.CommandLine: the flags' values, which were given, the files.
func (o tuneOpts) commandLine() config.CommandLine {
	return config.CommandLine{Flags: o.cfg, Changed: o.changed, ConfigFile: o.configFile, LayoutFile: o.layoutFile, Depth: o.depth}
}

func runTune(ctx context.Context, o tuneOpts, out, errOut io.Writer) error {
	if o.resume != 0 {
		ro := resumeOpts{dbPath: o.dbPath, cluster: o.cluster}
		for _, op := range append([]string{o.cfg.Engine}, o.cfg.Opponents...) { // naming an engine again allows that command line
			if _, ok, err := protocol.ParseCommand(op); ok && err == nil {
				ro.allow = append(ro.allow, op)
			}
		}
		if o.changed != nil && o.changed("workers") {
			ro.workers = o.cfg.Workers
		}
		if o.changed != nil && o.changed("verify-openings") {
			ro.verifyOpenings = o.cfg.VerifyOpenings
		}
		if o.resume < 0 {
			return fmt.Errorf("--resume %d: want a positive run ID (see 'evotune runs')", o.resume)
		}
		return continueRun(ctx, ro, o.resume, out, errOut)
	}
	cfg, err := o.commandLine().Config()
	if err != nil {
		return err
	}
	if err := outside.ProbeEngines(ctx, cfg, errOut); err != nil {
		return err
	}
	// The broker first: a refused command (no broker there) writes no database.
	runner, err := o.cluster.client(ctx, errOut)
	if err != nil {
		return err
	}
	if runner != nil {
		defer runner.Close()
	}
	d, err := db.Open(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Release() // no end-of-process checkpoint while readers may be reading
	if cfg.Name, err = runstore.RunName(ctx, d, cfg); err != nil {
		return err
	}
	prog := progress.New(errOut)
	prog.Limits = cfg.EngineLimitsText()
	t, err := tuner.New(cfg, runstore.New(d, cfg.AdmitZ), prog.Update, version)
	if err != nil {
		return err
	}
	if runner != nil {
		t.SetRunner(runner)
	}
	lim := t.Limits()
	gens := fmt.Sprintf("%d generations", cfg.Generations)
	if cfg.Generations == 0 {
		gens = "generations until the budget"
	}
	if cfg.TimeBudget != "" {
		gens += ", time budget " + cfg.TimeBudget
	}
	depth := fmt.Sprint(lim.Depth)
	if len(cfg.Depths) > 0 {
		depth = fmt.Sprint(cfg.Depths)
	}
	limits := fmt.Sprintf("depth %s width %d", depth, lim.Width)
	if cfg.Engine != "" {
		fmt.Fprintf(errOut, "tuning the outside engine %s over %d genes (%d free) of its layout\n", cfg.Engine, len(t.RunLayout().Genes), t.RunLayout().FreeCount())
		limits = cfg.EngineLimitsText()
	}
	if cfg.BudgetGames > 0 {
		gens += fmt.Sprintf(", budget %d games", cfg.BudgetGames)
	}
	search, notes := t.SearchText(gens)
	fmt.Fprintf(errOut, "tuning %s%s, %s, %d workers, seed %d, database %s\n", cfg.Game, search, limits, cfg.Workers, cfg.Seed, o.dbPath)
	for _, n := range notes {
		fmt.Fprintln(errOut, n)
	}
	if t.NeedsCalibration() {
		c, err := t.Calibrate(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(errOut, "calibration: %d games like a first step's in %s (%.0f games/s): SPSA's gains are scheduled over %d games, what fits in the time budget %s (the time budget still ends the run)\n",
			c.Games, c.Time.Round(time.Millisecond), float64(c.Games)/c.Time.Seconds(), c.BudgetGames, cfg.TimeBudget)
	}
	sum, err := t.Run(ctx, os.Getpid())
	prog.Finish()
	printSummary(out, sum, o.dbPath)
	if err != nil && ctx.Err() != nil && sum.RunID > 0 {
		return fmt.Errorf("run %d stopped; its %d saved generations are kept: continue with 'evotune resume %d --db %s'", sum.RunID, sum.Generations, sum.RunID, o.dbPath)
	}
	return err
}

// printSummary reports a finished (or stopped) run and what to do next.
func printSummary(out io.Writer, sum report.Summary, dbPath string) {
	if sum.RunID == 0 {
		return
	}
	fmt.Fprintln(out, sum.RunText())
	if h := sum.SlotHint(); h != "" {
		fmt.Fprintln(out, h)
	}
	if p := sum.ProvenText(); p != "" {
		fmt.Fprintln(out, p)
	}
	if w := sum.ForfeitText(); w != "" {
		fmt.Fprintln(out, w)
	}
	if sum.Best == "" {
		return
	}
	fmt.Fprintln(out, sum.ChampionText())
	if m := sum.MovementText(); m != "" {
		fmt.Fprintln(out, m)
	}
	if v := sum.Verification; v != nil && v.Games > 0 {
		fmt.Fprintf(out, "verification of %s against %s on %s, %.1fs:\n", v.Champion, sum.Baseline, v.Openings, sum.VerifyTime.Seconds())
		printVerification(out, *v)
	}
	if v := sum.Verification; v != nil && len(v.Ladder) > 0 {
		for _, r := range v.Ladder {
			printRung(out, r)
		}
		printLadder(out, *v)
	}
	if sum.Status != "finished" {
		fmt.Fprintf(out, "next: evotune resume %d --db %s\n", sum.RunID, dbPath)
		return
	}
	fmt.Fprintf(out, "next: evotune generations %d --db %s; evotune export %d --db %s --out run%d.json\n", sum.RunID, dbPath, sum.RunID, dbPath, sum.RunID)
}
