package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/amazons"
	"evotune/engine/gomoku"
)

// TestRunBench: every position of the suite is searched at the requested depth and
// reported once, in order, to the callback; the total sums the rows; the JSON report has
// the game's extra measurement under its key (amazons) and none without one (gomoku).
func TestRunBench(t *testing.T) {
	for _, g := range []engine.Game{gomoku.Game{}, amazons.Game{}} {
		suite, _ := g.(engine.Bencher).BenchSuite()
		var seen []string
		r, err := engine.RunBench(context.Background(), g, engine.Limits{Depth: 2}, func(row engine.BenchRow) { seen = append(seen, row.Position) })
		if err != nil {
			t.Fatalf("%s: %v", g.Name(), err)
		}
		if len(r.Positions) != len(suite) || len(seen) != len(suite) {
			t.Fatalf("%s: %d rows, %d reported, suite of %d", g.Name(), len(r.Positions), len(seen), len(suite))
		}
		var nodes int64
		for i, row := range r.Positions {
			nodes += row.Nodes
			if row.Position != suite[i].Name || seen[i] != suite[i].Name || row.Depth > 2 || row.Nodes <= 0 || row.Move == "" {
				t.Errorf("%s row %d: %+v (reported %s), want position %s searched to depth ≤ 2", g.Name(), i, row, seen[i], suite[i].Name)
			}
		}
		if r.Total.Nodes != nodes || r.Total.Depth != 2 || r.Total.Position != "total" {
			t.Errorf("%s total %+v, want %d nodes at depth 2", g.Name(), r.Total, nodes)
		}
		if !strings.HasPrefix(r.Total.Text(), "total ") || len(r.Total.Text()) != len(engine.BenchHeader) {
			t.Errorf("%s: row %q not in the header's columns %q", g.Name(), r.Total.Text(), engine.BenchHeader)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		json.Unmarshal(b, &m)
		_, extra := g.(engine.ExtraBencher)
		if _, ok := m[r.ExtraKey]; len(m) != 3+map[bool]int{true: 1}[extra] || extra != (ok && r.ExtraKey != "") || m["positions"] == nil || m["total"] == nil {
			t.Errorf("%s JSON keys: %s", g.Name(), b[:min(len(b), 200)])
		}
	}
}
