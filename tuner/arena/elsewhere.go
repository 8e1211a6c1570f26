package arena

import "time"

// Slot time of games played elsewhere (a cluster's clients), where no BusyMeter of this
// process measures it: the runner's SlotMeter, else the games' own wall times.

// BusyElsewhere is runner r's SlotMeter reading: the busy slot time of every game it has
// played so far (0 when r has no meter).
func BusyElsewhere(r BatchRunner) time.Duration {
	if m, ok := r.(SlotMeter); ok {
		return m.BusySlotTime()
	}
	return 0
}

// PlayedElsewhere is the slot time runner r played since its SlotMeter read since
// (BusyElsewhere); from a runner without a meter, told: the wall times of the games
// told meanwhile.
func PlayedElsewhere(r BatchRunner, since, told time.Duration) time.Duration {
	if m, ok := r.(SlotMeter); ok {
		return m.BusySlotTime() - since
	}
	return told
}

// SlotCarry gives each generation the busy slot time of games played elsewhere that fits
// in it. Games told in a generation may have been played in the ones before (rounds in
// play overlap), so what does not fit is carried on to the generations after it. The zero
// value carries nothing.
type SlotCarry struct{ carry time.Duration }

// Take adds played (< 0: a stopped batch's games, counted before, taken off) and returns
// the busy slot time a generation of wall time took on `slots` game slots gets: as much as
// took × slots holds.
func (c *SlotCarry) Take(played, took time.Duration, slots int) time.Duration {
	c.carry += played
	s := max(0, min(c.carry, took*time.Duration(max(1, slots))))
	c.carry -= s
	return s
}
