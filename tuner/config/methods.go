package config

import (
	"evotune/genomes"
	"evotune/tuner/record"
	"math"
	"strings"
)

// Methods of Config.Method.
const (
	// MethodSPSA is fishtest's SPSA (package tuner's spsa.go).
	MethodSPSA = "spsa"
	// MethodGA is the genetic algorithm (package tuner/ga): the default.
	MethodGA = "ga"
	// MethodCMAES is CMA-ES (cmaes.go).
	MethodCMAES = "cmaes"
)

// MethodSteady is the steady-state GA (steady.go).
const MethodSteady = "steady"

// SteadyConfig holds the steady-state GA's parameters (Config.Steady).
type SteadyConfig struct {
	// Window is how many births are in play at once: birth b is bred when birth b − Window
	// is decided (and the initial population is). 0: DefaultSteadyWindow, as runs stored
	// before the window was a setting played; a new run that names none takes
	// SteadyWindowFor its planned births (Config.NewRunDefaults).
	Window int `json:"window,omitempty" yaml:"window"`
}

// SteadyWindowFor is the default window of a new run of births planned births (0:
// unknown): one birth in play per 16 planned, at least DefaultSteadyWindow and at most
// MaxDefaultSteadyWindow, so a child is bred from a population at most a sixteenth of the
// run behind (amazons' 4 000 games, 62 births: 4; connect6's 20 000, 312: 19; gomoku's
// 44 000, 687: 32). It depends on the run's plan only, never on its workers: a seeded run
// is the same on any number of slots.
func SteadyWindowFor(births int) int {
	return min(max(births/16, DefaultSteadyWindow), MaxDefaultSteadyWindow)
}

// SteadyParams returns the run's steady-state GA parameters (Window 0: DefaultSteadyWindow).
func (c Config) SteadyParams() SteadyConfig {
	return overDefaults(SteadyConfig{Window: DefaultSteadyWindow}, c.Steady)
}

// MaxGALag bounds Config.GALag: at 3, replayed 64 slots were 95–98% busy on every game
// (docs/methods.md); a deeper lag breeds from ever older parents (at 8, from generations
// 9 to 17 back).
const MaxGALag = 8

// SPSAConfig holds SPSA's parameters (fishtest's names). Zero fields take DefaultSPSA's.
type SPSAConfig struct {
	// Pairs is the number of colour-swapped game pairs of θ+ against θ− per step.
	Pairs int `json:"pairs" yaml:"pairs"`
	// CEnd is the perturbation c_k at the last step, in the genes' SPSA units (ln units for
	// log genes).
	CEnd float64 `json:"c_end" yaml:"c_end"`
	// REnd is the learning rate R_k = a_k/c_k² at the last step.
	REnd float64 `json:"r_end" yaml:"r_end"`
	// Alpha and Gamma are the exponents of a_k and c_k.
	Alpha float64 `json:"alpha" yaml:"alpha"`
	Gamma float64 `json:"gamma" yaml:"gamma"`
	// ARatio is A, the stability constant of a_k, as a fraction of the run's game pairs.
	ARatio float64 `json:"a_ratio" yaml:"a_ratio"`
	// Lag is how many steps may be in play behind the one being started: step k perturbs
	// θ_{k−Lag}, so Lag+1 steps' games keep the game slots busy while the oldest ends
	// (0: each step waits for the one before; runs stored before the lag have 0). New runs
	// take DefaultSPSALag (Config.NewRunDefaults); zero is not replaced by a default.
	Lag int `json:"lag,omitempty" yaml:"lag"`
}

// SPSALagFor is the default lag of a new run of steps planned steps (0: unknown): one
// step in play per 16 planned, at least DefaultSPSALag and at most MaxDefaultSPSALag, so
// that a step perturbs a θ at most a sixteenth of the run behind (amazons' 4 000 games,
// 125 steps: 8; connect6's 20 000, 625 steps: 39; gomoku's 44 000, 1 375: 48). It depends
// on the run's plan only, never on its workers: a seeded run is the same on any number of
// slots.
func SPSALagFor(steps int) int {
	return min(max(steps/16, DefaultSPSALag), MaxDefaultSPSALag)
}

