package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// A generation's rows (generations, genomes, individuals, games, admissions, hall of
// fame, checkpoints): saved in one transaction, read back per run.

// SaveGeneration writes a generation, its new genomes, its individuals and its games in
// one transaction, and advances the run's progress; on any error nothing is written.
func (d *DB) SaveGeneration(ctx context.Context, g GenerationData) (err error) {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save generation %d: %w", g.Generation.Generation, explain(err))
	}
	defer func() {
		if err != nil {
			tx.Rollback()
			err = fmt.Errorf("save generation %d: %w", g.Generation.Generation, explain(err))
		}
	}()
	if err = d.checkOwner(ctx, tx, g.RunID); err != nil {
		return err
	}
	for _, gn := range g.NewGenomes {
		if _, err = tx.ExecContext(ctx, `INSERT INTO genomes (run_id, id, born_generation, operator, parent1, parent2, genes) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			g.RunID, gn.ID, gn.Born, gn.Operator, nullStr(gn.Parent1), nullStr(gn.Parent2), gn.Genes); err != nil {
			return err
		}
	}
	r := g.Generation
	if _, err = tx.ExecContext(ctx, `INSERT INTO generations (run_id, generation, fitness_min, fitness_mean, fitness_max, fitness_std, diversity, games, duration_ms, games_ms, best_individual, opponents, openings, method_state, created_at, elapsed_ms, champion, slot_ms, slots)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		g.RunID, r.Generation, r.FitMin, r.FitMean, r.FitMax, r.FitStd, r.Diversity, r.Games, r.DurationMS, r.GamesMS, r.Best, r.Opponents, r.Openings, string(r.MethodState), now(),
		r.ElapsedMS, nullStr(r.Champion), r.SlotMS, r.Slots); err != nil {
		return err
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO individuals (run_id, generation, id, rank, fitness, score, games, wins, draws, losses, penta_0, penta_1, penta_2, penta_3, penta_4, round, score_se, elo, elo_ci95)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, in := range g.Individuals {
		if _, err = ins.ExecContext(ctx, g.RunID, r.Generation, in.ID, in.Rank, in.Fitness, in.Score, in.Games, in.Wins, in.Draws, in.Losses,
			in.Penta[0], in.Penta[1], in.Penta[2], in.Penta[3], in.Penta[4], in.Round, in.ScoreSE, in.Elo, in.EloCI95); err != nil {
			return err
		}
	}
	// A forfeit names the side that lost it and stores that player's genes (if it is a
	// genome of the run: the generation's genomes are written above).
	gi, err := tx.PrepareContext(ctx, `INSERT INTO games (run_id, generation, individual, opponent, opening, colour, result, score, plies, moves, nodes, duration_ms, forfeit, depth, round,
		forfeit_by, forfeit_values, side, moved_first)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, (SELECT genes FROM genomes WHERE run_id = ?1 AND id = ?16),
		`+sideSQL("?1", "?6")+`, ?6 = 'black')`)
	if err != nil {
		return err
	}
	defer gi.Close()
	for _, gm := range g.Games {
		var depth any
		if gm.Depth > 0 {
			depth = gm.Depth
		}
		var by any
		if gm.Forfeit != "" {
			by = gm.Opponent
			if gm.Score == 0 {
				by = gm.Individual
			}
		}
		if _, err = gi.ExecContext(ctx, g.RunID, r.Generation, gm.Individual, gm.Opponent, gm.Opening, gm.Colour, gm.Result, gm.Score, gm.Plies, gm.Moves, gm.Nodes, gm.DurationMS, nullStr(string(gm.Forfeit)),
			depth, gm.Round, by); err != nil {
			return err
		}
	}
	if a := g.Admission; a != nil {
		penta, _ := json.Marshal(a.Penta)
		if _, err = tx.ExecContext(ctx, `INSERT INTO admissions (run_id, generation, candidate, opponent, games, wins, draws, losses, penta, score, score_se, elo, elo_se, opponent_score, diff, diff_se, admitted)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, g.RunID, r.Generation, a.Candidate, a.Opponent, a.Games, a.Wins, a.Draws, a.Losses, string(penta),
			a.Score, a.ScoreSE, a.Elo, a.EloSE, a.OppScore, a.Diff, a.DiffSE, a.Admitted); err != nil {
			return err
		}
	}
	for _, h := range g.HallOfFame {
		penta, _ := json.Marshal(h.Penta)
		if _, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO hall_of_fame (run_id, id, admitted, games, wins, draws, losses, penta, elo, elo_se, elo_lcb, updated_generation)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, g.RunID, h.ID, h.Admitted, h.Games, h.Wins, h.Draws, h.Losses, string(penta),
			h.Elo, h.EloSE, h.EloLCB, r.Generation); err != nil {
			return err
		}
	}
	if c := g.Checkpoint; c != nil {
		if _, err = tx.ExecContext(ctx, `INSERT INTO checkpoints (run_id, generation, elapsed_ms, champion, depth, games, distinct_pairs, wins, draws, losses, score, elo, elo_ci95)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, g.RunID, r.Generation, c.ElapsedMS, c.Champion, c.Depth, c.Games, c.Pairs, c.Wins, c.Draws, c.Losses,
			c.Score, c.Elo, c.EloCI95); err != nil {
			return err
		}
	}
	// The run's best is its champion (the rank-1 individual for runs without a hall of fame).
	best, bestFit := r.Best, any(nil)
	if r.Champion != "" {
		best = r.Champion
	}
	for _, in := range g.Individuals {
		if in.ID == best && in.Games > 0 { // NULL: it played no game (SPSA's θ), nothing measured
			bestFit = in.Fitness
		}
	}
	if _, err = tx.ExecContext(ctx, `UPDATE runs SET generations_done = ?, best_individual = ?, best_fitness = ?, updated_at = ? WHERE id = ?`,
		r.Generation+1, best, bestFit, now(), g.RunID); err != nil {
		return err
	}
	return tx.Commit()
}

// Generations returns a run's generations in order.
func (d *DB) Generations(ctx context.Context, runID int64) ([]GenerationRow, error) {
	return d.generations(ctx, true, "", runID)
}

// generations reads the generations of run args[0] that cond (SQL after the run's
// condition, its arguments after the run ID) keeps, in order; withJSON false leaves the
// JSON columns (opponents, openings, method_state) empty, unread.
func (d *DB) generations(ctx context.Context, withJSON bool, cond string, args ...any) ([]GenerationRow, error) {
	jsonCols := "opponents, openings, method_state"
	if !withJSON {
		jsonCols = "'', '', ''"
	}
	slotCols := "slot_ms, slots"
	if d.schema != 0 && d.schema < 11 { // a read-only file from before the slot columns
		slotCols = "NULL, NULL"
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT generation, fitness_min, fitness_mean, fitness_max, fitness_std, diversity, games, duration_ms, games_ms,
		best_individual, `+jsonCols+`, created_at, COALESCE(elapsed_ms, 0), COALESCE(champion, ''), `+slotCols+` FROM generations WHERE run_id = ?`+cond+` ORDER BY generation`, args...)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []GenerationRow
	for rows.Next() {
		var g GenerationRow
		if err := rows.Scan(&g.Generation, &g.FitMin, &g.FitMean, &g.FitMax, &g.FitStd, &g.Diversity, &g.Games, &g.DurationMS, &g.GamesMS,
			&g.Best, &g.Opponents, &g.Openings, &g.MethodState, &g.CreatedAt, &g.ElapsedMS, &g.Champion, &g.SlotMS, &g.Slots); err != nil {
			return nil, explain(err)
		}
		out = append(out, g)
	}
	return out, explain(rows.Err())
}

// RunIndividuals returns every individual row of a run, by generation, best first: one
// query for what Individuals would take one per generation.
func (d *DB) RunIndividuals(ctx context.Context, runID int64) ([]IndividualRow, error) {
	return d.individuals(ctx, `WHERE run_id = ? ORDER BY generation, rank`, runID)
}

// Individuals returns a generation's individuals, best first.
func (d *DB) Individuals(ctx context.Context, runID int64, gen int) ([]IndividualRow, error) {
	return d.individuals(ctx, `WHERE run_id = ? AND generation = ? ORDER BY rank`, runID, gen)
}

// AtRank returns the individual of each generation of the run at one rank, in generation
// order.
func (d *DB) AtRank(ctx context.Context, runID int64, rank int) ([]IndividualRow, error) {
	return d.individuals(ctx, `WHERE run_id = ? AND rank = ? ORDER BY generation`, runID, rank)
}

// History returns every generation an individual lived in, in order.
func (d *DB) History(ctx context.Context, runID int64, id string) ([]IndividualRow, error) {
	return d.individuals(ctx, `WHERE run_id = ? AND id = ? ORDER BY generation`, runID, id)
}

func (d *DB) individuals(ctx context.Context, where string, args ...any) ([]IndividualRow, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT generation, id, rank, fitness, score, games, wins, draws, losses, penta_0, penta_1, penta_2, penta_3, penta_4,
		round, score_se, elo, elo_ci95 FROM individuals `+where, args...)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []IndividualRow
	for rows.Next() {
		var r IndividualRow
		if err := rows.Scan(&r.Generation, &r.ID, &r.Rank, &r.Fitness, &r.Score, &r.Games, &r.Wins, &r.Draws, &r.Losses,
			&r.Penta[0], &r.Penta[1], &r.Penta[2], &r.Penta[3], &r.Penta[4], &r.Round, &r.ScoreSE, &r.Elo, &r.EloCI95); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Genome returns one distinct individual; the error wraps ErrNotFound.
func (d *DB) Genome(ctx context.Context, runID int64, id string) (GenomeRow, error) {
	var g GenomeRow
	err := d.sql.QueryRowContext(ctx, `SELECT id, born_generation, operator, COALESCE(parent1, ''), COALESCE(parent2, ''), genes
		FROM genomes WHERE run_id = ? AND id = ?`, runID, id).Scan(&g.ID, &g.Born, &g.Operator, &g.Parent1, &g.Parent2, &g.Genes)
	if errors.Is(err, sql.ErrNoRows) {
		return g, fmt.Errorf("individual %s: %w", id, ErrNotFound)
	}
	return g, explain(err)
}

// Genomes returns every distinct individual of a run in birth order.
func (d *DB) Genomes(ctx context.Context, runID int64) ([]GenomeRow, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT id, born_generation, operator, COALESCE(parent1, ''), COALESCE(parent2, ''), genes
		FROM genomes WHERE run_id = ? ORDER BY born_generation, id`, runID)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []GenomeRow
	for rows.Next() {
		var g GenomeRow
		if err := rows.Scan(&g.ID, &g.Born, &g.Operator, &g.Parent1, &g.Parent2, &g.Genes); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// Games returns the games of a run's generation.
func (d *DB) Games(ctx context.Context, runID int64, gen int) ([]GameRow, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT generation, individual, opponent, opening, colour, result, score, plies, moves, nodes, duration_ms, COALESCE(forfeit, ''),
		COALESCE(depth, 0), round, `+d.forfeitCols(ctx)+`, `+d.sideCols(ctx, "games")+` FROM games WHERE run_id = ? AND generation = ? ORDER BY id`, runID, gen)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []GameRow
	for rows.Next() {
		var g GameRow
		var values string
		if err := rows.Scan(&g.Generation, &g.Individual, &g.Opponent, &g.Opening, &g.Colour, &g.Result, &g.Score, &g.Plies, &g.Moves, &g.Nodes, &g.DurationMS, &g.Forfeit,
			&g.Depth, &g.Round, &g.ForfeitBy, &values, &g.Side, &g.MovedFirst); err != nil {
			return nil, err
		}
		if values != "" {
			g.ForfeitValues = JSONText(values)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// Admissions returns a run's hall-of-fame tests in generation order.
func (d *DB) Admissions(ctx context.Context, runID int64) ([]AdmissionRow, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT generation, candidate, opponent, games, wins, draws, losses, penta, score, score_se, elo, elo_se, opponent_score, diff, diff_se, admitted
		FROM admissions WHERE run_id = ? ORDER BY generation`, runID)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []AdmissionRow
	for rows.Next() {
		var a AdmissionRow
		var penta string
		if err := rows.Scan(&a.Generation, &a.Candidate, &a.Opponent, &a.Games, &a.Wins, &a.Draws, &a.Losses, &penta, &a.Score, &a.ScoreSE,
			&a.Elo, &a.EloSE, &a.OppScore, &a.Diff, &a.DiffSE, &a.Admitted); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(penta), &a.Penta); err != nil {
			return nil, fmt.Errorf("run %d admission of generation %d: penta: %w", runID, a.Generation, err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// HallOfFame returns a run's hall of fame in order of admission.
func (d *DB) HallOfFame(ctx context.Context, runID int64) ([]FamerRow, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT id, admitted, games, wins, draws, losses, penta, elo, elo_se, elo_lcb
		FROM hall_of_fame WHERE run_id = ? ORDER BY admitted`, runID)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []FamerRow
	for rows.Next() {
		var h FamerRow
		var penta string
		if err := rows.Scan(&h.ID, &h.Admitted, &h.Games, &h.Wins, &h.Draws, &h.Losses, &penta, &h.Elo, &h.EloSE, &h.EloLCB); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(penta), &h.Penta); err != nil {
			return nil, fmt.Errorf("run %d hall of fame %s: penta: %w", runID, h.ID, err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// Checkpoints returns a run's held-out checks in generation order.
func (d *DB) Checkpoints(ctx context.Context, runID int64) ([]CheckpointRow, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT generation, elapsed_ms, champion, depth, games, distinct_pairs, wins, draws, losses, score, elo, elo_ci95
		FROM checkpoints WHERE run_id = ? ORDER BY generation`, runID)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []CheckpointRow
	for rows.Next() {
		var c CheckpointRow
		if err := rows.Scan(&c.Generation, &c.ElapsedMS, &c.Champion, &c.Depth, &c.Games, &c.Pairs, &c.Wins, &c.Draws, &c.Losses, &c.Score, &c.Elo, &c.EloCI95); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Ancestors returns the individual and all its ancestors (each once), parents after
// children.
func (d *DB) Ancestors(ctx context.Context, runID int64, id string) ([]GenomeRow, error) {
	if _, err := d.Genome(ctx, runID, id); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []GenomeRow
	queue := []string{id}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if seen[cur] {
			continue
		}
		seen[cur] = true
		g, err := d.Genome(ctx, runID, cur)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
		for _, p := range []string{g.Parent1, g.Parent2} {
			if p != "" && !seen[p] {
				queue = append(queue, p)
			}
		}
	}
	return out, nil
}

// forfeitCols selects games.forfeit_by and forfeit_values as text (” for NULL), or two
// empty texts in a database older than schema version 9, read as it is.
// sideSQL is the SQL of a side's name in the game's own names, from its colour in the
// engines' convention (black moves first) and the run it belongs to (both SQL
// expressions): chess, whose first mover is White, swaps the names; every other game keeps
// them. Migration 012 fills in the games stored before it the same way.
func sideSQL(run, colour string) string {
	return fmt.Sprintf(`CASE WHEN (SELECT game FROM runs WHERE runs.id = %[1]s) = 'chess' THEN CASE %[2]s WHEN 'black' THEN 'white' ELSE 'black' END ELSE %[2]s END`, run, colour)
}

// sideCols is the columns side and moved_first of table games (as t names it in the
// query), or, in a file older than version 12 (read as it is), the same values computed
// from its colour and run.
func (d *DB) sideCols(ctx context.Context, t string) string {
	if v, err := d.version(ctx); err == nil && v < 12 {
		return sideSQL(t+".run_id", t+".colour") + ", " + t + ".colour = 'black'"
	}
	return fmt.Sprintf("COALESCE(%[1]s.side, %[1]s.colour), COALESCE(%[1]s.moved_first, %[1]s.colour = 'black')", t)
}

func (d *DB) forfeitCols(ctx context.Context) string {
	if v, err := d.version(ctx); err == nil && v < 9 {
		return "'', ''"
	}
	return "COALESCE(forfeit_by, ''), COALESCE(forfeit_values, '')"
}
