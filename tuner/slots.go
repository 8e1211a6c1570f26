package tuner

import (
	"time"

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

// elsewhereSlotTime is the busy slot time a generation of wall time took on `slots` game
// slots gets from games played elsewhere (a cluster: no meter here), given its games'
// wall times `played`: as much as took × slots holds, the rest carried to the generations
// after it. Games told in a generation may have been played in the ones before (rounds in
// play overlap), so a generation can be told more game time than its wall time holds;
// carried on, every game's time is counted once, where the run had room for it.
func (t *Tuner) elsewhereSlotTime(played, took time.Duration, slots int) time.Duration {
	t.slotCarry += played // played < 0: a stopped batch's games, counted before, taken off
	s := max(0, min(t.slotCarry, took*time.Duration(max(1, slots))))
	t.slotCarry -= s
	return s
}

// elsewhereBusy is the SlotMeter reading of the run's runner (0 when it has none).
func (t *Tuner) elsewhereBusy() time.Duration {
	if m, ok := t.setup.Runner.(arena.SlotMeter); ok {
		return m.BusySlotTime()
	}
	return 0
}

// elsewherePlayed is the slot time a generation that began at SlotMeter reading since was
// played elsewhere: what the meter told since, or, from a runner without one, the wall
// times of the generation's own games (told).
func (t *Tuner) elsewherePlayed(since, told time.Duration) time.Duration {
	if m, ok := t.setup.Runner.(arena.SlotMeter); ok {
		return m.BusySlotTime() - since
	}
	return told
}
