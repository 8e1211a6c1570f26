package protocol

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"evotune/engine"
	"evotune/engine/amazons"
	"evotune/engine/connect6"
	"evotune/engine/gomoku"
)

func cfgFor(g engine.Game, board int) Config {
	lim := g.DefaultLimits()
	lim.Depth = 2
	return Config{Game: g, Weights: g.DefaultWeights(), Limits: lim, Board: board, Name: "evotune", Version: "test"}
}

// outLines splits an engine's output into its answers, leaving out Gomocup's MESSAGE lines
// (search information for the manager's log; TestGomocupMessages checks them).
func outLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if !strings.HasPrefix(l, "MESSAGE ") {
			out = append(out, l)
		}
	}
	return out
}

// TestGomocupTranscript drives a scripted session (CR LF line ends, as Piskvork sends)
// and checks every answer.
func TestGomocupTranscript(t *testing.T) {
	in := "ABOUT\r\nBEGIN\r\nSTART 40\r\nSTART 15\r\nINFO timeout_turn 2000\r\nINFO rule 1\r\nBEGIN\r\nTURN 8,8\r\n" +
		"TURN 8,8\r\nTURN 1,2,3\r\nRESTART\r\nBOARD\r\n7,7,2\r\n7,8,1\r\n8,8,2\r\nDONE\r\nTAKEBACK 0,0\r\nRECTSTART 15,20\r\nHELLO\r\nEND\r\nSTART 15\r\n"
	var out bytes.Buffer
	if err := ServeGomocup(context.Background(), cfgFor(gomoku.Game{}, 0), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := outLines(out.String())
	checks := []func(string) bool{
		func(s string) bool { return strings.HasPrefix(s, `name="evotune"`) },
		func(s string) bool { return strings.HasPrefix(s, "ERROR no START") },
		func(s string) bool { return strings.HasPrefix(s, "ERROR unsupported board size") },
		func(s string) bool { return s == "OK" },
		func(s string) bool { return s == "7,7" }, // BEGIN on an empty board: the centre
		func(s string) bool { return isXY(s, 15) && s != "8,8" && s != "7,7" },
		func(s string) bool { return strings.HasPrefix(s, "ERROR") }, // TURN onto an occupied point
		func(s string) bool { return strings.HasPrefix(s, "ERROR") }, // malformed TURN
		func(s string) bool { return s == "OK" },                     // RESTART
		func(s string) bool { return isXY(s, 15) && s != "7,7" && s != "7,8" && s != "8,8" },
		func(s string) bool { return strings.HasPrefix(s, "ERROR TAKEBACK") },
		func(s string) bool { return strings.HasPrefix(s, "ERROR unsupported board") },
		func(s string) bool { return strings.HasPrefix(s, "UNKNOWN") },
	}
	if len(got) != len(checks) {
		t.Fatalf("%d answers, want %d (nothing after END):\n%s", len(got), len(checks), out.String())
	}
	for i, ok := range checks {
		if !ok(got[i]) {
			t.Errorf("answer %d = %q", i+1, got[i])
		}
	}
}

func isXY(s string, n int) bool {
	a, b, ok := strings.Cut(s, ",")
	x, e1 := strconv.Atoi(a)
	y, e2 := strconv.Atoi(b)
	return ok && e1 == nil && e2 == nil && x >= 0 && y >= 0 && x < n && y < n
}

// TestGomocupWinsAndBlocks: a BOARD with evotune's open four must be answered by the win;
// with the opponent's four, by the block.
func TestGomocupWinsAndBlocks(t *testing.T) {
	for _, tc := range []struct {
		board string
		want  []string
	}{
		{"5,7,1\n6,7,1\n7,7,1\n8,7,1\n5,9,2\n6,9,2\n7,9,2\n1,1,2\n", []string{"4,7", "9,7"}},
		{"5,7,2\n6,7,2\n7,7,2\n8,7,2\n5,9,1\n6,9,1\n12,12,1\n", []string{"4,7", "9,7"}},
	} {
		var out bytes.Buffer
		in := "START 15\nBOARD\n" + tc.board + "DONE\nEND\n"
		ServeGomocup(context.Background(), cfgFor(gomoku.Game{}, 0), strings.NewReader(in), &out)
		got := outLines(out.String())[1]
		if got != tc.want[0] && got != tc.want[1] {
			t.Errorf("board %q: answered %s, want one of %v", tc.board, got, tc.want)
		}
	}
}

func TestSAUTranscript(t *testing.T) {
	in := "name?\nmove JJ\nnew white\nmove JJ@@\nmove KKLL\nnew black\nmove KK\nfoo bar\nend\nmove JJKK\nquit\nname?\n"
	var out bytes.Buffer
	if err := ServeSAU(context.Background(), cfgFor(connect6.Game{}, 0), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := outLines(out.String())
	if len(got) != 8 {
		t.Fatalf("%d answers:\n%s", len(got), out.String())
	}
	want := []string{"name evotune", "error no game", "move ", "move ", "move JJ", "error", "error unknown command", "error no game"}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("answer %d = %q, want prefix %q", i+1, got[i], w)
		}
	}
	if len(strings.TrimPrefix(got[2], "move ")) != 4 {
		t.Errorf("White's reply %q is not two stones", got[2])
	}
	var padded bytes.Buffer
	pc := cfgFor(connect6.Game{}, 0)
	pc.PadFirstMove = true
	ServeSAU(context.Background(), pc, strings.NewReader("new black\nquit\n"), &padded)
	if strings.TrimSpace(padded.String()) != "move JJ@@" {
		t.Errorf("padded first move: %q", padded.String())
	}
	for _, c := range []struct{ sau, note string }{{"JJ", "J10"}, {"AA", "A19"}, {"SS", "S1"}, {"JJKK", "J10K9"}, {"JJ@@", "J10"}} {
		n, err := connect6.Game{}.ParseSAUMove(c.sau)
		back, _ := connect6.Game{}.SAUMove(n)
		if err != nil || n != c.note || back != strings.TrimSuffix(c.sau, "@@") {
			t.Errorf("%s → %s → %s (%v), want %s", c.sau, n, back, err, c.note)
		}
	}
}

