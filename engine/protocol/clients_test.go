package protocol

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evotune/engine"
	"evotune/engine/amazons"
	"evotune/engine/connect6"
	"evotune/engine/gomoku"
	"evotune/engine/protocol/botzone"
	"evotune/engine/protocol/gomocup"
	"evotune/engine/protocol/wire"
)

// fakeBotEnv makes the test binary a Botzone bot (see TestMain): "eof" reads its whole
// input to end of input before answering (simple interaction, with debug, data and
// globaldata lines after the move, and the data it got on stderr); "json" speaks the JSON
// interaction.
const fakeBotEnv = "EVOTUNE_FAKE_BOTZONE_BOT"

// fakeBotGameEnv set to "connect6" makes the fake bot play ConnectSix (19×19, the paper's
// weights, depth 2) instead of the Amazons (8×8, depth 1).
const fakeBotGameEnv = "EVOTUNE_FAKE_BOTZONE_GAME"

// fakeBotConfig is what the fake bot plays.
func fakeBotConfig() wire.Config {
	if os.Getenv(fakeBotGameEnv) == "connect6" {
		g := connect6.Game{}
		return wire.Config{Game: g, Weights: g.DefaultWeights(), Limits: engine.Limits{Depth: 2, Width: 10}}
	}
	return wire.Config{Game: amazons.Game{}, Weights: amazons.Game{}.DefaultWeights(), Limits: engine.Limits{Depth: 1, Width: 4}, Board: 8}
}

