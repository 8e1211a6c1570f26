package ga

import (
	"testing"

	"evotune/engine"
	"evotune/tuner/arena"
)

// TestAheadPays: the GA guesses its next generations for a trial of generations, then
// only while at least half of the games it played ahead were games of the pairings really
// planned.
func TestAheadPays(t *testing.T) {
	for _, c := range []struct {
		tried, games, reused int
		want                 bool
	}{{0, 0, 0, true}, {aheadTrial - 1, 100, 0, true}, {aheadTrial, 100, 50, true}, {aheadTrial, 100, 49, false}, {40, 400, 199, false}, {40, 400, 200, true}} {
		m := &Generational{aheadTried: c.tried, aheadGames: c.games, aheadReused: c.reused}
		if got := m.aheadPays(); got != c.want {
			t.Errorf("%d generations with games ahead, %d of %d games taken: aheadPays %v, want %v", c.tried, c.reused, c.games, got, c.want)
		}
	}
	if m := (&Generational{aheadTried: 40, aheadGames: 400, opts: Options{KeepGuessing: true}}); !m.aheadPays() {
		t.Error("KeepGuessing: aheadPays false")
	}
}

// TestTaskIndex: a task is found by value, whatever slice holds it, each one once (two
// equal tasks are two), and a task that differs in a player's weights, its opening or its
// name is not found.
func TestTaskIndex(t *testing.T) {
	w := func(v float64) engine.Weights { return testWeights{v} }
	a := arena.GameTask{Black: w(1), White: w(2), Opening: []string{"h8", "h9"}, Name: "pair0000-game0"}
	b := a
	b.Black = w(3)
	c := a
	c.Opening = []string{"h8", "i9"}
	d := a
	d.Name = "pair0001-game0"
	ix := newTaskIndex([]arena.GameTask{a, b, a})
	clone := a
	clone.Opening = append([]string(nil), a.Opening...)
	for _, x := range []arena.GameTask{c, d} {
		if i := ix.find(keyOf(x)); i >= 0 {
			t.Errorf("task %+v found as %d: it is no task of the index", x, i)
		}
	}
	if i := ix.take(keyOf(clone)); i != 0 {
		t.Errorf("take(a) = %d, want 0", i)
	}
	if i := ix.take(keyOf(clone)); i != 2 {
		t.Errorf("take(a) again = %d, want 2 (the second equal task)", i)
	}
	if i := ix.take(keyOf(clone)); i != -1 {
		t.Errorf("take(a) a third time = %d, want -1", i)
	}
	if left := ix.left(); len(left) != 1 || left[0] != 1 {
		t.Errorf("left = %v, want [1]", left)
	}
}

// testWeights is a built-in engine's weights for TestTaskIndex.
type testWeights struct{ V float64 }

func (testWeights) Game() string    { return "gomoku" }
func (testWeights) Validate() error { return nil }
