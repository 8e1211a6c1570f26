package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/match"
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
	force      bool
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
	f.StringVar(&o.pgn, "pgn", "", "write every game as PGN to FILE (chess): appended as each game ends, written again in order at the end; a FILE that already holds games is refused unless --resume (appended to) or --force")
	f.BoolVar(&o.force, "force", false, "replace a --pgn FILE that already holds games")
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
	f.StringVar(&o.proto, "engine-protocol", "", "external engines' protocol: "+strings.Join(protocol.Names(), ", ")+" (default: the game's: "+config.DefaultProtocolsText()+"; connect6 engines may speak botzone, which takes openings)")
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
		if err := match.CheckName(n.name); err != nil {
			return fmt.Errorf("%s %w", n.flag, err)
		}
	}
	// A proof after a run leaves out the openings the run tuned on and those its own
	// verifications drew: on them the match would replay the run's verification.
	var exclude map[string]bool
	verified := 0
	if o.exclude != 0 {
		if exclude, _, verified, err = runstore.ProofExclusion(ctx, o.dbPath, o.exclude, g.Name()); err != nil {
			return fmt.Errorf("--exclude-run: %w", err)
		}
	}
	req := match.Request{Game: g, A: o.a, B: o.b, Games: o.games, Workers: o.workers, Board: o.board,
		MaxPlies: o.maxPlies, Seed: o.seed, SPRT: o.sprt, Openings: o.openings, SwapRule: o.swapRule, Limits: o.lim, Nodes: o.tour.nodes,
		MoveTime: o.moveTime, GameTime: o.gameTime, Overhead: o.overhead, Startup: o.startup, Protocol: o.proto,
		BotzoneJSON: o.bzJSON, BotzoneKeepRunning: o.bzKeep, EngineLogDir: o.logDir, Restart: o.restart, TimeControl: o.tour.tc, TimeMargin: o.tour.timeMargin,
		Resign: o.tour.resign, Draw: o.tour.draw, MaxMoves: o.tour.maxMoves, AOptions: o.tour.aOptions, BOptions: o.tour.bOptions,
		Book: o.tour.book, BookPlies: o.tour.bookPlies, BookOrder: o.tour.bookOrder, BookStart: o.tour.bookStart, PGN: o.tour.pgn, Exclude: exclude, ExcludeRun: o.exclude, ExcludeVerified: verified}
	plan, err := match.Prepare(ctx, req)
	if err != nil {
		return err
	}
	mc := &plan.Config
	setup, extA, extB, tc, label := &mc.Setup, mc.AExt, mc.BExt, mc.Setup.TimeControl, plan.OpeningsLabel
	aOpts, bOpts, pgnw := plan.AOptions, plan.BOptions, plan.PGN
	detach, err := o.cluster.attach(ctx, errOut, func(r arena.BatchRunner) { setup.Runner = r })
	if err != nil {
		return err
	}
	defer detach()
	if o.tour.nodes > 0 {
		if err := match.ProbeNodes(ctx, g, setup.Board, extA, extB); err != nil {
			return nodesError(err)
		}
	}
	if o.reportEvery < 0 {
		return fmt.Errorf("--report-every %d: want a number of games (0 = never)", o.reportEvery)
	}
	aName, bName := cmp.Or(o.aName, match.WithOptions(o.a, aOpts)), cmp.Or(o.bName, match.WithOptions(o.b, bOpts))
	// The match and every game as it ends go to the database: a match stopped keeps its
	// finished games, and the same command with --resume continues from them.
	d, store, err := runstore.OpenMatches(ctx, o.dbPath, o.resume)
	if errors.Is(err, runstore.ErrNoDatabase) {
		return fmt.Errorf("--resume: %s holds no stopped match of this command: there is no such file", o.dbPath)
	}
	if err != nil {
		return err
	}
	defer d.Close()
	spec := match.Spec{Key: req.Key(mc), Game: g.Name(), A: o.a, B: o.b, Games: o.games, Unfinished: true}
	var sess *match.Session
	if o.resume {
		spec.Resume = true
		if sess, err = match.Open(ctx, store, spec); errors.Is(err, match.ErrNotStored) {
			return fmt.Errorf("--resume: %s holds no stopped match of this command (a match resumes with the same game, players, options, games, seed, openings and limits; without --resume it starts anew)", o.dbPath)
		} else if err != nil {
			return err
		}
		fmt.Fprintf(errOut, "resuming match %d: %d of its %d pairs were played; they are kept\n", sess.ID(), len(sess.Done()), mc.Games/2)
	}
	var pgn *match.PGN
	if pgnw != nil {
		// Every game goes to the PGN as it ends; the file is written again, in pair order,
		// at the end. A resumed match appends to the file of the stopped one.
		if pgn, err = openPGN(o.tour.pgn, o.resume, o.tour.force); err != nil {
			return err
		}
		defer pgn.Close()
	}
	if sess == nil {
		if sess, err = match.Open(ctx, store, spec); err != nil {
			return err
		}
	}
	date := time.Now().UTC().Format("2006.01.02")
	prog := progress.NewMatch(errOut, "match")
	played := 0 // games ended
	res, err := sess.Play(ctx, *mc, pgn, func(mg match.Game) ([]byte, error) {
		return mg.PGN(pgnw, "evotune match", aName, bName, tc, date)
	}, match.WarnTo(errOut), func(done, total int, r stats.Result) {
		played = done
		prog.Update(done, total, r)
		if o.reportEvery > 0 && done%o.reportEvery == 0 && r.Games() > 0 {
			fmt.Fprintln(errOut, match.LiveLine(done, total, r, mc.SPRT))
		}
	})
	prog.Finish()
	if err != nil && res.Interrupted {
		// Stopped (Ctrl-C): the result of the pairs that ended, and every finished game.
		res.WriteInterrupted(out, played, o.tour.pgn)
		return fmt.Errorf("match stopped after %d of its %d games: %w; continue it with the same command and --resume", played, mc.Games, err)
	}
	if err != nil {
		return err
	}
	defer func() {
		if err == nil {
			err = res.NothingCounted() // a match of no counted game measured nothing
		}
	}()
	if pgn != nil {
		text, err := res.PGNText(pgnw, "evotune match", aName, bName, tc)
		if err == nil {
			err = pgn.Replace(text)
		}
		if err != nil {
			return fmt.Errorf("--pgn: %w", err)
		}
	}
	if o.json {
		return writeJSON(out, match.Report{Game: g.Name(), A: o.a, B: o.b, AName: aName, BName: bName, Openings: label, Limits: setup.Limits}.With(res))
	}
	plan.WriteText(out, g, aName, bName, o.lim.Depth, res, runview.SafeText)
	return nil
}

// nodesError is err, match.ProbeNodes' finding worded with the flags that work instead.
func nodesError(err error) error {
	var ignored *match.NodesIgnoredError
	if errors.As(err, &ignored) {
		return fmt.Errorf("--nodes %d: %v; give it --depth D (go depth), --tc or --move-time instead", ignored.Nodes, err)
	}
	return err
}

// openPGN opens a match's or tournament's --pgn (match.OpenPGN), its refusal of a file
// that holds games worded with the flags that allow it.
func openPGN(path string, resume, force bool) (*match.PGN, error) {
	pgn, err := match.OpenPGN(path, resume, force)
	var exists *match.PGNExistsError
	if errors.As(err, &exists) {
		return nil, fmt.Errorf("--pgn %s: %v: give --resume to continue the stopped match or tournament it holds, --force to replace it, or another --pgn (nothing was played)", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("--pgn: %w", err)
	}
	return pgn, nil
}
