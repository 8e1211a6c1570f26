package genomes

import (
	"fmt"

	"evotune/engine/amazons"
)

// AmazonsLayout: a_1…a_5 in [−200, 200] and b_1…b_5 in [−10, 10] of k_i(t) = a_i + b_i·t,
// switch_turn (integer turn number, [1, 60]), late_k1 [−50, 50] and equal [−1, 1]
// (004_5fa71e7c84b0e80d.txt §4), all linear.
//
// Fixed unless freed: a_1 = 64, the scale anchor (every a_i and b_i times one factor gives
// the same k_i ratios and the same moves), and late_k1 = 5: from switch_turn on the
// evaluation is late_k1·tq alone, so any positive late_k1 plays identically.
func AmazonsLayout() *Layout {
	d := amazons.DefaultWeights()
	var genes []Gene
	for i := 0; i < 5; i++ {
		g := Gene{Name: fmt.Sprintf("a_%d", i+1), Min: -200, Max: 200, Default: d.A[i]}
		if i == 0 {
			g.Fixed, g.Note = true, "scale anchor: all a_i, b_i scaled by one factor play identically"
		}
		genes = append(genes, g)
	}
	for i := 0; i < 5; i++ {
		genes = append(genes, Gene{Name: fmt.Sprintf("b_%d", i+1), Min: -10, Max: 10, Default: d.B[i]})
	}
	genes = append(genes,
		Gene{Name: "switch_turn", Min: 1, Max: 60, Default: d.SwitchTurn, Integer: true},
		Gene{Name: "late_k1", Min: -50, Max: 50, Default: d.LateK1, Fixed: true,
			Note: "the late evaluation is late_k1·tq alone: any positive value plays identically"},
		Gene{Name: "equal", Min: -1, Max: 1, Default: d.Equal})
	return &Layout{Game: amazons.Name, Genes: genes, builtin: amazons.Game{}}
}
