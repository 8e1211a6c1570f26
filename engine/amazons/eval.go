package amazons

import (
	"fmt"
	"math"
	"time"

	"evotune/engine"
	"evotune/engine/search"
)

// Scale converts the paper's real-valued evaluation to the searchers' integer units:
// 1 evaluation point = 1000 units.
const Scale = 1000

// Tables are the evaluation coefficients derived from Weights (§4):
// k_i(t) = A[i] + B[i]·t for t < Switch, and (LateK1, 0, 0, 0, 0) from Switch on.
type Tables struct {
	A, B   [5]float64
	Switch int
	LateK1 float64
	Equal  float64
	// NoBorderTurns: in the side's turns 1…NoBorderTurns GenMoves leaves out moves onto
	// an edge square, unless every move goes there (Weights.NoBorderTurns).
	NoBorderTurns int
}

// K returns k1…k5 at turn t.
func (t *Tables) K(turn int) [5]float64 {
	if turn >= t.Switch {
		return [5]float64{t.LateK1}
	}
	var k [5]float64
	for i := range k {
		k[i] = t.A[i] + t.B[i]*float64(turn)
	}
	return k
}

// Features are the five terms of the evaluation for one side (§3).
type Features struct {
	TQ, TK, P1, P2, Mobility float64
}

// Features computes tq, tk, p1, p2 and mobility for the side to move (§3). equal is the
// territory credit of a square both sides reach equally fast (or neither reaches).
// Distances are flood fills on 128-bit boards (bitboard.go), one layer per distance.
func (p *Position) Features(equal float64) Features {
	me, op := int(p.stm), int(p.stm.Opponent())
	var qm, qo, km, ko layers
	p.queenLayers(p.amBB[me], p.emptyBB, &qm)
	p.queenLayers(p.amBB[op], p.emptyBB, &qo)
	p.kingLayers(p.amBB[me], p.emptyBB, &km)
	p.kingLayers(p.amBB[op], p.emptyBB, &ko)
	return Features{
		TQ:       territoryOf(&qm, &qo, p.emptyBB, equal),
		TK:       territoryOf(&km, &ko, p.emptyBB, equal),
		P1:       positionP1(&qm, &qo),
		P2:       positionP2(&km, &ko, p.emptyBB),
		Mobility: float64(p.queenMoves(me)) / (float64(p.queenMoves(op)) + 0.00001),
	}
}

// queenMoves counts the squares colour c's amazons can move to (arrows not counted).
func (p *Position) queenMoves(c int) int {
	n := 0
	for _, a := range p.amazons[c] {
		for _, d := range p.dirs {
			for to := int(a) + d; p.cells[to] == empty; to += d {
				n++
			}
		}
	}
	return n
}

// EvaluateFloat is value = k1·tq + k2·tk + k3·p1 + k4·p2 + k5·mobility for the side to
// move, with k_i at the current turn (§4).
func (p *Position) EvaluateFloat() float64 {
	f := p.Features(p.tab.Equal)
	k := p.tab.K(p.Turn())
	return k[0]*f.TQ + k[1]*f.TK + k[2]*f.P1 + k[3]*f.P2 + k[4]*f.Mobility
}

// Evaluate is EvaluateFloat in integer units (×Scale), clamped well inside ±WinThreshold.
func (p *Position) Evaluate() int64 {
	v := math.Round(p.EvaluateFloat() * Scale)
	const lim = float64(engine.WinThreshold / 2)
	return int64(math.Max(-lim, math.Min(lim, v)))
}

