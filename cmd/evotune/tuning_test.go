package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWeightsLayout: the layout the tuner sees names each scale anchor as fixed, with why.
func TestWeightsLayout(t *testing.T) {
	dir := t.TempDir()
	out, _, code := runIn(t, dir, "weights", "layout", "--game", "gomoku", "--json")
	var genes []struct {
		Name  string `json:"name"`
		Fixed bool   `json:"fixed"`
		Scale string `json:"scale"`
		Note  string `json:"note"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &genes) != nil || len(genes) != 15 {
		t.Fatalf("exit %d: %s", code, out)
	}
	fixed := map[string]bool{}
	for _, g := range genes {
		if g.Fixed {
			fixed[g.Name] = true
			if !strings.Contains(g.Note, "scale anchor") && !strings.Contains(g.Note, "inert") || g.Scale != "log" {
				t.Fatalf("%s fixed without its reason: %+v", g.Name, g)
			}
		}
	}
	if len(fixed) != 3 || !fixed["k2"] || !fixed["live_three"] || !fixed["live_four"] {
		t.Fatalf("fixed genes %v, want k2, live_three and live_four", fixed)
	}
	if _, stderr, code := runIn(t, dir, "weights", "layout", "--game", "shogi"); code == 0 || !strings.Contains(stderr, "shogi") {
		t.Fatalf("unknown game: exit %d %s", code, stderr)
	}
}

// TestTuneBudgetFixAndExclude: a budgeted run with held k1 and mixed depths keeps k1 and
// k2 at the paper's value in every genome, records both depths, and a match with
// --exclude-run never reuses one of its openings.
func TestTuneBudgetFixAndExclude(t *testing.T) {
	dir := t.TempDir()
	args := []string{"tune", "--game", "gomoku", "--method", "ga", "--pop", "4", "--games", "2", "--race-rounds", "1", "--admit-games", "4",
		"--time-budget", "1ms", "--depth", "1,2", "--width", "4", "--fix", "k1", "--verify-games", "4", "--db", "g.db"}
	out, stderr, code := runIn(t, dir, args...)
	if code != 0 || !strings.Contains(out, "finished: 1 generation saved") || !strings.Contains(stderr, "until the budget") {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, stderr)
	}
	out, _, _ = runIn(t, dir, "individual", "1-g0-03", "--db", "g.db", "--json")
	var ind struct {
		Genes map[string]float64 `json:"genes"`
	}
	if json.Unmarshal([]byte(out), &ind) != nil || ind.Genes["k1"] != 1 || ind.Genes["k2"] != 1 || ind.Genes["dead_two_a"] == 150 {
		t.Fatalf("a perturbed genome with k1 held: %s", out)
	}
	if _, _, code := runIn(t, dir, append(args[:len(args)-2], "--depth", "3,x", "--db", "g.db")...); code == 0 {
		t.Fatal("--depth 3,x accepted")
	}
	out, stderr, code = runIn(t, dir, "match", "--game", "gomoku", "--a", "default", "--b", "default", "--games", "20", "--depth", "1",
		"--exclude-run", "1", "--db", "g.db", "--json")
	var m struct {
		Openings string `json:"openings"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || !strings.Contains(m.Openings, "openings of run 1 excluded") {
		t.Fatalf("match --exclude-run: exit %d %s %s", code, out, stderr)
	}
	if _, stderr, code := runIn(t, dir, "match", "--game", "connect6", "--exclude-run", "1", "--db", "g.db"); code == 0 || !strings.Contains(stderr, "gomoku run") {
		t.Fatalf("a gomoku run's openings given to a connect6 match: exit %d %s", code, stderr)
	}
	out, _, code = runIn(t, dir, "match", "--game", "gomoku", "--a", "default", "--b", "default", "--openings", "builtin", "--games", "1000", "--depth", "1")
	if code != 0 || !strings.Contains(out, "52 games (26 distinct colour-swapped pairs)") || !strings.Contains(out, "warning: 1000 games asked") {
		t.Fatalf("builtin openings, 1000 games asked:\n%s", out)
	}
}
