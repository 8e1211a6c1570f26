package main

import (
	"database/sql"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// lockDir makes dir read-only for this process: chmod for a user, chattr +i for root (who
// ignores permission bits); it skips the test where neither works.
func lockDir(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		os.Chmod(dir, 0o555)
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot make a read-only directory here (root, chattr: %v %s)", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
}

// TestReadOnlyDirectory is issue 25 case 7: a database in a directory this user cannot
// write (SQLite cannot create the WAL's shared-memory file there) is read by runs and
// served by serve, with and without a write-ahead log still holding commits; nothing is
// created in the directory. The dashboard answers only to IP addresses and loopback names
// (case 8: a rebound name gets 421).
func TestReadOnlyDirectory(t *testing.T) {
	dir := t.TempDir()
	tiny := []string{"--pop", "4", "--generations", "1", "--games", "2", "--verify-games", "0", "--depth", "1"}
	if _, stderr, code := run(t, dir, append([]string{"tune", "--game", "gomoku", "--db", "src.db"}, tiny...)...); code != 0 {
		t.Fatal(stderr)
	}
	for _, withLog := range []bool{false, true} {
		locked := filepath.Join(dir, "locked"+strconv.FormatBool(withLog))
		os.Mkdir(locked, 0o755)
		path := filepath.Join(locked, "ro.db")
		data, err := os.ReadFile(filepath.Join(dir, "src.db"))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path, data, 0o644)
		want := "gomoku-seed1"
		if withLog {
			// A commit that is only in the log, as a writer killed before its checkpoint
			// leaves it: the file and the log are copied while the connection is open.
			s, err := sql.Open("sqlite3", path)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0", "UPDATE runs SET name='from-the-log'"} {
				if _, err := s.Exec(q); err != nil {
					t.Fatal(q, err)
				}
			}
			other := filepath.Join(dir, "copy.db")
			for _, suf := range []string{"", "-wal"} {
				b, err := os.ReadFile(path + suf)
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(other+suf, b, 0o644)
			}
			s.Close()
			os.Remove(path + "-wal")
			os.Remove(path + "-shm")
			for _, suf := range []string{"", "-wal"} {
				os.Rename(other+suf, path+suf)
			}
			want = "from-the-log"
		}
		before, _ := os.ReadDir(locked)
		lockDir(t, locked)
		out, stderr, code := run(t, dir, "runs", "--db", path)
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("runs on a database in a read-only directory (log %v): exit %d, %s %s", withLog, code, out, stderr)
		}
		port := freePort(t)
		srv, sout := start(t, dir, "serve", "--db", path, "--addr", "127.0.0.1:"+strconv.Itoa(port))
		waitFor(t, sout, "dashboard of")
		get := func(host string) (int, string) {
			req, _ := http.NewRequest("GET", "http://127.0.0.1:"+strconv.Itoa(port)+"/api/runs", nil)
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		for _, host := range []string{"127.0.0.1:" + strconv.Itoa(port), "localhost:" + strconv.Itoa(port), "LOCALHOST"} {
			if code, body := get(host); code != 200 || !strings.Contains(body, want) {
				t.Fatalf("serve (log %v), Host %s: %d %s\n%s", withLog, host, code, body, sout)
			}
		}
		for _, host := range []string{"evil.example:" + strconv.Itoa(port), "rebind.attacker.test", "127.0.0.1.nip.io"} {
			if code, body := get(host); code != http.StatusMisdirectedRequest || strings.Contains(body, want) {
				t.Fatalf("serve, Host %s: %d %s; want 421 without the data", host, code, body)
			}
		}
		srv.Process.Kill()
		srv.Wait()
		after, _ := os.ReadDir(locked)
		if len(after) != len(before) {
			t.Fatalf("files appeared in the read-only directory: %v → %v", before, after)
		}
	}
}
