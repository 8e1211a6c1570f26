package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/shlex"
	"github.com/spf13/cobra"

	"evotune/db"
	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/tuner"
	"evotune/tuner/progress"
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

// tourEngine is one engine of a tournament, as an --engine spec gives it (fastchess's
// -engine keys): its name, the player (an outside engine "cmd:PROG ARGS", a weights file
// or "default"), its options (NAME=VALUE) and its own node and depth limits (0: the
// tournament's) and clock (TC, engine.ParseTimeControl's text; "": the tournament's).
type tourEngine struct {
	Name    string   `json:"name"`
	Player  string   `json:"player"`
	Options []string `json:"options"`
	Nodes   int64    `json:"nodes"`
	Depth   int      `json:"depth"`
	TC      string   `json:"tc"`
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
		Example: "  evotune tournament --game chess --nodes 2000 --rounds 50 --book book.bin --pgn t.pgn \\\n" +
			"      --engine 'name=SF1 cmd=stockfish \"option.Skill Level=1\"' --engine 'name=SF5 cmd=stockfish \"option.Skill Level=5\"' \\\n" +
			"      --engine 'name=Toga cmd=toga2 depth=6'\n" +
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

// tourPairing is one pairing of a tournament: engines A and B (indices into the engine
// list), its planned match and, once played, its result.
type tourPairing struct {
	A, B int
	plan tuner.MatchPlan
	res  tuner.MatchResult
}

func runTournament(ctx context.Context, o tournamentOpts, out, errOut io.Writer) (err error) {
	g, _, err := resolveGame(o.gameOpts)
	if err != nil {
		return err
	}
	engines, err := parseTourEngines(o.engines)
	if err != nil {
		return err
	}
	if o.rounds < 1 {
		return fmt.Errorf("--rounds %d: want at least 1 (colour-swapped pairs per pairing)", o.rounds)
	}
	var pairings []*tourPairing
	for i := range engines {
		for j := i + 1; j < len(engines); j++ {
			if !o.gauntlet || i == 0 {
				pairings = append(pairings, &tourPairing{A: i, B: j})
			}
		}
	}
	// Every pairing is checked before the first game: a typo in the last engine's option
	// is found now, not after hours of play.
	probed := map[string]bool{}
	for _, p := range pairings {
		a, b := engines[p.A], engines[p.B]
		req := tuner.MatchRequest{Game: g, A: a.Player, B: b.Player, Games: 2 * o.rounds, Workers: o.workers, Board: o.board,
			MaxPlies: o.maxPlies, Seed: o.seed, Openings: o.openings, Limits: o.lim, Nodes: o.tour.nodes,
			MoveTime: o.moveTime, Overhead: protocol.DefaultMoveOverhead, Startup: protocol.StartupAllowance, TimeControl: o.tour.tc, TimeMargin: o.tour.timeMargin,
			Resign: o.tour.resign, Draw: o.tour.draw, MaxMoves: o.tour.maxMoves, AOptions: a.Options, BOptions: b.Options,
			Book: o.tour.book, BookPlies: o.tour.bookPlies, BookOrder: o.tour.bookOrder, BookStart: o.tour.bookStart, PGN: o.tour.pgn}
		plan, err := tuner.PlanMatch(ctx, req)
		if err != nil {
			return fmt.Errorf("pairing %s vs %s: %w", a.Name, b.Name, tourFlagNames(err.Error(), a.Name, b.Name))
		}
		for _, side := range []struct {
			e   tourEngine
			ext *protocol.ExternalSpec
		}{{a, plan.Config.AExt}, {b, plan.Config.BExt}} {
			if side.e.Nodes == 0 && side.e.Depth == 0 && side.e.TC == "" {
				continue
			}
			if side.ext == nil {
				return fmt.Errorf("--engine %s: nodes=, depth= and tc= are an outside engine's limits (cmd=); a built-in player searches at --depth/--nodes/--tc", side.e.Name)
			}
			// An engine's own limits replace the tournament's (Toga II ignores go nodes: it
			// plays at depth= while the others play at --nodes), and its own clock the
			// tournament's (the referee keeps each side's clock by its own control).
			if side.e.Nodes > 0 || side.e.Depth > 0 {
				side.ext.Nodes, side.ext.Depth = side.e.Nodes, side.e.Depth
			}
			if side.e.TC != "" {
				tc, err := engine.ParseTimeControl(side.e.TC)
				if err != nil {
					return fmt.Errorf("--engine %s: tc=%s: %w", side.e.Name, side.e.TC, err)
				}
				tc.Margin = o.tour.timeMargin
				side.ext.TimeControl = &tc
			}
		}
		for _, ext := range []*protocol.ExternalSpec{plan.Config.AExt, plan.Config.BExt} {
			if ext != nil && ext.Nodes > 0 && !probed[ext.Key()] {
				probed[ext.Key()] = true
				if err := probeNodes(ctx, ext.Nodes, g, plan.Config.Setup.Board, ext); err != nil {
					return err
				}
			}
		}
		p.plan = plan
	}
	d, err := db.Open(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	first := pairings[0].plan
	var pgn *os.File
	if first.PGN != nil {
		if pgn, err = openPGN(o.tour.pgn, o.resume); err != nil {
			return err
		}
		defer pgn.Close()
	}
	if o.resume {
		// A resumed tournament needs a stored pairing of this command: else the flags differ
		// from the stopped one's, and starting anew would be a silent mistake.
		found := false
		for _, p := range pairings {
			_, _, ok, err := d.LatestMatch(ctx, tournamentKey(o, g, engines, &p.plan.Config, p))
			if err != nil {
				return err
			}
			found = found || ok
		}
		if !found {
			return fmt.Errorf("--resume: %s holds no stopped tournament of this command (a tournament resumes with the same game, engines, rounds, seed, openings and limits; without --resume it starts anew)", o.dbPath)
		}
	}
	date := time.Now().UTC().Format("2006.01.02")
	start := time.Now()
	for k, p := range pairings {
		a, b := engines[p.A], engines[p.B]
		mc := &p.plan.Config
		key := tournamentKey(o, g, engines, mc, p)
		var id int64
		status := ""
		if o.resume {
			var found bool
			if id, status, found, err = d.LatestMatch(ctx, key); err != nil {
				return err
			}
			if found {
				if mc.Done, err = storedPairs(ctx, d, id); err != nil {
					return err
				}
				fmt.Fprintf(errOut, "resuming pairing %d (%s vs %s): %d of its %d pairs were played; they are kept\n", k+1, a.Name, b.Name, len(mc.Done), mc.Games/2)
			}
		}
		if id == 0 {
			if id, err = d.CreateMatch(ctx, key, g.Name(), a.Player, b.Player, mc.Games); err != nil {
				return err
			}
		} else if status != db.MatchFinished {
			if err := d.SetMatchStatus(ctx, id, db.MatchRunning, ""); err != nil {
				return err
			}
		}
		mc.OnGame = gameStorer(ctx, d, id, o.dbPath, pgn, o.tour.pgn, errOut, func(mg tuner.MatchGame) ([]byte, error) {
			return mg.PGN(p.plan.PGN, "evotune tournament", a.Name, b.Name, pgnClock(p), date)
		})
		var prog *progress.Match
		var update func(int, int, stats.Result)
		if status != db.MatchFinished {
			prog = progress.NewMatch(errOut, fmt.Sprintf("%s vs %s (%d/%d)", a.Name, b.Name, k+1, len(pairings)))
			update = prog.Update
		}
		res, err := tuner.PlayMatch(ctx, *mc, update)
		if prog != nil {
			prog.Finish()
		}
		p.res = res
		err = storeMatchEnd(ctx, d, id, res, err)
		if err != nil && res.Interrupted {
			fmt.Fprintf(out, "tournament interrupted in pairing %d of %d (%s vs %s): the pairs whose two games ended:\n", k+1, len(pairings), a.Name, b.Name)
			printTournament(out, engines, pairings[:k+1])
			return fmt.Errorf("tournament stopped in pairing %d of its %d: %w; continue it with the same command and --resume", k+1, len(pairings), err)
		}
		if err != nil {
			return fmt.Errorf("pairing %s vs %s: %w", a.Name, b.Name, err)
		}
	}
	if pgn != nil {
		var all strings.Builder
		for _, p := range pairings {
			text, err := p.res.PGNText(p.plan.PGN, "evotune tournament", engines[p.A].Name, engines[p.B].Name, pgnClock(p))
			if err != nil {
				return fmt.Errorf("--pgn: %w", err)
			}
			all.WriteString(text)
		}
		pgn.Close()
		if err := engine.WriteFileAtomic(o.tour.pgn, []byte(all.String())); err != nil {
			return fmt.Errorf("--pgn: %w", err)
		}
	}
	counted := 0
	for _, p := range pairings {
		counted += p.res.Result.Games()
	}
	if counted == 0 {
		return fmt.Errorf("no game was counted: every pair had a game forfeited before the forfeiting engine's first move (it did not start, or did not answer in time)")
	}
	if o.json {
		return writeJSON(out, tournamentJSON(g.Name(), o.gauntlet, engines, pairings, time.Since(start)))
	}
	kind := "round-robin"
	if o.gauntlet {
		kind = "gauntlet of " + engines[0].Name
	}
	mc := first.Config
	fmt.Fprintf(out, "tournament %s: %d engines, %s, %d pairings of %d games, openings %s, %s, %.1fs\n", g.Name(), len(engines), kind,
		len(pairings), 2*o.rounds, first.OpeningsLabel, mc.Setup.LimitsText(mc.AExt != nil || mc.BExt != nil, mc.AExt != nil && mc.BExt != nil, o.lim.Depth), time.Since(start).Seconds())
	for _, e := range engines {
		if e.Nodes > 0 || e.Depth > 0 || e.TC != "" {
			fmt.Fprintf(out, "%s plays at its own limits:%s\n", e.Name, ownLimits(e))
		}
	}
	for _, p := range pairings {
		if p.res.Warning != "" {
			fmt.Fprintf(out, "warning: %s vs %s: %s\n", engines[p.A].Name, engines[p.B].Name, p.res.Warning)
		}
	}
	printTournament(out, engines, pairings)
	for _, p := range pairings {
		for _, l := range append(tuner.Forfeits(g, p.res.Games), tuner.Forfeits(g, p.res.Unplayed)...) {
			fmt.Fprintf(out, "forfeit, %s vs %s: %s\n", engines[p.A].Name, engines[p.B].Name, runview.SafeText(l))
		}
	}
	return nil
}

// pgnClock is pairing p's clock as its PGN's TimeControl tag gives it: the control both
// engines play under, nil (no tag) when they play under none or under different ones.
func pgnClock(p *tourPairing) *engine.TimeControl {
	mc := p.plan.Config
	var tcs [2]*engine.TimeControl
	for i, ext := range []*protocol.ExternalSpec{mc.AExt, mc.BExt} {
		tcs[i] = mc.Setup.TimeControl
		if ext != nil && ext.TimeControl != nil {
			tcs[i] = ext.TimeControl
		}
	}
	if tcs[0] == nil || tcs[1] == nil || tcs[0].String() != tcs[1].String() {
		return nil
	}
	return tcs[0]
}

// ownLimits says engine e's own limits (" nodes 1000 depth 6 tc 10+0.1").
func ownLimits(e tourEngine) string {
	s := ""
	if e.TC != "" {
		s += " tc " + e.TC
	}
	if e.Nodes > 0 {
		s += fmt.Sprintf(" nodes %d", e.Nodes)
	}
	if e.Depth > 0 {
		s += fmt.Sprintf(" depth %d", e.Depth)
	}
	return s
}

// parseTourEngines reads the --engine specs: shell-style words (quotes keep blanks), each
// KEY=VALUE. Errors name the spec and the key; names must differ (each heads a row of the
// crosstable and PGN tags).
func parseTourEngines(specs []string) ([]tourEngine, error) {
	if len(specs) < 2 {
		return nil, fmt.Errorf("--engine: %d given, a tournament needs at least two", len(specs))
	}
	var out []tourEngine
	seen := map[string]int{}
	for i, spec := range specs {
		e, err := parseTourEngine(spec)
		if err != nil {
			return nil, fmt.Errorf("--engine %d (%q): %w", i+1, spec, err)
		}
		if j, ok := seen[e.Name]; ok {
			return nil, fmt.Errorf("--engine %d and %d are both named %q: give each a name= of its own", j+1, i+1, e.Name)
		}
		seen[e.Name] = i
		out = append(out, e)
	}
	return out, nil
}

// parseTourEngine reads one --engine spec.
func parseTourEngine(spec string) (tourEngine, error) {
	var e tourEngine
	words, err := shlex.Split(spec)
	if err != nil {
		return e, err
	}
	var cmd, args, weights string
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return e, fmt.Errorf("%q is not KEY=VALUE (keys: name, cmd, args, weights, option.NAME, nodes, depth, tc)", w)
		}
		switch {
		case k == "name":
			e.Name = v
		case k == "cmd":
			cmd = v
		case k == "args":
			args = v
		case k == "weights":
			weights = v
		case strings.HasPrefix(k, "option."):
			if strings.TrimPrefix(k, "option.") == "" {
				return e, fmt.Errorf("%q: no option name after option.", w)
			}
			e.Options = append(e.Options, strings.TrimPrefix(k, "option.")+"="+v)
		case k == "nodes":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 {
				return e, fmt.Errorf("nodes=%s: want a positive whole number", v)
			}
			e.Nodes = n
		case k == "depth":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > engine.MaxDepth {
				return e, fmt.Errorf("depth=%s: want 1 to %d", v, engine.MaxDepth)
			}
			e.Depth = n
		case k == "tc":
			if _, err := engine.ParseTimeControl(v); err != nil {
				return e, fmt.Errorf("tc=%s: %w", v, err)
			}
			e.TC = v
		default:
			return e, fmt.Errorf("unknown key %q (keys: name, cmd, args, weights, option.NAME, nodes, depth, tc)", k)
		}
	}
	switch {
	case cmd != "" && weights != "":
		return e, fmt.Errorf("cmd= and weights= both given: an engine is one or the other")
	case cmd != "":
		e.Player = strings.TrimSpace("cmd:" + cmd + " " + args)
	case args != "":
		return e, fmt.Errorf("args= without cmd=")
	case weights != "":
		e.Player = weights
	default:
		return e, fmt.Errorf("no cmd= (an outside engine) or weights= (a weights file or default)")
	}
	if e.Name == "" {
		e.Name = filepath.Base(cmd)
		if cmd == "" {
			e.Name = weights
		}
	}
	if strings.ContainsFunc(e.Name, func(r rune) bool { return r < 0x20 || r == 0x7f }) || len(e.Name) > 200 {
		return e, fmt.Errorf("name=%q: at most 200 characters, without control characters (it heads PGN tags)", e.Name)
	}
	return e, nil
}