func TestBotzoneTranscript(t *testing.T) {
	cfg := cfgFor(amazons.Game{}, 8)
	// Turn 1 as Black, simple interaction.
	var out, errOut bytes.Buffer
	ServeBotzone(context.Background(), cfg, strings.NewReader("1\n-1 -1 -1 -1 -1 -1\n"), &out, &errOut, false)
	first := strings.TrimSpace(out.String())
	b, _ := amazons.Game{}.NewBoard(8)
	if err := b.Play(first); err != nil {
		t.Fatalf("Black's first move %q is illegal: %v", first, err)
	}
	// Keep-running as White: the full first input, then one new request per turn.
	var kout bytes.Buffer
	r1 := first
	in := "1\n" + r1 + "\n"
	ServeBotzone(context.Background(), cfg, strings.NewReader(in+"garbage line\n"), &kout, &errOut, true)
	got := outLines(kout.String())
	if len(got) != 4 || got[1] != KeepRunning || got[3] != KeepRunning || got[2] != botzoneNoMove(6) {
		t.Fatalf("keep-running transcript:\n%s", kout.String())
	}
	if err := b.Play(got[0]); err != nil {
		t.Fatalf("White's reply %q is illegal: %v", got[0], err)
	}
	if !strings.Contains(errOut.String(), "garbage") {
		t.Fatalf("no reason for the bad request on stderr: %q", errOut.String())
	}
}

