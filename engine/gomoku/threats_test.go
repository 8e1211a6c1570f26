package gomoku

import (
	"context"
	"slices"
	"testing"

	"evotune/engine"
)

// TestThreats is a table of positions with a forced result or a forced answer (001 §1.3,
// 002's threat analysis): what Foresee proves for the side to move, which moves GenMoves
// keeps, and what the default player answers.
func TestThreats(t *testing.T) {
	for _, tc := range []struct {
		name    string
		moves   []string
		foresee int      // Foresee() for the side to move
		gen     []string // GenMoves must be exactly these (sorted), nil: not checked
		play    []string // the default player's move must be one of these, nil: not checked
	}{
		{name: "win in 1: Black's open four, White's four", foresee: 1,
			moves: []string{"h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4"}, play: []string{"h7", "h12"}},
		{name: "loss in 2: White faces an open four", foresee: -2,
			moves: []string{"h8", "a1", "h9", "a2", "h10", "a3", "h11"}, gen: []string{"h12", "h7"}},
		{name: "must block a dead four", foresee: 0,
			moves: []string{"a1", "h8", "b1", "h9", "c1", "j10", "d1"}, gen: []string{"e1"}},
		{name: "win in 3: Black's open three, White not threatening", foresee: 3,
			moves: []string{"h8", "a1", "h9", "a3", "h10", "a5"}, play: []string{"h7", "h11"}},
		{name: "answer an open three: block or counter-four", foresee: 0,
			moves: []string{"h8", "a1", "h9", "a3", "h10"}, gen: []string{"h11", "h12", "h6", "h7"}},
		{name: "the issue's split three f10 g10 _ i10", foresee: 0,
			moves: []string{"h8", "f10", "a1", "g10", "o15", "i10"}, gen: []string{"e10", "h10", "j10"},
			play: []string{"e10", "h10", "j10"}},
		{name: "win in 3: a double four by one stone", foresee: 3,
			// Black c3 d3 e3 (row) and f4 f5 f6 (column) are dead threes (a3/b3 and f7/f8
			// blocked): f3 makes two fours, c3-f3 and f3-f6.
			moves: []string{"c3", "b3", "d3", "f7", "e3", "a9", "f4", "a11", "f5", "a13", "f6", "o1"}, play: []string{"f3"}},
	} {
		b, _ := Game{}.NewBoard(0)
		play(t, b, tc.moves...)
		p := b.(*Board).Pos
		if got := p.Foresee(); got != tc.foresee {
			t.Errorf("%s: Foresee %d, want %d\n%s", tc.name, got, tc.foresee, p)
		}
		if tc.gen != nil {
			var got []string
			for _, m := range p.GenMoves(nil) {
				got = append(got, p.MoveString(m.Move))
			}
			slices.Sort(got)
			want := slices.Clone(tc.gen)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s: GenMoves %v, want %v", tc.name, got, want)
			}
		}
		if tc.play != nil {
			pl, _ := Game{}.NewPlayer(DefaultWeights(), Game{}.DefaultLimits())
			m, st, err := pl.Move(context.Background(), b)
			if err != nil || !slices.Contains(tc.play, m) {
				t.Errorf("%s: the default player plays %s (%v), want one of %v", tc.name, m, err, tc.play)
			}
			if tc.foresee > 0 && st.Score < engine.WinThreshold {
				t.Errorf("%s: score %d, want a forced win", tc.name, st.Score)
			}
		}
	}
}

// TestForeseenLeafScore: scores of forced results are distances from the root: a five
// played at ply 1 is Win − 1; a leaf at ply 1 whose side to move has a five-point is a win
// foreseen 1 ply beyond it, Win − 2 for that side.
func TestForeseenLeafScore(t *testing.T) {
	b, _ := Game{}.NewBoard(0)
	// Black to move with the open four h8-h11.
	play(t, b, "h8", "a1", "h9", "a3", "h10", "a5", "h11", "o15")
	pl, _ := Game{}.NewPlayer(DefaultWeights(), engine.Limits{Depth: 1})
	_, st, _ := pl.Move(context.Background(), b)
	if st.Score != engine.Win-1 {
		t.Fatalf("Black with an open four: depth 1 scores %d, want Win − 1 (%d)", st.Score, engine.Win-1)
	}
	b2, _ := Game{}.NewBoard(0)
	play(t, b2, "h8", "a1", "h9", "a3", "h10", "a5")
	p := b2.(*Board).Pos
	p.Make(p.doubleThreatMust(t))
	// White to move facing an open four: whichever end White blocks, Black's leaf at ply 1
	// has a five-point.
	pl2, _ := Game{}.NewPlayer(DefaultWeights(), engine.Limits{Depth: 1})
	res := pl2.(*Player).Search(context.Background(), p)
	if res.Score != -engine.Win+2 {
		t.Fatalf("White facing an open four: depth 1 scores %d, want −Win + 2", res.Score)
	}
}

func (p *Position) doubleThreatMust(t *testing.T) Move {
	m, ok := p.doubleThreat(p.stm)
	if !ok {
		t.Fatal("no double threat point")
	}
	return m
}
