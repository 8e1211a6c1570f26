package gomoku

import (
	"evotune/engine"
	"evotune/engine/search"
)

// Renju (002_1c361d516f9a1960.txt §1; Gomocup's rule 4): Black wins only with exactly five
// in a row and may not play a forbidden move; White wins with five or more. A move of
// Black's is forbidden when, with the stone placed, it does not make exactly five and
// makes
//   - an overline: six or more in a row; or
//   - a double four: two or more fours (a four is a line with a point where Black would
//     make exactly five through the move; an open four _XXXX_ is one four, two fours on
//     one line, as in X_XXX_X, are two); or
//   - a double three: two or more lines with a real three — a line where one more Black
//     stone, itself not forbidden, makes an open four (both ends making exactly five).
//
// Whether the stone that would make the open four is forbidden is judged recursively, with
// the move placed: that is what makes a three that cannot become a real open four not a
// three.

// Forbidden reports whether Black's stone on the empty point m is a forbidden move under
// the renju rules (whatever the position's own rule).
func (p *Position) Forbidden(m Move) bool {
	if p.cells[m] != 0 {
		return false
	}
	p.cells[m] = 1
	defer func() { p.cells[m] = 0 }()
	over := false
	for d := range dirs {
		switch r := p.runThrough(m, engine.Black, d); {
		case r == 5:
			return false // five wins, whatever else the move makes
		case r > 5:
			over = true
		}
	}
	if over {
		return true
	}
	fours, threes := 0, 0
	for d := range dirs {
		if f := p.foursOnLine(m, d); f > 0 {
			fours += f
			continue
		}
		if p.realThree(m, d) {
			threes++
		}
	}
	return fours >= 2 || threes >= 2
}

// lineAt returns the point k steps from m along direction d, if on the board.
func (p *Position) lineAt(m Move, d, k int) (Move, bool) {
	n := p.g.n
	x, y := int(m)%n+k*dirs[d][0], int(m)/n+k*dirs[d][1]
	if x < 0 || x >= n || y < 0 || y >= n {
		return 0, false
	}
	return Move(y*n + x), true
}

// exactFiveAt reports whether a Black stone on the empty point e, k steps from m along d,
// makes exactly five in one run with m (Black's stone on m).
func (p *Position) exactFiveAt(m Move, d, k int, e Move) bool {
	step := 1
	if k < 0 {
		step = -1
	}
	for j := step; j != k; j += step { // every point between m and e must be Black's
		if q, _ := p.lineAt(m, d, j); p.cells[q] != 1 {
			return false
		}
	}
	p.cells[e] = 1
	r := p.runThrough(m, engine.Black, d)
	p.cells[e] = 0
	return r == 5
}

// fivePointsOnLine returns the points (as steps from m, −4…4) where Black would make
// exactly five through m along d; Black's stone is on m.
func (p *Position) fivePointsOnLine(m Move, d int) (ks [2]int, n int) {
	for k := -4; k <= 4 && n < 2; k++ {
		e, ok := p.lineAt(m, d, k)
		if k == 0 || !ok || p.cells[e] != 0 {
			continue
		}
		if p.exactFiveAt(m, d, k, e) {
			ks[n] = k
			n++
		}
	}
	return ks, n
}

// foursOnLine counts Black's fours through m along d (stone on m): an open four, whose two
// five-points are 5 apart, is one four; two five-points otherwise are two fours.
func (p *Position) foursOnLine(m Move, d int) int {
	ks, n := p.fivePointsOnLine(m, d)
	if n == 2 && ks[1]-ks[0] == 5 {
		return 1
	}
	return n
}

// realThree reports whether Black (stone on m) has a real three through m along d: some
// empty point f of the line where Black's stone makes an open four through m, and f is
// not itself forbidden.
func (p *Position) realThree(m Move, d int) bool {
	for k := -4; k <= 4; k++ {
		f, ok := p.lineAt(m, d, k)
		if k == 0 || !ok || p.cells[f] != 0 {
			continue
		}
		p.cells[f] = 1
		ks, n := p.fivePointsOnLine(m, d)
		open := n == 2 && ks[1]-ks[0] == 5
		p.cells[f] = 0
		if open && !p.Forbidden(f) {
			return true
		}
	}
	return false
}

// mayBeForbidden is a cheap necessary condition for Forbidden(m): a double three or double
// four needs two lines with at least two other Black stones within 4 points of m, and an
// overline or two fours on one line need one line with at least three within 5.
func (p *Position) mayBeForbidden(m Move) bool {
	lines := 0
	for d := range dirs {
		near, far := 0, 0
		for k := -5; k <= 5; k++ {
			q, ok := p.lineAt(m, d, k)
			if k == 0 || !ok || p.cells[q] != 1 {
				continue
			}
			far++
			if k >= -4 && k <= 4 {
				near++
			}
		}
		if far >= 3 {
			return true
		}
		if near >= 2 {
			lines++
		}
	}
	return lines >= 2
}

// dropForbidden removes Black's forbidden moves from moves[from:] under the renju rule,
// unless every one of them is forbidden (Black has lost anyway; the list is kept so the
// search still has a move to play).
func (p *Position) dropForbidden(moves []search.Scored[Move], from int) []search.Scored[Move] {
	if p.rule != Renju || p.stm != engine.Black {
		return moves
	}
	kept := moves[:from]
	var dropped []search.Scored[Move]
	for _, sm := range moves[from:] {
		if p.mayBeForbidden(sm.Move) && p.Forbidden(sm.Move) {
			dropped = append(dropped, sm)
			continue
		}
		kept = append(kept, sm)
	}
	if len(kept) == from {
		return append(kept, dropped...)
	}
	return kept
}
