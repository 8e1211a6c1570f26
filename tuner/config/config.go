// Package config is a tuning run's configuration: Config in sections (RunSettings,
// GASettings, PlaySettings, SubjectSettings, VerifySettings and each method's parameters),
// every setting declared once (Settings: its config key, tune flag, methods, unit and
// help), the command line over a config file over the defaults (CommandLine), the
// configuration resolved once (Plan) and its validation, whose errors name the setting
// (*SettingError). It knows the search methods by what package tuner registers of each
// (RegisterMethod); an outside engine under tuning is checked by tuner's SubjectCheck.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/engine/protocol/wire"
	"evotune/genomes"
	"evotune/tuner/arena"
)

// RunSettings are a run's own settings: what it tunes (game, rule, board), its name and
// seed, the method, how long it runs (generations, budgets, extensions), the workers and
// the genes it frees, fixes or holds. Config embeds it (its fields are Config's, stored
// under the same keys); validate checks what concerns it alone.
type RunSettings struct {
	// Game is the game tuned, a name of the game registry (genomes.Names).
	Game string `json:"game" yaml:"game"`
	// Rule is a rule variant (Gomoku: freestyle, standard or renju).
	Rule string `json:"rule" yaml:"rule"`
	// Board is the board side (0 = the game's default).
	Board int `json:"board" yaml:"board"`
	// Name labels the run (default "GAME-seedN").
	Name string `json:"name" yaml:"name"`
	Seed int64  `json:"seed" yaml:"seed"`
	// Method is the search, one of Methods: "ga" (the genetic algorithm, package tuner's ga.go:
	// DefaultConfig's), "spsa" (fishtest's SPSA, spsa.go) or "cmaes" (CMA-ES, cmaes.go).
	// "" means ga: the runs stored before methods were named say no method. All
	// store generations, individuals, games and lineage the same way and are verified the
	// same way.
	Method string `json:"method,omitempty" yaml:"method"`
	// Generations is the number of generations (GA) or steps (SPSA) after generation 0 (the
	// initial one); 0 means "until the budget" (TimeBudget or BudgetGames), and with
	// neither the method's default (Resolve).
	Generations int `json:"generations" yaml:"generations"`
	// TimeBudget stops the run at the first generation boundary after this much wall time
	// (Go duration, e.g. "8h"; "" = none); the verification follows. Resumed runs count
	// the time of their earlier sessions.
	TimeBudget string `json:"time_budget" yaml:"time_budget"`
	// BudgetGames, if > 0, stops the run at the first generation (GA) or step (SPSA)
	// boundary after this many distinct tuning games (racing, hall-of-fame tests, SPSA
	// pairs; verification and checkpoints not counted): methods and runs compared on work
	// done, whatever the machine's load.
	BudgetGames int `json:"budget_games,omitempty" yaml:"budget_games"`
	// Workers is the number of games played at once (default: the number of CPUs). It
	// never changes results.
	Workers int `json:"workers" yaml:"workers"`
	// Free lists fixed genes to tune anyway (e.g. value_6, threat_6 for Connect6).
	Free []string `json:"free" yaml:"free"`
	// Fix lists genes to hold at the paper's value (e.g. k1, k2 for Gomoku).
	Fix []string `json:"fix" yaml:"fix"`
	// Hold holds genes fixed at these values (gene name to value): genes frozen while the
	// run went on (resume --fix), at the champion's value then. Set by resume only.
	Hold map[string]float64 `json:"hold,omitempty" yaml:"-"`
	// Extensions are the run's budgets as `resume --budget-games`/`--time-budget` changed
	// them, oldest first; BudgetGames, TimeBudget and Generations are the latest. A method
	// whose plan depends on the budget (SPSA's gains) plans each generation under the
	// budget it was played with (BudgetAt).
	Extensions []Extension `json:"extensions,omitempty" yaml:"-"`
}

// GASettings are the genetic algorithm's settings — the population, racing or peers, the
// hall of fame and the champion, the operators, and the outside opponents of its reference
// set — some shared with the steady-state GA (Population, Games, Elite, Tournament, the
// rates, Mutation, Init). Config embeds it; validate checks what concerns it alone.
type GASettings struct {
	// Population is the number of individuals per generation.
	Population int `json:"population" yaml:"population"`
	// Games is the number of games of each racing round (with SelectionPeers, of each pair
	// in a pairing): Games/2 openings, each played twice with colours swapped. Even and
	// positive once resolved; 0 asks Resolve for DefaultGames, or with peers and a game
	// budget for peersGames.
	Games int `json:"games" yaml:"games"`
	// RaceRounds is the number of successive-halving rounds after the screening round: the
	// better half of a round's players play Games more games on new openings.
	RaceRounds int `json:"race_rounds" yaml:"race_rounds"`
	// AdmitGames is the length of the hall-of-fame test of each generation's race winner
	// against the current champion (0 = no hall of fame: the champion is the rank-1
	// individual of the last generation). Even.
	AdmitGames int `json:"admit_games" yaml:"admit_games"`
	// AdmitZ is the number of standard errors by which the winner's head-to-head score must
	// exceed ½ to be admitted, and the z of the lower confidence bound that picks the
	// champion among the hall of fame (1.645: one-sided 95%).
	AdmitZ float64 `json:"admit_z" yaml:"admit_z"`
	// Admission is how the hall-of-fame test is played: AdmissionHeadToHead,
	// AdmissionPaired or AdmissionNone (no test: AdmitGames 0). AdmissionAuto, the default,
	// is resolved (Resolve) to none for an outside engine whose champion is the
	// population's centre, head-to-head for another outside engine and paired for the
	// built-in games; "" (runs stored before this setting) is AdmissionPaired.
	Admission string `json:"admission,omitempty" yaml:"admission"`
	// Elite individuals are carried unchanged into the next generation (generational
	// model with elitism).
	Elite int `json:"elite" yaml:"elite"`
	// Tournament is the number of contestants of tournament selection.
	Tournament int `json:"tournament" yaml:"tournament"`
	// Surrogate is SurrogateOn to breed, from the third generation on (with GALag L from
	// generation L+2), one child of each generation (the last) from a quadratic
	// Bradley–Terry model of the newest SurrogateWindow told generations' peer games: the
	// model's best genome within two mutation steps of the better half's centre
	// (tuner/ga/surrogate.go); only with SelectionPeers.
	// SurrogateAuto, the default, is resolved (Resolve) to on for an outside engine whose
	// champion is the population's centre and off otherwise; "" (runs stored before this
	// setting) is SurrogateOff.
	Surrogate string `json:"surrogate,omitempty" yaml:"surrogate"`
	// GALag is how many generations the GA has in play behind the newest (tuner/ga):
	// generation k+1 is bred once generation k−GALag is told, from generations
	// k−2·GALag to k−GALag, so no game slot waits for a generation's slowest game. 0:
	// each generation is bred from the one before once all its games are played
	// (ga.Generational), the built-in games' default and that of runs stored before new
	// runs of an outside engine took 1 (NewRunGALag). Above 0 only with SelectionPeers; the
	// auto champion is then ChampionPopulation with no admission test (measured the
	// stronger: a hall of fame, whose tests are lagged as the breeding is, picked weaker
	// champions on gomoku); 0 to MaxGALag.
	GALag int `json:"ga_lag,omitempty" yaml:"ga_lag"`
	// CrossoverRate is the probability that a selected pair is crossed over.
	CrossoverRate float64 `json:"crossover_rate" yaml:"crossover_rate"`
	// MutationRate is the probability that an offspring is mutated.
	MutationRate float64 `json:"mutation_rate" yaml:"mutation_rate"`
	// Mutation sets the size of mutation steps.
	Mutation genomes.Mutation `json:"mutation" yaml:"mutation"`
	// Init is "perturb" (the baseline plus perturbations of it) or "random".
	Init string `json:"init" yaml:"init"`
	// Champions is the number of hall-of-fame members (the latest admitted) in the
	// reference set besides the paper's weights.
	Champions int `json:"champions" yaml:"champions"`
	// Champion is how the GA names its result: ChampionCentre (the hall of fame's centre
	// once it has two members), ChampionPopulation (the centre of each generation's better
	// half) or ChampionBest (the member with the best lower bound, once one is credibly
	// above the paper's weights). ChampionAuto, the default of new runs, is resolved
	// (Resolve) to population for an outside engine and centre for the built-in games; ""
	// (runs stored before this setting) is ChampionBest.
	Champion string `json:"champion,omitempty" yaml:"champion"`
	// Selection is how the GA scores a generation: SelectionPeers plays the individuals
	// against each other, SelectionRace (and "", runs stored before peers) races every
	// individual against the reference set. SelectionAuto, the default, is resolved
	// (Resolve) to peers, measured stronger on every game (docs/methods.md, "Choosing a method"), or
	// to race when the run names opponents or champions to race against. Resolve clears it
	// for the other methods.
	Selection string `json:"selection,omitempty" yaml:"selection"`
	// Opponents are external engines ("cmd:PATH ARGS") added to every generation's opponent
	// pool; their games depend on timing, so a run with them is not reproducible.
	Opponents []string `json:"opponents" yaml:"opponents"`
	// OpponentMoveTime bounds each move of an external opponent (default 5 s).
	OpponentMoveTime float64 `json:"opponent_move_time" yaml:"opponent_move_time"`
}

