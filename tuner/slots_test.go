package tuner

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"evotune/engine"
	"evotune/engine/protocol"
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
	for _, method := range []string{MethodGA, MethodSPSA, MethodCMAES, MethodSteady} {
		cfg := smallConfig("gomoku", 2)
		cfg.Method = method
		if method != MethodGA {
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

func (elsewhere) PlayBatch(ctx context.Context, setup GameSetup, tasks []GameTask, done func()) ([]engine.GameRecord, error) {
	recs := make([]engine.GameRecord, len(tasks))
	for i, task := range tasks {
		elsewhereGame.Lock()
		r, err := PlayLocal(ctx, setup, task)
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

// TestSlotPicksItsEngines: a free game slot takes, of its batch's next tasks, the first
// game whose two engine processes it already runs, else the first that keeps one of them
// (its seats swapped where that keeps it), else the first; a batch of built-in players is
// handed out in order, and every task exactly once. Across batches, a newer batch's game
// is taken only where none of the oldest's keeps a process.
func TestSlotPicksItsEngines(t *testing.T) {
	spec := func(v string) *protocol.ExternalSpec { return &protocol.ExternalSpec{Argv: []string{"engine", v}} }
	a, b, c, d := spec("a"), spec("b"), spec("c"), spec("d")
	tasks := []GameTask{
		{BlackExt: c, WhiteExt: d}, // 0
		{BlackExt: b, WhiteExt: c}, // 1: keeps b, in the other seat
		{BlackExt: b, WhiteExt: a}, // 2: keeps both, seats swapped (the first that does)
		{BlackExt: a, WhiteExt: b}, // 3: keeps both
	}
	j := newSlotJob(context.Background(), GameSetup{}, tasks, nil)
	ka, kb := a.Key(), b.Key()
	var got []int
	for _, seats := range [][2]string{{ka, kb}, {ka, kb}, {kb, ""}, {"", ""}} {
		i, emptied := j.pick(seats[0], seats[1])
		got = append(got, i)
		if emptied != (len(got) == len(tasks)) {
			t.Fatalf("pick %d: emptied %v with %d of %d handed out", len(got), emptied, len(got), len(tasks))
		}
	}
	if fmt.Sprint(got) != "[2 3 1 0]" {
		t.Errorf("slots running (a, b), (a, b), (b, none), none took tasks %v, want [2 3 1 0]", got)
	}
	if n, swap := seatMatches(kb, a.Key(), ka, kb); n != 2 || !swap {
		t.Errorf("game (b, a) on seats (a, b): keeps %d, swap %v; want 2, swapped", n, swap)
	}
	if n, swap := seatMatches(ka, ka, ka, ""); n != 1 || swap {
		t.Errorf("game (a, a) on seats (a, none): keeps %d, swap %v; want 1, not swapped", n, swap)
	}
	if n, _ := seatMatches("", "", "", ""); n != 0 {
		t.Errorf("built-in players keep %d processes, want 0", n)
	}
	plain := newSlotJob(context.Background(), GameSetup{}, make([]GameTask, 3), nil)
	for want := range 3 {
		if i, _ := plain.pick(ka, kb); i != want {
			t.Fatalf("a batch of built-in players handed out task %d as its %dth, want in order", i, want)
		}
	}

	// Across batches: the oldest batch's games first where one keeps a process; where none
	// does, the first of a newer batch's that keeps the most; else the oldest batch's next.
	r := &slotRunner{}
	pair := func(x, y *protocol.ExternalSpec, n int) *slotJob {
		ts := make([]GameTask, n)
		for k := range ts {
			ts[k] = GameTask{BlackExt: x, WhiteExt: y}
		}
		return newSlotJob(context.Background(), GameSetup{}, ts, nil)
	}
	old, mid, late := pair(a, b, 2), pair(c, d, 1), pair(d, c, 2)
	r.jobs = []*slotJob{old, mid, late}
	kc, kd := c.Key(), d.Key()
	for _, step := range []struct {
		seats [2]string
		want  *slotJob
		jobs  int // batches left with games to hand out
	}{
		{[2]string{kd, kc}, mid, 2},  // the first newer batch that keeps both (seats swapped), emptied
		{[2]string{kc, ""}, late, 2}, // keeps one
		{[2]string{"", ""}, old, 2},  // no process: the oldest's next game
		{[2]string{kb, ka}, old, 1},  // the oldest keeps both
		{[2]string{ka, kb}, late, 0}, // nothing keeps any: the oldest with games left
	} {
		j, _ := pickJob(&r.jobs, step.seats[0], step.seats[1])
		if j != step.want || len(r.jobs) != step.jobs {
			t.Fatalf("seats %v took a game of batch %p (want %p), %d batches left (want %d)", step.seats, j, step.want, len(r.jobs), step.jobs)
		}
	}
}
