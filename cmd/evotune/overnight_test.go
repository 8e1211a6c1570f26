package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"evotune/db"
	"evotune/tuner"
	"evotune/tuner/config"
)

// tableDump is every row a run leaves that must not depend on interruptions.
func tableDump(t *testing.T, path string) string {
	t.Helper()
	d, err := db.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var sb strings.Builder
	for _, q := range []string{
		"SELECT generation, id, rank, fitness, wins, draws, losses, penta_0, penta_1, penta_2, penta_3, penta_4 FROM individuals ORDER BY generation, rank",
		"SELECT id, born_generation, operator, COALESCE(parent1,''), COALESCE(parent2,''), genes FROM genomes ORDER BY id",
		"SELECT generation, individual, opponent, opening, colour, result, plies, moves FROM games ORDER BY generation, individual, opening, colour",
		"SELECT generation, best_individual, opponents, openings, method_state, champion FROM generations ORDER BY generation",
		"SELECT status, generations_done, best_individual, COALESCE(verification,'') FROM runs",
	} {
		rows, err := d.SQL().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			rows.Scan(ptrs...)
			for _, v := range vals {
				sb.WriteString(fmtAny(v))
				sb.WriteByte('|')
			}
			sb.WriteByte('\n')
		}
		rows.Close()
	}
	return sb.String()
}

func fmtAny(v any) string {
	switch x := v.(type) {
	case []byte:
		return string(x)
	case nil:
		return "NULL"
	}
	return fmt.Sprint(v)
}

// committed returns the number of saved generations (0 if the database is not there yet).
func committed(path string) int {
	d, err := db.OpenReadOnly(context.Background(), path)
	if err != nil {
		return 0
	}
	defer d.Close()
	var n int
	d.SQL().QueryRow("SELECT count(*) FROM generations").Scan(&n)
	return n
}

// integrity checks what a crash must never break.
func integrity(t *testing.T, path string, pop int) {
	t.Helper()
	d, err := db.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var ok string
	d.SQL().QueryRow("PRAGMA integrity_check").Scan(&ok)
	var orphans, badGens, fk int
	d.SQL().QueryRow(`SELECT count(*) FROM genomes g WHERE (parent1 IS NOT NULL AND parent1 NOT IN (SELECT id FROM genomes))
		OR (parent2 IS NOT NULL AND parent2 NOT IN (SELECT id FROM genomes))`).Scan(&orphans)
	d.SQL().QueryRow(`SELECT count(*) FROM generations g WHERE (SELECT count(*) FROM individuals i WHERE i.run_id = g.run_id AND i.generation = g.generation) != ?`, pop).Scan(&badGens)
	rows, _ := d.SQL().Query("PRAGMA foreign_key_check")
	for rows.Next() {
		fk++
	}
	rows.Close()
	if ok != "ok" || orphans != 0 || badGens != 0 || fk != 0 {
		t.Fatalf("%s: integrity %q, %d orphan parents, %d half-written generations, %d foreign-key violations", path, ok, orphans, badGens, fk)
	}
}

