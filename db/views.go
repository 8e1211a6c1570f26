package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The typed reads behind the dashboard and shell completion (views of runs, generations,
// individuals and games): what they show comes out of this package as values, so no
// statement is written outside it.

// LastChampions maps each run to the champion recorded with its last saved generation;
// runs whose last generation records none are absent.
func (d *DB) LastChampions(ctx context.Context) (map[int64]string, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT g.run_id, g.champion FROM generations g
		WHERE g.champion IS NOT NULL AND g.generation = (SELECT MAX(generation) FROM generations WHERE run_id = g.run_id)`)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var c string
		if err := rows.Scan(&id, &c); err != nil {
			return nil, explain(err)
		}
		if c != "" {
			out[id] = c
		}
	}
	return out, explain(rows.Err())
}

// RankScore is the score (and its pentanomial standard error) of the individual of one rank
// in one generation; nil: not measured.
type RankScore struct {
	Generation, Rank int
	ID               string
	Score, SE        *float64
}

// GeneRow is one individual of one generation with its genes (JSON object text, gene name
// → value), its rank, score and games.
type GeneRow struct {
	Generation, Rank, Games int
	Score                   float64
	Genes                   string
}

// GeneRows returns every individual row of a run with its genes, by generation and rank;
// playedOnly leaves out rows without games (SPSA's θ, which plays none).
func (d *DB) GeneRows(ctx context.Context, runID int64, playedOnly bool) ([]GeneRow, error) {
	if playedOnly {
		return d.geneRows(ctx, " AND i.games > 0", runID)
	}
	return d.GeneRowsIn(ctx, runID, nil, Window{0, -1})
}

// PlayedRowCount returns how many individual rows of run runID played games and the last
// generation that has individual rows (−1: none), for sampling long runs.
func (d *DB) PlayedRowCount(ctx context.Context, runID int64) (rows, lastGeneration int, err error) {
	err = d.sql.QueryRowContext(ctx, `SELECT count(*), COALESCE(max(generation), -1) FROM individuals WHERE run_id = ? AND games > 0`, runID).
		Scan(&rows, &lastGeneration)
	return rows, lastGeneration, explain(err)
}

// PlayedGeneRowsEvery is GeneRows of the rows that played games, in every stride-th
// generation counted back from generation last (so last is always in; stride 1: every
// generation).
func (d *DB) PlayedGeneRowsEvery(ctx context.Context, runID int64, last, stride int) ([]GeneRow, error) {
	if stride < 1 {
		return nil, fmt.Errorf("gene rows of run %d: stride %d, want at least 1", runID, stride)
	}
	return d.geneRows(ctx, " AND i.games > 0 AND (? - i.generation) % ? = 0", runID, last, stride)
}

// GameSummary is a stored game without its moves: the individual credited with it, its
// opponent and colour, the result ("1-0", "0-1", "1/2-1/2"), plies, racing round (−1
// admission, −2 defence), the depth it was played at (nil: the run's) and why a player
// forfeited (nil: played to the end).
type GameSummary struct {
	ID         int64   `json:"id"`
	Generation int     `json:"generation"`
	Individual string  `json:"individual"`
	Opponent   string  `json:"opponent"`
	Colour     string  `json:"colour"`      // the individual's, the engines' convention: black moves first
	Side       string  `json:"side"`        // the individual's, the game's own name (chess: white moves first)
	MovedFirst bool    `json:"moved_first"` // whether the individual moved first
	Result     string  `json:"result"`
	Plies      int     `json:"plies"`
	Round      int     `json:"round"`
	Depth      *int    `json:"depth"`
	Forfeit    *string `json:"forfeit"`
}

const summaryColumns = "id, generation, individual, opponent, colour, result, plies, round, depth, forfeit"

// summaryCols is summaryColumns with the side columns of the file's version (sideCols).
func (d *DB) summaryCols(ctx context.Context) string {
	return summaryColumns + ", " + d.sideCols(ctx, "games")
}

func scanSummary(s interface{ Scan(...any) error }) (GameSummary, error) {
	var g GameSummary
	var depth sql.NullInt64
	var forfeit sql.NullString
	if err := s.Scan(&g.ID, &g.Generation, &g.Individual, &g.Opponent, &g.Colour, &g.Result, &g.Plies, &g.Round, &depth, &forfeit, &g.Side, &g.MovedFirst); err != nil {
		return g, err
	}
	if depth.Valid {
		x := int(depth.Int64)
		g.Depth = &x
	}
	if forfeit.Valid {
		g.Forfeit = &forfeit.String
	}
	return g, nil
}

func (d *DB) summaries(ctx context.Context, q string, args ...any) ([]GameSummary, error) {
	rows, err := d.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	out := []GameSummary{}
	for rows.Next() {
		g, err := scanSummary(rows)
		if err != nil {
			return nil, explain(err)
		}
		out = append(out, g)
	}
	return out, explain(rows.Err())
}

// GameSummaries lists a run's games in the order they were stored: one generation's (all
// generations when gen < 0), at most limit (0: no limit).
func (d *DB) GameSummaries(ctx context.Context, runID int64, gen, limit int) ([]GameSummary, error) {
	q := "SELECT " + d.summaryCols(ctx) + " FROM games WHERE run_id = ?"
	args := []any{runID}
	if gen >= 0 {
		q += " AND generation = ?"
		args = append(args, gen)
	}
	q += " ORDER BY id"
	if limit > 0 {
		q += " LIMIT ?"
		args = append(args, limit)
	}
	return d.summaries(ctx, q, args...)
}

// GamesOf lists the games individual ind played in a run, as the individual credited or as
// the opponent, in the order they were stored, at most limit.
func (d *DB) GamesOf(ctx context.Context, runID int64, ind string, limit int) ([]GameSummary, error) {
	return d.summaries(ctx, "SELECT "+d.summaryCols(ctx)+" FROM games WHERE run_id = ? AND (individual = ? OR opponent = ?) ORDER BY id LIMIT ?",
		runID, ind, ind, limit)
}

// GameMoves is a stored game with its moves (JSON array text) and the number of plies its
// opening laid (0 when it had none or its generation's openings are not stored).
type GameMoves struct {
	GameSummary
	Moves        string
	OpeningPlies int
}

// Game returns game gameID of a run with its moves; an unknown game wraps ErrNotFound.
func (d *DB) Game(ctx context.Context, runID, gameID int64) (GameMoves, error) {
	var g GameMoves
	var opening int
	var openings string
	row := d.sql.QueryRowContext(ctx, `SELECT g.id, g.generation, g.individual, g.opponent, g.colour, g.result, g.plies, g.round, g.depth, g.forfeit,
		g.moves, g.opening, COALESCE(n.openings, '[]'), `+d.sideCols(ctx, "g")+` FROM games g
		LEFT JOIN generations n ON n.run_id = g.run_id AND n.generation = g.generation WHERE g.run_id = ? AND g.id = ?`, runID, gameID)
	var depth sql.NullInt64
	var forfeit sql.NullString
	s := &g.GameSummary
	err := row.Scan(&s.ID, &s.Generation, &s.Individual, &s.Opponent, &s.Colour, &s.Result, &s.Plies, &s.Round, &depth, &forfeit,
		&g.Moves, &opening, &openings, &s.Side, &s.MovedFirst)
	if errors.Is(err, sql.ErrNoRows) {
		return g, fmt.Errorf("game %d of run %d: %w", gameID, runID, ErrNotFound)
	}
	if err != nil {
		return g, explain(err)
	}
	if depth.Valid {
		x := int(depth.Int64)
		s.Depth = &x
	}
	if forfeit.Valid {
		s.Forfeit = &forfeit.String
	}
	if ops, err := JSONText(openings).Openings(); err == nil && opening >= 0 && opening < len(ops) {
		g.OpeningPlies = len(ops[opening])
	}
	return g, nil
}

// IndividualIDs returns the individuals (of any run) whose ID starts with prefix, with the
// operator that made each, at most limit, by run and birth.
func (d *DB) IndividualIDs(ctx context.Context, prefix string, limit int) ([][2]string, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT id, operator FROM genomes WHERE id LIKE ? || '%' ORDER BY run_id, born_generation, id LIMIT ?`, prefix, limit)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var id, op string
		if err := rows.Scan(&id, &op); err != nil {
			return nil, explain(err)
		}
		out = append(out, [2]string{id, op})
	}
	return out, explain(rows.Err())
}

