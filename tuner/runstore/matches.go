package runstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"evotune/db"
	"evotune/engine"
	"evotune/tuner/match"
)

// Matches is match.Store over the database's matches and match_games tables: the stored
// matches of match, tournament and verify.
type Matches struct{ d *db.DB }

// ErrNoDatabase is OpenMatches' refusal of a resume whose database file does not exist.
var ErrNoDatabase = errors.New("no such database file: nothing to resume")

// OpenMatches opens the database at path (db.Open) and its match store. With resume, a
// path with no file is refused (an error wrapping ErrNoDatabase, naming path) and
// nothing is created: a refused resume leaves no file behind.
func OpenMatches(ctx context.Context, path string, resume bool) (*db.DB, Matches, error) {
	if resume {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, Matches{}, fmt.Errorf("%s: %w", path, ErrNoDatabase)
		}
	}
	d, err := db.Open(ctx, path)
	if err != nil {
		return nil, Matches{}, err
	}
	return d, Matches{d: d}, nil
}

// NewMatches returns the match store of d.
func NewMatches(d *db.DB) Matches { return Matches{d: d} }

// Latest is match.Store's: the newest match of key (unfinished: the newest not finished).
func (m Matches) Latest(ctx context.Context, key string, unfinished bool) (int64, match.Status, bool, error) {
	var id int64
	var status string
	var found bool
	var err error
	if unfinished {
		id, status, found, err = m.d.UnfinishedMatch(ctx, key)
	} else {
		id, status, found, err = m.d.LatestMatch(ctx, key)
	}
	return id, match.Status(status), found, err
}

// Create is match.Store's: a new running match.
func (m Matches) Create(ctx context.Context, key, game, a, b string, games int) (int64, error) {
	return m.d.CreateMatch(ctx, key, game, a, b, games)
}

// SetStatus is match.Store's.
func (m Matches) SetStatus(ctx context.Context, id int64, status match.Status, summary []byte) error {
	return m.d.SetMatchStatus(ctx, id, string(status), string(summary))
}

// SaveGame is match.Store's: the game as a match_games row, its record as JSON.
func (m Matches) SaveGame(ctx context.Context, id int64, g match.Game) error {
	rec, err := json.Marshal(g.Record)
	if err != nil {
		return err
	}
	return m.d.SaveMatchGame(ctx, id, db.MatchGameRow{Pair: g.Pair, Game: g.Game, AColour: g.AColour, ASide: g.ASide, AScore: g.AScore, Result: g.Record.Outcome.String(),
		Plies: g.Record.Plies, Forfeit: db.OptText(g.Record.Forfeit), Record: db.JSONText(rec)})
}

// Games is match.Store's: match id's games read back (Opening is not stored: 0).
func (m Matches) Games(ctx context.Context, id int64) ([]match.Game, error) {
	rows, err := m.d.MatchGames(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]match.Game, 0, len(rows))
	for _, r := range rows {
		var rec engine.GameRecord
		if err := json.Unmarshal([]byte(r.Record), &rec); err != nil {
			return nil, fmt.Errorf("match %d pair %d game %d: %w", id, r.Pair, r.Game, err)
		}
		out = append(out, match.Game{Pair: r.Pair, Game: r.Game, AColour: r.AColour, ASide: r.ASide, AScore: r.AScore, Record: rec})
	}
	return out, nil
}
