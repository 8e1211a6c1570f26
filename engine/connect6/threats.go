package connect6

import "evotune/engine"

// Foresee implements search.Foreseer (000_9752b1518ee42188.txt §1.1: a road — six
// consecutive points — holding K−2 = 4 or more stones of one colour and none of the
// other is a threat, completed by one two-stone move): for the side to move S against O,
//   - S has a threat: S completes six next move, a win in 1 ply;
//   - O has threats that no two stones can all block: whatever S does, O completes six
//     next move, a loss in 2 plies (S has no threat, so it cannot win first);
//   - otherwise nothing is proved (blockable threats are answered by GenMoves' blocking
//     pairs and scored by the search).
func (p *Position) Foresee() int {
	s, o := p.stm, p.stm.Opponent()
	if p.live[s] > 0 {
		return 1
	}
	if p.live[o] > 0 && !p.blockable(s, o) {
		return -2
	}
	return 0
}

// blockable reports whether c can put its two stones so that no road of opp holds ≥ K−2
// of opp's stones and none of c's.
func (p *Position) blockable(c, opp engine.Color) bool {
	found := false
	p.blocks(c, opp, func(int16, int16) bool {
		found = true
		return false
	})
	return found
}

// blocks calls yield(a, b) for every way for c to block all of opp's threat roads with
// two stones: b = NoPoint when a alone blocks them all (any second stone will do). It
// stops when yield returns false. With no threats it yields nothing.
func (p *Position) blocks(c, opp engine.Color, yield func(a, b int16) bool) {
	var threats [Roads]int16
	nt := 0
	for r := range p.cnt {
		if p.cnt[r][opp] >= K-2 && p.cnt[r][c] == 0 {
			threats[nt] = int16(r)
			nt++
		}
	}
	if nt == 0 {
		return
	}
	on := func(pt, r int16) bool {
		for _, q := range roadCells[r] {
			if q == pt {
				return true
			}
		}
		return false
	}
	// One stone must lie on the first threat road; the other on every road the first
	// does not block.
	var rest []int16
	for _, a := range roadCells[threats[0]] {
		if p.cells[a] != 0 {
			continue
		}
		rest = rest[:0]
		for _, r := range threats[1:nt] {
			if !on(a, r) {
				rest = append(rest, r)
			}
		}
		if len(rest) == 0 {
			if !yield(a, NoPoint) {
				return
			}
			continue
		}
		for _, b := range roadCells[rest[0]] {
			if p.cells[b] != 0 || b == a {
				continue
			}
			all := true
			for _, r := range rest[1:] {
				if !on(b, r) {
					all = false
					break
				}
			}
			if all && !yield(a, b) {
				return
			}
		}
	}
}