// DefaultSPSA is fishtest's formulation as `evotune compare` measured it: 16 pairs per
// step, c_end 0.2 ln units, r_end 0.002, Spall's exponents, A = 10% of the pairs.
var DefaultSPSA = SPSAConfig{Pairs: 16, CEnd: 0.2, REnd: 0.002, Alpha: 0.602, Gamma: 0.101, ARatio: 0.1}

// SPSAParams returns the run's SPSA parameters with DefaultSPSA's in place of zeros.
func (c Config) SPSAParams() SPSAConfig { return overDefaults(DefaultSPSA, c.SPSA) }

// CMAESConfig holds CMA-ES's parameters. Zero fields take DefaultCMAES's.
type CMAESConfig struct {
	// Pairs is the number of colour-swapped game pairs each candidate plays against the
	// mean per generation.
	Pairs int `json:"pairs" yaml:"pairs"`
	// Sigma is the initial step size σ_0, in the genes' SPSA units (ln units for log genes).
	Sigma float64 `json:"sigma" yaml:"sigma"`
	// Lambda is the number of candidates per generation (0: 4 + ⌊3 ln n⌋ for n free genes,
	// what runs stored before CMAESLambdaFor have; a new run that names none takes
	// CMAESLambdaFor its planned candidates: Config.NewRunDefaults).
	Lambda int `json:"lambda" yaml:"lambda"`
	// Lag is how many generations may be in play behind the one being asked: generation k's
	// candidates are sampled around the mean and covariance that generation k−Lag−1 left
	// (0: each generation waits for the one before), so Lag+1 generations' games keep the
	// game slots busy while the oldest's slowest game ends. Not the default: on gomoku at
	// 44 000 games (λ 44, nine seeds, 8 000 held-out games each) lag 1 measured +35.0 Elo in
	// the mean (worst seed +20.2) against lag 0's +40.4 (+27.5), 5.4 lower seed for seed
	// (standard error 2.8); docs/methods.md.
	Lag int `json:"lag,omitempty" yaml:"lag"`
}

// DefaultCMAES: 8 game pairs per candidate, σ_0 = 0.1 ln units (a log gene's value moves by
// about a tenth), λ from the number of genes. On gomoku at 44 000 games (seed 1, 8 000
// held-out games each) σ_0 0.3 with 4 pairs measured −36.0 Elo, 0.05 with 4 pairs −19.4,
// 0.1 with 16 pairs +10.4, 0.2 with 16 pairs −28.3, and 0.1 with 8 pairs +26.3.
var DefaultCMAES = CMAESConfig{Pairs: 8, Sigma: 0.1}

// CMAESParams returns the run's CMA-ES parameters with DefaultCMAES's in place of zeros.
func (c Config) CMAESParams() CMAESConfig { return overDefaults(DefaultCMAES, c.CMAES) }

// cmaesDefaultLambda is goptuna's λ for n free genes: 4 + ⌊3 ln n⌋ (Hansen's tutorial,
// Table 1).
func cmaesDefaultLambda(n int) int { return 4 + int(math.Floor(3*math.Log(float64(max(n, 1))))) }

// CMAESLambdaFor is the λ of a new CMA-ES run that plans candidates candidate evaluations
// (its game budget over 2 × pairs; 0: unknown) over n free genes: MaxLambdaFactor times the
// optimiser's λ where the candidates fill CMAESGenerations generations of that size, else
// the optimiser's λ; at most 98 (the setting's bound). Under self-play noise a generation
// ranks its candidates by a few games each, and the mean, moved to the best half's
// recombination every generation, walks; a larger population averages more candidates
// into each move (Hansen's remedy for noise) and fills more game slots a generation.
// Measured at gomoku's 44 000 games (n = 12, nine seeds, 8 000 held-out games each,
// docs/methods.md): λ 11 +4.9 Elo in the mean (worst seed −33.2), λ 42 +36.3 (+21.4), λ 44
// +40.4 (+27.5); at connect6's 20 000 (n = 9) λ 19 measured weaker than its λ 10 on six
// seeds (+19.5 against +30.4), so a budget that cannot hold the larger population keeps
// the optimiser's. It depends on the run's plan only, never on its workers.
func CMAESLambdaFor(candidates, n int) int {
	d := cmaesDefaultLambda(n)
	if big := MaxLambdaFactor * d; candidates >= CMAESGenerations*big {
		return min(big, 98)
	}
	return d
}

