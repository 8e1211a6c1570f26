package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func sqlite(t *testing.T, path, query string) string {
	t.Helper()
	out, err := exec.Command("sqlite3", path, query).CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3 %s: %v\n%s", query, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestCompareCommand: compare runs each method on each seed at the same game budget,
// measures every result with all its games, prints the table, stores it, and --show
// prints the same table from the database.
func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := runIn(t, dir, "compare", "--game", "gomoku", "--depth", "1", "--methods", "spsa,ga", "--seeds", "1,2",
		"--budget-games", "40", "--verify-games", "8", "--db", "c.db")
	if code != 0 {
		t.Fatalf("compare: exit %d\n%s", code, stderr)
	}
	row := regexp.MustCompile(`(?m)^\| (spsa|ga) \| (([+-]\d+\.\d ± \d+\.\d|\+0\.0 \(the paper's weights\)) \| ){2}[+-]\d+\.\d \| [+-]\d+\.\d \|$`)
	if n := len(row.FindAllString(out, -1)); n != 2 {
		t.Fatalf("want a row per method with two measured seeds, got %d:\n%s", n, out)
	}
	if !strings.HasPrefix(out, "comparison 1: gomoku, 40 distinct tuning games per run") || strings.Index(out, "| spsa |") > strings.Index(out, "| ga |") {
		t.Fatalf("table header or method order:\n%s", out)
	}
	db := filepath.Join(dir, "c.db")
	// Every result is measured with all its games, or is the paper's weights (no games).
	if got := sqlite(t, db, `SELECT group_concat(c.method || c.seed || ':' || CASE WHEN json_extract(r.verification, '$.baseline') THEN 'baseline'
		ELSE json_extract(r.verification, '$.games') END, ' ') FROM comparison_runs c JOIN runs r ON r.id = c.run_id`); !regexp.MustCompile(`^spsa1:8 ga1:(8|baseline) spsa2:8 ga2:(8|baseline)$`).MatchString(got) {
		t.Fatalf("stored runs and their measured games: %q", got)
	}
	if got := sqlite(t, db, "SELECT status, budget_games FROM comparisons"); got != "finished|40" {
		t.Fatalf("stored comparison: %q", got)
	}
	if got := sqlite(t, db, "SELECT group_concat(json_extract(config, '$.method') || ':' || json_extract(config, '$.budget_games'), ' ') FROM runs"); got != "spsa:40 ga:40 spsa:40 ga:40" {
		t.Fatalf("runs' configs: %q", got)
	}
	shown, stderr, code := runIn(t, dir, "compare", "--show", "1", "--db", "c.db")
	if code != 0 || shown != out {
		t.Fatalf("--show: exit %d %s\n%s\n----\n%s", code, stderr, shown, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--game", "gomoku", "--budget-games", "40", "--methods", "ga,foo"}, `methods[1]: "foo"`},
		{[]string{"--game", "gomoku"}, "--budget-games is required"},
		{[]string{"--game", "gomoku", "--budget-games", "40", "--seeds", "1,x"}, `"x" is not a whole number`},
		{[]string{"--game", "gomoku", "--budget-games", "40", "--verify-games", "7"}, "verify_games: 7"},
		{[]string{"--show", "9"}, "comparison 9: not in"},
	} {
		_, stderr, code := runIn(t, dir, append(append([]string{"compare"}, tc.args...), "--db", "c.db")...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("compare %v: exit %d, want an error with %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}

// TestSPSAResumeFromDatabase: an SPSA run cut after step 2 (its later rows removed, as a
// crash leaves it) and resumed by the command line ends with the same tables as the
// uninterrupted run: θ is replayed from the stored step results.
func TestSPSAResumeFromDatabase(t *testing.T) {
	dir := t.TempDir()
	args := []string{"tune", "--game", "gomoku", "--method", "spsa", "--budget-games", "48", "--spsa-pairs", "4", "--depth", "1", "--verify-games", "8"}
	out, stderr, code := runIn(t, dir, append(args, "--db", "full.db")...)
	if code != 0 || !strings.Contains(out, "θ after the last of 6 SPSA steps") {
		t.Fatalf("spsa run: exit %d\n%s\n%s", code, out, stderr)
	}
	// The summary says how far θ moved and whether it still moved at the end.
	if !regexp.MustCompile(`(?m)^the champion moved 0\.\d{3} from the paper's weights .*, most in \w+ \S+ → \S+`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^(still|no longer) improving at the end: it last changed in SPSA step \d and moved 0\.\d{3} in the last 2 SPSA steps of the 6`).MatchString(out) {
		t.Errorf("the summary does not say how the champion moved:\n%s", out)
	}
	full := filepath.Join(dir, "full.db")
	// generations shows each step's θ+ score against θ− (its 8 games), θ playing none; runs
	// shows no last score for θ (NULL best_fitness), never θ's empty 0.500.
	steps, stderr, code := runIn(t, dir, "generations", "1", "--db", "full.db")
	if code != 0 || !regexp.MustCompile(`(?m)^0 +0\.\d{3} ± 0\.\d{3} +8 +1-g0-00 `).MatchString(steps) || strings.Count(steps, "\n") != 7 {
		t.Fatalf("generations of an SPSA run: exit %d\n%s%s", code, steps, stderr)
	}
	if got := sqlite(t, full, "SELECT best_fitness IS NULL FROM runs"); got != "1" {
		t.Fatalf("best_fitness of SPSA's θ: %q, want NULL", got)
	}
	cut := filepath.Join(dir, "cut.db")
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sqlite(t, cut, `PRAGMA foreign_keys = ON;
		DELETE FROM games WHERE generation >= 3; DELETE FROM individuals WHERE generation >= 3;
		DELETE FROM generations WHERE generation >= 3; DELETE FROM genomes WHERE born_generation >= 3; DELETE FROM verifications;
		UPDATE runs SET status = 'stopped', verification = NULL, generations_done = 3, best_individual = '1-g2-00'`)
	if out, stderr, code := runIn(t, dir, "resume", "1", "--db", "cut.db"); code != 0 {
		t.Fatalf("resume: exit %d\n%s\n%s", code, out, stderr)
	}
	if a, b := tableDump(t, full), tableDump(t, cut); a != b {
		t.Fatalf("resumed SPSA run differs from the uninterrupted one:\n%s\n----\n%s", b, a)
	}
	if _, stderr, code := runIn(t, dir, "tune", "--method", "ga", "--game", "gomoku", "--spsa-pairs", "4", "--generations", "1", "--db", "x.db"); code == 0 || !strings.Contains(stderr, "--spsa-pairs: applies to --method spsa only") {
		t.Fatalf("--spsa-pairs with the GA: exit %d\n%s", code, stderr)
	}
}

// TestGAIsTheDefault: a tune that names no method runs the GA with peers over the game's
// budget (stored as such). SPSA with a time budget alone calibrates first, says so, and
// stores the game budget it scheduled its gains over; the GA's flags are refused with SPSA
// instead of being ignored.
func TestGAIsTheDefault(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--budget-games", "700", "--depth", "1", "--verify-games", "0", "--db", "ga.db")
	if code != 0 || !strings.Contains(stderr, "peers: 3 pairings of 2 games") {
		t.Fatalf("default tune: exit %d\n%s\n%s", code, out, stderr)
	}
	if stored := sqlite(t, filepath.Join(dir, "ga.db"), "SELECT json_extract(config, '$.method') || ' ' || json_extract(config, '$.selection') || ' ' || json_extract(config, '$.budget_games') FROM runs"); stored != "ga peers 700" {
		t.Fatalf("stored method, selection and budget %q, want \"ga peers 700\"", stored)
	}
	if table, _, _ := runIn(t, dir, "generations", "1", "--db", "ga.db"); !strings.Contains(table, "BEST OF PEERS") || strings.Contains(table, "RACE WINNER") {
		t.Fatalf("generations of a run with peers should name its best of peers, not a race winner:\n%s", table)
	}
	out, stderr, code = runIn(t, dir, "tune", "--game", "gomoku", "--method", "spsa", "--time-budget", "4s", "--depth", "1", "--verify-games", "0", "--db", "d.db")
	if code != 0 || !strings.Contains(stderr, "tuning gomoku by SPSA") || !strings.Contains(out, "SPSA steps") {
		t.Fatalf("SPSA tune: exit %d\n%s\n%s", code, out, stderr)
	}
	m := regexp.MustCompile(`calibration: (\d+) games like a first step's in .* SPSA's gains are scheduled over (\d+) games`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no calibration line:\n%s", stderr)
	}
	stored := sqlite(t, filepath.Join(dir, "d.db"), "SELECT json_extract(config, '$.method') || ' ' || json_extract(config, '$.budget_games') || ' ' || json_extract(config, '$.time_budget') FROM runs")
	if want := "spsa " + m[2] + " 4s"; stored != want {
		t.Fatalf("stored method, budget and time budget %q, want %q", stored, want)
	}
	games, _ := strconv.Atoi(sqlite(t, filepath.Join(dir, "d.db"), "SELECT tuning_games FROM run_summary"))
	budget, _ := strconv.Atoi(m[2])
	if games == 0 || games > budget+32 {
		t.Fatalf("the run played %d tuning games for a budget of %d", games, budget)
	}
	for flag, methods := range map[string]string{"--pop": "ga or --method steady", "--admit-games": "ga", "--elite": "ga"} {
		_, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "spsa", flag, "4", "--generations", "1", "--db", "x.db")
		if code == 0 || !strings.Contains(stderr, flag+": applies to --method "+methods+" only (the run's method is spsa") {
			t.Errorf("tune --method spsa %s 4: exit %d\n%s", flag, code, stderr)
		}
	}
	writeFile(t, dir, "ga.yaml", "game: gomoku\npopulation: 8\ngenerations: 1\nmethod: spsa\n")
	if _, stderr, code := runIn(t, dir, "tune", "--config", "ga.yaml", "--db", "x.db"); code == 0 || !strings.Contains(stderr, "config ga.yaml: line 2: population applies to method ga or steady only") {
		t.Errorf("a config with the GA's population for an SPSA run: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.db")); err == nil {
		t.Error("a refused tune created its database")
	}
}

// TestVerifyDepthGames: tune's --verify-depth-games sets the length of the verification at
// --verify-depth apart from --verify-games (stored with the run).
func TestVerifyDepthGames(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "spsa", "--budget-games", "64", "--depth", "1", "--verify-games", "8", "--verify-depth", "2", "--verify-depth-games", "4", "--db", "v.db")
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, stderr)
	}
	got := sqlite(t, filepath.Join(dir, "v.db"), "SELECT json_extract(verification, '$.games') || ' ' || json_extract(verification, '$.ladder[0].games') || ' ' || json_extract(config, '$.verify_depth_games') FROM runs")
	if got != "8 4 4" {
		t.Fatalf("verification games, deep games, stored verify_depth_games: %q, want \"8 4 4\"\n%s", got, out)
	}
}

// TestSteadyTune: `tune --method steady` says how it searches, its generations are
// headed by their best member and its champion is the centre of the better half; the
// GA's racing and hall-of-fame flags are refused with it, its population flags are not.
func TestSteadyTune(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "steady", "--pop", "4", "--games", "2", "--budget-games", "80", "--depth", "1", "--verify-games", "0", "--db", "s.db")
	if code != 0 || !strings.Contains(stderr, "by a steady-state GA: population 4") || !strings.Contains(out, "steady-state generations saved") {
		t.Fatalf("steady tune: exit %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(out, "the centre of the better half") {
		t.Fatalf("the summary does not name the champion's rule:\n%s", out)
	}
	if table, _, _ := runIn(t, dir, "generations", "1", "--db", "s.db"); !strings.Contains(table, "BEST MEMBER") || strings.Contains(table, "RACE WINNER") {
		t.Fatalf("generations of a steady-state run should name its best member:\n%s", table)
	}
	if _, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "steady", "--admit-games", "8", "--db", "x.db"); code == 0 || !strings.Contains(stderr, "--admit-games") {
		t.Fatalf("--admit-games with the steady-state GA: exit %d\n%s", code, stderr)
	}
}
