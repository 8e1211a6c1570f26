package main

import (
	"context"
	"encoding/json"
	"evotune/db"
	"evotune/engine/gomoku"
	"evotune/tuner/arena"
	"evotune/tuner/runstore"
	"path/filepath"
	"regexp"
	"slices"
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
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || !strings.Contains(m.Openings, "verification openings excluded") {
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

// TestProofDrawsOtherOpenings: the README's proof after a run (match --exclude-run) plays
// none of the openings the run's verification played — on the same openings in the same
// order it would replay that verification game for game — nor any tuning opening, and its
// openings' label says what it left out.
func TestProofDrawsOtherOpenings(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--budget-games", "400", "--depth", "1", "--verify-games", "40", "--db", "p.db"); code != 0 {
		t.Fatalf("tune: exit %d\n%s", code, stderr)
	}
	d, err := db.OpenReadOnly(context.Background(), filepath.Join(dir, "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	tuning, err := runstore.Openings(context.Background(), d, 1)
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The run's verification drew its openings so (seed 1, the held-out half, its 40 games).
	verified, _, err := arena.SelectOpenings("random", gomoku.Game{}, 15, 20, 1, tuning)
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runIn(t, dir, "match", "--game", "gomoku", "--a", "default", "--b", "default", "--games", "40", "--depth", "1",
		"--exclude-run", "1", "--db", "p.db", "--json")
	var m struct {
		Openings string `json:"openings"`
		Games    []struct {
			Record struct {
				Moves []string `json:"moves"`
			} `json:"record"`
		} `json:"games"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || len(m.Games) == 0 {
		t.Fatalf("match --exclude-run: exit %d\n%s", code, stderr)
	}
	if !regexp.MustCompile(`run 1's \d+ tuning and [1-9]\d* verification openings excluded`).MatchString(m.Openings) {
		t.Errorf("the proof's openings label: %q, want it to say which tuning and verification openings it left out", m.Openings)
	}
	for _, g := range m.Games {
		for _, o := range verified {
			if len(g.Record.Moves) >= len(o) && slices.Equal(g.Record.Moves[:len(o)], o) {
				t.Fatalf("the proof replays the verification's opening %v", o)
			}
		}
		for k := 1; k <= len(g.Record.Moves); k++ {
			if tuning[arena.Key(g.Record.Moves[:k])] {
				t.Fatalf("the proof plays tuning opening %v", g.Record.Moves[:k])
			}
		}
	}
}
