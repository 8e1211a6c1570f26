package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/tuner/match"
	"evotune/tuner/progress"
	"evotune/tuner/runstore"
	"evotune/tuner/runview"
	"evotune/tuner/stats"
)

// tournamentOpts are the tournament command's flags: the engines, round-robin or gauntlet,
// the rounds, and what match has for every game (clocks, books, adjudication, storage).
type tournamentOpts struct {
	gameOpts
	engines  []string
	gauntlet bool
	rounds   int
	openings string
	board    int
	lim      engine.Limits
	workers  int
	seed     int64
	maxPlies int
	json     bool
	moveTime time.Duration
	dbPath   string
	resume   bool
	tour     tourOpts
}

func newTournamentCmd() *cobra.Command {
	var o tournamentOpts
	c := &cobra.Command{
		Use:   "tournament --game G --engine 'name=A cmd=PROG option.NAME=VALUE nodes=N depth=D' --engine … [--gauntlet] [--rounds N]",
		Short: "Play a round-robin or gauntlet of N engines in colour-swapped pairs and print a crosstable and each engine's Elo",
		Long: "tournament plays every pairing of its engines (round-robin) or the first engine against each other one (--gauntlet),\n" +
			"--rounds colour-swapped pairs per pairing, from the same openings in every pairing, one pairing after another on\n" +
			"--workers game slots. Each --engine is a list of KEY=VALUE as fastchess's -engine writes it: name=, cmd= (an outside\n" +
			"engine speaking the game's protocol; args= adds its arguments) or weights= (a weights file or 'default': a built-in\n" +
			"player), option.NAME=VALUE (repeatable), nodes=, depth= and tc= (this engine's own limits and clock; cmd= engines).\nA value with blanks" +
			" is quoted: \"option.Skill Level=3\". Every game is stored in --db as it ends and appended to --pgn; a tournament stopped\n" +
			"continues with the same command and --resume. The report ranks the engines by score with each one's Elo against the\n" +
			"field (± 95%, from its colour-swapped pairs) and prints the crosstable.",
		Args: cobra.NoArgs,
		Example: "  evotune tournament --game chess --nodes 2000 --rounds 50 --book engine/chess/testdata/two-ply.bin --pgn t.pgn \\\n" +
			"      --engine 'name=SF1 cmd=/usr/games/stockfish \"option.Skill Level=1\"' --engine 'name=SF5 cmd=/usr/games/stockfish \"option.Skill Level=5\"' \\\n" +
			"      --engine 'name=Toga cmd=/usr/games/toga2 depth=6'\n" +
			"  evotune tournament --game gomoku --depth 3 --rounds 100 --gauntlet --engine 'name=tuned weights=best.json' --engine weights=default --engine weights=older.json",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTournament(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addGameFlags(c, &o.gameOpts)
	f := c.Flags()
	f.StringArrayVar(&o.engines, "engine", nil, "an engine: KEY=VALUE list of name=, cmd= (args=) or weights=, option.NAME=VALUE, nodes=, depth=, tc= (repeat for each engine; at least two)")
	f.BoolVar(&o.gauntlet, "gauntlet", false, "the first --engine plays each other one (default: every pairing, a round-robin)")
	f.IntVar(&o.rounds, "rounds", 10, "colour-swapped pairs per pairing (each two games from one opening)")
	f.StringVar(&o.openings, "openings", "", "random (the held-out half of the opening space), builtin, none or an opening file (default: random)")
	f.IntVar(&o.board, "board", 0, "board side (0 = the game's default)")
	addLimitFlags(c, &o.lim)
	f.IntVar(&o.workers, "workers", runtime.NumCPU(), "games played at once (never changes results)")
	f.IntVar(&o.workers, "concurrency", runtime.NumCPU(), "alias of --workers (fastchess's name)")
	f.Int64Var(&o.seed, "seed", 1, "seed of random openings and of the book's order (every pairing plays the same openings)")
	f.IntVar(&o.maxPlies, "max-plies", 400, "adjudicate a game still going after this many plies as a draw (0 = no limit)")
	f.BoolVar(&o.json, "json", false, "print JSON")
	f.DurationVar(&o.moveTime, "move-time", 5*time.Second, "outside engines: time limit per move without --tc (exceeding it loses the game)")
	f.StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file: each pairing is stored as a match, every game as it ends")
	f.BoolVar(&o.resume, "resume", false, "continue the stopped tournament of this same command stored in --db (finished games are kept; the --pgn is appended to)")
	addTourFlags(c, &o.tour, false)
	return c
}

func runTournament(ctx context.Context, o tournamentOpts, out, errOut io.Writer) (err error) {
	g, _, err := resolveGame(o.gameOpts)
	if err != nil {
		return err
	}
	entrants, err := match.ParseEntrants(o.engines)
	if errors.Is(err, match.ErrFewEntrants) {
		return fmt.Errorf("--engine: %w", err)
	} else if err != nil {
		return fmt.Errorf("--engine %w", err)
	}
	tour := match.Tournament{Entrants: entrants, Gauntlet: o.gauntlet, Rounds: o.rounds, Base: match.Request{Game: g, Workers: o.workers, Board: o.board,
		MaxPlies: o.maxPlies, Seed: o.seed, Openings: o.openings, Limits: o.lim, Nodes: o.tour.nodes,
		MoveTime: o.moveTime, Overhead: protocol.DefaultMoveOverhead, Startup: protocol.StartupAllowance, TimeControl: o.tour.tc, TimeMargin: o.tour.timeMargin,
		Resign: o.tour.resign, Draw: o.tour.draw, MaxMoves: o.tour.maxMoves,
		Book: o.tour.book, BookPlies: o.tour.bookPlies, BookOrder: o.tour.bookOrder, BookStart: o.tour.bookStart, PGN: o.tour.pgn}}
	pairings := tour.Pairings()
	// Every pairing is checked, and every engine's go nodes probed, before the first game.
	var ee *match.EntrantError
	if err := tour.PlanAll(ctx, pairings); errors.As(err, &ee) {
		return fmt.Errorf("--engine %s: %w", ee.Name, ee.Err)
	} else if err != nil {
		return nodesError(err)
	}
	d, store, err := runstore.OpenMatches(ctx, o.dbPath, o.resume)
	if errors.Is(err, runstore.ErrNoDatabase) {
		return fmt.Errorf("--resume: %s holds no stopped tournament of this command: there is no such file", o.dbPath)
	}
	if err != nil {
		return err
	}
	defer d.Close()
	sessions := make([]*match.Session, len(pairings))
	if o.resume {
		// A resumed tournament needs a stored pairing of this command: else the flags differ
		// from the stopped one's, and starting anew would be a silent mistake. Nothing is
		// written before it is found.
		if sessions, err = tour.Resume(ctx, store, pairings); errors.Is(err, match.ErrNotStored) {
			return fmt.Errorf("--resume: %s holds no stopped tournament of this command (a tournament resumes with the same game, engines, rounds, seed, openings and limits; without --resume it starts anew)", o.dbPath)
		} else if err != nil {
			return err
		}
	}
	first := pairings[0].Plan
	var pgn *match.PGN
	if first.PGN != nil {
		if pgn, err = openPGN(o.tour.pgn, o.resume, o.tour.force); err != nil {
			return err
		}
		defer pgn.Close()
	}
	date := time.Now().UTC().Format("2006.01.02")
	start := time.Now()
	for k, p := range pairings {
		a, b := entrants[p.A], entrants[p.B]
		mc := &p.Plan.Config
		sess := sessions[k]
		if sess == nil {
			if sess, err = match.Open(ctx, store, match.Spec{Key: tour.Key(p), Game: g.Name(), A: a.Player, B: b.Player, Games: mc.Games}); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(errOut, "resuming pairing %d (%s vs %s): %d of its %d pairs were played; they are kept\n", k+1, a.Name, b.Name, len(sess.Done()), mc.Games/2)
		}
		var prog *progress.Match
		var update func(int, int, stats.Result)
		if !sess.Finished() {
			prog = progress.NewMatch(errOut, fmt.Sprintf("%s vs %s (%d/%d)", a.Name, b.Name, k+1, len(pairings)))
			update = prog.Update
		}
		res, err := sess.Play(ctx, *mc, pgn, func(mg match.Game) ([]byte, error) {
			return mg.PGN(p.Plan.PGN, "evotune tournament", a.Name, b.Name, p.Clock(), date)
		}, match.WarnTo(errOut), update)
		if prog != nil {
			prog.Finish()
		}
		p.Result = res
		if err != nil && res.Interrupted {
			fmt.Fprintf(out, "tournament interrupted in pairing %d of %d (%s vs %s): the pairs whose two games ended:\n", k+1, len(pairings), a.Name, b.Name)
			match.WriteTable(out, entrants, pairings[:k+1])
			return fmt.Errorf("tournament stopped in pairing %d of its %d: %w; continue it with the same command and --resume", k+1, len(pairings), err)
		}
		if err != nil {
			return fmt.Errorf("pairing %s vs %s: %w", a.Name, b.Name, err)
		}
	}
	if pgn != nil {
		text, err := tour.PGNText(pairings)
		if err == nil {
			err = pgn.Replace(text)
		}
		if err != nil {
			return fmt.Errorf("--pgn: %w", err)
		}
	}
	counted := 0
	for _, p := range pairings {
		counted += p.Result.Result.Games()
	}
	if counted == 0 {
		return fmt.Errorf("no game was counted: every pair had a game forfeited before the forfeiting engine's first move (it did not start, or did not answer in time)")
	}
	if o.json {
		return writeJSON(out, tour.Report(pairings, time.Since(start)))
	}
	tour.WriteText(out, pairings, o.lim.Depth, time.Since(start), runview.SafeText)
	return nil
}
