package config

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"evotune/engine"
	"evotune/genomes"
)

// WorkersPerCPU bounds a command's games played at once per CPU (external engines wait on
// pipes, so a few per core are useful; thousands only thrash).
const WorkersPerCPU = 4

// MaxWorkers is the most games a command plays at once on this machine: WorkersPerCPU
// times its CPUs.
func MaxWorkers() int { return WorkersPerCPU * runtime.NumCPU() }

// MaxWorkersText says where MaxWorkers comes from: "4× the 2 CPUs".
func MaxWorkersText() string {
	return fmt.Sprintf("%d× the %d CPUs", WorkersPerCPU, runtime.NumCPU())
}

// CommandLine is a run as tune's command line asks for it: Flags holds every setting's
// flag value (Settings' Flag names; the defaults where not given), Changed says which flags
// the user gave, ConfigFile and LayoutFile name the YAML config and an outside engine's
// layout file ("" for none), Depth is --depth's text (one depth or a list like 3,4,5).
type CommandLine struct {
	Flags      Config
	Changed    func(flag string) bool
	ConfigFile string
	LayoutFile string
	Depth      string
}

// changed reports whether the user gave flag name.
func (cl CommandLine) changed(name string) bool { return cl.Changed != nil && cl.Changed(name) }

// Config is the run the command line asks for: the game's defaults, then the config file,
// then the flags the user gave, the layout file's game, rule and board, resolved and
// validated, the verification openings and the book read (so the run stores them). Errors
// name the flag the user gave (--pop: …), else the config file (config run.yaml: …): a
// flag of another method (--pop with --method spsa), a --game, --rule or --board the layout
// contradicts, no game, --budget-games below 2, --generations 0 without a budget, and
// whatever Validate refuses. Admission games given (--admit-games, admit_games) with
// admission auto keep a test: head-to-head for an outside engine, paired for a built-in
// game, where auto alone may choose none.
func (cl CommandLine) Config() (Config, error) {
	base := DefaultConfig(cl.Flags.Game)
	if cl.ConfigFile != "" {
		var err error
		if base, err = LoadConfigFile(cl.ConfigFile, base); err != nil {
			return base, err
		}
	}
	for _, st := range Settings {
		if st.Flag == "" || !cl.changed(st.Flag) {
			continue
		}
		if st.Unit == "depths" {
			ds, err := ParseDepths(cl.Depth)
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
		if err := base.SetFrom(st.Key, &cl.Flags); err != nil {
			return base, fmt.Errorf("--%s: %w", st.Flag, err)
		}
	}
	if (base.TimeBudget != "" || base.BudgetGames > 0) && !cl.changed("generations") && cl.ConfigFile == "" {
		base.Generations = 0 // until the budget
	}
	if cl.LayoutFile != "" {
		lf, err := genomes.LoadLayoutFile(cl.LayoutFile)
		if err != nil {
			return base, fmt.Errorf("--layout: %w", err)
		}
		for _, f := range []struct {
			flag      string
			set, want any
		}{{"game", base.Game, lf.Game}, {"rule", base.Rule, lf.Rule}, {"board", base.Board, lf.Board}} {
			if cl.changed(f.flag) && fmt.Sprint(f.set) != fmt.Sprint(f.want) {
				return base, fmt.Errorf("--%s %v: the layout %s says %s %v (the layout decides the rules evotune referees with)", f.flag, f.set, cl.LayoutFile, f.flag, f.want)
			}
		}
		base.Layout, base.Game, base.Rule, base.Board = &lf, lf.Game, lf.Rule, lf.Board
	}
	if err := base.TakeEngineDepth(); err != nil {
		return base, cl.SettingError(err)
	}
	if base.Game == "" {
		return base, fmt.Errorf("--game is required (or game: in the config file, or --layout)")
	}
	if cl.changed("budget-games") && cl.Flags.BudgetGames <= 0 {
		return base, fmt.Errorf("--budget-games %d: want at least 2 distinct games (leave it out for the method's default)", cl.Flags.BudgetGames)
	}
	if cl.changed("generations") && base.Generations == 0 && base.TimeBudget == "" && base.BudgetGames == 0 {
		return base, fmt.Errorf("--generations: 0, want at least 1 (0 only with --time-budget or --budget-games; leave it out for the method's default)")
	}
	for _, st := range Settings {
		if st.Flag == "" || !cl.changed(st.Flag) || st.AppliesTo(base.Method) {
			continue
		}
		why := ""
		if !base.IsGA() && len(st.Methods) == 1 && st.Methods[0] == MethodGA {
			why = ": it has no population, racing or hall of fame; add --method ga"
		}
		return base, fmt.Errorf("--%s: applies to --method %s only (the run's method is %s%s)", st.Flag, strings.Join(st.Methods, " or --method "), base.MethodText(), why)
	}
	if err := base.CheckMethodKeys(); err != nil {
		return base, err
	}
	base.NewRunDefaults(cl.changed("spsa-lag") || cl.changed("steady-window") || cl.changed("cmaes-lambda"))
	if _, inFile := base.fileKeys["admit_games"]; base.Admission == AdmissionAuto && base.AdmitGames > 0 && (cl.changed("admit-games") || inFile) {
		// Admission tests asked for by their size: auto chooses among the tests, never none.
		base.Admission = AdmissionPaired
		if base.Engine != "" {
			base.Admission = AdmissionHeadToHead
		}
	}
	base.NewRunGALag(cl.changed("ga-lag"))
	base.Resolve()
	if err := base.ReadVerifyOpenings(); err != nil { // the user named this file: read it once, store its openings
		return base, cl.SettingError(err)
	}
	if err := base.ReadBook(); err != nil { // as the verification file: read once, stored with the run
		return base, cl.SettingError(err)
	}
	if err := base.Check(); err != nil {
		return base, cl.SettingError(err)
	}
	if base.Workers > MaxWorkers() {
		return base, fmt.Errorf("workers: %d, at most %d here (%s)", base.Workers, MaxWorkers(), MaxWorkersText())
	}
	return base, nil
}

// SettingError names where a bad setting came from: the flag when the user gave it
// (err is a *SettingError of a setting with a flag), else the config file, else err as it
// is (a default).
func (cl CommandLine) SettingError(err error) error {
	var se *SettingError
	if errors.As(err, &se) {
		if st, ok := LookupSetting(se.Key); ok && st.Flag != "" && cl.changed(st.Flag) {
			if se.Field == "" { // "--verify-openings: openings: …", not "--verify-openings: verify_openings: …"
				return fmt.Errorf("--%s: %w", st.Flag, se.Err)
			}
			return fmt.Errorf("--%s: %w", st.Flag, err)
		}
	}
	if cl.ConfigFile != "" {
		return fmt.Errorf("config %s: %w", cl.ConfigFile, err)
	}
	return err
}

// ParseDepths reads --depth s: one depth or a comma-separated list, each 1 to
// MaxEngineDepth (Validate holds the built-in engines' to engine.MaxDepth).
func ParseDepths(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 1 || d > MaxEngineDepth {
			return nil, fmt.Errorf("--depth %q: want a depth (1–%d for the built-in engines) or a list like 3,4,5", s, engine.MaxDepth)
		}
		out = append(out, d)
	}
	return out, nil
}
