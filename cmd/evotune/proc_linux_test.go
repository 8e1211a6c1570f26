//go:build linux

package main

import (
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestZombieIsNotAlive: a process that has exited but is not yet reaped (a killed tune
// whose parent has not waited) takes signal 0 like a live one; it neither counts as alive
// nor blocks resume of the run it held.
func TestZombieIsNotAlive(t *testing.T) {
	if !processAlive(os.Getpid()) {
		t.Fatal("this test's own process is not alive")
	}
	z := exec.Command("sh", "-c", "exit 0")
	if err := z.Start(); err != nil {
		t.Fatal(err)
	}
	defer z.Wait()
	for deadline := time.Now().Add(30 * time.Second); processState(z.Process.Pid) != 'Z'; {
		if time.Now().After(deadline) {
			t.Fatalf("process %d never became a zombie (state %q)", z.Process.Pid, processState(z.Process.Pid))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if processAlive(z.Process.Pid) {
		t.Fatalf("zombie %d reported alive", z.Process.Pid)
	}

	dir := t.TempDir()
	tiny := []string{"tune", "--game", "gomoku", "--method", "ga", "--pop", "4", "--games", "4", "--generations", "1", "--verify-games", "0", "--admit-games", "0", "--depth", "2"}
	if _, stderr, code := run(t, dir, tiny...); code != 0 {
		t.Fatalf("setup tune: %s", stderr)
	}
	raw, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "evotune.db")+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE runs SET status = 'running', pid = ?, config = json_set(config, '$.generations', 2)`, z.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, dir, "resume", "1"); code != 0 || strings.Contains(stderr, "alive") {
		t.Fatalf("resume of a run held by a zombie: exit %d, %q", code, stderr)
	}
}

// TestConcurrentFirstTunes: three tunes started at once on one new database all run (the
// schema's set-up raced: "table runs already exists", "duplicate column name").
func TestConcurrentFirstTunes(t *testing.T) {
	dir := t.TempDir()
	const n = 3
	errs := make(chan string, n)
	for i := range n {
		go func() {
			_, stderr, code := run(t, dir, "tune", "--game", "gomoku", "--method", "ga", "--pop", "4", "--games", "2", "--generations", "1",
				"--depth", "1", "--verify-games", "0", "--seed", strconv.Itoa(i+1), "--db", "new.db")
			if code != 0 {
				errs <- stderr
				return
			}
			errs <- ""
		}()
	}
	for range n {
		if e := <-errs; e != "" {
			t.Fatalf("a tune of three started at once failed: %s", e)
		}
	}
	if runs := sqlite(t, filepath.Join(dir, "new.db"), `SELECT count(*) FROM runs WHERE status = 'finished'`); runs != strconv.Itoa(n) {
		t.Fatalf("%s finished runs, want %d", runs, n)
	}
}