// TestProtocolSelfPlay: two evotune engines play a whole game through each protocol's
// server, every move checked by a referee board.
func TestProtocolSelfPlay(t *testing.T) {
	// Gomocup: feed BOARD positions from a referee until the game ends.
	b, _ := gomoku.Game{}.NewBoard(0)
	var hist []string
	for b.Outcome() == engine.Ongoing && b.Ply() < 60 {
		var in strings.Builder
		in.WriteString("START 15\nBOARD\n")
		for i, m := range hist {
			x := int(m[0] - 'a')
			row, _ := strconv.Atoi(m[1:])
			field := 2
			if i%2 == len(hist)%2 {
				field = 1
			}
			in.WriteString(strconv.Itoa(x) + "," + strconv.Itoa(15-row) + "," + strconv.Itoa(field) + "\n")
		}
		in.WriteString("DONE\nEND\n")
		if len(hist) == 0 {
			in.Reset()
			in.WriteString("START 15\nBEGIN\nEND\n")
		}
		var out bytes.Buffer
		ServeGomocup(context.Background(), cfgFor(gomoku.Game{}, 0), strings.NewReader(in.String()), &out)
		ans := outLines(out.String())[1]
		xs, ys, _ := strings.Cut(ans, ",")
		x, _ := strconv.Atoi(xs)
		y, _ := strconv.Atoi(ys)
		m := string(rune('a'+x)) + strconv.Itoa(15-y)
		if err := b.Play(m); err != nil {
			t.Fatalf("ply %d: engine answered %s (%s): %v", b.Ply(), ans, m, err)
		}
		hist = append(hist, m)
	}
	if b.Ply() < 9 {
		t.Fatalf("gomocup self-play ended after %d plies", b.Ply())
	}
}

// TestGomocupTimeControl: with no depth limit the search would not end; it answers only
// because INFO timeout_turn / time_left bound each move (iterative deepening keeps the last
// finished depth), within the budget. The test fails after a minute instead of hanging if
// that breaks.
func TestGomocupTimeControl(t *testing.T) {
	cfg := cfgFor(gomoku.Game{}, 0)
	cfg.Limits = engine.Limits{} // no depth, no width: only the protocol's time bounds it
	for _, tc := range []struct {
		info   string
		budget time.Duration
	}{
		{"INFO timeout_turn 150", 150 * time.Millisecond},
		{"INFO timeout_match 100000\nINFO time_left 3000", 3000 * time.Millisecond / matchShare},
	} {
		in := "START 15\n" + tc.info + "\nBOARD\n7,7,2\n8,8,1\n7,8,2\nDONE\nEND\n"
		done := make(chan string, 1)
		start := time.Now()
		go func() {
			var out bytes.Buffer
			ServeGomocup(context.Background(), cfg, strings.NewReader(in), &out)
			done <- out.String()
		}()
		select {
		case out := <-done:
			if got := outLines(out); len(got) != 2 || !isXY(got[len(got)-1], 15) {
				t.Fatalf("%s: answers %q", tc.info, out)
			}
			// Not a timing assertion on the search: a search that ignores the budget runs
			// for minutes here (no depth limit), far beyond this bound.
			if el := time.Since(start); el > 10*tc.budget {
				t.Fatalf("%s: answered after %v, budget %v", tc.info, el, tc.budget)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: no answer: the time control does not stop the search", tc.info)
		}
	}
}

// TestGomocupMessages: every answer to a move request is preceded by one MESSAGE line
// with the search's depth, score, nodes, NPS, time and principal variation, whose first
// move is the answer.
func TestGomocupMessages(t *testing.T) {
	var out bytes.Buffer
	ServeGomocup(context.Background(), cfgFor(gomoku.Game{}, 0), strings.NewReader("START 15\nBEGIN\nTURN 8,8\nEND\n"), &out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	re := regexp.MustCompile(`^MESSAGE depth (\d+) score -?\d+ nodes \d+ nps \S+ time \d+\.\d+s pv ([a-o]\d+)`)
	var answers int
	for i, l := range lines {
		if !isXY(l, 15) {
			continue
		}
		answers++
		m := re.FindStringSubmatch(lines[max(i-1, 0)])
		if m == nil {
			t.Fatalf("answer %q not preceded by a MESSAGE line: %q", l, out.String())
		}
		var x, y int
		fmt.Sscanf(l, "%d,%d", &x, &y)
		if want := fmt.Sprintf("%c%d", 'a'+rune(x), 15-y); m[2] != want {
			t.Fatalf("MESSAGE pv starts %s, the answer is %s", m[2], want)
		}
	}
	if answers != 2 {
		t.Fatalf("%d answers in %q", answers, out.String())
	}
}

func TestExternalClient(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	write := func(name, body string) []string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755)
		return []string{p}
	}
	// Plays down column 0 from the top: legal until the game ends or the column fills.
	column := write("column.sh", `y=0
while read l; do case "$l" in START*) echo OK;; BEGIN|TURN*|DONE) echo "MESSAGE thinking"; echo "0,$y"; y=$((y+1));; END) exit 0;; esac; done
`)
	// Plays two legal moves, then dies in the middle of the game.
	crash := write("crash.sh", `n=0
while read l; do case "$l" in START*) echo OK;; BEGIN|TURN*|DONE) [ $n -ge 2 ] && exit 7; echo "14,$n"; n=$((n+1));; esac; done
`)
	silent := write("silent.sh", `while read l; do case "$l" in START*) echo OK;; esac; done
`)
	g := gomoku.Game{}
	for _, tc := range []struct {
		argv    []string
		forfeit string
	}{{column, ""}, {crash, "exited"}, {silent, "time loss"}} {
		b, _ := g.NewBoard(0)
		ext := NewExternal(ExternalSpec{Argv: tc.argv, MoveTime: 300 * time.Millisecond}, g)
		p, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 1, Width: 3})
		rec, err := engine.PlayGame(context.Background(), b, ext, p, engine.RefereeOptions{Forfeit: true, MaxPlies: 40})
		ext.Close()
		if err != nil {
			t.Fatalf("%v: %v", tc.argv, err)
		}
		if !strings.Contains(rec.Forfeit, tc.forfeit) || (tc.forfeit != "" && rec.Outcome != engine.WhiteWins) {
			t.Fatalf("%v: outcome %v forfeit %q, want %q", tc.argv, rec.Outcome, rec.Forfeit, tc.forfeit)
		}
		if tc.forfeit == "" && (rec.Plies < 3 || rec.Moves[0] != "a15") {
			t.Fatalf("column engine: %v", rec.Moves)
		}
		if tc.forfeit == "exited" && rec.Plies != 4 {
			t.Fatalf("the crashing engine should die at its third move (ply 4), died at ply %d: %v", rec.Plies, rec.Moves)
		}
	}
}