// GenMoves appends every legal move with a cheap ordering score: the change in free
// neighbours of the moving amazon (to vs from) plus 2 for every opponent amazon next to
// the arrow minus 1 for every own amazon next to it. The score only orders the search at
// frontier nodes; wherever the width limit cuts, Rank replaces it by the evaluation first
// (search.Ranker), so the weights choose which moves are searched.
//
// In the first Tables.NoBorderTurns turns moves onto the edge are left out when any other
// move exists (the paper's practical rule).
func (p *Position) GenMoves(buf []search.Scored[Move]) []search.Scored[Move] {
	start := len(buf)
	buf = p.genMoves(buf)
	if p.tab == nil || p.Turn() > p.tab.NoBorderTurns {
		return buf
	}
	kept := buf[:start]
	for _, m := range buf[start:] {
		if !p.onEdge(m.Move.To) {
			kept = append(kept, m)
		}
	}
	if len(kept) == start {
		return buf // every move goes to the edge
	}
	return kept
}

// onEdge reports whether sq is on the board's outermost ring.
func (p *Position) onEdge(sq uint8) bool {
	x, y := p.xy(sq)
	return x == 0 || y == 0 || x == p.n-1 || y == p.n-1
}

func (p *Position) genMoves(buf []search.Scored[Move]) []search.Scored[Move] {
	c := int(p.stm)
	own, opp := int8(c+1), int8(2-c)
	for _, from := range p.amazons[c] {
		p.cells[from] = empty
		fromFree := p.free(int(from))
		for _, d := range p.dirs {
			for to := int(from) + d; p.cells[to] == empty; to += d {
				p.cells[to] = own
				base := int64(p.free(to)-fromFree) * 2
				for _, e := range p.dirs {
					for a := to + e; p.cells[a] == empty; a += e {
						var s int64
						for _, f := range p.dirs {
							switch p.cells[a+f] {
							case opp:
								s += 2
							case own:
								s--
							}
						}
						buf = append(buf, search.Scored[Move]{Move: Move{from, uint8(to), uint8(a)}, Score: base + s})
					}
				}
				p.cells[to] = empty
			}
		}
		p.cells[from] = own
	}
	return buf
}

// free counts the empty neighbours of sq.
func (p *Position) free(sq int) int {
	n := 0
	for _, d := range p.dirs {
		if p.cells[sq+d] == empty {
			n++
		}
	}
	return n
}

// Rank implements search.Ranker: each move's score becomes the evaluation after it from
// the mover's side (−Evaluate of the child), or a win when it leaves the opponent without
// a move; so the width cut keeps the moves the weighted evaluation (§4) likes best.
func (p *Position) Rank(moves []search.Scored[Move]) {
	for i := range moves {
		m := moves[i].Move
		p.Make(m)
		if p.HasMove() {
			moves[i].Score = -p.Evaluate()
		} else {
			moves[i].Score = engine.WinThreshold
		}
		p.Unmake(m)
	}
}

// RankStart times the full-width root ranking of the 10×10 start position with the
// paper's weights (every legal move made, evaluated and taken back, as the width cut at
// the root does), repeated reps times (≥ 1). It returns the moves ranked per repetition
// and the mean time of one ranking.
func RankStart(reps int) (moves int, each time.Duration) {
	p, _ := NewPosition(10, DefaultWeights().Tables())
	ms := p.GenMoves(nil)
	reps = max(reps, 1)
	start := time.Now()
	for range reps {
		p.Rank(ms)
	}
	return len(ms), time.Since(start) / time.Duration(reps)
}

// ExtraBench times the root ranking of the 10×10 start (RankStart, 20 repetitions) beside
// the bench suite (engine.ExtraBencher): key "root_ranking", the moves ranked, the seconds
// of one ranking and the evaluations per second.
func (Game) ExtraBench() (string, map[string]any, string) {
	moves, each := RankStart(20)
	eps := float64(moves) / each.Seconds()
	return "root_ranking", map[string]any{"moves": moves, "seconds": each.Seconds(), "evaluations_per_second": eps},
		fmt.Sprintf("root ranking of the 10×10 start: %d moves evaluated in %.2f ms (%.0f evaluations/s)", moves, each.Seconds()*1000, eps)
}
