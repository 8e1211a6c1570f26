package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"evotune/engine"
)

// TestLadderBuiltin: tune's verification ladder on the built-in gomoku engine plays every
// rung asked for — the tuning condition, a depth, a node count, a chess clock, a time per
// move and another engine — in that order, stores one row per rung (the same numbers as
// the run's headline ladder), prints the table, and the exported weights file carries
// the ladder in its provenance; verify --json lists the rungs, each with its Elo.
func TestLadderBuiltin(t *testing.T) {
	dir := t.TempDir()
	opp := "cmd:" + bin + " engine --game gomoku --depth 1"
	out, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "spsa", "--budget-games", "64", "--depth", "1", "--verify-games", "8",
		"--verify-depth", "2", "--verify-nodes", "300", "--verify-tc", "0.5+0.01", "--verify-move-time", "5ms", "--verify-opponent", opp,
		"--verify-rung-games", "4", "--db", "l.db")
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, stderr)
	}
	path := filepath.Join(dir, "l.db")
	want := []string{"0|tuning|the tuning condition|8", "1|depth|depth 2|4", "2|nodes|nodes 300|4", "3|tc|tc 0.5+0.01|4",
		"4|movetime|movetime 0.005 s|4", "5|opponent|" + opp + "|4"}
	got := strings.Split(sqlite(t, path, `SELECT rung || '|' || kind || '|' || condition || '|' || games FROM rung_list WHERE verification_id = 1 ORDER BY rung`), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("stored rungs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The rows and the headline's ladder agree, rung by rung.
	var head struct {
		Elo    float64 `json:"elo"`
		Ladder []struct {
			Rung          int     `json:"rung"`
			Elo           float64 `json:"elo"`
			Holds         string  `json:"holds"`
			BaselineMatch *struct {
				Games int `json:"games"`
			} `json:"baseline_match"`
		} `json:"ladder"`
	}
	if err := json.Unmarshal([]byte(sqlite(t, path, "SELECT verification FROM runs")), &head); err != nil || len(head.Ladder) != 5 {
		t.Fatalf("headline ladder: %v, %d rungs", err, len(head.Ladder))
	}
	for _, r := range head.Ladder {
		row := sqlite(t, path, "SELECT printf('%.6f', elo) || ' ' || holds FROM rung_list WHERE verification_id = 1 AND rung = "+strconv.Itoa(r.Rung))
		if row != fmt.Sprintf("%.6f %s", r.Elo, r.Holds) {
			t.Errorf("rung %d: row %q, headline %.6f %s", r.Rung, row, r.Elo, r.Holds)
		}
	}
	if b := head.Ladder[4].BaselineMatch; b == nil || b.Games != 4 {
		t.Errorf("the opponent rung has no baseline match of 4 games: %+v", b)
	}
	for _, s := range []string{"proof ladder of ", "  5     " + opp, "rung 3, tc 0.5+0.01:", "the baseline against " + opp + ":"} {
		if !strings.Contains(out, s) {
			t.Errorf("tune's output lacks %q:\n%s", s, out)
		}
	}
	if !strings.Contains(stderr, "verification rung 4/6 of ") || !strings.Contains(stderr, "at tc 0.5+0.01") {
		t.Errorf("progress does not name the rungs:\n%s", stderr)
	}
	// The export's provenance carries the ladder.
	if _, stderr, code := runIn(t, dir, "export", "1", "--db", "l.db", "--out", "w.json"); code != 0 {
		t.Fatalf("export: %s", stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "w.json"))
	if err != nil {
		t.Fatal(err)
	}
	var wf engine.WeightsFile
	if err := json.Unmarshal(data, &wf); err != nil || wf.Provenance == nil || len(wf.Provenance.Proof) != 6 {
		t.Fatalf("exported provenance: %v\n%s", err, data)
	}
	if p := wf.Provenance.Proof[3]; p.Condition != "tc 0.5+0.01" || p.Games != 4 || p.Holds == "" {
		t.Errorf("exported proof rung 3: %+v", p)
	}
	// verify --json: one short row per rung, each with its Elo (or null).
	jout, stderr, code := runIn(t, dir, "verify", "1", "--games", "4", "--verify-depth", "2", "--json", "--db", "l.db")
	if code != 0 {
		t.Fatalf("verify --json: %s", stderr)
	}
	var vj struct {
		Rungs []struct {
			Rung      int      `json:"rung"`
			Kind      string   `json:"kind"`
			Condition string   `json:"condition"`
			Elo       *float64 `json:"elo"`
			Games     int      `json:"games"`
		} `json:"rungs"`
	}
	if err := json.Unmarshal([]byte(jout), &vj); err != nil || len(vj.Rungs) != 2 || vj.Rungs[1].Condition != "depth 2" || vj.Rungs[1].Kind != "depth" ||
		(vj.Rungs[1].Games > 0) != (vj.Rungs[1].Elo != nil) {
		t.Fatalf("verify --json rungs: %v %+v\n%s", err, vj.Rungs, jout)
	}
	// An opponent that does not start is refused before any rung is played or stored.
	writeFile(t, dir, "crash.sh", "#!/bin/sh\necho hello; exit 3\n")
	os.Chmod(filepath.Join(dir, "crash.sh"), 0o755)
	before := sqlite(t, path, "SELECT count(*) FROM verification_rungs")
	_, stderr, code = runIn(t, dir, "verify", "1", "--games", "4", "--verify-opponent", "cmd:./crash.sh", "--db", "l.db")
	if code == 0 || !strings.Contains(stderr, "--verify-opponent 1: start-up check") || !strings.Contains(stderr, "hello") {
		t.Fatalf("verify against an opponent that does not start: exit %d\n%s", code, stderr)
	}
	if after := sqlite(t, path, "SELECT count(*) FROM verification_rungs"); after != before {
		t.Fatalf("a refused ladder stored rungs: %s before, %s after", before, after)
	}
}

// TestLadderKilled: a verify ladder killed (SIGKILL) during its second rung, or during its
// third, and then asked again continues from the rungs it stored — it does not play them
// again — and ends with the ladder an uninterrupted verify stores, rung for rung.
func TestLadderKilled(t *testing.T) {
	long(t, "three verification ladders of 3 rungs, two of them killed")
	dir := t.TempDir()
	if _, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "spsa", "--budget-games", "64", "--depth", "1", "--verify-games", "0", "--db", "base.db"); code != 0 {
		t.Fatal(stderr)
	}
	verify := func(db string) []string {
		return []string{"verify", "1", "--games", "200", "--sprt", "elo0=0,elo1=1000,alpha=0.001,beta=0.001", "--verify-depth", "3", "--verify-nodes", "3000", "--db", db}
	}
	ladder := func(db string) string {
		return sqlite(t, filepath.Join(dir, db), `SELECT group_concat(rung || ' ' || kind || ' ' || result, char(10)) FROM
			(SELECT rung, kind, result FROM verification_rungs WHERE verification_id = (SELECT max(id) FROM verifications) ORDER BY rung)`)
	}
	sqlite(t, filepath.Join(dir, "base.db"), "VACUUM INTO '"+filepath.Join(dir, "whole.db")+"'")
	if _, stderr, code := run(t, dir, verify("whole.db")...); code != 0 {
		t.Fatalf("uninterrupted verify: %s", stderr)
	}
	want := ladder("whole.db")
	if strings.Count(want, "\n") != 2 {
		t.Fatalf("the uninterrupted ladder has not 3 rungs:\n%s", want)
	}
	for _, kill := range []string{"rung 2/3", "rung 3/3"} {
		db := strings.ReplaceAll(kill, "/", "of") + ".db"
		sqlite(t, filepath.Join(dir, "base.db"), "VACUUM INTO '"+filepath.Join(dir, db)+"'")
		cut, out := start(t, dir, verify(db)...)
		waitFor(t, out, kill)
		cut.Process.Signal(syscall.SIGKILL)
		cut.Wait()
		stored := sqlite(t, filepath.Join(dir, db), "SELECT count(*) FROM verifications")
		pending := sqlite(t, filepath.Join(dir, db), "SELECT count(*) FROM verification_rungs WHERE verification_id IS NULL")
		if stored != "0" || pending == "0" {
			t.Fatalf("killed at %q: %s verifications stored, %s rungs pending (the ladder ended before the kill?)\n%s", kill, stored, pending, out.String())
		}
		_, stderr, code := run(t, dir, verify(db)...)
		if code != 0 {
			t.Fatalf("verify again after the kill at %q: %s", kill, stderr)
		}
		if !strings.Contains(stderr, pending+" of this ladder's 3 rungs were played before it stopped") {
			t.Errorf("verify again after the kill at %q does not say it kept %s rungs:\n%s", kill, pending, stderr)
		}
		if got := ladder(db); got != want {
			t.Errorf("killed at %q and continued:\n%s\nuninterrupted:\n%s", kill, got, want)
		}
		if n := sqlite(t, filepath.Join(dir, db), "SELECT count(*) FROM verification_rungs"); n != "3" {
			t.Errorf("killed at %q: %s rung rows, want 3 (none played twice)", kill, n)
		}
	}
	// tune's own ladder, killed during its second rung, continues on resume: its first
	// rung is kept, and the resumed ladder ends as the uninterrupted verify's.
	tune := []string{"tune", "--game", "gomoku", "--method", "spsa", "--budget-games", "64", "--depth", "1", "--verify-games", "200", "--verify-depth", "3",
		"--verify-nodes", "3000", "--db", "tune.db"}
	cut, out := start(t, dir, tune...)
	waitFor(t, out, "verification rung 2/3")
	cut.Process.Signal(syscall.SIGKILL)
	cut.Wait()
	kept := sqlite(t, filepath.Join(dir, "tune.db"), "SELECT group_concat(rung || ' ' || created_at) FROM verification_rungs WHERE verification_id IS NULL")
	if !strings.HasPrefix(kept, "0 ") {
		t.Fatalf("tune killed during its second rung kept rungs %q", kept)
	}
	if _, stderr, code := run(t, dir, "resume", "1", "--db", "tune.db"); code != 0 {
		t.Fatalf("resume: %s", stderr)
	}
	if got := sqlite(t, filepath.Join(dir, "tune.db"), "SELECT group_concat(rung || ' ' || created_at) FROM verification_rungs WHERE rung = 0"); got != kept {
		t.Errorf("the resumed tune played its first rung again: %q, kept %q", got, kept)
	}
	if n := sqlite(t, filepath.Join(dir, "tune.db"), "SELECT count(*) FROM verification_rungs WHERE verification_id = 1"); n != "3" {
		t.Errorf("the resumed tune's ladder has %s rungs, want 3", n)
	}
}

// TestLadderOutside: an outside Gomocup engine's run is verified on a ladder of a chess
// clock (INFO time_left) and a time per move; a depth or node rung, which Gomocup cannot
// carry, is refused before anything is played or stored, with the rungs it can play.
func TestLadderOutside(t *testing.T) {
	dir := t.TempDir()
	toy := toyEngine(t, dir)
	engineCmd := "cmd:" + toy + " -params {weights}"
	if _, stderr, code := runIn(t, dir, "tune", "--layout", "toy.yaml", "--engine", engineCmd, "--method", "spsa", "--budget-games", "64",
		"--verify-games", "0", "--seed", "7", "--db", "toy.db"); code != 0 {
		t.Fatal(stderr)
	}
	for _, flag := range []string{"--verify-depth", "--verify-nodes"} {
		_, stderr, code := runIn(t, dir, "verify", "1", "--games", "4", flag, "3", "--allow-engine", engineCmd, "--db", "toy.db")
		if code == 0 || !strings.Contains(stderr, flag+": the engine speaks gomocup, which has no depth or node limit") || !strings.Contains(stderr, "--verify-move-time S and --verify-tc") {
			t.Errorf("verify %s 3 on a Gomocup engine: exit %d\n%s", flag, code, stderr)
		}
	}
	if n := sqlite(t, filepath.Join(dir, "toy.db"), "SELECT count(*) FROM verification_rungs"); n != "0" {
		t.Fatalf("a refused ladder stored %s rungs", n)
	}
	out, stderr, code := runIn(t, dir, "verify", "1", "--games", "8", "--verify-tc", "2+0.02", "--verify-move-time", "20ms", "--allow-engine", engineCmd, "--db", "toy.db")
	if code != 0 {
		t.Fatalf("verify with a clock and a move time: exit %d\n%s\n%s", code, out, stderr)
	}
	got := sqlite(t, filepath.Join(dir, "toy.db"), `SELECT group_concat(condition || ':' || games, ', ') FROM (SELECT condition, games FROM rung_list WHERE verification_id = 1 ORDER BY rung)`)
	if got != "the tuning condition:8, tc 2+0.02:8, movetime 0.02 s:8" {
		t.Fatalf("stored rungs %q\n%s", got, out)
	}
	if forfeits := sqlite(t, filepath.Join(dir, "toy.db"), "SELECT count(*) FROM rung_list WHERE verification_id = 1 AND games < 8"); forfeits != "0" {
		t.Fatalf("%s rungs lost games", forfeits)
	}
}

// TestLadderBadInput: ladder settings that cannot be played are refused before the run or
// the verification starts, each naming the setting: an opponent without cmd:, one that is
// not a program, options with no opponent, a clock that does not parse.
func TestLadderBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--verify-opponent", "/usr/bin/true"}, `--verify-opponent: "/usr/bin/true" (entry 1): want cmd:PATH ARGS, an engine's command line after cmd: ("cmd:/usr/bin/true")`},
		{[]string{"--verify-opponent", "cmd:/no/such/engine"}, "--verify-opponent: cmd:/no/such/engine: cannot run it"},
		{[]string{"--verify-opponent-option", "Skill Level=3"}, "--verify-opponent-option: no --verify-opponent to give them to"},
		{[]string{"--verify-tc", "fast"}, `--verify-tc: time control "fast"`},
		{[]string{"--verify-rung-games", "3"}, "--verify-rung-games: 3, want 0"},
	} {
		args := append([]string{"tune", "--game", "gomoku", "--method", "spsa", "--budget-games", "64", "--depth", "1", "--db", "bad.db"}, c.args...)
		_, stderr, code := runIn(t, dir, args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("tune %v: exit %d, want %q in:\n%s", c.args, code, c.want, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "bad.db")); err == nil {
			t.Fatalf("tune %v: a refused run created its database", c.args)
		}
	}
}

// TestForfeitValues: an outside engine that crashes at some values (the test engine with
// PBRAIN_TOY_CRASH_ABOVE: whenever its attack is above 1.3) loses those games by forfeit,
// and each such row names the player that crashed and holds the values it crashed with —
// every one of them above 1.3, and no game of a player below it forfeited; the exported
// game records carry them, and verify --engine-log heads each engine's transcript with its
// values.
func TestForfeitValues(t *testing.T) {
	dir := t.TempDir()
	toy := toyEngine(t, dir)
	engineCmd := "cmd:" + toy + " -params {weights}"
	setEnv(t, "PBRAIN_TOY_CRASH_ABOVE", "1.3")
	out, stderr, code := run(t, dir, "tune", "--layout", "toy.yaml", "--engine", engineCmd, "--method", "spsa", "--budget-games", "128",
		"--verify-games", "0", "--seed", "7", "--db", "f.db")
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, stderr)
	}
	path := filepath.Join(dir, "f.db")
	forfeits := sqlite(t, path, "SELECT count(*) FROM games WHERE forfeit IS NOT NULL")
	if forfeits == "0" || !strings.Contains(out, forfeits+" of the run's 128 games were lost by a forfeit") {
		t.Fatalf("%s forfeits; tune said:\n%s", forfeits, out)
	}
	// Each forfeit names the loser, an individual of the game, whose stored values crash.
	if bad := sqlite(t, path, `SELECT count(*) FROM games WHERE forfeit IS NOT NULL AND (forfeit_by != CASE WHEN score = 0 THEN individual ELSE opponent END
		OR json_extract(forfeit_values, '$.attack') <= 1.3 OR forfeit_values != (SELECT genes FROM genomes g WHERE g.run_id = games.run_id AND g.id = games.forfeit_by))`); bad != "0" {
		t.Fatalf("%s of %s forfeits do not name the player that crashed with its values", bad, forfeits)
	}
	if bad := sqlite(t, path, `SELECT count(*) FROM games WHERE forfeit IS NULL AND forfeit_by IS NOT NULL`); bad != "0" {
		t.Fatalf("%s games played to the end name a forfeiter", bad)
	}
	if _, stderr, code := runIn(t, dir, "export-games", "1", "--format", "json", "--out", "games", "--db", "f.db"); code != 0 {
		t.Fatal(stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "games", "*.json"))
	withValues := 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		var g struct {
			Forfeit       string             `json:"forfeit"`
			ForfeitValues map[string]float64 `json:"forfeit_values"`
		}
		if err := json.Unmarshal(data, &g); err != nil {
			t.Fatal(err)
		}
		if (g.Forfeit != "") != (g.ForfeitValues != nil) || (g.ForfeitValues != nil && g.ForfeitValues["attack"] <= 1.3) {
			t.Fatalf("%s: forfeit %q with values %v", f, g.Forfeit, g.ForfeitValues)
		}
		if g.ForfeitValues != nil {
			withValues++
		}
	}
	if strconv.Itoa(withValues) != forfeits {
		t.Fatalf("%d exported records carry values, %s forfeits", withValues, forfeits)
	}
	// verify --engine-log: each transcript starts with the values of the engine.
	if _, stderr, code := run(t, dir, "verify", "1", "--games", "2", "--engine-log", "logs", "--allow-engine", engineCmd, "--db", "f.db"); code != 0 {
		t.Fatalf("verify --engine-log: %s", stderr)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "logs", "rung0", "*.log"))
	if len(logs) != 4 {
		t.Fatalf("%d engine logs, want 4 (2 games, 2 engines): %v", len(logs), logs)
	}
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		if !regexp.MustCompile(`(?m)^ +[0-9.]+ # values: attack=[0-9.]+, defence=[0-9.]+, centre=[0-9.]+, base=[0-9.]+$`).Match(data) {
			t.Fatalf("%s has no values line:\n%s", l, data)
		}
	}
}