// PlaySettings say how every game of a run is played: the search limits, the ply cap,
// the opening book and adjudication. Config embeds it; validate checks what concerns it
// alone (the book's openings need the game: Config.Validate).
type PlaySettings struct {
	// Depth and Width are the search limits of every game (0 = the game's default).
	Depth int `json:"depth" yaml:"depth"`
	// Depths, if set, mixes search depths: opening pair k of a generation is played at
	// Depths[k mod len(Depths)] (both games, every individual), so the champion is not
	// fitted to one depth. Depth is then ignored.
	Depths []int `json:"depths" yaml:"depths"`
	Width  int   `json:"width" yaml:"width"`
	// MaxPlies adjudicates a still-running game as a draw (0 = a per-game default).
	MaxPlies int `json:"max_plies" yaml:"max_plies"`
	// Book is an opening book the run's games start from instead of the game's random
	// openings (chess: EPD or PGN, BookPlies plies of each PGN game; other games: an opening
	// file): tuning draws from its tuning half and the verification from its held-out half
	// (HalfOf), so the verified champion is measured on openings it never played. BookList
	// holds its openings, read once when the run starts and stored with it (a resumed run
	// never opens the file again).
	Book      string         `json:"book,omitempty" yaml:"book"`
	BookPlies int            `json:"book_plies,omitempty" yaml:"book_plies"`
	BookList  arena.Openings `json:"book_list,omitempty" yaml:"-"`
	// Resign and Draw adjudicate games from the engines' scores as fastchess does
	// (engine.Adjudication's ParseResign, ParseDraw: "movecount=3,score=600",
	// "movenumber=40,movecount=8,score=10"); "" = off. Outside engines that report scores
	// (UCI's info score) only.
	Resign string `json:"resign,omitempty" yaml:"resign"`
	Draw   string `json:"draw,omitempty" yaml:"draw"`
}

// SubjectSettings describe the outside engine under tuning, when there is one: its layout,
// command line, how candidates' values reach it, its protocol and its limits. Config embeds
// it; validate checks what concerns it alone, Config.Validate the rest with the game it
// plays (the protocol, checkEngineLimits, the layout against the run's rules).
type SubjectSettings struct {
	// Layout, if set, is the layout file of an outside engine (Engine) that the run tunes
	// instead of the game's built-in engine; its content is stored with the run, so resume
	// never reads the file again. Game, Rule and Board equal the layout's.
	Layout *genomes.LayoutFile `json:"layout" yaml:"layout"`
	// Engine is the outside engine under tuning, "cmd:PROG ARGS": "{weights}" in ARGS is
	// replaced by the path of a file holding the candidate's values (WeightsFormat), and
	// "{NAME}" by gene NAME's value. Every individual, the baseline (the layout's defaults)
	// and the hall of fame play through it.
	Engine string `json:"engine" yaml:"engine"`
	// WeightsFormat is the {weights} file's format: json (a flat {"name": value} object,
	// the default), evotune (the weights file built-in engines read) or ini (name=value).
	WeightsFormat string `json:"weights_format" yaml:"weights_format"`
	// GomocupInfo sends every gene as a protocol option (protocol.ExternalSpec.Options):
	// Gomocup's "INFO NAME VALUE" after START, for gomoku engines that read their
	// parameters as INFO keys (UCI's setoption will use the same path).
	GomocupInfo bool `json:"gomocup_info" yaml:"gomocup_info"`
	// EngineOptions are fixed options of the outside engine, "NAME=VALUE" each (UCI's
	// setoption, Gomocup's INFO), sent to every seat before the genes' values: Hash=16,
	// Threads=1. A name is sent verbatim; neither holds a control character.
	EngineOptions []string `json:"engine_options,omitempty" yaml:"engine_options"`
	// Nodes bounds each search of a UCI outside engine (go nodes N; 0 = none): play that
	// does not depend on the machine's load. TC is a chess clock for its games ("10+0.1",
	// "40/60+0.6", engine.ParseTimeControl; "" = none): every game is timed as fastchess
	// times it, both sides told their clocks (go wtime btime winc binc).
	Nodes int64  `json:"nodes,omitempty" yaml:"nodes"`
	TC    string `json:"tc,omitempty" yaml:"tc"`
	// EngineDepth bounds each search of a UCI outside engine (go depth D; 0 = none), for
	// engines that ignore go nodes (Fruit and its descendants such as Toga II).
	EngineDepth int `json:"engine_depth,omitempty" yaml:"engine_depth"`
	// EngineMoveTime bounds each move of the outside engine, seconds (0 =
	// DefaultEngineMoveTime); StartupTime is its start-up allowance apart from the move
	// clock (0 = DefaultStartupTime).
	EngineMoveTime float64 `json:"engine_move_time" yaml:"engine_move_time"`
	StartupTime    float64 `json:"startup_time" yaml:"startup_time"`
	// EngineProtocol is the protocol the outside engine speaks (protocol.Gomocup, SAU or
	// Botzone; "" = the game's default: Gomocup for gomoku, SAU for connect6, Botzone for
	// amazons). Connect6 engines are tuned over Botzone (ConnectSix), which hands an
	// engine its opening; SAU cannot.
	EngineProtocol string `json:"engine_protocol,omitempty" yaml:"engine_protocol"`
	// BotzoneKeepRunning keeps a Botzone engine's process between turns (Botzone's
	// keep-running mode) instead of one process per move; BotzoneJSON speaks Botzone's
	// JSON interaction instead of the simple one. Botzone engines only.
	BotzoneKeepRunning bool `json:"botzone_keep_running,omitempty" yaml:"botzone_keep_running"`
	BotzoneJSON        bool `json:"botzone_json,omitempty" yaml:"botzone_json"`
}

// VerifySettings say how the champion is verified: the final check, the ladder's rungs,
// the checkpoints during the run and stopping once proven. Config embeds it; validate checks
// what concerns it alone (the rungs need the engine's protocol: checkLadder).
type VerifySettings struct {
	// VerifyGames is the size of the final verification match of the champion against the
	// baseline on held-out openings (0 = none; default DefaultVerifyGames); it stops early
	// when its SPRT decides.
	VerifyGames int `json:"verify_games" yaml:"verify_games"`
	// VerifyOpenings is "random" (the held-out half of the opening space), "builtin" or an
	// opening file ("" = random); openings used in tuning are always excluded.
	VerifyOpenings string `json:"verify_openings" yaml:"verify_openings"`
	// VerifyOpeningList holds the openings of a VerifyOpenings file, read by
	// ReadVerifyOpenings when the run starts and stored with it: resume and verify never
	// open a path found in a database (someone else may have written it).
	VerifyOpeningList arena.Openings `json:"verify_opening_list,omitempty" yaml:"-"`
	// VerifyDepth, if > 0, repeats the final verification at this search depth (users play
	// at longer time controls than they tune at).
	VerifyDepth int `json:"verify_depth" yaml:"verify_depth"`
	// VerifyDepthGames is the length of the verification at VerifyDepth (0 = VerifyGames).
	VerifyDepthGames int `json:"verify_depth_games,omitempty" yaml:"verify_depth_games"`
	// VerifyNodes, VerifyTC and VerifyMoveTime, when set, are further rungs of the
	// verification ladder (Rungs): the champion against the baseline at this node count
	// per move (UCI's go nodes; the built-in engines' node limit), under this chess clock
	// (engine.ParseTimeControl's "60+0.6"; UCI, Gomocup and the built-in engines) and at
	// this many seconds per move (every engine).
	VerifyNodes    int64   `json:"verify_nodes,omitempty" yaml:"verify_nodes"`
	VerifyTC       string  `json:"verify_tc,omitempty" yaml:"verify_tc"`
	VerifyMoveTime float64 `json:"verify_move_time,omitempty" yaml:"verify_move_time"`
	// VerifyOpponents are the ladder's opponent rungs, "cmd:PATH ARGS" each: the champion
	// and the baseline each play every one on the same held-out openings, and the rung is
	// the champion's Elo gain against it. VerifyOpponentOptions ("NAME=VALUE") are given to
	// every one of them.
	VerifyOpponents       []string `json:"verify_opponents,omitempty" yaml:"verify_opponents"`
	VerifyOpponentOptions []string `json:"verify_opponent_options,omitempty" yaml:"verify_opponent_options"`
	// VerifyRungGames is the length of each rung after the first (0 = VerifyDepthGames,
	// then VerifyGames).
	VerifyRungGames int `json:"verify_rung_games,omitempty" yaml:"verify_rung_games"`
	// VerifyEvery, if > 0, plays a held-out check of the champion against the paper's
	// weights (VerifyGames games, no SPRT) every VerifyEvery generations (SPSA: steps, the
	// champion θ after the step) and stores it with the generation: verified Elo against
	// wall time.
	VerifyEvery int `json:"verify_every" yaml:"verify_every"`
	// StopWhenProven, if > 0, ends the run early (then verifies it) once a checkpoint
	// (VerifyEvery) accepts by its SPRT (stats.DefaultSPRT) that the champion beats the
	// baseline and the last StopWhenProven checkpoints are no better than the best before
	// them (Plateau): proven, and no longer improving. Checkpoints then stop early when their
	// SPRT decides.
	StopWhenProven int `json:"stop_when_proven,omitempty" yaml:"stop_when_proven"`
}

