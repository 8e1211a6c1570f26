package connect6

import (
	"slices"

	"evotune/engine"
	"evotune/engine/search"
)

// GenMoves appends the moves to search, each scored by V_after − V_pre for the mover
// (000_9752b1518ee42188.txt §3, pseudo-code steps 1–14), and returns buf:
//   - Black's first move: every empty point as a one-stone move;
//   - if the side to move has a road with 4 or 5 of its stones and none of the
//     opponent's, only the move that completes six;
//   - else if the opponent has such roads (threats), only the pairs that block every one
//     of them, when some pair can;
//   - else every pair (i<j) of candidate points: empty points within distance 2 (king
//     steps) of a stone.
//
// Pairs are scored with the scan chosen by SetScan; both scans give the same scores.
func (p *Position) GenMoves(buf []search.Scored[Move]) []search.Scored[Move] {
	c := p.stm
	opp := c.Opponent()
	if p.ply == 0 {
		for _, pt := range centreFirst {
			if p.cells[pt] == 0 {
				buf = append(buf, search.Scored[Move]{Move: Move{pt, NoPoint}, Score: p.pointDelta(pt, c)})
			}
		}
		return buf
	}
	p.cand = p.cand[:0]
	for pt := int16(0); pt < Points; pt++ {
		if p.cells[pt] == 0 && p.near[pt] > 0 {
			p.cand = append(p.cand, pt)
		}
	}
	if win, ok := p.winningMove(c, opp); ok {
		return append(buf, search.Scored[Move]{Move: win, Score: engine.Win})
	}
	var vpre int64
	if p.scan == GlobalScan {
		vpre = p.GlobalV(c)
	} else {
		for _, pt := range p.cand {
			p.delta[pt] = p.pointDelta(pt, c)
		}
	}
	n0 := len(buf)
	if buf = p.blockingPairs(buf, c, opp, vpre); len(buf) > n0 {
		return buf
	}
	for i, a := range p.cand {
		for _, b := range p.cand[i+1:] {
			buf = append(buf, search.Scored[Move]{Move: Move{a, b}, Score: p.pairScore(a, b, c, vpre)})
		}
	}
	return buf
}

// centreFirst lists the points by distance from the centre, so that among equally scored
// first moves (every point ≥5 from the edge lies on 24 roads) the centre comes first.
var centreFirst = func() []int16 {
	pts := make([]int16, Points)
	for i := range pts {
		pts[i] = int16(i)
	}
	d := func(p int16) int {
		x, y := int(p)%Size-Size/2, int(p)/Size-Size/2
		return x*x + y*y
	}
	slices.SortStableFunc(pts, func(a, b int16) int { return d(a) - d(b) })
	return pts
}()

// winningMove returns the move completing a road that holds ≥4 of c's stones and none of
// the opponent's.
func (p *Position) winningMove(c, opp engine.Color) (Move, bool) {
	if p.live[c] == 0 {
		return Move{}, false
	}
	for r := range p.cnt {
		if p.cnt[r][c] < K-2 || p.cnt[r][opp] != 0 {
			continue
		}
		m := Move{NoPoint, NoPoint}
		for _, pt := range roadCells[r] {
			if p.cells[pt] != 0 {
				continue
			}
			if m.P == NoPoint {
				m.P = pt
			} else {
				m.Q = pt
			}
		}
		if m.Q == NoPoint { // five in the road: any second stone will do
			for _, pt := range p.cand {
				if pt != m.P {
					m.Q = pt
					break
				}
			}
		}
		return m, m.Q != NoPoint
	}
	return Move{}, false
}

// blockingPairs appends every pair that leaves no opponent road with ≥4 stones and none of
// c's, if the opponent has such roads and some pair blocks all of them.
func (p *Position) blockingPairs(buf []search.Scored[Move], c, opp engine.Color, vpre int64) []search.Scored[Move] {
	if p.live[opp] == 0 {
		return buf
	}
	seen := map[Move]bool{}
	add := func(a, b int16) {
		if a > b {
			a, b = b, a
		}
		m := Move{a, b}
		if a == b || seen[m] {
			return
		}
		seen[m] = true
		buf = append(buf, search.Scored[Move]{Move: m, Score: p.pairScore(a, b, c, vpre)})
	}
	p.blocks(c, opp, func(a, b int16) bool {
		if b != NoPoint {
			add(a, b)
			return true
		}
		for _, q := range p.cand {
			add(a, q)
		}
		return true
	})
	return buf
}

// pointDelta is V_after − V_pre for c over the roads through pt when c plays pt alone.
func (p *Position) pointDelta(pt int16, c engine.Color) int64 {
	var d int64
	for _, r := range pointRoads[pt] {
		d += p.roadValue(int(r), c, 1) - p.roadValue(int(r), c, 0)
	}
	return d
}

// pairScore is V_after − V_pre for c playing the empty points a and b.
//
// GlobalScan places both stones and evaluates all 924 roads (vpre is V_pre).
//
// LocalScan (§2, Eq. 10) looks only at the roads through a or b: their change is the sum of
// the one-stone changes (delta, computed once per node for every candidate) plus, for each
// road holding both a and b, the correction v(+2) − 2·v(+1) + v(0), since such a road
// receives both stones at once. This is exactly V′_after − V′_pre over those ≤48 roads.
func (p *Position) pairScore(a, b int16, c engine.Color, vpre int64) int64 {
	if p.scan == GlobalScan {
		p.bump(a, c, 1)
		p.bump(b, c, 1)
		v := p.GlobalV(c)
		p.bump(b, c, -1)
		p.bump(a, c, -1)
		return v - vpre
	}
	s := p.delta[a] + p.delta[b]
	ax, ay, bx, by := int(a)%Size, int(a)/Size, int(b)%Size, int(b)/Size
	dx, dy := bx-ax, by-ay
	if dx < 0 || (dx == 0 && dy < 0) {
		ax, ay, dx, dy = bx, by, -dx, -dy // walk from the point with smaller x (or y)
	}
	var d, k int
	switch {
	case dy == 0:
		d, k = 0, dx
	case dx == 0:
		d, k = 1, dy
	case dx == dy:
		d, k = 2, dx
	case dx == -dy:
		d, k = 3, dx
	default:
		return s
	}
	if k >= K {
		return s
	}
	for j := 0; j <= K-1-k; j++ {
		sx, sy := ax-j*dirs[d][0], ay-j*dirs[d][1]
		if sx < 0 || sx >= Size || sy < 0 || sy >= Size {
			break
		}
		r := roadStart[d][sy*Size+sx]
		if r < 0 {
			continue
		}
		s += p.roadValue(int(r), c, 2) - 2*p.roadValue(int(r), c, 1) + p.roadValue(int(r), c, 0)
	}
	return s
}

// bump adds (d=1) or removes (d=−1) a stone of c at pt in the road counts only, for the
// global scan's simulated move.
func (p *Position) bump(pt int16, c engine.Color, d int8) {
	for _, r := range pointRoads[pt] {
		p.cnt[r][c] += d
	}
}
