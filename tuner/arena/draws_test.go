package arena

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// countingDrawer draws k.N openings named by the key, none in exclude, and counts its calls.
type countingDrawer struct {
	mu    sync.Mutex
	calls int
}

func (c *countingDrawer) draw(k DrawKey, exclude map[string]bool) (Openings, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	var os Openings
	for i := 0; len(os) < k.N && i < 10; i++ {
		o := []string{fmt.Sprintf("s%d-%d", k.Stream, i)}
		if !exclude[Key(o)] {
			os = append(os, o)
		}
	}
	return os, nil
}

// TestDrawsAhead: a draw taken is the one made ahead where one is (not drawn again), else
// drawn in its turn and not kept; Keep holds a draw for the next rounds, Drop forgets; a
// chain's draws each exclude the openings of the draws before it, a draw held already is
// waited for, and a short draw fails the ones after it.
func TestDrawsAhead(t *testing.T) {
	c := &countingDrawer{}
	d := NewDraws(c.draw, 1)
	k := DrawKey{Gen: 1, Stream: 16, N: 3}
	d.Start(k, nil)
	d.Start(k, nil) // held: not drawn twice
	os, err := d.Take(k, nil)
	if err != nil || len(os) != 3 || c.calls != 1 || !d.Has(k) {
		t.Fatalf("taken ahead: %v %v, %d draws, held %v", os, err, c.calls, d.Has(k))
	}
	other := DrawKey{Gen: 2, Stream: 16, N: 3}
	if os, _ := d.Take(other, map[string]bool{Key([]string{"s16-0"}): true}); len(os) != 3 || os[0][0] != "s16-1" || d.Has(other) {
		t.Fatalf("drawn in its turn: %v, held %v", os, d.Has(other))
	}
	d.Keep(other, Openings{{"x"}})
	if os, _ := d.Take(other, nil); len(os) != 1 || os[0][0] != "x" {
		t.Fatalf("kept draw: %v", os)
	}
	d.Drop(func(k DrawKey) bool { return k.Gen < 2 })
	if keys := d.Keys(); len(keys) != 1 || keys[0] != other {
		t.Fatalf("after dropping generation 1: %v", keys)
	}

	// A chain: the second draw shares the first's stream, so it would repeat its openings
	// without the chain's exclusions.
	chain := []DrawKey{{Gen: 5, Stream: 32, N: 4}, {Gen: 5, Stream: 32, N: 4, After: 4}, {Gen: 5, Stream: 48, N: 20, After: 8}, {Gen: 5, Stream: 64, N: 1, After: 28}}
	d.Chain(chain)
	a, _ := d.Take(chain[0], nil)
	b, _ := d.Take(chain[1], nil)
	if len(a) != 4 || len(b) != 4 || slices.ContainsFunc(b, func(o []string) bool {
		return slices.ContainsFunc(a, func(p []string) bool { return Key(p) == Key(o) })
	}) {
		t.Errorf("chained draws share openings: %v and %v", a, b)
	}
	if short, _ := d.Take(chain[2], nil); len(short) >= 20 {
		t.Fatalf("a draw of 20 from 10 openings gave %d", len(short))
	}
	if _, err := d.Take(chain[3], nil); err == nil {
		t.Error("a draw after a short one in a chain did not fail")
	}
}