// Selection rules of the GA (Config.Selection).
const (
	// SelectionRace scores every individual against the reference set (the paper's weights
	// and Champions members of the hall of fame) by successive halving (playGeneration).
	SelectionRace = "race"
	// SelectionPeers scores the individuals against each other (playPeers): a comparison of
	// two individuals played as a match measures their difference directly, where two
	// scores against a common reference each carry their own noise (for the same games, a
	// quarter of the variance).
	SelectionPeers = "peers"
	// SelectionAuto, the default, is SelectionPeers, or SelectionRace for a run that names
	// opponents or champions to race against (Config.Resolve).
	SelectionAuto = "auto"
)

// Champion rules of the GA (Config.Champion).
const (
	// ChampionCentre: the run's result is the centre of the hall of fame (centre) once
	// there are two or more members, whatever their bounds (each was admitted by a test
	// against the one reigning before it, the first against the paper's weights): a
	// recombination of every admitted improvement, as evolution strategies take the
	// weighted mean of their best (the (μ/μ_w, λ) recombination), instead of the one
	// member whose noisy record looks best. Measured on gomoku at 44 000 games, 8 000
	// held-out games a seed (evotune compare, seeds 1–3): the best member +53.2 / +14.6 /
	// +25.7 Elo; the equal-weight centre +55.5 / +45.5 / +36.8; the recency-weighted centre
	// (centreWeights) +61.3 / +47.2 / +44.0.
	ChampionCentre = "centre"
	// ChampionBest: the member with the best lower confidence bound (champion).
	ChampionBest = "best"
	// ChampionAuto, the default, is ChampionPopulation for an outside engine and
	// ChampionCentre for the built-in games (Config.Resolve).
	ChampionAuto = "auto"
	// AdmissionAuto, the default, is AdmissionNone for an outside engine whose champion is
	// ChampionPopulation, AdmissionHeadToHead for another outside engine and
	// AdmissionPaired for the built-in games (Config.Resolve).
	AdmissionAuto = "auto"
	// AdmissionNone: no hall-of-fame test (Resolve sets AdmitGames to 0); the games go to
	// the pairings. A ChampionPopulation champion never comes from the hall of fame, and
	// with peers selection nothing else reads it, so a test would decide nothing but cost
	// a third of the budget. Measured on a detuned Toga II (docs/benchmarks.md, 4 000
	// games, the start −322.7 Elo against the engine's defaults): seed 3 with 64-game
	// head-to-head tests −88.7 ± 31.7, without (10-game pairs, peersGames) −1.7 ± 30.7;
	// seed 1 with tests −11.0 ± 30.2, without −109.5 ± 32.2. Runs of an outside engine
	// are not reproducible, and one run a seed each way shows no difference beyond that
	// spread.
	AdmissionNone = "none"
	// ChampionPopulation: the run's result after each generation is the centre of that
	// generation's better half by rank, the best weighing most (centreWeights, as
	// evolution strategies recombine their μ best: Hansen 2016, eq. 49), born in every
	// generation as OpPopulationCentre. Where the hall of fame moves only when a winner
	// proves itself in one test, the population moves every generation, and its centre
	// averages the noise of its members' selection. Measured on a detuned Toga II
	// (docs/benchmarks.md): after 4 000 games the hall of fame's centre lost −74.7 ± 31.1
	// Elo to the engine's defaults, the same run's population centre −11.0 ± 30.2 (the
	// start: −322.7); on gomoku, whose paper's weights start near their optimum, the
	// population centre measured below the hall's (ChampionAuto). With generations in play
	// (GALag L), the mean of the newest L+1 generations' centres, one from each line
	// (tuner/ga).
	ChampionPopulation = "population"
	// OpPopulationCentre is the operator of a ChampionPopulation champion, the genome in
	// the slot after its generation's individuals; its parents are the best individual and
	// the last of the better half.
	OpPopulationCentre = "population-centre"
	// AdmissionHeadToHead: the race winner plays the reigning champion itself (the paper's
	// weights while the hall of fame is empty) on AdmitGames/2 fresh opening pairs and is
	// admitted when its score exceeds ½ by AdmitZ standard errors of the pair scores. A
	// comparison played as a match measures the difference directly, and at a score near
	// ½, where Elo differences move the score most; measured against the paper's weights
	// the difference of two strong players is squeezed into the few games the weaker
	// paper's weights still draw or win (a detuned Toga II's champion scored about 0.8
	// against them, where a score moves 0.64 times as much per Elo as at ½), and the two
	// scores each carry their own noise. It plays a third of AdmissionPaired's games (the
	// members need no record of their own, and the single member of a hall of fame is the
	// champion: its test was against the paper's weights), except with ChampionBest, where
	// the champion still plays its own DefenceRound games.
	AdmissionHeadToHead = "head-to-head"
	// AdmissionPaired: the race winner and the reigning champion each play the paper's
	// weights on the same fresh opening pairs (common random numbers), the winner is
	// admitted when the mean per-pair difference exceeds 0 by AdmitZ standard errors, and
	// the champion plays as many pairs more on openings of its own (DefenceRound), its
	// record for ChampionBest.
	AdmissionPaired = "paired"
	// OpCentre is the operator of a champion recombined from the hall of fame, born in the
	// generation that admitted its latest member; its parents are every member admitted up
	// to its generation (its genome row names two: the member with the best lower bound and
	// the latest).
	OpCentre = "centre"
)