func TestMain(m *testing.M) {
	switch os.Getenv(fakeBotEnv) {
	case "eof":
		in, _ := io.ReadAll(os.Stdin) // nothing is answered before end of input
		lines := strings.Split(strings.TrimRight(string(in), "\n"), "\n")
		n := 0
		fmt.Sscan(lines[0], &n)
		data := ""
		if len(lines) > 2*n {
			data = lines[2*n]
		}
		fmt.Fprintf(os.Stderr, "got data %q\n", data)
		var out bytes.Buffer
		botzone.Serve(context.Background(), fakeBotConfig(), bytes.NewReader(in), &out, io.Discard, false)
		fmt.Printf("%sdebug line\nd%d\nglobal\n", out.String(), n)
		os.Exit(0)
	case "gomocup": // evotune's Gomocup engine at depth 3, no clock
		g := gomoku.Game{}
		gomocup.Serve(context.Background(), wire.Config{Game: g, Weights: g.DefaultWeights(), Limits: engine.Limits{Depth: 4, Width: 12}}, os.Stdin, os.Stdout)
		os.Exit(0)
	case "keep":
		botzone.Serve(context.Background(), fakeBotConfig(), os.Stdin, os.Stdout, io.Discard, true)
		os.Exit(0)
	case "json":
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		botzone.Serve(context.Background(), fakeBotConfig(), strings.NewReader(line), os.Stdout, io.Discard, false)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// playOne plays a game of g between an external engine (Black) and a depth-1 built-in
// player, with forfeits, and returns the record.
func playOne(t *testing.T, g engine.Game, board int, spec ExternalSpec, maxPlies int) engine.GameRecord {
	t.Helper()
	b, err := g.NewBoard(board)
	if err != nil {
		t.Fatal(err)
	}
	ext := NewExternal(spec, g)
	defer ext.Close()
	p, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 1, Width: 3})
	rec, err := engine.PlayGame(context.Background(), b, ext, p, engine.RefereeOptions{Forfeit: true, MaxPlies: maxPlies})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// lateMargin is how much later than late.sh's answer (20 ms past its move time) the
// default tolerance (DefaultMoveOverhead) still accepts one: a machine that holds a
// process this long past its sleep can make the game a time loss.
const lateMargin = DefaultMoveOverhead - 20*time.Millisecond

// overrun is how much longer than 0.32 s a shell sleeping 0.32 s takes to come back on
// this machine now (started, slept, exited: the delay a late.sh answer meets).
func overrun(t *testing.T, dir string) time.Duration {
	t.Helper()
	begin := time.Now()
	cmd := exec.Command("sh", "-c", "sleep 0.32; echo x")
	cmd.Dir = dir
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return time.Since(begin) - 320*time.Millisecond
}

// TestClientsAsReferenceManagers: scripted engines that behave as real ones do — a slow
// start, chatter before the answer, ERROR replies to INFO keys they do not know, a help
// text at start-up, 'name' without 'name?', search lines before 'move', a Botzone bot that
// reads to end of input, one that speaks JSON, an answer a little after the move time —
// play their games with no forfeit, as the reference managers would score them; a real
// time loss still forfeits.
func TestClientsAsReferenceManagers(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) []string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755)
		return []string{p}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bot := func(mode string) []string {
		return script("bot-"+mode+".sh", fmt.Sprintf("%s=%s exec %q\n", fakeBotEnv, mode, self))
	}
	// Gomocup: plays down column 0. Slow start (0.8 s before OK, longer than the move
	// time), a banner, ERROR to every INFO, DEBUG and stray text before each move.
	chatty := script("chatty.sh", `y=0
echo "Welcome to chatty 1.0"
while read l; do case "$l" in
  START*) sleep 0.8; echo "loading tables... done"; echo OK;;
  INFO*) echo "ERROR unknown INFO key";;
  BEGIN|TURN*|DONE) echo "DEBUG depth 3"; echo "eval +12 (not a move)"; echo "0,$y"; y=$((y+1));;
  END) exit 0;;
esac; done
`)
	// Gomocup: answers about 20 ms after the move time, within the default tolerance
	// (DefaultMoveOverhead, 100 ms) and past a 1 ms one.
	late := script("late.sh", `y=0
while read l; do case "$l" in
  START*) echo OK;;
  BEGIN|TURN*|DONE) sleep 0.32; echo "0,$y"; y=$((y+1));;
esac; done
`)
	// SAU: a help text at start-up, knows 'name' but not 'name?', search lines before
	// every move; plays K11L11, K12L12, … (any legal Connect6 stones will do).
	sau := script("sau.sh", `echo "usage: engine [options]"
echo "  --depth N   search depth"
n=11; first=1
while read l; do case "$l" in
  name) echo "name fake6";;
  name?) echo "error: unknown command name?";;
  new*) ;;
  move*|new\ black) ;;
  quit|end) exit 0;;
esac
case "$l" in
  "new black") echo "VCF time : 0.001"; echo "move JJ"; first=0;;
  move*) echo "Searching i/42"; r=$(printf "\\$(printf '%03o' $((64+n)))"); echo "move A${r}B${r}"; n=$((n+1));;
esac; done
`)
	cases := []struct {
		name   string
		g      engine.Game
		board  int
		spec   ExternalSpec
		plies  int
		inLog  string // words the transcript must have
		invert bool   // expect a forfeit (a real time loss)
	}{
		{"gomocup chatty, slow start", gomoku.Game{}, 0, ExternalSpec{Argv: chatty, MoveTime: 300 * time.Millisecond}, 6, "ERROR unknown INFO key", false},
		{"gomocup 20 ms late, default tolerance", gomoku.Game{}, 0, ExternalSpec{Argv: late, MoveTime: 300 * time.Millisecond}, 6, "", false},
		{"gomocup 20 ms late, no tolerance", gomoku.Game{}, 0, ExternalSpec{Argv: late, MoveTime: 300 * time.Millisecond, Overhead: time.Millisecond}, 6, "", true},
		{"sau name only, help text, search lines", connect6.Game{}, 0, ExternalSpec{Argv: sau, MoveTime: 500 * time.Millisecond}, 5, "Searching i/42", false},
		{"botzone read to EOF", amazons.Game{}, 8, ExternalSpec{Argv: bot("eof"), MoveTime: 2 * time.Second}, 6, `got data "d1"`, false},
		{"botzone JSON", amazons.Game{}, 8, ExternalSpec{Argv: bot("json"), MoveTime: 2 * time.Second, BotzoneJSON: true}, 6, "", false},
		{"botzone keep-running", amazons.Game{}, 8, ExternalSpec{Argv: bot("keep"), MoveTime: 2 * time.Second, BotzoneKeepRunning: true,
			LogFile: filepath.Join(dir, "keep.log")}, 8, "", false},
	}
	for _, c := range cases {
		// A loaded machine can hold any process past any tolerance, and the referee is
		// right to forfeit it then; so a game that should not forfeit gets five tries
		// when it loses on time, and after each lost try the machine's delay is measured
		// (overrun: how late a process sleeping 0.32 s, as late.sh does, comes back). A
		// game lost on every try while that delay reached the tolerance's margin (the
		// machine, not the referee, made it late) is logged, not failed; one lost while
		// the machine answered in time fails. An engine scored without the tolerance
		// loses every try.
		rec := playOne(t, c.g, c.board, c.spec, c.plies)
		loaded := true // every lost try so far was on a machine slower than the margin
		for try := 1; try <= 5 && !c.invert && strings.Contains(rec.Forfeit, "time loss"); try++ {
			d := overrun(t, dir)
			loaded = loaded && d >= lateMargin
			t.Logf("%s: try %d lost on time on this machine (a 0.32 s sleep came back %v late): %s", c.name, try, d, rec.Forfeit)
			if try == 5 {
				break
			}
			if c.spec.LogFile != "" {
				os.Remove(c.spec.LogFile)
			}
			rec = playOne(t, c.g, c.board, c.spec, c.plies)
		}
		if !c.invert && strings.Contains(rec.Forfeit, "time loss") && loaded {
			t.Logf("%s: lost on time on every try, each while this machine held a process past the tolerance's margin of %v: not the referee's doing", c.name, lateMargin)
			continue
		}
		switch {
		case c.invert && !strings.Contains(rec.Forfeit, "time loss"):
			t.Errorf("%s: forfeit %q, want a time loss", c.name, rec.Forfeit)
		case !c.invert && rec.Forfeit != "":
			t.Errorf("%s: forfeited: %s\ntranscript:\n%s", c.name, rec.Forfeit, rec.BlackLog)
		case !c.invert && rec.Plies < c.plies:
			t.Errorf("%s: the game stopped at ply %d: %v", c.name, rec.Plies, rec.Moves)
		case !strings.Contains(rec.BlackLog, c.inLog):
			t.Errorf("%s: the transcript lacks %q:\n%s", c.name, c.inLog, rec.BlackLog)
		}
	}
	// The keep-running bot was started once for the whole game, and its full transcript
	// (LogFile) holds what was sent and read: the first full input, then one request a turn.
	log, err := os.ReadFile(filepath.Join(dir, "keep.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "# started"); n != 1 {
		t.Fatalf("the keep-running bot was started %d times:\n%s", n, log)
	}
	if strings.Count(string(log), "< "+botzone.KeepRunning) < 3 || strings.Count(string(log), "> ") < 4 {
		t.Fatalf("keep.log lacks the turns:\n%s", log)
	}
}