// Config is a run's full configuration; it is stored with the run as JSON. YAML config
// files use the same keys. Its settings are grouped in sections by what they concern
// (RunSettings, GASettings, PlaySettings, SubjectSettings, VerifySettings; SPSA's and
// CMA-ES's parameters in their own structs); the sections are embedded, so a setting is
// read as cfg.Depth and stored under its key at the top level, as runs stored before the
// sections did.
type Config struct {
	RunSettings     `yaml:",inline"`
	GASettings      `yaml:",inline"`
	PlaySettings    `yaml:",inline"`
	SubjectSettings `yaml:",inline"`
	VerifySettings  `yaml:",inline"`
	// SPSA holds the SPSA method's parameters (nil: DefaultSPSA).
	SPSA *SPSAConfig `json:"spsa,omitempty" yaml:"spsa"`
	// CMAES holds the CMA-ES method's parameters (nil: DefaultCMAES).
	CMAES *CMAESConfig `json:"cmaes,omitempty" yaml:"cmaes"`
	// Steady holds the steady-state GA's parameters (nil: DefaultSteadyWindow).
	Steady *SteadyConfig `json:"steady,omitempty" yaml:"steady"`
	// file and fileKeys are the config file ParseConfig read and its top-level keys with
	// their lines (CheckMethodKeys); never stored.
	file     string
	fileKeys map[string]int
}

// Extension is one change of a run on resume: from generation FromGeneration on (SPSA:
// step), after Games distinct tuning games, the run's budget became Budget (Before holds
// the one it replaced); the genes of Fix were frozen at the values in Held (the champion's)
// and those of Free thawed; At is when (RFC 3339).
type Extension struct {
	FromGeneration int                `json:"from_generation"`
	Games          int                `json:"games"`
	Budget         Budget             `json:"budget"`
	Before         Budget             `json:"before"`
	Fix            []string           `json:"fix,omitempty"`
	Held           map[string]float64 `json:"held,omitempty"`
	Free           []string           `json:"free,omitempty"`
	At             string             `json:"at"`
}

// Budget is how long a run plays: a game budget, a time budget ("8h") and generations (0:
// until a budget).
type Budget struct {
	BudgetGames int    `json:"budget_games"`
	TimeBudget  string `json:"time_budget,omitempty"`
	Generations int    `json:"generations"`
}

// BudgetAt is the budget generation gen was played under: the run's current one, or, for
// a generation before an extension, the one that extension replaced.
func (c Config) BudgetAt(gen int) Budget {
	b := Budget{BudgetGames: c.BudgetGames, TimeBudget: c.TimeBudget, Generations: c.Generations}
	for i := len(c.Extensions) - 1; i >= 0; i-- {
		if gen < c.Extensions[i].FromGeneration {
			b = c.Extensions[i].Before
		}
	}
	return b
}

// MaxBudgetGames bounds Config.BudgetGames.
const MaxBudgetGames = 1_000_000_000

// MaxNodes bounds Config.Nodes.
const MaxNodes = 1_000_000_000_000

// checkEngineLimits checks EngineOptions, Nodes and TC for an outside engine speaking
// protocol p: nodes and a clock are UCI's go; options need a protocol that carries them.
func (c *Config) checkEngineLimits(p string) error {
	if c.Nodes < 0 || c.Nodes > MaxNodes {
		return Errorf("nodes", "", "%d, want 0 (none) to %d", c.Nodes, int64(MaxNodes))
	}
	if c.EngineDepth < 0 || c.EngineDepth > MaxEngineDepth {
		return Errorf("engine_depth", "", "%d, want 0 (none) to %d", c.EngineDepth, MaxEngineDepth)
	}
	if (c.Nodes != 0 || c.TC != "" || c.EngineDepth != 0) && p != protocol.UCI {
		return fmt.Errorf("nodes, tc, engine_depth: the engine speaks %s; node and depth limits and chess clocks are UCI's (go nodes, go depth, go wtime …)", p)
	}
	if c.TC != "" {
		if _, err := engine.ParseTimeControl(c.TC); err != nil {
			return Errorf("tc", "", "%w", err)
		}
	}
	if _, err := c.FixedEngineOptions(); err != nil {
		return err
	}
	if e, err := genomes.Lookup(c.Game); err == nil && len(c.EngineOptions) > 0 && !slices.Contains(protocol.OptionsProtocols(e.Game), p) {
		return Errorf("engine_options", "", "the engine speaks %s, which carries no options", p)
	}
	return nil
}

// BaselineName is what a run of c's results are measured against: the paper's weights,
// or an outside engine's layout defaults.
func (c Config) BaselineName() string {
	if c.Engine != "" {
		return "the layout's defaults"
	}
	return "the paper's weights"
}

// MaxEngineDepth is the deepest go depth an outside engine is asked for (plies).
const MaxEngineDepth = 1000

// TakeEngineDepth makes an outside engine's depth (depth: --depth D, the word match and
// tournament use too) its go depth (EngineDepth), which engine_depth (the earlier
// --engine-depth) also sets; a built-in game's run is left as it is. A depth list is
// refused for an outside engine (it mixes the built-in engines' depths), as is a depth
// that contradicts engine_depth. The command line and compare call it on a new run's
// configuration; a stored run keeps what it played with.
func (c *Config) TakeEngineDepth() error {
	if c.Engine == "" && c.Layout == nil {
		return nil
	}
	switch {
	case len(c.Depths) > 0:
		return Errorf("depth", "", "%v: an outside engine searches to one depth (go depth D); a list of depths is the built-in engines'", c.Depths)
	case c.Depth == 0:
	case c.EngineDepth == 0 || c.EngineDepth == c.Depth:
		c.EngineDepth, c.Depth = c.Depth, 0
	default:
		return Errorf("depth", "", "%d, but engine_depth is %d: give the outside engine one depth", c.Depth, c.EngineDepth)
	}
	return nil
}

// FixedEngineOptions parses EngineOptions ("NAME=VALUE" each); the error names the entry.
func (c Config) FixedEngineOptions() ([]wire.Option, error) {
	var out []wire.Option
	for i, s := range c.EngineOptions {
		name, value, ok := strings.Cut(s, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" {
			return nil, Errorf("engine_options", fmt.Sprintf("engine_options[%d]", i), "%q, want NAME=VALUE (e.g. Hash=16)", s)
		}
		if err := wire.CheckLine(name, value); err != nil {
			return nil, Errorf("engine_options", fmt.Sprintf("engine_options[%d]", i), "%w", err)
		}
		out = append(out, wire.Option{Name: name, Value: value})
	}
	return out, nil
}

// Budget returns the parsed TimeBudget (0 = none).
func (c *Config) Budget() time.Duration {
	d, _ := time.ParseDuration(c.TimeBudget)
	return d
}

// DefaultVerifyGames is the default length of a verification match (`tune --verify-games`,
// `verify --games`): about ±19 Elo at 95% (a connect6 champion read +26.1 ± 19.1 in 1 000
// games, 12 s); 200 games left ±45, wider than most gains.
const DefaultVerifyGames = 1000

