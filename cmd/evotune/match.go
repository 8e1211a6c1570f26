package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"evotune/db"
	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/tuner"
	"evotune/tuner/arena"
	"evotune/tuner/progress"
	"evotune/tuner/runstore"
	"evotune/tuner/runview"
	"evotune/tuner/stats"
)

const sprtDefault = "elo0=0,elo1=10,alpha=0.05,beta=0.05"

type matchOpts struct {
	gameOpts
	a, b     string
	games    int
	sprt     string
	openings string
	board    int
	lim      engine.Limits
	workers  int
	seed     int64
	maxPlies int
	json     bool
	moveTime time.Duration
	gameTime time.Duration
	overhead time.Duration
	startup  time.Duration
	bzJSON   bool
	proto    string
	bzKeep   bool
	logDir   string
	restart  bool
	cluster  clusterOpts
	swapRule string
	exclude  int64
	dbPath   string
	tour     tourOpts
	// aName and bName name the players in the report, the JSON and the PGN (default: their
	// command lines or files, with their options).
	aName, bName string
	// reportEvery prints the result so far every this many games (0: never).
	reportEvery int
	// resume continues the stopped match of the same command stored in --db.
	resume bool
}

// tourOpts are match's flags as chess tournament managers (fastchess, cutechess-cli) have
// them: clocks, node limits, books, adjudication, per-engine options and a PGN file.
type tourOpts struct {
	tc         string
	nodes      int64
	timeMargin time.Duration
	book       string
	bookPlies  int
	bookOrder  string
	bookStart  int
	resign     string
	draw       string
	maxMoves   int
	aOptions   []string
	bOptions   []string
	pgn        string
}

// orderKey and startKey are --book-order and --book-start as a stored match's key holds
// them: "" and 0 at their defaults, so the keys of matches stored before the flags existed
// stay the same.
func (o tourOpts) orderKey() string {
	if o.bookOrder == arena.BookRandom {
		return ""
	}
	return o.bookOrder
}

func (o tourOpts) startKey() int {
	if o.bookStart == 1 {
		return 0
	}
	return o.bookStart
}

// addTourFlags declares the tourOpts flags; perEngine adds --a-option and --b-option (a
// tournament's engines carry their options in their specs).
func addTourFlags(c *cobra.Command, o *tourOpts, perEngine bool) {
	f := c.Flags()
	f.StringVar(&o.tc, "tc", "", "chess clock: SECONDS+INC (10+0.1), MOVES/SECONDS+INC (40/60+0.6), or SECONDS; outside UCI engines get go wtime btime winc binc [movestogo]")
	f.Int64Var(&o.nodes, "nodes", 0, "search nodes per move (UCI: go nodes N; built-in players: a node limit)")
	f.DurationVar(&o.timeMargin, "time-margin", 0, "with --tc: how far a clock may run past zero before the move loses on time (fastchess's timemargin)")
	f.StringVar(&o.book, "book", "", "opening book: EPD (one position a line), PGN (its games' first --book-plies plies) or a Polyglot .bin (its lines of --book-plies plies from the start); openings in random order by --seed, each played as a colour-swapped pair")
	f.StringVar(&o.bookOrder, "book-order", arena.BookRandom, "the order the --book's entries are played in: random (shuffled by --seed) or sequential (the book's own order), as fastchess's order=")
	f.IntVar(&o.bookStart, "book-start", 1, "the --book's first entry to play, from 1 (fastchess's start=)")
	f.IntVar(&o.bookPlies, "book-plies", 8, "plies taken from each game of a PGN --book, or each line of a Polyglot one (0 = all; Polyglot: 16)")
	f.StringVar(&o.resign, "resign", "", "resign adjudication as fastchess: movecount=N,score=CP[,twosided=true] (a side whose score stays at or below −CP for N moves loses)")
	f.StringVar(&o.draw, "draw", "", "draw adjudication as fastchess: movenumber=N,movecount=M,score=CP (from move N, both scores within ±CP for M moves each)")
	f.IntVar(&o.maxMoves, "max-moves", 0, "adjudicate a draw after this many moves by each side (0 = off)")
	if perEngine {
		f.StringArrayVar(&o.aOptions, "a-option", nil, "an option for engine A, NAME=VALUE (repeatable): UCI setoption, Gomocup INFO; checked against the options a UCI engine declares before the first game")
		f.StringArrayVar(&o.bOptions, "b-option", nil, "an option for engine B, as --a-option")
	}
	f.StringVar(&o.pgn, "pgn", "", "write every game as PGN to FILE (chess): appended as each game ends, written again in order at the end")
}