// TestStopWhenProven: with --stop-when-proven 2, a run with checkpoints ends before its
// budget at the first checkpoint whose SPRT accepts H1 once the last 2 checkpoints are no
// better than the best before them — the stored checkpoints say so — and says why; the
// flag without checkpoints is refused.
func TestStopWhenProven(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "spsa", "--depth", "1", "--budget-games", "40000", "--verify-every", "20",
		"--verify-games", "1000", "--stop-when-proven", "2", "--db", "p.db")
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s", code, stderr)
	}
	path := filepath.Join(dir, "p.db")
	games, _ := strconv.Atoi(sqlite(t, path, "SELECT sum(games) FROM generations"))
	if games >= 40000 || !strings.Contains(out, "stopped early, proven: the check at generation ") || !strings.Contains(out, "accepted H1") {
		t.Fatalf("%d games of 40000; tune said:\n%s", games, out)
	}
	var elos []float64
	for _, e := range strings.Split(sqlite(t, path, "SELECT elo FROM checkpoints WHERE games > 0 ORDER BY generation"), "\n") {
		x, err := strconv.ParseFloat(e, 64)
		if err != nil {
			t.Fatal(err)
		}
		elos = append(elos, x)
	}
	n := len(elos)
	if n < 3 || max(elos[n-1], elos[n-2]) > slices.Max(elos[:n-2]) {
		t.Fatalf("the run stopped at checkpoints %v: the last 2 improved on the best before them", elos)
	}
	if last := sqlite(t, path, "SELECT max(generation) FROM generations"); !strings.Contains(out, "the check at generation "+last+" accepted H1") {
		t.Fatalf("the run's last generation is %s; tune said:\n%s", last, out)
	}
	_, stderr, code = runIn(t, dir, "tune", "--game", "gomoku", "--method", "spsa", "--depth", "1", "--budget-games", "400", "--stop-when-proven", "2", "--db", "q.db")
	if code == 0 || !strings.Contains(stderr, "--stop-when-proven: needs verify_every > 0") {
		t.Fatalf("--stop-when-proven without checkpoints: exit %d\n%s", code, stderr)
	}
}

// TestHeadlineChoicePlaysNoGame: a verify asked again as it was (the same ladder) plays no
// game and stores no verification: --headline latest only makes it the run's headline.
func TestHeadlineChoicePlaysNoGame(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--budget-games", "300", "--depth", "1", "--verify-games", "60", "--db", "h.db"); code != 0 {
		t.Fatalf("tune: exit %d\n%s", code, stderr)
	}
	args := []string{"verify", "1", "--games", "20", "--verify-depth", "2", "--db", "h.db"}
	out, stderr, code := runIn(t, dir, args...)
	if code != 0 || !strings.Contains(out, "stored as verification 2 of run 1; verification 1 stays the run's headline") {
		t.Fatalf("verify: exit %d\n%s\n%s", code, out, stderr)
	}
	out, stderr, code = runIn(t, dir, append(args, "--headline", "latest")...)
	if code != 0 || !strings.Contains(stderr, "this ladder was played as verification 2") || strings.Contains(stderr, "games/s") ||
		!strings.Contains(out, "verification 2 of run 1; this verification is now the run's headline") {
		t.Fatalf("the same verify with --headline latest: exit %d, want no game played and verification 2 the headline\n%s\n%s", code, out, stderr)
	}
	n := sqlite(t, filepath.Join(dir, "h.db"), "SELECT count(*) || ' ' || json_extract(verification, '$.verification_id') FROM verifications, runs WHERE runs.id = 1")
	if n != "2 2" {
		t.Fatalf("verifications and the headline: %q, want 2 verifications, the headline 2", n)
	}
	// Other games play another ladder.
	if out, _, code := runIn(t, dir, "verify", "1", "--games", "24", "--verify-depth", "2", "--db", "h.db"); code != 0 || !strings.Contains(out, "stored as verification 3") {
		t.Fatalf("verify with other games: exit %d\n%s", code, out)
	}
}
