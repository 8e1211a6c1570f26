package sau

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/connect6"
	"evotune/engine/protocol/wire"
)

func TestSAUTranscript(t *testing.T) {
	in := "name?\nmove JJ\nnew white\nmove JJ@@\nmove KKLL\nnew black\nmove KK\nfoo bar\nend\nmove JJKK\nquit\nname?\n"
	var out bytes.Buffer
	if err := Serve(context.Background(), cfgFor(connect6.Game{}, 0), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := outLines(out.String())
	if len(got) != 8 {
		t.Fatalf("%d answers:\n%s", len(got), out.String())
	}
	want := []string{"name evotune", "error no game", "move ", "move ", "move JJ", "error", "error unknown command", "error no game"}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("answer %d = %q, want prefix %q", i+1, got[i], w)
		}
	}
	if len(strings.TrimPrefix(got[2], "move ")) != 4 {
		t.Errorf("White's reply %q is not two stones", got[2])
	}
	var padded bytes.Buffer
	pc := cfgFor(connect6.Game{}, 0)
	pc.PadFirstMove = true
	Serve(context.Background(), pc, strings.NewReader("new black\nquit\n"), &padded)
	if strings.TrimSpace(padded.String()) != "move JJ@@" {
		t.Errorf("padded first move: %q", padded.String())
	}
	for _, c := range []struct{ sau, note string }{{"JJ", "J10"}, {"AA", "A19"}, {"SS", "S1"}, {"JJKK", "J10K9"}, {"JJ@@", "J10"}} {
		n, err := connect6.Game{}.ParseSAUMove(c.sau)
		back, _ := connect6.Game{}.SAUMove(n)
		if err != nil || n != c.note || back != strings.TrimSuffix(c.sau, "@@") {
			t.Errorf("%s → %s → %s (%v), want %s", c.sau, n, back, err, c.note)
		}
	}
}

func cfgFor(g engine.Game, board int) wire.Config {
	lim := g.DefaultLimits()
	lim.Depth = 2
	return wire.Config{Game: g, Weights: g.DefaultWeights(), Limits: lim, Board: board, Name: "evotune", Version: "test"}
}

// outLines splits a server's output into its lines.
func outLines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }
