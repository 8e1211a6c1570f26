package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestResumeExtends: `resume RUN --budget-games` lets a finished run play on. A GA, CMA-ES
// or steady-state run tuned to 300 games and extended to 600 stores the same generations,
// individuals and games as a run planned for 600 from the start (their plans do not depend
// on the budget, only where they stop); the extension is stored in the run's config. SPSA
// plans its gains over the run's total, as fishtest does: the extended run's steps before
// the extension keep the gains of the 300-game plan, the later ones take those of the
// 600-game plan (so it does not equal a run planned for 600: its first steps moved by other
// gains).
func TestResumeExtends(t *testing.T) {
	dir := t.TempDir()
	dump := func(db string) string {
		return sqlite(t, filepath.Join(dir, db), `SELECT group_concat(x, char(10)) FROM (SELECT generation || ' ' || id || ' ' || rank || ' ' || fitness || ' ' || games AS x FROM individuals ORDER BY generation, id)`) +
			"\n" + sqlite(t, filepath.Join(dir, db), `SELECT group_concat(x, char(10)) FROM (SELECT generation || ' ' || individual || ' ' || moves || ' ' || result AS x FROM games ORDER BY id)`)
	}
	for _, m := range []struct {
		method string
		args   []string
	}{
		{"ga", []string{"--pop", "6", "--games", "4"}},
		{"cmaes", nil},
		{"steady", []string{"--pop", "6", "--games", "8"}},
		{"spsa", nil},
	} {
		tune := func(budget, db string) {
			args := append([]string{"tune", "--game", "gomoku", "--method", m.method, "--depth", "1", "--budget-games", budget, "--verify-games", "4", "--seed", "5", "--db", db}, m.args...)
			if _, stderr, code := runIn(t, dir, args...); code != 0 {
				t.Fatalf("%s: tune --budget-games %s: %s", m.method, budget, stderr)
			}
		}
		ext, full := m.method+"-ext.db", m.method+"-full.db"
		tune("300", ext)
		played := sqlite(t, filepath.Join(dir, ext), "SELECT sum(games) FROM generations")
		if _, stderr, code := runIn(t, dir, "resume", "1", "--db", ext); code == 0 || !strings.Contains(stderr, "is already finished; nothing to resume (to give it more games: evotune resume 1 --db "+ext+" --budget-games N") {
			t.Errorf("%s: resume of a finished run without a budget: exit %d\n%s", m.method, code, stderr)
		}
		if _, stderr, code := runIn(t, dir, "resume", "1", "--budget-games", "100", "--db", ext); code == 0 || !strings.Contains(stderr, "--budget-games 100: the run has already played "+played+" distinct tuning games; give more than that") {
			t.Errorf("%s: resume --budget-games below the games played: exit %d\n%s", m.method, code, stderr)
		}
		if got := sqlite(t, filepath.Join(dir, ext), "SELECT status || ' ' || json_extract(config, '$.budget_games') || ' ' || COALESCE(json_array_length(config, '$.extensions'), 0) FROM runs"); got != "finished 300 0" {
			t.Fatalf("%s: a refused extension changed the run: %s", m.method, got)
		}
		_, stderr, code := runIn(t, dir, "resume", "1", "--budget-games", "600", "--db", ext)
		if code != 0 || !strings.Contains(stderr, "budget 600 games (extended after "+played+" distinct tuning games from a budget of 300 games)") {
			t.Fatalf("%s: resume --budget-games 600: exit %d\n%s", m.method, code, stderr)
		}
		var cfg struct {
			BudgetGames int `json:"budget_games"`
			Extensions  []struct {
				FromGeneration int `json:"from_generation"`
				Games          int `json:"games"`
				Budget         struct {
					BudgetGames int `json:"budget_games"`
				} `json:"budget"`
				Before struct {
					BudgetGames int `json:"budget_games"`
				} `json:"before"`
			} `json:"extensions"`
		}
		if err := json.Unmarshal([]byte(sqlite(t, filepath.Join(dir, ext), "SELECT config FROM runs")), &cfg); err != nil || cfg.BudgetGames != 600 || len(cfg.Extensions) != 1 ||
			cfg.Extensions[0].Before.BudgetGames != 300 || cfg.Extensions[0].Budget.BudgetGames != 600 || cfg.Extensions[0].FromGeneration < 1 {
			t.Fatalf("%s: stored config after the extension: %v %+v", m.method, err, cfg)
		}
		if got := sqlite(t, filepath.Join(dir, ext), "SELECT status || ' ' || (SELECT sum(games) >= 600 FROM generations) || ' ' || (SELECT count(*) FROM verifications) FROM runs"); got != "finished 1 2" {
			t.Fatalf("%s: the extended run (status, 600 games reached, verifications): %s", m.method, got)
		}
		tune("600", full)
		from := cfg.Extensions[0].FromGeneration
		if m.method != "spsa" {
			if a, b := dump(ext), dump(full); a != b {
				t.Errorf("%s: the run extended from 300 to 600 games differs from the run planned for 600", m.method)
			}
			continue
		}
		// SPSA: c_k of each step as stored, against the 300-game plan (the steps before
		// the extension, same as a 300 run) and the 600-game plan (the steps after it).
		ck := func(db, cond string) string {
			return sqlite(t, filepath.Join(dir, db), "SELECT group_concat(printf('%.12f', json_extract(method_state, '$.c_k')), ' ') FROM (SELECT method_state FROM generations WHERE "+cond+" ORDER BY generation)")
		}
		before, after := "generation < "+strconv.Itoa(from), "generation >= "+strconv.Itoa(from)
		tune("300", "spsa-300.db")
		if a, b := ck(ext, before), ck("spsa-300.db", before); a != b || a == "" {
			t.Errorf("spsa: the steps before the extension: c_k %s, the 300-game run's %s", a, b)
		}
		if a, b := ck(ext, after), ck(full, after); a != b || a == "" {
			t.Errorf("spsa: the steps after the extension: c_k %s, the 600-game plan's %s", a, b)
		}
	}
}
