package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"evotune/engine"
	"evotune/tuner/runview"
)

// bin is the evotune binary built once for the tests that run it as a user would.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "evotune-test")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "evotune")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	// The temporary files of the processes the tests start (an outside engine's weights
	// file, written beside no run) go in the tests' own directory: a worker killed with
	// SIGKILL cannot remove its own, and the directory is removed below.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		panic(err)
	}
	os.Setenv("TMPDIR", tmp)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// long skips t under -short, the README's quick test command: t is slow for its size
// (many games, a statistical claim, a run per method or protocol), and the full command,
// without -short, which CI runs as well, runs it.
func long(t *testing.T, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("long (%s): go test without -short runs it", what)
	}
}

// shortGames is every game, or under -short gomoku and chess alone (the Gomocup and UCI
// protocols), t's other games being slow for its size (why): the full command plays them.
func shortGames(t *testing.T, why string) []string {
	if testing.Short() {
		t.Logf("under -short, gomoku and chess only (%s): go test without -short plays every game", why)
		return []string{"gomoku", "chess"}
	}
	return []string{"gomoku", "connect6", "amazons", "chess"}
}

// run executes the binary in dir and returns stdout, stderr and the exit status (see
// runTimeout; a command still running after 10 minutes fails the test).
func run(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	return runTimeout(t, dir, 10*time.Minute, args...)
}

// runIn runs an evotune command line in this process (execute, as main does) in dir and
// returns stdout, stderr and the exit status: the command functions tested directly, with
// no binary in between. It works in dir (and returns to the test's directory after) and
// sets setEnv's values for the test, so it is for tests that do not run in parallel (t.Chdir and
// t.Setenv refuse those); what needs a process of its own — signals, a program killed,
// concurrent commands, the README's shell lines — runs the binary (run, start).
func runIn(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir) // refuses a parallel test
	defer os.Chdir(wd)
	if v, ok := testEnv.Load(topName(t)); ok {
		for _, kv := range v.([]string) {
			k, val, _ := strings.Cut(kv, "=")
			t.Setenv(k, val)
		}
	}
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// testEnv holds, per top-level test, the environment variables its evotune processes get
// beside this process's (setEnv): t.Setenv would forbid t.Parallel, and the tests that
// wait on brokers, timeouts and processes run in parallel to keep the suite short.
var testEnv sync.Map // top-level test name → []string of KEY=VALUE

// topName is the name of the top-level test t belongs to.
func topName(t testing.TB) string { return strings.SplitN(t.Name(), "/", 2)[0] }

// setEnv gives every evotune process test t starts from now on KEY=value (later values of a
// key win, as exec.Cmd.Env does).
func setEnv(t testing.TB, key, value string) {
	name := topName(t)
	old, _ := testEnv.Load(name)
	env, _ := old.([]string)
	testEnv.Store(name, append(append([]string(nil), env...), key+"="+value))
	t.Cleanup(func() { testEnv.Delete(name) })
}

// envOf is the environment of the processes test t starts: this process's and setEnv's.
func envOf(t testing.TB) []string {
	v, _ := testEnv.Load(topName(t))
	extra, _ := v.([]string)
	return append(os.Environ(), extra...)
}

