package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The runs table: creating, owning, claiming and finishing a run, reading runs.

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
	return d.ClaimRunConfig(ctx, id, pid, force, alive, "")
}

// ClaimRunConfig is ClaimRun that also stores config (JSON) as the run's configuration in
// the same transaction (a resume that extended the run's budget); "" keeps it.
func (d *DB) ClaimRunConfig(ctx context.Context, id int64, pid int, force bool, alive func(pid int) bool, config string) (prev int, err error) {
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
	if config != "" {
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET config = ? WHERE id = ?`, config, id); err != nil {
			return prev, explain(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return prev, explain(err)
	}
	d.own(id, pid)
	return prev, nil
}

// Headline policies of AddVerification: which stored verification the run's headline
// (runs.verification) copies.
const (
	// HeadlineLargest: the verification of the most games (the latest of those tied).
	HeadlineLargest = "largest"
	// HeadlineLatest: the verification just stored.
	HeadlineLatest = "latest"
)

// Verification sources (verifications.source).
const (
	SourceTune   = "tune"   // the run's own, at its end
	SourceVerify = "verify" // evotune verify
)

// AddVerification stores a verification match result (JSON with a "games" number) as a new
// row of the run's verifications, never replacing one, and makes the run's headline
// (runs.verification) a copy of the one policy picks (HeadlineLargest or HeadlineLatest),
// with its row ID (verification_id) and why it heads (headline), in one transaction. It
// returns the new row's ID and the headline's.
func (d *DB) AddVerification(ctx context.Context, runID int64, result, source, policy string) (id, headline int64, err error) {
	return d.AddLadder(ctx, runID, result, source, policy, "")
}

// AddLadder is AddVerification for a verification ladder whose rungs were stored by
// SaveRung under ladder (the ladder's key): in the same transaction, those rungs become
// the new verification's (verification_id), so the same request made again plays anew.
// An empty ladder attaches nothing.
func (d *DB) AddLadder(ctx context.Context, runID int64, result, source, policy, ladder string) (id, headline int64, err error) {
	if policy != HeadlineLargest && policy != HeadlineLatest {
		return 0, 0, fmt.Errorf("headline %q: want %s or %s", policy, HeadlineLargest, HeadlineLatest)
	}
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, explain(err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if err := d.checkOwner(ctx, tx, runID); err != nil {
		return 0, 0, err
	}
	t := now()
	res, err := tx.ExecContext(ctx, `INSERT INTO verifications (run_id, source, created_at, result) VALUES (?, ?, ?, ?)`, runID, source, t, result)
	if err != nil {
		return 0, 0, explain(err)
	}
	if id, err = res.LastInsertId(); err != nil {
		return 0, 0, explain(err)
	}
	if ladder != "" {
		if _, err := tx.ExecContext(ctx, `UPDATE verification_rungs SET verification_id = ? WHERE run_id = ? AND ladder = ? AND verification_id IS NULL`, id, runID, ladder); err != nil {
			return 0, 0, explain(err)
		}
	}
	if headline, err = setHeadline(ctx, tx, runID, id, policy); err != nil {
		return 0, 0, err
	}
	return id, headline, tx.Commit()
}

// setHeadline makes run runID's headline (runs.verification) the verification policy
// picks once verification id is stored: id (HeadlineLatest) or the one of the most games
// (HeadlineLargest, the newest of those), with why it heads the run; it returns the
// headline's ID.
func setHeadline(ctx context.Context, tx *sql.Tx, runID, id int64, policy string) (int64, error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM verifications WHERE run_id = ?`, runID).Scan(&n); err != nil {
		return 0, explain(err)
	}
	headline, why := id, "the latest of "+plural(n, "verification")
	if policy == HeadlineLargest {
		var games int
		if err := tx.QueryRowContext(ctx, `SELECT id, COALESCE(json_extract(result, '$.games'), 0) FROM verifications WHERE run_id = ?
			ORDER BY COALESCE(json_extract(result, '$.games'), 0) DESC, id DESC LIMIT 1`, runID).Scan(&headline, &games); err != nil {
			return 0, explain(err)
		}
		why = fmt.Sprintf("the largest of %s (%d games)", plural(n, "verification"), games)
	}
	if n == 1 {
		why = "the only verification stored"
	}
	if _, err := tx.ExecContext(ctx, `UPDATE runs SET verification = (SELECT json_set(result, '$.verification_id', id, '$.headline', ?) FROM verifications WHERE id = ?),
		updated_at = ? WHERE id = ?`, why, headline, now(), runID); err != nil {
		return 0, explain(err)
	}
	return headline, nil
}

// ReuseLadder finds run runID's newest complete verification of ladder (the key of what
// was asked: AddLadder's) and makes the headline the one policy picks with it as the newest
// (HeadlineLatest: it), in one transaction; found false (nothing written) when no
// complete verification of ladder is stored. It returns the verification's ID and result
// (JSON) and the headline's ID: the same ladder asked again is not played again.
func (d *DB) ReuseLadder(ctx context.Context, runID int64, ladder, policy string) (id, headline int64, result string, found bool, err error) {
	if policy != HeadlineLargest && policy != HeadlineLatest {
		return 0, 0, "", false, fmt.Errorf("headline %q: want %s or %s", policy, HeadlineLargest, HeadlineLatest)
	}
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, "", false, explain(err)
	}
	defer func() {
		if err != nil || !found {
			tx.Rollback()
		}
	}()
	err = tx.QueryRowContext(ctx, `SELECT v.id, v.result FROM verifications v WHERE v.run_id = ? AND v.id = (SELECT max(verification_id)
		FROM verification_rungs WHERE run_id = ? AND ladder = ? AND verification_id IS NOT NULL)`, runID, runID, ladder).Scan(&id, &result)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, "", false, nil
	}
	if err != nil {
		return 0, 0, "", false, explain(err)
	}
	if err := d.checkOwner(ctx, tx, runID); err != nil {
		return 0, 0, "", false, err
	}
	found = true
	if headline, err = setHeadline(ctx, tx, runID, id, policy); err != nil {
		return 0, 0, "", false, err
	}
	return id, headline, result, true, explain(tx.Commit())
}