// The values of GASettings.Surrogate.
const (
	SurrogateAuto = "auto" // on for an outside engine whose champion is the population's centre
	SurrogateOn   = "on"
	SurrogateOff  = "off"
)

// CMAESGenerations is the number of generations a new CMA-ES run's budget must hold at
// MaxLambdaFactor times the optimiser's λ for its default λ to be that (CMAESLambdaFor).
const CMAESGenerations = 60

// MaxLambdaFactor is how many times the optimiser's own λ (4 + ⌊3 ln n⌋ for n free genes)
// a new run with a large enough budget takes (CMAESLambdaFor).
const MaxLambdaFactor = 4

func (p CMAESConfig) Validate() error {
	switch {
	case p.Pairs < 1 || p.Pairs > 10000:
		return Errorf("cmaes.pairs", "", "%d, want 1 to 10000", p.Pairs)
	case !(p.Sigma > 0 && p.Sigma <= 10):
		return Errorf("cmaes.sigma", "", "%g, want (0, 10] (ln units for log genes)", p.Sigma)
	case p.Lambda != 0 && (p.Lambda < 4 || p.Lambda > 98):
		return Errorf("cmaes.lambda", "", "%d, want 0 (from the number of genes) or 4 to 98", p.Lambda)
	case p.Lag < 0 || p.Lag > 16:
		return Errorf("cmaes.lag", "", "%d, want 0 (each generation waits for the one before) to 16", p.Lag)
	}
	return nil
}

// DefaultSPSALag is the lag of a new SPSA run that names none and plans few steps (or an
// unknown number: a time budget): nine steps of 16 pairs in play, 288 games for the game
// slots whatever finishes first. Measured (gomoku, 44 000 games, seeds 1–3, 8 000 held-out
// games each, Elo against the paper's weights): lag 0 +58.9 / +61.0 / +51.8, lag 2 +54.1 /
// +64.8 / +47.3, lag 8 +63.6 / +61.7 / +46.5, each within the others' intervals (± 6.5).
const DefaultSPSALag = 8

