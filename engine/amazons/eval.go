package amazons

import (
	"math"

	"evotune/engine"
	"evotune/engine/search"
)

// Scale converts the paper's real-valued evaluation to the searchers' integer units:
// 1 evaluation point = 1000 units.
const Scale = 1000

// unreachable is the distance of a square no amazon of a side can reach.
const unreachable = 127

// Tables are the evaluation coefficients derived from Weights (§4):
// k_i(t) = A[i] + B[i]·t for t < Switch, and (LateK1, 0, 0, 0, 0) from Switch on.
type Tables struct {
	A, B   [5]float64
	Switch int
	LateK1 float64
	Equal  float64
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

type evalScratch struct {
	dq, dk [2][]int8
	queue  []uint8
}

// distances fills dist with the queen (queen=true) or king distance of colour c's amazons
// to every square through empty squares; unreachable squares get `unreachable`.
func (p *Position) distances(c int, queen bool, dist []int8) {
	for i := range dist {
		dist[i] = unreachable
	}
	q := p.ev.queue[:0]
	for _, a := range p.amazons[c] {
		dist[a] = 0
		q = append(q, a)
	}
	for head := 0; head < len(q); head++ {
		sq := int(q[head])
		nd := dist[sq] + 1
		for _, d := range p.dirs {
			for to := sq + d; p.cells[to] == empty; to += d {
				if dist[to] > nd {
					dist[to] = nd
					q = append(q, uint8(to))
				} else if dist[to] < nd {
					// A shorter path already reached this square; squares beyond it on
					// this ray are reached at least as fast through it (queen), or are
					// not one king step away.
					break
				}
				if !queen {
					break
				}
			}
		}
	}
	p.ev.queue = q
}

// Features computes tq, tk, p1, p2 and mobility for the side to move (§3). equal is the
// territory credit of a square both sides reach equally fast (or neither reaches).
func (p *Position) Features(equal float64) Features {
	if p.ev.dq[0] == nil {
		for c := 0; c < 2; c++ {
			p.ev.dq[c] = make([]int8, len(p.cells))
			p.ev.dk[c] = make([]int8, len(p.cells))
		}
	}
	me, op := int(p.stm), int(p.stm.Opponent())
	for c := 0; c < 2; c++ {
		p.distances(c, true, p.ev.dq[c])
		p.distances(c, false, p.ev.dk[c])
	}
	var f Features
	dqm, dqo, dkm, dko := p.ev.dq[me], p.ev.dq[op], p.ev.dk[me], p.ev.dk[op]
	for sq, v := range p.cells {
		if v != empty {
			continue
		}
		f.TQ += territory(dqm[sq], dqo[sq], equal)
		f.TK += territory(dkm[sq], dko[sq], equal)
		if dqm[sq] != dqo[sq] {
			f.P1 += pow2neg(dqm[sq]) - pow2neg(dqo[sq])
		}
		f.P2 += math.Max(-1, math.Min(1, float64(int(dko[sq])-int(dkm[sq]))/6))
	}
	f.P1 *= 2
	f.Mobility = float64(p.queenMoves(me)) / (float64(p.queenMoves(op)) + 0.00001)
	return f
}

// territory scores one square from my and their distance (§3): equal → equal; both reach,
// mine shorter → +1, longer → −1; only I reach → +2; only they reach → −2.
func territory(mine, theirs int8, equal float64) float64 {
	switch {
	case mine == theirs:
		return equal
	case theirs == unreachable:
		return 2
	case mine == unreachable:
		return -2
	case mine < theirs:
		return 1
	}
	return -1
}

func pow2neg(d int8) float64 {
	if d == unreachable {
		return 0
	}
	return math.Ldexp(1, -int(d))
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
// the arrow minus 1 for every own amazon next to it. The searcher's width limit then keeps
// the best few, which makes depth 2 practical for self-play (1000+ moves a node, §2).
func (p *Position) GenMoves(buf []search.Scored[Move]) []search.Scored[Move] {
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
