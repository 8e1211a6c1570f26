package db

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Match statuses (matches.status).
const (
	MatchRunning  = "running"
	MatchStopped  = "stopped"
	MatchFinished = "finished"
	MatchFailed   = "failed"
)

// MatchGameRow is one stored game of a match: its pair (from 0) and game (1: A moved
// first), A's colour (the engines' convention: black moves first) and side, A's score, the result, plies and forfeit, and the record (JSON,
// engine.GameRecord).
type MatchGameRow struct {
	Pair    int    `json:"pair"`
	Game    int    `json:"game"`
	AColour string `json:"a_colour"`
	// ASide is A's side in the game's own names (chess: white moves first; "" when saving:
	// AColour).
	ASide   string   `json:"a_side"`
	AScore  float64  `json:"a_score"`
	Result  string   `json:"result"`
	Plies   int      `json:"plies"`
	Forfeit OptText  `json:"forfeit"`
	Record  JSONText `json:"record"`
}

// CreateMatch stores a new running match of key (what was asked, JSON) and returns its ID.
func (d *DB) CreateMatch(ctx context.Context, key, game, a, b string, games int) (int64, error) {
	t := now()
	res, err := d.sql.ExecContext(ctx, `INSERT INTO matches (key, game, a, b, games_requested, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'running', ?, ?)`,
		key, game, a, b, games, t, t)
	if err != nil {
		return 0, explain(err)
	}
	id, err := res.LastInsertId()
	return id, explain(err)
}

// UnfinishedMatch returns the newest match of key that did not finish (stopped, failed,
// or still marked running by a process that died) and its status, and found false when
// there is none.
func (d *DB) UnfinishedMatch(ctx context.Context, key string) (id int64, status string, found bool, err error) {
	err = d.sql.QueryRowContext(ctx, `SELECT id, status FROM matches WHERE key = ? AND status != 'finished' ORDER BY id DESC LIMIT 1`, key).Scan(&id, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", false, nil
	}
	return id, status, err == nil, explain(err)
}

// LatestMatch returns the newest match of key whatever its status (a tournament resumed
// takes each pairing's finished games as they are and continues its unfinished one), and
// found false when there is none.
func (d *DB) LatestMatch(ctx context.Context, key string) (id int64, status string, found bool, err error) {
	err = d.sql.QueryRowContext(ctx, `SELECT id, status FROM matches WHERE key = ? ORDER BY id DESC LIMIT 1`, key).Scan(&id, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", false, nil
	}
	return id, status, err == nil, explain(err)
}

// SaveMatchGame stores one finished game of match id (a game stored again replaces it).
func (d *DB) SaveMatchGame(ctx context.Context, id int64, g MatchGameRow) error {
	t := now()
	if _, err := d.sql.ExecContext(ctx, `INSERT OR REPLACE INTO match_games (match_id, pair, game, a_colour, a_score, result, plies, forfeit, record, created_at,
		a_side, a_moved_first) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, g.Pair, g.Game, g.AColour, g.AScore, g.Result, g.Plies, nullStr(string(g.Forfeit)), string(g.Record), t,
		cmp.Or(g.ASide, g.AColour), g.AColour == "black"); err != nil {
		return explain(err)
	}
	_, err := d.sql.ExecContext(ctx, `UPDATE matches SET updated_at = ? WHERE id = ?`, t, id)
	return explain(err)
}

// MatchGames returns match id's stored games in pair and game order.
func (d *DB) MatchGames(ctx context.Context, id int64) ([]MatchGameRow, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT pair, game, a_colour, COALESCE(a_side, a_colour), a_score, result, plies, COALESCE(forfeit, ''), record FROM match_games WHERE match_id = ? ORDER BY pair, game`, id)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	var out []MatchGameRow
	for rows.Next() {
		var g MatchGameRow
		var rec string
		if err := rows.Scan(&g.Pair, &g.Game, &g.AColour, &g.ASide, &g.AScore, &g.Result, &g.Plies, &g.Forfeit, &rec); err != nil {
			return nil, explain(err)
		}
		g.Record = JSONText(rec)
		out = append(out, g)
	}
	return out, explain(rows.Err())
}

