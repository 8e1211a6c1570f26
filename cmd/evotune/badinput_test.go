package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runTimeout is run with a deadline: a regression that reads /dev/zero without limit is
// killed and reported instead of hanging the suite.
func runTimeout(t testing.TB, dir string, d time.Duration, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, envOf(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("evotune %v: still running after %v", args, d)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr.String(), "panic") || strings.Contains(stderr.String(), "goroutine ") {
		t.Fatalf("evotune %v panicked:\n%s", args, stderr.String())
	}
	return stdout.String(), stderr.String(), code
}

// dirState describes every entry of dir (name, type, size, content hash for small files)
// and every row of its databases, so that a refused command can be shown to have changed
// nothing.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		fi, err := os.Lstat(path)
		if err != nil {
			return nil
		}
		line := fmt.Sprintf("%s %v", rel, fi.Mode().Type())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(path)
			line += " -> " + l
		case fi.Mode().IsRegular() && strings.HasSuffix(rel, ".db"):
			line += "\n" + tableDump(t, path)
		case fi.Mode().IsRegular() && fi.Size() < 1<<20:
			b, _ := os.ReadFile(path)
			line += fmt.Sprintf(" %d %x", fi.Size(), b)
		case fi.Mode().IsRegular():
			line += fmt.Sprintf(" %d", fi.Size())
		}
		if strings.HasSuffix(rel, "-wal") || strings.HasSuffix(rel, "-shm") {
			line = rel // the WAL's bytes change on read-only opens too; its rows are in the dump
		}
		lines = append(lines, line)
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// hugeNumber finds a number of absolute value above 5 000 in s (an Elo printed as 1e9).
func hugeNumber(s string) string {
	for _, n := range regexp.MustCompile(`[-+]?[0-9]+(\.[0-9]+)?`).FindAllString(s, -1) {
		if x, _ := strconv.ParseFloat(n, 64); math.Abs(x) > 5000 && strings.Contains(n, ".") {
			return n
		}
	}
	return ""
}

