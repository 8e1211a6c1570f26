package connect6

import (
	"context"
	"fmt"
	"strings"
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
	res := pl.Search(ctx, b.(*Board).Pos)
	if err := ctx.Err(); err != nil {
		return ScanResult{}, err
	}
	return ScanResult{Scan: scan.String(), Depth: depth, Width: width, Move: res.Best.String(),
		Score: res.Score, Nodes: res.Nodes, Elapsed: res.Elapsed}, nil
}

// paperFig3 is Fig. 3 of 000_9752b1518ee42188.txt §4.2.1: the seconds of the local and the
// global scan at depths 3, 4 and 5 (C#, a 2.6 GHz laptop).
var paperFig3 = map[int][2]float64{3: {2.010, 23.030}, 4: {31.855, 269.902}, 5: {36.301, 640.780}}

// ScanRow is one depth of the scan benchmark: its searches (local first), the global
// scan's time over the local's and whether both chose the same move and score (both
// scans run), and the paper's seconds (0 at a depth the paper did not measure).
type ScanRow struct {
	Depth      int          `json:"depth"`
	Width      int          `json:"width"`
	Results    []ScanResult `json:"results"`
	Ratio      float64      `json:"global_over_local,omitempty"`
	SameMove   *bool        `json:"same_move,omitempty"`
	PaperLocal float64      `json:"paper_local_seconds"`
	PaperGlob  float64      `json:"paper_global_seconds"`
}

// ScanBench reproduces Fig. 3 of 000_9752b1518ee42188.txt §4.2.1 (engine.ScanBencher): the
// 9th move of BenchGame searched with scan "local", "global" or "both", at depth (0 =
// the paper's 3, 4 and 5) and width (0 = the paper's 10). It returns the rows
// ([]ScanRow) and the text report beside the paper's seconds; the error names a bad scan
// or is the context's.
func (Game) ScanBench(ctx context.Context, scan string, depth, width int) (any, string, error) {
	var scans []Scan
	switch scan {
	case "local":
		scans = []Scan{LocalScan}
	case "global":
		scans = []Scan{GlobalScan}
	case "both":
		scans = []Scan{LocalScan, GlobalScan}
	default:
		return nil, "", fmt.Errorf("scan %q: want global, local or both", scan)
	}
	if width == 0 {
		width = 10
	}
	depths := []int{3, 4, 5}
	if depth > 0 {
		depths = []int{depth}
	}
	var rows []ScanRow
	var out strings.Builder
	fmt.Fprintf(&out, "9th move of the fixed game, width %d (paper: C#, 2.6 GHz laptop)\n", width)
	fmt.Fprintf(&out, "%5s %-7s %-10s %10s %12s %12s\n", "depth", "scan", "move", "nodes", "seconds", "paper s")
	for _, d := range depths {
		paper := paperFig3[d]
		r := ScanRow{Depth: d, Width: width, PaperLocal: paper[0], PaperGlob: paper[1]}
		for _, s := range scans {
			res, err := BenchNinthMove(ctx, s, d, width)
			if err != nil {
				return nil, "", err
			}
			r.Results = append(r.Results, res)
			fmt.Fprintf(&out, "%5d %-7s %-10s %10d %12.4f %12.3f\n", d, res.Scan, res.Move, res.Nodes, res.Elapsed.Seconds(), paper[int(s)])
		}
		if len(r.Results) == 2 {
			same := r.Results[0].Move == r.Results[1].Move && r.Results[0].Score == r.Results[1].Score
			r.SameMove = &same
			r.Ratio = r.Results[1].Elapsed.Seconds() / r.Results[0].Elapsed.Seconds()
			fmt.Fprintf(&out, "      global/local = %.1fx (paper %.1fx), same move and score: %v\n", r.Ratio, paper[1]/paper[0], same)
		}
		rows = append(rows, r)
	}
	return rows, out.String(), nil
}
