package connect6

import (
	"context"
	"fmt"
	"time"

	"evotune/engine"
)

// BenchGame is the fixed 8-move game whose 9th move (Black to move, 15 stones on the
// board) the scan benchmark searches, as in the paper's Fig. 3 (000_9752b1518ee42188.txt
// §4.2.1: "for the 9th move", width 10, depth 3, 4, 5). It was produced once by evotune's
// own depth-2, width-10 self-play and is fixed here so measurements are comparable.
var BenchGame = []string{"J10", "I8H9", "J7J9", "J8I10", "G8I9", "I7H8", "K8K9", "H6H7"}

// ScanResult is one search of the 9th move with one scan.
type ScanResult struct {
	Scan    string        `json:"scan"`
	Depth   int           `json:"depth"`
	Width   int           `json:"width"`
	Move    string        `json:"move"`
	Score   int64         `json:"score"`
	Nodes   int64         `json:"nodes"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// String returns "local" or "global".
func (s Scan) String() string {
	if s == GlobalScan {
		return "global"
	}
	return "local"
}

// BenchNinthMove searches the 9th move of BenchGame with the paper's weights and the given
// scan, depth and width, with a fresh searcher, and reports the time. The error is the
// context's, when cancelled.
func BenchNinthMove(ctx context.Context, scan Scan, depth, width int) (ScanResult, error) {
	b, _ := Game{}.NewBoard(0)
	for _, m := range BenchGame {
		if err := b.Play(m); err != nil {
			return ScanResult{}, fmt.Errorf("bench game: %w", err)
		}
	}
	pl, err := NewPlayer(DefaultWeights(), engine.Limits{Depth: depth, Width: width}, scan)
	if err != nil {
		return ScanResult{}, err
	}
	res := pl.Search(ctx, b.(*Board).pos)
	if err := ctx.Err(); err != nil {
		return ScanResult{}, err
	}
	return ScanResult{Scan: scan.String(), Depth: depth, Width: width, Move: res.Best.String(),
		Score: res.Score, Nodes: res.Nodes, Elapsed: res.Elapsed}, nil
}
