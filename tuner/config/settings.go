package config

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"evotune/engine/protocol"
	"evotune/genomes"
)

// Setting is one setting of a run, declared once: its config file key (Config's yaml tag;
// "spsa.pairs" inside a method's section), the tune flag that sets it ("" for keys only a
// config file sets), the methods it applies to (nil: every method) and its help. tune's
// flags and their help, the overlay of set flags on the config file, the refusal of a
// setting another method would ignore, and the flag an error names all come from
// Settings.
type Setting struct {
	Key     string
	Flag    string
	Methods []string
	// Unit is "seconds" for a float64 of seconds given as a duration ("5s", "1m"; a bare
	// number is seconds), "depths" for the depth list flag ("3" or "3,4,5": Depth or
	// Depths), "" otherwise (the flag takes the field's own type).
	Unit string
	// Renamed is the flag's earlier name ("" none): still accepted, hidden from --help, with
	// a note naming Flag, so that every command calls a concept by one name (match's
	// --depth and --move-time).
	Renamed string
	// Repeatable marks a list flag given once per value (--opponent A --opponent B), not
	// comma-separated.
	Repeatable bool
	Help       string
	// Group is the concern --help shows the flag under (one of Groups); a method's own
	// settings leave it empty and go to their method's group (by Methods, or the key's
	// "spsa." or "cmaes." prefix).
	Group string
}

// Groups are the concerns tune's --help groups its flags by, in the order shown.
var Groups = []string{
	"run",
	"budget",
	"games and genes",
	"method: the GA and the steady-state GA",
	"method: SPSA",
	"method: CMA-ES",
	"verification",
	"outside engine",
}

func init() {
	for i := range Settings {
		st := &Settings[i]
		switch {
		case st.Group != "":
		case strings.HasPrefix(st.Key, MethodSPSA+"."):
			st.Group = "method: SPSA"
		case strings.HasPrefix(st.Key, MethodCMAES+"."):
			st.Group = "method: CMA-ES"
		case st.Methods != nil:
			st.Group = "method: the GA and the steady-state GA"
		}
	}
}

var gaOnly = []string{MethodGA}

// gaFamily: the settings of a population bred by selection, crossover and mutation, the
// GA's and the steady-state GA's.
var gaFamily = []string{MethodGA, MethodSteady}

