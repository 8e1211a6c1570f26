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
