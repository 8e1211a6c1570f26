package gomoku

import (
	"math/bits"
	"sync"

	"evotune/engine"
	"evotune/engine/search"
)

// Threats: the forced results a leaf can see without searching (001_4cd63e63655ef194.txt
// §1.3: "a side to move with a four wins in one; a live three … wins in two") and the
// forced-move lists of move generation (002_1c361d516f9a1960.txt: a four or a live three
// of either side is answered first).
//
// Terms: a five-point of colour c is an empty point where c's stone makes five; a four is
// a shape with a five-point; a double threat point of c is an empty point where c's stone
// makes two or more distinct five-points (an open four, or two fours at once), which wins
// unless the opponent can make five first.

// fiveBit marks, in a threatTables() entry, that the centre stone itself makes five or more
// in that direction; bits 0…8 are the points (offsets −4…4 from the centre) that become
// five-points when the centre is played.
const fiveBit = 1 << 9

// threatTables()[c][idx] is indexed like dirWindowScores(): the 8 neighbours of a point in one
// direction (2 bits each: 0 empty, 1 Black, 2 White, 3 off the board).
// It is built on first use.
var threatTables = sync.OnceValue(func() *[2][1 << 16]uint16 {
	t := new([2][1 << 16]uint16)
	for idx := range t[0] {
		cells := unpackNeighbourhood(idx)
		for c := 0; c < 2; c++ {
			own := c + 1
			cells[4] = own
			var e uint16
			for s := 0; s < 5; s++ { // the 5-windows cells[s:s+5] hold the centre
				n, empty, blocked := 0, -1, false
				for j := s; j < s+5; j++ {
					switch cells[j] {
					case own:
						n++
					case 0:
						empty = j
					default:
						blocked = true
					}
				}
				switch {
				case blocked:
				case n == 5:
					e |= fiveBit
				case n == 4:
					e |= 1 << empty
				}
			}
			t[c][idx] = e
		}
		cells[4] = 0
	}
	return t
})

// neighbourhoods returns the threatTables()/dirWindowScores() index of m in each direction
// (0: x, 1: y, 2: diagonal, 3: anti-diagonal, as dirs): 2 bits per neighbour at offsets
// −4…−1, +1…+4 (0 empty, 1 Black, 2 White, 3 off the board), kept incrementally by setCell.
func (p *Position) neighbourhoods(m Move) [4]uint16 { return p.nbh[m] }

// neighbourhood is neighbourhoods(m)[k] alone.
func (p *Position) neighbourhood(m Move, k int) uint16 { return p.nbh[m][k] }

// gatherNeighbourhoods computes neighbourhoods(m) from the padded board (NewPosition's
// initial state; setCell keeps nbh up to date from there, and tests compare the two).
func (p *Position) gatherNeighbourhoods(m Move) (idx [4]uint16) {
	w := p.g.n + 2*pad
	c := int(m)%p.g.n + pad + (int(m)/p.g.n+pad)*w
	pd := p.padded
	for k, step := range [4]int{1, w, w + 1, 1 - w} {
		idx[k] = uint16(pd[c-4*step]) | uint16(pd[c-3*step])<<2 | uint16(pd[c-2*step])<<4 |
			uint16(pd[c-step])<<6 | uint16(pd[c+step])<<8 | uint16(pd[c+2*step])<<10 |
			uint16(pd[c+3*step])<<12 | uint16(pd[c+4*step])<<14
	}
	return idx
}

// threatsAt returns how many distinct five-points c's stone on the empty point m would
// create over the 4 directions. Under the standard and renju rules a five-point found here
// may be an overline; callers that need exactness confirm by playing (confirmDouble).
func (p *Position) threatsAt(m Move, c engine.Color) (fivePoints int) {
	for _, idx := range p.neighbourhoods(m) {
		fivePoints += bits.OnesCount16(p.thrTab[c][idx] &^ fiveBit)
	}
	return fivePoints
}

// fivePoints counts c's five-points (exactly, under the position's rule), stopping at
// limit, and returns the first. A five-point lies on a line holding one of c's four
// patterns (see MatchSegment's four templates), so only those lines are scanned; a point
// on two such lines is counted once.
func (p *Position) fivePoints(c engine.Color, limit int) (n int, first Move) {
	first = -1
	if p.fours[c] == 0 {
		return 0, first
	}
	var seen [2]Move
	for li := range p.lineFours {
		if p.lineFours[li][c] == 0 {
			continue
		}
	cells:
		for _, m := range p.g.lines[li] {
			if p.cells[m] != 0 || !p.makesFive(Move(m), c) {
				continue
			}
			for _, s := range seen[:min(n, len(seen))] {
				if s == Move(m) {
					continue cells
				}
			}
			if n < len(seen) {
				seen[n] = Move(m)
			}
			if n == 0 {
				first = Move(m)
			}
			if n++; n >= limit {
				return n, first
			}
		}
	}
	return n, first
}

