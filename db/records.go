package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// Run is one tuning run (table runs).
type Run struct {
	ID              int64    `json:"id"`
	Name            string   `json:"name"`
	Game            string   `json:"game"`
	Status          string   `json:"status"`
	Seed            int64    `json:"seed"`
	Config          JSONText `json:"config"`
	ProgramVersion  string   `json:"program_version"`
	PID             int      `json:"pid"`
	CreatedAt       string   `json:"created_at"`
	UpdatedAt       string   `json:"updated_at"`
	FinishedAt      OptText  `json:"finished_at"`
	GenerationsDone int      `json:"generations_done"`
	BestIndividual  OptText  `json:"best_individual"`
	BestFitness     *float64 `json:"best_fitness"`
	Error           OptText  `json:"error"`
	Verification    JSONText `json:"verification"`
}

// JSONText is a column that holds JSON (a run's config, a genome's genes, a generation's
// openings): in Go a string, in JSON output the value itself (not a string holding it);
// "" is null.
type JSONText string

// MarshalJSON writes the JSON the text holds (null when empty; a string if it is not JSON).
func (t JSONText) MarshalJSON() ([]byte, error) {
	if t == "" {
		return []byte("null"), nil
	}
	if !json.Valid([]byte(t)) {
		return json.Marshal(string(t))
	}
	return []byte(t), nil
}

// UnmarshalJSON keeps the raw JSON.
func (t *JSONText) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*t = ""
		return nil
	}
	*t = JSONText(data)
	return nil
}

// OptText is a text column that may be empty: null in JSON output when it is.
type OptText string

// MarshalJSON writes the text, or null when it is empty.
func (t OptText) MarshalJSON() ([]byte, error) {
	if t == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(t))
}

// UnmarshalJSON reads a string or null.
func (t *OptText) UnmarshalJSON(data []byte) error {
	var s *string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*t = ""
	if s != nil {
		*t = OptText(*s)
	}
	return nil
}

// Run statuses.
const (
	StatusRunning     = "running"
	StatusFinished    = "finished"
	StatusStopped     = "stopped"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)

// GenomeRow is one distinct individual (table genomes). Empty parents are NULL.
type GenomeRow struct {
	ID       string   `json:"id"`
	Born     int      `json:"born_generation"`
	Operator string   `json:"operator"`
	Parent1  string   `json:"parent1,omitempty"`
	Parent2  string   `json:"parent2,omitempty"`
	Genes    JSONText `json:"genes"`
}

// IndividualRow is an individual's results in one generation (table individuals): the
// games of that generation only.
type IndividualRow struct {
	Generation int     `json:"generation"`
	ID         string  `json:"id"`
	Rank       int     `json:"rank"`
	Round      int     `json:"round"` // last racing round played
	Fitness    float64 `json:"fitness"`
	Score      float64 `json:"score"`
	// ScoreSE, Elo and EloCI95 are the pentanomial standard error of Score and the Elo
	// against the generation's reference set with its 95% half-width (nil: unknown, e.g.
	// rows of schema version 2).
	ScoreSE *float64 `json:"score_se"`
	Elo     *float64 `json:"elo"`
	EloCI95 *float64 `json:"elo_ci95"`
	Games   int      `json:"games"`
	Wins    int      `json:"wins"`
	Draws   int      `json:"draws"`
	Losses  int      `json:"losses"`
	Penta   [5]int   `json:"penta"`
}

// AdmissionRow is one hall-of-fame test (table admissions).
type AdmissionRow struct {
	Generation int     `json:"generation"`
	Candidate  string  `json:"candidate"`
	Opponent   string  `json:"opponent"`
	Games      int     `json:"games"`
	Wins       int     `json:"wins"`
	Draws      int     `json:"draws"`
	Losses     int     `json:"losses"`
	Penta      [5]int  `json:"penta"`
	Score      float64 `json:"score"`
	ScoreSE    float64 `json:"score_se"`
	Elo        float64 `json:"elo"`
	EloSE      float64 `json:"elo_se"`
	OppScore   float64 `json:"opponent_score"`
	Diff       float64 `json:"diff"`
	DiffSE     float64 `json:"diff_se"`
	Admitted   bool    `json:"admitted"`
}