// HallOfFameMember returns individual id's hall-of-fame row in a run, nil when it is not a
// member.
func (d *DB) HallOfFameMember(ctx context.Context, runID int64, id string) (*FamerRow, error) {
	hof, err := d.HallOfFame(ctx, runID)
	if err != nil {
		return nil, err
	}
	for i := range hof {
		if hof[i].ID == id {
			return &hof[i], nil
		}
	}
	return nil, nil
}

// FirstPlayed maps each individual of a run that played games to its row in the first
// generation it played: generation, rank and score (without its genes).
func (d *DB) FirstPlayed(ctx context.Context, runID int64) (map[string]RankScore, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT id, generation, rank, score, score_se FROM individuals
		WHERE run_id = ? AND games > 0 ORDER BY generation, rank`, runID)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	out := map[string]RankScore{}
	for rows.Next() {
		var id string
		var r RankScore
		var sc, se sql.NullFloat64
		if err := rows.Scan(&id, &r.Generation, &r.Rank, &sc, &se); err != nil {
			return nil, explain(err)
		}
		if sc.Valid {
			r.Score = &sc.Float64
		}
		if se.Valid {
			r.SE = &se.Float64
		}
		if _, seen := out[id]; !seen {
			out[id] = r
		}
	}
	return out, explain(rows.Err())
}

// RunProgress is how far a run has come: its distinct tuning games and its wall time at
// its last saved generation (ElapsedMS, 0 when no generation records one).
type RunProgress struct {
	Games     int
	ElapsedMS int64
	// LastFitnessMin is its last saved generation's best fitness (1 − the best score).
	LastFitnessMin float64
}

// RunsProgress maps each run with a saved generation to its RunProgress.
func (d *DB) RunsProgress(ctx context.Context) (map[int64]RunProgress, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT g.run_id, COALESCE(sum(g.games), 0), COALESCE(max(g.elapsed_ms), 0),
		(SELECT l.fitness_min FROM generations l WHERE l.run_id = g.run_id ORDER BY l.generation DESC LIMIT 1)
		FROM generations g GROUP BY g.run_id`)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	out := map[int64]RunProgress{}
	for rows.Next() {
		var id int64
		var p RunProgress
		if err := rows.Scan(&id, &p.Games, &p.ElapsedMS, &p.LastFitnessMin); err != nil {
			return nil, explain(err)
		}
		out[id] = p
	}
	return out, explain(rows.Err())
}