// SaveRung stores one rung of run runID's verification ladder (its key: ladder) as soon as
// it is played: rung is its index (0: the tuning condition), kind its kind, condition its
// condition in words and result its match as JSON. The rung stays pending (no
// verification) until AddLadder stores the whole ladder; a pending rung stored again
// replaces the first.
func (d *DB) SaveRung(ctx context.Context, runID int64, ladder string, rung int, kind, condition, result string) (err error) {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return explain(err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	if err := d.checkOwner(ctx, tx, runID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO verification_rungs (run_id, ladder, rung, kind, condition, created_at, result) VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id, ladder, rung) WHERE verification_id IS NULL DO UPDATE SET kind = excluded.kind, condition = excluded.condition,
		created_at = excluded.created_at, result = excluded.result`, runID, ladder, rung, kind, condition, now(), result); err != nil {
		return explain(err)
	}
	return explain(tx.Commit())
}

// PendingRungs returns the results (JSON) of run runID's rungs stored by SaveRung under
// ladder and not yet part of a verification, by rung index.
func (d *DB) PendingRungs(ctx context.Context, runID int64, ladder string) (map[int]string, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT rung, result FROM verification_rungs WHERE run_id = ? AND ladder = ? AND verification_id IS NULL`, runID, ladder)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	out := map[int]string{}
	for rows.Next() {
		var i int
		var r string
		if err := rows.Scan(&i, &r); err != nil {
			return nil, explain(err)
		}
		out[i] = r
	}
	return out, explain(rows.Err())
}

// VerificationRow is one stored verification of a run.
type VerificationRow struct {
	ID        int64    `json:"id"`
	RunID     int64    `json:"run_id"`
	Source    string   `json:"source"`
	CreatedAt string   `json:"created_at"`
	Result    JSONText `json:"result"`
	// Headline is true for the one the run's headline copies.
	Headline bool `json:"headline"`
}

// Verifications lists the run's stored verifications, oldest first (none in a database
// older than schema version 8, read as it is).
func (d *DB) Verifications(ctx context.Context, runID int64) ([]VerificationRow, error) {
	var has int
	if err := d.sql.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'verifications'`).Scan(&has); err != nil || has == 0 {
		return nil, explain(err)
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT v.id, v.run_id, v.source, v.created_at, v.result,
		COALESCE(v.id = json_extract(r.verification, '$.verification_id'), 0)
		FROM verifications v JOIN runs r ON r.id = v.run_id WHERE v.run_id = ? ORDER BY v.id`, runID)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []VerificationRow
	for rows.Next() {
		var v VerificationRow
		var res string
		if err := rows.Scan(&v.ID, &v.RunID, &v.Source, &v.CreatedAt, &res, &v.Headline); err != nil {
			return nil, explain(err)
		}
		v.Result = JSONText(res)
		out = append(out, v)
	}
	return out, explain(rows.Err())
}

// plural is "1 verification" or "3 verifications".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
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

// LadderLockedError is ClaimLadder's refusal: another live process is playing the same
// verification ladder of the run.
type LadderLockedError struct {
	Run int64
	PID int
}

func (e *LadderLockedError) Error() string {
	return fmt.Sprintf("run %d: this verification ladder is being played by process %d", e.Run, e.PID)
}

// ClaimLadder makes process pid the player of run runID's verification ladder (its key:
// ladder), atomically: it refuses with *LadderLockedError while another process that
// alive reports alive holds it, and takes over the claim of a process that died; so of
// two verifies of one ladder started at once exactly one plays, and the other stops
// before it stores a rung. ReleaseLadder ends the claim.
func (d *DB) ClaimLadder(ctx context.Context, runID int64, ladder string, pid int, alive func(pid int) bool) (err error) {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return explain(err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	var held int
	err = tx.QueryRowContext(ctx, `SELECT pid FROM ladder_claims WHERE run_id = ? AND ladder = ?`, runID, ladder).Scan(&held)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return explain(err)
	case held != pid && alive != nil && alive(held):
		return &LadderLockedError{Run: runID, PID: held}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO ladder_claims (run_id, ladder, pid, claimed_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (run_id, ladder) DO UPDATE SET pid = excluded.pid, claimed_at = excluded.claimed_at`, runID, ladder, pid, now()); err != nil {
		return explain(err)
	}
	return explain(tx.Commit())
}

// ReleaseLadder ends process pid's claim on run runID's ladder (nothing if another
// process holds it).
func (d *DB) ReleaseLadder(ctx context.Context, runID int64, ladder string, pid int) error {
	_, err := d.sql.ExecContext(ctx, `DELETE FROM ladder_claims WHERE run_id = ? AND ladder = ? AND pid = ?`, runID, ladder, pid)
	return explain(err)
}
