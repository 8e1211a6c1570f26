package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
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

// TestReadOnlyDirectory: a database in a directory this user cannot
// write (SQLite cannot create the WAL's shared-memory file there) is read by runs and
// served by serve, with and without a write-ahead log still holding commits; nothing is
// created in the directory. The dashboard answers only to IP addresses and loopback names
// (case 8: a rebound name gets 421).
func TestReadOnlyDirectory(t *testing.T) {
	dir := t.TempDir()
	tiny := []string{"--method", "ga", "--pop", "4", "--generations", "1", "--games", "2", "--verify-games", "0", "--depth", "1"}
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
		// Its own TMPDIR: the read-only copies serve reads must be gone after it stops.
		tmp := t.TempDir()
		srv := exec.Command(bin, "serve", "--db", path, "--addr", "127.0.0.1:"+strconv.Itoa(port))
		sout := new(syncBuffer)
		srv.Dir, srv.Env, srv.Stdout, srv.Stderr = dir, append(envOf(t), "TMPDIR="+tmp), sout, sout
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
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
		srv.Process.Signal(os.Interrupt)
		if err := srv.Wait(); err != nil {
			t.Errorf("serve stopped by SIGINT: %v\n%s", err, sout)
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("serve left %d temporary files behind: %v", len(left), left[0].Name())
		}
		after, _ := os.ReadDir(locked)
		if len(after) != len(before) {
			t.Fatalf("files appeared in the read-only directory: %v → %v", before, after)
		}
	}
}

