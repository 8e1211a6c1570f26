package search

import (
	"fmt"
	"sort"
	"testing"

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
