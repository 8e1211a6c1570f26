package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"evotune/engine/gomoku"
)

// TestExportGames: export-games writes one record per game of the run; the SGF files read
// back (gomoku.ParseSGF) to the moves of the games table in the same order, Black first;
// 'play --from' replays a .psq and a .json record to the stored result; --generation and
// --individual select; a non-Gomoku run refuses psq and sgf; bad input is refused.
func TestExportGames(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "ga", "--pop", "4", "--games", "4", "--generations", "1", "--depth", "1", "--verify-games", "0"); code != 0 {
		t.Fatal(stderr)
	}
	raw, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "evotune.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query("SELECT generation, individual, opponent, colour, result, moves FROM games ORDER BY generation, id")
	if err != nil {
		t.Fatal(err)
	}
	type game struct{ gen, ind, opp, colour, result, moves string }
	var games []game
	for rows.Next() {
		var g game
		rows.Scan(&g.gen, &g.ind, &g.opp, &g.colour, &g.result, &g.moves)
		games = append(games, g)
	}
	rows.Close()
	if len(games) == 0 {
		t.Fatal("no games stored")
	}
	for _, format := range []string{"psq", "sgf", "json"} {
		out := filepath.Join(dir, format)
		if _, stderr, code := runIn(t, dir, "export-games", "1", "--format", format, "--out", out); code != 0 {
			t.Fatalf("%s: %s", format, stderr)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*."+format))
		if len(files) != len(games) {
			t.Fatalf("%s: %d files for %d games", format, len(files), len(games))
		}
	}
	perGen := map[string]int{}
	for _, g := range games {
		name := "1-g" + g.gen + "-" + leftPad(perGen[g.gen]) + ".sgf"
		perGen[g.gen]++
		data, err := os.ReadFile(filepath.Join(dir, "sgf", name))
		if err != nil {
			t.Fatal(err)
		}
		_, moves, err := gomoku.ParseSGF(data)
		var want []string
		json.Unmarshal([]byte(g.moves), &want)
		black := g.ind
		if g.colour == "white" {
			black = g.opp
		}
		if err != nil || strings.Join(moves, " ") != strings.Join(want, " ") || !strings.Contains(string(data), "PB["+black+"]") {
			t.Fatalf("%s: moves %v (%v), want %v with Black %s:\n%s", name, moves, err, want, black, data)
		}
	}
	for _, f := range []string{"psq/1-g0-00000.psq", "json/1-g0-00000.json"} {
		out, stderr, code := runIn(t, dir, "play", "--game", "gomoku", "--black", "default", "--white", "default", "--depth", "1", "--from", f)
		if code != 0 || !strings.Contains(out, "result "+games[0].result) {
			t.Fatalf("play --from %s: exit %d, want result %s:\n%s%s", f, code, games[0].result, out, stderr)
		}
	}
	if out, stderr, code := runIn(t, dir, "export-games", "1", "--format", "json", "--individual", games[0].ind, "--generation", "0", "--out", "one"); code != 0 || !strings.Contains(out, " games of run 1 written") {
		t.Fatalf("--individual: exit %d %s %s", code, out, stderr)
	}
	one, _ := filepath.Glob(filepath.Join(dir, "one", "*.json"))
	n := 0
	for _, g := range games {
		if g.ind == games[0].ind && g.gen == "0" {
			n++
		}
	}
	if len(one) != n {
		t.Fatalf("--individual %s: %d files, %d games", games[0].ind, len(one), n)
	}
	if _, stderr, code := runIn(t, dir, "tune", "--game", "connect6", "--method", "ga", "--pop", "4", "--games", "2", "--generations", "1", "--depth", "1", "--verify-games", "0", "--db", "c6.db"); code != 0 {
		t.Fatal(stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export-games", "1", "--format", "psq", "--out", "x", "--db", "c6.db"}, "hold Gomoku games"},
		{[]string{"export-games", "1", "--format", "sgf", "--out", "x", "--db", "c6.db"}, "connect6 has no SGF game number"},
		{[]string{"export-games", "1", "--format", "pdf", "--out", "x"}, "want psq, sgf, pgn or json"},
		{[]string{"export-games", "1", "--format", "pgn", "--out", "x"}, "PGN records hold chess games"},
		{[]string{"export-games", "1", "--format", "sgf"}, "--out"},
		{[]string{"export-games", "1", "--format", "sgf", "--out", "x", "--generation", "7"}, "generations 0 to"},
		{[]string{"export-games", "1", "--format", "sgf", "--out", "x", "--individual", "1-g9-09"}, "no game"},
	} {
		if _, stderr, code := runIn(t, dir, c.args...); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q lacks %q", c.args, code, stderr, c.want)
		}
	}
}

// TestExportGamesAmazonsSGF: an Amazons run's games as SGF (GM[18]): one file per game,
// each with the start position as setup and one node per stored move.
func TestExportGamesAmazonsSGF(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := runIn(t, dir, "tune", "--game", "amazons", "--board", "8", "--method", "ga", "--pop", "4", "--games", "2", "--generations", "1",
		"--depth", "1", "--verify-games", "0", "--db", "a.db"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := runIn(t, dir, "export-games", "1", "--format", "sgf", "--out", "sgf", "--db", "a.db"); code != 0 {
		t.Fatal(stderr)
	}
	var plies []int
	for _, p := range strings.Fields(sqlite(t, filepath.Join(dir, "a.db"), "SELECT plies FROM games WHERE run_id = 1 ORDER BY id")) {
		n, _ := strconv.Atoi(p)
		plies = append(plies, n)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "sgf", "*.sgf"))
	if len(files) != len(plies) || len(plies) == 0 {
		t.Fatalf("%d SGF files for %d games", len(files), len(plies))
	}
	data, err := os.ReadFile(filepath.Join(dir, "sgf", "1-g0-00000.sgf"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	nodes := strings.Count(s, ";B[") + strings.Count(s, ";W[")
	if !strings.Contains(s, "GM[18]") || !strings.Contains(s, "SZ[8]") || !strings.Contains(s, "AB[") || nodes != plies[0] {
		t.Fatalf("game 0 (%d plies) as SGF, %d move nodes:\n%s", plies[0], nodes, s)
	}
}

// leftPad writes n with five digits, as export-games names its files.
func leftPad(n int) string {
	s := strings.Repeat("0", 5) + strconv.Itoa(n)
	return s[len(s)-5:]
}