// TestBadInputTable is a table: every input that once went wrong, with the exit
// status and the words the message must have, and, for every refusal, that no file and no
// database row changed.
func TestBadInputTable(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string { return writeFile(t, dir, name, body) }
	// A small finished gomoku run to export, resume and verify.
	tiny := []string{"--game", "gomoku", "--method", "ga", "--pop", "4", "--games", "4", "--generations", "1", "--verify-games", "0", "--admit-games", "0", "--depth", "2"}
	if _, stderr, code := run(t, dir, append([]string{"tune", "--name", "base"}, tiny...)...); code != 0 {
		t.Fatalf("setup tune: %s", stderr)
	}
	// A FIFO and a directory stand for /dev/full and other non-regular targets: a
	// regression must not replace a real device node of the machine running the tests.
	fifo := filepath.Join(dir, "fifo")
	mkfifo(t, fifo)
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	write("target.json", "old content\n")
	os.Symlink("target.json", filepath.Join(dir, "link.json"))
	write("half.yaml", "game: gomoku\npopulation: 4.5\n")
	write("nan.yaml", "game: gomoku\nmutation_rate: .nan\n")
	write("typo.yaml", "game: gomoku\npopulaton: 4\n")
	write("nullw.json", `{"format":"evotune.weights/v1","game":"gomoku","weights":{"live_four":null}}`)
	big, _ := os.Create(filepath.Join(dir, "big.yaml"))
	big.Truncate(100 << 20) // sparse: 100 MB on paper, nothing on disk
	big.Close()
	write("empty.json", "")
	write("utf16.json", "\xff\xfe{\x00}\x00")
	write("huge.json", `{"format":"evotune.weights/v1","game":"gomoku","weights":{"live_four":1e309}}`)
	write("b4.txt", "h8,i9\nh8,h9\ng7,j9\nh8,g9\n")
	write("two.epd", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\nrnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n")
	write("pawn.txt", "PawnValue, int, 100, 50, 200, 10, 0.002\n")
	layout, _, _ := run(t, dir, "weights", "layout", "--game", "gomoku", "--format", "yaml")
	write("wide.yaml", strings.Replace(layout, "max: 1e+07, default: 2500", "max: 1e+30, default: 2500", 1))
	write("crash.sh", "#!/bin/sh\necho hello; exit 3\n")
	os.Chmod(filepath.Join(dir, "crash.sh"), 0o755)
	// A UCI engine that ignores go nodes: it never answers such a search (as Toga II
	// searches on).
	write("sleepy.sh", "#!/bin/sh\nwhile read -r l; do\n  case \"$l\" in\n    uci) echo 'id name sleepy'; echo uciok ;;\n    isready) echo readyok ;;\n    'go nodes'*) ;;\n    go*) echo 'bestmove e2e4' ;;\n    quit) exit 0 ;;\n  esac\ndone\n")
	os.Chmod(filepath.Join(dir, "sleepy.sh"), 0o755)
	write("sleepy-pawn.sh", "#!/bin/sh\nwhile read -r l; do\n  case \"$l\" in\n    uci) echo 'id name sleepy'; echo 'option name PawnValue type spin default 100 min 50 max 200'; echo uciok ;;\n    isready) echo readyok ;;\n    'go nodes'*) ;;\n    go*) echo 'bestmove e2e4' ;;\n    quit) exit 0 ;;\n  esac\ndone\n")
	os.Chmod(filepath.Join(dir, "sleepy-pawn.sh"), 0o755)

	cases := []struct {
		name string
		args []string
		want []string // words of the message (standard error)
	}{
		// Settings refused before the database is opened: no new.db appears.
		{"board 1", []string{"tune", "--game", "gomoku", "--board", "1", "--db", "new.db"}, []string{"--board", "outside"}},
		{"board 100000", []string{"tune", "--game", "gomoku", "--board", "100000", "--db", "new.db"}, []string{"--board", "outside"}},
		{"amazons board 9", []string{"tune", "--game", "amazons", "--board", "9", "--db", "new.db"}, []string{"--board", "amazons"}},
		{"budget of 0 games", []string{"tune", "--game", "gomoku", "--budget-games", "0", "--db", "new.db"}, []string{"--budget-games", "at least 2"}},
		{"budget not a number", []string{"tune", "--game", "gomoku", "--budget-games", "abc", "--db", "new.db"}, []string{"--budget-games abc: want a whole number"}},
		{"misspelt flag", []string{"tune", "--game", "gomoku", "--budjet-games", "40", "--db", "new.db"}, []string{"unknown flag --budjet-games", "did you mean --budget-games?"}},
		{"misspelt match flag", []string{"match", "--game", "gomoku", "--dept", "3", "--db", "new.db"}, []string{"unknown flag --dept", "did you mean --depth?"}},
		{"budget past a billion", []string{"tune", "--game", "gomoku", "--budget-games", "9223372036854775807", "--db", "new.db"}, []string{"--budget-games", "at most 1000000000"}},
		{"no broker there", []string{"tune", "--game", "gomoku", "--broker", "nats://127.0.0.1:9", "--db", "new.db"}, []string{"--broker"}},
		{"empty weights file", []string{"match", "--game", "gomoku", "--a", "empty.json", "--games", "2", "--db", "new.db"}, []string{"empty.json", "empty"}},
		{"UTF-16 weights file", []string{"match", "--game", "gomoku", "--a", "utf16.json", "--games", "2", "--db", "new.db"}, []string{"utf16.json", "UTF-16"}},
		{"weight 1e309", []string{"match", "--game", "gomoku", "--a", "huge.json", "--games", "2", "--db", "new.db"}, []string{"huge.json", "1e309", "out of range"}},
		{"export to a non-regular file", []string{"export", "1", "--db", "evotune.db", "--out", "fifo"}, []string{"--out", "fifo", "not a regular file"}},
		{"weights to a non-regular file", []string{"weights", "default", "--game", "gomoku", "--out", "fifo"}, []string{"--out", "not a regular file (a named pipe)"}},
		{"weights to a directory", []string{"weights", "default", "--game", "gomoku", "--out", "adir"}, []string{"--out", "a directory"}},
		{"weights file /dev/zero", []string{"play", "--game", "gomoku", "--black", "/dev/zero"}, []string{"--black", "/dev/zero", "not a regular file"}},
		{"weights file /dev/urandom", []string{"match", "--game", "gomoku", "--a", "/dev/urandom"}, []string{"--a", "/dev/urandom", "not a regular file"}},
		{"config /dev/zero", []string{"tune", "--config", "/dev/zero"}, []string{"config /dev/zero", "not a regular file"}},
		// Found before the run is written (a failed run row was left): a book too small for a
		// generation, a layout range the engine's weights files do not take.
		{"book of 4 openings", []string{"tune", "--game", "gomoku", "--book", "b4.txt", "--budget-games", "40", "--db", "new.db"}, []string{"b4.txt", "tuning half", "larger book"}},
		{"chess book of 2 positions", []string{"tune", "--layout", "pawn.txt", "--engine", "cmd:./crash.sh", "--nodes", "500", "--book", "two.epd", "--budget-games", "40", "--db", "new.db"}, []string{"two.epd", "tuning half"}},
		{"layout wider than the weights", []string{"tune", "--layout", "wide.yaml", "--engine", "cmd:" + bin + " engine --game gomoku --weights {weights} --depth 1", "--weights-format", "evotune", "--init", "random", "--method", "ga", "--pop", "6", "--generations", "1", "--games", "4", "--db", "new.db"}, []string{"dead_four_a", "1e+30", "1e+07"}},
		// A FIFO as an input file is refused before it is opened (the open blocked for good).
		{"config FIFO", []string{"tune", "--config", "fifo", "--db", "new.db"}, []string{"fifo", "not a regular file (a named pipe)"}},
		{"tune book FIFO", []string{"tune", "--game", "gomoku", "--book", "fifo", "--db", "new.db"}, []string{"fifo", "not a regular file (a named pipe)"}},
		{"layout FIFO", []string{"tune", "--game", "gomoku", "--layout", "fifo", "--engine", "cmd:./crash.sh", "--db", "new.db"}, []string{"fifo", "not a regular file (a named pipe)"}},
		{"match book FIFO", []string{"match", "--game", "chess", "--a", "default", "--b", "default", "--depth", "1", "--games", "2", "--book", "fifo"}, []string{"fifo", "not a regular file (a named pipe)"}},
		{"match openings FIFO", []string{"match", "--game", "gomoku", "--games", "2", "--openings", "fifo"}, []string{"fifo", "not a regular file (a named pipe)"}},
		{"weights FIFO", []string{"match", "--game", "gomoku", "--a", "fifo", "--games", "2"}, []string{"fifo", "not a regular file (a named pipe)"}},
		// Matches that would measure nothing end with an error.
		{"a tuned engine that ignores go nodes", []string{"tune", "--game", "chess", "--engine", "cmd:./sleepy-pawn.sh", "--layout", "pawn.txt", "--nodes", "1000", "--move-time", "0.3", "--budget-games", "8", "--db", "new.db"},
			[]string{"--nodes 1000", "cmd:./sleepy-pawn.sh played no move under go nodes 1000", "--depth D"}},
		{"an engine that ignores go nodes", []string{"match", "--game", "chess", "--a", "cmd:./sleepy.sh", "--b", "default", "--nodes", "1000", "--move-time", "300ms", "--games", "2"},
			[]string{"--nodes 1000", "cmd:./sleepy.sh played no move under go nodes 1000", "--depth D"}},
		// A program given where a weights file is read: the fix is named.
		{"a program without cmd:", []string{"match", "--game", "gomoku", "--a", "./crash.sh", "--games", "2"}, []string{"--a", "./crash.sh is a program: to play it as an engine, write cmd:./crash.sh"}},
		{"play --from FIFO", []string{"play", "--game", "gomoku", "--from", "fifo"}, []string{"fifo", "not a regular file (a named pipe)"}},
		{"a 100 MB config", []string{"tune", "--config", "big.yaml"}, []string{"big.yaml", "104857600 bytes", "more than"}},
		{"empty --db", []string{"tune", "--game", "gomoku", "--db", ""}, []string{"--db", "not a database file name"}},
		{"--db :memory:", []string{"tune", "--game", "gomoku", "--db", ":memory:"}, []string{"--db", "lose them"}},
		{"missing verify openings", []string{"tune", "--game", "gomoku", "--verify-openings", "nofile.txt", "--db", "new.db"}, []string{"--verify-openings", "nofile.txt", "no such file"}},
		{"opponent that does not exist", []string{"tune", "--method", "ga", "--game", "gomoku", "--opponent", "cmd:./does-not-exist", "--db", "new.db"}, []string{"--opponent", "./does-not-exist", "cannot run it"}},
		{"opponent that crashes", []string{"tune", "--method", "ga", "--game", "gomoku", "--opponent", "cmd:./crash.sh", "--db", "new.db"}, []string{"--opponent 1", "start-up check", "exited", "stdout: hello"}},
		{"negative opponent move time", []string{"tune", "--method", "ga", "--game", "gomoku", "--opponent-move-time", "-1", "--db", "new.db"}, []string{"--opponent-move-time", "negative"}},
		{"negative max plies (play)", []string{"play", "--game", "gomoku", "--max-plies", "-1"}, []string{"--max-plies", "-1 is negative"}},
		{"negative max plies (tune)", []string{"tune", "--game", "gomoku", "--max-plies", "-1", "--db", "new.db"}, []string{"--max-plies", "negative"}},
		{"negative match move time", []string{"match", "--game", "gomoku", "--move-time", "-1s"}, []string{"--move-time", "-1s is negative"}},
		{"negative engine move time", []string{"engine", "--game", "gomoku", "--move-time", "-1s"}, []string{"--move-time", "negative"}},
		{"lineage --json --dot", []string{"lineage", "1-g0-00", "--json", "--dot"}, []string{"json", "dot"}},
		{"mutation rate NaN", []string{"tune", "--game", "gomoku", "--mutation-rate", "NaN", "--db", "new.db"}, []string{"--mutation-rate", "NaN", "not a finite number"}},
		{"mutation rate NaN in a config", []string{"tune", "--config", "nan.yaml", "--db", "new.db"}, []string{"nan.yaml", "mutation_rate"}},
		{"a typo in a config key", []string{"tune", "--config", "typo.yaml", "--db", "new.db"}, []string{"typo.yaml", "line 2: unknown key populaton (did you mean population?)"}},
		{"population 4.5", []string{"tune", "--config", "half.yaml", "--db", "new.db"}, []string{"half.yaml", "line 2", "population", "not a whole number"}},
		{"weights value null", []string{"play", "--game", "gomoku", "--black", "nullw.json"}, []string{"nullw.json", "weights.live_four", "null"}},
		{"a repeated run name", append([]string{"tune", "--name", "base"}, tiny...), []string{"--name", `"base"`, "run 1"}},
		{"resume of a finished run", []string{"resume", "1"}, []string{"run 1", "already finished"}},
		{"sensitivity factor 1", []string{"sensitivity", "--game", "gomoku", "--factor", "1"}, []string{"--factor 1", "above 1"}},
		{"sensitivity unknown gene", []string{"sensitivity", "--game", "gomoku", "--genes", "k1,k9"}, []string{"--genes", `"k9"`, "not a gomoku gene"}},
		{"sensitivity odd games", []string{"sensitivity", "--game", "gomoku", "--games", "3"}, []string{"--games 3", "even"}},
		{"sensitivity weights of another game", []string{"sensitivity", "--game", "connect6", "--weights", "nullw.json"}, []string{"--weights", "nullw.json"}},
	}
	for _, c := range cases {
		before := dirState(t, dir)
		_, stderr, code := runTimeout(t, dir, 30*time.Second, c.args...)
		if code == 0 {
			t.Errorf("%s: evotune %q exited 0; want a refusal", c.name, c.args)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: evotune %q: message %q lacks %q", c.name, c.args, stderr, w)
			}
		}
		if after := dirState(t, dir); after != before {
			t.Errorf("%s: evotune %q changed files or rows:\nbefore:\n%s\nafter:\n%s", c.name, c.args, before, after)
		}
	}
	// A match that counted no game (its engine forfeited every pair before a move) exits
	// non-zero, and keeps what it played: the match and its forfeited games are stored.
	if _, stderr, code := run(t, dir, "match", "--game", "gomoku", "--a", "cmd:./crash.sh", "--b", "default", "--games", "2", "--depth", "1", "--db", "m.db"); code == 0 ||
		!strings.Contains(stderr, "no game was counted: 1 pairs") {
		t.Errorf("a match that counted no game: exit %d, %s", code, stderr)
	}
	if got := sqlite(t, filepath.Join(dir, "m.db"), "SELECT status || ' ' || (SELECT count(*) FROM match_games WHERE forfeit IS NOT NULL) FROM matches"); got != "finished 2" {
		t.Errorf("the match that counted no game stored %q, want its 2 forfeited games", got)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode().Type() != fs.ModeNamedPipe {
		t.Fatalf("the FIFO was replaced: %v %v", fi, err)
	}

	// Writes through a symlink update its target; the link stays a link.
	if _, stderr, code := run(t, dir, "weights", "default", "--game", "gomoku", "--out", "link.json"); code != 0 {
		t.Fatalf("weights --out link.json: %s", stderr)
	}
	if l, err := os.Readlink(filepath.Join(dir, "link.json")); err != nil || l != "target.json" {
		t.Fatalf("link.json is no longer a link to target.json: %q %v", l, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "target.json")); !bytes.Contains(b, []byte(`"game": "gomoku"`)) {
		t.Fatalf("target.json was not written through the link: %q", b)
	}
	// An export never replaces a file by surprise: an existing one needs --force, and a
	// weights file of another game is kept even then.
	if _, stderr, code := run(t, dir, "export", "1", "--out", "link.json"); code == 0 || !strings.Contains(stderr, "--out link.json exists (gomoku weights)") || !strings.Contains(stderr, "--force") {
		t.Fatalf("export over an existing file without --force: exit %d, %s", code, stderr)
	}
	c6, _, _ := run(t, dir, "weights", "default", "--game", "connect6")
	write("c6.json", c6)
	if _, stderr, code := run(t, dir, "export", "1", "--out", "c6.json", "--force"); code == 0 || !strings.Contains(stderr, "holds connect6 weights") {
		t.Fatalf("export of gomoku weights over connect6's with --force: exit %d, %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "c6.json")); string(b) != c6 {
		t.Fatal("c6.json was changed")
	}
	if _, stderr, code := run(t, dir, "export", "1", "--out", filepath.Join("nodir", "x.json")); code == 0 || !strings.Contains(stderr, "the directory nodir does not exist") || strings.Contains(stderr, ".tmp") {
		t.Fatalf("export into a missing directory: exit %d, %s", code, stderr)
	}
	if _, stderr, code := run(t, dir, "export", "1", "--out", "link.json", "--force"); code != 0 {
		t.Fatalf("export --out link.json --force: %s", stderr)
	}
	if fi, _ := os.Lstat(filepath.Join(dir, "link.json")); fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("export replaced the link")
	}

	// Elo of a match won in every game: words, not 1e9.
	weights, _, _ := run(t, dir, "weights", "default", "--game", "gomoku")
	weak := regexp.MustCompile(`"(live|dead)_[a-z_]+": [0-9]+`).ReplaceAllStringFunc(weights, func(m string) string {
		return m[:strings.Index(m, ":")] + ": 1"
	})
	write("weak.json", weak)
	out, stderr, code := run(t, dir, "match", "--game", "gomoku", "--a", "default", "--b", "weak.json", "--games", "2", "--depth", "2", "--openings", "none")
	if code != 0 || !strings.Contains(out, "all wins") || hugeNumber(out) != "" {
		t.Fatalf("a match won in every game: exit %d, %q %s", code, out, stderr)
	}

	// match --sprt in the space form, as verify accepts it.
	if _, stderr, code := run(t, dir, "match", "--game", "gomoku", "--games", "4", "--depth", "1", "--sprt", "elo0=0,elo1=20"); code != 0 {
		t.Fatalf("match --sprt elo0=0,elo1=20: %s", stderr)
	}
}

// TestRunLockCLI: a run marked running by a live process that is not evotune (its PID was
// reused) is refused with the way out, and taken over with --force and a warning; of two
// resumes of a stopped run started at once, one continues it and the other fails before
// writing, and the run ends finished with every generation once.
func TestRunLockCLI(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "evotune.db")
	tiny := []string{"--game", "gomoku", "--method", "ga", "--pop", "4", "--games", "4", "--generations", "1", "--verify-games", "0", "--admit-games", "0", "--depth", "2"}
	if _, stderr, code := run(t, dir, append([]string{"tune"}, tiny...)...); code != 0 {
		t.Fatalf("setup tune: %s", stderr)
	}
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	raw, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// Four generations wanted, one saved, marked running by the sleeper.
	if _, err := raw.Exec(`UPDATE runs SET status = 'running', pid = ?, config = json_set(config, '$.generations', 4)`, sleeper.Process.Pid); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, dir)
	_, stderr, code := run(t, dir, "resume", "1")
	if code == 0 || !strings.Contains(stderr, fmt.Sprintf("process %d (sleep)", sleeper.Process.Pid)) || !strings.Contains(stderr, "evotune resume 1 --db evotune.db --force") {
		t.Fatalf("resume of a run held by a live non-evotune process: exit %d, %q", code, stderr)
	}
	if dirState(t, dir) != before {
		t.Fatal("the refused resume changed the database")
	}
	raw.Exec(`UPDATE runs SET config = json_set(config, '$.generations', 1)`)
	_, stderr, code = run(t, dir, suggestedCommand(t, stderr)...) // the way out, as printed
	if code != 0 || !strings.Contains(stderr, "warning: --force") {
		t.Fatalf("resume --force: exit %d, %q", code, stderr)
	}

	// Two resumes at once of a stopped run with three generations to go.
	if _, err := raw.Exec(`UPDATE runs SET status = 'stopped', pid = NULL, config = json_set(config, '$.generations', 4)`); err != nil {
		t.Fatal(err)
	}
	type result struct {
		stderr string
		code   int
	}
	results := make(chan result, 2)
	for i := 0; i < 2; i++ {
		go func() {
			cmd := exec.Command(bin, "resume", "1")
			cmd.Dir = dir
			var e bytes.Buffer
			cmd.Stderr = &e
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			results <- result{e.String(), code}
		}()
	}
	var ok, refused int
	for i := 0; i < 2; i++ {
		r := <-results
		switch {
		case r.code == 0:
			ok++
		case strings.Contains(r.stderr, "marked running by process") || strings.Contains(r.stderr, "already finished"):
			refused++
		default:
			t.Errorf("a concurrent resume failed otherwise: exit %d, %q", r.code, r.stderr)
		}
	}
	if ok != 1 || refused != 1 {
		t.Fatalf("%d resumes continued and %d were refused; want 1 and 1", ok, refused)
	}
	var status string
	var gens, rows int
	raw.QueryRow(`SELECT status, generations_done FROM runs WHERE id = 1`).Scan(&status, &gens)
	raw.QueryRow(`SELECT count(*) FROM generations WHERE run_id = 1`).Scan(&rows)
	if status != "finished" || gens != 5 || rows != 5 {
		t.Fatalf("after the concurrent resumes: status %s, generations_done %d, %d generation rows; want finished, 5, 5", status, gens, rows)
	}
}