// TestConnect6OverBotzone: a Connect6 engine speaking Botzone (ConnectSix) plays from an
// opening holding stones of both colours — what SAU cannot give it — as Black and as White,
// in each way of Botzone (a process per move reading to end of input, JSON, keep-running),
// and plays exactly the game the same search plays in process: the moves went through the
// protocol both ways unchanged.
func TestConnect6OverBotzone(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g := connect6.Game{}
	opening := []string{"J10", "K10L10", "J11J12"} // White to move; opening[:2]: Black to move
	in := func() engine.Player {
		p, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 2, Width: 10})
		return p
	}
	for _, mode := range []string{"eof", "json", "keep"} {
		path := filepath.Join(dir, "c6-"+mode+".sh")
		os.WriteFile(path, []byte(fmt.Sprintf("#!/bin/sh\n%s=%s %s=connect6 exec %q\n", fakeBotEnv, mode, fakeBotGameEnv, self)), 0o755)
		spec := ExternalSpec{Argv: []string{path}, MoveTime: 5 * time.Second, Protocol: Botzone,
			BotzoneJSON: mode == "json", BotzoneKeepRunning: mode == "keep"}
		for _, open := range [][]string{opening, opening[:2]} { // the engine is White, then Black
			const plies = 9
			want, err := engine.PlayGame(context.Background(), mustBoard(t, g), in(), in(), engine.RefereeOptions{Opening: open, MaxPlies: plies})
			if err != nil {
				t.Fatal(err)
			}
			ext := NewExternal(spec, g)
			black, white := in(), engine.Player(ext)
			if len(open)%2 == 0 {
				black, white = ext, in()
			}
			got, err := engine.PlayGame(context.Background(), mustBoard(t, g), black, white, engine.RefereeOptions{Opening: open, MaxPlies: plies, Forfeit: true})
			ext.Close()
			if err != nil || got.Forfeit != "" {
				t.Fatalf("%s, opening %v: %v %s\n%s", mode, open, err, got.Forfeit, got.BlackLog+got.WhiteLog)
			}
			if strings.Join(got.Moves, " ") != strings.Join(want.Moves, " ") {
				t.Fatalf("%s, opening %v: through Botzone %v, in process %v", mode, open, got.Moves, want.Moves)
			}
		}
	}
	if err := CheckProtocol(g, Botzone); err != nil {
		t.Fatal(err)
	}
	if err := CheckProtocol(gomoku.Game{}, Botzone); err == nil || !strings.Contains(err.Error(), "gomoku engines speak gomocup") {
		t.Fatalf("gomoku over Botzone: %v", err)
	}
	for _, c := range []struct {
		g    engine.Game
		want string
	}{{gomoku.Game{}, "gomocup"}, {gomoku.Game{Rule: gomoku.Renju}, "gomocup"}, {g, "sau botzone"}, {amazons.Game{}, "botzone"}} {
		if got := strings.Join(Protocols(c.g), " "); got != c.want {
			t.Errorf("Protocols(%s) = %q, want %q (the default first)", c.g.Name(), got, c.want)
		}
	}
	if (&ExternalSpec{}).AcceptsOpenings(g) || !(&ExternalSpec{Protocol: Botzone}).AcceptsOpenings(g) {
		t.Fatal("SAU engines cannot take openings; Botzone engines can")
	}
}

