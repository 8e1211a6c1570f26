package connect6

import (
	"testing"
)

// choose2 is C(e, 2), the number of two-stone moves on e empty points.
func choose2(e int64) int64 { return e * (e - 1) / 2 }

// TestPerft is Connect6's perft table (the rules of 000_9752b1518ee42188.txt §1.1: Black's
// first move is one stone, every later move two). Each count is checked against the closed
// form from counting empty points, computed here apart from the engine: from the start,
// perft(1) = 361 and perft(2) = 361·C(360, 2); after Black's first stone, perft(1) = C(360, 2)
// and perft(2) = C(360, 2)·C(358, 2); no line can be six before ply 6, so nothing ends
// sooner. A position with a six has no moves.
func TestPerft(t *testing.T) {
	g := Game{}
	for _, tc := range []struct {
		name  string
		moves []string
		depth int
		nodes int64
	}{
		{"start", nil, 1, 361},
		{"start", nil, 2, 361 * choose2(360)},
		{"after J10", []string{"J10"}, 1, choose2(360)},
		{"after J10", []string{"J10"}, 2, choose2(360) * choose2(358)},
		{"after J10 K10L10", []string{"J10", "K10L10"}, 1, choose2(358)},
		{"Black has six", []string{"J10", "A1C1", "K10L10", "A3C3", "M10N10", "A5C5", "O10A19"}, 1, 0},
	} {
		b, _ := g.NewBoard(0)
		for _, m := range tc.moves {
			if err := b.Play(m); err != nil {
				t.Fatal(err)
			}
		}
		if got := g.Perft(b, tc.depth); got != tc.nodes {
			t.Errorf("%s: perft(%d) = %d, want %d", tc.name, tc.depth, got, tc.nodes)
		}
	}
}