// TestKillResume: SIGKILL a tune mid-generation, for every search method; the database
// stays whole, the run shows as interrupted, and resume ends exactly as an uninterrupted
// run.
func TestKillResume(t *testing.T) {
	t.Parallel() // mostly waiting (brokers, timeouts, processes): overlaps the others
	common := []string{"tune", "--game", "amazons", "--board", "8", "--depth", "2", "--width", "5", "--seed", "3", "--verify-games", "4"}
	for _, m := range []struct {
		method string
		args   []string
	}{
		{config.MethodGA, []string{"--pop", "6", "--generations", "4", "--games", "4", "--admit-games", "8"}},
		{config.MethodSPSA, []string{"--budget-games", "48", "--spsa-pairs", "2"}},
		{config.MethodCMAES, []string{"--budget-games", "120", "--cmaes-pairs", "1"}},
		{config.MethodSteady, []string{"--pop", "6", "--budget-games", "220", "--games", "4"}},
		// On the run loop; then with a hall of fame (this seed's run admits two members, one
		// of them defended).
		{config.MethodGA, []string{"--pop", "6", "--generations", "5", "--games", "4", "--ga-lag", "2"}},
		{config.MethodGA, []string{"--pop", "6", "--generations", "6", "--games", "4", "--ga-lag", "1", "--champion", "centre", "--admit-games", "8", "--admit-z", "0", "--seed", "5"}},
	} {
		name := m.method
		if slices.Contains(m.args, "--ga-lag") {
			name += "-lag"
		}
		if slices.Contains(m.args, "--champion") {
			name += "-hall" // the lagged hall of fame: its members and tests read back from the database
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if len(tuner.Methods) != 4 {
				t.Fatalf("%d methods registered: add the new one to this table", len(tuner.Methods))
			}
			if m.method != config.MethodSPSA {
				long(t, "the same checkpoints and resume through another method: 20 to 40 s each")
			}
			killResume(t, append(append(common, "--method", m.method), m.args...))
		})
	}
}

func killResume(t *testing.T, args []string) {
	dir := t.TempDir()
	if _, stderr, code := run(t, dir, append(args, "--db", "full.db")...); code != 0 {
		t.Fatal(stderr)
	}
	full := filepath.Join(dir, "full.db")
	gens := committed(full)
	var pop int
	if d, err := db.OpenReadOnly(context.Background(), full); err == nil {
		d.SQL().QueryRow("SELECT count(*) FROM individuals WHERE generation = 0").Scan(&pop)
		d.Close()
	}
	if gens < 4 || pop < 2 {
		t.Fatalf("the uninterrupted run saved %d generations of %d individuals", gens, pop)
	}
	kill := filepath.Join(dir, "kill.db")
	cmd := exec.Command(bin, append(args, "--db", "kill.db")...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for committed(kill) < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	n := committed(kill)
	if n < 2 || n > gens {
		t.Fatalf("%d generations committed at the kill (of %d)", n, gens)
	}
	integrity(t, kill, pop)
	out, _, _ := run(t, dir, "runs", "--db", "kill.db")
	if n < gens && !strings.Contains(out, "interrupted") {
		t.Fatalf("a killed run is not shown as interrupted:\n%s", out)
	}
	if _, stderr, code := run(t, dir, "resume", "1", "--db", "kill.db", "--workers", "1"); code != 0 {
		t.Fatalf("resume: %s", stderr)
	}
	integrity(t, kill, pop)
	if a, b := tableDump(t, full), tableDump(t, kill); a != b {
		t.Fatalf("killed-and-resumed run differs from the uninterrupted one:\n%s\n----\n%s", a, b)
	}
	if _, stderr, code := run(t, dir, "resume", "1", "--db", "kill.db"); code == 0 || !strings.Contains(stderr, "already finished") {
		t.Fatalf("resume of a finished run: %s", stderr)
	}
	t.Logf("killed after %d of %d generations; resumed to the same tables", n, gens)
}

// TestInterruptStops: SIGINT stops a tune promptly with a non-zero status, marks the run
// stopped, keeps the saved generations, and the run resumes to the same end.
func TestInterruptStops(t *testing.T) {
	dir := t.TempDir()
	args := []string{"tune", "--game", "gomoku", "--method", "ga", "--pop", "6", "--generations", "30", "--games", "4", "--seed", "5", "--verify-games", "0"}
	cmd := exec.Command(bin, append(args, "--db", "int.db")...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "int.db")
	deadline := time.Now().Add(60 * time.Second)
	for committed(path) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	// Promptly: stopped before its 30 generations (a result, not a clock on a loaded
	// machine).
	if n := committed(path); n >= 31 {
		t.Fatalf("SIGINT did not stop the run: %d generations saved", n)
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() == 0 {
		t.Fatalf("stopped run exited with %v", err)
	}
	if !strings.Contains(stderr.String(), "evotune resume 1") {
		t.Fatalf("no resume hint: %s", stderr.String())
	}
	out, _, _ := run(t, dir, "runs", "--db", "int.db")
	if !strings.Contains(out, "stopped") {
		t.Fatalf("status after SIGINT:\n%s", out)
	}
	integrity(t, path, 6)
}

// TestReadersDuringTune: the CLI's readers and the sqlite3 shell read while tune writes;
// none fails with "database is locked", and the tune finishes normally.
func TestReadersDuringTune(t *testing.T) {
	long(t, "readers polling through a 12-generation tune: about 20 s")
	dir := t.TempDir()
	cmd := exec.Command(bin, "tune", "--game", "gomoku", "--method", "ga", "--pop", "8", "--generations", "12", "--games", "4", "--db", "r.db", "--verify-games", "0")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	path := filepath.Join(dir, "r.db")
	for committed(path) < 1 {
		time.Sleep(10 * time.Millisecond)
	}
	_, shellErr := exec.LookPath("sqlite3")
	reads := 0
	for finished := false; !finished; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("tune failed with readers around: %v", err)
			}
			finished = true
			continue
		default:
		}
		for _, args := range [][]string{{"runs"}, {"generations", "1"}, {"lineage", "1-g0-00"}, {"export", "1", "--out", "x.json", "--force"}, {"individual", "1-g0-00"}} {
			_, stderr, code := runIn(t, dir, append(args, "--db", "r.db")...)
			if code != 0 {
				t.Fatalf("evotune %v during the run: %s", args, stderr)
			}
			reads++
		}
		if shellErr == nil {
			out, err := exec.Command("sqlite3", path, "SELECT count(*) FROM games; SELECT * FROM generation_summary;").CombinedOutput()
			if err != nil || strings.Contains(string(out), "locked") {
				t.Fatalf("sqlite3 during the run: %v %s", err, out)
			}
			reads++
		}
	}
	if reads < 10 {
		t.Fatalf("only %d reads happened during the run", reads)
	}
	integrity(t, path, 8)
}