// tourFlagNames rewrites a match planner's error for a tournament: its --a/--b and their
// options name the pairing's engines instead.
func tourFlagNames(msg, a, b string) error {
	r := strings.NewReplacer("--a-option", "--engine "+a+" option", "--b-option", "--engine "+b+" option", "--a:", "--engine "+a+":", "--b:", "--engine "+b+":")
	return fmt.Errorf("%s", r.Replace(msg))
}

// tournamentKey is what a pairing of a tournament asks, as stored with its match: the
// tournament (game, rule, every engine, gauntlet, rounds, seed, openings and their digest,
// limits, clocks, book, adjudication) and the pairing. A tournament resumes the stored
// matches of its keys.
func tournamentKey(o tournamentOpts, g engine.Game, engines []tourEngine, mc *tuner.MatchConfig, p *tourPairing) string {
	sum := sha256.Sum256([]byte(fmt.Sprint(mc.Openings)))
	b, _ := json.Marshal(struct {
		Tournament             []tourEngine
		Pairing                [2]int
		Game, Rule             string
		Gauntlet               bool
		Rounds, Board          int
		MaxPlies               int
		Seed                   int64
		Openings, Digest       string
		Limits                 engine.Limits
		Nodes                  int64
		MoveTime               time.Duration
		TC, Resign, Draw, Book string
		MaxMoves, BookPlies    int
		BookOrder              string `json:",omitempty"`
		BookStart              int    `json:",omitempty"`
	}{engines, [2]int{p.A, p.B}, g.Name(), engine.RuleOf(g), o.gauntlet, o.rounds, o.board, o.maxPlies, o.seed, o.openings,
		hex.EncodeToString(sum[:8]), o.lim, o.tour.nodes, o.moveTime, o.tour.tc, o.tour.resign, o.tour.draw, o.tour.book, o.tour.maxMoves, o.tour.bookPlies, o.tour.orderKey(), o.tour.startKey()})
	return string(b)
}

