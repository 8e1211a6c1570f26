package tuner

import (
	"evotune/tuner/config"
	"evotune/tuner/search"
	"fmt"
	"sort"
	"testing"
)

// TestDrawsAhead: the loop draws the openings of as many rounds ahead as the method may
// have in play, each draw the same as drawn in its turn, keeps the draw taken for rounds
// of the same draw, and drops it once a later draw is taken.
func TestDrawsAhead(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	cfg.Method, cfg.Generations, cfg.BudgetGames = config.MethodSPSA, 0, 200
	cfg.NewRunDefaults(false)
	cfg.SPSA.Lag = 3
	cfg.Resolve()
	tu, err := New(cfg, &memStore{}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	l, ok := tu.method.(*loopMethod)
	if !ok || l.m.Window() != 4 {
		t.Fatalf("SPSA with lag 3: %T, want the run loop with window 4", tu.method)
	}
	for d := range 3 {
		os, err := l.draw(&search.Round{Draw: d, Pairs: 5}, search.StreamOpenings)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := tu.tuningOpenings(5, tu.rngV2(d, search.StreamOpenings), nil)
		if fmt.Sprint(os) != fmt.Sprint(want) {
			t.Fatalf("draw %d: %v, drawn in its turn %v", d, os, want)
		}
		var ahead []int
		for _, k := range l.draws.Keys() {
			made, _ := l.draws.Take(k, nil)
			ahead = append(ahead, k.Gen)
			if in, _ := tu.tuningOpenings(5, tu.rngV2(k.Gen, search.StreamOpenings), nil); fmt.Sprint(made) != fmt.Sprint(in) {
				t.Fatalf("draw %d made ahead: %v, drawn in its turn %v", k.Gen, made, in)
			}
		}
		sort.Ints(ahead)
		if fmt.Sprint(ahead) != fmt.Sprint([]int{d, d + 1, d + 2, d + 3, d + 4}) {
			t.Fatalf("after draw %d the draws kept are %v, want it (for rounds of the same draw) and the next 4", d, ahead)
		}
	}
}
