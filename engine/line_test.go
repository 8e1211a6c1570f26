package engine

import (
	"fmt"
	"testing"
)

// TestLineOf: runs along each direction are found in order from their first point, shorter
// runs and other colours are not, and a run touching the edge counts.
func TestLineOf(t *testing.T) {
	const n = 9
	for _, c := range []struct {
		name   string
		stones [][2]int // x, y
		k      int
		want   string
	}{
		{"row", [][2]int{{2, 3}, {3, 3}, {4, 3}, {5, 3}, {6, 3}}, 5, "[29 30 31 32 33]"},
		{"column at the edge", [][2]int{{0, 4}, {0, 5}, {0, 6}, {0, 7}, {0, 8}}, 5, "[36 45 54 63 72]"},
		{"diagonal", [][2]int{{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}}, 6, "[10 20 30 40 50 60]"},
		{"anti-diagonal", [][2]int{{8, 0}, {7, 1}, {6, 2}, {5, 3}, {4, 4}}, 5, "[40 32 24 16 8]"},
		{"four is not five", [][2]int{{2, 3}, {3, 3}, {4, 3}, {5, 3}}, 5, "[]"},
		{"a gap breaks the run", [][2]int{{2, 3}, {3, 3}, {5, 3}, {6, 3}, {7, 3}, {8, 3}}, 5, "[]"},
	} {
		var cells [n * n]int8
		for _, s := range c.stones {
			cells[s[1]*n+s[0]] = 1
		}
		cells[0] = 2 // another colour's stone is never part of a run of 1
		got := fmt.Sprint(LineOf(n, c.k, 1, func(i int) int8 { return cells[i] }))
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