// MaxDefaultSPSALag is the most steps a new run's default lag puts in play (SPSALagFor).
// At 64 game slots a step's slowest game holds every step behind it, and only some 50
// steps of 32 games in play fill them: replayed at gomoku's budget (tuner
// BenchmarkSlotReplay, EVOTUNE_REPLAY_BUDGET=game), lag 8 kept 64 slots 45% busy, 16 63%,
// 32 89–90% and 48 96%. Lag 48 played as strong as lags 32 and 8 at gomoku's 44 000 games
// (+60.4 / +57.1 / +55.9, mean +57.8, against lag 32's +59.9 / +60.9 / +50.7 and lag 8's
// mean +57.3), and connect6's 20 000 at lag 39 as at 32 (+37.8 / +38.1 / +37.5 against
// +36.8 / +38.5 / +38.0; docs/methods.md).
const MaxDefaultSPSALag = 48

func (p SPSAConfig) Validate() error {
	switch {
	case p.Pairs < 1 || p.Pairs > 10000:
		return Errorf("spsa.pairs", "", "%d, want 1 to 10000", p.Pairs)
	case !(p.CEnd > 0 && p.CEnd <= 10):
		return Errorf("spsa.c_end", "", "%g, want (0, 10] (ln units for log genes)", p.CEnd)
	case !(p.REnd > 0 && p.REnd <= 10):
		return Errorf("spsa.r_end", "", "%g, want (0, 10]", p.REnd)
	case !(p.Alpha > 0 && p.Alpha <= 1):
		return Errorf("spsa.alpha", "", "%g, want (0, 1]", p.Alpha)
	case !(p.Gamma > 0 && p.Gamma <= 1):
		return Errorf("spsa.gamma", "", "%g, want (0, 1]", p.Gamma)
	case !(p.ARatio >= 0 && p.ARatio <= 10):
		return Errorf("spsa.a_ratio", "", "%g, want 0 to 10", p.ARatio)
	case p.Lag < 0 || p.Lag > 64:
		return Errorf("spsa.lag", "", "%d, want 0 (each step waits for the one before) to 64", p.Lag)
	}
	return nil
}

// DefaultSteadyWindow is the window of a run that names none and plans few births (or an
// unknown number: a time budget alone): four births of 2 × Games games keep
// 2 local workers or a small cluster busy while the oldest birth's last games finish.
const DefaultSteadyWindow = 4

// MaxDefaultSteadyWindow is the most births a new run's default window puts in play
// (SteadyWindowFor). At 64 game slots the oldest birth's slowest game holds every birth
// behind it: replayed at gomoku's budget (tuner BenchmarkSlotReplay,
// EVOTUNE_REPLAY_BUDGET=game), window 4 kept 64 slots 38% busy, 16 91% and 32 97%.
const MaxDefaultSteadyWindow = 32

func (p SteadyConfig) Validate() error {
	if p.Window < 1 || p.Window > 256 {
		return Errorf("steady.window", "", "%d, want 1 to 256 (births in play at once)", p.Window)
	}
	return nil
}

