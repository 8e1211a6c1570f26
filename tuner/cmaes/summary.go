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
