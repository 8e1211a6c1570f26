package match

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/tuner/arena"
	"evotune/tuner/stats"
)

// Config is a match between two weights, A and B, of one game.
type Config struct {
	Setup arena.GameSetup
	A, B  engine.Weights
	// AExt and BExt, when set, make A or B an external engine (and failures forfeits).
	AExt, BExt *protocol.ExternalSpec
	// Games is the maximum number of games (even: pairs from one opening, colours swapped).
	Games int
	// Openings are used in order, pair k from opening k mod len(Openings).
	Openings arena.Openings
	// SPRT, if set, stops the match as soon as it accepts H0 or H1.
	SPRT    *stats.SPRT
	Workers int
	// OnGame, if set, is told each game as it ends (one at a time, in the order the games
	// end): what a match writes to its PGN and database before the match is over.
	OnGame func(Game)
	// Done holds pairs already played (a stopped match resumed: match --resume), by pair
	// index, their two records in game order: they are not played again, and count in
	// pair order as if they had been.
	Done map[int][2]engine.GameRecord
}

// Game is one game of a match.
type Game struct {
	Pair int `json:"pair"`
	// Game is 1 for the pair's game with A first to move, 2 for the other.
	Game    int `json:"game"`
	Opening int `json:"opening"`
	// AColour is A's colour in the engines' convention (black moves first, in every game);
	// ASide is A's side in the game's own names (chess: white moves first).
	AColour string            `json:"a_colour"`
	ASide   string            `json:"a_side"`
	AScore  float64           `json:"a_score"`
	Record  engine.GameRecord `json:"record"`
}

// Result is a finished (or SPRT-stopped) match, from A's side.
type Result struct {
	// Requested is the number of games asked for; Result counts the distinct games played.
	Requested int `json:"games_requested"`
	// Deterministic is true when both players are built-in engines with fixed-depth or
	// fixed-node limits: a game from one opening and colour assignment then always repeats,
	// so each is played and counted once.
	Deterministic bool `json:"deterministic"`
	// Warning says when more games were asked than distinct ones exist, or when pairs
	// repeated earlier ones move for move.
	Warning string `json:"warning,omitempty"`
	// RepeatedPairs counts colour-swapped pairs whose two games repeated an earlier pair's
	// move for move (two deterministic engines, built-in or not, from one opening): each
	// distinct pair is counted once, so they are not in Result, Games or the SPRT.
	RepeatedPairs int `json:"repeated_pairs"`
	// UnplayedPairs counts pairs with a game that a side forfeited before its first move
	// (engine.GameRecord.Unplayed: an engine that did not start or answer in time): they
	// say nothing about strength, so they are not in Result or the SPRT; their games are
	// in Unplayed, with the reasons.
	UnplayedPairs int    `json:"unplayed_pairs"`
	Unplayed      []Game `json:"unplayed"`
	// Interrupted is set when the match was stopped (its context cancelled) before its
	// end: the result is that of the pairs whose two games had ended, in pair order.
	Interrupted bool            `json:"interrupted,omitempty"`
	Result      stats.Result    `json:"result"`
	Estimate    *stats.Estimate `json:"estimate,omitempty"`
	SPRT        *stats.SPRT     `json:"sprt,omitempty"`
	LLR         float64         `json:"llr"`
	Lower       float64         `json:"llr_lower"`
	Upper       float64         `json:"llr_upper"`
	Verdict     string          `json:"verdict,omitempty"`
	Games       []Game          `json:"games"`
	Duration    time.Duration   `json:"duration_ns"`
}

// batchPairs is how many pairs are scheduled at once under an SPRT. It is fixed (not
// derived from the number of workers) so that where an SPRT stops never depends on
// --workers. A match without an SPRT schedules all its pairs at once: no worker waits at a
// batch's end for another's last game.
const batchPairs = 16

