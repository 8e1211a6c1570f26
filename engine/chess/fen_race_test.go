package chess

import (
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentFEN: positions set up from different FENs at once, on many goroutines (a
// match's games), each hold their own FEN: the rules library's FEN decoder shares a
// buffer between callers, which libFEN serialises. Without it this fails (most runs under
// -race, some runs without, with another FEN's ranks).
func TestConcurrentFEN(t *testing.T) {
	fens := []string{
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
		"rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1",
		"rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1",
		"rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1",
		"8/8/8/4k3/8/8/4K3/8 w - - 0 1",
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				fen := fens[(g+i)%len(fens)]
				p, err := PositionFromFEN(fen, nil)
				if err != nil {
					errs <- err
					return
				}
				if got := p.FEN(); got != fen {
					errs <- fmt.Errorf("set up %q, got %q", fen, got)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
