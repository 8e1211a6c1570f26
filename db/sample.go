package db

import (
	"context"
	"database/sql"
	"encoding/json"
)

// Window is a range of generations [From, To] (To < 0: up to the last).
type Window struct{ From, To int }

func (w Window) to() int {
	if w.To < 0 {
		return int(^uint(0) >> 1)
	}
	return w.To
}

// SampleGenerations picks the generations of run runID in window w that a chart of at
// most about 3·buckets points needs: the window is cut into buckets consecutive ranges, and
// of each the generation with the lowest fitness_min (the highest best score), the one
// with the highest fitness_min (the lowest best score) and the last are kept, with every generation that has a
// checkpoint. It returns nil (every generation) when the window holds no more than
// 3·buckets generations, and the window's number of generations.
func (d *DB) SampleGenerations(ctx context.Context, runID int64, buckets int, w Window) ([]int, int, error) {
	var n, lo, hi sql.NullInt64
	if err := d.sql.QueryRowContext(ctx, `SELECT count(*), min(generation), max(generation) FROM generations
		WHERE run_id = ? AND generation BETWEEN ? AND ?`, runID, w.From, w.to()).Scan(&n, &lo, &hi); err != nil {
		return nil, 0, explain(err)
	}
	if int(n.Int64) <= 3*buckets {
		return nil, int(n.Int64), nil
	}
	// One range scan of the index generations_fitness per bucket and kind, all in SQLite:
	// a pass of a window function over every row sorts 200 000 rows three times (0.7 s).
	span := hi.Int64 - lo.Int64 + 1
	rows, err := d.sql.QueryContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?3),
		k(a, b) AS (SELECT ?1 + i * ?2 / ?3, ?1 + (i + 1) * ?2 / ?3 - 1 FROM n)
		SELECT g FROM (
			SELECT (SELECT generation FROM generations WHERE run_id = ?4 AND generation BETWEEN a AND b ORDER BY fitness_min, generation LIMIT 1) AS g FROM k
			UNION SELECT (SELECT generation FROM generations WHERE run_id = ?4 AND generation BETWEEN a AND b ORDER BY fitness_min DESC, generation LIMIT 1) FROM k
			UNION SELECT (SELECT max(generation) FROM generations WHERE run_id = ?4 AND generation BETWEEN a AND b) FROM k
			UNION SELECT generation FROM checkpoints WHERE run_id = ?4 AND generation BETWEEN ?1 AND ?1 + ?2 - 1)
		WHERE g IS NOT NULL ORDER BY g`,
		lo.Int64, span, buckets, runID)
	if err != nil {
		return nil, 0, explain(err)
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var g int
		if err := rows.Scan(&g); err != nil {
			return nil, 0, explain(err)
		}
		out = append(out, g)
	}
	return out, int(n.Int64), explain(rows.Err())
}

// inGenerations is the SQL condition and argument that keep the generations gens of
// window w (gens nil: all of w).
func inGenerations(col string, gens []int, w Window) (string, []any) {
	if gens == nil {
		return " AND " + col + " BETWEEN ? AND ?", []any{w.From, w.to()}
	}
	b, _ := json.Marshal(gens)
	return " AND " + col + " IN (SELECT value FROM json_each(?))", []any{string(b)}
}

// GenerationsIn returns the generations gens of run runID (nil: all of window w) without
// their JSON columns (opponents, openings, method_state), for charts.
func (d *DB) GenerationsIn(ctx context.Context, runID int64, gens []int, w Window) ([]GenerationRow, error) {
	cond, args := inGenerations("generation", gens, w)
	return d.generations(ctx, false, cond, append([]any{runID}, args...)...)
}

// TopRanksIn returns the scores of the individuals ranked 1 to 3 (with their IDs) of the
// generations gens of run runID (nil: all of window w), by generation and rank: the GA's
// best, SPSA's θ after the step beside θ+ and θ− (spsa.PlusID in tuner/spsa names θ+).
func (d *DB) TopRanksIn(ctx context.Context, runID int64, gens []int, w Window) ([]RankScore, error) {
	cond, args := inGenerations("generation", gens, w)
	rows, err := d.sql.QueryContext(ctx, "SELECT generation, rank, id, score, score_se FROM individuals WHERE run_id = ? AND rank IN (1, 2, 3)"+cond+" ORDER BY generation, rank",
		append([]any{runID}, args...)...)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []RankScore
	for rows.Next() {
		var r RankScore
		var sc, se sql.NullFloat64
		if err := rows.Scan(&r.Generation, &r.Rank, &r.ID, &sc, &se); err != nil {
			return nil, explain(err)
		}
		if sc.Valid {
			r.Score = &sc.Float64
		}
		if se.Valid {
			r.SE = &se.Float64
		}
		out = append(out, r)
	}
	return out, explain(rows.Err())
}

// GeneRowsIn is GeneRows (every individual) for the generations gens (nil: all of window w).
func (d *DB) GeneRowsIn(ctx context.Context, runID int64, gens []int, w Window) ([]GeneRow, error) {
	cond, args := inGenerations("i.generation", gens, w)
	return d.geneRows(ctx, cond, append([]any{runID}, args...)...)
}

func (d *DB) geneRows(ctx context.Context, cond string, args ...any) ([]GeneRow, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT i.generation, i.rank, i.games, i.score, g.genes FROM individuals i
		JOIN genomes g ON g.run_id = i.run_id AND g.id = i.id WHERE i.run_id = ?`+cond+" ORDER BY i.generation, i.rank", args...)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []GeneRow
	for rows.Next() {
		var r GeneRow
		if err := rows.Scan(&r.Generation, &r.Rank, &r.Games, &r.Score, &r.Genes); err != nil {
			return nil, explain(err)
		}
		out = append(out, r)
	}
	return out, explain(rows.Err())
}
