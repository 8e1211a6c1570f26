package cmaes

import (
	"fmt"

	"evotune/tuner/report"
)

// Summarise is CMA-ES's line of a run's summary (report.Summary.Summarise): the mean
// after the last generation.
func Summarise(s report.Summary) string {
	return fmt.Sprintf("champion %s: the mean after the last of %d CMA-ES generations (a recombination of the best candidates, not a pick among noisy scores)", s.Best, s.Generations)
}

// SlotHint is CMA-ES's slot hint at lag 0 (config.Method.SlotHint): --cmaes-lag 1, and what
// it costs.
func SlotHint(_, _, _ int) string {
	return "the game slots waited: each CMA-ES generation waited for its slowest game; --cmaes-lag 1 samples a generation while the one before it plays (99.9% of 16 and 99.0% of 64 replayed gomoku slots busy where lag 0, playing its likeliest next generations ahead, kept 92% and 71%, and no guess of one generation, even from the games' real results, keeps more than 93% and 48% (connect6) of 64; 5 Elo weaker over nine gomoku seeds at equal games, the extra games of 16 slots not buying it back); it changes the search, and on many cores --method spsa fills the slots at its defaults (docs/tune.md)"
}