// Settings is every run setting with a tune flag or a config key, in --help's order.
var Settings = []Setting{
	{Key: "game", Group: "games and genes", Flag: "game"},
	{Key: "rule", Group: "games and genes", Flag: "rule", Help: "rule variant (gomoku: freestyle, standard or renju)"},
	{Key: "board", Group: "games and genes", Flag: "board", Help: "board side (0 = the game's default)"},
	{Key: "population", Flag: "pop", Methods: gaFamily, Help: "individuals per generation"},
	{Key: "generations", Group: "budget", Flag: "generations", Help: "generations (GA, CMA-ES) or steps (SPSA) after the initial one (default: GA 5; SPSA and CMA-ES run to their game budget; with --time-budget or --budget-games: until the budget)"},
	{Key: "time_budget", Group: "budget", Flag: "time-budget", Help: "stop at the first generation boundary after this wall time, e.g. 30m or 8h, then verify (SPSA: its game budget is measured from a calibration at the start)"},
	{Key: "games", Flag: "games", Methods: gaFamily, Help: "games per individual per racing round, or of each pair in a peers pairing, or (steady) of each birth and of its first parent against the paper's weights (even: openings × 2 colours); 0: 32, or with --selection peers and --budget-games, what lets the budget hold 20 generations (amazons' 4 000: 6)"},
	{Key: "race_rounds", Flag: "race-rounds", Methods: gaOnly, Help: "successive-halving rounds: the better half plays --games more, this many times"},
	{Key: "admit_games", Flag: "admit-games", Methods: gaOnly, Help: "games of the hall-of-fame test of each new race winner against the champion (0 = no hall of fame)"},
	{Key: "admit_z", Flag: "admit-z", Methods: gaOnly, Help: "standard errors above 1/2 a winner's head-to-head score needs; also the z of the champion's lower bound"},
	{Key: "admission", Flag: "admission", Methods: gaOnly, Help: "GA: the hall-of-fame test: head-to-head (the race winner plays the champion itself; with --champion best the champion also plays the paper's weights on its own openings), paired (the winner and the champion each play the paper's weights on the same openings, and the champion as many games more on its own), none (no test, no hall of fame: --admit-games 0) or auto (none for an outside engine whose --champion is population, head-to-head for another outside engine, paired for the built-in games; with --admit-games given, head-to-head for an outside engine)"},
	{Key: "champion", Flag: "champion", Methods: gaOnly, Help: "GA: the run's result: population (after every generation, the weighted centre of its better half by rank, the best weighing most; log genes in log space; with --ga-lag L the mean of the newest L+1 generations' centres), centre (once the hall of fame has two members, their weighted centre, the latest member weighing most), best (the hall-of-fame member with the best lower bound, once one is credibly above the paper's weights) or auto (population for an outside engine or with --ga-lag, centre for the built-in games: each measured best there)"},
	{Key: "selection", Flag: "selection", Methods: gaOnly, Help: "GA: how a generation is scored: peers (the individuals against each other, --race-rounds+1 random pairings of --games games a pair; measured stronger), race (every individual against the paper's weights and --opponent, successive halving) or auto (peers, or race with --opponent or --champions)"},
	{Key: "workers", Group: "run", Flag: "workers", Help: "games played at once (never changes results)"},
	{Key: "depth", Group: "games and genes", Flag: "depth", Renamed: "engine-depth", Unit: "depths", Help: "search depth of every game (default: the game's), or a list like 3,4,5: opening pair k at the k-th mod 3; an outside engine's go depth (UCI; one depth), for engines that ignore go nodes (Toga II, Fruit)"},
	{Key: "width", Group: "games and genes", Flag: "width", Help: "search width of every game (0 = the game's default)"},
	{Key: "seed", Group: "run", Flag: "seed", Help: "random seed: the same seed and config give the same run"},
	{Key: "name", Group: "run", Flag: "name", Help: "run name (default GAME-seedS)"},
	{Key: "elite", Flag: "elite", Methods: gaOnly, Help: "individuals carried unchanged into the next generation"},
	{Key: "surrogate", Flag: "surrogate", Methods: gaOnly, Help: "GA with peers: on (from the third generation on, with --ga-lag L from generation L+2, breed one child a generation from a quadratic Bradley–Terry model of the last 8 generations' games, CLOP's regression: the model's best genome within two mutation steps of the better half's centre), off, or auto (on for an outside engine whose --champion is population, off for the built-in games)"},
	{Key: "ga_lag", Flag: "ga-lag", Methods: gaOnly, Help: "GA: generations in play behind the newest (generation k+1 bred once generation k−lag is played, from generations k−2·lag to k−lag), so the game slots never wait for a generation's slowest game; needs peers; the auto champion is the population's centre with no admission test (an explicit --champion centre or best keeps a hall of fame, its tests lagged as the breeding); 0: each generation bred once the one before is played; left out: 1 for an outside engine whose champion is the population's centre, 0 otherwise"},
	{Key: "tournament", Methods: gaFamily},
	{Key: "mutation_rate", Flag: "mutation-rate", Methods: gaFamily, Help: "probability an offspring is mutated"},
	{Key: "crossover_rate", Flag: "crossover-rate", Methods: gaFamily, Help: "probability a selected pair is crossed over"},
	{Key: "mutation", Methods: gaFamily},
	{Key: "init", Flag: "init", Methods: gaFamily, Help: "initial population: perturb (around the paper's weights) or random"},
	{Key: "champions", Flag: "champions", Methods: gaOnly, Help: "latest hall-of-fame members in the reference set besides the paper's weights"},
	{Key: "max_plies", Group: "games and genes", Flag: "max-plies", Help: "adjudicate a game still going after this many plies as a draw (0 = 400)"},
	{Key: "free", Group: "games and genes", Flag: "free", Help: "fixed genes to tune anyway (connect6: value_6,threat_6; see 'evotune weights layout')"},
	{Key: "fix", Group: "games and genes", Flag: "fix", Help: "genes to hold at the paper's value (gomoku: k1 to tune the pattern scores alone)"},
	{Key: "opponents", Group: "games and genes", Flag: "opponent", Repeatable: true, Help: "add an external engine to the opponent pool: cmd:PATH ARGS (repeatable; makes the run timing-dependent)"},
	{Key: "opponent_move_time", Group: "games and genes", Flag: "opponent-move-time", Unit: "seconds", Help: "time per move of external opponents (5s; a bare number is seconds)"},
	{Key: "verify_games", Group: "verification", Flag: "verify-games", Help: "final verification games of the champion against the baseline on held-out openings (0 = none)"},
	{Key: "verify_openings", Group: "verification", Flag: "verify-openings", Help: "random (default: the held-out half of the opening space), builtin or an opening file for the verification"},
	{Key: "verify_depth", Group: "verification", Flag: "verify-depth", Help: "also verify the champion at this search depth (0 = only at the tuning depth)"},
	{Key: "verify_depth_games", Group: "verification", Flag: "verify-depth-games", Help: "games of the verification at --verify-depth (0 = --verify-games)"},
	{Key: "verify_nodes", Group: "verification", Flag: "verify-nodes", Help: "a ladder rung: also verify the champion at this many nodes per move (UCI go nodes; the built-in engines' node limit)"},
	{Key: "verify_tc", Group: "verification", Flag: "verify-tc", Help: "a ladder rung: also verify the champion under this chess clock, e.g. 60+0.6 (UCI, Gomocup and the built-in engines)"},
	{Key: "verify_move_time", Group: "verification", Flag: "verify-move-time", Unit: "seconds", Help: "a ladder rung: also verify the champion at this time per move (every engine; a bare number is seconds)"},
	{Key: "verify_opponents", Group: "verification", Flag: "verify-opponent", Repeatable: true, Help: "a ladder rung: the champion and the baseline each play this engine, cmd:PATH ARGS, on the same held-out openings; the rung is the champion's Elo gain against it (repeatable)"},
	{Key: "verify_opponent_options", Group: "verification", Flag: "verify-opponent-option", Repeatable: true, Help: "an option of every --verify-opponent, NAME=VALUE (UCI setoption, Gomocup INFO; repeatable): --verify-opponent-option 'Skill Level=3'"},
	{Key: "verify_rung_games", Group: "verification", Flag: "verify-rung-games", Help: "games of each ladder rung after the tuning condition (0 = --verify-depth-games, then --verify-games)"},
	{Key: "verify_every", Group: "verification", Flag: "verify-every", Help: "every N generations (SPSA: steps), a held-out check of the champion (verify-games games), stored with the generation"},
	{Key: "stop_when_proven", Group: "verification", Flag: "stop-when-proven", Help: "with --verify-every: end the run (then verify) once a check's SPRT accepts that the champion beats the baseline and the last K checks are no better than the best before them (K checks; 0 = never)"},
	{Key: "engine", Group: "outside engine", Flag: "engine", Help: "the outside engine under tuning, 'cmd:PROG ARGS': {weights} in ARGS becomes a file of the candidate's values, {NAME} one gene's value"},
	{Key: "weights_format", Group: "outside engine", Flag: "weights-format", Help: "format of the {weights} file: json (the default: flat {\"name\": value}), evotune (the built-in engines' weights file) or ini (name=value)"},
	{Key: "gomocup_info", Group: "outside engine", Flag: "gomocup-info", Help: "gomoku: send every gene as 'INFO NAME VALUE' after START (UCI engines always get setoption)"},
	{Key: "engine_options", Group: "outside engine", Flag: "engine-option", Repeatable: true, Help: "a fixed option of the outside engine for every seat, NAME=VALUE (UCI setoption, Gomocup INFO; repeatable): --engine-option Hash=16 --engine-option Threads=1"},
	{Key: "nodes", Group: "outside engine", Flag: "nodes", Help: "UCI outside engine: nodes per search (go nodes N; 0 = none): play independent of the machine's load"},
	{Key: "book", Group: "games and genes", Flag: "book", Help: "opening book the games start from instead of random openings (chess: EPD, PGN cut to --book-plies, or a Polyglot .bin's lines of --book-plies plies; other games: an opening file): tuning draws from one half of it, verification from the other"},
	{Key: "book_plies", Group: "games and genes", Flag: "book-plies", Help: "plies taken from each game of a PGN --book, or each line of a Polyglot .bin one (0 = 8)"},
	{Key: "resign", Group: "games and genes", Flag: "resign", Help: "adjudicate a loss from the engines' scores, fastchess's way: movecount=3,score=600 (outside engines that report scores)"},
	{Key: "draw", Group: "games and genes", Flag: "draw", Help: "adjudicate a draw from the engines' scores: movenumber=40,movecount=8,score=10"},
	{Key: "engine_depth", Group: "outside engine", Help: "UCI outside engine: depth per search (go depth D; 0 = none); a config file's earlier name of depth for an outside engine"},
	{Key: "tc", Group: "outside engine", Flag: "tc", Help: "UCI outside engine: a chess clock for every game, e.g. 10+0.1 or 40/60+0.6 (seconds + increment)"},
	{Key: "engine_protocol", Group: "outside engine", Flag: "engine-protocol"},
	{Key: "botzone_keep_running", Group: "outside engine", Flag: "botzone-keep-running", Help: "Botzone outside engine: keep its process between turns (Botzone's keep-running mode) instead of one process per move"},
	{Key: "botzone_json", Group: "outside engine", Flag: "botzone-json", Help: "Botzone outside engine: speak Botzone's JSON interaction instead of the simple one"},
	{Key: "engine_move_time", Group: "outside engine", Flag: "move-time", Renamed: "engine-move-time", Unit: "seconds", Help: "time per move of the outside engine (5s; a bare number is seconds; fix its depth with --depth or its nodes with --nodes for a deterministic run)"},
	{Key: "startup_time", Group: "outside engine", Flag: "startup-time", Unit: "seconds", Help: "time an outside engine (and each --opponent) may take to start and answer its handshake, apart from its move clock (10s; a bare number is seconds)"},
	{Key: "method", Group: "run", Flag: "method"},
	{Key: "budget_games", Group: "budget", Flag: "budget-games"},
	{Key: "spsa.pairs", Flag: "spsa-pairs", Methods: []string{MethodSPSA}, Help: "spsa: colour-swapped game pairs of θ+ against θ− per step"},
	{Key: "spsa.c_end", Flag: "spsa-c-end", Methods: []string{MethodSPSA}, Help: "spsa: perturbation c_k at the last step, in ln units for log genes (a fifth of the range for linear genes)"},
	{Key: "spsa.r_end", Flag: "spsa-r-end", Methods: []string{MethodSPSA}, Help: "spsa: learning rate a_k/c_k² at the last step"},
	{Key: "spsa.alpha", Flag: "spsa-alpha", Methods: []string{MethodSPSA}, Help: "spsa: exponent of a_k = a/(k+1+A)^alpha"},
	{Key: "spsa.gamma", Flag: "spsa-gamma", Methods: []string{MethodSPSA}, Help: "spsa: exponent of c_k = c/(k+1)^gamma"},
	{Key: "spsa.a_ratio", Flag: "spsa-a-ratio", Methods: []string{MethodSPSA}, Help: "spsa: A as a fraction of the run's game pairs"},
	{Key: "spsa.lag", Flag: "spsa-lag", Methods: []string{MethodSPSA}, Help: "spsa: steps in play behind the one being started (step k perturbs θ after step k−lag−1), so the game slots never wait for a step's last game; 0: each step waits for the one before (default for a new run: one per 16 steps it plans, 8 to 48)"},
	{Key: "cmaes.pairs", Flag: "cmaes-pairs", Methods: []string{MethodCMAES}, Help: "cmaes: colour-swapped game pairs of each candidate against the mean per generation"},
	{Key: "cmaes.sigma", Flag: "cmaes-sigma", Methods: []string{MethodCMAES}, Help: "cmaes: initial step size σ, in ln units for log genes (a fifth of the range for linear genes)"},
	{Key: "cmaes.lambda", Flag: "cmaes-lambda", Methods: []string{MethodCMAES}, Help: "cmaes: candidates per generation (default 4 + 3 ln n for n free genes, 4 times that where the game budget holds 60 such generations; 0: 4 + 3 ln n)"},
	{Key: "cmaes.lag", Flag: "cmaes-lag", Methods: []string{MethodCMAES}, Help: "cmaes: generations in play behind the one being asked (generation k samples around the mean generation k−lag−1 left), so the game slots never wait for a generation's last game; 0: each generation waits for the one before"},
	{Key: "steady.window", Flag: "steady-window", Methods: []string{MethodSteady}, Help: "steady: births in play at once (birth b is bred when birth b−window is decided), so the game slots never wait for a birth's last game (default for a new run: one per 16 births it plans, 4 to 32)"},
}

