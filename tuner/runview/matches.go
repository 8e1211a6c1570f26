package runview

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"evotune/db"
	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/match"
	"evotune/tuner/stats"
)

// MatchItem is one stored match (evotune match, or one pairing of evotune tournament) as
// the dashboard lists it: its row, A's and B's names (a tournament's entrant names; else
// the players), the games stored so far (Games) and A's record over them (Played: wins,
// draws and losses of every stored game, the pentanomial of the colour-swapped pairs whose
// two games are stored), A's score (null: no game) and Elo ± 95% from the pairs (null:
// none, or unbounded), and its tournament's ID (null for a match). A running match's
// numbers are its live score.
type MatchItem struct {
	db.MatchRow
	AName      string          `json:"a_name"`
	BName      string          `json:"b_name"`
	Games      int             `json:"games"`
	Played     stats.Result    `json:"played"`
	Score      *float64        `json:"score"`
	Estimate   *stats.Estimate `json:"estimate"`
	Tournament *int64          `json:"tournament"`
	// Pairing is a tournament pairing's entrants (indices into the tournament's
	// entrants), null for a match.
	Pairing *[2]int `json:"pairing"`
}

// played is A's record over stored games (in pair and game order).
func played(scores []db.MatchScore) stats.Result {
	var r stats.Result
	pair := map[int][]float64{}
	for _, s := range scores {
		switch s.AScore {
		case 1:
			r.Wins++
		case 0.5:
			r.Draws++
		default:
			r.Losses++
		}
		pair[s.Pair] = append(pair[s.Pair], s.AScore)
	}
	for _, p := range pair {
		if len(p) == 2 {
			r.Penta[int(math.Round(2*(p[0]+p[1])))]++
		}
	}
	return r
}

// tournamentKey is what a pairing's stored key says of its tournament.
type tournamentKey struct {
	Tournament []match.Entrant
	Gauntlet   bool
	Rounds     int
}

// matchItems lists every stored match with its score, and each tournament's key by the
// tournament's ID (the smallest match ID of its newest pairings).
func matchItems(ctx context.Context, d *db.DB) ([]MatchItem, map[int64]string, error) {
	rows, err := d.Matches(ctx)
	if err != nil {
		return nil, nil, err
	}
	scores, err := d.MatchScores(ctx)
	if err != nil {
		return nil, nil, err
	}
	// A tournament played again from the start stores new rows of the same keys: its
	// pairings are each key's newest row, and the older rows stay matches of their own.
	newest := map[string]int64{}
	for _, r := range rows { // newest first
		if _, ok := newest[r.Key]; !ok && r.Tournament != "" {
			newest[r.Key] = r.ID
		}
	}
	ids := map[string]int64{}
	for _, r := range rows {
		if r.Tournament != "" && newest[r.Key] == r.ID {
			if id, ok := ids[r.Tournament]; !ok || r.ID < id {
				ids[r.Tournament] = r.ID
			}
		}
	}
	keys := map[int64]string{}
	for k, id := range ids {
		keys[id] = k
	}
	out := make([]MatchItem, 0, len(rows))
	for _, r := range rows {
		it := MatchItem{MatchRow: r, AName: r.A, BName: r.B, Played: played(scores[r.ID])}
		it.Games = it.Played.Games()
		if it.Games > 0 {
			s := it.Played.Score()
			it.Score = &s
		}
		if e, err := it.Played.Estimate(); err == nil && stats.Finite(e.Elo) != nil && stats.Finite(e.CI95) != nil {
			it.Estimate = &e
		}
		if r.Tournament != "" && newest[r.Key] == r.ID {
			id, pairing := ids[r.Tournament], r.Pairing
			it.Tournament, it.Pairing = &id, &pairing
			var k tournamentKey
			if json.Unmarshal([]byte(r.Tournament), &k) == nil && r.Pairing[0] < len(k.Tournament) && r.Pairing[1] < len(k.Tournament) {
				it.AName, it.BName = k.Tournament[r.Pairing[0]].Name, k.Tournament[r.Pairing[1]].Name
			}
		}
		out = append(out, it)
	}
	return out, keys, nil
}

