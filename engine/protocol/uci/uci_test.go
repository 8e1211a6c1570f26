package uci_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evotune/engine"
	"evotune/engine/chess"
	"evotune/engine/protocol"
	"evotune/engine/protocol/uci"
	"evotune/engine/protocol/wire"
)

// toy is the path of the built testdata/uci-toy engine.
var toy string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "uci-toy")
	if err != nil {
		panic(err)
	}
	toy = filepath.Join(dir, "uci-toy")
	if out, err := exec.Command("go", "build", "-o", toy, "./testdata/uci-toy").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building uci-toy: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestParseOption(t *testing.T) {
	for _, c := range []struct {
		line string
		want string // name|type|default|min|max|vars
		ok   bool
	}{
		{"option name Hash type spin default 16 min 1 max 33554432", "Hash|spin|16|1|33554432|", true},
		{"option name Skill Level type spin default 20 min 0 max 20", "Skill Level|spin|20|0|20|", true},
		{"option name Piece Square Activity type spin default 100 min 0 max 400", "Piece Square Activity|spin|100|0|400|", true},
		{"option name Ponder type check default false", "Ponder|check|false|?|?|", true},
		{"option name Style type combo default Normal var Solid var Normal var Risky", "Style|combo|Normal|?|?|Solid,Normal,Risky", true},
		{"option name Clear Hash type button", "Clear Hash|button||?|?|", true},
		{"option name SyzygyPath type string default <empty>", "SyzygyPath|string|<empty>|?|?|", true},
		{"id name Stockfish 15.1", "", false},
		{"option name", "", false},
		// Control characters: a CR anywhere or a tab in a name would come back from
		// setoption as another name; tabs between words are whitespace.
		{"option name Pawn\rValue type spin default 100 min 0 max 400", "", false},
		{"option name King\tSafety type spin default 100 min 0 max 400", "", false},
		{"option name Hash\ttype spin default 16\tmin 1 max 64", "Hash|spin|16|1|64|", true},
	} {
		o, ok := uci.ParseOption(c.line)
		b := func(p *int64) string {
			if p == nil {
				return "?"
			}
			return fmt.Sprint(*p)
		}
		got := strings.Join([]string{o.Name, o.Type, o.Default, b(o.Min), b(o.Max), strings.Join(o.Vars, ",")}, "|")
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%q: %q %v, want %q %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

func TestCheckOptions(t *testing.T) {
	decl := uci.Declared([]string{"option name Skill Level type spin default 20 min 0 max 20",
		"option name Ponder type check default false", "option name Style type combo default Normal var Solid var Normal"})
	if err := uci.CheckOptions(decl, []wire.Option{{Name: "skill level", Value: "5"}, {Name: "Ponder", Value: "true"}, {Name: "Style", Value: "solid"}}); err != nil {
		t.Errorf("good options refused: %v", err)
	}
	for _, bad := range []wire.Option{{Name: "Skill Level", Value: "21"}, {Name: "Skill Level", Value: "x"}, {Name: "Skil Level", Value: "5"},
		{Name: "Ponder", Value: "1"}, {Name: "Style", Value: "Wild"}} {
		if err := uci.CheckOptions(decl, []wire.Option{bad}); err == nil || !strings.Contains(err.Error(), bad.Name) {
			t.Errorf("%+v: %v, want an error naming the option", bad, err)
		}
	}
}

func TestGoCommand(t *testing.T) {
	tc := &engine.TimeControl{Moves: 40, Base: time.Minute, Inc: 100 * time.Millisecond}
	own, opp := engine.Clock{Left: 5 * time.Second, MovesLeft: 7, Inc: 100 * time.Millisecond}, engine.Clock{Left: 3 * time.Second, MovesLeft: 8, Inc: 100 * time.Millisecond}
	// Each side's increment is its own clock's (a tournament engine of its own tc=).
	fast := engine.Clock{Left: 2 * time.Second, Inc: 20 * time.Millisecond}
	for _, c := range []struct {
		s    wire.Search
		side engine.Color
		want string
	}{
		{wire.Search{Nodes: 5000}, engine.Black, "go nodes 5000"},
		{wire.Search{Depth: 9}, engine.White, "go depth 9"},
		{wire.Search{}, engine.Black, "go movetime 250"},
		{wire.Search{TimeControl: tc, Own: own, Opp: opp}, engine.Black, "go wtime 5000 btime 3000 winc 100 binc 100 movestogo 7"},
		{wire.Search{TimeControl: tc, Own: own, Opp: opp}, engine.White, "go wtime 3000 btime 5000 winc 100 binc 100 movestogo 7"},
		{wire.Search{TimeControl: &engine.TimeControl{Base: 10 * time.Second, Inc: 100 * time.Millisecond}, Own: engine.Clock{Left: 9 * time.Second, Inc: 100 * time.Millisecond}, Opp: fast},
			engine.White, "go wtime 2000 btime 9000 winc 20 binc 100"},
	} {
		if got := uci.GoCommand(c.s, c.side, 250*time.Millisecond); got != c.want {
			t.Errorf("%+v: %q, want %q", c.s, got, c.want)
		}
	}
}

// serve runs uci.Serve over the commands and returns its output.
func serve(t *testing.T, commands string) string {
	t.Helper()
	g := chess.Game{}
	var out strings.Builder
	cfg := wire.Config{Game: g, Weights: g.DefaultWeights(), FallbackDepth: 2, Name: "evotune", Version: "test"}
	if err := uci.Serve(context.Background(), cfg, strings.NewReader(commands), &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestServe(t *testing.T) {
	out := serve(t, "uci\nisready\nposition fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\ngo depth 2\nquit\n")
	for _, want := range []string{"option name knight type spin default 320", "uciok", "readyok", "score mate 1", "bestmove a1a8"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// A queen valued at 1 centipawn is given away for a pawn.
	pos := "position fen 4k3/8/8/3p4/8/8/8/3QK3 w - - 0 1\ngo depth 2\n"
	if a, b := serve(t, pos), serve(t, "setoption name Queen value 1\n"+pos); !strings.Contains(a, "bestmove") || a == b ||
		!strings.Contains(b, "bestmove d1d5") {
		t.Errorf("setoption changed nothing or not as expected:\n%s\n---\n%s", a, b)
	}
	bad := serve(t, "setoption name Queen value 99999999\nsetoption name King value 5\nposition startpos moves e2e5\ngo nodes 100\nfrobnicate\n")
	if strings.Count(bad, "info string error") != 5 || !strings.Contains(bad, "bestmove (none)") {
		t.Errorf("bad commands not refused each:\n%s", bad)
	}
}

// match plays games of the toy (with args) against itself through the UCI client, as a
// match does: one External per seat, kept from game to game.
func match(t *testing.T, games int, white, black []string, spec protocol.ExternalSpec, opt engine.RefereeOptions) []engine.GameRecord {
	t.Helper()
	g := chess.Game{}
	sw, sb := spec, spec
	sw.Argv, sb.Argv = append([]string{toy}, white...), append([]string{toy}, black...)
	ew, eb := protocol.NewExternal(sw, g), protocol.NewExternal(sb, g)
	defer ew.Close()
	defer eb.Close()
	opt.Forfeit = true
	var recs []engine.GameRecord
	for i := 0; i < games; i++ {
		if i > 0 {
			for _, e := range []**protocol.External{&ew, &eb} {
				if !(*e).Reuse() {
					s := sw
					if *e == eb {
						s = sb
					}
					(*e).Close()
					*e = protocol.NewExternal(s, g)
				}
			}
		}
		b, _ := g.NewBoard(0)
		rec, err := engine.PlayGame(context.Background(), b, ew, eb, opt)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	return recs
}

func TestClientPlaysToy(t *testing.T) {
	spec := protocol.ExternalSpec{Nodes: 300, Protocol: uci.Name, MoveTime: 5 * time.Second}
	recs := match(t, 2, nil, nil, spec, engine.RefereeOptions{Opening: []string{"e2e4", "e7e5"}, MaxPlies: 60, MoveStats: true})
	for _, r := range recs {
		if r.Forfeit != "" || r.Plies < 10 || len(r.Stats) != len(r.Moves)-2 || r.Stats[0].NoScore || r.Stats[0].Nodes == 0 {
			t.Fatalf("game: %+v", r)
		}
	}
	if strings.Join(recs[0].Moves, " ") != strings.Join(recs[1].Moves, " ") {
		t.Errorf("a deterministic engine at go nodes played two games:\n%v\n%v", recs[0].Moves, recs[1].Moves)
	}
	// From a FEN: the toy mates in one as White.
	recs = match(t, 1, nil, nil, spec, engine.RefereeOptions{Opening: []string{chess.SetupMove("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")}})
	if recs[0].Outcome != engine.BlackWins || recs[0].Termination != chess.Checkmate || recs[0].Plies != 1 {
		t.Errorf("mate in one from a FEN: %v %q after %d plies", recs[0].Outcome, recs[0].Termination, recs[0].Plies)
	}
}

// TestClientFaults: each way an engine fails is a recorded forfeit with its reason, and the
// next game starts a new process that plays normally.
func TestClientFaults(t *testing.T) {
	spec := protocol.ExternalSpec{Nodes: 200, Protocol: uci.Name, MoveTime: 5 * time.Second, StartupTime: time.Second}
	for _, c := range []struct {
		fault       string
		termination string
		reason      string
	}{
		{"no-uciok", engine.TermForfeit, "start-up failure"},
		{"illegal", engine.TermIllegalMove, "a1a1"},
		{"none", engine.TermForfeit, "bestmove (none)"},
		{"crash", engine.TermForfeit, "exited"},
		{"spam", "", ""},
		{"chatter", "", ""},
	} {
		if c.fault == "spam" && testing.Short() {
			continue // 100 MB through the race detector's pipes takes a minute
		}
		recs := match(t, 2, []string{"-fault", c.fault}, nil, spec, engine.RefereeOptions{MaxPlies: 16})
		r := recs[0]
		if r.Termination != c.termination && !(c.termination == "" && r.Forfeit == "") ||
			!strings.Contains(r.Forfeit, c.reason) || c.termination != "" && r.Outcome != engine.WhiteWins {
			t.Errorf("%s: %v %q %q, want %q with %q", c.fault, r.Outcome, r.Termination, r.Forfeit, c.termination, c.reason)
		}
		if c.fault == "crash" && (r.Plies != 4 || recs[1].Forfeit == "") {
			t.Errorf("crash: after %d plies (want 4); next game %q (want a new process that crashes too)", r.Plies, recs[1].Forfeit)
		}
	}
	// Under a clock, a slow engine loses on time; the record says so.
	tc := engine.TimeControl{Base: 500 * time.Millisecond, Inc: 10 * time.Millisecond}
	spec = protocol.ExternalSpec{Protocol: uci.Name, TimeControl: &tc}
	r := match(t, 1, []string{"-fault", "slow"}, nil, spec, engine.RefereeOptions{TimeControl: &tc, MaxPlies: 16})[0]
	if r.Termination != engine.TermTimeLoss || r.Outcome != engine.WhiteWins {
		t.Errorf("slow engine under 0.5+0.01: %v %q %q", r.Outcome, r.Termination, r.Forfeit)
	}
}

// TestOptionsChecked: protocol.CheckOptions refuses an option the toy lacks and a value
// out of its bounds before any game, and the toy's own values reach it.
func TestOptionsChecked(t *testing.T) {
	g := chess.Game{}
	spec := protocol.ExternalSpec{Argv: []string{toy}, Protocol: uci.Name}
	for _, c := range []struct {
		opt  wire.Option
		want string
	}{
		{wire.Option{Name: "Hash", Value: "16"}, "no such option"},
		{wire.Option{Name: "queen", Value: "100001"}, "outside"},
		{wire.Option{Name: "queen\nquit", Value: "1"}, "control character"},
		{wire.Option{Name: "queen", Value: "1"}, ""},
	} {
		spec.Options = []wire.Option{c.opt}
		err := protocol.CheckOptions(context.Background(), spec, g)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
}

// TestStockfish plays Debian's stockfish through the client where it is installed (CI
// installs it; elsewhere the test is skipped).
func TestStockfish(t *testing.T) {
	sf, err := exec.LookPath("stockfish")
	if err != nil {
		if sf, err = exec.LookPath("/usr/games/stockfish"); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("stockfish is not installed (.ci/run installs it)")
			}
			t.Skip("stockfish not installed")
		}
	}
	g := chess.Game{}
	spec := protocol.ExternalSpec{Argv: []string{sf}, Protocol: uci.Name, Nodes: 2000, MoveTime: 5 * time.Second,
		Options: []wire.Option{{Name: "Threads", Value: "1"}, {Name: "Hash", Value: "8"}}}
	if err := protocol.CheckOptions(context.Background(), spec, g); err != nil {
		t.Fatal(err)
	}
	spec.Options = append(spec.Options, wire.Option{Name: "Skill Level", Value: "25"})
	if err := protocol.CheckOptions(context.Background(), spec, g); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("Skill Level 25: %v, want outside the engine's bounds", err)
	}
	e := protocol.NewExternal(protocol.ExternalSpec{Argv: []string{sf}, Protocol: uci.Name, Nodes: 2000, MoveTime: 5 * time.Second}, g)
	defer e.Close()
	toyE := protocol.NewExternal(protocol.ExternalSpec{Argv: []string{toy}, Protocol: uci.Name, Nodes: 500, MoveTime: 5 * time.Second}, g)
	defer toyE.Close()
	b, _ := g.NewBoard(0)
	rec, err := engine.PlayGame(context.Background(), b, e, toyE, engine.RefereeOptions{Forfeit: true, MaxPlies: 300, MoveStats: true})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Outcome != engine.BlackWins || rec.Termination != chess.Checkmate {
		t.Errorf("stockfish at 2000 nodes vs the toy: %v %q %q", rec.Outcome, rec.Termination, rec.Forfeit)
	}
}

// TestRetune: a new candidate's values reach a kept process as setoption lines before its
// next ucinewgame (one "uci" handshake in all, the new value in force: the toy's queen at
// 1 gives it away), and only options the engine declared do so.
func TestRetune(t *testing.T) {
	g := chess.Game{}
	ctx := context.Background()
	log := filepath.Join(t.TempDir(), "toy.log")
	spec := protocol.ExternalSpec{Argv: []string{toy}, Protocol: uci.Name, Nodes: 400, MoveTime: 5 * time.Second,
		LogFile: log, Options: []wire.Option{{Name: "queen", Value: "900"}}}
	e := protocol.NewExternal(spec, g)
	defer e.Close()
	// White's queen can take a defended pawn; at 900 it does not, at 1 it does.
	fen := chess.SetupMove("4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1")
	move := func() string {
		t.Helper()
		b, err := g.NewBoard(0)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Play(fen); err != nil {
			t.Fatal(err)
		}
		m, _, err := e.Move(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := move()
	cheap := spec
	cheap.Options = []wire.Option{{Name: "queen", Value: "1"}}
	if !e.Reuse() || !e.Retune(cheap) {
		t.Fatal("a declared option's new value did not retune the kept process")
	}
	second := move()
	if first == second {
		t.Errorf("queen 900 and queen 1 both played %s: the new value did not reach the engine", first)
	}
	undeclared := spec
	undeclared.Options = []wire.Option{{Name: "Hash", Value: "16"}}
	other := spec
	other.Argv = []string{toy, "-fault", "chatter"}
	if !e.Reuse() || e.Retune(undeclared) || e.Retune(other) {
		t.Error("retuned with an option the engine does not declare, or another command line")
	}
	// A spec without the queen option cannot take over the process: the queen's value of 1
	// would stay in force (a player without Skill Level playing at the other's level).
	bare := spec
	bare.Options = nil
	if !e.Reuse() || e.Retune(bare) {
		t.Error("retuned a process given queen=1 for a spec that sets no queen")
	}
	upper := spec
	upper.Options = []wire.Option{{Name: "Queen", Value: "900"}}
	if !e.Reuse() || !e.Retune(upper) {
		t.Error("an option named in another case (UCI names ignore case) did not retune")
	}
	e.Close()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, l := range strings.Split(string(data), "\n") {
		if _, s, ok := strings.Cut(l, " > "); ok {
			sent = append(sent, s)
		}
	}
	got := strings.Join(sent, " | ")
	if strings.Count(got, "uci |") != 1 || !strings.Contains(got, "setoption name queen value 1 | ucinewgame | isready") {
		t.Errorf("sent: %s", got)
	}
}
