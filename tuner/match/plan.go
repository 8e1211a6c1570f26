package match

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/engine/protocol/wire"
	"evotune/engine/swap"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/stats"
)

// Request is a match as `evotune match` states it: each field is one of its flags
// (named in the comments), as given. Prepare checks it and resolves it into the
// Config Play plays. Chess-tournament fields follow fastchess and cutechess-cli.
type Request struct {
	Game engine.Game
	// Names, if set, is the caller's word for a field of the request in errors (given its
	// key: "games", "a", "a_option", "move_time"; "" keeps the default); nil: the match
	// command's flags (--games, --a-option). A tournament names a pairing's engines.
	Names func(field string) string
	// A and B are the contestants (--a, --b): "default" (the paper's weights), a weights
	// file, or "cmd:PROG ARGS", an outside engine.
	A, B string
	// Games (--games, even), Workers (--workers), Board (--board, 0 = the game's size),
	// MaxPlies (--max-plies, 0 = DefaultMaxPlies), Seed (--seed: openings' order).
	Games, Workers, Board, MaxPlies int
	Seed                            int64
	// SPRT is --sprt (stats.ParseSPRT's text; "" = none).
	SPRT string
	// Openings is --openings (random, builtin, none or a file; "" = random, or none when a
	// side's protocol cannot take an opening); SwapRule is --opening-rule.
	Openings, SwapRule string
	// Limits are --depth and --width (0 = a weights file's, else the game's); Nodes is
	// --nodes.
	Limits engine.Limits
	Nodes  int64
	// Outside engines: --move-time, --game-time, --move-overhead, --startup-time,
	// --engine-protocol, --botzone-json, --botzone-keep-running, --engine-log (a directory),
	// --restart.
	MoveTime, GameTime, Overhead, Startup time.Duration
	Protocol                              string
	BotzoneJSON, BotzoneKeepRunning       bool
	EngineLogDir                          string
	Restart                               bool
	// TimeControl is --tc (engine.ParseTimeControl), TimeMargin --time-margin.
	TimeControl string
	TimeMargin  time.Duration
	// Resign and Draw are --resign and --draw (engine.Adjudication), MaxMoves --max-moves.
	Resign, Draw string
	MaxMoves     int
	// AOptions and BOptions are --a-option and --b-option: NAME=VALUE each.
	AOptions, BOptions []string
	// Book is --book (EPD, PGN or a Polyglot .bin), BookPlies --book-plies, BookOrder
	// --book-order (BookRandom, "" too, or BookSequential) and BookStart --book-start (the
	// book's first entry used, from 1; 0 = 1), as fastchess's -openings order= and start=.
	Book      string
	BookPlies int
	BookOrder string
	BookStart int
	// PGN is --pgn, the file the games are written to ("" = none); checked, not written.
	PGN string
	// Exclude are the opening keys left out (--exclude-run's run's openings; nil = none),
	// ExcludeRun that run and ExcludeVerified how many of Exclude its verifications drew
	// (the rest its tuning), for the openings' label.
	Exclude         map[string]bool
	ExcludeRun      int64
	ExcludeVerified int
}

// Plan is a checked match: Config (its Setup without a Runner: local workers unless
// the caller sets one) and what reports of it say.
type Plan struct {
	Config Config
	// AOptions and BOptions are the engines' options, parsed.
	AOptions, BOptions []wire.Option
	// PGN writes the games' records (nil: no --pgn).
	PGN engine.PGNWriter
	// OpeningsLabel says where the openings come from ("random (held-out half), 100").
	OpeningsLabel string
}