// LookupSetting returns the setting with config key key ("depths" is depth's list), or,
// failing that, flag key (or a flag's earlier name, Renamed).
func LookupSetting(key string) (Setting, bool) {
	for _, s := range Settings {
		if s.Key == key || (s.Unit == "depths" && key == "depths") {
			return s, true
		}
	}
	for _, s := range Settings {
		if s.Flag == key || (s.Renamed != "" && s.Renamed == key) {
			return s, true
		}
	}
	return Setting{}, false
}

// HelpText is the setting's help: Help, or for the settings whose help lists what the
// registries hold (games, methods, budgets), that list now.
func (s Setting) HelpText() string {
	switch s.Key {
	case "game":
		names := genomes.Names()
		if len(names) < 2 {
			return "game: " + strings.Join(names, "")
		}
		return "game: " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	case "method":
		var b strings.Builder
		b.WriteString("search method: ")
		for i, m := range methods {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%s (%s)", m.Name, m.Doc)
		}
		return b.String()
	case "budget_games":
		return "stop at the first generation (or SPSA step) boundary after this many distinct tuning games, then verify (without --generations: until the budget; the default of built-in games: " + DefaultBudgetsText() + ")"
	case "engine_protocol":
		return "the outside engine's protocol: " + strings.Join(protocol.Names(), ", ") + " (default: the game's: " + DefaultProtocolsText() + "; connect6 engines are tuned over botzone, Botzone's ConnectSix, which takes openings)"
	}
	return s.Help
}

