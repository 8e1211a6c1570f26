package amazons

import "math/bits"

// bb is a set of squares of an n×n board as 128 bits: square (x, y) from the top-left is
// bit y·(n+1) + x. Column n of every row is a guard that is never empty, so a shift that
// leaves the board sideways lands on a guard and stops, and shifts past either end drop
// out: a 10×10 board fits in 10·11 = 110 bits, an 8×8 in 72.
type bb struct{ lo, hi uint64 }

func (a bb) or(b bb) bb     { return bb{a.lo | b.lo, a.hi | b.hi} }
func (a bb) and(b bb) bb    { return bb{a.lo & b.lo, a.hi & b.hi} }
func (a bb) andNot(b bb) bb { return bb{a.lo &^ b.lo, a.hi &^ b.hi} }
func (a bb) zero() bool     { return a.lo|a.hi == 0 }
func (a bb) count() int     { return bits.OnesCount64(a.lo) + bits.OnesCount64(a.hi) }

// shift moves every square by k bits: k > 0 towards higher bits, k < 0 towards lower;
// |k| < 64.
func (a bb) shift(k int) bb {
	if k > 0 {
		return bb{a.lo << k, a.hi<<k | a.lo>>(64-k)}
	}
	k = -k
	return bb{a.lo>>k | a.hi<<(64-k), a.hi >> k}
}

func (a *bb) set(i int) {
	if i < 64 {
		a.lo |= 1 << i
	} else {
		a.hi |= 1 << (i - 64)
	}
}

func (a bb) has(i int) bool {
	if i < 64 {
		return a.lo>>i&1 == 1
	}
	return a.hi>>(i-64)&1 == 1
}

// maxLayers bounds the distance layers kept per side: a queen or king path on a 10×10
// board with arrows can be long, but no square is farther than the number of empty
// squares.
const maxLayers = 101

// layers are the squares first reached at each distance from one side's amazons:
// at[0] are the amazons themselves, at[d] the empty squares at distance d; cum[d] is
// at[0] ∪ … ∪ at[d]; n is the number of non-empty layers (cum[n−1] is everything
// reachable).
type layers struct {
	at, cum [maxLayers]bb
	n       int
}

// bitIndex converts a padded mailbox square to its bit.
func (p *Position) bitIndex(sq int) int {
	x, y := sq%p.w-1, sq/p.w-1
	return y*(p.n+1) + x
}

// bitboards returns the empty squares and each side's amazons.
func (p *Position) bitboards() (empty bb, am [2]bb) {
	for sq, v := range p.cells {
		switch v {
		case 0:
			empty.set(p.bitIndex(sq))
		case black, white:
			am[v-1].set(p.bitIndex(sq))
		}
	}
	return empty, am
}

// queenLayers fills l with the queen distances from the amazons in from through empty:
// the next layer is every empty square a queen move away from the last one.
func (p *Position) queenLayers(from, empty bb, l *layers) {
	dirs := p.bbDirs()
	p.fillLayers(from, empty, l, func(front bb) (next bb) {
		for _, d := range dirs {
			for g := front.shift(d).and(empty); !g.zero(); g = g.shift(d).and(empty) {
				next = next.or(g)
			}
		}
		return next
	})
}

// kingLayers fills l with the king distances from the amazons in from through empty.
func (p *Position) kingLayers(from, empty bb, l *layers) {
	dirs := p.bbDirs()
	p.fillLayers(from, empty, l, func(front bb) (next bb) {
		for _, d := range dirs {
			next = next.or(front.shift(d))
		}
		return next.and(empty)
	})
}

// bbDirs are the 8 directions as bit shifts.
func (p *Position) bbDirs() [8]int {
	s := p.n + 1
	return [8]int{1, -1, s, -s, s + 1, s - 1, -s + 1, -s - 1}
}

// fillLayers runs the breadth-first flood fill: layer 0 is from, each next layer is
// step(previous layer) less everything seen.
func (p *Position) fillLayers(from, empty bb, l *layers, step func(front bb) bb) {
	l.at[0], l.cum[0], l.n = from, from, 1
	front, seen := from, from
	for l.n < maxLayers {
		next := step(front).andNot(seen)
		if next.zero() {
			break
		}
		seen = seen.or(next)
		l.at[l.n], l.cum[l.n] = next, seen
		l.n++
		front = next
	}
}

// cumAt is cum[d], or everything reachable when d is past the last layer.
func (l *layers) cumAt(d int) bb {
	if d >= l.n {
		return l.cum[l.n-1]
	}
	return l.cum[d]
}

// territoryOf scores the empty squares from my and their layers as territory does, square
// by square: equal distance (reached by both or by neither) → equal; both reach, mine
// shorter → +1, longer → −1; only I reach → +2; only they reach → −2.
func territoryOf(me, op *layers, empty bb, equal float64) float64 {
	mine, theirs := me.cum[me.n-1], op.cum[op.n-1]
	both := mine.and(theirs).and(empty)
	onlyMine := mine.andNot(theirs).and(empty).count()
	onlyTheirs := theirs.andNot(mine).and(empty).count()
	neither := empty.andNot(mine).andNot(theirs).count()
	closer, farther, tie := 0, 0, 0
	for d := 1; d < me.n; d++ {
		m := me.at[d].and(both)
		closer += m.andNot(op.cumAt(d)).count()
		if d < op.n {
			tie += m.and(op.at[d]).count()
		}
	}
	for d := 1; d < op.n; d++ {
		farther += op.at[d].and(both).andNot(me.cumAt(d)).count()
	}
	return equal*float64(tie+neither) + float64(closer-farther) + 2*float64(onlyMine-onlyTheirs)
}

// positionP1 is 2·Σ (2^−dm − 2^−do) over empty squares, unreachable counting 0 (§3).
func positionP1(me, op *layers) float64 {
	var s float64
	for d := 1; d < max(me.n, op.n); d++ {
		var k int
		if d < me.n {
			k += me.at[d].count()
		}
		if d < op.n {
			k -= op.at[d].count()
		}
		s += float64(k) / float64(uint64(1)<<min(d, 62))
	}
	return 2 * s
}

// positionP2 is Σ min(1, max(−1, (dko − dkm)/6)) over empty squares (§3), unreachable
// being farther than any distance: clamp(x/6) = (#{j ∈ 1..6: x ≥ j} − #{j: x ≤ −j})/6.
func positionP2(me, op *layers, empty bb) float64 {
	return float64(aheadBy(me, op, empty)-aheadBy(op, me, empty)) / 6
}

// aheadBy counts, over j = 1…6, the empty squares a reaches at least j steps before b.
func aheadBy(a, b *layers, empty bb) int {
	n := 0
	for d := 1; d < a.n; d++ {
		at := a.at[d].and(empty)
		for j := 1; j <= 6; j++ {
			n += at.andNot(b.cumAt(d + j - 1)).count()
		}
	}
	return n
}
