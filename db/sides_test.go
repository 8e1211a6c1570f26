package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// sidesOf returns "colour/side/moved_first" of a run's generation-0 games, in order.
func sidesOf(t *testing.T, d *DB, run int64) []string {
	t.Helper()
	games, err := d.Games(context.Background(), run, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, g := range games {
		out = append(out, fmt.Sprintf("%s/%s/%v", g.Colour, g.Side, g.MovedFirst))
	}
	sums, err := d.GameSummaries(context.Background(), run, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range sums {
		if s := fmt.Sprintf("%s/%s/%v", g.Colour, g.Side, g.MovedFirst); s != out[i] {
			t.Errorf("run %d game %d: summary %s, Games %s", run, i, s, out[i])
		}
	}
	return out
}

// TestGameSides: a chess game's side is White for the first mover (colour black, the
// engines' convention); every other game keeps the colour as its side, in files written
// now, in a version-11 file read as it is, and in one upgraded to this version.
func TestGameSides(t *testing.T) {
	ctx := context.Background()
	want := map[string][]string{
		"chess":  {"black/white/true", "white/black/false"},
		"gomoku": {"black/black/true", "white/white/false"},
	}
	d, _ := openTemp(t)
	for _, game := range []string{"chess", "gomoku"} {
		id, _ := d.CreateRun(ctx, Run{Name: game, Game: game, Config: "{}", ProgramVersion: "t"})
		if err := d.SaveGeneration(ctx, genData(id, 0, "")); err != nil {
			t.Fatal(err)
		}
		if got := sidesOf(t, d, id); fmt.Sprint(got) != fmt.Sprint(want[game]) {
			t.Errorf("%s: %v, want %v", game, got, want[game])
		}
	}

	// A version-11 file with the same games, read as it is, then upgraded.
	path := filepath.Join(t.TempDir(), "v11.db")
	raw, err := sql.Open(driverName, "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := schemaFS.ReadDir("schema")
	for _, f := range files[:11] {
		b, _ := schemaFS.ReadFile("schema/" + f.Name())
		if _, err := raw.Exec(string(b)); err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
	}
	for i, game := range []string{"chess", "gomoku"} {
		run := i + 1
		stmts := []string{
			fmt.Sprintf(`INSERT INTO runs (id, name, game, status, seed, config, program_version, created_at, updated_at) VALUES (%d, '%s', '%s', 'finished', 0, '{}', 't', '', '')`, run, game, game),
			fmt.Sprintf(`INSERT INTO generations (run_id, generation, fitness_min, fitness_mean, fitness_max, fitness_std, diversity, games, duration_ms, best_individual, opponents, openings, method_state, created_at, games_ms)
				VALUES (%d, 0, 0, 0, 0, 0, 0, 2, 0, 'x', '[]', '[]', '{}', '', 0)`, run),
			fmt.Sprintf(`INSERT INTO genomes (run_id, id, born_generation, operator, genes) VALUES (%d, 'x', 0, 'baseline', '{}')`, run),
			fmt.Sprintf(`INSERT INTO games (run_id, generation, individual, opponent, opening, colour, result, score, plies, moves, nodes, duration_ms, round) VALUES
				(%[1]d, 0, 'x', 'baseline', 0, 'black', '1-0', 1, 1, '[]', 0, 0, 0), (%[1]d, 0, 'x', 'baseline', 0, 'white', '1-0', 0, 1, '[]', 0, 0, 0)`, run),
		}
		for _, s := range stmts {
			if _, err := raw.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	if _, err := raw.Exec("PRAGMA user_version = 11"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for i, game := range []string{"chess", "gomoku"} {
		if got := sidesOf(t, ro, int64(i+1)); fmt.Sprint(got) != fmt.Sprint(want[game]) {
			t.Errorf("version 11 read as it is, %s: %v, want %v", game, got, want[game])
		}
	}
	ro.Close()
	up, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	for i, game := range []string{"chess", "gomoku"} {
		if got := sidesOf(t, up, int64(i+1)); fmt.Sprint(got) != fmt.Sprint(want[game]) {
			t.Errorf("upgraded, %s: %v, want %v", game, got, want[game])
		}
		var side string
		var first int
		if err := up.SQL().QueryRow(`SELECT side, moved_first FROM games WHERE run_id = ? ORDER BY id LIMIT 1`, i+1).Scan(&side, &first); err != nil {
			t.Fatal(err)
		}
		if w := map[string]string{"chess": "white", "gomoku": "black"}[game]; side != w || first != 1 {
			t.Errorf("upgraded %s: stored side %q moved_first %d, want %q 1", game, side, first, w)
		}
	}
}

// TestMatchGameSides: a stored match game keeps A's side as given, and one saved without
// a side gets its colour.
func TestMatchGameSides(t *testing.T) {
	ctx := context.Background()
	d, _ := openTemp(t)
	id, err := d.CreateMatch(ctx, "k", "chess", "a", "b", 2)
	if err != nil {
		t.Fatal(err)
	}
	d.SaveMatchGame(ctx, id, MatchGameRow{Pair: 0, Game: 1, AColour: "black", ASide: "white", Result: "1-0", Record: "{}"})
	d.SaveMatchGame(ctx, id, MatchGameRow{Pair: 0, Game: 2, AColour: "white", Result: "1-0", Record: "{}"})
	games, err := d.MatchGames(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(games) != 2 || games[0].ASide != "white" || games[1].ASide != "white" {
		t.Fatalf("sides %+v", games)
	}
	var first int
	d.SQL().QueryRow(`SELECT a_moved_first FROM match_games WHERE match_id = ? AND game = 1`, id).Scan(&first)
	if first != 1 {
		t.Errorf("a_moved_first %d, want 1", first)
	}
}

// TestClaimLadder: of two connections claiming one ladder at once, exactly one gets it and
// the other is refused with its PID; a claim of a dead process is taken over; another
// ladder of the run is free; only the holder's release frees it.
func TestClaimLadder(t *testing.T) {
	ctx := context.Background()
	a, path := openTemp(t)
	b, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	id, _ := a.CreateRun(ctx, Run{Name: "r", Game: "gomoku", Config: "{}", ProgramVersion: "t"})
	alive := func(int) bool { return true }
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, d := range []*DB{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = d.ClaimLadder(ctx, id, "L", 100+i, alive)
		}()
	}
	wg.Wait()
	var locked *LadderLockedError
	winner := 100
	switch {
	case errs[0] == nil && errors.As(errs[1], &locked) && locked.PID == 100:
	case errs[1] == nil && errors.As(errs[0], &locked) && locked.PID == 101:
		winner = 101
	default:
		t.Fatalf("claims: %v, %v; want exactly one refused with the other's PID", errs[0], errs[1])
	}
	loser := 201 - winner
	if err := a.ClaimLadder(ctx, id, "other", loser, alive); err != nil {
		t.Errorf("another ladder: %v", err)
	}
	if err := a.ReleaseLadder(ctx, id, "L", loser); err != nil {
		t.Fatal(err)
	}
	if err := a.ClaimLadder(ctx, id, "L", loser, alive); !errors.As(err, &locked) {
		t.Errorf("after a non-holder's release: %v, want refused", err)
	}
	if err := a.ClaimLadder(ctx, id, "L", loser, func(int) bool { return false }); err != nil {
		t.Errorf("a dead holder's claim: %v, want taken over", err)
	}
	if err := a.ReleaseLadder(ctx, id, "L", loser); err != nil {
		t.Fatal(err)
	}
	if err := b.ClaimLadder(ctx, id, "L", winner, alive); err != nil {
		t.Errorf("after the holder's release: %v", err)
	}
}