// Play plays cfg's pairs in batches on the worker pool and, under an SPRT, stops at the
// first pair (in pair order) where it decides. progress (may be nil) gets games done and
// the planned total.
func Play(ctx context.Context, cfg Config, progress func(done, total int, r stats.Result)) (Result, error) {
	start := time.Now()
	if cfg.Games < 2 || cfg.Games%2 != 0 {
		return Result{}, fmt.Errorf("games: %d, want a positive even number", cfg.Games)
	}
	if len(cfg.Openings) == 0 {
		return Result{}, errors.New("openings: none")
	}
	var res Result
	if cfg.SPRT != nil {
		if err := cfg.SPRT.Validate(); err != nil {
			return res, err
		}
		res.SPRT = cfg.SPRT
		res.Lower, res.Upper = cfg.SPRT.Bounds()
		res.Verdict = stats.Continue
	}
	if cfg.AExt != nil || cfg.BExt != nil {
		cfg.Setup.Forfeit = true
	}
	res.Requested = cfg.Games
	pairs := cfg.Games / 2
	res.Deterministic = cfg.AExt == nil && cfg.BExt == nil && cfg.Setup.Limits.Time == 0
	if res.Deterministic {
		// Two deterministic engines replay the same game from the same opening and colours:
		// count each distinct pair once (1 000 games on 26 openings were once 52
		// distinct games, reported as if independent).
		distinct := cfg.Openings.Distinct()
		cfg.Openings = distinct
		if pairs > len(distinct) {
			res.Warning = fmt.Sprintf("%d games asked, but deterministic engines have only %d distinct games (%d openings × 2 colours); each is played and counted once",
				cfg.Games, 2*len(distinct), len(distinct))
			pairs = len(distinct)
		}
	}
	var done atomic.Int64
	seen := map[string]bool{} // pairs played, by their moves
	// fold counts pair k (its two records, A first to move in the first) in pair order,
	// and reports whether the SPRT has decided.
	fold := func(k int, recs [2]engine.GameRecord) bool {
		// A is the task's Black in game 1 and White in game 2; a swap opening may have
		// exchanged the colours (GameRecord.Swapped).
		aCol := [2]engine.Color{engine.Black, engine.White}
		for j := range aCol {
			if recs[j].Swapped {
				aCol[j] = aCol[j].Opponent()
			}
		}
		key := fmt.Sprint(recs[0].Moves, aCol[0], recs[1].Moves, aCol[1])
		if seen[key] {
			res.RepeatedPairs++
			return false
		}
		seen[key] = true
		sa := recs[0].Outcome.Score(aCol[0])
		sb := recs[1].Outcome.Score(aCol[1])
		if recs[0].Unplayed || recs[1].Unplayed {
			res.UnplayedPairs++
			for j, s := range []float64{sa, sb} {
				res.Unplayed = append(res.Unplayed, Game{Pair: k, Game: j + 1, Opening: k % len(cfg.Openings), AColour: aCol[j].String(), ASide: engine.ColourName(cfg.Setup.Game, aCol[j]), AScore: s, Record: recs[j]})
			}
			return false
		}
		for j, s := range []float64{sa, sb} {
			switch s {
			case 1:
				res.Result.Wins++
			case 0:
				res.Result.Losses++
			default:
				res.Result.Draws++
			}
			res.Games = append(res.Games, Game{Pair: k, Game: j + 1, Opening: k % len(cfg.Openings), AColour: aCol[j].String(), ASide: engine.ColourName(cfg.Setup.Game, aCol[j]), AScore: s, Record: recs[j]})
		}
		res.Result.Penta[int((sa+sb)*2+0.5)]++
		if cfg.SPRT != nil {
			res.LLR = cfg.SPRT.LLR(res.Result)
			res.Verdict = cfg.SPRT.Verdict(res.LLR)
			return res.Verdict != stats.Continue
		}
		return false
	}
	// live is the result of the pairs ended so far, in the order they ended (the progress
	// line's; repeated pairs are not told apart until the end).
	var live stats.Result
	type pairEnd struct {
		recs [2]engine.GameRecord
		got  [2]bool
	}
	ended := map[int]*pairEnd{}
	batch := pairs
	if cfg.SPRT != nil {
		batch = batchPairs
	}
	for k, recs := range cfg.Done {
		if k < 0 || k >= pairs {
			continue
		}
		ended[k] = &pairEnd{recs: recs, got: [2]bool{true, true}}
		if !recs[0].Unplayed && !recs[1].Unplayed {
			addLive(&live, scoreOf(recs[0], engine.Black), scoreOf(recs[1], engine.White))
		}
		done.Add(2)
	}
	for first := 0; first < pairs; first += batch {
		last := min(first+batch, pairs)
		var tasks []arena.GameTask
		var pairOf []int // the pair of tasks 2i and 2i+1
		for k := first; k < last; k++ {
			if _, ok := cfg.Done[k]; ok {
				continue
			}
			pairOf = append(pairOf, k)
			o := cfg.Openings[k%len(cfg.Openings)]
			tasks = append(tasks, arena.GameTask{Black: cfg.A, White: cfg.B, BlackExt: cfg.AExt, WhiteExt: cfg.BExt, Opening: o, Name: fmt.Sprintf("pair%04d-game1", k)},
				arena.GameTask{Black: cfg.B, White: cfg.A, BlackExt: cfg.BExt, WhiteExt: cfg.AExt, Opening: o, Name: fmt.Sprintf("pair%04d-game2", k)})
		}
		recs, err := arena.PlayBatchEach(ctx, cfg.Setup, tasks, cfg.Workers, func(i int, rec engine.GameRecord) {
			k, j := pairOf[i/2], i%2
			p := ended[k]
			if p == nil {
				p = &pairEnd{}
				ended[k] = p
			}
			p.recs[j], p.got[j] = rec, true
			col := [2]engine.Color{engine.Black, engine.White}[j]
			if rec.Swapped {
				col = col.Opponent()
			}
			if cfg.OnGame != nil {
				cfg.OnGame(Game{Pair: k, Game: j + 1, Opening: k % len(cfg.Openings), AColour: col.String(), ASide: engine.ColourName(cfg.Setup.Game, col), AScore: rec.Outcome.Score(col), Record: rec})
			}
			if p.got[0] && p.got[1] && !p.recs[0].Unplayed && !p.recs[1].Unplayed {
				addLive(&live, scoreOf(p.recs[0], engine.Black), scoreOf(p.recs[1], engine.White))
			}
			n := done.Add(1)
			if progress != nil {
				progress(int(n), 2*pairs, live)
			}
		})
		if err != nil {
			if ctx.Err() == nil {
				return res, err
			}
			// Stopped: the pairs whose two games ended count, in pair order.
			for k := first; k < last; k++ {
				if p := ended[k]; p != nil && p.got[0] && p.got[1] {
					if fold(k, p.recs) {
						break
					}
				}
			}
			res.Interrupted = true
			finishMatch(&res, start)
			return res, err
		}
		played := map[int][2]engine.GameRecord{}
		for i := 0; i < len(recs); i += 2 {
			played[pairOf[i/2]] = [2]engine.GameRecord{recs[i], recs[i+1]}
		}
		stop := false
		for k := first; k < last && !stop; k++ {
			if r, ok := cfg.Done[k]; ok {
				stop = fold(k, r)
			} else {
				stop = fold(k, played[k])
			}
		}
		if stop {
			break
		}
	}
	if res.RepeatedPairs > 0 {
		w := fmt.Sprintf("%d of %d pairs repeated an earlier pair move for move (deterministic engines from one opening play one game): each distinct pair is counted once, %d in all",
			res.RepeatedPairs, res.RepeatedPairs+res.Result.Pairs(), res.Result.Pairs())
		res.Warning = strings.TrimPrefix(res.Warning+"; "+w, "; ")
	}
	if res.UnplayedPairs > 0 {
		w := fmt.Sprintf("%d pairs not counted: an engine forfeited before its first move (it did not start or answer in time; see the forfeits)", res.UnplayedPairs)
		res.Warning = strings.TrimPrefix(res.Warning+"; "+w, "; ")
	}
	finishMatch(&res, start)
	return res, nil
}

