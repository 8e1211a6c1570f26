package ga

import "testing"

// TestAheadPays: the GA guesses its next generations for a trial of generations, then
// only while at least half of those with a guess adopted it.
func TestAheadPays(t *testing.T) {
	for _, c := range []struct {
		tried, used int
		want        bool
	}{{0, 0, true}, {aheadTrial - 1, 0, true}, {aheadTrial, aheadTrial / 2, true}, {aheadTrial, aheadTrial/2 - 1, false}, {40, 19, false}, {40, 20, true}} {
		m := &Generational{tried: c.tried, used: c.used}
		if got := m.aheadPays(); got != c.want {
			t.Errorf("%d generations with a guess, %d adopted: aheadPays %v, want %v", c.tried, c.used, got, c.want)
		}
	}
}
