package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Comparison is a row of the comparisons table (evotune compare).
type Comparison struct {
	ID          int64
	Game        string
	BudgetGames int
	Config      string // JSON
	Status      string
	Error       string
	CreatedAt   string
	FinishedAt  string
}

// ComparisonRun links a run to its comparison, method and seed.
type ComparisonRun struct {
	Method string
	Seed   int64
	RunID  int64
}

// CreateComparison inserts a running comparison and returns its ID.
func (d *DB) CreateComparison(ctx context.Context, game string, budgetGames int, config string) (int64, error) {
	res, err := d.sql.ExecContext(ctx, `INSERT INTO comparisons (game, budget_games, config, status, created_at) VALUES (?, ?, ?, 'running', ?)`,
		game, budgetGames, config, now())
	if err != nil {
		return 0, fmt.Errorf("create comparison: %w", explain(err))
	}
	return res.LastInsertId()
}

// AddComparisonRun records that run runID is method on seed in comparison id.
func (d *DB) AddComparisonRun(ctx context.Context, id int64, r ComparisonRun) error {
	if _, err := d.sql.ExecContext(ctx, `INSERT INTO comparison_runs (comparison_id, method, seed, run_id) VALUES (?, ?, ?, ?)`,
		id, r.Method, r.Seed, r.RunID); err != nil {
		return fmt.Errorf("comparison %d: %w", id, explain(err))
	}
	return nil
}

// SetComparisonStatus records "finished", "stopped" or "failed" (with the error's text).
func (d *DB) SetComparisonStatus(ctx context.Context, id int64, status, errText string) error {
	if _, err := d.sql.ExecContext(ctx, `UPDATE comparisons SET status = ?, error = ?, finished_at = ? WHERE id = ?`,
		status, nullStr(errText), now(), id); err != nil {
		return fmt.Errorf("comparison %d: %w", id, explain(err))
	}
	return nil
}

// ComparisonByID returns a comparison and its runs (in the order they were made); the
// error names a comparison that does not exist.
func (d *DB) ComparisonByID(ctx context.Context, id int64) (Comparison, []ComparisonRun, error) {
	var c Comparison
	var errText, fin sql.NullString
	err := d.sql.QueryRowContext(ctx, `SELECT id, game, budget_games, config, status, error, created_at, finished_at FROM comparisons WHERE id = ?`, id).
		Scan(&c.ID, &c.Game, &c.BudgetGames, &c.Config, &c.Status, &errText, &c.CreatedAt, &fin)
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil, fmt.Errorf("comparison %d: not in %s (see the comparisons table)", id, d.path)
	}
	if err != nil {
		return c, nil, explain(err)
	}
	c.Error, c.FinishedAt = errText.String, fin.String
	rows, err := d.sql.QueryContext(ctx, `SELECT method, seed, run_id FROM comparison_runs WHERE comparison_id = ? ORDER BY rowid`, id)
	if err != nil {
		return c, nil, explain(err)
	}
	defer rows.Close()
	var out []ComparisonRun
	for rows.Next() {
		var r ComparisonRun
		if err := rows.Scan(&r.Method, &r.Seed, &r.RunID); err != nil {
			return c, nil, err
		}
		out = append(out, r)
	}
	return c, out, rows.Err()
}
