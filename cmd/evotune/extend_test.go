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
	// 300 games extended to 600 in the quick suite; the full suite extends 2 000 to 4 000.
	small, large := "300", "600"
	if !testing.Short() {
		small, large = "2000", "4000"
	}
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
		tune(small, ext)
		played := sqlite(t, filepath.Join(dir, ext), "SELECT sum(games) FROM generations")
		// A steady-state GA whose budget ran out inside a generation (births not a multiple
		// of the population of 6).
		partial := sqlite(t, filepath.Join(dir, ext), "SELECT COALESCE(json_extract(method_state, '$.births') % 6, 0) FROM generations ORDER BY generation DESC LIMIT 1")
		if _, stderr, code := runIn(t, dir, "resume", "1", "--db", ext); code == 0 || !strings.Contains(stderr, "is already finished; nothing to resume (to give it more games: evotune resume 1 --db "+ext+" --budget-games N") {
			t.Errorf("%s: resume of a finished run without a budget: exit %d\n%s", m.method, code, stderr)
		}
		if _, stderr, code := runIn(t, dir, "resume", "1", "--budget-games", "100", "--db", ext); code == 0 || !strings.Contains(stderr, "--budget-games 100: the run has already played "+played+" distinct tuning games; give more than that") {
			t.Errorf("%s: resume --budget-games below the games played: exit %d\n%s", m.method, code, stderr)
		}
		if got := sqlite(t, filepath.Join(dir, ext), "SELECT status || ' ' || json_extract(config, '$.budget_games') || ' ' || COALESCE(json_array_length(config, '$.extensions'), 0) FROM runs"); got != "finished "+small+" 0" {
			t.Fatalf("%s: a refused extension changed the run: %s", m.method, got)
		}
		_, stderr, code := runIn(t, dir, "resume", "1", "--budget-games", large, "--db", ext)
		if code != 0 || !strings.Contains(stderr, "budget "+large+" games (extended after "+played+" distinct tuning games from a budget of "+small+" games)") {
			t.Fatalf("%s: resume --budget-games %s: exit %d\n%s", m.method, large, code, stderr)
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
		if err := json.Unmarshal([]byte(sqlite(t, filepath.Join(dir, ext), "SELECT config FROM runs")), &cfg); err != nil || strconv.Itoa(cfg.BudgetGames) != large || len(cfg.Extensions) != 1 ||
			strconv.Itoa(cfg.Extensions[0].Before.BudgetGames) != small || strconv.Itoa(cfg.Extensions[0].Budget.BudgetGames) != large || cfg.Extensions[0].FromGeneration < 1 {
			t.Fatalf("%s: stored config after the extension: %v %+v", m.method, err, cfg)
		}
		if got := sqlite(t, filepath.Join(dir, ext), "SELECT status || ' ' || (SELECT sum(games) >= "+large+" FROM generations) || ' ' || (SELECT count(*) FROM verifications) FROM runs"); got != "finished 1 2" {
			t.Fatalf("%s: the extended run (status, %s games reached, verifications): %s", m.method, large, got)
		}
		tune(large, full)
		from := cfg.Extensions[0].FromGeneration
		if m.method == "steady" && partial != "0" {
			// The steady-state GA ended inside a generation at the smaller budget; the
			// extension goes on in the next generation, so its births are numbered apart from
			// a run planned for the larger budget: it plays on, not the same run.
			continue
		}
		if m.method != "spsa" {
			if a, b := dump(ext), dump(full); a != b {
				t.Errorf("%s: the run extended from %s to %s games differs from the run planned for %s", m.method, small, large, large)
			}
			continue
		}
		// SPSA: c_k of each step as stored, against the 300-game plan (the steps before
		// the extension, same as a 300 run) and the 600-game plan (the steps after it).
		ck := func(db, cond string) string {
			return sqlite(t, filepath.Join(dir, db), "SELECT group_concat(printf('%.12f', json_extract(method_state, '$.c_k')), ' ') FROM (SELECT method_state FROM generations WHERE "+cond+" ORDER BY generation)")
		}
		before, after := "generation < "+strconv.Itoa(from), "generation >= "+strconv.Itoa(from)
		tune(small, "spsa-small.db")
		if a, b := ck(ext, before), ck("spsa-small.db", before); a != b || a == "" {
			t.Errorf("spsa: the steps before the extension: c_k %s, the %s-game run's %s", a, small, b)
		}
		if a, b := ck(ext, after), ck(full, after); a != b || a == "" {
			t.Errorf("spsa: the steps after the extension: c_k %s, the %s-game plan's %s", a, large, b)
		}
	}
}

