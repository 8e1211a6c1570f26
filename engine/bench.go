package engine

import (
	"context"
	"encoding/json"
	"fmt"
)

// BenchRow is one searched position of a bench run (or the run's total): the search's
// depth in plies, its width, the move chosen, its nodes, its wall time in seconds and its
// nodes per second.
type BenchRow struct {
	Position string  `json:"position"`
	Depth    int     `json:"depth"`
	Width    int     `json:"width"`
	Move     string  `json:"move"`
	Nodes    int64   `json:"nodes"`
	Seconds  float64 `json:"seconds"`
	NPS      float64 `json:"nps"`
}

// BenchHeader is the header line of the text report whose rows are BenchRow.Text.
var BenchHeader = fmt.Sprintf("%-12s %5s %5s %-14s %12s %9s %12s", "position", "depth", "width", "move", "nodes", "seconds", "nps")

// Text is the row as one line of the text report, in BenchHeader's columns.
func (r BenchRow) Text() string {
	return fmt.Sprintf("%-12s %5d %5d %-14s %12d %9.3f %12.0f", r.Position, r.Depth, r.Width, r.Move, r.Nodes, r.Seconds, r.NPS)
}

// BenchReport is a bench run of a game's fixed suite (Bencher): one row per position,
// their total (nodes and seconds summed; NPS their ratio), and the game's own extra
// measurement (ExtraBencher) when it has one.
type BenchReport struct {
	Game      string
	Positions []BenchRow
	Total     BenchRow
	// ExtraKey names the extra measurement in the JSON report, Extra holds its values and
	// ExtraLine is its line of the text report ("" and nil without one).
	ExtraKey  string
	Extra     map[string]any
	ExtraLine string
}

// MarshalJSON writes {"game", "positions", "total"} and, with an extra measurement, its
// key.
func (r BenchReport) MarshalJSON() ([]byte, error) {
	m := map[string]any{"game": r.Game, "positions": r.Positions, "total": r.Total}
	if r.ExtraKey != "" {
		m[r.ExtraKey] = r.Extra
	}
	return json.Marshal(m)
}

// RunBench searches every position of g's bench suite with the default weights at the
// suite's limits, Depth and Width overridden by lim's where set (> 0), calling each (if not
// nil) with every row as soon as it is measured. The error says when g has no suite, or
// which position's moves or search failed (ctx's error among them).
func RunBench(ctx context.Context, g Game, lim Limits, each func(BenchRow)) (BenchReport, error) {
	bg, ok := g.(Bencher)
	if !ok {
		return BenchReport{}, fmt.Errorf("%s has no bench suite", g.Name())
	}
	suite, l := bg.BenchSuite()
	if lim.Depth > 0 {
		l.Depth = lim.Depth
	}
	if lim.Width > 0 {
		l.Width = lim.Width
	}
	r := BenchReport{Game: g.Name(), Total: BenchRow{Position: "total", Depth: l.Depth, Width: l.Width}}
	for _, bp := range suite {
		b, err := g.NewBoard(bp.Size)
		if err != nil {
			return r, err
		}
		for _, m := range bp.Moves {
			if err := b.Play(m); err != nil {
				return r, fmt.Errorf("bench position %s: %w", bp.Name, err)
			}
		}
		pl, err := g.NewPlayer(g.DefaultWeights(), l)
		if err != nil {
			return r, err
		}
		m, st, err := pl.Move(ctx, b)
		if err != nil {
			return r, fmt.Errorf("bench position %s: %w", bp.Name, err)
		}
		row := BenchRow{bp.Name, st.Depth, l.Width, m, st.Nodes, st.Elapsed.Seconds(), st.NPS()}
		r.Positions = append(r.Positions, row)
		r.Total.Nodes += row.Nodes
		r.Total.Seconds += row.Seconds
		if each != nil {
			each(row)
		}
	}
	if r.Total.Seconds > 0 {
		r.Total.NPS = float64(r.Total.Nodes) / r.Total.Seconds
	}
	if eb, ok := g.(ExtraBencher); ok {
		r.ExtraKey, r.Extra, r.ExtraLine = eb.ExtraBench()
	}
	return r, nil
}
