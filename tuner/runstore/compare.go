package runstore

import (
	"context"
	"encoding/json"
	"fmt"

	"evotune/db"
	"evotune/tuner/compare"
	"evotune/tuner/ladder"
)

// LoadComparison reads stored comparison id: its row, and its report with every run linked
// so far and each run's stored verification. Errors: no such comparison, a damaged record.
func LoadComparison(ctx context.Context, d *db.DB, id int64) (db.Comparison, compare.Report, error) {
	c, links, err := d.ComparisonByID(ctx, id)
	if err != nil {
		return c, compare.Report{}, err
	}
	r := compare.Report{ID: c.ID, Game: c.Game}
	if err := json.Unmarshal([]byte(c.Config), &r.Record); err != nil {
		return c, r, fmt.Errorf("comparison %d: config: %w", c.ID, err)
	}
	r.Record.BudgetGames = c.BudgetGames
	for _, l := range links {
		run, err := d.Run(ctx, l.RunID)
		if err != nil {
			return c, r, err
		}
		cell := compare.Cell{Method: l.Method, Seed: l.Seed, RunID: l.RunID, Champion: string(run.BestIndividual)}
		if run.Verification != "" {
			var v ladder.Verification
			if err := json.Unmarshal([]byte(run.Verification), &v); err != nil {
				return c, r, fmt.Errorf("run %d: verification: %w", l.RunID, err)
			}
			cell.V, cell.Deep = &v, v.RungOf(ladder.RungDepth)
		}
		r.Cells = append(r.Cells, cell)
	}
	return c, r, nil
}
