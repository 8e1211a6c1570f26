package chess

import (
	"context"
	"testing"

	"evotune/engine"
)

// BenchmarkRefereeMove measures what the referee does per move of a chess game: play the
// move (parse, check, make, key) and ask for the outcome, over a fixed 60-ply game.
func BenchmarkRefereeMove(b *testing.B) {
	g := Game{}
	var game []string
	p, _ := g.NewPlayer(g.DefaultWeights(), engineLimits(1))
	bd, _ := g.NewBoard(0)
	for len(game) < 60 {
		m, _, err := p.Move(context.Background(), bd)
		if err != nil || bd.Play(m) != nil {
			break
		}
		game = append(game, m)
	}
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		bd, _ := g.NewBoard(0)
		for _, m := range game {
			if err := bd.Play(m); err != nil {
				b.Fatal(err)
			}
			bd.Outcome()
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/move")
}

func engineLimits(depth int) engine.Limits { return engine.Limits{Depth: depth} }