// DefaultConfig returns the defaults: the GA with peers (the default method since `evotune
// compare` measured it ahead of SPSA at equal games on every game's mean and worst seed:
// gomoku +61.2 (+52.9) against +57.2 (+50.7), connect6 +41.9 (+38.4) against +37.7
// (+36.8), amazons +159.9 (+142.7) against +132.3 (+120.5); docs/methods.md, "Choosing a method")
// over the game's DefaultBudgetGames, unless a time budget or generations are given
// (Resolve).
//
// GA, per generation (peers): 12 individuals in 3 random pairings, each pair playing 32
// games (DefaultGames; with a game budget, peersGames), 576 games, and a hall-of-fame
// test of the best when it is new (64 games each for it and the reigning champion against
// the paper's weights). With racing: 12 × 32 games against the reference set, 6 × 32 and
// 3 × 32 more. The reference set is the paper's weights alone (Champions 0): what
// verification measures, and it measured four times the gain that way than with recent
// champions as opponents.
func DefaultConfig(game string) Config {
	return Config{
		RunSettings: RunSettings{Game: game, Seed: 1, Method: MethodGA, Workers: runtime.NumCPU()},
		GASettings: GASettings{Population: 12, RaceRounds: 2, AdmitGames: 64, AdmitZ: 1.0, Elite: 2, Tournament: 3,
			CrossoverRate: 0.5, MutationRate: 0.8, Mutation: genomes.DefaultMutation,
			Init: "perturb", Champions: 0, Champion: ChampionAuto, Selection: SelectionAuto, Admission: AdmissionAuto,
			Surrogate: SurrogateAuto},
		VerifySettings: VerifySettings{VerifyGames: DefaultVerifyGames},
	}
}

// NewRunDefaults sets what a new run takes that runs stored before it was known did not,
// and whose zero therefore keeps its old meaning: SPSA's lag (SPSALagFor the run's planned
// steps), the steady-state GA's window (SteadyWindowFor its planned births) and CMA-ES's
// λ (CMAESLambdaFor its planned candidates and free genes), unless named (the command
// line named the method's --spsa-lag, --steady-window or --cmaes-lambda). Tune and
// compare call it for the runs they create, never for a stored configuration.
func (c *Config) NewRunDefaults(named bool) {
	if named {
		return
	}
	switch {
	case c.Method == MethodSPSA && (c.SPSA == nil || c.SPSA.Lag == 0):
		if c.SPSA == nil {
			c.SPSA = &SPSAConfig{}
		}
		c.SPSA.Lag = SPSALagFor(c.plannedSteps())
	case c.Method == MethodSteady && (c.Steady == nil || c.Steady.Window == 0):
		if c.Steady == nil {
			c.Steady = &SteadyConfig{}
		}
		c.Steady.Window = SteadyWindowFor(c.plannedBirths())
	case c.Method == MethodCMAES && (c.CMAES == nil || c.CMAES.Lambda == 0):
		l, err := c.GeneLayout()
		if err != nil {
			return // Validate names the layout's error; the optimiser's own λ stays
		}
		free := l.FreeCount()
		if lambda := CMAESLambdaFor(c.plannedCandidates(), free); lambda > cmaesDefaultLambda(free) {
			p := CMAESConfig{}
			if c.CMAES != nil {
				p = *c.CMAES // a copy: compare's runs share the base's section
			}
			p.Lambda = lambda
			c.CMAES = &p
		}
	}
}

// NewRunGALag sets the GA's lag (GALag) of a new run that names none (named: the command
// line's --ga-lag; or the config file the run was read from has ga_lag): 1, one
// generation in play behind the newest, for the GA of an outside engine whose
// generations play each other (selection auto or peers, no opponents or champions to
// race) and whose champion is the population's centre with no admission test (champion
// and admission auto, population or none): an outside engine's games take the time, and
// a generation barrier leaves the slots that finish early idle while the generation's
// slowest games end (docs/methods.md, "An outside engine's default: one generation in
// play"). Every other run keeps 0; a stored configuration never comes here, so a run
// stored with lag 0 (the field empty) resumes with lag 0.
func (c *Config) NewRunGALag(named bool) {
	_, inFile := c.fileKeys["ga_lag"]
	switch {
	case named || inFile || c.GALag != 0 || !c.IsGA() || c.Engine == "":
	case c.Selection != SelectionAuto && c.Selection != SelectionPeers:
	case len(c.Opponents) > 0 || c.Champions > 0:
	case c.Champion != ChampionAuto && c.Champion != ChampionPopulation:
	case c.Admission != AdmissionAuto && c.Admission != AdmissionNone:
	default:
		c.GALag = 1
	}
}

// plannedCandidates is the number of CMA-ES candidates a new run plans before it starts:
// its game budget (as Resolve fills it: length) over a candidate's games (2 × pairs); 0
// where the run gives generations or a time budget instead (its λ keeps the optimiser's
// default).
func (c Config) plannedCandidates() int {
	budget, generations := c.length()
	if budget <= 0 || generations > 0 {
		return 0
	}
	return budget / (2 * c.CMAESParams().Pairs)
}

// plannedBirths is the number of steady-state births a new run plans before it starts:
// its game budget (as Resolve fills it: length) over a birth's games (the child's and its
// rival's Games each), or its generations of Population births, the fewer where it gives
// both; 0 where neither is known (a time budget alone).
func (c Config) plannedBirths() int {
	budget, generations := c.length()
	games := c.Games
	if games == 0 {
		games = DefaultGames
	}
	births := 0
	if budget > 0 {
		births = budget / (2 * games)
	}
	if g := (generations + 1) * c.Population; generations > 0 && (births == 0 || g < births) {
		births = g
	}
	return births
}

// plannedSteps is the number of SPSA steps a new run plans before it starts: its
// generations, or its game budget (as Resolve fills them: length) over the games of a step
// (2 × pairs), the fewer of the two where it gives both; 0 where neither is known (a time
// budget alone, an outside engine's run that names none).
func (c Config) plannedSteps() int {
	budget, generations := c.length()
	steps := 0
	if budget > 0 {
		steps = budget / (2 * c.SPSAParams().Pairs)
	}
	if generations > 0 && (steps == 0 || generations < steps) {
		steps = generations
	}
	return steps
}

// length is the run's game budget and generations as Resolve leaves them: the run's own,
// or where it names neither nor a time budget, a built-in game's DefaultBudgetGames, an
// outside engine's GA DefaultGAGenerations, and nothing for its SPSA or CMA-ES.
func (c Config) length() (budget, generations int) {
	if c.Generations != 0 || c.BudgetGames != 0 || c.TimeBudget != "" {
		return c.BudgetGames, c.Generations
	}
	switch {
	case c.Engine == "":
		return DefaultBudgetGames(c.Game), 0
	case c.IsGA() || c.Method == MethodSteady:
		return 0, DefaultGAGenerations
	}
	return 0, 0
}

// DefaultGAGenerations is the GA's number of generations when a run of an outside engine
// (whose speed is unknown) gives no generations and no budget.
const DefaultGAGenerations = 5

// DefaultBudgetGames returns the budget of distinct tuning games for a run of game that
// gives no generations and no budget: the budgets at which `evotune compare` measured the methods
// (gomoku 44 000, about 2½ minutes on two cores; connect6 20 000, about 5 minutes; amazons
// 4 000, about 6 minutes), 0 for an unknown game.
func DefaultBudgetGames(game string) int {
	e, err := genomes.Lookup(game)
	if err != nil {
		return 0
	}
	return e.BudgetGames
}

