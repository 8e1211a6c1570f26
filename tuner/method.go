package tuner

import (
	"context"
	"evotune/genomes"
	"evotune/tuner/cmaes"
	"evotune/tuner/config"
	"evotune/tuner/ga"
	"evotune/tuner/outside"
	"evotune/tuner/record"
	"evotune/tuner/report"
	"evotune/tuner/search"
	"evotune/tuner/spsa"
	"evotune/tuner/steady"
	"fmt"
	"strings"
)

// A search method proposes genomes, has them played through the tuner's shared machinery
// (openings, the worker pool or cluster, storage of every genome and game, checkpoints,
// budgets) and saves each of its generations; the tuner around it creates and resumes the
// run and verifies its champion at the end. A method that asks and tells the run loop
// (search.Loop, on search.Method, made a searchMethod by askTell) is one file or package, one
// line of Methods (or a RegisterMethod call) and its settings' rows: SPSA (package tuner/spsa),
// CMA-ES (package tuner/cmaes) and the steady-state GA (package tuner/steady) are, and so are
// both forms of the GA (package tuner/ga: Generational, and with Config.GALag above 0 the GA
// with generations in play; made in ga.go, with the run's test switches).
type searchMethod interface {
	// restore takes up a stored run after its saved generation st.LastGeneration (≥ 0):
	// the method rebuilds its own state from st (MethodStates, Population, HallOfFame), so
	// that search continues exactly as the uninterrupted run would. The error names what
	// does not fit the configuration.
	restore(st record.ResumeState) error
	// search plays and saves generations from `from` until the method's end (Generations),
	// the budget (Tuner.overBudget), an error or ctx. A generation in progress when ctx
	// ends is not saved.
	search(ctx context.Context, from int) error
	// describe says how the method will search, after "tuning GAME" in tune's header
	// (" by SPSA: …"), given the run's length ("N generations, budget M games"), and any
	// notes for lines of their own.
	describe(length string) (string, []string)
}

// MethodSpec describes one search method of Methods: what every reader of a run knows of
// it (config.Method: its names, display words, settings check, openings, heading and
// progress line), how a run makes it and its line of the run's summary.
type MethodSpec struct {
	config.Method
	// Loop makes the method for a run from the run's environment: a method on the run loop
	// (Method). Every method but the GA is made so.
	Loop func(env *search.MethodEnv) (search.Method, error) `json:"-"`
	// Summarise is the method's line of the run's summary: its result and champion.
	Summarise func(s report.Summary) string `json:"-"`
	// start makes the method from the run itself (the GA: its form by Config.GALag, and
	// the run's test switches); nil: Loop's.
	start func(t *Tuner) (searchMethod, error)
}

// make makes the method for run t: start's, else Loop's on the run loop.
func (m MethodSpec) make(t *Tuner) (searchMethod, error) {
	if m.start != nil {
		return m.start(t)
	}
	return askTell(m.Loop)(t)
}

