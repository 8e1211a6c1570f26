package gomoku

import (
	"context"
	"testing"

	"evotune/engine"
)

// renjuBoard plays Black's and White's stones alternately (Black first) under renju; equal
// counts leave Black to move.
func renjuBoard(t *testing.T, black, white []string) *Board {
	t.Helper()
	b, _ := Game{Rule: Renju}.NewBoard(0)
	for i := range black {
		play(t, b, black[i])
		if i < len(white) {
			play(t, b, white[i])
		}
	}
	if b.Outcome() != engine.Ongoing {
		t.Fatalf("set-up ended the game:\n%s", b)
	}
	return b.(*Board)
}

// filler are White stones far from the action (no White line of three among them).
var filler = []string{"a1", "a4", "a7", "a10", "a13", "o1", "o4", "o7", "o10", "o13"}

// TestRenjuForbidden is a table of Black moves judged by the renju rules, hard cases
// included: a three whose only open-four point is itself forbidden is not a three.
func TestRenjuForbidden(t *testing.T) {
	for _, tc := range []struct {
		name      string
		black     []string
		white     []string // filled up with filler to Black's count
		move      string
		forbidden bool
	}{
		{"double three (row g8 i8, column h7 h9)", []string{"g8", "i8", "h7", "h9"}, nil, "h8", true},
		{"double four (row e8-g8, column h5-h7)", []string{"e8", "f8", "g8", "h5", "h6", "h7"}, nil, "h8", true},
		{"double four on one line (e8 g8 _ i8 k8)", []string{"e8", "g8", "i8", "k8"}, nil, "h8", true},
		{"overline (d8-g8 and i8)", []string{"d8", "e8", "f8", "g8", "i8"}, nil, "h8", true},
		{"five with a four beside it is a win", []string{"d8", "e8", "f8", "g8", "h5", "h6", "h7"}, nil, "h8", false},
		{"four-three is allowed", []string{"e8", "f8", "g8", "h6", "h7"}, nil, "h8", false},
		{"a blocked three is not a three", []string{"g8", "i8", "h7", "h9"}, []string{"f8", "j8"}, "h8", false},
		{"fake three: its open four j8 would be a double four",
			[]string{"g8", "i8", "h7", "h9", "j4", "j5", "j6"}, []string{"e8"}, "h8", false},
		{"the same without White's e8: f8 makes a real three, so a double three",
			[]string{"g8", "i8", "h7", "h9", "j4", "j5", "j6"}, nil, "h8", true},
	} {
		white := append([]string(nil), tc.white...)
		for _, f := range filler {
			if len(white) >= len(tc.black) {
				break
			}
			white = append(white, f)
		}
		b := renjuBoard(t, tc.black, white)
		p := b.Pos
		m, _ := p.ParseMove(tc.move)
		if got := p.Forbidden(m); got != tc.forbidden {
			t.Errorf("%s: Forbidden(%s) = %v, want %v\n%s", tc.name, tc.move, got, tc.forbidden, p)
			continue
		}
		if tc.forbidden && !p.mayBeForbidden(m) {
			t.Errorf("%s: the cheap pre-check misses a forbidden move", tc.name)
		}
		// The engine never generates it; the referee scores it as a loss for Black.
		for _, sm := range p.GenMoves(nil) {
			if tc.forbidden && sm.Move == m {
				t.Errorf("%s: GenMoves offers the forbidden %s", tc.name, tc.move)
			}
		}
		c := b.Clone().(*Board)
		if err := c.Play(tc.move); err != nil {
			t.Fatal(err)
		}
		want := engine.Ongoing
		if tc.forbidden {
			want = engine.WhiteWins
		} else if tc.name == "five with a four beside it is a win" {
			want = engine.BlackWins
		}
		if c.Outcome() != want {
			t.Errorf("%s: after %s the outcome is %v, want %v", tc.name, tc.move, c.Outcome(), want)
		}
	}
}

// TestRenjuEngineAvoidsForbidden: in the double-three position the engine, which would
// like h8, plays something else; under freestyle it plays h8.
func TestRenjuEngineAvoidsForbidden(t *testing.T) {
	black, white := []string{"g8", "i8", "h7", "h9"}, filler[:4]
	for _, rule := range []Rule{Freestyle, Renju} {
		b, _ := Game{Rule: rule}.NewBoard(0)
		for i := range black {
			play(t, b, black[i], white[i])
		}
		pl, _ := Game{Rule: rule}.NewPlayer(DefaultWeights(), Game{}.DefaultLimits())
		m, _, err := pl.Move(context.Background(), b)
		if err != nil {
			t.Fatal(err)
		}
		if (m == "h8") != (rule == Freestyle) {
			t.Errorf("%v: Black plays %s", rule, m)
		}
	}
}