// tourStanding is one engine's line of a tournament's ranking: its record against the
// field (every game and colour-swapped pair it played, from its side), its score (nil: no
// game) and its Elo from that record (nil: no game, or a score of 0 or 1).
type tourStanding struct {
	Rank     int             `json:"rank"`
	Name     string          `json:"name"`
	Result   stats.Result    `json:"result"`
	Score    *float64        `json:"score"`
	Estimate *stats.Estimate `json:"estimate"`
}

// standings ranks the engines by score against the field (ties: by name).
func standings(engines []tourEngine, pairings []*tourPairing) []tourStanding {
	rec := make([]stats.Result, len(engines))
	for _, p := range pairings {
		rec[p.A] = rec[p.A].Plus(p.res.Result)
		rec[p.B] = rec[p.B].Plus(p.res.Result.Reversed())
	}
	var out []tourStanding
	for i, e := range engines {
		s := tourStanding{Name: e.Name, Result: rec[i]}
		if rec[i].Games() > 0 {
			score := rec[i].Score()
			s.Score = &score
		}
		if est, err := rec[i].Estimate(); err == nil {
			s.Estimate = &est
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		si, sj := out[i].Score, out[j].Score
		if si == nil || sj == nil {
			return si != nil && sj == nil
		}
		return *si > *sj
	})
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// printTournament prints the ranking (Elo against the field ± 95%, games, score, draws)
// and the crosstable: the points the row's engine scored against the column's, of the
// games they played (colour-swapped pairs whose two games ended).
func printTournament(out io.Writer, engines []tourEngine, pairings []*tourPairing) {
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tname\tElo ± 95%\tgames\tscore\tdraws\t")
	for _, s := range standings(engines, pairings) {
		elo, score, draws := "—", "—", "—"
		if s.Estimate != nil {
			elo = stats.FormatElo(s.Estimate.Elo, s.Estimate.EloLow, s.Estimate.EloHigh)
		}
		if n := s.Result.Games(); n > 0 {
			score = fmt.Sprintf("%.1f%%", 100**s.Score)
			draws = fmt.Sprintf("%.1f%%", 100*float64(s.Result.Draws)/float64(n))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t\n", s.Rank, s.Name, elo, s.Result.Games(), score, draws)
	}
	tw.Flush()
	fmt.Fprintln(out, "crosstable (the row's points against the column, of the games they played):")
	cell := map[[2]int]string{}
	for _, p := range pairings {
		r := p.res.Result
		pts := func(r stats.Result) string {
			return strconv.FormatFloat(float64(r.Wins)+float64(r.Draws)/2, 'f', -1, 64) + "/" + strconv.Itoa(r.Games())
		}
		cell[[2]int{p.A, p.B}], cell[[2]int{p.B, p.A}] = pts(r), pts(r.Reversed())
	}
	tw = tabwriter.NewWriter(out, 2, 4, 2, ' ', tabwriter.AlignRight)
	head := "\t"
	for _, e := range engines {
		head += e.Name + "\t"
	}
	fmt.Fprintln(tw, head)
	for i, e := range engines {
		line := e.Name + "\t"
		for j := range engines {
			c, ok := cell[[2]int{i, j}]
			switch {
			case i == j:
				c = "—"
			case !ok:
				c = "·"
			}
			line += c + "\t"
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// tournamentResult is tournament --json: the engines, each pairing's result from its first
// engine's side, the ranking and the seconds it took.
type tournamentResult struct {
	Game     string          `json:"game"`
	Gauntlet bool            `json:"gauntlet"`
	Engines  []tourEngine    `json:"engines"`
	Pairings []pairingResult `json:"pairings"`
	Ranking  []tourStanding  `json:"ranking"`
	Seconds  float64         `json:"seconds"`
}

// pairingResult is one pairing of tournament --json: A's and B's names, A's result and
// its estimate (null: no game), and the match's warning (null: none).
type pairingResult struct {
	A        string          `json:"a"`
	B        string          `json:"b"`
	Result   stats.Result    `json:"result"`
	Estimate *stats.Estimate `json:"estimate"`
	Warning  *string         `json:"warning"`
}

func tournamentJSON(game string, gauntlet bool, engines []tourEngine, pairings []*tourPairing, took time.Duration) tournamentResult {
	t := tournamentResult{Game: game, Gauntlet: gauntlet, Engines: engines, Ranking: standings(engines, pairings), Seconds: took.Seconds()}
	for i := range t.Engines {
		if t.Engines[i].Options == nil {
			t.Engines[i].Options = []string{}
		}
	}
	for _, p := range pairings {
		pr := pairingResult{A: engines[p.A].Name, B: engines[p.B].Name, Result: p.res.Result, Estimate: p.res.Estimate}
		if w := p.res.Warning; w != "" {
			pr.Warning = &w
		}
		t.Pairings = append(t.Pairings, pr)
	}
	return t
}