// Resolve fills what the method decides when the run gives neither generations nor a
// budget (Generations 0, BudgetGames 0, TimeBudget ""): a built-in game's run plays
// DefaultBudgetGames games. An outside engine's speed is unknown: its GA run plays
// DefaultGAGenerations generations, its SPSA or CMA-ES run keeps no default budget
// (Validate then asks for one). Games 0 becomes
// DefaultGames, or peersGames for a GA with SelectionPeers and a game budget. The GA's
// auto settings are decided: Selection, Champion and Admission. Idempotent; a stored
// configuration is always resolved.
func (c *Config) Resolve() {
	c.BudgetGames, c.Generations = c.length()
	switch {
	case !c.IsGA():
		c.Selection = "" // the GA's alone
	case c.Selection == SelectionAuto && (len(c.Opponents) > 0 || c.Champions > 0):
		c.Selection = SelectionRace
	case c.Selection == SelectionAuto:
		c.Selection = SelectionPeers
	}
	// An outside engine starts wherever its author's values are, often far from its
	// optimum, where the population moves every generation and a hall of fame only when a
	// winner proves itself; the papers' weights start near theirs, where the hall of fame's
	// centre measured best (docs/methods.md), except with generations in play (GALag), whose
	// lagged tests picked weaker champions than the population's centre.
	if c.Champion == ChampionAuto {
		c.Champion = ChampionCentre
		if c.Engine != "" || (c.IsGA() && c.GALag > 0) {
			c.Champion = ChampionPopulation
		}
	}
	// The surrogate model measured stronger on a detuned outside engine's population, whose
	// genes start far from their optimum (docs/methods.md); near the papers' weights the
	// GA's default was measured without it.
	if c.Surrogate == SurrogateAuto {
		c.Surrogate = SurrogateOff
		if c.IsGA() && c.Engine != "" && c.Selection == SelectionPeers && c.Champion == ChampionPopulation {
			c.Surrogate = SurrogateOn
		}
	}
	if c.Admission == AdmissionAuto {
		switch {
		case (c.Engine != "" || (c.IsGA() && c.GALag > 0)) && c.Champion == ChampionPopulation:
			c.Admission = AdmissionNone
		case c.Engine != "":
			c.Admission = AdmissionHeadToHead
		default:
			c.Admission = AdmissionPaired
		}
	}
	if c.Admission == AdmissionNone {
		c.AdmitGames = 0
	}
	if c.Games == 0 {
		c.Games = DefaultGames
		if c.IsGA() && c.Selection == SelectionPeers && c.BudgetGames > 0 {
			c.Games = PeersGames(c.BudgetGames, c.Population, c.RaceRounds, c.AdmitGames)
		}
	}
}

// DefaultGames is the games of a racing round when a run gives none.
const DefaultGames = 32

// PeersGenerations is how many generations a GA with peers and a game budget is sized to
// play when the run gives no games: a GA moves by selecting and recombining, generation
// after generation, and too few generations leave it near its start. Measured on amazons
// at 4 000 games (evotune compare, seeds 1–3, 4 000 held-out games each): 32 games a pair,
// 6 generations, +135.6 / +107.5 / +110.2 Elo; 6 games a pair (peersGames), 23
// generations, +155.3 / +181.7 / +142.7 (SPSA: +120.5 / +127.2 / +149.3).
const PeersGenerations = 20

// PeersGames is the games of each pair in a peers pairing that let a budget of budget
// distinct games hold PeersGenerations generations of pop individuals in rounds+1
// pairings and a hall-of-fame test of admit games each: even, at least 2, at most
// DefaultGames (gomoku's 44 000 and connect6's 20 000 keep 32; amazons' 4 000 gets 6).
func PeersGames(budget, pop, rounds, admit int) int {
	perGame := (rounds + 1) * (pop / 2) // games of a generation per game of a pair
	if perGame <= 0 {
		return DefaultGames
	}
	g := (budget/PeersGenerations - admit) / perGame
	return min(max(g-g%2, 2), DefaultGames)
}

// MaxStoredOpenings bounds the openings a run stores from a verification opening file.
const MaxStoredOpenings = 100000

// verifyOpeningsFile reports whether VerifyOpenings names a file.
func (c *Config) verifyOpeningsFile() bool {
	switch c.VerifyOpenings {
	case "", "random", "builtin", "none":
		return false
	}
	return true
}

// ReadBook reads the Book file, if one is named, into BookList (as ReadVerifyOpenings: for
// a run the user starts, never for a configuration read from a database). Errors name the
// file and line.
func (c *Config) ReadBook() error {
	if c.Book == "" {
		c.BookList = nil
		return nil
	}
	e, err := genomes.Lookup(c.Game)
	if err != nil {
		return Errorf("game", "", "%w", err)
	}
	g, err := engine.WithRule(e.Game, c.Rule)
	if err != nil {
		return Errorf("rule", "", "%w", err)
	}
	plies := c.BookPlies
	if plies == 0 {
		plies = DefaultBookPlies
	}
	list, err := arena.ReadBook(c.Book, g, c.Board, plies)
	if err != nil {
		return Errorf("book", "", "%w", err)
	}
	c.BookList = list
	return nil
}

// DefaultBookPlies is Config.BookPlies's default: the plies taken from each PGN game.
const DefaultBookPlies = 8

// Adjudication is the run's adjudication (Resign, Draw); the error names the setting.
func (c Config) Adjudication() (engine.Adjudication, error) {
	var a engine.Adjudication
	// ParseResign's and ParseDraw's errors start "resign …", "draw …": the keys' names.
	if c.Resign != "" {
		if err := a.ParseResign(c.Resign); err != nil {
			return a, Errorf("resign", "", "%s", strings.TrimPrefix(err.Error(), "resign "))
		}
	}
	if c.Draw != "" {
		if err := a.ParseDraw(c.Draw); err != nil {
			return a, Errorf("draw", "", "%s", strings.TrimPrefix(err.Error(), "draw "))
		}
	}
	return a, nil
}

// ReadVerifyOpenings reads the VerifyOpenings file, if one is named, into
// VerifyOpeningList (the moves checked later by Validate). It is for a run the user starts
// or names the file for again, never for a configuration read from a database. Errors name
// the file and line.
func (c *Config) ReadVerifyOpenings() error {
	if !c.verifyOpeningsFile() {
		c.VerifyOpeningList = nil
		return nil
	}
	e, err := genomes.Lookup(c.Game)
	if err != nil {
		return Errorf("game", "", "%w", err)
	}
	list, err := arena.LoadOpenings(c.VerifyOpenings, e.Game, c.Board)
	if err != nil {
		return Errorf("verify_openings", "", "%w", err)
	}
	c.VerifyOpeningList = list
	return nil
}

// MaxNameLength is the longest run name accepted, in characters.
const MaxNameLength = 100

// checkName refuses run names that are too long or hold characters a terminal would act
// on (control, format and bidirectional characters, separators, invalid UTF-8).
func checkName(name string) error {
	if !utf8.ValidString(name) {
		return fmt.Errorf("name %q: not valid UTF-8", name)
	}
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		return Errorf("name", "", "%d characters, want at most %d", n, MaxNameLength)
	}
	for i, r := range name {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.In(r, unicode.Zl, unicode.Zp) {
			return fmt.Errorf("name %q: character %U at byte %d is a control or format character", name, r, i)
		}
	}
	return nil
}