// SetMatchStatus records match id's status and, when result is not empty, its result
// (JSON).
func (d *DB) SetMatchStatus(ctx context.Context, id int64, status, result string) error {
	_, err := d.sql.ExecContext(ctx, `UPDATE matches SET status = ?, result = COALESCE(?, result), updated_at = ? WHERE id = ?`, status, nullStr(result), now(), id)
	return explain(err)
}

// MatchRow is one stored match as the dashboard lists it: its row of matches (Key, the
// JSON of what was asked; Result, the summary stored at its end or stop, null before),
// and, for a pairing of a tournament, the tournament's key (Key without the pairing and
// its openings' digest: the same for every pairing of one tournament; "" for a match) and
// the pairing's entrants (indices into the key's Tournament).
type MatchRow struct {
	ID             int64    `json:"id"`
	Key            string   `json:"-"`
	Game           string   `json:"game"`
	A              string   `json:"a"`
	B              string   `json:"b"`
	GamesRequested int      `json:"games_requested"`
	Status         string   `json:"status"`
	CreatedAt      string   `json:"created_at"`
	UpdatedAt      string   `json:"updated_at"`
	Result         JSONText `json:"result"`
	Tournament     string   `json:"-"`
	Pairing        [2]int   `json:"-"`
}

const matchColumns = `id, key, game, a, b, games_requested, status, created_at, updated_at, COALESCE(result, 'null'),
	CASE WHEN json_extract(key, '$.Tournament') IS NOT NULL THEN json_remove(key, '$.Pairing', '$.Digest') ELSE '' END,
	COALESCE(json_extract(key, '$.Pairing[0]'), 0), COALESCE(json_extract(key, '$.Pairing[1]'), 0)`

func scanMatch(s interface{ Scan(...any) error }) (MatchRow, error) {
	var m MatchRow
	var result string
	err := s.Scan(&m.ID, &m.Key, &m.Game, &m.A, &m.B, &m.GamesRequested, &m.Status, &m.CreatedAt, &m.UpdatedAt, &result, &m.Tournament, &m.Pairing[0], &m.Pairing[1])
	m.Result = JSONText(result)
	return m, err
}

// Matches lists every stored match, tournaments' pairings included, newest first (none in
// a file older than version 10, which stored no match).
func (d *DB) Matches(ctx context.Context) ([]MatchRow, error) {
	if v, err := d.version(ctx); err != nil || v < 10 {
		return []MatchRow{}, explain(err)
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT `+matchColumns+` FROM matches ORDER BY id DESC`)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	out := []MatchRow{}
	for rows.Next() {
		m, err := scanMatch(rows)
		if err != nil {
			return nil, explain(err)
		}
		out = append(out, m)
	}
	return out, explain(rows.Err())
}

// Match returns stored match id; an unknown ID wraps ErrNotFound.
func (d *DB) Match(ctx context.Context, id int64) (MatchRow, error) {
	if v, err := d.version(ctx); err != nil || v < 10 {
		return MatchRow{}, fmt.Errorf("match %d: %w", id, ErrNotFound)
	}
	m, err := scanMatch(d.sql.QueryRowContext(ctx, `SELECT `+matchColumns+` FROM matches WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return m, fmt.Errorf("match %d: %w", id, ErrNotFound)
	}
	return m, explain(err)
}

// MatchScore is one stored game's place in its match and A's score, without its record.
type MatchScore struct {
	Match  int64
	Pair   int
	Game   int
	AScore float64
}

// MatchScores returns every stored match game's score by match, in pair and game order
// (none in a file older than version 10).
func (d *DB) MatchScores(ctx context.Context) (map[int64][]MatchScore, error) {
	out := map[int64][]MatchScore{}
	if v, err := d.version(ctx); err != nil || v < 10 {
		return out, explain(err)
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT match_id, pair, game, a_score FROM match_games ORDER BY match_id, pair, game`)
	if err != nil {
		return nil, explain(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s MatchScore
		if err := rows.Scan(&s.Match, &s.Pair, &s.Game, &s.AScore); err != nil {
			return nil, explain(err)
		}
		out[s.Match] = append(out[s.Match], s)
	}
	return out, explain(rows.Err())
}
