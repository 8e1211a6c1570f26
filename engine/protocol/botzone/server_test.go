package botzone

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/amazons"
	"evotune/engine/protocol/wire"
)

func TestBotzoneTranscript(t *testing.T) {
	cfg := cfgFor(amazons.Game{}, 8)
	// Turn 1 as Black, simple interaction.
	var out, errOut bytes.Buffer
	Serve(context.Background(), cfg, strings.NewReader("1\n-1 -1 -1 -1 -1 -1\n"), &out, &errOut, false)
	first := strings.TrimSpace(out.String())
	b, _ := amazons.Game{}.NewBoard(8)
	if err := b.Play(first); err != nil {
		t.Fatalf("Black's first move %q is illegal: %v", first, err)
	}
	// Keep-running as White: the full first input, then one new request per turn.
	var kout bytes.Buffer
	r1 := first
	in := "1\n" + r1 + "\n"
	Serve(context.Background(), cfg, strings.NewReader(in+"garbage line\n"), &kout, &errOut, true)
	got := outLines(kout.String())
	if len(got) != 4 || got[1] != KeepRunning || got[3] != KeepRunning || got[2] != NoMove(6) {
		t.Fatalf("keep-running transcript:\n%s", kout.String())
	}
	if err := b.Play(got[0]); err != nil {
		t.Fatalf("White's reply %q is illegal: %v", got[0], err)
	}
	if !strings.Contains(errOut.String(), "garbage") {
		t.Fatalf("no reason for the bad request on stderr: %q", errOut.String())
	}
}

func cfgFor(g engine.Game, board int) wire.Config {
	lim := g.DefaultLimits()
	lim.Depth = 2
	return wire.Config{Game: g, Weights: g.DefaultWeights(), Limits: lim, Board: board, Name: "evotune", Version: "test"}
}

// outLines splits a server's output into its lines.
func outLines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }
