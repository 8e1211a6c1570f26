package gomoku

import (
	"testing"
)

// TestPerft is Gomoku's perft table, each count checked against a closed form computed
// here apart from the engine. From the empty 15×15 board every empty point is a move and no
// five can stand before ply 9: perft(1) = 225, perft(2) = 225·224, perft(3) = 225·224·223
// (any rule). Under renju a forbidden move of Black's is a move that loses at once (it has
// no children), so in the double-three position below — Black g8 i8 h7 h9, h8 the only
// forbidden point (every other point makes at most one three), e empty points —
// perft(2) = (e − 1)·(e − 1) under renju and e·(e − 1) under the standard rule.
func TestPerft(t *testing.T) {
	for _, tc := range []struct {
		depth int
		nodes int64
	}{{1, 225}, {2, 225 * 224}, {3, 225 * 224 * 223}} {
		for _, rule := range []Rule{Freestyle, Standard, Renju} {
			g := Game{Rule: rule}
			b, _ := g.NewBoard(0)
			if got := g.Perft(b, tc.depth); got != tc.nodes {
				t.Errorf("%v: perft(%d) = %d, want %d", rule, tc.depth, got, tc.nodes)
			}
		}
	}
	black, white := []string{"g8", "i8", "h7", "h9"}, []string{"a1", "a4", "a7", "a10"}
	for _, c := range []struct {
		rule Rule
		want func(e int64) int64
	}{
		{Renju, func(e int64) int64 { return (e - 1) * (e - 1) }},
		{Standard, func(e int64) int64 { return e * (e - 1) }},
	} {
		g := Game{Rule: c.rule}
		b, _ := g.NewBoard(0)
		for i := range black {
			play(t, b, black[i])
			play(t, b, white[i])
		}
		e := int64(225 - len(black) - len(white))
		if got := g.Perft(b, 1); got != e {
			t.Errorf("%v: perft(1) = %d, want %d (a forbidden move is still a move)", c.rule, got, e)
		}
		if got, want := g.Perft(b, 2), c.want(e); got != want {
			t.Errorf("%v: perft(2) = %d, want %d", c.rule, got, want)
		}
	}
}