// DefaultProtocolsText lists each registered game's default protocol for outside engines
// ("amazons botzone, chess uci, …").
func DefaultProtocolsText() string {
	var parts []string
	for _, name := range genomes.Names() {
		e, _ := genomes.Lookup(name)
		if p := protocol.DefaultProtocol(e.Game); p != "" {
			parts = append(parts, name+" "+p)
		}
	}
	return strings.Join(parts, ", ")
}

// DefaultBudgetsText lists the default game budget of every registered game that has one
// ("connect6 20000, gomoku 44000, …").
func DefaultBudgetsText() string {
	var parts []string
	for _, name := range genomes.Names() {
		if n := DefaultBudgetGames(name); n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", name, n))
		}
	}
	return strings.Join(parts, ", ")
}

// MethodKeys returns the config keys outside a method section that apply to method and
// not to every method, in Settings' order (for the GA: its population, racing, hall of
// fame and variation; for the steady-state GA: its population and variation).
func MethodKeys(method string) []string {
	var out []string
	for _, s := range Settings {
		if s.Methods != nil && slices.Contains(s.Methods, method) && !strings.Contains(s.Key, ".") {
			out = append(out, s.Key)
		}
	}
	return out
}

// AppliesTo reports whether s applies to a run of method ("" is the GA).
func (s Setting) AppliesTo(method string) bool {
	if method == "" {
		method = MethodGA
	}
	return s.Methods == nil || slices.Contains(s.Methods, method)
}

