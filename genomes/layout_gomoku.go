package genomes

import (
	"evotune/engine/gomoku"
)

// GomokuLayout: the 13 pattern scores of Table 1 (001_4cd63e63655ef194.txt §1.1), log
// scale in [1, 1e7] (rounded to whole points by the engine, so steps below ½ point on the
// smallest scores do not change play), and K1, K2 (§2), log scale in [0.05, 20].
//
// The evaluation K1·own − K2·opp is linear in both the pattern scores and (K1, K2), so
// two directions change nothing (200 of 200 game pairs were identical for each):
// all 13 scores times one factor, and K1, K2 times one factor. Two anchors remove them:
// live_three stays 3 000 (the unit of the pattern scores) and k2 stays 1 (k1 is then the
// attack/defence ratio K1/K2 of §2). Free them with --free, or hold k1 too with --fix k1.
//
// live_four is fixed too: `evotune sensitivity --game gomoku --genes live_four --factor
// 300000`) moved it to 1 and to 1e7 and every one of 100 pairs repeated the paper's
// weights' game move for move, at depth 3 and (factor 100) at depth 5: the search's win
// foresight answers and plays out a live four before its score could decide anything, so
// the gene is a direction that changes nothing. --free live_four tunes it anyway.
func GomokuLayout() *Layout {
	d := gomoku.DefaultWeights()
	var genes []Gene
	for i, name := range gomoku.PatternNames {
		g := Gene{Name: name, Min: 1, Max: 1e7, Default: d.Scores[i], Scale: Log}
		switch i {
		case int(gomoku.LiveThree):
			g.Fixed, g.Note = true, "scale anchor: all 13 scores scaled by one factor play identically"
		case int(gomoku.LiveFour):
			g.Fixed, g.Note = true, "inert: 1–1e7 played identically (100/100 pairs at depths 3 and 5): the search sees the live four's win first"
		}
		genes = append(genes, g)
	}
	genes = append(genes,
		Gene{Name: "k1", Min: 0.05, Max: 20, Default: d.K1, Scale: Log, Note: "with k2 = 1: the attack/defence ratio"},
		Gene{Name: "k2", Min: 0.05, Max: 20, Default: d.K2, Scale: Log, Fixed: true,
			Note: "scale anchor: k1 and k2 scaled by one factor play identically"})
	return &Layout{Game: gomoku.Name, Genes: genes, builtin: gomoku.Game{}}
}
