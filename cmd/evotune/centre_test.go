package main

import (
	"database/sql"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCentreChampion: a GA run whose hall of fame holds several members, one credibly above
// the paper's weights (gomoku seed 5 at these settings), names the centre as its champion
// in the summary, stores it as a genome of operator centre born with the latest member's
// admission, makes it the run's best individual and exports it; with --champion best the
// same seed plays the same games (the rule does not change the search) and the champion is
// a member; SPSA refuses --champion.
func TestCentreChampion(t *testing.T) {
	dir := t.TempDir()
	args := []string{"tune", "--game", "gomoku", "--method", "ga", "--selection", "race", "--pop", "6", "--games", "8", "--admit-games", "16", "--generations", "10",
		"--depth", "1", "--width", "4", "--seed", "5", "--verify-games", "20"}
	out, stderr, code := runIn(t, dir, append(args, "--db", "centre.db")...)
	m := regexp.MustCompile(`champion (1-g\d+-06): the centre of the hall of fame's (\d+) members`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("tune: exit %d, no centre champion in its summary\n%s\n%s", code, out, stderr)
	}
	id := m[1]
	raw, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "centre.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var op, p1, p2, best string
	var born, lastAdmitted int
	if err := raw.QueryRow(`SELECT operator, parent1, parent2, born_generation FROM genomes WHERE id = ?`, id).Scan(&op, &p1, &p2, &born); err != nil || op != "centre" {
		t.Fatalf("genome %s: operator %q (%v), want centre", id, op, err)
	}
	raw.QueryRow(`SELECT best_individual FROM runs WHERE id = 1`).Scan(&best)
	raw.QueryRow(`SELECT max(admitted) FROM hall_of_fame WHERE run_id = 1`).Scan(&lastAdmitted)
	var parents int
	raw.QueryRow(`SELECT count(*) FROM hall_of_fame WHERE run_id = 1 AND id IN (?, ?)`, p1, p2).Scan(&parents)
	if best != id || born != lastAdmitted || parents != 2 || p1 == p2 {
		t.Errorf("best individual %s (want %s), born %d (the latest admission %d), parents %s %s (members: %d of 2)", best, id, born, lastAdmitted, p1, p2, parents)
	}
	if out, stderr, code := runIn(t, dir, "export", "1", "--db", "centre.db", "--out", "-"); code != 0 || !strings.Contains(out, `"individual": "`+id+`"`) {
		t.Errorf("export of the centre: exit %d\n%s\n%s", code, out, stderr)
	}
	// The pick instead: the same games, a member as champion.
	out2, stderr, code := runIn(t, dir, append(args, "--champion", "best", "--db", "best.db")...)
	if code != 0 || !strings.Contains(out2, "(hall of fame: "+m[2]+" members; the member with the best lower bound)") {
		t.Fatalf("tune --champion best: exit %d\n%s\n%s", code, out2, stderr)
	}
	games := func(db string) string {
		r, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, db)+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		rows, err := r.Query(`SELECT individual, opponent, colour, result, moves FROM games ORDER BY rowid`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var sb strings.Builder
		for rows.Next() {
			var a, b, c, d, e string
			rows.Scan(&a, &b, &c, &d, &e)
			sb.WriteString(a + b + c + d + e + "\n")
		}
		return sb.String()
	}
	if g1, g2 := games("centre.db"), games("best.db"); g1 != g2 || g1 == "" {
		t.Errorf("--champion changed the run's games (%d and %d bytes)", len(g1), len(g2))
	}
	if _, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "spsa", "--champion", "best", "--db", "spsa.db"); code == 0 || !strings.Contains(stderr, "--champion") {
		t.Errorf("SPSA with --champion: exit %d, %s", code, stderr)
	}
}