// Prepare checks r and resolves it: the contestants (weights files read, outside
// programs found, their options checked against what a UCI engine declares in its
// handshake — so it may start each outside engine once), the clock, adjudication, book
// or openings, and the limits. Errors name the flag and the value; nothing is played.
func Prepare(ctx context.Context, r Request) (Plan, error) {
	var p Plan
	g := r.Game
	if r.Games < 2 || r.Games%2 != 0 {
		return p, fmt.Errorf("%s %d: want a positive even number (games are played in colour-swapped pairs)", r.name("games"), r.Games)
	}
	if r.Workers < 1 {
		return p, fmt.Errorf("%s %d: want at least 1", r.name("workers"), r.Workers)
	}
	if err := r.Limits.Validate(); err != nil {
		return p, r.fieldError(err)
	}
	var sprt *stats.SPRT
	if r.SPRT != "" {
		s, err := stats.ParseSPRT(r.SPRT)
		if err != nil {
			return p, fmt.Errorf("%s: %w", r.name("sprt"), err)
		}
		sprt = &s
	}
	if r.Startup < 100*time.Millisecond || r.Startup > time.Hour {
		return p, fmt.Errorf("%s %v: want 100ms to 1h", r.name("startup_time"), r.Startup)
	}
	if err := protocol.CheckProtocol(g, r.Protocol); err != nil {
		return p, fmt.Errorf("%s: %w", r.name("engine_protocol"), err)
	}
	tmpl := protocol.ExternalSpec{MoveTime: r.MoveTime, GameTime: r.GameTime, Overhead: r.Overhead, BotzoneJSON: r.BotzoneJSON,
		BotzoneKeepRunning: r.BotzoneKeepRunning, StartupTime: r.Startup, Protocol: r.Protocol}
	var tc *engine.TimeControl
	if r.TimeControl != "" {
		t, err := engine.ParseTimeControl(r.TimeControl)
		if err != nil {
			return p, fmt.Errorf("%s: %w", r.name("tc"), err)
		}
		if r.TimeMargin < 0 {
			return p, fmt.Errorf("%s %v: want ≥ 0", r.name("time_margin"), r.TimeMargin)
		}
		t.Margin = r.TimeMargin
		tc = &t
	}
	if r.Nodes < 0 {
		return p, fmt.Errorf("%s %d: want ≥ 0", r.name("nodes"), r.Nodes)
	}
	lim := r.Limits
	tmpl.TimeControl, tmpl.Nodes, tmpl.Depth = tc, r.Nodes, lim.Depth
	if lim.Nodes = r.Nodes; lim.Nodes > 0 && lim.Depth == 0 {
		lim.Depth = engine.MaxDepth // built-in players: the node limit decides
	}
	var adj engine.Adjudication
	if r.Resign != "" {
		if err := adj.ParseResign(r.Resign); err != nil {
			return p, r.fieldError(err)
		}
	}
	if r.Draw != "" {
		if err := adj.ParseDraw(r.Draw); err != nil {
			return p, r.fieldError(err)
		}
	}
	if r.MaxMoves < 0 {
		return p, fmt.Errorf("%s %d: want ≥ 0", r.name("max_moves"), r.MaxMoves)
	}
	adj.MaxMoves = r.MaxMoves
	var err error
	if p.AOptions, err = ParseOptions(r.name("a_option"), r.AOptions); err != nil {
		return p, err
	}
	if p.BOptions, err = ParseOptions(r.name("b_option"), r.BOptions); err != nil {
		return p, err
	}
	if r.PGN != "" {
		var ok bool
		if p.PGN, ok = g.(engine.PGNWriter); !ok {
			return p, fmt.Errorf("%s: %s games have no PGN records (games that do: %s)", r.name("pgn"), g.Name(), strings.Join(genomes.Offering[engine.PGNWriter](), ", "))
		}
		if _, err := engine.OutputTarget(r.PGN); err != nil {
			return p, fmt.Errorf("%s: %w", r.name("pgn"), err)
		}
	}
	if (r.BotzoneJSON || r.BotzoneKeepRunning) && tmpl.ProtocolFor(g) != protocol.Botzone {
		return p, fmt.Errorf("%s, %s: %s external engines speak %s here, not Botzone (%s botzone)", r.name("botzone_json"), r.name("botzone_keep_running"), g.Name(), tmpl.ProtocolFor(g), r.name("engine_protocol"))
	}
	if r.EngineLogDir != "" {
		if err := os.MkdirAll(r.EngineLogDir, 0o755); err != nil {
			return p, fmt.Errorf("%s: %w", r.name("engine_log"), err)
		}
	}
	wa, fa, extA, err := r.contestant(g, r.A, tmpl)
	if err != nil {
		return p, fmt.Errorf("%s: %w", r.name("a"), err)
	}
	wb, _, extB, err := r.contestant(g, r.B, tmpl)
	if err != nil {
		return p, fmt.Errorf("%s: %w", r.name("b"), err)
	}
	for _, side := range []struct {
		flag string
		ext  *protocol.ExternalSpec
		opts []wire.Option
	}{{r.name("a_option"), extA, p.AOptions}, {r.name("b_option"), extB, p.BOptions}} {
		if len(side.opts) == 0 {
			continue
		}
		if side.ext == nil {
			return p, fmt.Errorf("%s: options are for outside engines (cmd:PROG); a weights file's values are its own", side.flag)
		}
		if !slices.Contains(protocol.OptionsProtocols(g), side.ext.ProtocolFor(g)) {
			return p, fmt.Errorf("%s: the %s protocol has no way to send options", side.flag, side.ext.ProtocolFor(g))
		}
		side.ext.Options = side.opts
	}
	if _, err := g.NewBoard(r.Board); err != nil {
		return p, fmt.Errorf("%s: %w", r.name("board"), err)
	}
	// A program that cannot be started is refused now; one that starts and then crashes,
	// stalls or plays illegally loses those games by forfeit, as the reference managers
	// score them (tune, where every game counts toward fitness, probes it first).
	for _, side := range []struct {
		flag string
		ext  *protocol.ExternalSpec
	}{{r.name("a"), extA}, {r.name("b"), extB}} {
		if side.ext == nil {
			continue
		}
		if err := protocol.CheckProgram(side.ext.Argv); err != nil {
			return p, fmt.Errorf("%s: %w", side.flag, err)
		}
		// Options the engine does not declare, or values outside its bounds, are refused
		// before the first game (UCI: from its handshake).
		if err := protocol.CheckOptions(ctx, *side.ext, g); err != nil {
			return p, fmt.Errorf("%s: %w", side.flag, err)
		}
	}
	spec, err := r.openingSpec(extA, extB)
	if err != nil {
		return p, err
	}
	var openings arena.Openings
	if r.Book != "" {
		if openings, p.OpeningsLabel, err = arena.SelectBook(r.Book, g, r.Board, r.BookPlies, r.Seed, r.Exclude, arena.BookOrder{Sequential: r.BookOrder == arena.BookSequential, Start: r.BookStart}); err != nil {
			return p, fmt.Errorf("%s: %w", r.name("book"), err)
		}
	} else if openings, p.OpeningsLabel, err = arena.SelectOpenings(spec, g, r.Board, r.Games/2, r.Seed, r.Exclude); err != nil {
		return p, fmt.Errorf("%s: %w", r.name("openings"), err)
	}
	if r.Exclude != nil {
		p.OpeningsLabel += fmt.Sprintf(", run %d's %d tuning and %d verification openings excluded", r.ExcludeRun, len(r.Exclude)-r.ExcludeVerified, r.ExcludeVerified)
	}
	setup := arena.GameSetup{Game: g, Board: r.Board, Limits: MergeLimits(g, lim, fa), MaxPlies: r.MaxPlies, OpeningRule: r.SwapRule,
		EngineLogDir: r.EngineLogDir, Restart: r.Restart, TimeControl: tc, Adjudicate: adj, MoveStats: p.PGN != nil}
	p.Config = Config{Setup: setup, A: wa, B: wb, AExt: extA, BExt: extB, Games: r.Games, Openings: openings, SPRT: sprt, Workers: r.Workers}
	return p, nil
}