// writeFile writes body to dir/name and returns the path.
func writeFile(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBadInputCLI: every bad input gives a message naming what is wrong and a non-zero
// exit status.
func TestBadInputCLI(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string { return writeFile(t, dir, name, body) }
	c6 := write("c6.json", `{"format":"evotune.weights/v1","game":"connect6","weights":{"value":[1,20,40,200,200,1000000],"threat":[1,25,50,6000,6000,1000000]}}`)
	nan := write("nan.json", `{"format":"evotune.weights/v1","game":"gomoku","weights":{"live_four":NaN}}`)
	short := write("short.json", `{"format":"evotune.weights/v1","game":"connect6","weights":{"value":[1,20,40,200,200],"threat":[1,25,50,6000,6000,1000000]}}`)
	big := write("big.json", `{"format":"evotune.weights/v1","game":"connect6","weights":{"value":[1,20,40,200,200,1e12],"threat":[1,25,50,6000,6000,1000000]}}`)
	unknown := write("unknown.json", `{"format":"evotune.weights/v1","game":"connect6","weights":{"value":[1,20,40,200,200,1],"threat":[1,25,50,6000,6000,1],"bonus":[1]}}`)
	garbage := write("garbage.json", "\x00\x01garbage")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"play", "--game", "shogi"}, `unknown game "shogi"`},
		{[]string{"play"}, "--game is required"},
		{[]string{"play", "--game", "gomoku", "--black", c6}, `game: file is for "connect6", not "gomoku"`},
		{[]string{"play", "--game", "gomoku", "--white", nan}, "nan.json: invalid JSON"},
		{[]string{"play", "--game", "connect6", "--black", short}, "weights.value: want 6 entries, got 5"},
		{[]string{"play", "--game", "connect6", "--black", big}, "weights.value[5]: 1e+12 is above the maximum"},
		{[]string{"play", "--game", "connect6", "--black", unknown}, `unknown field "bonus"`},
		{[]string{"play", "--game", "connect6", "--black", garbage}, "garbage.json: invalid JSON"},
		{[]string{"play", "--game", "connect6", "--black", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"play", "--game", "gomoku", "--opening", "h8,h8"}, "opening move 2"},
		{[]string{"perft", "--game", "amazons", "--board", "9"}, "board size 9"},
		{[]string{"play", "--game", "gomoku", "--depth", "-2"}, "depth"},
		{[]string{"play", "--game", "gomoku", "--rule", "caro"}, `rule "caro"`},
		{[]string{"bench", "--game", "gomoku", "--scan", "both"}, "only connect6"},
		{[]string{"weights", "default", "--game", "amazons", "--out", filepath.Join(dir, "no", "dir", "w.json")}, "--out"},
	}
	for _, tc := range cases {
		_, stderr, code := runIn(t, dir, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("evotune %v: exit %d, stderr %q; want non-zero and %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Error("a failed --out left a directory behind")
	}
}

// TestEngineCommands runs the commands as a user would and checks their output.
func TestEngineCommands(t *testing.T) {
	dir := t.TempDir()
	out, _, code := runIn(t, dir, "perft", "--game", "amazons", "--depth", "1", "--json")
	var pr struct{ Nodes int64 }
	if code != 0 || json.Unmarshal([]byte(out), &pr) != nil || pr.Nodes != 2176 {
		t.Fatalf("perft: exit %d, %s", code, out)
	}
	if _, _, code := runIn(t, dir, "weights", "default", "--game", "gomoku", "--out", "g.json"); code != 0 {
		t.Fatal("weights default failed")
	}
	out, stderr, code := runIn(t, dir, "play", "--game", "gomoku", "--black", "g.json", "--white", "default", "--depth", "2", "--json")
	var rec struct {
		Result string
		Record struct {
			Moves []string `json:"moves"`
			Plies int      `json:"plies"`
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &rec) != nil || rec.Record.Plies != len(rec.Record.Moves) || rec.Result == "ongoing" {
		t.Fatalf("play: exit %d, %s %s", code, out, stderr)
	}
	out, _, code = runIn(t, dir, "bench", "--game", "connect6", "--scan", "both", "--depth", "3", "--json")
	var rows []struct {
		SameMove *bool `json:"same_move"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 || rows[0].SameMove == nil || !*rows[0].SameMove {
		t.Fatalf("bench --scan both: exit %d, %s", code, out)
	}
}

// TestRunPlayCancelled: a cancelled context stops a game with an error, not a result.
func TestRunPlayCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	err := runPlay(ctx, playOpts{gameOpts: gameOpts{game: "gomoku"}, black: "default", white: "default"}, &out)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled play returned %v", err)
	}
}

// TestTuneEndToEnd is the acceptance as a new user would try it, for every game:
// tune, inspect (CLI and SQL), export, play with the export, and the same run with one
// worker gives identical individuals and fitness.
func TestTuneEndToEnd(t *testing.T) {
	dir := t.TempDir()
	for _, game := range []string{"connect6", "gomoku", "amazons"} {
		args := []string{"tune", "--game", game, "--method", "ga", "--selection", "race", "--pop", "6", "--generations", "2", "--games", "2", "--seed", "1", "--depth", "1", "--width", "4", "--admit-games", "16", "--verify-games", "200"}
		if game == "amazons" {
			args = append(args, "--board", "8") // 1 232 root moves, all evaluated
		}
		out, stderr, code := runIn(t, dir, append(args, "--db", game+".db")...)
		out0 := out
		if code != 0 || !strings.Contains(out, "finished: 3 generations saved") {
			t.Fatalf("%s tune: exit %d\n%s\n%s", game, code, out, stderr)
		}
		if _, _, code := runIn(t, dir, append(args, "--db", game+"-w1.db", "--workers", "1")...); code != 0 {
			t.Fatalf("%s tune --workers 1 failed", game)
		}
		a, _, _ := runIn(t, dir, "generations", "1", "--db", game+".db", "--json")
		b, _, _ := runIn(t, dir, "generations", "1", "--db", game+"-w1.db", "--json")
		if stripTimes(a) != stripTimes(b) || a == "" {
			t.Fatalf("%s: generations differ between 2 workers and 1", game)
		}
		var runs []struct {
			ID             int64
			Status         string
			BestIndividual string `json:"best_individual"`
		}
		out, _, _ = runIn(t, dir, "runs", "--db", game+".db", "--json")
		if json.Unmarshal([]byte(out), &runs) != nil || len(runs) != 1 || runs[0].Status != "finished" {
			t.Fatalf("%s runs: %s", game, out)
		}
		best := runs[0].BestIndividual
		ia, _, code := runIn(t, dir, "individual", best, "--db", game+".db", "--json")
		ib, _, _ := runIn(t, dir, "individual", best, "--db", game+"-w1.db", "--json")
		if code != 0 || ia != ib {
			t.Fatalf("%s individual %s: exit %d or differs between worker counts", game, best, code)
		}
		if out, _, code := runIn(t, dir, "lineage", best, "--db", game+".db", "--dot"); code != 0 || !strings.HasPrefix(out, "digraph") {
			t.Fatalf("%s lineage --dot: %s", game, out)
		}
		if _, stderr, code := runIn(t, dir, "export", "1", "--db", game+".db", "--out", game+".json"); code != 0 {
			t.Fatalf("%s export: %s", game, stderr)
		}
		if _, stderr, code := runIn(t, dir, "play", "--game", game, "--black", game+".json", "--white", "default", "--depth", "1", "--width", "3"); code != 0 {
			t.Fatalf("%s play with the export: %s", game, stderr)
		}
		checkSQL(t, filepath.Join(dir, game+".db"))
		// The summary's counts are the database's: distinct games (generations.games) and
		// rows of the games table.
		m := regexp.MustCompile(`(\d+) games( \((\d+) rows in the games table)?`).FindStringSubmatch(out0)
		raw, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, game+".db")+"?mode=ro")
		if err != nil || m == nil {
			t.Fatalf("%s summary %q: %v", game, out0, err)
		}
		var played, rows int
		raw.QueryRow(`SELECT (SELECT sum(games) FROM generations), (SELECT count(*) FROM games)`).Scan(&played, &rows)
		raw.Close()
		if m[3] == "" {
			m[3] = m[1]
		}
		if m[1] != fmt.Sprint(played) || m[3] != fmt.Sprint(rows) {
			t.Fatalf("%s: the summary says %s games, %s rows; the database holds %d and %d", game, m[1], m[3], played, rows)
		}
	}
}

// stripTimes drops the fields that legitimately differ between two runs (wall times).
func stripTimes(s string) string {
	var rows []map[string]any
	if json.Unmarshal([]byte(s), &rows) != nil {
		return s
	}
	for _, r := range rows {
		delete(r, "duration_ms")
		delete(r, "games_ms")
		delete(r, "created_at")
		delete(r, "elapsed_ms")
		delete(r, "slot_ms") // the games' wall times
		delete(r, "slots")   // the workers
	}
	out, _ := json.Marshal(rows)
	return string(out)
}

// checkSQL reads the database the way a user would with the sqlite3 shell, when it is
// installed (CI installs it).
func checkSQL(t *testing.T, path string) {
	t.Helper()
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Log("sqlite3 shell not installed; skipping the shell check")
		return
	}
	q := func(sql string) string {
		out, err := exec.Command("sqlite3", path, sql).CombinedOutput()
		if err != nil {
			t.Fatalf("sqlite3 %q: %v %s", sql, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if n := q("SELECT count(*) FROM generations"); n != "3" {
		t.Fatalf("%s: %s generations", path, n)
	}
	if n := q("SELECT count(*) FROM genomes g WHERE (parent1 IS NOT NULL AND parent1 NOT IN (SELECT id FROM genomes)) OR (parent2 IS NOT NULL AND parent2 NOT IN (SELECT id FROM genomes))"); n != "0" {
		t.Fatalf("%s: %s genomes with a missing parent", path, n)
	}
	// --games 2: every individual has 2 games per racing round it reached.
	if n := q("SELECT count(*) FROM individuals WHERE games != 2 * (round + 1)"); n != "0" {
		t.Fatalf("%s: %s individuals with the wrong number of games", path, n)
	}
	if n := q("SELECT count(*) FROM individuals WHERE round = 2"); n != "6" { // 6 → 3 → 2 per generation, 3 generations
		t.Fatalf("%s: %s individuals reached round 2, want 6", path, n)
	}
	// Admission games: the candidate's, and as many of the reigning champion's unless that is
	// the paper's weights themselves (never played against themselves).
	if ok := q("SELECT (SELECT count(*) FROM games WHERE round = -1) = (SELECT COALESCE(sum(games * (1 + (opponent != 'baseline'))), 0) FROM admissions)"); ok != "1" {
		t.Fatalf("%s: admission games do not match the admissions table", path)
	}
	// Defence games: the reigning champion's Elo record, as many as the test's, on openings
	// of their own; every member's hall-of-fame record is exactly its defence games.
	if ok := q("SELECT (SELECT count(*) FROM games WHERE round = -2) = (SELECT COALESCE(sum(games * (opponent != 'baseline')), 0) FROM admissions)"); ok != "1" {
		t.Fatalf("%s: defence games do not match the admissions table", path)
	}
	if n := q("SELECT count(*) FROM hall_of_fame h WHERE games != (SELECT count(*) FROM games g WHERE g.round = -2 AND g.individual = h.id AND g.run_id = h.run_id)"); n != "0" {
		t.Fatalf("%s: %s hall-of-fame records are not their defence games", path, n)
	}
	if ok := q("PRAGMA integrity_check"); ok != "ok" {
		t.Fatalf("%s: integrity_check %s", path, ok)
	}
	if n := q("SELECT count(*) FROM best_per_generation"); n != "3" {
		t.Fatalf("%s: best_per_generation has %s rows", path, n)
	}
}

func TestTuneBadInput(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "run.yaml"), []byte("game: gomoku\npopulaton: 4\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "junk.db"), []byte(strings.Repeat("junk", 1000)), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"tune", "--game", "shogi"}, `unknown game "shogi"`},
		{[]string{"tune"}, "--game is required"},
		{[]string{"tune", "--game", "gomoku", "--method", "ga", "--pop", "0"}, "--pop: 0, want at least 2"},
		{[]string{"tune", "--game", "gomoku", "--generations", "0"}, "generations: 0"},
		{[]string{"tune", "--method", "ga", "--game", "gomoku", "--games", "3"}, "games: 3"},
		{[]string{"tune", "--method", "ga", "--game", "gomoku", "--games", "-2"}, "games: -2"},
		{[]string{"tune", "--config", "run.yaml"}, "populaton"},
		{[]string{"tune", "--config", "missing.yaml"}, "missing.yaml"},
		{[]string{"tune", "--game", "gomoku", "--db", "junk.db"}, "not an SQLite database"},
		{[]string{"runs", "--db", "absent.db"}, "absent.db"},
		{[]string{"generations", "x"}, `run ID "x"`},
		{[]string{"individual", "nonsense"}, `individual ID "nonsense"`},
	}
	for _, tc := range cases {
		_, stderr, code := runIn(t, dir, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("evotune %v: exit %d, stderr %q; want non-zero and %q", tc.args, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "evotune.db")); err == nil {
		t.Error("a rejected tune created evotune.db")
	}
}

// TestMatchAcceptance: default vs default gives an Elo interval
// containing 0; a weakened file loses with SPRT verdict H0 (as A) and H1 for its opponent;
// results do not depend on --workers.
func TestMatchAcceptance(t *testing.T) {
	long(t, "200 games of the paper's weights against themselves")
	dir := t.TempDir()
	out, stderr, code := runIn(t, dir, "match", "--game", "gomoku", "--a", "default", "--b", "default", "--games", "200", "--json")
	var m struct {
		Result   struct{ Wins, Draws, Losses int }
		Estimate struct {
			EloLow  float64 `json:"elo_low"`
			EloHigh float64 `json:"elo_high"`
		}
		Verdict string
	}
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || m.Estimate.EloLow > 0 || m.Estimate.EloHigh < 0 || m.Result.Wins+m.Result.Draws+m.Result.Losses != 200 {
		t.Fatalf("default vs default: exit %d %s %s", code, out, stderr)
	}
	weights, _, _ := runIn(t, dir, "weights", "default", "--game", "gomoku")
	var f map[string]any
	json.Unmarshal([]byte(weights), &f)
	w := f["weights"].(map[string]any)
	for k := range w {
		if k != "k1" && k != "k2" {
			w[k] = 1
		}
	}
	data, _ := json.Marshal(f)
	os.WriteFile(filepath.Join(dir, "weak.json"), data, 0o644)
	for _, tc := range []struct{ a, b, verdict string }{{"weak.json", "default", "H0"}, {"default", "weak.json", "H1"}} {
		var outs []string
		for _, workers := range []string{"1", "2"} {
			out, stderr, code := runIn(t, dir, "match", "--game", "gomoku", "--a", tc.a, "--b", tc.b, "--games", "400", "--sprt", "--workers", workers, "--json")
			m.Verdict = ""
			if code != 0 || json.Unmarshal([]byte(out), &m) != nil || m.Verdict != tc.verdict {
				t.Fatalf("%s vs %s: exit %d verdict %q, want %s\n%s", tc.a, tc.b, code, m.Verdict, tc.verdict, stderr)
			}
			outs = append(outs, fmt.Sprint(m.Result))
		}
		if outs[0] != outs[1] {
			t.Fatalf("%s vs %s: workers 1 and 2 differ: %v", tc.a, tc.b, outs)
		}
	}
	os.WriteFile(filepath.Join(dir, "bad.txt"), []byte("h8 h9 h10\nh8 h9 h9\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"match", "--game", "gomoku", "--openings", "bad.txt"}, "bad.txt:2: move 3"},
		{[]string{"match", "--game", "gomoku", "--games", "7"}, "--games 7"},
		{[]string{"match", "--game", "gomoku", "--sprt", "elo0=5,elo1=1"}, "elo0"},
		{[]string{"match", "--game", "gomoku", "--a", "nope.json"}, "--a"},
	} {
		_, stderr, code := runIn(t, dir, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("evotune %v: exit %d, %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestVerifyCommand(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := runIn(t, dir, "tune", "--game", "amazons", "--board", "8", "--method", "ga", "--pop", "4", "--generations", "1", "--games", "2", "--depth", "1", "--width", "3", "--verify-games", "0"); code != 0 {
		t.Fatal(stderr)
	}
	// The run's champion is the paper's weights: verifying them against themselves is refused.
	if _, stderr, code := runIn(t, dir, "verify", "1", "--games", "8"); code == 0 || !strings.Contains(stderr, "1-g0-00 is the baseline") || !strings.Contains(stderr, "--individual") {
		t.Fatalf("verify of a baseline champion: exit %d, %s", code, stderr)
	}
	out, stderr, code := runIn(t, dir, "verify", "1", "--individual", "1-g0-01", "--games", "8", "--json")
	var v struct {
		Champion string
		Games    int
		Verdict  string
	}
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v.Games != 8 || v.Champion == "" {
		t.Fatalf("verify: exit %d %s %s", code, out, stderr)
	}
	out, _, _ = runIn(t, dir, "runs")
	if !strings.Contains(out, v.Champion+", 8 games") {
		t.Fatalf("runs does not show the verification:\n%s", out)
	}
	// A smaller verification is kept beside it and does not replace the headline; one with
	// --headline latest does.
	out, stderr, code = runIn(t, dir, "verify", "1", "--individual", "1-g0-01", "--games", "4")
	if code != 0 || !strings.Contains(out, "stored as verification 2 of run 1; verification 1 stays the run's headline") {
		t.Fatalf("a second, smaller verify: exit %d %s %s", code, out, stderr)
	}
	if out, _, _ = runIn(t, dir, "runs"); !strings.Contains(out, v.Champion+", 8 games") {
		t.Fatalf("a smaller verification replaced the headline:\n%s", out)
	}
	if out, stderr, code = runIn(t, dir, "verify", "1", "--individual", "1-g0-01", "--games", "2", "--headline", "latest"); code != 0 || !strings.Contains(out, "now the run's headline") {
		t.Fatalf("verify --headline latest: exit %d %s %s", code, out, stderr)
	}
	if out, _, _ = runIn(t, dir, "runs"); !strings.Contains(out, v.Champion+", 2 games") {
		t.Fatalf("--headline latest did not make the newest the headline:\n%s", out)
	}
	if kept := sqlite(t, filepath.Join(dir, "evotune.db"), `SELECT group_concat(source || ':' || games, ' ') FROM verification_list WHERE run_id = 1 ORDER BY id`); kept != "verify:8 verify:4 verify:2" {
		t.Fatalf("stored verifications %q, want all three", kept)
	}
	if _, stderr, code := runIn(t, dir, "verify", "1", "--headline", "best"); code == 0 || !strings.Contains(stderr, `--headline "best"`) {
		t.Fatalf("verify --headline best: exit %d %s", code, stderr)
	}
	if _, stderr, code := runIn(t, dir, "verify", "7"); code == 0 || !strings.Contains(stderr, "run 7") {
		t.Fatalf("verify of a missing run: %s", stderr)
	}
}

// TestPbrainName: a link named pbrain-evotune speaks Gomocup without arguments, as
// Gomocup managers start it.
func TestPbrainName(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "pbrain-evotune")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(link)
	cmd.Stdin = strings.NewReader("START 15\r\nBEGIN\r\nEND\r\n")
	out, err := cmd.Output()
	o := string(out)
	if err != nil || !strings.HasPrefix(o, "OK\nMESSAGE depth ") || !strings.Contains(o, " pv h8") || !strings.HasSuffix(o, "\n7,7\n") {
		t.Fatalf("pbrain-evotune: %q, %v", out, err)
	}
}

// TestPbrainArgs: the names a manager may start the binary under, on Linux and on Windows
// (backslashes, upper case, .exe), become "engine --game gomoku"; other names keep their
// arguments.
func TestPbrainArgs(t *testing.T) {
	for _, c := range []struct {
		argv0 string
		want  bool
	}{
		{"pbrain-evotune", true}, {"./engines/pbrain-evotune", true}, {`C:\Gomocup\PBRAIN-EVOTUNE.EXE`, true},
		{`C:\piskvork\pbrain-evotune.exe`, true}, {"evotune", false}, {`C:\bin\evotune.exe`, false},
		{"pbrain-evotune2", false}, {`C:\pbrain-evotune\evotune.exe`, false}, {"", false},
	} {
		got := pbrainArgs(c.argv0, []string{"--depth", "2"})
		if is := len(got) == 5 && got[0] == "engine" && got[2] == "gomoku" && got[4] == "2"; is != c.want || (!c.want && len(got) != 2) {
			t.Errorf("pbrainArgs(%q): %q, want rewritten %v", c.argv0, got, c.want)
		}
	}
}

// TestExternalEngines: evotune's own engine run as an external program through each
// protocol plays exactly the games the in-process engine plays; engines that crash, time
// out or play illegal moves lose by forfeit and the match goes on.
func TestExternalEngines(t *testing.T) {
	dir := t.TempDir()
	for _, g := range shortGames(t, "each protocol's games take half a minute together") {
		ext := "cmd:" + bin + " engine --game " + g + " --depth 1"
		var results []string
		for _, a := range []string{ext, "default"} {
			out, stderr, code := runIn(t, dir, "match", "--game", g, "--a", a, "--b", "default", "--depth", "1", "--games", "4", "--openings", "none", "--json")
			var m struct {
				Result        struct{ Wins, Draws, Losses int }
				RepeatedPairs int `json:"repeated_pairs"`
				Games         []struct {
					Record struct {
						Moves   []string `json:"moves"`
						Forfeit string   `json:"forfeit"`
					}
				}
			}
			// Two fixed-depth built-in engines from one opening have only 2 distinct games,
			// played once each; the external engine is not known to be deterministic, so
			// both pairs are played, and the second, a repeat move for move, is counted once.
			repeats := 1
			if a == "default" {
				repeats = 0
			}
			if code != 0 || json.Unmarshal([]byte(out), &m) != nil || len(m.Games) != 2 || m.RepeatedPairs != repeats {
				t.Fatalf("%s match with %s: exit %d, %d games, %d repeated pairs %s", g, a, code, len(m.Games), m.RepeatedPairs, stderr)
			}
			var sb strings.Builder
			for _, gm := range m.Games[:2] {
				if gm.Record.Forfeit != "" {
					t.Fatalf("%s: %s forfeited: %s", g, a, gm.Record.Forfeit)
				}
				sb.WriteString(strings.Join(gm.Record.Moves, " ") + "\n")
			}
			results = append(results, sb.String())
		}
		if results[0] != results[1] {
			t.Fatalf("%s: the engine through its protocol played different games than in process:\n%s\n----\n%s", g, results[0], results[1])
		}
	}
	scripts := map[string]string{
		"crash.sh":   "#!/bin/sh\nread l; echo OK; exit 3\n",
		"silent.sh":  "#!/bin/sh\nwhile read l; do case \"$l\" in START*) echo OK;; esac; done\n",
		"illegal.sh": "#!/bin/sh\nwhile read l; do case \"$l\" in START*) echo OK;; BEGIN|TURN*|DONE) echo 0,0;; esac; done\n",
		"garbage.sh": "#!/bin/sh\nwhile read l; do case \"$l\" in START*) echo OK;; BEGIN|TURN*|DONE) echo hello;; esac; done\n",
	}
	want := map[string]string{"crash.sh": "exited", "silent.sh": "time loss", "illegal.sh": "illegal move", "garbage.sh": "time loss"} // a line that is not an answer is skipped, as Piskvork skips it

	for name, body := range scripts {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(body), 0o755)
		out, stderr, code := runIn(t, dir, "match", "--game", "gomoku", "--a", "cmd:"+path, "--b", "default", "--depth", "1", "--games", "4", "--move-time", "300ms", "--json")
		type game struct {
			Record struct {
				Forfeit  string
				BlackLog string `json:"black_log"`
				WhiteLog string `json:"white_log"`
			}
		}
		var m struct {
			Result        struct{ Wins, Draws, Losses int }
			Games         []game
			Unplayed      []game
			UnplayedPairs int `json:"unplayed_pairs"`
		}
		// A match that counted no game says so by its exit status too, after its JSON.
		if (name == "illegal.sh") != (code == 0) || json.Unmarshal([]byte(out), &m) != nil ||
			name != "illegal.sh" && !strings.Contains(stderr, "no game was counted: 2 pairs") {
			t.Fatalf("%s: exit %d, %s %s", name, code, out, stderr)
		}
		// An illegal move is a move: those games count as losses. An engine that dies or
		// never answers forfeits before its first move: no game says how strong it is, the
		// pairs are reported apart (TestUnplayedForfeits).
		if name == "illegal.sh" && (m.Result.Losses != 4 || len(m.Games) != 4 || m.UnplayedPairs != 0) ||
			name != "illegal.sh" && (m.Result != struct{ Wins, Draws, Losses int }{} || len(m.Unplayed) != 4 || m.UnplayedPairs != 2) {
			t.Fatalf("%s: %+v, %d games, %d unplayed pairs", name, m.Result, len(m.Games), m.UnplayedPairs)
		}
		for _, gm := range append(m.Games, m.Unplayed...) {
			if !strings.Contains(gm.Record.Forfeit, want[name]) {
				t.Fatalf("%s: forfeit %q, want %q", name, gm.Record.Forfeit, want[name])
			}
			if name == "garbage.sh" && !strings.Contains(gm.Record.BlackLog+gm.Record.WhiteLog, "stdout: hello") {
				t.Fatalf("garbage.sh: the skipped lines are not in the record: %+v", gm.Record)
			}
		}
	}
}

// TestTuneWithExternalOpponent: an external engine joins the opponent pool and plays its
// games without forfeits, for every game (Connect6's from the empty board).
func TestTuneWithExternalOpponent(t *testing.T) {
	dir := t.TempDir()
	for _, g := range shortGames(t, "connect6 through SAU and amazons through Botzone's process per move take a minute") {
		ext := "cmd:" + bin + " engine --game " + g + " --depth 1"
		db := g + ".db"
		args := []string{"tune", "--game", g, "--method", "ga", "--pop", "4", "--generations", "1", "--games", "4", "--depth", "1", "--width", "4",
			"--verify-games", "0", "--champions", "0", "--admit-games", "8", "--db", db}
		if g == "amazons" {
			ext += " --board 8"
			args = append(args, "--board", "8")
		}
		_, stderr, code := runIn(t, dir, append(args, "--opponent", ext)...)
		if code != 0 {
			t.Fatal(stderr)
		}
		out, _, _ := runIn(t, dir, "generations", "1", "--json", "--db", db)
		if !strings.Contains(out, "cmd:") {
			t.Fatalf("%s: the external opponent is not in the pool:\n%s", g, out)
		}
		if _, err := exec.LookPath("sqlite3"); err == nil {
			n, err := exec.Command("sqlite3", filepath.Join(dir, db), "SELECT count(*) FROM games WHERE opponent LIKE 'cmd:%'").Output()
			if err != nil || strings.TrimSpace(string(n)) == "0" {
				t.Fatalf("%s: no games against the external engine (%s, %v)", g, n, err)
			}
		}
	}
	if _, stderr, code := runIn(t, dir, "tune", "--method", "ga", "--game", "gomoku", "--opponent", "engine.exe"); code == 0 || !strings.Contains(stderr, "cmd:PATH") {
		t.Fatalf("bad --opponent accepted: %s", stderr)
	}
}

// TestSwapOpeningMatch: a Swap2 match between a built-in player and an external engine
// that swaps whenever it is asked (a shell wrapper around 'evotune engine' answering
// SWAP2BOARD itself): the game the built-in player opens ends with it as White, and the
// match counts A's score with A's colour after the swap.
func TestSwapOpeningMatch(t *testing.T) {
	dir := t.TempDir()
	swapper := filepath.Join(dir, "swapper.sh")
	os.WriteFile(swapper, []byte(`#!/bin/sh
exec 3>&1
{ while IFS= read -r l; do
    case "$l" in
      SWAP2BOARD*) n=0
        while IFS= read -r s; do [ "$s" = DONE ] && break; n=$((n+1)); done
        if [ $n -eq 0 ]; then echo "7,7 8,7 9,9" >&3; else echo SWAP >&3; fi;;
      *) echo "$l";;
    esac
  done; } | "`+bin+`" engine --game gomoku --depth 2
`), 0o755)
	out, stderr, code := runIn(t, dir, "match", "--game", "gomoku", "--opening-rule", "swap2", "--a", "default", "--b", "cmd:"+swapper,
		"--games", "2", "--depth", "2", "--move-time", "2s", "--json", "--engine-log", filepath.Join(dir, "logs"))
	var m struct {
		Games []struct {
			AColour string  `json:"a_colour"`
			AScore  float64 `json:"a_score"`
			Record  struct {
				Outcome engine.Outcome `json:"outcome"`
				Moves   []string       `json:"moves"`
				Swapped bool           `json:"swapped"`
				Forfeit string         `json:"forfeit"`
			}
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &m) != nil || len(m.Games) != 2 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	for i, g := range m.Games {
		if g.Record.Forfeit != "" {
			t.Fatalf("game %d forfeited: %s", i, g.Record.Forfeit)
		}
	}
	// --engine-log: B's full transcript of each game, named by pair, game and B's colour in
	// the task, with what was sent (SWAP2BOARD) and read (SWAP).
	for _, name := range []string{"pair0000-game1-white.log", "pair0000-game2-black.log"} {
		b, err := os.ReadFile(filepath.Join(dir, "logs", name))
		if err != nil || !strings.Contains(string(b), "> SWAP2BOARD") || !strings.Contains(string(b), "< ") {
			t.Fatalf("engine log %s: %v\n%s", name, err, b)
		}
	}
	// Game 1: A (built-in) opens; the swapper takes Black: A plays White.
	if g := m.Games[0]; !g.Record.Swapped || g.AColour != "white" || len(g.Record.Moves) < 3 {
		t.Fatalf("A opened and B swapped: %+v", g)
	}
	// Game 2: the swapper opens with 7,7 8,7 9,9 (h8 i8 j6); A answers by its search.
	if g := m.Games[1]; strings.Join(g.Record.Moves[:3], " ") != "h8 i8 j6" {
		t.Fatalf("the swapper's proposal is not the opening: %v", g.Record.Moves)
	}
	for i, g := range m.Games {
		want := map[string]float64{"black": g.Record.Outcome.Score(engine.Black), "white": g.Record.Outcome.Score(engine.White)}
		if g.AScore != want[g.AColour] {
			t.Fatalf("game %d: A is %s, outcome %q, A scored %v", i, g.AColour, g.Record.Outcome, g.AScore)
		}
	}
}

// TestSaveAndContinue: games saved as .psq (Gomoku), .json and notation text are read back
// by --from, which replays them and plays on; a .psq of another game is refused.
func TestSaveAndContinue(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ game, file string }{{"gomoku", "g.psq"}, {"amazons", "a.json"}, {"connect6", "c.txt"}, {"gomoku", "g.json"}} {
		args := []string{"play", "--game", c.game, "--depth", "1", "--max-plies", "6", "--json"}
		if c.game == "amazons" {
			args = append(args, "--board", "8")
		}
		first, stderr, code := runIn(t, dir, append(args, "--save", c.file)...)
		if code != 0 {
			t.Fatalf("%s --save %s: %s", c.game, c.file, stderr)
		}
		second, stderr, code := runIn(t, dir, "play", "--game", c.game, "--depth", "1", "--max-plies", "9", "--from", c.file, "--json")
		if code != 0 {
			t.Fatalf("%s --from %s: %s", c.game, c.file, stderr)
		}
		var a, b struct{ Record struct{ Moves []string } }
		json.Unmarshal([]byte(first), &a)
		json.Unmarshal([]byte(second), &b)
		if len(a.Record.Moves) != 6 || len(b.Record.Moves) != 9 || strings.Join(b.Record.Moves[:6], " ") != strings.Join(a.Record.Moves, " ") {
			t.Fatalf("%s: saved %v, continued %v", c.file, a.Record.Moves, b.Record.Moves)
		}
	}
	if _, stderr, code := runIn(t, dir, "play", "--game", "connect6", "--from", "g.psq"); code == 0 || !strings.Contains(stderr, "Gomoku") {
		t.Fatalf("connect6 --from a .psq: exit %d, %q", code, stderr)
	}
}

// TestExportData: export-data writes every row of a table, as CSV with run_id first and as
// JSON lines, the counts equal to the database's; individuals carry their genome (operator,
// parents, a gene_NAME column per gene equal to genomes.genes); generations carry the count
// of openings and --table openings the openings; games at the run's depth export NULL depth;
// a bad table or format is refused.
func TestExportData(t *testing.T) {
	dir := t.TempDir()
	// Seed 3 admits a hall-of-fame member within 4 generations at these settings.
	if _, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "ga", "--selection", "race", "--pop", "6", "--games", "8", "--admit-games", "8", "--generations", "4", "--depth", "1",
		"--seed", "3", "--verify-games", "4", "--verify-every", "1"); code != 0 {
		t.Fatal(stderr)
	}
	raw, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "evotune.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	counts := map[string]string{"openings": "SELECT sum(json_array_length(openings)) FROM generations"}
	for _, table := range runview.ExportTables {
		query := counts[table]
		if query == "" {
			query = "SELECT count(*) FROM " + table
		}
		var n int
		raw.QueryRow(query).Scan(&n)
		out, stderr, code := runIn(t, dir, "export-data", "1", "--table", table)
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if code != 0 || err != nil || n == 0 || len(rows) != n+1 || rows[0][0] != "run_id" || rows[1][0] != "1" {
			t.Fatalf("%s csv: exit %d, %d rows for %d in the database, %v %s", table, code, len(rows), n, err, stderr)
		}
		out, _, code = runIn(t, dir, "export-data", "1", "--table", table, "--format", "jsonl")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var first map[string]any
		if code != 0 || len(lines) != n || json.Unmarshal([]byte(lines[0]), &first) != nil || first["run_id"] != 1.0 || len(first) != len(rows[0]) {
			t.Fatalf("%s jsonl: exit %d, %d lines for %d rows, first %v (csv has %d columns)", table, code, len(lines), n, first, len(rows[0]))
		}
		col := map[string]int{}
		for i, name := range rows[0] {
			col[name] = i
		}
		switch table {
		case "individuals":
			for _, r := range rows[1:] {
				var genes map[string]float64
				var op string
				raw.QueryRow("SELECT genes, operator FROM genomes WHERE id = ?", r[col["id"]]).Scan(new(jsonScan[map[string]float64]).into(&genes), &op)
				if len(genes) == 0 || r[col["operator"]] != op {
					t.Fatalf("individual %s: genes %v, operator %q vs %q", r[col["id"]], genes, r[col["operator"]], op)
				}
				for name, v := range genes {
					i, ok := col["gene_"+name]
					if got, err := strconv.ParseFloat(r[i], 64); !ok || err != nil || got != v {
						t.Fatalf("individual %s gene %s: column %v %q, genomes.genes %v", r[col["id"]], name, ok, r[i], v)
					}
				}
			}
		case "generations":
			if _, ok := col["openings"]; ok || rows[1][col["openings_count"]] == "0" {
				t.Fatalf("generations: columns %v, first row %v", rows[0], rows[1])
			}
		case "games":
			if rows[1][col["depth"]] != "" {
				t.Fatalf("games at the run's depth export depth %q, want empty (NULL)", rows[1][col["depth"]])
			}
		}
	}
	for _, bad := range [][]string{{"export-data", "1", "--table", "runs"}, {"export-data", "1", "--table", "games", "--format", "xml"}, {"export-data", "9", "--table", "games"}} {
		if _, stderr, code := runIn(t, dir, bad...); code == 0 || stderr == "" {
			t.Fatalf("%v accepted", bad)
		}
	}
}

// jsonScan scans a JSON text column into a value.
type jsonScan[T any] struct{ dst *T }

func (j *jsonScan[T]) into(dst *T) *jsonScan[T] { j.dst = dst; return j }

// Scan implements sql.Scanner.
func (j *jsonScan[T]) Scan(src any) error {
	switch s := src.(type) {
	case string:
		return json.Unmarshal([]byte(s), j.dst)
	case []byte:
		return json.Unmarshal(s, j.dst)
	}
	return fmt.Errorf("jsonScan: %T", src)
}

// TestCompletion: shell completion offers the games, the runs of --db with their names,
// and individual IDs by prefix.
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "ga", "--pop", "4", "--games", "4", "--generations", "1", "--depth", "2", "--verify-games", "0", "--name", "night"); code != 0 {
		t.Fatal(stderr)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "play", "--game", ""}, []string{"amazons", "connect6", "gomoku"}},
		{[]string{"__complete", "generations", ""}, []string{"1\tnight (gomoku, finished)"}},
		{[]string{"__complete", "lineage", "1-g1"}, []string{"1-g1-02\t", "1-g1-03\t"}},
		{[]string{"__complete", "export-data", "1", "--table", ""}, []string{"generations", "individuals", "games", "hall_of_fame", "checkpoints"}},
		{[]string{"__complete", "sensitivity", "--game", "connect6", "--genes", ""}, []string{"value_2", "threat_5"}},
		{[]string{"__complete", "tune", "--game", "amazons", "--fix", ""}, []string{"b_3", "switch_turn"}},
	} {
		out, stderr, code := runIn(t, dir, c.args...)
		for _, w := range c.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Fatalf("%v: exit %d, %q lacks %q (%s)", c.args, code, out, w, stderr)
			}
		}
	}
	if out, _, _ := runIn(t, dir, "__complete", "lineage", "1-g0"); strings.Contains(out, "1-g1-02") {
		t.Fatalf("the prefix does not filter: %q", out)
	}
}
