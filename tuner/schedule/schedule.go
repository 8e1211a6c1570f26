// Package schedule turns a round's players, opponents and openings into the distinct games
// a batch plays (On) and credits the games' records back to the players (Credit), for the
// GA's generations and the methods on the run loop alike.
//
// Scheduling of a round's games:
//
//   - Common random numbers: everyone who plays a racing round plays the same openings
//     (from the tuning half of the opening space) against the same frozen references,
//     opening pair k against reference k mod len(references), both colours, at depth
//     Depths[k mod len(Depths)].
//   - Distinct games only: a game is identified by (Black's genes, White's genes, opening,
//     depth); identical genomes (elites and unchanged clones) share it, so it is played
//     once and counted once for each of them.
//   - Never against an identical genome: two identical deterministic engines from one
//     opening with colours swapped play the same game twice, pair score exactly 1 (½
//     each). Such a pair is not played and counts as two draws (the same score and the
//     same zero variance), so every individual's record still covers the same openings.
package schedule

import (
	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/record"
	"fmt"
	"math"
)

// Opponent is a reference a round's players play: built-in weights (X: their genes; nil
// for an outside engine of --opponent) or an external engine (Ext).
type Opponent struct {
	ID  string
	W   engine.Weights
	X   []float64
	Ext *protocol.ExternalSpec
}

// Entry is one game a player is credited with: the player (Ind, an index into the round's
// players), the opening pair (Pair), the player's colour, the opponent's ID, the game
// (Task, an index into the batch's Tasks; −1: not played, a draw against an identical
// genome), its depth and round.
type Entry struct {
	Ind, Pair int // Pair: index into the round's openings
	C         engine.Color
	Opp       string
	Task      int // −1: not played (identical genomes, a draw)
	Depth     int
	Round     int
}

// Batch collects a round's distinct games (Tasks, each once) and every game each player
// is credited with (Refs).
type Batch struct {
	Tasks []arena.GameTask
	index map[string]int
	Refs  []Entry
}

// Add adds task under key, once: it returns the index in Tasks of the task of that key.
func (b *Batch) Add(key string, task arena.GameTask) int {
	if b.index == nil {
		b.index = map[string]int{}
	}
	if i, ok := b.index[key]; ok {
		return i
	}
	b.Tasks = append(b.Tasks, task)
	b.index[key] = len(b.Tasks) - 1
	return len(b.Tasks) - 1
}

// Sides is what scheduling asks of a run: the side that plays genes x (built-in weights, or
// an outside engine's spec with the values), the depth of opening pair k (0: the game
// setup's) and the game (whether a side accepts openings of its moves).
type Sides interface {
	Side(x []float64) (engine.Weights, *protocol.ExternalSpec, error)
	DepthOf(k int) int
	Game() engine.Game
}

// GameKey identifies a distinct game: Black's and White's genes (or IDs), the opening
// pair and the depth.
func GameKey(black, white string, pair, depth int) string {
	return fmt.Sprintf("%s|%s|%d|%d", black, white, pair, depth)
}

// On adds the games of players[i] for i in inds, in that order (an entry's ind is
// the index into players), on opening pairs [first, first+n) of openings against refs to
// b: pair k against refs[k mod len(refs)], both colours, at pair k's depth. The error names
// a player whose genes make no side (Sides.Side).
func On(b *Batch, s Sides, players []*genomes.Genome, inds []int, refs []Opponent, openings [][]string, first, n, round int) error {
	refKeys := make([]string, len(refs))
	for j, o := range refs {
		if o.X != nil { // a genome of the run (not an --opponent engine)
			refKeys[j] = fmt.Sprint(o.X)
		}
	}
	for _, i := range inds {
		g := players[i]
		w, ext, err := s.Side(g.X)
		if err != nil {
			return fmt.Errorf("individual %s: %w", g.ID, err)
		}
		gk := fmt.Sprint(g.X)
		for k := first; k < first+n; k++ {
			o, refKey := refs[k%len(refs)], refKeys[k%len(refs)]
			d := s.DepthOf(k)
			for _, c := range []engine.Color{engine.Black, engine.White} {
				e := Entry{Ind: i, Pair: k, C: c, Opp: o.ID, Task: -1, Depth: d, Round: round}
				if o.X != nil && gk == refKey {
					b.Refs = append(b.Refs, e)
					continue
				}
				opening := openings[k]
				if !o.Ext.AcceptsOpenings(s.Game()) || !ext.AcceptsOpenings(s.Game()) {
					opening = nil // e.g. SAU engines cannot be given their own opening moves
				}
				task := arena.GameTask{Black: w, BlackExt: ext, White: o.W, WhiteExt: o.Ext, Opening: opening, Depth: d}
				key := GameKey(gk, o.ID, k, d)
				if c == engine.White {
					task = arena.GameTask{Black: o.W, BlackExt: o.Ext, White: w, WhiteExt: ext, Opening: opening, Depth: d}
					key = GameKey(o.ID, gk, k, d)
				}
				e.Task = b.Add(key, task)
				b.Refs = append(b.Refs, e)
			}
		}
	}
	return nil
}

// Credit credits every entry of b with its game of recs (b.Tasks' records, in order):
// the players' Stats (games and pentanomial pairs) and a row appended to results for each
// game played (its opening numbered from base). It returns the rows and the pair scores
// (0 to 2) by (player, opening pair).
func Credit(b *Batch, recs []engine.GameRecord, players []*genomes.Genome, base int, results []record.GameResult) ([]record.GameResult, map[[2]int]float64) {
	pairScore := map[[2]int]float64{}
	for _, r := range b.Refs {
		s := 0.5
		if r.Task >= 0 {
			rec := recs[r.Task]
			s = rec.Outcome.Score(r.C)
			results = append(results, record.GameResult{Individual: players[r.Ind].ID, Opponent: r.Opp, Opening: base + r.Pair,
				Colour: r.C, Score: s, Depth: r.Depth, Round: r.Round, Record: rec})
		}
		st := &players[r.Ind].Stats
		switch s {
		case 1:
			st.Wins++
		case 0:
			st.Losses++
		default:
			st.Draws++
		}
		pairScore[[2]int{r.Ind, r.Pair}] += s
	}
	for k, ps := range pairScore {
		players[k[0]].Stats.Penta[int(math.Round(ps*2))]++
	}
	return results, pairScore
}