// Method is what the configuration and every reader of a run know of a search method —
// its names and display words, the check of its own settings, the openings a generation
// draws, its generations table's heading and its progress line — declared once, in the
// method's registration (package tuner registers each of its methods, the default first,
// and tuner.RegisterMethod any other). Its JSON is the dashboard's method_terms.
type Method struct {
	// Name is Config.Method's value ("ga", "spsa", "cmaes").
	Name string `json:"name"`
	// Doc is one line for --help and the generated reference.
	Doc string `json:"doc"`
	// Title is the method's name in prose and page headers ("SPSA", "GA", "CMA-ES").
	Title string `json:"title"`
	// Generation is what the method calls one of its generations in progress lines and
	// on the dashboard: "generation" or "step".
	Generation string `json:"generation"`
	// Champion says what the run's champion after a generation is ("θ after the step").
	Champion string `json:"champion"`
	// Range says what the spread of a generation's genomes is (the dashboard's gene bands).
	Range string `json:"range"`
	// Short is true for methods whose generations are a few dozen games (SPSA's steps,
	// CMA-ES's generations): progress shows one bar over the game budget and a saved line
	// every few seconds, not a bar per batch and a line per generation.
	Short bool `json:"-"`
	// Saved is what the run's summary counts its saved generations as ("SPSA step").
	Saved string `json:"-"`
	// Probes is true for a method whose generation is one pair of probes that play each
	// other (SPSA's θ+ and θ−): pages chart the probe's score and the probes' distance, not
	// a population's best, mean and diversity.
	Probes bool `json:"probes,omitempty"`
	// NoImportance, when set, says why the dashboard's parameter importance (a regression
	// of scores on genes within each generation) is not fitted for this method's runs.
	NoImportance string `json:"no_importance,omitempty"`
	// Check validates the method's own settings of configuration c (nil: none); the error
	// names the setting.
	Check func(c Config) error `json:"-"`
	// Openings is the most distinct tuning openings one generation of a run with
	// configuration c draws (a book's tuning half must hold them).
	Openings func(c Config) int `json:"-"`
	// Heading is the heading of a generation's best individual in the generations table
	// (BestColumn).
	Heading func(c Config) string `json:"-"`
	// Progress is the method's part of the progress line of a saved generation (SavedText).
	Progress func(e record.Event) string `json:"-"`
	// Lag is how many rounds the method may have in play behind the one it asks in a run
	// of configuration c (SPSA's steps, CMA-ES's and the lagged GA's generations; the
	// summary's slot hint reads it); nil: 0.
	Lag func(c Config) int `json:"-"`
	// SlotHint, for a run at lag 0 that kept under 90% of its game slots busy, names the
	// setting that fills them, given the run's saved generations, games and game slots
	// (report.Summary.SlotHint); nil or "": none.
	SlotHint func(generations, games, slots int) string `json:"-"`
	// Refreezable is true for a method whose stored state does not depend on which genes
	// are free (the GAs), so that resume may fix or free genes; a method that rebuilds its
	// state over the free genes (SPSA's steps, CMA-ES's covariance) is not.
	Refreezable bool `json:"-"`
	// GainSchedule is true for a method whose game budget schedules its steps (SPSA's
	// gains): a resume that extends the time budget of a run calibrated from one extends
	// the game budget in proportion.
	GainSchedule bool `json:"-"`
}

// LagOf is m.Lag(c), or 0 for a method that declares no Lag.
func (m Method) LagOf(c Config) int {
	if m.Lag == nil {
		return 0
	}
	return m.Lag(c)
}

// BestColumn is the heading of a generation's best individual in the generations table of
// a run of this method with configuration c: "RACE WINNER", "BEST OF PEERS" (the GA),
// "θ+" (SPSA), "BEST CANDIDATE" (CMA-ES), "BEST MEMBER" (the steady-state GA); "BEST"
// for a method that declares none (one no registration made: the zero Method).
func (m Method) BestColumn(c Config) string {
	if m.Heading == nil {
		return "BEST"
	}
	return m.Heading(c)
}

// SavedText is the method's part of the progress line of a saved generation (event e,
// GenDone): its result and champion; the champion's ID for a method that declares none
// (the zero Method).
func (m Method) SavedText(e record.Event) string {
	if m.Progress == nil {
		return "champion " + e.Champion
	}
	return m.Progress(e)
}

// methods are the registered methods, the default first.
var methods []Method

// RegisterMethod adds m to the methods a configuration may name; a name registered again
// replaces its entry (package tuner registers its methods once, and each method it
// registers later).
func RegisterMethod(m Method) {
	for i := range methods {
		if methods[i].Name == m.Name {
			methods[i] = m
			return
		}
	}
	methods = append(methods, m)
}

// Methods are the registered methods, the default first.
func Methods() []Method { return methods }

// LookupMethod returns the registered method named name (false: none).
func LookupMethod(name string) (Method, bool) {
	for _, m := range methods {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// MethodOf returns the method of a stored configuration's Method ("" is the GA: runs
// stored before methods were named); false for a name no method has.
func MethodOf(name string) (Method, bool) {
	if name == "" {
		name = MethodGA
	}
	return LookupMethod(name)
}

// MethodNames returns the registered methods' names joined with ", " (for errors and help).
func MethodNames() string {
	names := make([]string, len(methods))
	for i, m := range methods {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

// SubjectCheck, set by package tuner, checks an outside engine under tuning as a run would
// start it (its command line, placeholders and values file) given the run's layout with its
// fixed and held genes; Config.Validate calls it for a configuration that names one.
var SubjectCheck func(c Config, l *genomes.Layout) error