// TestKillDuringVerification: a tune killed (SIGKILL) during its final
// verification, or interrupted (SIGINT) during the deep verification, then resumed, ends
// with the same tables as the uninterrupted run — the champion of the stored verification
// among them (it was once stored as 0-g0-00).
func TestKillDuringVerification(t *testing.T) {
	t.Parallel() // mostly waiting (brokers, timeouts, processes): overlaps the others
	long(t, "a tune killed during a 1 000-game verification, then resumed: about 15 s")
	dir := t.TempDir()
	args := []string{"tune", "--game", "gomoku", "--method", "ga", "--pop", "6", "--generations", "2", "--games", "4", "--depth", "2", "--seed", "3",
		"--verify-games", "1000", "--verify-depth", "3", "--admit-games", "0", "--workers", "2"} // no hall of fame: the champion is the race winner, never the paper's weights, so a verification is played
	if _, stderr, code := run(t, dir, append(args, "--db", "full.db")...); code != 0 {
		t.Fatal(stderr)
	}
	want := tableDump(t, filepath.Join(dir, "full.db"))
	for _, tc := range []struct {
		at  string
		sig os.Signal
	}{{"starts: 1000 games at depth 2", syscall.SIGKILL}, {"starts: 1000 games at depth 3", syscall.SIGINT}} {
		name := fmt.Sprintf("kill%d.db", tc.sig)
		cmd := exec.Command(bin, append(args, "--db", name)...)
		cmd.Dir = dir
		var out syncBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(out.String(), tc.at) && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		cmd.Process.Signal(tc.sig)
		err := cmd.Wait()
		if err == nil || !strings.Contains(out.String(), tc.at) {
			t.Fatalf("%v at %q: the tune was not interrupted there (exit %v):\n%s", tc.sig, tc.at, err, out.String())
		}
		if strings.Contains(out.String(), "run 1 finished") {
			t.Fatalf("%v came after the verification ended:\n%s", tc.sig, out.String())
		}
		if _, stderr, code := run(t, dir, "resume", "1", "--db", name); code != 0 {
			t.Fatalf("resume after %v at %q: %s", tc.sig, tc.at, stderr)
		}
		if got := tableDump(t, filepath.Join(dir, name)); got != want {
			t.Fatalf("%v at %q, resumed, differs from the uninterrupted run:\n%s\n----\n%s", tc.sig, tc.at, want, got)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a process's writes and the test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write implements io.Writer.
func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestTerminalEscapes: a database someone else wrote, whose run name
// holds a colour escape, a newline, U+202E (right-to-left override) and 100 000
// characters, and whose lineage rows hold escapes, is shown with every such character
// escaped, one table row per run, the name cut; tune refuses such names itself.
func TestTerminalEscapes(t *testing.T) {
	dir := t.TempDir()
	tiny := []string{"--method", "ga", "--pop", "4", "--generations", "1", "--games", "2", "--verify-games", "0", "--depth", "1"}
	if _, stderr, code := runIn(t, dir, append([]string{"tune", "--game", "gomoku", "--db", "x.db"}, tiny...)...); code != 0 {
		t.Fatal(stderr)
	}
	s, err := sql.Open("sqlite3", filepath.Join(dir, "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	evil := "\x1b[31mred\nsecond line\u202eevil\x07" + strings.Repeat("y", 100000)
	if _, err := s.Exec("UPDATE runs SET name = ?", evil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Exec("UPDATE genomes SET operator = ? WHERE id = '1-g1-03'", "mutation\x1b]0;pwned\x07"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	raw := func(out string) bool {
		return strings.ContainsAny(out, "\x1b\x07\u202e")
	}
	out, stderr, code := runIn(t, dir, "runs", "--db", "x.db")
	if code != 0 || raw(out) || !strings.Contains(out, `\x1b[31mred\nsecond line\u202eevil\x07`) || strings.Count(out, "\n") != 2 || len(out) > 1000 {
		t.Fatalf("runs: exit %d, %d bytes, %d lines:\n%q\n%s", code, len(out), strings.Count(out, "\n"), out[:min(len(out), 400)], stderr)
	}
	for _, args := range [][]string{{"lineage", "1-g1-03"}, {"individual", "1-g1-03"}, {"lineage", "1-g1-03", "--dot"}} {
		out, stderr, code := runIn(t, dir, append(args, "--db", "x.db")...)
		if code != 0 || raw(out) || !strings.Contains(out, `mutation\x1b]0;pwned\x07`) {
			t.Fatalf("%v: exit %d\n%q\n%s", args, code, out, stderr)
		}
	}
	// The JSON keeps the stored text exactly (encoded as JSON escapes).
	out, _, _ = runIn(t, dir, "runs", "--db", "x.db", "--json")
	if raw(out) || !strings.Contains(out, `\u001b[31mred\nsecond line`) || !strings.Contains(out, strings.Repeat("y", 100000)) {
		t.Fatalf("runs --json does not keep the name: %q", out[:min(len(out), 300)])
	}
	for _, name := range []string{"a\x1b[2Jb", "rtl\u202e", strings.Repeat("n", 101)} {
		_, stderr, code := runIn(t, dir, append([]string{"tune", "--game", "gomoku", "--db", "y.db", "--name", name}, tiny...)...)
		if code == 0 || raw(stderr) || !strings.Contains(stderr, "name") {
			t.Fatalf("tune --name %q: exit %d, %q", name, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "y.db")); err == nil {
		t.Fatal("a refused tune left a database")
	}
}

// TestStoredPathNotOpened: a run stores its verification openings
// themselves, not the file's name alone; a database whose stored configuration points
// verify_openings at a local file (someone else's database) does not make resume or verify
// open it: resume refuses, naming the flag that names the file again, and neither the
// terminal nor runs.error shows a word of the file.
func TestStoredPathNotOpened(t *testing.T) {
	dir := t.TempDir()
	ops := writeFile(t, dir, "ops.txt", "h8 h9 h10\ng7 g8\nj9 j10 k9 k10\n")
	tiny := []string{"--method", "ga", "--pop", "4", "--generations", "1", "--games", "2", "--depth", "1", "--verify-games", "4", "--admit-games", "0"}
	if _, stderr, code := runIn(t, dir, append([]string{"tune", "--game", "gomoku", "--db", "x.db", "--verify-openings", ops}, tiny...)...); code != 0 {
		t.Fatal(stderr)
	}
	os.Remove(ops) // the run needs the file no more
	s, err := sql.Open("sqlite3", filepath.Join(dir, "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var list string
	if err := s.QueryRow("SELECT json_extract(config, '$.verify_opening_list') FROM runs").Scan(&list); err != nil || list != `[["h8","h9","h10"],["g7","g8"],["j9","j10","k9","k10"]]` {
		t.Fatalf("stored openings: %q %v", list, err)
	}
	// The champion is the paper's weights (verify refuses them): verify a tuned individual.
	if out, stderr, code := runIn(t, dir, "verify", "1", "--individual", "1-g0-01", "--db", "x.db", "--games", "4"); code != 0 {
		t.Fatalf("verify after the file was removed: %s %s", out, stderr)
	}
	secret := writeFile(t, dir, "secret.txt", "TOPSECRET hunter2\n")
	for _, q := range []string{
		"UPDATE runs SET status = 'stopped', config = json_set(json_remove(config, '$.verify_opening_list'), '$.verify_openings', '" + secret + "')",
	} {
		if _, err := s.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	out, stderr, code := runIn(t, dir, "resume", "1", "--db", "x.db")
	if code == 0 || strings.Contains(out+stderr, "TOPSECRET") || !strings.Contains(stderr, "--verify-openings") || !strings.Contains(stderr, "does not open a path found in a database") {
		t.Fatalf("resume of a database pointing at a local file: exit %d\n%s%s", code, out, stderr)
	}
	if out, stderr, code := runIn(t, dir, "verify", "1", "--individual", "1-g0-01", "--db", "x.db", "--games", "4"); code != 0 || strings.Contains(out+stderr, "TOPSECRET") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, stderr)
	}
	var errText sql.NullString
	s.QueryRow("SELECT error FROM runs").Scan(&errText)
	if strings.Contains(errText.String, "TOPSECRET") {
		t.Fatalf("runs.error holds the file's content: %q", errText.String)
	}
	// Naming another file is refused; an illegal stored opening is an error naming it.
	if _, stderr, code := runIn(t, dir, "resume", "1", "--db", "x.db", "--verify-openings", ops); code == 0 || !strings.Contains(stderr, "only that file may be named again") {
		t.Fatalf("resume naming another file: %s", stderr)
	}
	if _, err := s.Exec(`UPDATE runs SET config = json_set(config, '$.verify_openings', 'ops.txt', '$.verify_opening_list', json('[["h8","h8"]]'))`); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runIn(t, dir, "resume", "1", "--db", "x.db"); code == 0 || !strings.Contains(stderr, "verify_opening_list[0]: move 2") {
		t.Fatalf("resume with an illegal stored opening: %s", stderr)
	}
}

// TestStrictInputs: a weights file with a key twice, a depth above the
// one limit (engine.MaxDepth) from a flag, a config file or a weights file, and --workers
// far above the CPUs are refused with the reason, before anything is played or written.
func TestStrictInputs(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := run(t, dir, "weights", "default", "--game", "gomoku", "--out", "g.json"); code != 0 {
		t.Fatal(stderr)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "g.json"))
	dup := strings.Replace(string(data), `"k1":`, `"k1": 3, "k1":`, 1)
	writeFile(t, dir, "dup.json", dup)
	deep := regexp.MustCompile(`"depth": \d+`).ReplaceAllString(string(data), `"depth": 60`)
	writeFile(t, dir, "deep.json", deep)
	writeFile(t, dir, "deep.yaml", "game: gomoku\ndepth: 21\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "--game", "gomoku", "--black", "dup.json"}, `duplicate key "k1" in weights`},
		{[]string{"match", "--game", "gomoku", "--a", "dup.json", "--games", "2"}, `duplicate key "k1"`},
		{[]string{"play", "--game", "gomoku", "--black", "deep.json"}, "depth: 60 is outside [0, 20]"},
		{[]string{"play", "--game", "gomoku", "--depth", "60"}, "--depth: 60 is outside [0, 20]"},
		{[]string{"match", "--game", "gomoku", "--depth", "21", "--games", "2"}, "outside [0, 20]"},
		{[]string{"tune", "--config", "deep.yaml", "--db", "t.db"}, "depth: 21, want 0 (game default) to 20"},
		{[]string{"match", "--game", "gomoku", "--games", "2", "--workers", "100000"}, "--workers 100000: at most"},
		{[]string{"tune", "--game", "gomoku", "--db", "t.db", "--workers", "100000"}, "--workers 100000: at most"},
	} {
		out, stderr, code := runTimeout(t, dir, time.Minute, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) || out != "" {
			t.Errorf("evotune %v: exit %d, %q; want an error with %q and no output", tc.args, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "t.db")); err == nil {
		t.Error("a refused tune created its database")
	}
}

// TestUnplayedForfeits: an outside engine that dies before its first
// answer in every third start loses those games by forfeit, but a match reports their pairs
// apart (unplayed_pairs, with the reason) and leaves them out of the result: both engines
// are the same program, so every counted pair is even.
func TestUnplayedForfeits(t *testing.T) {
	dir := t.TempDir()
	toy := filepath.Join(dir, "pbrain-toy")
	if out, err := exec.Command("go", "build", "-o", toy, "./testdata/pbrain-toy").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	flaky := writeFile(t, dir, "flaky.sh", "#!/bin/sh\n# every third start dies before its first answer\nn=$(cat "+dir+"/count 2>/dev/null || echo 0); n=$((n+1)); echo $n > "+dir+"/count\n[ $((n % 3)) -eq 0 ] && exit 3\nexec "+toy+" \"$@\"\n")
	os.Chmod(flaky, 0o755)
	// --engine-log starts a process per game (a transcript file each), so every third game
	// starts an engine that dies.
	out, stderr, code := runIn(t, dir, "match", "--game", "gomoku", "--a", "cmd:"+flaky, "--b", "cmd:"+toy, "--games", "24", "--workers", "1",
		"--engine-log", filepath.Join(dir, "logs"), "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var m struct {
		Result struct {
			Wins, Draws, Losses int
			Penta               [5]int
		} `json:"result"`
		RepeatedPairs int    `json:"repeated_pairs"`
		UnplayedPairs int    `json:"unplayed_pairs"`
		Warning       string `json:"warning"`
		Games         []struct {
			Record struct {
				Forfeit  string `json:"forfeit"`
				Unplayed bool   `json:"unplayed"`
			} `json:"record"`
		} `json:"games"`
		Unplayed []struct {
			Record struct {
				Forfeit  string `json:"forfeit"`
				Unplayed bool   `json:"unplayed"`
			} `json:"record"`
		} `json:"unplayed"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err, out)
	}
	pairs := m.Result.Penta[0] + m.Result.Penta[1] + m.Result.Penta[2] + m.Result.Penta[3] + m.Result.Penta[4]
	if m.UnplayedPairs == 0 || pairs+m.UnplayedPairs+m.RepeatedPairs != 12 || !strings.Contains(m.Warning, "not counted") {
		t.Fatalf("%d counted, %d unplayed, %d repeated pairs of 12; warning %q", pairs, m.UnplayedPairs, m.RepeatedPairs, m.Warning)
	}
	if m.Result.Wins != m.Result.Losses || m.Result.Penta != [5]int{0, 0, pairs, 0, 0} {
		t.Fatalf("the same engine on both sides scored %+v: a forfeit before the first move was counted", m.Result)
	}
	for _, g := range m.Games {
		if g.Record.Unplayed || g.Record.Forfeit != "" {
			t.Fatalf("a counted game was forfeited: %+v", g.Record)
		}
	}
	n := 0
	for _, g := range m.Unplayed {
		if g.Record.Unplayed {
			n++
			if !strings.Contains(g.Record.Forfeit, "exit status 3") {
				t.Fatalf("unplayed game's reason: %q", g.Record.Forfeit)
			}
		}
	}
	if n < m.UnplayedPairs {
		t.Fatalf("%d unplayed pairs but %d unplayed games listed", m.UnplayedPairs, n)
	}
}

// TestCraftedTaskRunsNothing, with a real embedded broker: the broker
// makes a token and refuses clients without it (and tokens in URLs); a worker trusting
// one evotune command line refuses a task published by the test whose engine is the same
// binary with other arguments (evotune match … cmd:/usr/bin/touch FILE), answers it with
// the reason, creates no file, ignores a LogFile the task names, refuses crafted options,
// depths and game indices for the engine it trusts, and keeps serving; a
// match with no worker, and one whose broker dies, say why they wait and stop at
// --broker-timeout.
func TestCraftedTaskRunsNothing(t *testing.T) {
	t.Parallel() // mostly waiting (brokers, timeouts, processes): overlaps the others
	long(t, "crafted tasks through a broker, each waited out: about 25 s")
	dir := t.TempDir()
	port := freePort(t)
	addr, url := "127.0.0.1:"+strconv.Itoa(port), "nats://127.0.0.1:"+strconv.Itoa(port)
	broker, bout := start(t, dir, "broker", "--addr", addr, "--store", filepath.Join(dir, "store"))
	waitFor(t, bout, "clients need the token")
	// No token: refused, naming the flag; a token in the URL: refused before connecting.
	setEnv(t, "EVOTUNE_BROKER_TOKEN", "")
	if _, stderr, code := run(t, dir, "worker", "--broker", url); code == 0 || !strings.Contains(stderr, "--token-file") {
		t.Fatalf("worker without the token: exit %d %s", code, stderr)
	}
	if _, stderr, code := run(t, dir, "worker", "--broker", "nats://s3cret@127.0.0.1:"+strconv.Itoa(port)); code == 0 || !strings.Contains(stderr, "visible to every user") || strings.Contains(stderr, "s3cret") {
		t.Fatalf("worker with a token in the URL: exit %d %s", code, stderr)
	}
	tok := useBrokerToken(t, filepath.Join(dir, "store"))

	trusted := "cmd:" + bin + " engine --game gomoku --depth 1"
	_, wout := start(t, dir, "worker", "--broker", url, "--workers", "1", "--allow-engine", trusted)
	waitFor(t, wout, "worker 1×")
	build := regexp.MustCompile(`build (\S+)`).FindStringSubmatch(wout.String())[1]

	nc, err := nats.Connect(url, nats.Token(tok))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, code := run(t, dir, "weights", "default", "--game", "gomoku", "--out", "w.json"); code != 0 {
		t.Fatal("weights default")
	}
	var wf struct{ Weights json.RawMessage }
	data, _ := os.ReadFile(filepath.Join(dir, "w.json"))
	json.Unmarshal(data, &wf)
	touched, logFile := filepath.Join(dir, "TOUCHED"), filepath.Join(dir, "ENGINE.LOG")
	evil := []string{bin, "match", "--game", "gomoku", "--a", "cmd:/usr/bin/touch " + touched, "--b", "default", "--games", "2", "--depth", "1"}
	good := strings.Fields(strings.TrimPrefix(trusted, "cmd:"))
	publish := func(batch string, argv []string, craft ...func(task, game, ext map[string]any)) map[string]any {
		t.Helper()
		ext := map[string]any{"Argv": argv, "LogFile": logFile, "MoveTime": int64(10 * time.Second)}
		game := map[string]any{"index": 0, "black": wf.Weights, "white": wf.Weights, "black_ext": ext, "opening": []string{"h8"}}
		task := map[string]any{"version": build, "batch": batch, "game": "gomoku", "board": 0, "limits": map[string]any{"depth": 1},
			"max_plies": 0, "forfeit": true, "games": []map[string]any{game}}
		for _, c := range craft {
			c(task, game, ext)
		}
		body, _ := json.Marshal(task)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := js.Publish(ctx, "evotune.task."+batch, body); err != nil {
			t.Fatal(err)
		}
		cons, err := js.OrderedConsumer(ctx, "EVOTUNE_RESULTS", jetstream.OrderedConsumerConfig{FilterSubjects: []string{"evotune.result." + batch}})
		if err != nil {
			t.Fatal(err)
		}
		m, err := cons.Next(jetstream.FetchMaxWait(time.Minute))
		if err != nil {
			t.Fatalf("no answer to the task of batch %s: %v\n%s", batch, err, wout.String())
		}
		var r map[string]any
		json.Unmarshal(m.Data(), &r)
		return r
	}
	r := publish("0123456789abcdef01234567", evil)
	if ref, _ := r["refused"].(string); !strings.Contains(ref, "--allow-engine") {
		t.Fatalf("the crafted task was not refused with the reason: %v", r)
	}
	// Crafted tasks for the trusted engine: protocol lines smuggled in option names and
	// values, keys the manager owns, options the worker's owner guards, searches deeper
	// than the worker allows, bad game indices. Each is refused with its reason before the
	// engine starts (so its standard input gets nothing), and the worker keeps serving.
	option := func(name, value string) func(task, game, ext map[string]any) {
		return func(_, _, ext map[string]any) { ext["Options"] = []map[string]string{{"Name": name, "Value": value}} }
	}
	for i, c := range []struct {
		craft func(task, game, ext map[string]any)
		want  string
	}{
		{option("x\nBOARD\n7,7,1\nDONE", "1\nEND"), "control character"},
		{option("attack", "1000\nBOARD"), "control character"},
		{option("folder", "/etc/cron.d"), `option "folder" is the manager's`},
		{option("Hash", "65536"), "--allow-option"},
		{option("Debug Log File", filepath.Join(dir, "LOG")), "--allow-option"},
		{func(task, _, _ map[string]any) { task["limits"] = map[string]any{"depth": 20, "width": 1000} }, "--max-depth 12"},
		{func(_, game, _ map[string]any) { game["index"] = -5 }, "game index -5"},
		{func(_, game, _ map[string]any) { game["index"] = int64(1) << 62 }, "game index 4611686018427387904"},
		{func(task, game, _ map[string]any) { task["games"] = []map[string]any{game, game, game} }, "appears twice"},
	} {
		r := publish(fmt.Sprintf("0123456789abcdef0123%04x", 0x100+i), good, c.craft)
		if ref, _ := r["refused"].(string); !strings.Contains(ref, c.want) {
			t.Errorf("crafted task %d: %v, want a refusal naming %q", i, r, c.want)
		}
	}
	r = publish("0123456789abcdef01234568", good)
	if games, _ := r["games"].([]any); r["refused"] != nil || len(games) != 1 {
		t.Fatalf("the trusted command line was not played: %v\n%s", r, wout.String())
	}
	for _, f := range []string{touched, logFile, filepath.Join(dir, "LOG")} {
		if _, err := os.Stat(f); err == nil {
			t.Fatalf("%s exists: a task made the worker write a file", f)
		}
	}
	// The worker still serves: a match through the broker completes.
	if _, stderr, code := run(t, dir, "match", "--game", "gomoku", "--games", "4", "--depth", "1", "--broker", url, "--broker-timeout", "60s"); code != 0 {
		t.Fatalf("match after the crafted task: %s\n%s", stderr, wout.String())
	}
	// No silent waits: with no worker, and with the broker gone.
	store2 := filepath.Join(dir, "store2")
	port2 := freePort(t)
	url2 := "nats://127.0.0.1:" + strconv.Itoa(port2)
	broker2, bout2 := start(t, dir, "broker", "--addr", "127.0.0.1:"+strconv.Itoa(port2), "--store", store2)
	waitFor(t, bout2, "clients need the token")
	useBrokerToken(t, store2)
	_, stderr, code := run(t, dir, "match", "--game", "gomoku", "--games", "4", "--depth", "1", "--broker", url2, "--broker-timeout", "10s")
	if code == 0 || !strings.Contains(stderr, "no worker is connected") || !strings.Contains(stderr, "--broker-timeout") {
		t.Fatalf("match with no worker: exit %d\n%s", code, stderr)
	}
	// A broker that dies in the middle of a match and does not come back.
	_, wout2 := start(t, dir, "worker", "--broker", url2, "--workers", "1")
	waitFor(t, wout2, "worker 1×")
	m, mout := start(t, dir, "match", "--game", "gomoku", "--games", "2000", "--depth", "2", "--broker", url2, "--broker-timeout", "10s")
	waitFor(t, mout, "games go to the workers")
	time.Sleep(time.Second)
	broker2.Process.Kill()
	broker2.Wait()
	errc := make(chan error, 1)
	go func() { errc <- m.Wait() }()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(mout.String(), "--broker-timeout") || !(strings.Contains(mout.String(), "unreachable") || strings.Contains(mout.String(), "did not take a task")) {
			t.Fatalf("match whose broker died: %v\n%s", err, mout.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("match whose broker died still waits:\n%s", mout.String())
	}
	_, stderr, code = run(t, dir, "match", "--game", "gomoku", "--games", "4", "--depth", "1", "--broker", url2)
	if code == 0 || !strings.Contains(stderr, "no servers available") {
		t.Fatalf("match with the broker gone: exit %d\n%s", code, stderr)
	}
	_ = broker
}

// TestProcessesKept: each outside engine keeps one process for a whole match, whichever
// colour it has in each game (a colour-swapped pair hands the engines each other's seat:
// the processes follow their engines); with --engine-log or --restart every game starts
// its own.
func TestProcessesKept(t *testing.T) {
	dir := t.TempDir()
	toy := filepath.Join(dir, "pbrain-toy")
	if out, err := exec.Command("go", "build", "-o", toy, "./testdata/pbrain-toy").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	counting := writeFile(t, dir, "counting.sh", "#!/bin/sh\necho start >> "+dir+"/starts\nexec "+toy+" \"$@\"\n")
	os.Chmod(counting, 0o755)
	for _, c := range []struct {
		extra  []string
		starts int
	}{{nil, 2}, {[]string{"--engine-log", filepath.Join(dir, "logs")}, 24}, {[]string{"--restart"}, 24}} {
		os.Remove(filepath.Join(dir, "starts"))
		args := append([]string{"match", "--game", "gomoku", "--a", "cmd:" + counting, "--b", "cmd:" + counting + " x", "--games", "12", "--workers", "1"}, c.extra...)
		if _, stderr, code := runIn(t, dir, args...); code != 0 {
			t.Fatal(stderr)
		}
		data, _ := os.ReadFile(filepath.Join(dir, "starts"))
		if n := strings.Count(string(data), "start"); n != c.starts {
			t.Errorf("%v: %d engine processes started for 12 games, want %d", c.extra, n, c.starts)
		}
	}
}
