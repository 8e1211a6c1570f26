package steady

import (
	"fmt"

	"evotune/tuner/report"
)

// Summarise is the steady-state GA's line of a run's summary (report.Summary.Summarise):
// the centre of the better half after the last birth.
func Summarise(s report.Summary) string {
	return fmt.Sprintf("champion %s: the centre of the better half of the population after %d steady-state generations (a recombination of the best members, not a pick among noisy scores; it has played no game of its own: the verification below measures it)", s.Best, s.Generations)
}
