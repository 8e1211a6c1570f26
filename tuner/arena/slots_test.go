package arena

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"evotune/engine"
	"evotune/engine/gomoku"
	"evotune/engine/protocol"
)

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
	r := &Slots{}
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

// TestSlotRunnerAhead: a slot hands out an ahead batch's games only when no ordinary batch
// has one, each finished game is told with its index, and a stopped batch's slot time is
// taken off the meter's busy time.
func TestSlotRunnerAhead(t *testing.T) {
	task := GameTask{Black: gomoku.DefaultWeights(), White: gomoku.DefaultWeights(), Opening: []string{"h8"}, Depth: 1}
	setup := GameSetup{Game: gomoku.Game{}, Limits: engine.Limits{Depth: 1, Width: 4}, MaxPlies: 12}
	r := &Slots{}
	r.wake = sync.NewCond(&r.mu)
	var mu sync.Mutex
	var order []string
	tell := func(name string) func(int, engine.GameRecord) {
		return func(i int, rec engine.GameRecord) {
			if rec.Plies == 0 {
				t.Errorf("%s game %d told with an empty record", name, i)
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
		}
	}
	ctx := context.Background()
	waitA, promoteA, err := r.StartEach(ctx, setup, []GameTask{task, task}, tell("ahead"), true)
	if err != nil {
		t.Fatal(err)
	}
	waitB, _, err := r.StartEach(ctx, setup, []GameTask{task, task, task}, tell("plain"), false)
	if err != nil {
		t.Fatal(err)
	}
	r.workers.Add(1)
	go r.slot() // one slot, started once both batches are queued
	if _, err := waitB(); err != nil {
		t.Fatal(err)
	}
	promoteA()
	if _, err := waitA(); err != nil {
		t.Fatal(err)
	}
	if got := len(order); got != 5 || order[0] != "plain" || order[2] != "plain" || order[3] != "ahead" {
		t.Errorf("games told in the order %v, want the 3 plain games first, then the 2 ahead", order)
	}
	// A batch stopped while its game is told: the game's time is wasted, at least what the
	// meter counted.
	_, before := r.meter.Read()
	stopped, stop := context.WithCancel(ctx)
	played, release := make(chan struct{}), make(chan struct{})
	waitC, _, err := r.StartEach(stopped, setup, []GameTask{task}, func(int, engine.GameRecord) {
		close(played)
		<-release
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	<-played
	stop()
	_, errC := waitC()
	close(release)
	r.Close() // the slot has ended the game
	if errC == nil {
		t.Fatal("a stopped batch's wait returned no error")
	}
	_, after := r.meter.Read()
	r.meter.mu.Lock()
	wasted := r.meter.wasted
	r.meter.mu.Unlock()
	if wasted <= 0 || after > before {
		t.Errorf("stopped batch: wasted %v, busy %v before it and %v after: want some waste and no busy time gained", wasted, before, after)
	}
}

// TestSlotCarry: a generation gets the slot time played elsewhere that fits in its wall
// time on its slots, the rest goes to the next, and a stopped batch's time taken off
// comes off what is carried.
func TestSlotCarry(t *testing.T) {
	var c SlotCarry
	if got := c.Take(30*time.Second, 10*time.Second, 2); got != 20*time.Second {
		t.Fatalf("30 s played in 10 s on 2 slots: %v, want 20s", got)
	}
	if got := c.Take(-4*time.Second, 10*time.Second, 2); got != 6*time.Second {
		t.Fatalf("the 10 s carried less 4 s stopped: %v, want 6s", got)
	}
	if got := c.Take(5*time.Second, time.Second, 0); got != time.Second {
		t.Fatalf("5 s played in 1 s on no counted slots (taken as 1): %v, want 1s", got)
	}
	if got := c.Take(-10*time.Second, time.Second, 1); got != 0 {
		t.Fatalf("more taken off than carried: %v, want 0", got)
	}
}