// finishMatch sets res's estimate and duration.
func finishMatch(res *Result, start time.Time) {
	if e, err := res.Result.Estimate(); err == nil {
		res.Estimate = &e
	}
	res.Duration = time.Since(start)
}

// addLive counts a pair whose games A scored sa and sb in r.
func addLive(r *stats.Result, sa, sb float64) {
	r.Penta[int((sa+sb)*2+0.5)]++
	for _, s := range []float64{sa, sb} {
		switch s {
		case 1:
			r.Wins++
		case 0:
			r.Losses++
		default:
			r.Draws++
		}
	}
}

// scoreOf is A's score in a game record where A had colour col before any swap.
func scoreOf(rec engine.GameRecord, col engine.Color) float64 {
	if rec.Swapped {
		col = col.Opponent()
	}
	return rec.Outcome.Score(col)
}

// ThinkTimes summarises each player's time per move over the match: mean and longest,
// as the referee measured them (for an external engine, request to answer).
func (res Result) ThinkTimes() string {
	var total, longest [2]time.Duration
	var moves [2]int
	for _, g := range res.Games {
		for c := engine.Black; c <= engine.White; c++ {
			p := 0 // A
			if c.String() != g.AColour {
				p = 1
			}
			total[p] += g.Record.Think[c]
			longest[p] = max(longest[p], g.Record.MaxThink[c])
			moves[p] += g.Record.Moved[c]
		}
	}
	mean := func(p int) float64 {
		if moves[p] == 0 {
			return 0
		}
		return total[p].Seconds() / float64(moves[p])
	}
	return fmt.Sprintf("time per move: A mean %.3fs max %.3fs over %d moves; B mean %.3fs max %.3fs over %d moves",
		mean(0), longest[0].Seconds(), moves[0], mean(1), longest[1].Seconds(), moves[1])
}

// Forfeits describes the games of games lost by forfeit, one text each: the pair, A's
// colour in g's words, the reason and the first lines of the forfeiting engine's output
// (raw: the engine's text as it wrote it; a terminal needs it escaped).
func Forfeits(g engine.Game, games []Game) []string {
	var out []string
	for _, mg := range games {
		if mg.Record.Forfeit != "" {
			// AColour is the engine colour (black: the first mover); print the game's name.
			aSide := engine.Black
			if mg.AColour != engine.Black.String() {
				aSide = engine.White
			}
			l := fmt.Sprintf("pair %d (A %s): %s", mg.Pair, engine.ColourName(g, aSide), mg.Record.Forfeit)
			log := mg.Record.BlackLog
			if strings.HasPrefix(mg.Record.Forfeit, engine.ColourName(g, engine.White)) {
				log = mg.Record.WhiteLog
			}
			if log = strings.TrimSpace(log); log != "" {
				lines := strings.Split(log, "\n")
				if len(lines) > 3 {
					lines = append(lines[:3], fmt.Sprintf("… (%d lines in the --json record)", len(lines)))
				}
				l += "\n      engine output: " + strings.Join(lines, "\n      ")
			}
			out = append(out, l)
		}
	}
	return out
}

// Terminations counts the games by how they ended ("checkmate 40, adjudication: draw 12,
// time forfeit 1"), most frequent first; "" when no record says.
func Terminations(games []Game) string {
	n := map[string]int{}
	for _, g := range games {
		if t := g.Record.Termination; t != "" {
			n[t]++
		}
	}
	var keys []string
	for k := range n {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return n[keys[i]] > n[keys[j]] || n[keys[i]] == n[keys[j]] && keys[i] < keys[j] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, n[k]))
	}
	return strings.Join(parts, ", ")
}