// Validate checks every field; the error names the field and the wrong value. Each
// section checks its own values first (RunSettings, GASettings, VerifySettings,
// PlaySettings, SubjectSettings: validate), then the method's parameters, then what spans sections (the
// rule and board of the game, the outside engine, the ladder, the book, the openings, the
// free and fixed genes). It reads nothing outside the configuration: whether its outside
// programs can be started here is CheckPrograms' question (Check asks both).
func (c *Config) Validate() error {
	for _, v := range []interface{ validate() error }{&c.RunSettings, &c.GASettings, &c.VerifySettings, &c.PlaySettings, &c.SubjectSettings} {
		if err := v.validate(); err != nil {
			return err
		}
	}
	if m, ok := LookupMethod(c.Method); ok && m.Check != nil {
		if err := m.Check(*c); err != nil {
			return err
		}
	}
	if c.Method == MethodSteady && c.BudgetGames > 0 {
		games := c.Games
		if games == 0 {
			games = DefaultGames
		}
		if first := c.Population * games; c.BudgetGames < first {
			return Errorf("budget_games", "", "%d: the steady-state GA's first population alone plays %d games (population %d × games %d); give at least that, or a smaller population or games", c.BudgetGames, first, c.Population, games)
		}
	}
	if !c.IsGA() && len(c.Opponents) > 0 {
		return fmt.Errorf("method %s: opponents: its candidates play each other or its mean only; external opponents belong to the GA's reference set (--method ga)", c.Method)
	}
	e, _ := genomes.Lookup(c.Game)
	if g, err := engine.WithRule(e.Game, c.Rule); err != nil {
		return Errorf("rule", "", "%w", err)
	} else if _, err := g.NewBoard(c.Board); err != nil {
		return Errorf("board", "", "%w", err)
	}
	layout := e.Layout
	switch {
	case c.Layout != nil:
		if c.Layout.Game != c.Game || c.Layout.Rule != c.Rule || c.Layout.Board != c.Board {
			return Errorf("layout", "", "game %s, rule %q, board %d; the run says game %s, rule %q, board %d",
				c.Layout.Game, c.Layout.Rule, c.Layout.Board, c.Game, c.Rule, c.Board)
		}
		if c.Engine == "" {
			return Errorf("engine", "", "a layout needs the engine it describes (--engine 'cmd:PROG ARGS')")
		}
		if err := protocol.CheckProtocol(e.Game, c.EngineProtocol); err != nil {
			return Errorf("engine_protocol", "", "%w", err)
		}
		spec := protocol.ExternalSpec{Protocol: c.EngineProtocol}
		if !spec.AcceptsOpenings(e.Game) {
			return Errorf("engine_protocol", "", "%s engines speak %s here, which cannot start them from an opening, so every game would start from the empty board and deterministic engines would replay one game: tune them over %s (--engine-protocol)",
				c.Game, spec.ProtocolFor(e.Game), strings.Join(protocol.OpeningProtocols(e.Game), " or "))
		}
		if (c.BotzoneKeepRunning || c.BotzoneJSON) && spec.ProtocolFor(e.Game) != protocol.Botzone {
			return fmt.Errorf("botzone_keep_running, botzone_json: the engine speaks %s, not Botzone", spec.ProtocolFor(e.Game))
		}
		if err := c.checkEngineLimits(spec.ProtocolFor(e.Game)); err != nil {
			return err
		}
		layout = c.Layout.Layout()
	}
	proto := ""
	if c.Layout != nil {
		proto = (protocol.ExternalSpec{Protocol: c.EngineProtocol}).ProtocolFor(e.Game)
	}
	if err := c.checkLadder(proto); err != nil {
		return err
	}
	if _, err := c.Adjudication(); err != nil {
		return err
	}
	switch {
	case c.Book == "" && len(c.BookList) > 0:
		return Errorf("book_list", "", "%d openings, but no book names them", len(c.BookList))
	case c.Book != "" && len(c.BookList) == 0:
		return Errorf("book", "", "%q: its openings are not stored with the run (name the file again when you start it)", c.Book)
	case len(c.BookList) > MaxStoredOpenings:
		return Errorf("book", "", "%d openings, want at most %d", len(c.BookList), MaxStoredOpenings)
	}
	if len(c.BookList) > 0 {
		halves := [2]int{}
		for i, o := range c.BookList {
			if err := arena.CheckOpening(e.Game, c.Board, o); err != nil {
				return Errorf("book_list", fmt.Sprintf("book_list[%d]", i), "%w", err)
			}
			if arena.HalfOf(o) == arena.TuningHalf {
				halves[0]++
			} else {
				halves[1]++
			}
		}
		if halves[0] == 0 || halves[1] == 0 {
			return fmt.Errorf("book %s: %d openings for tuning and %d held out for verification: a book needs both halves (more openings)", c.Book, halves[0], halves[1])
		}
		if m, ok := MethodOf(c.Method); ok && c.Games > 0 {
			tuning := arena.DistinctInHalf(c.BookList, arena.TuningHalf)
			if need := m.Openings(*c); tuning < need {
				return fmt.Errorf("book %s: %d distinct openings in the tuning half, and each %s of a %s run draws up to %d distinct ones: give a larger book (or fewer --games, --admit-games or pairs)", c.Book, tuning, m.Generation, m.Title, need)
			}
		}
	}
	if !c.verifyOpeningsFile() {
		if len(c.VerifyOpeningList) > 0 {
			return Errorf("verify_opening_list", "", "%d openings, but verify_openings is %q, not a file", len(c.VerifyOpeningList), c.VerifyOpenings)
		}
	} else {
		if len(c.VerifyOpeningList) == 0 {
			return Errorf("verify_openings", "", "%q is a file whose openings are not stored with the run (a database from an older evotune, or someone else's): evotune does not open a path found in a database; name the file again (resume --verify-openings FILE)", c.VerifyOpenings)
		}
		if len(c.VerifyOpeningList) > MaxStoredOpenings {
			return Errorf("verify_opening_list", "", "%d openings, want at most %d", len(c.VerifyOpeningList), MaxStoredOpenings)
		}
		for i, o := range c.VerifyOpeningList {
			if err := arena.CheckOpening(e.Game, c.Board, o); err != nil {
				return Errorf("verify_opening_list", fmt.Sprintf("verify_opening_list[%d]", i), "%w", err)
			}
		}
	}
	if _, err := layout.Free(c.Free...); err != nil {
		return Errorf("free", "", "%w", err)
	}
	l, err := layout.Fix(c.Fix...)
	if err != nil {
		return Errorf("fix", "", "%w", err)
	}
	if l, _ = l.WithFixed(c.Free, c.Fix); l.FreeCount() == 0 {
		return Errorf("fix", "", "every gene is fixed; nothing to tune")
	}
	if len(c.Hold) > 0 {
		if l, err = l.Hold(c.Hold); err != nil {
			return Errorf("hold", "", "%w", err)
		}
		if l.FreeCount() == 0 {
			return Errorf("hold", "", "every gene is fixed or held; nothing to tune")
		}
	}
	if c.Engine != "" {
		if SubjectCheck != nil {
			if err := SubjectCheck(*c, l); err != nil {
				return err
			}
		}
	}
	if !c.IsGA() && c.Generations == 0 && c.BudgetGames == 0 && c.TimeBudget == "" {
		return fmt.Errorf("method %s: needs budget_games (--budget-games), time_budget (--time-budget) or generations: SPSA's gains are scheduled over a known number of game pairs (fishtest's num_iter), CMA-ES has no end of its own, and an outside engine's speed is unknown", c.Method)
	}
	return nil
}

// CheckPrograms checks what Validate leaves to this machine: that every outside program
// the configuration names — the engine under tuning (engine), each opponent (opponents)
// and each verification opponent (verify_opponents) — can be started here
// (protocol.CheckProgram: found at its path, on PATH, or with the hint of Debian's
// /usr/games). The error names the field as Validate's do; a command line Validate refuses
// is left to it.
func (c *Config) CheckPrograms() error {
	for _, f := range []struct {
		key  string
		cmds []string
	}{{"engine", []string{c.Engine}}, {"opponents", c.Opponents}, {"verify_opponents", c.VerifyOpponents}} {
		for _, cmd := range f.cmds {
			argv, ok, err := protocol.ParseCommand(cmd)
			if !ok || err != nil || len(argv) == 0 {
				continue
			}
			if err := protocol.CheckProgram(argv); err != nil {
				return Errorf(f.key, "", "%w", err)
			}
		}
	}
	return nil
}

// Check is Validate, then CheckPrograms: a configuration a run can start with on this
// machine. Validate alone reads nothing outside the configuration.
func (c *Config) Check() error {
	if err := c.Validate(); err != nil {
		return err
	}
	return c.CheckPrograms()
}

// validate checks the run's own settings: a known game and method, the name, the budget
// (generations, games, time) and the workers.
func (r *RunSettings) validate() error {
	if _, err := genomes.Lookup(r.Game); err != nil {
		return Errorf("game", "", "%w", err)
	}
	if err := checkName(r.Name); err != nil {
		return err
	}
	isGA := r.Method == "" || r.Method == MethodGA
	_, known := LookupMethod(r.Method)
	switch {
	case r.Generations < 0 || (r.Generations == 0 && r.TimeBudget == "" && r.BudgetGames == 0 && isGA):
		return Errorf("generations", "", "%d, want at least 1 (0 only with time_budget or budget_games)", r.Generations)
	case r.BudgetGames < 0:
		return Errorf("budget_games", "", "%d is negative", r.BudgetGames)
	case r.BudgetGames > MaxBudgetGames:
		return Errorf("budget_games", "", "%d, at most %d (a billion games: years on any machine)", r.BudgetGames, MaxBudgetGames)
	case r.Method != "" && !known:
		return Errorf("method", "", "%q, want one of %s", r.Method, MethodNames())
	case r.Workers < 1:
		return Errorf("workers", "", "%d, want at least 1", r.Workers)
	}
	if r.TimeBudget != "" {
		if d, err := time.ParseDuration(r.TimeBudget); err != nil || d <= 0 {
			return Errorf("time_budget", "", "%q, want a positive duration like 30m or 8h", r.TimeBudget)
		}
	}
	return nil
}

// validate checks the GA's settings (checked whatever the method: the steady-state GA
// shares most, and another method's run stores the defaults): the population, games and
// racing, selection, the hall of fame, the operators and the external opponents' command
// lines.
func (g *GASettings) validate() error {
	switch {
	case g.Population < 2:
		return Errorf("population", "", "%d, want at least 2", g.Population)
	case g.Population > 10000:
		return Errorf("population", "", "%d, want at most 10000", g.Population)
	case g.Games < 0 || g.Games%2 != 0:
		return Errorf("games", "", "%d, want a positive even number (each opening is played twice, colours swapped), or 0 for the default", g.Games)
	case g.RaceRounds < 0 || g.RaceRounds > 10:
		return Errorf("race_rounds", "", "%d, want 0 to 10", g.RaceRounds)
	case g.Selection != "" && g.Selection != SelectionRace && g.Selection != SelectionPeers && g.Selection != SelectionAuto:
		return Errorf("selection", "", "%q, want %s, %s or %s", g.Selection, SelectionAuto, SelectionPeers, SelectionRace)
	case g.Selection == SelectionPeers && g.Champions > 0:
		return Errorf("champions", "", "%d: with selection %s the individuals play each other, not the reference set", g.Champions, SelectionPeers)
	case g.Surrogate != "" && g.Surrogate != SurrogateAuto && g.Surrogate != SurrogateOn && g.Surrogate != SurrogateOff:
		return Errorf("surrogate", "", "%q, want %s, %s or %s", g.Surrogate, SurrogateAuto, SurrogateOn, SurrogateOff)
	case g.Surrogate == SurrogateOn && g.Selection == SelectionRace:
		return Errorf("surrogate", "", "the surrogate model learns from the individuals' games against each other; selection %s plays none", SelectionRace)
	case g.GALag < 0 || g.GALag > MaxGALag:
		return Errorf("ga_lag", "", "%d, want 0 (each generation bred once the one before is played) to %d", g.GALag, MaxGALag)
	case g.GALag > 0 && g.Selection == SelectionRace:
		return Errorf("ga_lag", "", "%d: generations in play need selection %s (a race plays the hall of fame the generation before admits)", g.GALag, SelectionPeers)
	case g.Selection == SelectionPeers && len(g.Opponents) > 0:
		return Errorf("selection", "", "%s plays the population against itself; the opponents (%s) would not play", SelectionPeers, strings.Join(g.Opponents, "; "))
	case g.Champion != "" && g.Champion != ChampionAuto && g.Champion != ChampionBest && g.Champion != ChampionCentre && g.Champion != ChampionPopulation:
		return Errorf("champion", "", "%q, want %s, %s, %s or %s", g.Champion, ChampionAuto, ChampionPopulation, ChampionCentre, ChampionBest)
	case g.Admission != "" && g.Admission != AdmissionAuto && g.Admission != AdmissionHeadToHead && g.Admission != AdmissionPaired && g.Admission != AdmissionNone:
		return Errorf("admission", "", "%q, want %s, %s, %s or %s", g.Admission, AdmissionAuto, AdmissionHeadToHead, AdmissionPaired, AdmissionNone)
	case g.AdmitGames < 0 || g.AdmitGames%2 != 0:
		return Errorf("admit_games", "", "%d, want 0 or a positive even number", g.AdmitGames)
	case !(g.AdmitZ >= 0 && g.AdmitZ <= 10):
		return Errorf("admit_z", "", "%g, want 0 to 10", g.AdmitZ)
	case g.Elite < 0 || g.Elite >= g.Population:
		return Errorf("elite", "", "%d, want 0 to population-1 (%d)", g.Elite, g.Population-1)
	case g.Tournament < 1:
		return Errorf("tournament", "", "%d, want at least 1", g.Tournament)
	case !(g.CrossoverRate >= 0 && g.CrossoverRate <= 1):
		return Errorf("crossover_rate", "", "%g, want 0–1", g.CrossoverRate)
	case !(g.MutationRate >= 0 && g.MutationRate <= 1):
		return Errorf("mutation_rate", "", "%g, want 0–1", g.MutationRate)
	case !(g.Mutation.GeneRate > 0 && g.Mutation.GeneRate <= 1):
		return Errorf("mutation.gene_rate", "", "%g, want (0, 1]", g.Mutation.GeneRate)
	case !(g.Mutation.LogSigma >= 0 && g.Mutation.LogSigma <= 10):
		return Errorf("mutation.log_sigma", "", "%g, want 0 to 10", g.Mutation.LogSigma)
	case !(g.Mutation.LinearSigma >= 0 && g.Mutation.LinearSigma <= 1):
		return Errorf("mutation.linear_sigma", "", "%g, want 0 to 1 (a fraction of the gene's range)", g.Mutation.LinearSigma)
	case g.OpponentMoveTime != 0 && !(g.OpponentMoveTime > 0 && g.OpponentMoveTime <= 3600):
		return Errorf("opponent_move_time", "", "%g, want seconds in (0, 3600]", g.OpponentMoveTime)
	case g.Init != "perturb" && g.Init != "random":
		return Errorf("init", "", "%q, want perturb or random", g.Init)
	case g.Champions < 0:
		return Errorf("champions", "", "%d is negative", g.Champions)
	}
	for _, o := range g.Opponents {
		argv, ok, err := protocol.ParseCommand(o)
		if !ok || err != nil || len(argv) == 0 {
			return Errorf("opponents", "", "%q: want cmd:PATH [ARGS]", o)
		}
	}
	return nil
}

// validate checks the verification's sizes and schedule; the ladder's rungs, which
// depend on the engine's protocol, are checked by checkLadder.
func (v *VerifySettings) validate() error {
	switch {
	case v.VerifyDepth < 0 || v.VerifyDepth > engine.MaxDepth:
		return Errorf("verify_depth", "", "%d, want 0 (none) to %d", v.VerifyDepth, engine.MaxDepth)
	case v.VerifyEvery < 0:
		return Errorf("verify_every", "", "%d is negative", v.VerifyEvery)
	case v.VerifyEvery > 0 && v.VerifyGames == 0:
		return Errorf("verify_every", "", "needs verify_games > 0 (the size of each check)")
	case v.StopWhenProven < 0 || v.StopWhenProven > 1000:
		return Errorf("stop_when_proven", "", "%d, want 0 (never) to 1000 checkpoints", v.StopWhenProven)
	case v.StopWhenProven > 0 && v.VerifyEvery == 0:
		return Errorf("stop_when_proven", "", "needs verify_every > 0 (the checkpoints that prove the champion)")
	case v.VerifyGames < 0 || v.VerifyGames%2 != 0:
		return Errorf("verify_games", "", "%d, want 0 or a positive even number", v.VerifyGames)
	case v.VerifyDepthGames < 0 || v.VerifyDepthGames%2 != 0:
		return Errorf("verify_depth_games", "", "%d, want 0 (verify_games) or a positive even number", v.VerifyDepthGames)
	}
	return nil
}

// validate checks what the outside engine's settings say without the game: its clocks,
// and that an engine comes with its layout and engine settings with an engine (the
// protocol, options and limits, which depend on the game, are checked by Config.Validate).
func (s *SubjectSettings) validate() error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"engine_move_time", s.EngineMoveTime}, {"startup_time", s.StartupTime}} {
		if v.x != 0 && !(v.x > 0 && v.x <= 3600) {
			return Errorf(v.name, "", "%g, want seconds in (0, 3600]", v.x)
		}
	}
	switch {
	case s.Layout == nil && s.Engine != "":
		return Errorf("engine", "", "needs a layout file describing its parameters (--layout FILE)")
	case s.Layout == nil && (s.EngineProtocol != "" || s.BotzoneKeepRunning || s.BotzoneJSON || len(s.EngineOptions) > 0 || s.Nodes != 0 || s.TC != "" || s.EngineDepth != 0):
		return errors.New("engine_protocol, botzone_keep_running, botzone_json, engine_options, nodes, tc, engine_depth: settings of the outside engine under tuning, and there is none (--layout FILE --engine 'cmd:PROG ARGS')")
	}
	return nil
}

// validate checks the search limits, the ply cap and the book's plies; the book's
// openings, which depend on the game, are checked by Config.Validate.
func (p *PlaySettings) validate() error {
	switch {
	case p.Depth < 0 || p.Depth > engine.MaxDepth:
		return Errorf("depth", "", "%d, want 0 (game default) to %d", p.Depth, engine.MaxDepth)
	case p.Width < 0:
		return Errorf("width", "", "%d, want 0 (game default) or more", p.Width)
	case p.MaxPlies < 0:
		return Errorf("max_plies", "", "%d is negative", p.MaxPlies)
	case p.BookPlies < 0 || p.BookPlies > 1000:
		return Errorf("book_plies", "", "%d, want 0 (the default, %d) to 1000", p.BookPlies, DefaultBookPlies)
	}
	for i, d := range p.Depths {
		if d < 1 || d > engine.MaxDepth {
			return Errorf("depths", fmt.Sprintf("depths[%d]", i), "%d, want 1 to %d", d, engine.MaxDepth)
		}
	}
	return nil
}