// FamerRow is a hall-of-fame member (table hall_of_fame).
type FamerRow struct {
	ID       string   `json:"id"`
	Admitted int      `json:"admitted"`
	Games    int      `json:"games"`
	Wins     int      `json:"wins"`
	Draws    int      `json:"draws"`
	Losses   int      `json:"losses"`
	Penta    [5]int   `json:"penta"`
	Elo      *float64 `json:"elo"`
	EloSE    *float64 `json:"elo_se"`
	EloLCB   *float64 `json:"elo_lcb"`
}

// CheckpointRow is one held-out check of the champion (table checkpoints).
type CheckpointRow struct {
	Generation int      `json:"generation"`
	ElapsedMS  int64    `json:"elapsed_ms"`
	Champion   string   `json:"champion"`
	Depth      int      `json:"depth"`
	Games      int      `json:"games"`
	Pairs      int      `json:"distinct_pairs"`
	Wins       int      `json:"wins"`
	Draws      int      `json:"draws"`
	Losses     int      `json:"losses"`
	Score      *float64 `json:"score"`
	Elo        *float64 `json:"elo"`
	EloCI95    *float64 `json:"elo_ci95"`
}

// GameRow is one played game (table games).
type GameRow struct {
	Generation int      `json:"generation"`
	Individual string   `json:"individual"`
	Opponent   string   `json:"opponent"`
	Opening    int      `json:"opening"`
	Colour     string   `json:"colour"`
	Result     string   `json:"result"`
	Score      float64  `json:"score"`
	Plies      int      `json:"plies"`
	Moves      JSONText `json:"moves"`
	Nodes      int64    `json:"nodes"`
	DurationMS int64    `json:"duration_ms"`
	Forfeit    OptText  `json:"forfeit"`
	Depth      int      `json:"depth"` // 0 = the run's depth
	Round      int      `json:"round"` // racing round; -1 = hall-of-fame admission test, -2 = the champion's defence games
}

// GenerationRow is one generation's summary (table generations).
type GenerationRow struct {
	Generation int      `json:"generation"`
	FitMin     float64  `json:"fitness_min"`
	FitMean    float64  `json:"fitness_mean"`
	FitMax     float64  `json:"fitness_max"`
	FitStd     float64  `json:"fitness_std"`
	Diversity  float64  `json:"diversity"`
	Games      int      `json:"games"`
	DurationMS int64    `json:"duration_ms"`
	GamesMS    int64    `json:"games_ms"`
	Best       string   `json:"best_individual"`
	ElapsedMS  int64    `json:"elapsed_ms"` // the run's wall time at the generation's end
	Champion   string   `json:"champion"`   // the champion after the generation
	Opponents  JSONText `json:"opponents"`
	Openings   JSONText `json:"openings"`
	RNGState   string   `json:"-"` // reserved; not part of the JSON interface
	CreatedAt  string   `json:"created_at"`
}

