package genomes

import (
	"fmt"

	"evotune/engine/connect6"
)

// Connect6Layout: value_1…value_6 and threat_1…threat_6, f(n) and g(n) of Table 1
// (000_9752b1518ee42188.txt §4), log scale in [0.1, 1e8], played to 0.01 (no rounding to
// integers, see connect6.TableScale).
//
// Fixed unless freed: n = 6 (six in a road is the win, decided by the search before any
// evaluation), and value_1 = 1, the scale anchor: multiplying both tables by one factor
// leaves every move unchanged (moves are chosen by score differences and the width cut by
// score order), so one gene must hold the unit or the GA wanders along a direction that
// changes nothing. Known from play (400 games on held-out openings):
// threat_4/threat_5 anywhere in [1 000, 20 000] left every game identical, because
// forced blocks decide those positions; value_5 = 1 000 cost −174 ± 39 Elo and raising
// value_2/value_3 cost −312 ± 51, so the paper's table sits near a good region.
func Connect6Layout() *Layout {
	d := connect6.DefaultWeights()
	var genes []Gene
	for _, tab := range []struct {
		name string
		v    []float64
	}{{"value", d.Value}, {"threat", d.Threat}} {
		for n := 1; n <= connect6.K; n++ {
			g := Gene{Name: fmt.Sprintf("%s_%d", tab.name, n), Min: 0.1, Max: 1e8,
				Default: tab.v[n-1], Scale: Log, Fixed: n == connect6.K}
			switch {
			case n == connect6.K:
				g.Note = "six in a road wins: decided by the search, never by its value"
			case tab.name == "value" && n == 1:
				g.Fixed, g.Note = true, "scale anchor: both tables scaled by one factor play identically"
			case tab.name == "threat" && (n == 4 || n == 5):
				g.Note = "1 000–20 000 played identically in 400 games (forced blocks decide)"
			}
			genes = append(genes, g)
		}
	}
	return &Layout{Game: connect6.Name, Genes: genes, builtin: connect6.Game{}}
}