// TestExternalSendAfterExit: an engine that prints a line and exits before reading its
// input makes the next command fail with a broken pipe; what it printed must still reach
// the transcript (the only clue to why it died), however the exit and the write race.
func TestExternalSendAfterExit(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	p := filepath.Join(t.TempDir(), "crash.sh")
	os.WriteFile(p, []byte("#!/bin/sh\necho hello; exit 3\n"), 0o755)
	e := NewExternal(ExternalSpec{Argv: []string{p}}, gomoku.Game{})
	defer e.Close()
	if err := e.start(); err != nil {
		t.Fatal(err)
	}
	<-e.exited // its output is closed: the line sits unread, as when the write loses the race
	// Its output closes a moment before its input does (seen here: a write right after the
	// EOF still succeeded): wait until the process is a zombie, every descriptor closed.
	waitZombie(t, e.cmd.Process.Pid)
	if err := e.send("START 15"); err == nil || !strings.Contains(err.Error(), "exited or stopped reading") {
		t.Fatalf("send to an engine that exited: %v", err)
	}
	if tr := e.Transcript(); !strings.Contains(tr, "stdout: hello") {
		t.Fatalf("transcript %q lacks what the engine printed before it exited", tr)
	}
}

// waitZombie waits (at most 5 s) until process pid has exited and is not yet reaped: all
// its file descriptors are closed. Without /proc it waits 200 ms.
func waitZombie(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			time.Sleep(200 * time.Millisecond)
			return
		}
		// stat is "pid (comm) S …": the state follows the last ')'.
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("process %d did not exit within 5 s", pid)
}
