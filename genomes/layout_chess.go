package genomes

import (
	"evotune/engine/chess"
)

// ChessLayout: the built-in chess player's piece values (centipawns, integers, each in
// [1, 3 000]) and the scale of its piece-square tables (percent, [0, 400]), all linear
// (engine/chess Weights: the Simplified Evaluation Function's values as defaults).
//
// pawn is fixed: the evaluation is linear in the values and the tables together, so all of
// them times one factor play identically; the pawn is the unit (100 centipawns).
func ChessLayout() *Layout {
	d := chess.DefaultWeights()
	return &Layout{Game: chess.Name, builtin: chess.Game{}, Genes: []Gene{
		{Name: "pawn", Min: 1, Max: 3000, Default: d.Pawn, Integer: true, Fixed: true,
			Note: "scale anchor: every value and the tables scaled by one factor play identically"},
		{Name: "knight", Min: 1, Max: 3000, Default: d.Knight, Integer: true},
		{Name: "bishop", Min: 1, Max: 3000, Default: d.Bishop, Integer: true},
		{Name: "rook", Min: 1, Max: 3000, Default: d.Rook, Integer: true},
		{Name: "queen", Min: 1, Max: 3000, Default: d.Queen, Integer: true},
		{Name: "pst", Min: 0, Max: 400, Default: d.PST},
	}}
}
