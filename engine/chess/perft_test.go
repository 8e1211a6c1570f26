package chess

import (
	"testing"
)

// perftTable holds the published perft counts (chessprogramming wiki, "Perft Results").
var perftTable = []struct {
	name  string
	fen   string
	depth int
	nodes int64
}{
	{"start", StartFEN, 1, 20},
	{"start", StartFEN, 2, 400},
	{"start", StartFEN, 3, 8902},
	{"start", StartFEN, 4, 197281},
	{"kiwipete", Kiwipete, 1, 48},
	{"kiwipete", Kiwipete, 2, 2039},
	{"kiwipete", Kiwipete, 3, 97862},
	{"position3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43238},
	{"position4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 3, 9467},
	{"position5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 3, 62379},
}

func TestPerft(t *testing.T) {
	for _, c := range perftTable {
		if testing.Short() && c.nodes > 100000 {
			continue
		}
		b, err := Game{}.NewBoard(0)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Play(SetupMove(c.fen)); err != nil {
			t.Fatal(err)
		}
		if got := (Game{}).Perft(b, c.depth); got != c.nodes {
			t.Errorf("perft(%d) %s = %d, want %d", c.depth, c.name, got, c.nodes)
		}
	}
}