func mustBoard(t *testing.T, g engine.Game) engine.Board {
	t.Helper()
	b, err := g.NewBoard(0)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestServerGameIsInProcessGame: evotune's engine served over Gomocup keeps its player (and
// transposition table) through a game and starts the next game (RESTART) exactly fresh, as
// the in-process player does: three games in one process, at depth 3 where the table
// changes the search, are the in-process games move for move.
func TestServerGameIsInProcessGame(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gomocup.sh")
	os.WriteFile(path, []byte(fmt.Sprintf("#!/bin/sh\n%s=gomocup exec %q\n", fakeBotEnv, self)), 0o755)
	g := gomoku.Game{}
	ext := NewExternal(ExternalSpec{Argv: []string{path}, MoveTime: 10 * time.Second}, g)
	defer ext.Close()
	in, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 4, Width: 12})
	fresh := func() engine.Player {
		p, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 4, Width: 12})
		return p
	}
	for i, open := range [][]string{{"h8", "h9", "j10"}, {"g7", "h8", "j8", "h9"}, {"h8", "i9", "g9"}} {
		if i > 0 && !ext.Reuse() {
			t.Fatal("the engine process could not be reused")
		}
		in.(engine.Resetter).Reset(g.DefaultWeights())
		// The served engine plays the side to move after the opening, against a fresh
		// in-process player; in process, a player kept across games (reset) plays that side.
		black, white := engine.Player(ext), fresh()
		inBlack, inWhite := in, fresh()
		if len(open)%2 == 1 {
			black, white, inBlack, inWhite = fresh(), ext, fresh(), in
		}
		want, err := engine.PlayGame(context.Background(), mustBoard(t, g), inBlack, inWhite, engine.RefereeOptions{Opening: open, MaxPlies: 40})
		if err != nil {
			t.Fatal(err)
		}
		got, err := engine.PlayGame(context.Background(), mustBoard(t, g), black, white, engine.RefereeOptions{Opening: open, MaxPlies: 40, Forfeit: true})
		if err != nil || got.Forfeit != "" {
			t.Fatalf("game %d: %v %s", i, err, got.Forfeit)
		}
		if strings.Join(got.Moves, " ") != strings.Join(want.Moves, " ") {
			t.Fatalf("game %d from %v:\nthrough Gomocup %v\nin process      %v", i, open, got.Moves, want.Moves)
		}
	}
}