// GenerationData is everything one generation writes, in one transaction.
type GenerationData struct {
	RunID       int64
	Generation  GenerationRow
	NewGenomes  []GenomeRow
	Individuals []IndividualRow
	Games       []GameRow
	Admission   *AdmissionRow  // nil: no hall-of-fame test this generation
	HallOfFame  []FamerRow     // the hall of fame after the generation (replaces the stored one)
	Checkpoint  *CheckpointRow // nil: no checkpoint this generation
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// CreateRun inserts a run with status running, owned by r.PID, and returns its ID.
func (d *DB) CreateRun(ctx context.Context, r Run) (int64, error) {
	t := now()
	res, err := d.sql.ExecContext(ctx, `INSERT INTO runs (name, game, status, seed, config, program_version, pid, created_at, updated_at)
		VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?)`, r.Name, r.Game, r.Seed, r.Config, r.ProgramVersion, r.PID, t, t)
	if err != nil {
		return 0, fmt.Errorf("create run: %w", explain(err))
	}
	id, err := res.LastInsertId()
	if err == nil {
		d.own(id, r.PID)
	}
	return id, err
}

func (d *DB) own(id int64, pid int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.owner == nil {
		d.owner = map[int64]int{}
	}
	d.owner[id] = pid
}

// ownerOf returns the PID this connection holds run id under (ok false if it never
// created or claimed it).
func (d *DB) ownerOf(id int64) (int, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pid, ok := d.owner[id]
	return pid, ok
}

// ErrTakenOver is returned (wrapped) by writes to a run that another process has claimed
// since this connection created or claimed it ('resume --force'): the old writer stops
// instead of mixing its generations with the new one's.
var ErrTakenOver = errors.New("the run was taken over by another process")

// checkOwner fails with ErrTakenOver when the run's recorded PID is no longer the one this
// connection holds it under. Runs this connection never claimed are not checked.
func (d *DB) checkOwner(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id int64) error {
	pid, ok := d.ownerOf(id)
	if !ok {
		return nil
	}
	var cur sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT pid FROM runs WHERE id = ?`, id).Scan(&cur); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("run %d: %w", id, ErrNotFound)
		}
		return err
	}
	if cur.Valid && int(cur.Int64) != pid {
		return fmt.Errorf("run %d: %w (process %d); this process (%d) stops writing", id, ErrTakenOver, cur.Int64, pid)
	}
	return nil
}

// SetRunStatus sets a run's status (and error text, if any); finished, stopped and failed
// runs get finished_at. A connection whose run was taken over changes nothing
// (ErrTakenOver).
func (d *DB) SetRunStatus(ctx context.Context, id int64, status, errText string) (err error) {
	t := now()
	var fin any
	if status != StatusRunning {
		fin = t
	}
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("run %d: set status: %w", id, explain(err))
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if err := d.checkOwner(ctx, tx, id); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `UPDATE runs SET status = ?, error = ?, updated_at = ?, finished_at = ? WHERE id = ?`,
		status, nullStr(errText), t, fin, id)
	if err != nil {
		return fmt.Errorf("run %d: set status: %w", id, explain(err))
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("run %d: %w", id, ErrNotFound)
	}
	return tx.Commit()
}

// CountGames returns the number of game records of a run.
func (d *DB) CountGames(ctx context.Context, runID int64) (int, error) {
	var n int
	err := d.sql.QueryRowContext(ctx, `SELECT count(*) FROM games WHERE run_id = ?`, runID).Scan(&n)
	return n, explain(err)
}

// RunNamed returns the ID of the run called name (0 if there is none); names are unique.
func (d *DB) RunNamed(ctx context.Context, name string) (int64, error) {
	var id int64
	err := d.sql.QueryRowContext(ctx, `SELECT id FROM runs WHERE name = ?`, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return id, explain(err)
}

// RunLockedError is ClaimRun's refusal: the run is marked running by a live process.
type RunLockedError struct {
	Run int64
	PID int
}

func (e *RunLockedError) Error() string {
	return fmt.Sprintf("run %d is running in process %d", e.Run, e.PID)
}

// ClaimRun makes process pid the run's writer (for resume), atomically: in one immediate
// transaction it reads the run's status and PID and refuses with *RunLockedError when the
// run is marked running by another process that alive reports alive, unless force; so of
// two resumes started at once exactly one claims the run, and the other fails before it
// writes anything. It returns the PID it took the run from (0 if none was recorded).
func (d *DB) ClaimRun(ctx context.Context, id int64, pid int, force bool, alive func(pid int) bool) (prev int, err error) {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("run %d: claim: %w", id, explain(err))
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	var status string
	var old sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT status, pid FROM runs WHERE id = ?`, id).Scan(&status, &old); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("run %d: %w", id, ErrNotFound)
		}
		return 0, explain(err)
	}
	prev = int(old.Int64)
	if status == StatusRunning && prev > 0 && prev != pid && alive != nil && alive(prev) && !force {
		return prev, &RunLockedError{Run: id, PID: prev}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE runs SET status = 'running', pid = ?, error = NULL, finished_at = NULL, updated_at = ? WHERE id = ?`, pid, now(), id); err != nil {
		return prev, explain(err)
	}
	if err := tx.Commit(); err != nil {
		return prev, explain(err)
	}
	d.own(id, pid)
	return prev, nil
}

// SetVerification stores the verification match result (JSON) with the run.
func (d *DB) SetVerification(ctx context.Context, id int64, verification string) (err error) {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return explain(err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if err := d.checkOwner(ctx, tx, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE runs SET verification = ?, updated_at = ? WHERE id = ?`, verification, now(), id); err != nil {
		return explain(err)
	}
	return tx.Commit()
}

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
	if _, err = tx.ExecContext(ctx, `INSERT INTO generations (run_id, generation, fitness_min, fitness_mean, fitness_max, fitness_std, diversity, games, duration_ms, games_ms, best_individual, opponents, openings, rng_state, created_at, elapsed_ms, champion)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		g.RunID, r.Generation, r.FitMin, r.FitMean, r.FitMax, r.FitStd, r.Diversity, r.Games, r.DurationMS, r.GamesMS, r.Best, r.Opponents, r.Openings, r.RNGState, now(),
		r.ElapsedMS, nullStr(r.Champion)); err != nil {
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
	gi, err := tx.PrepareContext(ctx, `INSERT INTO games (run_id, generation, individual, opponent, opening, colour, result, score, plies, moves, nodes, duration_ms, forfeit, depth, round)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer gi.Close()
	for _, gm := range g.Games {
		var depth any
		if gm.Depth > 0 {
			depth = gm.Depth
		}
		if _, err = gi.ExecContext(ctx, g.RunID, r.Generation, gm.Individual, gm.Opponent, gm.Opening, gm.Colour, gm.Result, gm.Score, gm.Plies, gm.Moves, gm.Nodes, gm.DurationMS, nullStr(string(gm.Forfeit)),
			depth, gm.Round); err != nil {
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

const runCols = `id, name, game, status, seed, config, program_version, COALESCE(pid, 0), created_at, updated_at, COALESCE(finished_at, ''),
	generations_done, COALESCE(best_individual, ''), best_fitness, COALESCE(error, ''), COALESCE(verification, '')`

func scanRun(s interface{ Scan(...any) error }) (Run, error) {
	var r Run
	err := s.Scan(&r.ID, &r.Name, &r.Game, &r.Status, &r.Seed, &r.Config, &r.ProgramVersion, &r.PID, &r.CreatedAt, &r.UpdatedAt,
		&r.FinishedAt, &r.GenerationsDone, &r.BestIndividual, &r.BestFitness, &r.Error, &r.Verification)
	return r, err
}

// Run returns one run; the error wraps ErrNotFound for a missing ID.
func (d *DB) Run(ctx context.Context, id int64) (Run, error) {
	r, err := scanRun(d.sql.QueryRowContext(ctx, `SELECT `+runCols+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("run %d: %w", id, ErrNotFound)
	}
	return r, explain(err)
}

// Runs returns every run, newest first.
func (d *DB) Runs(ctx context.Context) ([]Run, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT `+runCols+` FROM runs ORDER BY id DESC`)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Generations returns a run's generations in order.
func (d *DB) Generations(ctx context.Context, runID int64) ([]GenerationRow, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT generation, fitness_min, fitness_mean, fitness_max, fitness_std, diversity, games, duration_ms, games_ms,
		best_individual, opponents, openings, rng_state, created_at, COALESCE(elapsed_ms, 0), COALESCE(champion, '') FROM generations WHERE run_id = ? ORDER BY generation`, runID)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []GenerationRow
	for rows.Next() {
		var g GenerationRow
		if err := rows.Scan(&g.Generation, &g.FitMin, &g.FitMean, &g.FitMax, &g.FitStd, &g.Diversity, &g.Games, &g.DurationMS, &g.GamesMS,
			&g.Best, &g.Opponents, &g.Openings, &g.RNGState, &g.CreatedAt, &g.ElapsedMS, &g.Champion); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// Individuals returns a generation's individuals, best first.
func (d *DB) Individuals(ctx context.Context, runID int64, gen int) ([]IndividualRow, error) {
	return d.individuals(ctx, `WHERE run_id = ? AND generation = ? ORDER BY rank`, runID, gen)
}

// AtRank returns the individual of each generation of the run at one rank, in generation
// order (an SPSA run's θ+ is rank 2 of every generation: its step results).
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
		COALESCE(depth, 0), round FROM games WHERE run_id = ? AND generation = ? ORDER BY id`, runID, gen)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []GameRow
	for rows.Next() {
		var g GameRow
		if err := rows.Scan(&g.Generation, &g.Individual, &g.Opponent, &g.Opening, &g.Colour, &g.Result, &g.Score, &g.Plies, &g.Moves, &g.Nodes, &g.DurationMS, &g.Forfeit,
			&g.Depth, &g.Round); err != nil {
			return nil, err
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
