package connect6

import (
	"context"
	"testing"

	"evotune/engine"
)

// TestForesee is a table of Connect6 positions with a forced result (a threat road of the
// side to move: win in 1; threats no two stones can block: loss in 2) or none (a
// blockable threat), checked statically and by a depth-1 search of the default player's
// weights, whose scores count plies from the root.
func TestForesee(t *testing.T) {
	// White's fours A–D on rows 5, 15 and 1; Black's stones on columns O, Q, S with gaps.
	three := []string{"J10", "A5B5", "S19S17", "C5D5", "S15S13", "A15B15", "Q19Q17", "C15D15", "Q15Q13", "A1B1", "O19O17", "C1D1"}
	for _, tc := range []struct {
		name    string
		moves   []string
		foresee int
		score   int64 // depth-1 root score
	}{
		{"White to move with four in a row: win in 1", []string{"J10", "A5B5", "J12J14", "C5D5", "K3L3"}, 1, engine.Win - 1},
		{"Black to move facing one blockable four", []string{"J10", "A5B5", "J12J14", "C5D5"}, 0, 0},
		{"Black to move facing three fours: loss in 2", three, -2, -engine.Win + 2},
	} {
		b, _ := Game{}.NewBoard(0)
		mustPlay(t, b, tc.moves...)
		p := b.(*Board).Pos
		p.SetTables(DefaultWeights().Tables()) // a board is the rules alone: evaluate with the paper's tables
		if got := p.Foresee(); got != tc.foresee {
			t.Errorf("%s: Foresee %d, want %d", tc.name, got, tc.foresee)
		}
		pl, _ := NewPlayer(DefaultWeights(), engine.Limits{Depth: 1, Width: 10}, LocalScan)
		_, st, err := pl.Move(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		if tc.score != 0 && st.Score != tc.score {
			t.Errorf("%s: depth-1 score %d, want %d", tc.name, st.Score, tc.score)
		}
		if tc.score == 0 && (st.Score > engine.WinThreshold || st.Score < -engine.WinThreshold) {
			t.Errorf("%s: depth-1 score %d claims a forced result", tc.name, st.Score)
		}
	}
}
