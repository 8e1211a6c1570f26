package tuner

import (
	randv2 "math/rand/v2"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/tuner/arena"
	"evotune/tuner/schedule"
)

// sides is the run as schedule.Sides: its genomes' sides (side), each opening pair's depth
// (Plan.DepthOf: 0, the setup's) and its game.
func (t *Tuner) sides() schedule.Sides { return runSides{t} }

// runSides is a run's schedule.Sides.
type runSides struct{ t *Tuner }

func (s runSides) Side(x []float64) (engine.Weights, *protocol.ExternalSpec, error) {
	return s.t.side(x)
}
func (s runSides) DepthOf(k int) int { return s.t.plan.DepthOf(k) }
func (s runSides) Game() engine.Game { return s.t.plan.Game }

// tuningOpenings draws n tuning-half openings not in exclude: from the run's book
// (Config.BookList) when it has one, else from the game's random opening generator.
func (t *Tuner) tuningOpenings(n int, rng *randv2.Rand, exclude map[string]bool) (arena.Openings, error) {
	if len(t.cfg.BookList) > 0 {
		return arena.BookOpenings(t.cfg.BookList, n, rng, arena.TuningHalf, exclude), nil
	}
	return arena.RandomOpenings(t.plan.Game, t.cfg.Board, n, rng, arena.TuningHalf, exclude)
}

// drawer is the run's arena.Drawer: draw k's tuning openings (tuningOpenings) from the
// random stream of its generation and stream.
func (t *Tuner) drawer(k arena.DrawKey, exclude map[string]bool) (arena.Openings, error) {
	return t.tuningOpenings(k.N, t.rngV2(k.Gen, k.Stream), exclude)
}
