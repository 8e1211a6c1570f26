package ga

import (
	"testing"

	"evotune/tuner/search"
)

// TestAheadPays: the GA plays its guesses of the next generation ahead for a trial of
// generations (only judged where the slots outnumber the processors), then only while at
// least half of its guesses were right (adopted).
func TestAheadPays(t *testing.T) {
	for _, c := range []struct {
		over        bool
		tried, used int
		want        bool
	}{{false, 0, 0, true}, {false, aheadTrial - 1, 0, true}, {true, 0, 0, false}, {true, aheadTrial - 1, aheadTrial - 1, false},
		{false, aheadTrial, aheadTrial / 2, true}, {true, aheadTrial, aheadTrial / 2, true}, {false, aheadTrial, aheadTrial/2 - 1, false},
		{false, 40, 19, false}, {true, 40, 20, true}} {
		m := &Generational{a: &search.MethodEnv{SlotsOverCores: c.over}, tried: c.tried, used: c.used}
		if got := m.aheadPays(); got != c.want {
			t.Errorf("slots over cores %v, %d generations with a guess, %d adopted: aheadPays %v, want %v", c.over, c.tried, c.used, got, c.want)
		}
	}
}
