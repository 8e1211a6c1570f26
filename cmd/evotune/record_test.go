package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHallOfFameRecordReplays: a hall-of-fame member's Elo record (its defence games,
// round −2) is what `match` plays from the same openings with the exported weights — tune
// and match play the same games, so the record can be checked by anyone with the
// database (issue 9, session 7: the 1 024 defence openings of a 30-minute gomoku run
// replayed to the record's score exactly).
func TestHallOfFameRecordReplays(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hof.db")
	// admit-z 0: any candidate that scores above the reigning champion is admitted, so
	// the short run has members that reign and defend.
	args := []string{"tune", "--game", "gomoku", "--pop", "6", "--generations", "8", "--games", "4",
		"--race-rounds", "0", "--admit-games", "8", "--admit-z", "0", "--depth", "2", "--width", "6",
		"--seed", "5", "--verify-games", "0", "--db", path}
	if out, stderr, code := run(t, dir, args...); code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, stderr)
	}
	raw, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	type member struct {
		id             string
		games, w, d, l int
	}
	var members []member
	rows, err := raw.Query(`SELECT id, games, wins, draws, losses FROM hall_of_fame WHERE run_id = 1 AND games > 0 ORDER BY admitted`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var m member
		if err := rows.Scan(&m.id, &m.games, &m.w, &m.d, &m.l); err != nil {
			t.Fatal(err)
		}
		members = append(members, m)
	}
	rows.Close()
	if len(members) == 0 {
		t.Fatal("no hall-of-fame member has a record: the run never tested a reigning champion")
	}
	openings := map[int][][]string{}
	orows, err := raw.Query(`SELECT generation, openings FROM generations WHERE run_id = 1`)
	if err != nil {
		t.Fatal(err)
	}
	for orows.Next() {
		var g int
		var js string
		var o [][]string
		if err := orows.Scan(&g, &js); err != nil || json.Unmarshal([]byte(js), &o) != nil {
			t.Fatalf("generation openings: %v %q", err, js)
		}
		openings[g] = o
	}
	orows.Close()
	wdl := regexp.MustCompile(`A: W (\d+)\s+D (\d+)\s+L (\d+)`)
	for _, m := range members {
		// The member's defence openings, each once (two games, colours swapped, per opening).
		drows, err := raw.Query(`SELECT DISTINCT generation, opening FROM games WHERE run_id = 1 AND individual = ? AND round = -2 ORDER BY generation, opening`, m.id)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for drows.Next() {
			var g, o int
			if err := drows.Scan(&g, &o); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, strings.Join(openings[g][o], " "))
		}
		drows.Close()
		if 2*len(lines) != m.games {
			t.Fatalf("%s: record of %d games, %d defence openings stored", m.id, m.games, len(lines))
		}
		file := writeFile(t, dir, m.id+".txt", strings.Join(lines, "\n")+"\n")
		weights := filepath.Join(dir, m.id+".json")
		if _, stderr, code := run(t, dir, "export", "1", "--individual", m.id, "--out", weights, "--db", path); code != 0 {
			t.Fatalf("export %s: %s", m.id, stderr)
		}
		out, stderr, code := run(t, dir, "match", "--game", "gomoku", "--a", weights, "--b", "default",
			"--openings", file, "--games", fmt.Sprint(m.games), "--depth", "2", "--width", "6")
		got := wdl.FindStringSubmatch(out)
		if code != 0 || got == nil {
			t.Fatalf("match %s: exit %d\n%s\n%s", m.id, code, out, stderr)
		}
		if want := fmt.Sprintf("W %d D %d L %d", m.w, m.d, m.l); fmt.Sprintf("W %s D %s L %s", got[1], got[2], got[3]) != want {
			t.Errorf("%s: record %s, match on its defence openings %s", m.id, want, got[0])
		}
	}
	t.Logf("%d members' records replayed", len(members))
}