// Matches lists every stored match and tournament pairing, newest first.
func Matches(ctx context.Context, d *db.DB) ([]MatchItem, error) {
	out, _, err := matchItems(ctx, d)
	return out, err
}

// MatchGameItem is one stored game of a match: its pair and game (1: A moved first), A's
// side in the game's own names (chess: white first) and score, the result (the first
// mover's view), plies and forfeit (null: played to its end).
type MatchGameItem struct {
	Pair    int     `json:"pair"`
	Game    int     `json:"game"`
	ASide   string  `json:"a_side"`
	AScore  float64 `json:"a_score"`
	Result  string  `json:"result"`
	Plies   int     `json:"plies"`
	Forfeit *string `json:"forfeit"`
}

// MatchView is one stored match with its games in pair and game order.
type MatchView struct {
	Match MatchItem       `json:"match"`
	Games []MatchGameItem `json:"games"`
}

// Match is stored match id with its games; an unknown ID wraps ErrNotFound.
func Match(ctx context.Context, d *db.DB, id int64) (MatchView, error) {
	items, _, err := matchItems(ctx, d)
	if err != nil {
		return MatchView{}, err
	}
	v := MatchView{Games: []MatchGameItem{}}
	found := false
	for _, it := range items {
		if it.ID == id {
			v.Match, found = it, true
		}
	}
	if !found {
		return v, fmt.Errorf("match %d: %w", id, ErrNotFound)
	}
	games, err := d.MatchGames(ctx, id)
	if err != nil {
		return v, err
	}
	for _, g := range games {
		gi := MatchGameItem{Pair: g.Pair, Game: g.Game, ASide: g.ASide, AScore: g.AScore, Result: g.Result, Plies: g.Plies}
		if g.Forfeit != "" {
			f := string(g.Forfeit)
			gi.Forfeit = &f
		}
		v.Games = append(v.Games, gi)
	}
	return v, nil
}

// MatchGame replays game (1 or 2) of pair of stored match id with the game's own rules,
// as Game does a run's: Match is set, Run empty. An unknown match or game wraps
// ErrNotFound.
func MatchGame(ctx context.Context, d *db.DB, id int64, pair, game int) (GameView, error) {
	mv, err := Match(ctx, d, id)
	if err != nil {
		return GameView{}, err
	}
	v := GameView{Match: &mv.Match, GameName: mv.Match.Game, Moves: []string{}, Frames: [][]string{}}
	games, err := d.MatchGames(ctx, id)
	if err != nil {
		return v, err
	}
	var row *db.MatchGameRow
	for i := range games {
		if games[i].Pair == pair && games[i].Game == game {
			row = &games[i]
		}
	}
	if row == nil {
		return v, fmt.Errorf("match %d: pair %d game %d: %w", id, pair, game, ErrNotFound)
	}
	var rec engine.GameRecord
	if err := json.Unmarshal([]byte(row.Record), &rec); err != nil {
		return v, fmt.Errorf("match %d: pair %d game %d: %w", id, pair, game, err)
	}
	v.Moves = append(v.Moves, rec.Moves...)
	v.Game = GameItem{ID: int64(2*pair + game - 1), Individual: mv.Match.AName, Opponent: mv.Match.BName, Colour: row.AColour, Side: row.ASide,
		MovedFirst: row.AColour == engine.Black.String(), Result: row.Result, Plies: row.Plies, Round: pair}
	if row.Forfeit != "" {
		f := string(row.Forfeit)
		v.Game.Forfeit = &f
	}
	v.Black, v.White = mv.Match.AName, mv.Match.BName
	if !v.Game.MovedFirst {
		v.Black, v.White = v.White, v.Black
	}
	var key struct {
		Rule  string
		Board int
	}
	json.Unmarshal([]byte(mv.Match.Key), &key)
	e, err := genomes.Lookup(mv.Match.Game)
	if err != nil {
		return v, fmt.Errorf("match %d: %w", id, err)
	}
	g, err := engine.WithRule(e.Game, key.Rule)
	if err != nil {
		return v, fmt.Errorf("match %d: %w", id, err)
	}
	if err := replay(&v, g, key.Board, engine.PGNGame{Event: fmt.Sprintf("evotune match %d", id), Site: "evotune", Round: fmt.Sprintf("%d.%d", pair+1, game),
		White: v.Black, Black: v.White, Result: row.Result, Comment: string(row.Forfeit)}); err != nil {
		return v, fmt.Errorf("match %d: %w", id, err)
	}
	return v, nil
}