// doubleThreat returns a double threat point of c (checked by playing it and counting
// the five-points it leaves, so it is exact under every rule; under renju never a point
// forbidden to Black), if c has one. Each of the
// two fives needs three of c's stones in a 5-window with the point, which the pattern
// matcher counts as a three pattern of that line: only lines holding one are scanned, and
// on them only the points that make a five-point along the line itself.
func (p *Position) doubleThreat(c engine.Color) (Move, bool) {
	if p.threes[c] == 0 {
		return -1, false
	}
	for li := range p.lineThree {
		if p.lineThree[li][c] == 0 {
			continue
		}
		d := int(p.g.lineDir[li])
		for _, m := range p.g.lines[li] {
			if p.cells[m] != 0 || p.thrTab[c][p.neighbourhood(Move(m), d)]&^fiveBit == 0 {
				continue
			}
			if p.threatsAt(Move(m), c) >= 2 && p.confirmDouble(Move(m), c) &&
				!(p.rule == Renju && c == engine.Black && p.Forbidden(Move(m))) {
				return Move(m), true
			}
		}
	}
	return -1, false
}

// confirmDouble plays c's stone on m and reports whether c then has two five-points.
func (p *Position) confirmDouble(m Move, c engine.Color) bool {
	stm := p.stm
	p.stm = c
	p.Make(m)
	n, _ := p.fivePoints(c, 2)
	p.Unmake(m)
	p.stm = stm
	return n >= 2
}

// Foresee implements search.Foreseer for the side to move S against O (plies to a forced
// win, minus plies to a forced loss, 0 for none):
//   - S has a five-point: S wins in 1 ply (exact);
//   - O has two five-points: S cannot block both, O wins in 2 plies (exact);
//   - O has one five-point: S must block it; nothing is claimed;
//   - S has a double threat point: S plays it and wins in 3 plies (exact: O has no
//     five-point, so it cannot make five before S does).
//
// 001 §1.3's further rules of thumb (a dead three with a live two wins in three moves)
// are not claimed: they are not forced, and the pattern scores already weigh them.
func (p *Position) Foresee() int {
	s, o := p.stm, p.stm.Opponent()
	if n, _ := p.fivePoints(s, 1); n > 0 {
		return 1
	}
	switch n, _ := p.fivePoints(o, 2); {
	case n >= 2:
		return -2
	case n == 1:
		return 0
	}
	if _, ok := p.doubleThreat(s); ok {
		return 3
	}
	return 0
}

// forcedMoves returns, when the side to move must answer a threat, the only moves worth
// searching (appended to buf) and true:
//   - S's five-point (it wins);
//   - else O's five-points (S must block; with two or more S loses anyway);
//   - else S's double threat point (it wins in 3);
//   - else, when O has a double threat point, the points where O would make a four (every
//     block of O's threat is one) and the points where S makes a four (a counter-threat
//     O must answer), each with its ordering score.
func (p *Position) forcedMoves(buf []search.Scored[Move]) ([]search.Scored[Move], bool) {
	s, o := p.stm, p.stm.Opponent()
	if n, m := p.fivePoints(s, 1); n > 0 {
		return append(buf, search.Scored[Move]{Move: m, Score: engine.Win}), true
	}
	if p.fours[o] > 0 {
		n0 := len(buf)
		for m := range p.cells {
			if p.cells[m] == 0 && p.near[m] > 0 && p.makesFive(Move(m), o) {
				buf = append(buf, search.Scored[Move]{Move: Move(m), Score: p.pointScore(Move(m))})
			}
		}
		if len(buf) > n0 {
			return buf, true
		}
	}
	if m, ok := p.doubleThreat(s); ok {
		return append(buf, search.Scored[Move]{Move: m, Score: engine.Win}), true
	}
	if _, ok := p.doubleThreat(o); !ok {
		return buf, false
	}
	for m := range p.cells {
		if p.cells[m] != 0 || p.near[m] == 0 {
			continue
		}
		var score int32
		var threat uint16
		for _, idx := range p.neighbourhoods(Move(m)) {
			score += p.winTab[idx]
			threat |= (p.thrTab[o][idx] | p.thrTab[s][idx]) &^ fiveBit
		}
		if threat != 0 {
			buf = append(buf, search.Scored[Move]{Move: Move(m), Score: int64(score)})
		}
	}
	return buf, true
}