// name is how an error names field of the request (its key: "games", "a", "a_option",
// "move_time"): Names's word for it, else the match command's flag (--games, --a-option).
func (r Request) name(field string) string {
	if r.Names != nil {
		if n := r.Names(field); n != "" {
			return n
		}
	}
	return "--" + strings.ReplaceAll(field, "_", "-")
}

// fieldError names the field an error of another package starts with ("resign: …",
// "depth 30: …") as name does.
func (r Request) fieldError(err error) error {
	msg := err.Error()
	i := strings.IndexAny(msg, " :")
	if i <= 0 {
		return err
	}
	return &namedError{msg: r.name(strings.ReplaceAll(msg[:i], "-", "_")) + msg[i:], err: err}
}

// namedError is an error of another package with its field renamed (fieldError); it
// unwraps to the error.
type namedError struct {
	msg string
	err error
}

func (e *namedError) Error() string { return e.msg }
func (e *namedError) Unwrap() error { return e.err }

// openingSpec checks the opening flags against each other and the engines and returns
// SelectOpenings' spec ("none" under a swap rule, where the players lay the opening).
func (r Request) openingSpec(extA, extB *protocol.ExternalSpec) (string, error) {
	g, spec := r.Game, r.Openings
	if r.Book != "" {
		if spec != "" || r.SwapRule != "" {
			return "", fmt.Errorf("%s and %s/%s: give one source of openings", r.name("book"), r.name("openings"), r.name("opening_rule"))
		}
		if r.BookPlies < 0 {
			return "", fmt.Errorf("%s %d: want ≥ 0", r.name("book_plies"), r.BookPlies)
		}
	}
	if r.BookOrder != "" && r.BookOrder != arena.BookRandom && r.BookOrder != arena.BookSequential {
		return "", fmt.Errorf("%s %q: want %s or %s", r.name("book_order"), r.BookOrder, arena.BookRandom, arena.BookSequential)
	}
	if r.BookStart < 0 {
		return "", fmt.Errorf("%s %d: want the number of the book's first entry to use, from 1", r.name("book_start"), r.BookStart)
	}
	if r.Book == "" && (r.BookOrder == arena.BookSequential || r.BookStart > 1) {
		return "", fmt.Errorf("%s, %s: they order a %s; give one", r.name("book_order"), r.name("book_start"), r.name("book"))
	}
	if r.SwapRule != "" {
		if _, ok := g.(engine.OpeningBook); !ok {
			return "", fmt.Errorf("%s %s: swap openings are Gomoku's (they propose from an opening book; %s has none)", r.name("opening_rule"), r.SwapRule, g.Name())
		}
		n, err := swap.ParseRule(r.SwapRule)
		if err != nil {
			return "", fmt.Errorf("%s: %w", r.name("opening_rule"), err)
		}
		if n > 0 && (extA != nil || extB != nil) {
			return "", fmt.Errorf("%s %s: external engines cannot be asked for fifth moves (no Gomoku protocol carries the question); use swap2 or swap3", r.name("opening_rule"), r.SwapRule)
		}
		if spec != "" {
			return "", fmt.Errorf("%s and %s: the players lay the opening under a swap rule; give one of them", r.name("openings"), r.name("opening_rule"))
		}
		return "none", nil
	}
	if spec == "" {
		spec = "random"
		if !extA.AcceptsOpenings(g) || !extB.AcceptsOpenings(g) {
			spec = "none" // the SAU protocol cannot hand an engine its own opening moves
		}
	}
	return spec, nil
}

