package connect6

import (
	"strings"
	"testing"
)

// TestBotzoneCoordinates pins Botzone's ConnectSix coordinates (x the column from the left,
// y the row from the top, from 0; x1 = y1 = −1 for one stone) against evotune's notation
// (column A–S from the left, row 1–19 from the bottom), both ways, and the refusals.
func TestBotzoneCoordinates(t *testing.T) {
	b := &Board{}
	for _, c := range []struct{ move, bz string }{
		{"J10", "9 9 -1 -1"},   // the centre
		{"A19S1", "0 0 18 18"}, // top-left, bottom-right
		{"A1S19", "0 18 18 0"}, // bottom-left, top-right
		{"H8I8", "7 11 8 11"},  // a row of two
		{"C17C3", "2 2 2 16"},  // a column
	} {
		got, err := b.BotzoneMove(c.move)
		if err != nil || got != c.bz {
			t.Errorf("BotzoneMove(%s) = %q, %v; want %q", c.move, got, err, c.bz)
		}
		back, err := b.ParseBotzoneMove(c.bz)
		if err != nil || back != c.move {
			t.Errorf("ParseBotzoneMove(%q) = %q, %v; want %s", c.bz, back, err, c.move)
		}
	}
	for _, bad := range []struct{ in, why string }{
		{"9 9 -1", "four numbers"},
		{"9 9 -1 3", "one coordinate −1"},
		{"19 0 -1 -1", "not 0–18"},
		{"-1 -1 -1 -1", "no point"},
		{"a b c d", "not 0–18"},
	} {
		if _, err := b.ParseBotzoneMove(bad.in); err == nil || !strings.Contains(err.Error(), bad.why) || !strings.Contains(err.Error(), bad.in) {
			t.Errorf("ParseBotzoneMove(%q): %v, want an error naming it and %q", bad.in, err, bad.why)
		}
	}
}

// TestWinningLine: the six that won, in order along the line; none before it is made.
func TestWinningLine(t *testing.T) {
	b, _ := Game{}.NewBoard(0)
	moves := []string{"J10", "A1C1", "K10L10", "A3C3", "M10N10", "A5C5", "O10A19"}
	for i, m := range moves {
		if got := b.(*Board).WinningLine(); got != nil {
			t.Fatalf("after %d moves, before any six: %v", i, got)
		}
		if err := b.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(b.(*Board).WinningLine(), " "); got != "J10 K10 L10 M10 N10 O10" {
		t.Fatalf("winning line %q", got)
	}
}