// Field returns the field of c that setting key names ("spsa.pairs": inside c.SPSA, made
// with the method's defaults when nil). The error names a key no field has.
func (c *Config) Field(key string) (reflect.Value, error) {
	v := reflect.ValueOf(c).Elem()
	parts := strings.Split(key, ".")
	for i, p := range parts {
		f, ok := fieldByTag(v, p)
		if !ok {
			return reflect.Value{}, fmt.Errorf("setting %q: no such config key", key)
		}
		if i == len(parts)-1 {
			return f, nil
		}
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				switch p {
				case MethodSPSA:
					d := c.SPSAParams()
					c.SPSA = &d
				case MethodCMAES:
					d := c.CMAESParams()
					c.CMAES = &d
				default:
					f.Set(reflect.New(f.Type().Elem()))
				}
			}
			f = f.Elem()
		}
		v = f
	}
	return reflect.Value{}, fmt.Errorf("setting %q: empty key", key)
}

// fieldByTag is the field of struct v whose yaml tag is name, looked up through the
// sections v embeds inline (Config's RunSettings, GASettings, …).
func fieldByTag(v reflect.Value, name string) (reflect.Value, bool) {
	if idx, ok := yamlField(v.Type(), name); ok {
		return v.FieldByIndex(idx), true
	}
	return reflect.Value{}, false
}

