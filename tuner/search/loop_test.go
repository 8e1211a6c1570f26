package search

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner/arena"
)

// drawHost is a Host that only draws openings: draw k's are named by its key, so a draw
// made ahead and one made in its turn are the same exactly when their keys are.
type drawHost struct{ Host }

func (drawHost) Drawer(k arena.DrawKey, _ map[string]bool) (arena.Openings, error) {
	os := make(arena.Openings, k.N)
	for i := range os {
		os[i] = []string{fmt.Sprintf("g%d-s%d-%d", k.Gen, k.Stream, i)}
	}
	return os, nil
}

// windowMethod is a Method of a window of rounds in play, asked nothing.
type windowMethod struct {
	Method
	w int
}

func (m windowMethod) Window() int { return m.w }

// TestDrawsAhead: the loop draws the openings of as many rounds ahead as the method may
// have in play, each draw the one drawn in its turn, keeps the draw taken for rounds of
// the same draw, and drops it once a later draw is taken.
func TestDrawsAhead(t *testing.T) {
	h := drawHost{}
	l := NewLoop(h, &MethodEnv{}, windowMethod{w: 4}, LoopOptions{})
	for d := range 3 {
		os, err := l.draw(&Round{Draw: d, Pairs: 5}, StreamOpenings)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := h.Drawer(arena.DrawKey{Gen: d, Stream: StreamOpenings, N: 5}, nil)
		if fmt.Sprint(os) != fmt.Sprint(want) {
			t.Fatalf("draw %d: %v, drawn in its turn %v", d, os, want)
		}
		var ahead []int
		for _, k := range l.draws.Keys() {
			made, _ := l.draws.Take(k, nil)
			ahead = append(ahead, k.Gen)
			if in, _ := h.Drawer(k, nil); k.Stream != StreamOpenings || k.N != 5 || fmt.Sprint(made) != fmt.Sprint(in) {
				t.Fatalf("draw %v made ahead: %v, drawn in its turn %v", k, made, in)
			}
		}
		sort.Ints(ahead)
		if fmt.Sprint(ahead) != fmt.Sprint([]int{d, d + 1, d + 2, d + 3, d + 4}) {
			t.Fatalf("after draw %d the draws kept are %v, want it (for rounds of the same draw) and the next 4", d, ahead)
		}
	}
}

// planHost is a drawHost whose genomes play in-process, at the game's depth, on gomoku's
// board.
type planHost struct{ drawHost }

func (planHost) Side([]float64) (engine.Weights, *protocol.ExternalSpec, error) {
	return nil, nil, nil
}
func (planHost) DepthOf(int) int { return 0 }
func (planHost) Game() engine.Game {
	e, _ := genomes.Lookup("gomoku")
	return e.Game
}

// TestPlanOneEach: a round of one opponent each schedules player i against Opponents[i]
// alone, on every opening pair, player after player; without it player i meets opponent
// k mod 3 on opening pair k; and a round of one each with fewer opponents than players
// is refused by name.
func TestPlanOneEach(t *testing.T) {
	l := NewLoop(planHost{}, &MethodEnv{}, windowMethod{w: 1}, LoopOptions{})
	g := func(id string, x float64) *genomes.Genome { return &genomes.Genome{ID: id, X: []float64{x}} }
	players := []*genomes.Genome{g("a", 1), g("b", 2), g("c", 3)}
	opps := []*genomes.Genome{g("x", 4), g("y", 5), g("z", 6)}
	for _, oneEach := range []bool{true, false} {
		lr, err := l.plan(&Round{Label: "pairing", Players: players, Opponents: opps, Pairs: 3, OneEach: oneEach})
		if err != nil {
			t.Fatal(err)
		}
		if len(lr.b.Refs) != 3*3*2 || len(lr.b.Tasks) != 3*3*2 {
			t.Fatalf("one each %v: %d entries, %d games, want 18 of each", oneEach, len(lr.b.Refs), len(lr.b.Tasks))
		}
		for n, e := range lr.b.Refs {
			want := opps[e.Pair%3].ID
			if oneEach {
				want = opps[e.Ind].ID
			}
			if e.Ind != n/6 || e.Opp != want {
				t.Fatalf("one each %v: entry %d is player %d against %s on pair %d, want player %d against %s", oneEach, n, e.Ind, e.Opp, e.Pair, n/6, want)
			}
		}
	}
	_, err := l.plan(&Round{Label: "pairing", Players: players, Opponents: opps[:2], Pairs: 3, OneEach: true})
	if err == nil || !strings.Contains(err.Error(), "pairing: 3 players, 2 opponents") {
		t.Fatalf("one each with 2 opponents for 3 players: %v", err)
	}
}
