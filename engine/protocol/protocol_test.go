package protocol

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evotune/engine"
	"evotune/engine/gomoku"
)

func TestExternalClient(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	write := func(name, body string) []string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755)
		return []string{p}
	}
	// Plays down column 0 from the top: legal until the game ends or the column fills.
	column := write("column.sh", `y=0
while read l; do case "$l" in START*) echo OK;; BEGIN|TURN*|DONE) echo "MESSAGE thinking"; echo "0,$y"; y=$((y+1));; END) exit 0;; esac; done
`)
	// Plays two legal moves, then dies in the middle of the game.
	crash := write("crash.sh", `n=0
while read l; do case "$l" in START*) echo OK;; BEGIN|TURN*|DONE) [ $n -ge 2 ] && exit 7; echo "14,$n"; n=$((n+1));; esac; done
`)
	silent := write("silent.sh", `while read l; do case "$l" in START*) echo OK;; esac; done
`)
	g := gomoku.Game{}
	for _, tc := range []struct {
		argv    []string
		forfeit string
	}{{column, ""}, {crash, "exited"}, {silent, "time loss"}} {
		b, _ := g.NewBoard(0)
		ext := NewExternal(ExternalSpec{Argv: tc.argv, MoveTime: 300 * time.Millisecond}, g)
		p, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 1, Width: 3})
		rec, err := engine.PlayGame(context.Background(), b, ext, p, engine.RefereeOptions{Forfeit: true, MaxPlies: 40})
		ext.Close()
		if err != nil {
			t.Fatalf("%v: %v", tc.argv, err)
		}
		if !strings.Contains(rec.Forfeit, tc.forfeit) || (tc.forfeit != "" && rec.Outcome != engine.WhiteWins) {
			t.Fatalf("%v: outcome %v forfeit %q, want %q", tc.argv, rec.Outcome, rec.Forfeit, tc.forfeit)
		}
		if tc.forfeit == "" && (rec.Plies < 3 || rec.Moves[0] != "a15") {
			t.Fatalf("column engine: %v", rec.Moves)
		}
		if tc.forfeit == "exited" && rec.Plies != 4 {
			t.Fatalf("the crashing engine should die at its third move (ply 4), died at ply %d: %v", rec.Plies, rec.Moves)
		}
	}
}

// TestOutputTail: an error quotes at most the last three lines of an engine's output, each
// cut to 160 bytes, and says how many it left out — an engine that prints kilobytes of
// info lines gives a message of a line or two.
func TestOutputTail(t *testing.T) {
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "info depth %d nodes %d pv %s\n", i, i*1000, strings.Repeat("e2e4 ", 60))
	}
	got := outputTail(b.String())
	if len(got) > 3*(160+len("…")+3)+40 || !strings.HasPrefix(got, "(497 earlier lines left out) info depth 497") || strings.Count(got, " | ") != 2 {
		t.Fatalf("the tail of 500 long lines (%d bytes): %q", len(got), got)
	}
	if got := outputTail("id name x\nuciok\n"); got != "id name x | uciok" {
		t.Fatalf("a short transcript: %q", got)
	}
	if outputTail("  \n") != "" {
		t.Fatal("an empty transcript quoted")
	}
}