// yamlField is the index path of the exported field of struct type t whose yaml tag is
// name, searching the structs t embeds with `yaml:",inline"` too.
func yamlField(t reflect.Type, name string) ([]int, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if f.Anonymous && tag == "" && opts == "inline" && f.Type.Kind() == reflect.Struct {
			if idx, ok := yamlField(f.Type, name); ok {
				return append([]int{i}, idx...), true
			}
			continue
		}
		if tag == name && f.IsExported() {
			return []int{i}, true
		}
	}
	return nil, false
}

// yamlFields lists the exported fields of struct type t that have a yaml key, in order,
// the fields of inline-embedded structs in their place.
func yamlFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case f.Anonymous && tag == "" && opts == "inline" && f.Type.Kind() == reflect.Struct:
			out = append(out, yamlFields(f.Type)...)
		case tag != "" && tag != "-" && f.IsExported():
			out = append(out, f)
		}
	}
	return out
}

// SetFrom copies setting key's value from src into c (a set flag over the config file).
func (c *Config) SetFrom(key string, src *Config) error {
	dst, err := c.Field(key)
	if err != nil {
		return err
	}
	from, err := src.Field(key)
	if err != nil {
		return err
	}
	dst.Set(from)
	return nil
}

// overDefaults returns def with every non-zero field of set in its place (set nil: def):
// a method's parameters, where a zero field means the default.
func overDefaults[T any](def T, set *T) T {
	if set == nil {
		return def
	}
	d, v := reflect.ValueOf(&def).Elem(), reflect.ValueOf(set).Elem()
	for i := 0; i < v.NumField(); i++ {
		if !v.Field(i).IsZero() {
			d.Field(i).Set(v.Field(i))
		}
	}
	return def
}
