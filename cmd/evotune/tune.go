package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"evotune/db"
	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner"
	"evotune/tuner/runstore"
)

type tuneOpts struct {
	cfg        tuner.Config
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
		Use:   "tune --game G [--method spsa|ga|cmaes --budget-games N --time-budget D --generations N --workers N --depth D --width W --seed S --name NAME --db FILE --config run.yaml]",
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
			"Every method plays the game's default budget (" + tuner.DefaultBudgetsText() + ") unless\n" +
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
			o.changed = cmd.Flags().Changed
			return runTune(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.StringVar(&o.layoutFile, "layout", "", "tune an outside engine: its layout file (evotune.layout/v1: game, genes with bounds; template: 'evotune weights layout --game G --format yaml'); needs --engine")
	o.cfg = tuner.DefaultConfig("")
	for _, st := range tuner.Settings {
		addSettingFlag(f, &o, st)
	}
	f.StringVar(&o.configFile, "config", "", "YAML config file (flags given on the command line override it)")
	f.StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	addClusterFlags(c, &o.cluster)
	f.Int64Var(&o.resume, "resume", 0, "continue run RUN instead of starting one (as 'evotune resume RUN'; only --db, --workers and --opponent apply: the run's external engines must be named again with --opponent cmd:PATH to be allowed)")
	return c
}

// addSettingFlag registers setting st's tune flag (none for keys only a config file sets)
// on o.cfg's field, with the field's default, the setting's unit and its help.
func addSettingFlag(f *pflag.FlagSet, o *tuneOpts, st tuner.Setting) {
	if st.Flag == "" {
		return
	}
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

// mergedConfig is the defaults, then the config file, then the flags the user set.
func mergedConfig(o tuneOpts) (tuner.Config, error) {
	base := tuner.DefaultConfig(o.cfg.Game)
	if o.configFile != "" {
		var err error
		if base, err = tuner.LoadConfigFile(o.configFile, base); err != nil {
			return base, err
		}
	}
	for _, st := range tuner.Settings {
		if st.Flag == "" || o.changed == nil || !o.changed(st.Flag) {
			continue
		}
		if st.Unit == "depths" {
			ds, err := parseDepths(o.depth)
			if err != nil {
				return base, err
			}
			base.Depth, base.Depths = 0, nil
			if len(ds) == 1 {
				base.Depth = ds[0]
			} else {
				base.Depths = ds
			}
			continue
		}
		if err := base.SetFrom(st.Key, &o.cfg); err != nil {
			return base, fmt.Errorf("--%s: %w", st.Flag, err)
		}
	}
	if (base.TimeBudget != "" || base.BudgetGames > 0) && (o.changed == nil || !o.changed("generations")) && o.configFile == "" {
		base.Generations = 0 // until the budget
	}
	if o.layoutFile != "" {
		lf, err := genomes.LoadLayoutFile(o.layoutFile)
		if err != nil {
			return base, fmt.Errorf("--layout: %w", err)
		}
		for _, f := range []struct {
			flag      string
			set, want any
		}{{"game", base.Game, lf.Game}, {"rule", base.Rule, lf.Rule}, {"board", base.Board, lf.Board}} {
			if o.changed != nil && o.changed(f.flag) && fmt.Sprint(f.set) != fmt.Sprint(f.want) {
				return base, fmt.Errorf("--%s %v: the layout %s says %s %v (the layout decides the rules evotune referees with)", f.flag, f.set, o.layoutFile, f.flag, f.want)
			}
		}
		base.Layout, base.Game, base.Rule, base.Board = &lf, lf.Game, lf.Rule, lf.Board
	}
	if base.Game == "" {
		return base, fmt.Errorf("--game is required (or game: in the config file, or --layout)")
	}
	if o.changed != nil && o.changed("budget-games") && o.cfg.BudgetGames <= 0 {
		return base, fmt.Errorf("--budget-games %d: want at least 2 distinct games (leave it out for the method's default)", o.cfg.BudgetGames)
	}
	if o.changed != nil && o.changed("generations") && base.Generations == 0 && base.TimeBudget == "" && base.BudgetGames == 0 {
		return base, fmt.Errorf("--generations: 0, want at least 1 (0 only with --time-budget or --budget-games; leave it out for the method's default)")
	}
	for _, st := range tuner.Settings {
		if st.Flag == "" || o.changed == nil || !o.changed(st.Flag) || st.AppliesTo(base.Method) {
			continue
		}
		why := ""
		if !base.IsGA() && len(st.Methods) == 1 && st.Methods[0] == tuner.MethodGA {
			why = ": it has no population, racing or hall of fame; add --method ga"
		}
		return base, fmt.Errorf("--%s: applies to --method %s only (the run's method is %s%s)", st.Flag, strings.Join(st.Methods, " or --method "), base.MethodText(), why)
	}
	if err := base.CheckMethodKeys(); err != nil {
		return base, err
	}
	base.Resolve()
	if err := base.ReadVerifyOpenings(); err != nil { // the user named this file: read it once, store its openings
		return base, configError(err, o)
	}
	if err := base.ReadBook(); err != nil { // as the verification file: read once, stored with the run
		return base, configError(err, o)
	}
	if err := base.Validate(); err != nil {
		return base, configError(err, o)
	}
	if base.Workers > maxWorkers() {
		return base, fmt.Errorf("workers: %d, at most %d here (%d× the %d CPUs)", base.Workers, maxWorkers(), workersPerCPU, runtime.NumCPU())
	}
	return base, nil
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
	cfg, err := mergedConfig(o)
	if err != nil {
		return err
	}
	if err := probeOpponents(ctx, errOut, cfg); err != nil {
		return err
	}
	if err := probeSubject(ctx, errOut, cfg); err != nil {
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
	if cfg.Name, err = runName(ctx, d, cfg); err != nil {
		return err
	}
	prog := newProgress(errOut)
	prog.limits = cfg.EngineLimitsText()
	t, err := tuner.New(cfg, runstore.New(d, cfg.AdmitZ), prog.update, version)
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
	prog.finish()
	printSummary(out, sum, o.dbPath)
	if err != nil && ctx.Err() != nil && sum.RunID > 0 {
		return fmt.Errorf("run %d stopped; its %d saved generations are kept: continue with 'evotune resume %d --db %s'", sum.RunID, sum.Generations, sum.RunID, o.dbPath)
	}
	return err
}

// runName picks the run's name: the user's, refused if a run of the database has it, or
// else the first free one of GAME-seedS, GAME-seedS-2, … (names are unique in the schema).
func runName(ctx context.Context, d *db.DB, cfg tuner.Config) (string, error) {
	if cfg.Name != "" {
		id, err := d.RunNamed(ctx, cfg.Name)
		if err != nil {
			return "", err
		}
		if id != 0 {
			return "", fmt.Errorf("--name %q: run %d of %s already has this name; choose another, or continue that run with 'evotune resume %d'", cfg.Name, id, d.Path(), id)
		}
		return cfg.Name, nil
	}
	base := fmt.Sprintf("%s-seed%d", cfg.Game, cfg.Seed)
	for n := 1; ; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		id, err := d.RunNamed(ctx, name)
		if err != nil || id == 0 {
			return name, err
		}
	}
}

// probeOpponents checks every external opponent of a run before it starts: it must start,
// answer its handshake and play a legal first move (protocol.Probe). An engine that cannot
// play would otherwise forfeit every game and hand every individual a perfect score.
func probeOpponents(ctx context.Context, errOut io.Writer, cfg tuner.Config) error {
	plan, err := cfg.Plan()
	if err != nil {
		return err
	}
	for i, op := range cfg.Opponents {
		argv, _, err := protocol.ParseCommand(op)
		if err != nil {
			return fmt.Errorf("--opponent: %w", err)
		}
		spec := cfg.OpponentSpec(argv)
		if spec.MoveTime <= 0 {
			spec.MoveTime = 5 * time.Second
		}
		fmt.Fprintf(errOut, "checking %s: start-up and one move (at most %v)\n", spec.Name(), spec.MoveTime+protocol.StartupAllowance)
		if err := protocol.Probe(ctx, *spec, plan.Game, cfg.Board); err != nil {
			return fmt.Errorf("--opponent %d: %w", i+1, err)
		}
	}
	return nil
}

// probeSubject checks the outside engine under tuning before the run is created: with the
// layout's defaults it must start, answer its handshake and play a legal first move.
func probeSubject(ctx context.Context, errOut io.Writer, cfg tuner.Config) error {
	if cfg.Engine == "" {
		return nil
	}
	plan, err := cfg.Plan()
	if err != nil {
		return err
	}
	g, l := plan.Game, plan.Layout
	out, err := tuner.NewOutside(cfg, l)
	if err != nil {
		return err
	}
	spec, err := out.Spec(l.Defaults())
	if err != nil {
		return err
	}
	fmt.Fprintf(errOut, "checking the engine under tuning %s with the layout's defaults: start-up and one move (at most %v)\n", spec.Name(), spec.MoveTime+spec.StartupTime)
	declared, err := protocol.DeclaredOptions(ctx, *spec, g)
	if err != nil {
		return fmt.Errorf("--engine: %w", err)
	}
	if err := out.CheckDeclared(declared); err != nil {
		return fmt.Errorf("--engine %s: %w", spec.Name(), err)
	}
	if err := protocol.Probe(ctx, *spec, g, cfg.Board); err != nil {
		return fmt.Errorf("--engine: %w", err)
	}
	return nil
}

// parseDepths reads --depth: one depth or a comma-separated list, each 1–engine.MaxDepth.
func parseDepths(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 1 || d > engine.MaxDepth {
			return nil, fmt.Errorf("--depth %q: want a depth 1–%d or a list like 3,4,5", s, engine.MaxDepth)
		}
		out = append(out, d)
	}
	return out, nil
}

// printSummary reports a finished (or stopped) run and what to do next.
func printSummary(out io.Writer, sum tuner.Summary, dbPath string) {
	if sum.RunID == 0 {
		return
	}
	fmt.Fprintln(out, sum.RunText())
	if sum.Best == "" {
		return
	}
	fmt.Fprintln(out, sum.ChampionText())
	if v := sum.Verification; v != nil && v.Games > 0 {
		fmt.Fprintf(out, "verification of %s against %s on %s, %.1fs:\n", v.Champion, sum.Baseline, v.Openings, sum.VerifyTime.Seconds())
		printVerification(out, *v)
	}
	if v := sum.Deep; v != nil {
		fmt.Fprintf(out, "verification at depth %d:\n", v.Limits.Depth)
		printVerification(out, *v)
	}
	if sum.Status != "finished" {
		fmt.Fprintf(out, "next: evotune resume %d --db %s\n", sum.RunID, dbPath)
		return
	}
	fmt.Fprintf(out, "next: evotune generations %d --db %s; evotune export %d --db %s --out best.json\n", sum.RunID, dbPath, sum.RunID, dbPath)
}

// progress renders tuner events: a progress bar when stderr is a terminal, plain log
// lines (at most one every 5 s, plus one per generation) when it is not.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	bar   *progressbar.ProgressBar
	batch string // the batch the bar counts (tty)
	// rateBatch is the batch whose games/s is measured since batchStart.
	rateBatch  string
	batchStart time.Time
	gen        int
	genStart   time.Time
	lastLog    time.Time
	// matchLabel names a held-out match in the output: "verification" in tune, "match" in
	// the match command.
	matchLabel string
	// limits, if set, are the limits an outside engine's games are played at
	// (Config.EngineLimitsText), said instead of the built-in engine's depth.
	limits string
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, gen: -1, lastLog: time.Now(), matchLabel: "verification"}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

