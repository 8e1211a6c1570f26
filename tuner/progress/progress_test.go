package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	_ "evotune/tuner" // registers the methods whose words the lines use
	"evotune/tuner/config"
	"evotune/tuner/record"
)

// TestProgressLines: the plain progress lines name the batch being played (racing round,
// admission), say the ETA is unknown before the first generation is saved instead of
// guessing from one batch, and reach ETA 0s when the last generation is saved.
func TestProgressLines(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf)
	force := func() { p.lastLog = time.Now().Add(-time.Minute) } // a line is due
	ev := record.Event{Method: config.MethodGA, Generations: 2, Elapsed: 10 * time.Second}
	force()
	e := ev
	e.GamesDone, e.GamesTotal, e.Phase = 100, 352, "round 0"
	p.Update(e)
	force()
	e.GamesDone, e.GamesTotal, e.Phase = 10, 96, "round 1"
	p.Update(e)
	force()
	e.GamesDone, e.GamesTotal, e.Phase = 10, 64, "admission"
	p.Update(e)
	e = ev
	e.GenDone, e.GamesDone, e.GamesTotal = true, 600, 600
	p.Update(e)
	force()
	e = ev
	e.Generation, e.GamesDone, e.GamesTotal, e.Phase, e.Elapsed = 1, 5, 352, "round 0", 15*time.Second
	p.Update(e)
	e = ev
	e.Generation, e.GenDone, e.GamesDone, e.GamesTotal, e.Elapsed = 2, true, 600, 600, 30*time.Second
	p.Update(e)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		"generation 0/2, racing round 0: games 100/352 of this batch, ETA ?",
		"generation 0/2, racing round 1: games 10/96 of this batch, ETA ?",
		"generation 0/2, admission: games 10/64 of this batch, ETA ?",
		"generation 0/2 saved: 600 games", // …, ETA 20s (10 s a generation, 2 to go)
		"generation 1/2, racing round 0: games 5/352 of this batch, ETA 30s",
		"generation 2/2 saved: 600 games",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want it to start with %q", i, lines[i], w)
		}
	}
	if !strings.HasSuffix(lines[3], "ETA 20s") || !strings.HasSuffix(lines[5], "ETA 0s") {
		t.Errorf("ETAs after generations 0 and 2 (of 0–2, 10 s each): %q, %q", lines[3], lines[5])
	}
}

// TestProgressBudgetLines: a run to a game budget counts its games, not generations of
// "∞", and has an ETA from its first batch on.
func TestProgressBudgetLines(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf)
	p.lastLog = time.Now().Add(-time.Minute)
	p.Update(record.Event{Method: config.MethodGA, BudgetGames: 44000, GamesDone: 440, GamesTotal: 1000, Phase: "pairing 0", Elapsed: 10 * time.Second})
	want := "generation 0 (0/44000 games), pairing 0: games 440/1000 of this batch, ETA 16m30s"
	if got := strings.TrimSpace(buf.String()); !strings.HasPrefix(got, want) {
		t.Fatalf("%q, want %q", got, want)
	}
}

// TestProgressSlotHint: an event carrying the run's slot hint gets a line of its own,
// before the saved line, with how busy the slots were and how to take the advice.
func TestProgressSlotHint(t *testing.T) {
	var buf bytes.Buffer
	p := New(&buf)
	e := record.Event{Method: config.MethodGA, GenDone: true, Generation: 3, RunGames: 2304, BudgetGames: 44000, SlotUtilisation: 0.6,
		SlotHint: "the game slots waited: … --ga-lag 3 …", Elapsed: time.Minute, GamesDone: 576, GamesTotal: 576}
	p.Update(e)
	e.SlotHint = ""
	e.Generation, e.RunGames = 4, 2880
	p.Update(e)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want the note and two saved lines:\n%s", len(lines), buf.String())
	}
	want := "note: 2304/44000 games so far, 60.0% of the game slots busy; the game slots waited: … --ga-lag 3 …. A run keeps its settings when resumed"
	if !strings.HasPrefix(lines[0], want) || !strings.HasPrefix(lines[1], "generation 3 (") || !strings.HasPrefix(lines[2], "generation 4 (") {
		t.Fatalf("lines:\n%s\nwant the first to start %q", buf.String(), want)
	}
}