// TestBadDatabaseInput is the database half of the bad-input catalogue: each case gives a
// message naming the problem, a non-zero exit, no panic, and leaves the files as they were.
func TestBadDatabaseInput(t *testing.T) {
	dir := t.TempDir()
	tiny := []string{"--method", "ga", "--pop", "4", "--generations", "1", "--games", "2", "--verify-games", "0"}
	if _, stderr, code := runIn(t, dir, append([]string{"tune", "--game", "gomoku", "--db", "good.db"}, tiny...)...); code != 0 {
		t.Fatal(stderr)
	}
	good := filepath.Join(dir, "good.db")
	data, _ := os.ReadFile(good)
	os.WriteFile(filepath.Join(dir, "trunc.db"), data[:len(data)/2], 0o644)
	os.WriteFile(filepath.Join(dir, "text.db"), []byte(strings.Repeat("not sqlite\n", 500)), 0o644)
	newer, _ := os.ReadFile(good)
	os.WriteFile(filepath.Join(dir, "newer.db"), newer, 0o644)
	if out, err := exec.Command("sqlite3", filepath.Join(dir, "newer.db"), "PRAGMA user_version = 42").CombinedOutput(); err != nil {
		t.Skipf("sqlite3 shell needed to make a newer-schema file: %v %s", err, out)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"runs", "--db", "trunc.db"}, "corrupt or truncated"},
		{append([]string{"tune", "--game", "gomoku", "--db", "trunc.db"}, tiny...), "corrupt or truncated"},
		{[]string{"runs", "--db", "text.db"}, "not an SQLite database"},
		{[]string{"runs", "--db", "newer.db"}, "schema version 42 is newer than this program"},
		{append([]string{"tune", "--game", "gomoku", "--db", "newer.db"}, tiny...), "schema version 42 is newer"},
		{[]string{"generations", "7", "--db", "good.db"}, "run 7: not found"},
		{[]string{"individual", "1-g9-99", "--db", "good.db"}, "individual 1-g9-99: not found"},
		{[]string{"lineage", "1-g9-99", "--db", "good.db"}, "individual 1-g9-99: not found"},
		{[]string{"export", "1", "--individual", "1-g9-99", "--db", "good.db", "--out", "x.json"}, "not found"},
		{[]string{"export", "1", "--db", "good.db", "--out", filepath.Join("missing", "x.json")}, "--out"},
		{[]string{"export", "1", "--individual", "2-g0-00", "--db", "good.db", "--out", "x.json"}, "belongs to run 2"},
		{[]string{"resume", "9", "--db", "good.db"}, "run 9: not found"},
		{[]string{"runs", "--db", "nowhere.db"}, "nowhere.db"},
		{append([]string{"tune", "--game", "gomoku", "--db", filepath.Join("nodir", "t.db")}, tiny...), "directory"},
	}
	before := tableDump(t, good)
	for _, tc := range cases {
		_, stderr, code := runIn(t, dir, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("evotune %v: exit %d, %q; want non-zero and %q", tc.args, code, stderr, tc.want)
		}
	}
	if tableDump(t, good) != before {
		t.Fatal("a failed command changed the good database")
	}
	for _, leftover := range []string{"x.json", "missing", "nodir"} {
		if _, err := os.Stat(filepath.Join(dir, leftover)); err == nil {
			t.Errorf("a failed command left %s behind", leftover)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "trunc.db")); len(got) != len(data)/2 {
		t.Error("a failed tune modified the truncated file")
	}
}