func (p *progress) update(e tuner.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	eta, etaKnown := e.ETA()
	etaText := eta.Round(time.Second).String()
	if !etaKnown {
		etaText = "?"
	}
	gens := fmt.Sprint(e.Generations)
	if e.Generations == 0 {
		gens = "∞"
	}
	spec, ok := tuner.MethodOf(e.Method)
	if !ok {
		spec, _ = tuner.MethodOf(tuner.MethodGA) // a run of a later version's method: its lines as the GA's
	}
	if e.Verifying && e.Champion != "" && e.GamesDone == 0 && !p.tty {
		at := fmt.Sprintf("depth %d", e.VerifyDepth)
		if p.limits != "" {
			at = p.limits
		}
		fmt.Fprintf(p.w, "%s of %s starts: %d games at %s\n", p.matchLabel, e.Champion, e.GamesTotal, at)
		p.gen, p.genStart = -2, time.Now()
	}
	if e.Verifying && p.gen != -2 && !p.tty {
		p.gen, p.genStart = -2, time.Now()
	}
	if !e.Verifying && e.Generation != p.gen && !p.tty {
		p.gen, p.genStart = e.Generation, time.Now()
	}
	// The batch being played: a rate of its games since it started.
	batch := fmt.Sprint(e.Generation, "/", e.Phase, "/", e.GamesTotal)
	if e.Verifying {
		batch = "verifying"
	}
	if !e.GenDone && batch != p.rateBatch {
		p.rateBatch, p.batchStart = batch, time.Now()
	}
	rateText := "" // ", 12.3 games/s" once measured
	if el := time.Since(p.batchStart).Seconds(); el > 0.5 && !p.batchStart.IsZero() {
		rateText = fmt.Sprintf(", %.1f games/s", float64(e.GamesDone)/el)
	}
	phase := ""
	if e.Phase != "" {
		phase = " " + e.Phase
	}
	desc := fmt.Sprintf("gen %d/%s%s, best %.3f mean %.3f champion %s (%s) ETA %s", e.Generation, gens, phase, e.BestScore, e.MeanScore, e.Champion, e.ChampionText(), etaText)
	if e.Best == "" { // no generation saved yet: nothing to show but the batch
		desc = fmt.Sprintf("gen %d/%s%s, ETA %s", e.Generation, gens, phase, etaText)
	}
	if e.Verifying {
		desc = p.matchLabel
	}
	if p.tty {
		key := batch // a bar per batch: its games, its phase
		if !e.Verifying && e.BudgetGames > 0 && spec.Short {
			// Steps of a few dozen games: one bar for the whole run's budget, not one a step.
			if p.bar == nil || p.gen != -3 {
				if p.bar != nil {
					p.bar.Finish()
					fmt.Fprintln(p.w)
				}
				p.gen = -3
				p.bar = gamesBar(p.w, e.BudgetGames)
			}
			done := e.RunGames
			if !e.GenDone {
				done += e.GamesDone
			}
			p.bar.Describe(fmt.Sprintf("%s %s %d, champion %s", spec.Title, spec.Generation, e.Generation, e.Champion))
			p.bar.Set(min(done, e.BudgetGames))
			return
		}
		if e.GenDone {
			return // the generation's last batch is full already
		}
		if p.bar == nil || key != p.batch {
			if p.bar != nil {
				p.bar.Finish()
				fmt.Fprintln(p.w)
			}
			p.gen, p.batch = e.Generation, key
			p.bar = gamesBar(p.w, max(e.GamesTotal, 1))
		}
		p.bar.Describe(desc)
		p.bar.Set(e.GamesDone)
		return
	}
	if e.GenDone {
		if spec.Short && time.Since(p.lastLog) < 5*time.Second && e.Generation != e.Generations {
			return // a line every few seconds, not one a step
		}
		head := fmt.Sprintf("%s %d/%s", spec.Generation, e.Generation, gens)
		if spec.Short && e.Generations == 0 { // until a budget: the games say how far
			head = fmt.Sprintf("%s %d", spec.Generation, e.Generation)
		}
		fmt.Fprintf(p.w, "%s saved: %s, elapsed %s, ETA %s\n", head, spec.SavedText(e), e.Elapsed.Round(time.Second), etaText)
		p.lastLog = time.Now()
		return
	}
	if e.Verifying && time.Since(p.lastLog) >= 5*time.Second && e.GamesDone > 0 {
		fmt.Fprintf(p.w, "%s: games %d/%d%s\n", p.matchLabel, e.GamesDone, e.GamesTotal, rateText)
		p.lastLog = time.Now()
		return
	}
	if time.Since(p.lastLog) >= 5*time.Second && e.GamesDone > 0 && !spec.Short { // short generations: their saved lines above
		fmt.Fprintf(p.w, "generation %d/%s%s: games %d/%d of this batch%s, ETA %s\n", e.Generation, gens, phaseText(e.Phase), e.GamesDone, e.GamesTotal, rateText, etaText)
		p.lastLog = time.Now()
	}
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}

// phaseText is ", racing round 1" for Event.Phase "round 1", ", admission" for
// "admission", "" for none.
func phaseText(phase string) string {
	switch {
	case phase == "":
		return ""
	case strings.HasPrefix(phase, "round "):
		return ", racing " + phase
	}
	return ", " + phase
}

// gamesBar is a progress bar over total games.
func gamesBar(w io.Writer, total int) *progressbar.ProgressBar {
	return progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionShowCount(),
		progressbar.OptionShowIts(), progressbar.OptionSetItsString("games"), progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetWidth(30))
}
