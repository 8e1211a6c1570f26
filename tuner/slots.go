package tuner

import (
	"evotune/tuner/arena"
)

// shareSlots, when the run has no runner of its own, plays its batches on one arena.Slots
// of its workers, so that batches in play at once share the slots; it returns that
// runner's meter (nil with a runner elsewhere) and the function that ends it.
func (t *Tuner) shareSlots() (*arena.BusyMeter, func()) {
	if t.setup.Runner != nil {
		return nil, func() {}
	}
	r := arena.NewSlots(t.cfg.Workers)
	t.setup.Runner = r
	return r.Meter(), func() { t.setup.Runner = nil; r.Close() }
}

// guessSlots is how many games a guess allows left to finish: the run's game slots, else
// its workers (a runner that does not count its slots).
func (t *Tuner) guessSlots() int {
	if slots := t.gameSlots(); slots > 0 {
		return slots
	}
	return t.cfg.Workers
}
