package arena

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"evotune/engine"
	"evotune/engine/connect6"
	"evotune/engine/gomoku"
)

// plainOpener is a game whose openings are drawn one RandomOpening after another: it hides
// the game's engine.CheckedOpener, so RandomOpenings takes its sequential path.
type plainOpener struct {
	engine.Game
	op engine.Opener
}

func (p plainOpener) RandomOpening(b engine.Board, rng *rand.Rand) []string {
	return p.op.RandomOpening(b, rng)
}

// TestCheckedOpeningsInParallel: the openings of a game whose candidates are checked by a
// search, drawn with the checks run at once, are the same as those drawn one RandomOpening
// after another, for both halves, with an exclusion, and on a 7×7 gomoku board.
func TestCheckedOpeningsInParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, c := range []struct {
		g     engine.Game
		board int
		n     int
	}{{gomoku.Game{}, 15, 16}, {gomoku.Game{}, 7, 40}, {connect6.Game{}, 0, 12}} {
		if _, ok := c.g.(engine.CheckedOpener); !ok {
			t.Fatalf("%s: not a CheckedOpener", c.g.Name())
		}
		plain := plainOpener{c.g, c.g.(engine.Opener)}
		for seed := range uint64(3) {
			for _, half := range []Half{TuningHalf, HeldOutHalf} {
				draw := func(g engine.Game, exclude map[string]bool) Openings {
					os, err := RandomOpenings(g, c.board, c.n, rand.New(rand.NewPCG(seed, 9)), half, exclude)
					if err != nil {
						t.Fatal(err)
					}
					return os
				}
				first := draw(c.g, nil)
				exclude := map[string]bool{}
				for _, o := range first[:len(first)/2] {
					exclude[Key(o)] = true
				}
				for _, ex := range []map[string]bool{nil, exclude} {
					got, want := draw(c.g, ex), draw(plain, ex)
					if len(want) == 0 || !slices.EqualFunc(got, want, slices.Equal) {
						t.Errorf("%s %d, seed %d, half %d, %d excluded: in parallel %d openings %v, one after another %d %v",
							c.g.Name(), c.board, seed, half, len(ex), len(got), got, len(want), want)
					}
				}
			}
		}
	}
}