// contestant resolves a --a/--b value: "cmd:PATH ARGS" (an outside engine, from tmpl) or
// weights ("default" or a file, with the file's search limits).
func (r Request) contestant(g engine.Game, spec string, tmpl protocol.ExternalSpec) (engine.Weights, *engine.Limits, *protocol.ExternalSpec, error) {
	argv, ok, err := protocol.ParseCommand(spec)
	if err != nil {
		return nil, nil, nil, err
	}
	if ok {
		if tmpl.MoveTime <= 0 {
			return nil, nil, nil, fmt.Errorf("%s %v: want a positive time", r.name("move_time"), tmpl.MoveTime)
		}
		tmpl.Argv = argv
		return g.DefaultWeights(), nil, &tmpl, nil
	}
	w, l, err := LoadWeights(g, spec)
	return w, l, nil, err
}

// ParseOptions reads an engine's NAME=VALUE options given with flag (the name may hold
// blanks: "Skill Level=5"); the error names the flag and the bad item.
func ParseOptions(flag string, list []string) ([]wire.Option, error) {
	var out []wire.Option
	for _, kv := range list {
		name, value, ok := strings.Cut(kv, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" {
			return nil, fmt.Errorf("%s %q: want NAME=VALUE", flag, kv)
		}
		if err := wire.CheckLine(name, value); err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		out = append(out, wire.Option{Name: name, Value: value})
	}
	return out, nil
}

// LoadWeights returns the paper's weights for "default" (or "") or the weights of a file
// (engine.LoadWeightsFile), with the file's search limits (nil if none).
func LoadWeights(g engine.Game, spec string) (engine.Weights, *engine.Limits, error) {
	if spec == "" || spec == "default" {
		return g.DefaultWeights(), nil, nil
	}
	w, f, err := engine.LoadWeightsFile(spec, g)
	if err != nil {
		if fi, serr := os.Stat(spec); serr == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return nil, nil, fmt.Errorf("%w; %s is a program: to play it as an engine, write cmd:%s", err, spec, spec)
		}
		if _, lerr := exec.LookPath(spec); lerr == nil && !strings.ContainsRune(spec, os.PathSeparator) {
			return nil, nil, fmt.Errorf("%w; %s is a program on PATH: to play it as an engine, write cmd:%s", err, spec, spec)
		}
		return nil, nil, err
	}
	return w, f.Search, nil
}

// MergeLimits fills the zero depth and width of flags from a weights file's limits (file,
// nil: none) and then from the game's defaults: how match, play, engine and sensitivity
// settle a player's search limits.
func MergeLimits(g engine.Game, flags engine.Limits, file *engine.Limits) engine.Limits {
	l := flags
	if file != nil {
		if l.Depth == 0 {
			l.Depth = file.Depth
		}
		if l.Width == 0 {
			l.Width = file.Width
		}
	}
	d := g.DefaultLimits()
	if l.Depth == 0 {
		l.Depth = d.Depth
	}
	if l.Width == 0 {
		l.Width = d.Width
	}
	return l
}