func newMatchCmd() *cobra.Command {
	var o matchOpts
	c := &cobra.Command{
		Use:   "match --game G --a FILE|default --b FILE|default [--games N] [--sprt elo0=0,elo1=10,alpha=0.05,beta=0.05] [--openings FILE|builtin|random]",
		Short: "Play A against B in colour-swapped pairs and report W/D/L, pentanomial, Elo ± 95% CI, LOS and SPRT",
		Args:  cobra.ArbitraryArgs, // checked in RunE: "--sprt elo0=…" (space form) leaves its value as an argument
		Example: "  evotune match --game gomoku --a default --b default --games 200\n" +
			"  evotune match --game connect6 --a best.json --b default --games 400 --sprt\n" +
			"  evotune match --game amazons --a best.json --b default --openings openings.txt --json\n" +
			"  evotune match --game gomoku --a best.json --b default --games 1000 --seed 99 --exclude-run 1",
		RunE: func(cmd *cobra.Command, args []string) error {
			// --sprt may stand alone (the default test), so pflag reads "--sprt elo0=0,elo1=20"
			// as --sprt and an argument; take that argument as the value, as verify does.
			if len(args) == 1 && cmd.Flags().Changed("sprt") && o.sprt == sprtDefault && strings.Contains(args[0], "elo") {
				o.sprt, args = args[0], nil
			}
			if len(args) > 0 {
				return fmt.Errorf("unexpected argument %q (match takes flags only)", args[0])
			}
			return runMatch(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addGameFlags(c, &o.gameOpts)
	f := c.Flags()
	f.StringVar(&o.a, "a", "default", "player A: a weights file, 'default' (the paper's), or 'cmd:PATH ARGS' for an external engine speaking the game's protocol")
	f.StringVar(&o.b, "b", "default", "player B: as --a")
	f.StringVar(&o.aName, "a-name", "", "player A's name in the report, the JSON and the PGN (fastchess's name=; default: --a with its options)")
	f.StringVar(&o.bName, "b-name", "", "player B's name, as --a-name")
	f.BoolVar(&o.resume, "resume", false, "continue the stopped match of this same command stored in --db: its finished pairs are kept, the others played (the --pgn is appended to)")
	f.IntVar(&o.reportEvery, "report-every", 0, "print the result so far every N games (W/D/L, pentanomial, Elo ± 95%, LLR), as fastchess's -ratinginterval (0 = never)")
	f.DurationVar(&o.moveTime, "move-time", 5*time.Second, "external engines: time limit per move (exceeding it loses the game)")
	f.DurationVar(&o.gameTime, "game-time", 0, "external engines: time limit per game (0 = none)")
	f.DurationVar(&o.startup, "startup-time", protocol.StartupAllowance, "external engines: time to start and answer the handshake, apart from the move clock (a time-out there is a start-up failure: the pair is not counted)")
	f.DurationVar(&o.overhead, "move-overhead", protocol.DefaultMoveOverhead, "external engines: tolerance per move on top of --move-time (and of --game-time) before a late answer loses")
	f.StringVar(&o.swapRule, "opening-rule", "", "gomoku: open every game with a swap opening laid by the players: swap2 (Gomocup's SWAP2BOARD), swap3 (the swap after the third move) or fifth-N (swap3, then Black offers N fifth moves and White picks one: 五手N打; built-in players); replaces --openings")
	f.StringVar(&o.proto, "engine-protocol", "", "external engines' protocol: "+strings.Join(protocol.Names(), ", ")+" (default: the game's: "+tuner.DefaultProtocolsText()+"; connect6 engines may speak botzone, which takes openings)")
	f.BoolVar(&o.bzKeep, "botzone-keep-running", false, "Botzone external engines: keep the bot's process between turns (Botzone's keep-running mode)")
	f.StringVar(&o.logDir, "engine-log", "", "keep each external engine's full transcript of each game in DIR/pairNNNN-gameJ-COLOUR.log (DIR is created; each game then starts its engines anew)")
	f.BoolVar(&o.restart, "restart", false, "start each outside engine anew for every game (fastchess's restart=on); by default its process is kept between games")
	f.BoolVar(&o.bzJSON, "botzone-json", false, "Botzone external engines: speak Botzone's JSON interaction instead of the simple one")
	f.IntVar(&o.games, "games", 100, "games to play at most (even); fewer if the SPRT decides")
	f.StringVar(&o.sprt, "sprt", "", "stop when the SPRT decides: elo0=…,elo1=…,alpha=…,beta=… (--sprt alone: "+sprtDefault+")")
	f.Lookup("sprt").NoOptDefVal = sprtDefault
	f.StringVar(&o.openings, "openings", "", "random (the held-out half of the opening space), builtin, none or an opening file (default: random; none for connect6 with an external SAU engine)")
	f.Int64Var(&o.exclude, "exclude-run", 0, "leave out every opening run RUN of --db used (tuning, admission and verification)")
	f.StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file: every game is stored in it as it ends (match --resume continues from them), and --exclude-run reads it")
	f.IntVar(&o.board, "board", 0, "board side (0 = the game's default)")
	addLimitFlags(c, &o.lim)
	f.IntVar(&o.workers, "workers", runtime.NumCPU(), "games played at once (never changes results)")
	f.Int64Var(&o.seed, "seed", 1, "seed of random openings")
	f.IntVar(&o.maxPlies, "max-plies", 400, "adjudicate a game still going after this many plies as a draw")
	f.BoolVar(&o.json, "json", false, "print JSON")
	addClusterFlags(c, &o.cluster)
	addTourFlags(c, &o.tour, true)
	f.IntVar(&o.workers, "concurrency", runtime.NumCPU(), "alias of --workers (fastchess's name)")
	return c
}

func runMatch(ctx context.Context, o matchOpts, out, errOut io.Writer) (err error) {
	g, _, err := resolveGame(o.gameOpts)
	if err != nil {
		return err
	}
	for _, n := range []struct{ flag, name string }{{"--a-name", o.aName}, {"--b-name", o.bName}} {
		if strings.ContainsFunc(n.name, func(r rune) bool { return r < 0x20 || r == 0x7f }) || len(n.name) > 200 {
			return fmt.Errorf("%s %q: a name of at most 200 characters, on one line without control characters (it heads PGN tags)", n.flag, n.name)
		}
	}
	var exclude map[string]bool
	if o.exclude != 0 {
		if exclude, err = runstore.OpeningsAt(ctx, o.dbPath, o.exclude, g.Name()); err != nil {
			return fmt.Errorf("--exclude-run: %w", err)
		}
	}
	plan, err := tuner.PlanMatch(ctx, tuner.MatchRequest{Game: g, A: o.a, B: o.b, Games: o.games, Workers: o.workers, Board: o.board,
		MaxPlies: o.maxPlies, Seed: o.seed, SPRT: o.sprt, Openings: o.openings, SwapRule: o.swapRule, Limits: o.lim, Nodes: o.tour.nodes,
		MoveTime: o.moveTime, GameTime: o.gameTime, Overhead: o.overhead, Startup: o.startup, Protocol: o.proto,
		BotzoneJSON: o.bzJSON, BotzoneKeepRunning: o.bzKeep, EngineLogDir: o.logDir, Restart: o.restart, TimeControl: o.tour.tc, TimeMargin: o.tour.timeMargin,
		Resign: o.tour.resign, Draw: o.tour.draw, MaxMoves: o.tour.maxMoves, AOptions: o.tour.aOptions, BOptions: o.tour.bOptions,
		Book: o.tour.book, BookPlies: o.tour.bookPlies, BookOrder: o.tour.bookOrder, BookStart: o.tour.bookStart, PGN: o.tour.pgn, Exclude: exclude, ExcludeRun: o.exclude})
	if err != nil {
		return err
	}
	mc := &plan.Config
	setup, extA, extB, tc, label, openings := &mc.Setup, mc.AExt, mc.BExt, mc.Setup.TimeControl, plan.OpeningsLabel, mc.Openings
	aOpts, bOpts, pgnw := plan.AOptions, plan.BOptions, plan.PGN
	detach, err := o.cluster.attach(ctx, errOut, func(r arena.BatchRunner) { setup.Runner = r })
	if err != nil {
		return err
	}
	defer detach()
	if o.tour.nodes > 0 {
		if err := probeNodes(ctx, o.tour.nodes, g, setup.Board, extA, extB); err != nil {
			return err
		}
	}
	if o.reportEvery < 0 {
		return fmt.Errorf("--report-every %d: want a number of games (0 = never)", o.reportEvery)
	}
	aName, bName := o.aName, o.bName
	if aName == "" {
		aName = tuner.WithOptions(o.a, aOpts)
	}
	if bName == "" {
		bName = tuner.WithOptions(o.b, bOpts)
	}
	// The match and every game as it ends go to the database: a match stopped keeps its
	// finished games, and the same command with --resume continues from them.
	d, err := db.Open(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	key := matchKey(o, g, mc)
	var matchID int64
	if o.resume {
		id, found, err := d.UnfinishedMatch(ctx, key)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("--resume: %s holds no stopped match of this command (a match resumes with the same game, players, options, games, seed, openings and limits; without --resume it starts anew)", o.dbPath)
		}
		matchID = id
		if mc.Done, err = storedPairs(ctx, d, id); err != nil {
			return err
		}
		fmt.Fprintf(errOut, "resuming match %d: %d of its %d pairs were played; they are kept\n", id, len(mc.Done), mc.Games/2)
		if err := d.SetMatchStatus(ctx, id, db.MatchRunning, ""); err != nil {
			return err
		}
	} else if matchID, err = d.CreateMatch(ctx, key, g.Name(), o.a, o.b, o.games); err != nil {
		return err
	}
	var pgn *os.File
	if pgnw != nil {
		// Every game goes to the PGN as it ends; the file is written again, in pair order,
		// at the end. A resumed match appends to the file of the stopped one.
		if pgn, err = openPGN(o.tour.pgn, o.resume); err != nil {
			return err
		}
		defer pgn.Close()
	}
	date := time.Now().UTC().Format("2006.01.02")
	mc.OnGame = gameStorer(ctx, d, matchID, o.dbPath, pgn, o.tour.pgn, errOut, func(mg tuner.MatchGame) ([]byte, error) {
		return mg.PGN(pgnw, "evotune match", aName, bName, tc, date)
	})
	prog := progress.NewMatch(errOut, "match")
	played := 0 // games ended
	update := func(done, total int, r stats.Result) {
		played = done
		prog.Update(done, total, r)
		if o.reportEvery > 0 && done%o.reportEvery == 0 && r.Games() > 0 {
			fmt.Fprintln(errOut, liveReport(done, total, r, mc.SPRT))
		}
	}
	res, err := tuner.PlayMatch(ctx, *mc, update)
	prog.Finish()
	err = storeMatchEnd(ctx, d, matchID, res, err)
	if err != nil && res.Interrupted {
		// Stopped (Ctrl-C): the result of the pairs that ended, and every finished game.
		fmt.Fprintf(out, "match interrupted after %d games: the result of the %d pairs whose two games ended:\n", played, res.Result.Pairs())
		fmt.Fprint(out, stats.Report(res.Result, res.Estimate, res.SPRT, res.LLR, res.Lower, res.Upper, res.Verdict))
		if pgnw != nil {
			fmt.Fprintf(out, "all %d games that ended are in %s, in the order they ended\n", played, o.tour.pgn)
		}
		return fmt.Errorf("match stopped after %d of its %d games: %w; continue it with the same command and --resume", played, mc.Games, err)
	}
	if err != nil {
		return err
	}
	defer func() {
		// A match of no counted game measured nothing: say so by the exit status too.
		if err == nil && res.Result.Games() == 0 {
			err = fmt.Errorf("no game was counted: %d pairs had a game forfeited before the forfeiting engine's first move (it did not start, or did not answer in time); the forfeits above say which engine and why", res.UnplayedPairs)
		}
	}()
	if pgnw != nil {
		if err := res.WritePGN(o.tour.pgn, pgnw, aName, bName, tc); err != nil {
			return fmt.Errorf("--pgn: %w", err)
		}
	}
	if o.json {
		return writeJSON(out, matchJSON{Game: g.Name(), A: o.a, B: o.b, AName: aName, BName: bName, Openings: label, Limits: setup.Limits}.with(res))
	}
	fmt.Fprintf(out, "match %s: A = %s, B = %s; %d games (%d distinct colour-swapped pairs), openings %s (%d), %s, %.1fs\n",
		g.Name(), aName, bName, res.Result.Games(), res.Result.Pairs(), label, len(openings), setup.LimitsText(extA != nil || extB != nil, extA != nil && extB != nil, o.lim.Depth), res.Duration.Seconds())
	if res.Warning != "" {
		fmt.Fprintln(out, "warning: "+res.Warning)
	}
	fmt.Fprint(out, stats.Report(res.Result, res.Estimate, res.SPRT, res.LLR, res.Lower, res.Upper, res.Verdict))
	fmt.Fprintln(out, res.ThinkTimes())
	if t := tuner.Terminations(res.Games); t != "" {
		fmt.Fprintln(out, "terminations: "+t)
	}
	if f := tuner.Forfeits(g, res.Games); len(f) > 0 {
		fmt.Fprintf(out, "%d games lost by forfeit:\n", len(f))
		for _, l := range f {
			fmt.Fprintln(out, "  "+runview.SafeText(l))
		}
	}
	if f := tuner.Forfeits(g, res.Unplayed); len(f) > 0 {
		fmt.Fprintf(out, "%d pairs not counted, %d of their games forfeited before the forfeiting engine's first move:\n", res.UnplayedPairs, len(f))
		for _, l := range f {
			fmt.Fprintln(out, "  "+runview.SafeText(l))
		}
	}
	return nil
}

// matchJSON is match --json: the same keys for every match, null where a value is unknown
// (no SPRT: sprt, llr and its bounds, verdict; no games: estimate).
type matchJSON struct {
	Game           string            `json:"game"`
	A              string            `json:"a"`
	B              string            `json:"b"`
	AName          string            `json:"a_name"`
	BName          string            `json:"b_name"`
	Openings       string            `json:"openings"`
	Limits         engine.Limits     `json:"limits"`
	GamesRequested int               `json:"games_requested"`
	Deterministic  bool              `json:"deterministic"`
	RepeatedPairs  int               `json:"repeated_pairs"`
	UnplayedPairs  int               `json:"unplayed_pairs"`
	Unplayed       []tuner.MatchGame `json:"unplayed"`
	Warning        *string           `json:"warning"`
	Result         stats.Result      `json:"result"`
	Estimate       *stats.Estimate   `json:"estimate"`
	SPRT           *stats.SPRT       `json:"sprt"`
	LLR            *float64          `json:"llr"`
	LLRLower       *float64          `json:"llr_lower"`
	LLRUpper       *float64          `json:"llr_upper"`
	Verdict        *string           `json:"verdict"`
	Seconds        float64           `json:"seconds"`
	Games          []tuner.MatchGame `json:"games"`
}

func (m matchJSON) with(r tuner.MatchResult) matchJSON {
	m.GamesRequested, m.Deterministic, m.Result, m.Estimate, m.SPRT = r.Requested, r.Deterministic, r.Result, r.Estimate, r.SPRT
	m.Seconds, m.Games, m.RepeatedPairs = r.Duration.Seconds(), r.Games, r.RepeatedPairs
	m.UnplayedPairs, m.Unplayed = r.UnplayedPairs, r.Unplayed
	if m.Unplayed == nil {
		m.Unplayed = []tuner.MatchGame{}
	}
	if m.Games == nil {
		m.Games = []tuner.MatchGame{}
	}
	if r.Warning != "" {
		m.Warning = &r.Warning
	}
	if r.SPRT != nil {
		m.LLR, m.LLRLower, m.LLRUpper, m.Verdict = &r.LLR, &r.Lower, &r.Upper, &r.Verdict
	}
	return m
}

// ---- verify ----

type verifyOpts struct {
	dbPath     string
	individual string
	games      int
	sprt       string
	openings   string
	workers    int
	json       bool
	headline   string
	allow      []string
	cluster    clusterOpts
	// the ladder's rungs after the tuning condition
	depth     int
	nodes     int64
	tc        string
	moveTime  time.Duration
	opponents []string
	oppOpts   []string
	logDir    string
}

func newVerifyCmd() *cobra.Command {
	var o verifyOpts
	c := &cobra.Command{
		Use:   "verify RUN [--games N] [--sprt …] [--openings builtin|random|FILE] [--verify-tc TC] [--verify-opponent cmd:…] [--db FILE]",
		Short: "Play a run's champion against the paper's weights on held-out openings, under the tuning condition and the rungs named, and store the ladder",
		Long: "verify plays a verification ladder: the champion (or --individual) against the baseline (the paper's weights, or an outside\n" +
			"engine's layout defaults) on openings the run never played, first under the tuning condition, then under each rung named:\n" +
			"a deeper search (--verify-depth), a node count (--verify-nodes), a chess clock (--verify-tc), a time per move\n" +
			"(--verify-move-time), and other engines (--verify-opponent, each played by the champion and by the baseline on the\n" +
			"same openings: the rung is the champion's Elo gain against it). Each rung is stored as soon as it is played; the same\n" +
			"command after an interruption continues from the stored rungs.",
		Args: cobra.ExactArgs(1),
		Example: "  evotune verify 1 --games 200\n" +
			"  evotune verify 1 --individual 1-g4-02 --games 400 --sprt elo0=0,elo1=20\n" +
			"  evotune verify 3 --games 200 --verify-tc 10+0.1 --verify-opponent cmd:stockfish --verify-opponent-option 'Skill Level=3' --allow-engine 'cmd:toga2'\n" +
			"  evotune verify 1 --games 400 --verify-depth 5",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd.Context(), o, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	f.StringVar(&o.individual, "individual", "", "verify this individual instead of the run's best")
	f.IntVar(&o.games, "games", tuner.DefaultVerifyGames, "games at most (even); fewer if the SPRT decides")
	f.StringVar(&o.sprt, "sprt", sprtDefault, "SPRT parameters")
	f.StringVar(&o.openings, "openings", "", "random (default: the held-out half of the opening space), builtin or an opening file; the run's openings are always excluded")
	f.IntVar(&o.workers, "workers", runtime.NumCPU(), "games played at once")
	f.BoolVar(&o.json, "json", false, "print JSON")
	f.StringArrayVar(&o.allow, "allow-engine", nil, "an outside engine's run: its engine command line ('cmd:PROG ARGS', compared whole), which this machine may run (a database can come from someone else)")
	f.StringVar(&o.headline, "headline", db.HeadlineLargest, "which stored verification heads the run (runs, the dashboard, exports): largest (the most games) or latest (this one); every verification is kept either way")
	f.IntVar(&o.depth, "verify-depth", 0, "a rung at this search depth (the built-in engines; UCI go depth)")
	f.Int64Var(&o.nodes, "verify-nodes", 0, "a rung at this many nodes per move (UCI go nodes; the built-in engines' node limit)")
	f.StringVar(&o.tc, "verify-tc", "", "a rung under this chess clock, e.g. 60+0.6 (UCI, Gomocup and the built-in engines)")
	f.DurationVar(&o.moveTime, "verify-move-time", 0, "a rung at this time per move, e.g. 500ms (every engine)")
	f.StringArrayVar(&o.opponents, "verify-opponent", nil, "a rung against this engine, cmd:PATH ARGS: the champion and the baseline each play it on the same openings (repeatable)")
	f.StringArrayVar(&o.oppOpts, "verify-opponent-option", nil, "an option of every --verify-opponent, NAME=VALUE (repeatable)")
	f.StringVar(&o.logDir, "engine-log", "", "keep each outside engine's transcript of each game in DIR/rungR/pairNNNN-gameJ-COLOUR.log, headed by the values it played with (DIR is created; each game then starts its engines anew)")
	addClusterFlags(c, &o.cluster)
	return c
}

func runVerify(ctx context.Context, o verifyOpts, arg string, out, errOut io.Writer) error {
	runID, err := parseRunID(arg)
	if err != nil {
		return err
	}
	prog := progress.NewMatch(errOut, "verification")
	req := runstore.VerifyRequest{Individual: o.individual, Games: o.games, SPRT: o.sprt,
		Openings: o.openings, Workers: o.workers, Progress: prog.Update, Log: errOut, Headline: o.headline, Allow: o.allow,
		Depth: o.depth, Nodes: o.nodes, TC: o.tc, MoveTime: o.moveTime.Seconds(), Opponents: o.opponents, OpponentOptions: o.oppOpts, EngineLogDir: o.logDir,
		RungStart: func(r tuner.Rung, i, n, games int) {
			if n > 1 {
				prog.Finish()
				fmt.Fprintf(errOut, "rung %d/%d: %s, %d games\n", i+1, n, r.Condition(), games)
			}
		},
		Attach: func(s *arena.GameSetup) (func(), error) {
			return o.cluster.attach(ctx, errOut, func(r arena.BatchRunner) { s.Runner = r })
		}}
	if _, err := req.Check(); err != nil { // before the database is opened
		return err
	}
	d, run, err := openRun(ctx, o.dbPath, runID)
	if err != nil {
		return err
	}
	defer d.Release() // no end-of-process checkpoint while readers may be reading
	req.Run = run
	start := time.Now()
	ver, id, err := runstore.Verify(ctx, d, req)
	prog.Finish()
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(out, verifyJSON{ver, rungRows(ver)})
	}
	fmt.Fprintf(out, "verify run %d: %s vs baseline, %d games (%d distinct pairs) on %s, %.1fs\n", runID, id, ver.Games, ver.Pairs, ver.Openings, time.Since(start).Seconds())
	if ver.Warning != "" {
		fmt.Fprintln(out, "warning: "+ver.Warning)
	}
	printVerification(out, ver)
	for _, r := range ver.Ladder {
		printRung(out, r)
	}
	if len(ver.Ladder) > 0 {
		printLadder(out, ver)
	}
	fmt.Fprintf(out, "stored as verification %d of run %d; %s\n", ver.ID, runID, ver.Headline)
	return nil
}

func printVerification(out io.Writer, v tuner.Verification) {
	e := &stats.Estimate{Score: v.Score, Elo: v.Elo, CI95: v.EloCI95, EloLow: v.EloLow, EloHigh: v.EloHigh, LOS: v.LOS, Model: "pentanomial"}
	if v.Games == 0 {
		e = nil
	}
	fmt.Fprint(out, stats.Report(v.Result, e, v.SPRT, v.LLR, v.LLRLower, v.LLRUpper, v.Verdict))
}

// printRung prints a ladder's rung after the first: its condition, games and warning, and
// its match (an opponent rung: the champion's match against the opponent, then the
// baseline's).
func printRung(out io.Writer, r tuner.Verification) {
	fmt.Fprintf(out, "rung %d, %s: %d games (%d distinct pairs)\n", r.Rung, r.Condition, r.Games, r.Pairs)
	if r.Warning != "" {
		fmt.Fprintln(out, "warning: "+r.Warning)
	}
	if r.ChampionMatch == nil || r.BaselineMatch == nil {
		printVerification(out, r)
		return
	}
	fmt.Fprintf(out, "the champion against %s:\n", r.Condition)
	printVerification(out, *r.ChampionMatch)
	fmt.Fprintf(out, "the baseline against %s:\n", r.Condition)
	printVerification(out, *r.BaselineMatch)
}

// printLadder prints verification v's ladder as a table (rung, condition, games, Elo ±
// 95% CI, whether the champion's gain holds) and, after it, each rung that does not hold
// or is not proven in words a user acts on.
func printLadder(out io.Writer, v tuner.Verification) {
	fmt.Fprintf(out, "proof ladder of %s:\n", v.Champion)
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  rung\tcondition\tgames\tElo ± 95% CI\tholds")
	for _, r := range v.Rungs() {
		elo := "—"
		if r.Games > 0 && !r.Unbounded {
			elo = stats.FormatElo(r.Elo, r.EloLow, r.EloHigh)
		}
		games := strconv.Itoa(r.Games)
		if b := r.BaselineMatch; b != nil {
			games += "+" + strconv.Itoa(b.Games)
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\n", r.Rung, r.Condition, games, elo, r.Holds)
	}
	tw.Flush()
	for _, f := range v.Failing() {
		fmt.Fprintln(out, "warning: the champion's gain "+f)
	}
}

// verifyJSON is verify --json's object: the verification (its first rung at the top, the
// others in ladder) and rungs, one short row per rung.
type verifyJSON struct {
	tuner.Verification
	Rungs []rungRow `json:"rungs"`
}

// rungRow is one rung of a verification ladder as verify --json and exports list it.
type rungRow struct {
	Rung      int      `json:"rung"`
	Kind      string   `json:"kind"`
	Condition string   `json:"condition"`
	Games     int      `json:"games"`
	Elo       *float64 `json:"elo"`
	EloCI95   *float64 `json:"elo_ci95"`
	Holds     string   `json:"holds"`
}

// rungRows lists v's rungs; elo and elo_ci95 are null where no game was played.
func rungRows(v tuner.Verification) []rungRow {
	var out []rungRow
	for _, r := range v.Rungs() {
		row := rungRow{Rung: r.Rung, Kind: r.Kind, Condition: r.Condition, Games: r.Games, Holds: r.Holds}
		if r.Games > 0 && !r.Unbounded {
			e, ci := r.Elo, r.EloCI95
			row.Elo, row.EloCI95 = &e, &ci
		}
		out = append(out, row)
	}
	return out
}

// probeNodes plays one move of each outside engine under go nodes N before the match: an
// engine that ignores node limits (Toga II and other Fruit descendants search on) would
// lose every game on time, and the match would count none. The error names the engine and
// the flags that work instead.
func probeNodes(ctx context.Context, nodes int64, g engine.Game, board int, specs ...*protocol.ExternalSpec) error {
	seen := map[string]bool{}
	for _, s := range specs {
		if s == nil || seen[s.Key()] {
			continue
		}
		seen[s.Key()] = true
		if err := protocol.Probe(ctx, *s, g, board); err != nil {
			if errors.Is(err, engine.ErrTimeLoss) {
				return fmt.Errorf("--nodes %d: %s played no move under go nodes %d within its move time (%v): it ignores node limits (as Toga II and other Fruit descendants do); give it --depth D (go depth), --tc or --move-time instead", nodes, s.Name(), nodes, s.MoveTime)
			}
			return err
		}
	}
	return nil
}

// liveReport is the result so far, every --report-every games: games ended of the total,
// W/D/L of the pairs whose two games ended, the pentanomial counts, Elo ± 95% and, under an
// SPRT, the LLR and its bounds (as fastchess prints it every -ratinginterval games).
func liveReport(done, total int, r stats.Result, sprt *stats.SPRT) string {
	line := fmt.Sprintf("after %d of %d games: A W %d D %d L %d, pentanomial %v", done, total, r.Wins, r.Draws, r.Losses, r.Penta)
	if e, err := r.Estimate(); err == nil {
		line += ", Elo " + stats.FormatElo(e.Elo, e.EloLow, e.EloHigh)
	}
	if sprt != nil {
		lo, hi := sprt.Bounds()
		line += fmt.Sprintf(", LLR %.2f (%.2f, %.2f)", sprt.LLR(r), lo, hi)
	}
	return line
}

// matchKey is what a match asks, as stored with it: the game and rule, the players and
// their options, the games, seed, SPRT, openings (their digest: the same file's
// openings), limits, clocks and adjudication. A match resumes the stored one of its key.
func matchKey(o matchOpts, g engine.Game, mc *tuner.MatchConfig) string {
	sum := sha256.Sum256([]byte(fmt.Sprint(mc.Openings)))
	b, _ := json.Marshal(struct {
		Game, Rule, A, B         string
		AOptions, BOptions       []string
		Games, Board, MaxPlies   int
		Seed                     int64
		SPRT, Openings, SwapRule string
		OpeningsDigest           string
		Limits                   engine.Limits
		Nodes                    int64
		MoveTime, GameTime       time.Duration
		TC, Resign, Draw, Book   string
		MaxMoves, BookPlies      int
		ExcludeRun               int64
		Protocol                 string
		BookOrder                string `json:",omitempty"`
		BookStart                int    `json:",omitempty"`
	}{g.Name(), engine.RuleOf(g), o.a, o.b, o.tour.aOptions, o.tour.bOptions, o.games, o.board, o.maxPlies, o.seed, o.sprt, o.openings, o.swapRule,
		hex.EncodeToString(sum[:8]), mc.Setup.Limits, o.tour.nodes, o.moveTime, o.gameTime, o.tour.tc, o.tour.resign, o.tour.draw, o.tour.book,
		o.tour.maxMoves, o.tour.bookPlies, o.exclude, o.proto, o.tour.orderKey(), o.tour.startKey()})
	return string(b)
}

// openPGN opens a match's or tournament's --pgn for its games as they end: anew, or
// appended to when a stopped one is resumed (PlanMatch checked that path is a regular file
// or none).
func openPGN(path string, resume bool) (*os.File, error) {
	target, err := engine.OutputTarget(path)
	if err != nil {
		return nil, fmt.Errorf("--pgn: %w", err)
	}
	mode := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if resume {
		mode = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(target, mode, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--pgn: %w", err)
	}
	return f, nil
}

// gameStorer is a match's MatchConfig.OnGame: each game that ends is stored as match id's
// in d (even while the match is being stopped: Ctrl-C) and, when pgn is open, appended to
// it as pgnText writes it. The first failure of each warns on errOut, naming dbPath or
// pgnPath; the games go on (the final report, and the PGN written again at the end, keep
// them).
func gameStorer(ctx context.Context, d *db.DB, id int64, dbPath string, pgn *os.File, pgnPath string, errOut io.Writer, pgnText func(tuner.MatchGame) ([]byte, error)) func(tuner.MatchGame) {
	var dberr, werr error
	return func(mg tuner.MatchGame) {
		if err := d.SaveMatchGame(context.WithoutCancel(ctx), id, matchGameRow(mg)); err != nil && dberr == nil {
			dberr = err
			fmt.Fprintf(errOut, "warning: --db %s: %v (the games go on; the PGN and the final report keep them)\n", dbPath, err)
		}
		if pgn == nil {
			return
		}
		data, err := pgnText(mg)
		if err == nil {
			_, err = pgn.Write(data)
		}
		if err != nil && werr == nil {
			werr = err
			fmt.Fprintf(errOut, "warning: --pgn %s: %v (the games go on; the file is written again at the end)\n", pgnPath, err)
		}
	}
}

// storeMatchEnd stores match id's status after PlayMatch returned res and err (finished,
// stopped by Ctrl-C, or failed) with its summary, and returns err, or the store's error
// when err is nil. The context may be cancelled: the status is written regardless.
func storeMatchEnd(ctx context.Context, d *db.DB, id int64, res tuner.MatchResult, err error) error {
	status := db.MatchFinished
	switch {
	case err != nil && res.Interrupted:
		status = db.MatchStopped
	case err != nil:
		status = db.MatchFailed
	}
	summary, _ := json.Marshal(matchSummary(res))
	if serr := d.SetMatchStatus(context.WithoutCancel(ctx), id, status, string(summary)); serr != nil && err == nil {
		return serr
	}
	return err
}

// matchGameRow is a game of a match as the database stores it.
func matchGameRow(mg tuner.MatchGame) db.MatchGameRow {
	rec, _ := json.Marshal(mg.Record)
	return db.MatchGameRow{Pair: mg.Pair, Game: mg.Game, AColour: mg.AColour, AScore: mg.AScore, Result: mg.Record.Outcome.String(),
		Plies: mg.Record.Plies, Forfeit: db.OptText(mg.Record.Forfeit), Record: db.JSONText(rec)}
}

// storedPairs reads match id's stored games back as the pairs whose two games ended (a
// pair with one game is played again).
func storedPairs(ctx context.Context, d *db.DB, id int64) (map[int][2]engine.GameRecord, error) {
	rows, err := d.MatchGames(ctx, id)
	if err != nil {
		return nil, err
	}
	half := map[int]*[2]*engine.GameRecord{}
	for _, r := range rows {
		var rec engine.GameRecord
		if err := json.Unmarshal([]byte(r.Record), &rec); err != nil {
			return nil, fmt.Errorf("match %d pair %d game %d: %w", id, r.Pair, r.Game, err)
		}
		if half[r.Pair] == nil {
			half[r.Pair] = &[2]*engine.GameRecord{}
		}
		half[r.Pair][r.Game-1] = &rec
	}
	out := map[int][2]engine.GameRecord{}
	for k, p := range half {
		if p[0] != nil && p[1] != nil {
			out[k] = [2]engine.GameRecord{*p[0], *p[1]}
		}
	}
	return out, nil
}

// matchSummary is a match's result as stored with it: games, W/D/L, pentanomial, Elo ±
// 95% (null when unknown), LLR and verdict under an SPRT, and whether it was interrupted.
func matchSummary(res tuner.MatchResult) any {
	s := struct {
		Games       int          `json:"games"`
		Result      stats.Result `json:"result"`
		Elo         *float64     `json:"elo"`
		EloCI95     *float64     `json:"elo_ci95"`
		LLR         *float64     `json:"llr,omitempty"`
		Verdict     string       `json:"verdict,omitempty"`
		Interrupted bool         `json:"interrupted,omitempty"`
	}{Games: res.Result.Games(), Result: res.Result, Verdict: res.Verdict, Interrupted: res.Interrupted}
	if e := res.Estimate; e != nil && math.Abs(e.Elo) < 1e8 {
		elo, ci := e.Elo, e.CI95
		s.Elo, s.EloCI95 = &elo, &ci
	}
	if res.SPRT != nil {
		llr := res.LLR
		s.LLR = &llr
	}
	return s
}
