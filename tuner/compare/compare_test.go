package compare

import (
	"evotune/tuner/ladder"
	"math"
	"testing"
)

// TestCompareTableBaseline: a seed whose result is the paper's weights counts as Elo 0 (by
// identity, no games) in the mean and the worst; a seed not yet measured is NaN and left out.
func TestCompareTableBaseline(t *testing.T) {
	cells := []Cell{
		{Method: "ga", Seed: 1, V: &ladder.Verification{Baseline: true}},
		{Method: "ga", Seed: 2, V: &ladder.Verification{Games: 100, Elo: 30, EloCI95: 10}},
		{Method: "spsa", Seed: 1, V: &ladder.Verification{Games: 100, Elo: 50, EloCI95: 10}},
	}
	rows := Table(cells, []string{"ga", "spsa"}, []int64{1, 2})
	ga, spsa := rows[0], rows[1]
	if !ga.Baseline[0] || ga.Baseline[1] || ga.Elo[0] != 0 || ga.Mean != 15 || ga.Worst != 0 {
		t.Fatalf("ga row %+v", ga)
	}
	if !math.IsNaN(spsa.Elo[1]) || spsa.Mean != 50 || spsa.Baseline[0] {
		t.Fatalf("spsa row %+v", spsa)
	}
}
