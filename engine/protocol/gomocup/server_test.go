package gomocup

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"evotune/engine"
	"evotune/engine/gomoku"
	"evotune/engine/protocol/wire"
)

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
	if err := Serve(context.Background(), cfgFor(gomoku.Game{}, 0), strings.NewReader(in), &out); err != nil {
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
		Serve(context.Background(), cfgFor(gomoku.Game{}, 0), strings.NewReader(in), &out)
		got := outLines(out.String())[1]
		if got != tc.want[0] && got != tc.want[1] {
			t.Errorf("board %q: answered %s, want one of %v", tc.board, got, tc.want)
		}
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
		go func() {
			var out bytes.Buffer
			Serve(context.Background(), cfg, strings.NewReader(in), &out)
			done <- out.String()
		}()
		select {
		case out := <-done:
			if got := outLines(out); len(got) != 2 || !isXY(got[len(got)-1], 15) {
				t.Fatalf("%s: answers %q", tc.info, out)
			}
		case <-time.After(time.Minute):
			// A search that ignores the budget runs for many minutes here (no depth limit).
			t.Fatalf("%s: no answer: the time control does not stop the search", tc.info)
		}
	}
}

// TestGomocupMessages: every answer to a move request is preceded by one MESSAGE line
// with the search's depth, score, nodes, NPS, time and principal variation, whose first
// move is the answer.
func TestGomocupMessages(t *testing.T) {
	var out bytes.Buffer
	Serve(context.Background(), cfgFor(gomoku.Game{}, 0), strings.NewReader("START 15\nBEGIN\nTURN 8,8\nEND\n"), &out)
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

// TestGomocupBoardOrder: a BOARD position is judged as a position, whatever the order of
// its lines. Black (evotune's stones) holds six in a row; under exact five (INFO rule 1) the
// game goes on in both orders, including the one whose replay passes through an exact
// five; under freestyle the six is a win and both orders are refused.
func TestGomocupBoardOrder(t *testing.T) {
	white := "0,0,2\n0,2,2\n0,4,2\n14,0,2\n14,2,2\n14,4,2\n"
	row := func(xs ...int) string {
		var sb strings.Builder
		for _, x := range xs {
			fmt.Fprintf(&sb, "%d,7,1\n", x)
		}
		return sb.String()
	}
	for _, rule := range []struct {
		info    string
		refused bool
	}{{"1", false}, {"0", true}} {
		var answers []string
		for _, blacks := range []string{row(3, 4, 5, 6, 7, 8), row(3, 4, 6, 7, 8, 5)} {
			in := "START 15\nINFO rule " + rule.info + "\nBOARD\n" + blacks + white + "DONE\nEND\n"
			var out bytes.Buffer
			Serve(context.Background(), cfgFor(gomoku.Game{}, 0), strings.NewReader(in), &out)
			got := outLines(out.String())
			if len(got) != 2 || got[0] != "OK" {
				t.Fatalf("rule %s: answers %q", rule.info, got)
			}
			answers = append(answers, got[1])
		}
		for _, a := range answers {
			if strings.HasPrefix(a, "ERROR") != rule.refused {
				t.Fatalf("rule %s: answers %q; want refused=%v for both orders", rule.info, answers, rule.refused)
			}
		}
		if !rule.refused && answers[0] != answers[1] {
			t.Fatalf("rule %s: the two orders of one position got different moves %q", rule.info, answers)
		}
	}
}

// TestGomocupSwap2Server: evotune as a Gomocup engine answers SWAP2BOARD: three legal
// stones on the empty board, then SWAP or one legal move after three and after five.
func TestGomocupSwap2Server(t *testing.T) {
	in := "START 15\nSWAP2BOARD\nDONE\nSWAP2BOARD\n7,7\n7,6\n8,6\nDONE\nSWAP2BOARD\n7,7\n7,6\n8,6\n8,7\n6,8\nDONE\nSWAP2BOARD\n7,7\nDONE\nEND\n"
	var out bytes.Buffer
	Serve(context.Background(), cfgFor(gomoku.Game{}, 0), strings.NewReader(in), &out)
	got := outLines(out.String())
	if len(got) != 5 || got[0] != "OK" || !strings.HasPrefix(got[4], "ERROR") {
		t.Fatalf("answers %q", got)
	}
	f := strings.Fields(got[1])
	b, _ := gomoku.Game{}.NewBoard(15)
	for _, xy := range f {
		if !isXY(xy, 15) {
			t.Fatalf("proposal %q is not x,y stones", got[1])
		}
		var x, y int
		fmt.Sscanf(xy, "%d,%d", &x, &y)
		if err := b.Play(fmt.Sprintf("%c%d", 'a'+x, 15-y)); err != nil {
			t.Fatalf("proposal %q: %v", got[1], err)
		}
	}
	if len(f) != 3 {
		t.Fatalf("proposal %q: want three stones", got[1])
	}
	for _, a := range got[2:4] {
		if a != "SWAP" && !isXY(a, 15) {
			t.Fatalf("answer %q: want SWAP or one move", a)
		}
	}
}

func cfgFor(g engine.Game, board int) wire.Config {
	lim := g.DefaultLimits()
	lim.Depth = 2
	return wire.Config{Game: g, Weights: g.DefaultWeights(), Limits: lim, Board: board, Name: "evotune", Version: "test"}
}

// TestProtocolSelfPlay: two evotune engines play a whole game through the Gomocup
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
		Serve(context.Background(), cfgFor(gomoku.Game{}, 0), strings.NewReader(in.String()), &out)
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