// LoadConfigFile reads a YAML config file over base (keys as in Config's yaml tags).
// Unknown keys and wrong types are errors naming the file, line and key.
func LoadConfigFile(path string, base Config) (Config, error) {
	data, err := engine.ReadInputFile(path, "config", engine.MaxConfigFileSize)
	if err != nil {
		return base, err
	}
	return ParseConfig(data, path, base)
}

// ParseConfig decodes YAML config data over base; name is used in error messages.
func ParseConfig(data []byte, name string, base Config) (Config, error) {
	c := base
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return base, fmt.Errorf("config %s: %w", name, err)
	}
	if err := checkWholeNumbers(&root, reflect.TypeOf(c), ""); err != nil {
		return base, fmt.Errorf("config %s: %w", name, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			return base, fmt.Errorf("config %s: %s", name, strings.Join(explainYAML(te.Errors), "; "))
		}
		return base, fmt.Errorf("config %s: %w", name, err)
	}
	c.file, c.fileKeys = name, map[string]int{}
	if len(root.Content) > 0 && root.Content[0].Kind == yaml.MappingNode {
		m := root.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			c.fileKeys[m.Content[i].Value] = m.Content[i].Line
		}
	}
	return c, nil
}

// unknownField matches yaml's "line 2: field populaton not found in type tuner.Config".
var unknownField = regexp.MustCompile(`^(line \d+): field (\S+) not found in type \S+$`)

// explainYAML rewrites the YAML decoder's messages in a config's terms: an unknown key is
// named as such, with the nearest known key of the whole config when one is close
// ("line 2: unknown key populaton (did you mean population?)"), never by its Go type.
func explainYAML(msgs []string) []string {
	var keys []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for _, f := range yamlFields(t) {
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			keys = append(keys, name)
			if ft := f.Type; ft.Kind() == reflect.Struct {
				walk(ft)
			} else if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
				walk(ft.Elem())
			}
		}
	}
	walk(reflect.TypeOf(Config{}))
	out := make([]string, len(msgs))
	for i, m := range msgs {
		sub := unknownField.FindStringSubmatch(m)
		if sub == nil {
			out[i] = m
			continue
		}
		out[i] = fmt.Sprintf("%s: unknown key %s", sub[1], sub[2])
		best, bestD := "", 3 // at most two edits away
		for _, k := range keys {
			if d := editDistance(sub[2], k); d < bestD {
				best, bestD = k, d
			}
		}
		if best != "" {
			out[i] += fmt.Sprintf(" (did you mean %s?)", best)
		}
	}
	return out
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// IsGA reports whether the run's method is the genetic algorithm ("" included: runs
// stored before SPSA became the default).
func (c Config) IsGA() bool { return c.Method == "" || c.Method == MethodGA }

func (c Config) knownMethod() bool {
	_, ok := LookupMethod(c.Method)
	return c.Method == "" || ok
}

// CheckMethodKeys refuses a config file (ParseConfig) that sets a key of another method
// (Settings' Methods; a method's own section, spsa: or cmaes:, belongs to that method),
// naming the file, the line and the key: the value would be ignored without a word.
func (c Config) CheckMethodKeys() error {
	for _, s := range Settings {
		line, ok := c.fileKeys[s.Key]
		if !ok || s.AppliesTo(c.Method) {
			continue
		}
		why := ""
		if slices.Equal(s.Methods, []string{MethodGA}) {
			why = ": it has no population, racing or hall of fame; add method: ga"
		}
		return fmt.Errorf("config %s: line %d: %s applies to method %s only (the run's method is %s%s)", c.file, line, s.Key, strings.Join(s.Methods, " or "), c.MethodText(), why)
	}
	for _, m := range methods {
		if line, ok := c.fileKeys[m.Name]; ok && c.Method != m.Name && !(m.Name == MethodGA && c.IsGA()) {
			return fmt.Errorf("config %s: line %d: %s applies to method %s only (the run's method is %s)", c.file, line, m.Name, m.Name, c.MethodText())
		}
	}
	return nil
}

// MethodText is the run's method as users read it in errors: its name, with ", the
// default" for the default method (Methods[0], also for a configuration that names none).
func (c Config) MethodText() string {
	name := c.Method
	if name == "" {
		name = MethodGA
	}
	if name == methods[0].Name {
		return name + ", the default"
	}
	return name
}

// checkWholeNumbers walks a YAML tree beside the Go type it decodes into and refuses a
// non-integer scalar where the field is an integer: yaml.v3 truncates "population: 4.5"
// to 4 without a word. Errors name the line and the key.
func checkWholeNumbers(n *yaml.Node, t reflect.Type, key string) error {
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			if err := checkWholeNumbers(c, t, key); err != nil {
				return err
			}
		}
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil // yaml.v3 reports the type mismatch itself
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if idx, ok := yamlField(t, k); ok {
				if err := checkWholeNumbers(n.Content[i+1], t.FieldByIndex(idx).Type, strings.TrimPrefix(key+"."+k, ".")); err != nil {
					return err
				}
			}
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for i, c := range n.Content {
				if err := checkWholeNumbers(c, t.Elem(), fmt.Sprintf("%s[%d]", key, i)); err != nil {
					return err
				}
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!int" {
			return fmt.Errorf("line %d: %s: %q is not a whole number", n.Line, key, n.Value)
		}
	}
	return nil
}

// SettingError is a configuration error of one setting: Key is its config key
// ("verify_games", "mutation.log_sigma"), Field the value's place when it is an element
// ("depths[2]"; "" for the setting itself). Error reads "field: message".
type SettingError struct {
	Key, Field string
	Err        error
}

func (e *SettingError) Error() string {
	f := e.Field
	if f == "" {
		f = e.Key
	}
	return f + ": " + e.Err.Error()
}

func (e *SettingError) Unwrap() error { return e.Err }

// Errorf is a *SettingError of key (field: an element's place, "" for the setting) with
// the message format and args (fmt.Errorf's: %w wraps).
func Errorf(key, field, format string, args ...any) error {
	return &SettingError{Key: key, Field: field, Err: fmt.Errorf(format, args...)}
}

// GeneLayout returns the run's gene layout as it was tuned: the layout file's genes
// (an outside engine) or the built-in engine's, with the genes the config freed or fixed.
// The error names an unknown game or gene.
func (c Config) GeneLayout() (*genomes.Layout, error) {
	p, err := c.Plan()
	if err != nil {
		return nil, err
	}
	return p.Layout, nil
}

// OpponentSpec is the external opponent argv (one of Config.Opponents, parsed) with the
// run's move time (OpponentMoveTime, seconds) and start-up allowance (StartupTime).
func (c Config) OpponentSpec(argv []string) *protocol.ExternalSpec {
	return &protocol.ExternalSpec{Argv: argv, MoveTime: time.Duration(c.OpponentMoveTime * float64(time.Second)),
		StartupTime: Seconds(c.StartupTime, DefaultStartupTime)}
}

// Seconds is s seconds as a duration, or def seconds when s is 0 or below.
func Seconds(s, def float64) time.Duration {
	if s <= 0 {
		s = def
	}
	return time.Duration(s * float64(time.Second))
}

// DefaultEngineMoveTime is an outside engine's time per move (seconds) when the config
// sets none: generous, because most users fix a depth through the engine's arguments.
const DefaultEngineMoveTime = 5.0

// DefaultStartupTime is an outside engine's start-up allowance (seconds), apart from its
// move clock: loading tables, allocating a hash table under load.
const DefaultStartupTime = 10.0

// EngineLimitsText says what bounds the searches of a run's outside engine ("nodes 300",
// "depth 6", "tc 10+0.1", else its move time); "" for a built-in engine's run.
func (c Config) EngineLimitsText() string {
	if c.Engine == "" {
		return ""
	}
	var parts []string
	if c.TC != "" {
		parts = append(parts, "tc "+c.TC)
	}
	if c.Nodes > 0 {
		parts = append(parts, fmt.Sprintf("nodes %d", c.Nodes))
	}
	if c.EngineDepth > 0 {
		parts = append(parts, fmt.Sprintf("depth %d", c.EngineDepth))
	}
	if len(parts) == 0 {
		mt := c.EngineMoveTime
		if mt <= 0 {
			mt = DefaultEngineMoveTime
		}
		return fmt.Sprintf("the engine's own limits (at most %gs a move)", mt)
	}
	return strings.Join(parts, " ")
}