// TestResumeFixFree: resume --fix freezes a gene at the champion's value and --free thaws a
// fixed one, from the next generation on: every individual born after holds the frozen
// gene at that value while those born before vary, the thawed gene moves, and the change is
// stored with the run. SPSA and CMA-ES runs refuse it (their state is over the free genes),
// as do an unknown gene, a gene already fixed, and a finished run given no more games.
func TestResumeFixFree(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fz.db")
	if _, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "ga", "--pop", "6", "--games", "4", "--depth", "1", "--budget-games", "300",
		"--verify-games", "0", "--db", "fz.db"); code != 0 {
		t.Fatal(stderr)
	}
	champ := sqlite(t, path, "SELECT json_extract(g.genes, '$.dead_four_a') FROM runs r JOIN genomes g ON g.id = r.best_individual")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--fix", "dead_four_a"}, "run 1 is finished: --fix and --free change its next generations, and it has none left to play"},
		{[]string{"--budget-games", "600", "--fix", "no_such_gene"}, "--fix no_such_gene: no such gene"},
		{[]string{"--budget-games", "600", "--fix", "live_four"}, "--fix live_four: already fixed"},
		{[]string{"--budget-games", "600", "--free", "dead_four_a"}, "--free dead_four_a: already free"},
	} {
		if _, stderr, code := runIn(t, dir, append([]string{"resume", "1", "--db", "fz.db"}, c.args...)...); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("resume %v: exit %d, want %q\n%s", c.args, code, c.want, stderr)
		}
	}
	_, stderr, code := runIn(t, dir, "resume", "1", "--budget-games", "900", "--fix", "dead_four_a", "--free", "live_four", "--db", "fz.db")
	if code != 0 || !strings.Contains(stderr, "frozen from generation ") || !strings.Contains(stderr, "thawed from generation ") {
		t.Fatalf("resume --fix --free: exit %d\n%s", code, stderr)
	}
	from := sqlite(t, path, "SELECT json_extract(config, '$.extensions[0].from_generation') FROM runs")
	if held := sqlite(t, path, "SELECT json_extract(config, '$.hold.dead_four_a') FROM runs"); held != champ {
		t.Fatalf("held at %s, the champion had %s", held, champ)
	}
	after := sqlite(t, path, "SELECT count(*) || ' ' || count(DISTINCT json_extract(genes, '$.dead_four_a')) || ' ' || max(json_extract(genes, '$.dead_four_a')) || ' ' || count(DISTINCT json_extract(genes, '$.live_four')) FROM genomes WHERE born_generation >= "+from)
	f := strings.Fields(after)
	if len(f) != 4 || f[1] != "1" || f[2] != champ || f[3] == "1" {
		t.Fatalf("born from generation %s on (count, distinct frozen values, the value, distinct thawed values): %s; champion %s", from, after, champ)
	}
	if before := sqlite(t, path, "SELECT count(DISTINCT json_extract(genes, '$.dead_four_a')) FROM genomes WHERE born_generation < "+from); before == "1" {
		t.Fatalf("the frozen gene had one value before the freeze too: the test shows nothing")
	}
	if _, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "spsa", "--depth", "1", "--budget-games", "64", "--verify-games", "0", "--db", "s.db"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := runIn(t, dir, "resume", "1", "--budget-games", "128", "--fix", "k1", "--db", "s.db"); code == 0 || !strings.Contains(stderr, "--fix, --free: the run is tuned by spsa") {
		t.Fatalf("resume --fix of an SPSA run: exit %d\n%s", code, stderr)
	}
}