// TestReadOnlyDatabase: a database (or directory) that cannot be written gives a clear
// error and is left as it was. Root ignores permission bits, so the file is made
// immutable with chattr where the file system supports it.
func TestReadOnlyDatabase(t *testing.T) {
	dir := t.TempDir()
	tiny := []string{"--method", "ga", "--pop", "4", "--generations", "1", "--games", "2", "--verify-games", "0"}
	if _, stderr, code := runIn(t, dir, append([]string{"tune", "--game", "gomoku", "--db", "ro.db"}, tiny...)...); code != 0 {
		t.Fatal(stderr)
	}
	path := filepath.Join(dir, "ro.db")
	if os.Geteuid() != 0 {
		os.Chmod(path, 0o444)
		defer os.Chmod(path, 0o644)
	} else if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("cannot make a read-only file here (root, chattr: %v %s)", err, out)
	} else {
		defer exec.Command("chattr", "-i", path).Run()
	}
	before := tableDump(t, path)
	_, stderr, code := runIn(t, dir, append([]string{"tune", "--game", "gomoku", "--db", "ro.db"}, tiny...)...)
	if code == 0 || !strings.Contains(stderr, "read-only") {
		t.Fatalf("tune into a read-only database: exit %d, %q", code, stderr)
	}
	if out, _, code := runIn(t, dir, "runs", "--db", "ro.db"); code != 0 || !strings.Contains(out, "finished") {
		t.Fatalf("reading a read-only database failed: %s", out)
	}
	if tableDump(t, path) != before {
		t.Fatal("the read-only database changed")
	}
	// A read-only directory: no new database can be made in it.
	sub := filepath.Join(dir, "locked")
	os.Mkdir(sub, 0o755)
	if os.Geteuid() == 0 {
		if err := exec.Command("chattr", "+i", sub).Run(); err != nil {
			t.Skip("chattr on a directory is not supported here")
		}
		defer exec.Command("chattr", "-i", sub).Run()
	} else {
		os.Chmod(sub, 0o555)
		defer os.Chmod(sub, 0o755)
	}
	_, stderr, code = runIn(t, dir, append([]string{"tune", "--game", "gomoku", "--db", filepath.Join("locked", "new.db")}, tiny...)...)
	if code == 0 || !strings.Contains(stderr, "no permission") {
		t.Fatalf("tune into a read-only directory: exit %d, %q", code, stderr)
	}
	if entries, _ := os.ReadDir(sub); len(entries) != 0 {
		t.Fatalf("files left in the read-only directory: %v", entries)
	}
}