// TestResumeExternalEngines: a run whose stored configuration names an external engine
// is resumed only when --allow-engine names it; the refusal lists the command and runs
// nothing.
func TestResumeExternalEngines(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	engine := filepath.Join(dir, "engine.sh")
	os.WriteFile(engine, []byte("#!/bin/sh\ntouch "+marker+"\nexec "+bin+" engine --game gomoku --depth 1\n"), 0o755)
	args := []string{"tune", "--game", "gomoku", "--method", "ga", "--pop", "4", "--games", "4", "--generations", "1", "--verify-games", "0",
		"--admit-games", "0", "--depth", "1", "--opponent", "cmd:" + engine, "--opponent-move-time", "1"}
	if _, stderr, code := runIn(t, dir, args...); code != 0 {
		t.Fatalf("tune with an external opponent: %s", stderr)
	}
	raw, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "evotune.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.Exec(`UPDATE runs SET status = 'stopped', config = json_set(config, '$.generations', 2)`)
	os.Remove(marker)
	before := dirState(t, dir)
	_, stderr, code := runIn(t, dir, "resume", "1")
	if code == 0 || !strings.Contains(stderr, "cmd:"+engine) || !strings.Contains(stderr, "--allow-engine") {
		t.Fatalf("resume without --allow-engine: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the refused resume started the engine")
	}
	if dirState(t, dir) != before {
		t.Fatal("the refused resume changed files or rows")
	}
	// The same program with other arguments (a crafted database) is not the command allowed.
	raw.Exec(`UPDATE runs SET config = json_set(config, '$.opponents', json_array(?))`, "cmd:"+engine+" --evil")
	if _, stderr, code := runIn(t, dir, "resume", "1", "--allow-engine", engine); code == 0 || !strings.Contains(stderr, "--evil") {
		t.Fatalf("resume of other arguments with the program allowed: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the refused resume started the engine")
	}
	raw.Exec(`UPDATE runs SET config = json_set(config, '$.opponents', json_array(?))`, "cmd:"+engine)
	if _, stderr, code := runIn(t, dir, "resume", "1", "--allow-engine", engine); code != 0 {
		t.Fatalf("resume --allow-engine: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the allowed engine did not play")
	}
}