// Methods is every search method, the default (DefaultConfig's Method) first.
var Methods = []MethodSpec{
	{Method: config.Method{Name: config.MethodGA, Title: "GA", Generation: "generation", Champion: "the hall of fame's centre or best member (the race winner without a hall of fame)",
		Range: "the population's range", Saved: "generation", Heading: ga.BestColumn, Openings: ga.Openings, Progress: ga.Saved,
		Lag: func(c config.Config) int { return c.GALag }, SlotHint: ga.SlotHint, Refreezable: true,
		Doc: "the genetic algorithm (eaopt), the default: a population whose individuals play each other (or race the paper's weights), a hall of fame; the champion is the hall of fame's centre (for an outside engine, the centre of the last generation's better half)"},
		start: newGA, Summarise: ga.Summarise},
	{Method: config.Method{Name: config.MethodSPSA, Title: "SPSA", Generation: "step", Champion: "θ after the step", Range: "θ+ and θ−", Short: true, Saved: "SPSA step",
		Probes:       true,
		NoImportance: "an SPSA step plays two probes, θ+ and θ−, which differ in every free gene at once: two rows cannot separate the genes' effects, so no importance is fitted; the genes page shows how θ moved, and the slices below each probe's score against each gene",
		Heading:      column("θ+"), Check: func(c config.Config) error { return c.SPSAParams().Validate() }, Openings: func(c config.Config) int { return c.SPSAParams().Pairs }, Progress: spsa.Saved,
		Lag: func(c config.Config) int { return c.SPSAParams().Lag }, SlotHint: spsa.SlotHint, GainSchedule: true,
		Doc: "fishtest's SPSA: θ± = θ ± c_k·Δ play each other, θ moves by their result (see --spsa-*)"},
		Loop: spsa.New, Summarise: spsa.Summarise},
	{Method: config.Method{Name: config.MethodCMAES, Title: "CMA-ES", Generation: "generation", Champion: "the mean after the generation", Range: "the candidates' range", Short: true, Saved: "CMA-ES generation",
		Heading: column("BEST CANDIDATE"), Check: func(c config.Config) error { return c.CMAESParams().Validate() }, Openings: func(c config.Config) int { return c.CMAESParams().Pairs }, Progress: cmaes.Saved,
		Lag: func(c config.Config) int { return c.CMAESParams().Lag }, SlotHint: cmaes.SlotHint,
		Doc: "CMA-ES (goptuna's cmaes): λ samples around the mean play the mean, the mean and covariance move (see --cmaes-*)"},
		Loop: cmaes.New, Summarise: cmaes.Summarise},
	{Method: config.Method{Name: config.MethodSteady, Title: "steady-state GA", Generation: "generation", Champion: "the centre of the population's better half", Range: "the population's range", Short: true, Saved: "steady-state generation",
		Heading: column("BEST MEMBER"), Refreezable: true, Check: func(c config.Config) error { return c.SteadyParams().Validate() }, Openings: func(c config.Config) int { return c.Games / 2 }, Progress: steady.Saved,
		Doc: "the GA without a generation barrier: one birth at a time, each child and its first parent play the paper's weights on the same openings, the child takes the parent's place when it scores higher; workers never wait for a generation's slowest game"},
		Loop: steady.New, Summarise: steady.Summarise},
}

// RegisterMethod adds a search method on the run loop to Methods, after the built-in ones:
// tune's --method, resume, the summary, the inspecting commands and the dashboard then
// know it by spec.Name. Call it before any run starts (from an init function or a test's
// TestMain): Methods is read without a lock. The error names what spec lacks: a name
// (letters, digits, '-' and '_') no method has, Title, Generation, Saved, Loop, Heading,
// Openings, Progress and Summarise.
func RegisterMethod(spec MethodSpec) error {
	name := spec.Name
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		return fmt.Errorf("register method %q: a name is lower-case letters, digits, '-' and '_'", name)
	}
	if _, ok := specOf(name); ok {
		return fmt.Errorf("register method %q: a method of that name exists", name)
	}
	for _, f := range []struct {
		field string
		unset bool
	}{{"Title", spec.Title == ""}, {"Generation", spec.Generation == ""}, {"Saved", spec.Saved == ""},
		{"Loop", spec.Loop == nil}, {"Heading", spec.Heading == nil}, {"Openings", spec.Openings == nil},
		{"Progress", spec.Progress == nil}, {"Summarise", spec.Summarise == nil}} {
		if f.unset {
			return fmt.Errorf("register method %q: MethodSpec.%s is not set", name, f.field)
		}
	}
	spec.start = nil
	Methods = append(Methods, spec)
	config.RegisterMethod(spec.Method)
	return nil
}

func init() {
	for _, m := range Methods {
		config.RegisterMethod(m.Method)
	}
	config.SubjectCheck = func(c config.Config, l *genomes.Layout) error {
		_, err := outside.NewOutside(c, l)
		return err
	}
}

// column is a BestColumn of one heading whatever the configuration.
func column(heading string) func(config.Config) string {
	return func(config.Config) string { return heading }
}

// specOf returns the method of a stored configuration's Method ("" is the GA: runs stored
// before methods were named); false for a name no method has (config.MethodOf is what the
// configuration knows of it).
func specOf(name string) (MethodSpec, bool) {
	if name == "" {
		name = config.MethodGA
	}
	for _, m := range Methods {
		if m.Name == name {
			return m, true
		}
	}
	return MethodSpec{}, false
}

// SearchText is tune's header for the run's method: how it will search over length (the
// run's generations and budgets, "5 generations, budget 2000 games"), and notes for
// lines of their own.
func (t *Tuner) SearchText(length string) (string, []string) { return t.method.describe(length) }
