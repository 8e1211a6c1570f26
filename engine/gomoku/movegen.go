package gomoku

import (
	"sync"

	"evotune/engine/search"
)

// windowWeight[k] scores a 5-window through a candidate holding k stones of one colour and
// none of the other: the point score of 002_1c361d516f9a1960.txt ("count the 5-windows
// through the point that hold no opponent stone and score them").
var windowWeight = [5]int64{1, 8, 64, 512, 8192}

// GenMoves appends the moves to search with ordering scores and returns buf:
//   - on the empty board, only the centre;
//   - when a threat must be answered, only the forced moves (forcedMoves: a five, the
//     blocks of the opponent's five, a winning double threat, or the answers to the
//     opponent's double threat);
//   - else every empty point within distance 2 (king steps) of a stone
//     (001_4cd63e63655ef194.txt §2: "the square of side 4 centred on each stone"),
//     scored by the attacking plus defending 5-window point score;
//   - under the renju rule, never a forbidden move of Black's (unless all are).
func (p *Position) GenMoves(buf []search.Scored[Move]) []search.Scored[Move] {
	if p.ply == 0 {
		return append(buf, search.Scored[Move]{Move: Move(p.g.centre)})
	}
	n0 := len(buf)
	if forced, ok := p.forcedMoves(buf); ok {
		return p.dropForbidden(forced, n0)
	}
	for m := range p.cells {
		if p.cells[m] == 0 && p.near[m] > 0 {
			buf = append(buf, search.Scored[Move]{Move: Move(m), Score: p.pointScore(Move(m))})
		}
	}
	return p.dropForbidden(buf, n0)
}

// pad is the border width of the padded board used by pointScore.
const pad = 4

// dirWindowScores()[i] is the point score contributed by one direction, indexed by the 8
// neighbours at offsets −4..−1, 1..4 (2 bits each: 0 empty, 1 Black, 2 White, 3 off the
// board). The score is symmetric in the colours, so one table serves both sides.
// It is built on first use (a process that never plays gomoku does not pay for it).
var dirWindowScores = sync.OnceValue(func() *[1 << 16]int32 {
	t := new([1 << 16]int32)
	for idx := range t {
		cells := unpackNeighbourhood(idx)
		var score int64
		for s := 0; s < 5; s++ {
			var nb, nw int
			blocked := false
			for _, v := range cells[s : s+5] {
				switch v {
				case 1:
					nb++
				case 2:
					nw++
				case 3:
					blocked = true
				}
			}
			if blocked {
				continue
			}
			if nw == 0 {
				score += windowWeight[nb]
			}
			if nb == 0 {
				score += windowWeight[nw]
			}
		}
		t[idx] = int32(score)
	}
	return t
})

// unpackNeighbourhood turns a table index (8 neighbours, 2 bits each, offsets −4…−1 then
// 1…4) into the 9 points −4…4 with the centre (index 4) empty.
func unpackNeighbourhood(idx int) (cells [9]int) {
	for k := 0; k < 8; k++ {
		v := (idx >> (2 * k)) & 3
		if k < 4 {
			cells[k] = v
		} else {
			cells[k+1] = v
		}
	}
	return cells
}

// pointScore sums windowWeight over the 5-windows through m, for both colours' windows
// (attack and defence), by one table look-up per direction on the padded board.
func (p *Position) pointScore(m Move) int64 {
	var score int32
	for _, idx := range p.neighbourhoods(m) {
		score += p.winTab[idx]
	}
	return int64(score)
}
