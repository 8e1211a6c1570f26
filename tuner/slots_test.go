package tuner

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"evotune/engine"
	"evotune/tuner/arena"
	"evotune/tuner/config"
)

// TestSlotAccounting: every method stores each generation's busy slot time and its game
// slots (the workers): at most the generation's wall time times its slots, though rounds
// and the GA's admission tests overlap and a generation's games may start before it (the
// slots' busy time is measured within each generation, none in a generation whose games
// all ended before it); the generations together hold at least the wall times of every
// game they played. The summary reports
// the utilisation; a run whose batches a runner elsewhere plays measures none and says
// so, unless the runner counts its game slots (a cluster's live workers), which the run
// then measures against.
func TestSlotAccounting(t *testing.T) {
	for _, method := range []string{config.MethodGA, config.MethodSPSA, config.MethodCMAES, config.MethodSteady} {
		cfg := smallConfig("gomoku", 2)
		cfg.Method = method
		if method != config.MethodGA {
			cfg.Generations = 0
			cfg.BudgetGames = 200
		}
		cfg.Resolve()
		st := &memStore{}
		tu, err := New(cfg, st, nil, "test")
		if err != nil {
			t.Fatal(err)
		}
		sum, err := tu.Run(context.Background(), 0)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if len(st.gens) == 0 {
			t.Fatalf("%s: no generation saved", method)
		}
		var played, busy time.Duration
		for _, g := range st.gens {
			for _, r := range g.GameResults {
				played += r.Record.Duration
			}
			busy += g.SlotTime
			// A generation may find every game already played: its window holds no busy
			// slot.
			if g.Slots != 2 || g.SlotTime < 0 || g.SlotTime > g.Duration*time.Duration(g.Slots) {
				t.Fatalf("%s generation %d: slot time %v of %d slots over %v", method, g.Generation, g.SlotTime, g.Slots, g.Duration)
			}
		}
		if busy <= 0 || busy < played {
			t.Fatalf("%s: the generations' slot time %v, their games' wall times add up to %v", method, busy, played)
		}
		if u := sum.SlotUtilisation(); u <= 0 || !strings.Contains(sum.RunText(), "slot utilisation") || !strings.Contains(sum.RunText(), "of 2 game slots") {
			t.Fatalf("%s: utilisation %v: %s", method, u, sum.RunText())
		}
	}

	cfg := smallConfig("gomoku", 2)
	st := &memStore{}
	tu, err := New(cfg, st, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	tu.SetRunner(elsewhere{})
	sum, err := tu.Run(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range st.gens {
		if g.Slots != 0 {
			t.Fatalf("a runner elsewhere: generation %d stores %d slots", g.Generation, g.Slots)
		}
	}
	if u := sum.SlotUtilisation(); u != -1 || !strings.Contains(sum.RunText(), "slot utilisation not measured") {
		t.Fatalf("a runner elsewhere: utilisation %v: %s", u, sum.RunText())
	}

	st = &memStore{}
	if tu, err = New(cfg, st, nil, "test"); err != nil {
		t.Fatal(err)
	}
	tu.SetRunner(counted{slots: 3})
	if sum, err = tu.Run(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	for _, g := range st.gens {
		// A generation's games may have been played before its wall time (the GA's
		// admission tests play behind the next pairings): up to the slots times it.
		if g.Slots != 3 || g.SlotTime <= 0 || g.SlotTime > 3*g.Duration {
			t.Fatalf("a runner of 3 slots playing one game at a time: generation %d: %v busy of %d slots over %v", g.Generation, g.SlotTime, g.Slots, g.Duration)
		}
	}
	if u := sum.SlotUtilisation(); u <= 0 || u > 1.0/3 || !strings.Contains(sum.RunText(), "of 3 game slots") {
		t.Fatalf("a runner of 3 slots playing one game at a time: utilisation %v: %s", u, sum.RunText())
	}
}

// counted is elsewhere with a count of game slots, as a cluster's client has.
type counted struct {
	elsewhere
	slots int
}

func (c counted) GameSlots() int { return c.slots }

// elsewhere plays batches as a cluster would, one game after another in this process,
// whatever the batches in play.
type elsewhere struct{}

// elsewhereGame holds the game elsewhere plays.
var elsewhereGame sync.Mutex

func (elsewhere) PlayBatch(ctx context.Context, setup arena.GameSetup, tasks []arena.GameTask, done func()) ([]engine.GameRecord, error) {
	recs := make([]engine.GameRecord, len(tasks))
	for i, task := range tasks {
		elsewhereGame.Lock()
		r, err := arena.PlayLocal(ctx, setup, task)
		elsewhereGame.Unlock()
		if err != nil {
			return nil, err
		}
		recs[i] = r
		if done != nil {
			done()
		}
	}
	return recs, nil
}
