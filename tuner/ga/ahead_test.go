package ga

import "testing"

// TestAheadPays: the GA plays its guesses of the next generation ahead only once a trial
// of generations had a guess judged, and only while at least half of those guesses were
// right (adopted), however right the trial's were.
func TestAheadPays(t *testing.T) {
	for _, c := range []struct {
		tried, used int
		want        bool
	}{{0, 0, false}, {aheadTrial - 1, aheadTrial - 1, false}, {aheadTrial, aheadTrial / 2, true}, {aheadTrial, aheadTrial/2 - 1, false}, {40, 19, false}, {40, 20, true}} {
		m := &Generational{tried: c.tried, used: c.used}
		if got := m.aheadPays(); got != c.want {
			t.Errorf("%d generations with a guess, %d adopted: aheadPays %v, want %v", c.tried, c.used, got, c.want)
		}
	}
}
