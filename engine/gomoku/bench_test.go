package gomoku

import (
	"context"
	"testing"
)

// BenchmarkSearchSuite searches the bench suite (BenchSuite: five middle-game positions,
// depth 6, no width limit) once per iteration and reports nodes per second, for profiling
// (go test -bench SearchSuite -cpuprofile …). `evotune bench --game gomoku` prints the same
// per position.
func BenchmarkSearchSuite(b *testing.B) {
	suite, lim := Game{}.BenchSuite()
	var nodes int64
	for i := 0; i < b.N; i++ {
		for _, bp := range suite {
			bd, _ := Game{}.NewBoard(bp.Size)
			for _, m := range bp.Moves {
				if err := bd.Play(m); err != nil {
					b.Fatal(err)
				}
			}
			p, _ := Game{}.NewPlayer(Game{}.DefaultWeights(), lim)
			_, st, err := p.Move(context.Background(), bd)
			if err != nil {
				b.Fatal(err)
			}
			nodes += st.Nodes
		}
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}