// TournamentItem is one stored tournament: its ID (its first pairing's match), game,
// entrants, gauntlet or round-robin and rounds, its status (running while a pairing runs;
// finished when every pairing finished; else stopped), its stored pairings in play order
// (each a MatchItem with its live score), the pairings it plans, the standings (by score
// against the field, match.Standings) and the crosstable: Crosstable[i][j] is the points
// entrant i scored against entrant j (null: no game between them).
type TournamentItem struct {
	ID         int64            `json:"id"`
	Game       string           `json:"game"`
	Entrants   []match.Entrant  `json:"entrants"`
	Gauntlet   bool             `json:"gauntlet"`
	Rounds     int              `json:"rounds"`
	Status     string           `json:"status"`
	Planned    int              `json:"pairings_planned"`
	Pairings   []MatchItem      `json:"pairings"`
	Standings  []match.Standing `json:"standings"`
	Crosstable [][]*float64     `json:"crosstable"`
	UpdatedAt  string           `json:"updated_at"`
}

// Tournaments lists every stored tournament, newest first.
func Tournaments(ctx context.Context, d *db.DB) ([]TournamentItem, error) {
	items, keys, err := matchItems(ctx, d)
	if err != nil {
		return nil, err
	}
	out := []TournamentItem{}
	for id, key := range keys {
		var k tournamentKey
		if json.Unmarshal([]byte(key), &k) != nil {
			continue
		}
		t := TournamentItem{ID: id, Entrants: k.Tournament, Gauntlet: k.Gauntlet, Rounds: k.Rounds, Pairings: []MatchItem{}, Status: db.StatusFinished}
		n := len(k.Tournament)
		t.Planned = n * (n - 1) / 2
		if k.Gauntlet {
			t.Planned = n - 1
		}
		var ps []*match.Pairing
		t.Crosstable = make([][]*float64, n)
		for i := range t.Crosstable {
			t.Crosstable[i] = make([]*float64, n)
		}
		for _, it := range items {
			if it.Tournament == nil || *it.Tournament != id || it.Pairing == nil || it.Pairing[0] >= n || it.Pairing[1] >= n {
				continue
			}
			a, b := it.Pairing[0], it.Pairing[1]
			t.Pairings = append(t.Pairings, it)
			t.Game = it.Game
			if it.UpdatedAt > t.UpdatedAt {
				t.UpdatedAt = it.UpdatedAt
			}
			switch {
			case it.Status == "running":
				t.Status = "running"
			case it.Status != db.StatusFinished && t.Status != "running":
				t.Status = "stopped"
			}
			ps = append(ps, &match.Pairing{A: a, B: b, Result: match.Result{Result: it.Played}})
			if it.Games > 0 {
				pa := float64(it.Played.Wins) + float64(it.Played.Draws)/2
				pb := float64(it.Games) - pa
				t.Crosstable[a][b], t.Crosstable[b][a] = &pa, &pb
			}
		}
		if len(t.Pairings) < t.Planned && t.Status == db.StatusFinished {
			t.Status = "stopped"
		}
		sort.Slice(t.Pairings, func(i, j int) bool { return t.Pairings[i].ID < t.Pairings[j].ID })
		t.Standings = match.Standings(k.Tournament, ps)
		for i := range t.Standings {
			if s := t.Standings[i].Estimate; s != nil && (stats.Finite(s.Elo) == nil || stats.Finite(s.CI95) == nil) {
				t.Standings[i].Estimate = nil
			}
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out, nil
}

// Tournament is stored tournament id (its first pairing's match ID); an unknown ID wraps
// ErrNotFound.
func Tournament(ctx context.Context, d *db.DB, id int64) (TournamentItem, error) {
	all, err := Tournaments(ctx, d)
	if err != nil {
		return TournamentItem{}, err
	}
	for _, t := range all {
		if t.ID == id {
			return t, nil
		}
	}
	return TournamentItem{}, fmt.Errorf("tournament %d: %w", id, ErrNotFound)
}
