package match

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"evotune/engine"
	"evotune/engine/gomoku"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/stats"
)

// weakGomoku scores the patterns in reverse: a dead two above a live four.
func weakGomoku() engine.Weights {
	w := gomoku.DefaultWeights()
	for i := range w.Scores {
		w.Scores[i] = float64(i + 1)
	}
	return w
}

func gomokuSetup() arena.GameSetup {
	return arena.GameSetup{Game: gomoku.Game{}, Limits: engine.Limits{Depth: 2, Width: 8}, MaxPlies: 225}
}

// TestMatchSPRTIndependentOfWorkers: a weakened player loses, the SPRT accepts H0 and
// stops early, and the record is the same with 1 and 3 workers.
func TestMatchSPRTIndependentOfWorkers(t *testing.T) {
	ops, _, err := arena.SelectOpenings("random", gomoku.Game{}, 0, 200, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	sprt := stats.DefaultSPRT
	var prints []string
	for _, workers := range []int{1, 3} {
		res, err := Play(context.Background(), Config{Setup: gomokuSetup(), A: weakGomoku(), B: gomoku.DefaultWeights(),
			Games: 400, Openings: ops, SPRT: &sprt, Workers: workers}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != stats.AcceptH0 || res.Result.Games() >= 400 || res.Estimate.Elo > -100 {
			t.Fatalf("weak vs default: verdict %s after %d games, Elo %v", res.Verdict, res.Result.Games(), res.Estimate.Elo)
		}
		if res.LLR > res.Lower {
			t.Fatalf("stopped with LLR %v above the lower bound %v", res.LLR, res.Lower)
		}
		prints = append(prints, fmt.Sprintf("%+v %v", res.Result, res.LLR))
	}
	if prints[0] != prints[1] {
		t.Fatalf("1 and 3 workers differ: %s vs %s", prints[0], prints[1])
	}
}

func TestMatchSelfIsEven(t *testing.T) {
	ops, _ := arena.BuiltinOpenings(gomoku.Game{}, 0)
	res, err := Play(context.Background(), Config{Setup: gomokuSetup(), A: gomoku.DefaultWeights(), B: gomoku.DefaultWeights(),
		Games: 52, Openings: ops, Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := res.Estimate
	if res.Result.Games() != 52 || res.Result.Pairs() != 26 || e.EloLow > 0 || e.EloHigh < 0 {
		t.Fatalf("self-match: %+v, CI [%v, %v]", res.Result, e.EloLow, e.EloHigh)
	}
	if _, err := Play(context.Background(), Config{Setup: gomokuSetup(), A: gomoku.DefaultWeights(), B: gomoku.DefaultWeights(), Games: 3, Openings: ops}, nil); err == nil {
		t.Fatal("odd games accepted")
	}
}

// TestDeterministicGamesCountedOnce: two fixed-depth engines from 26 openings have only 52
// distinct games; asking for 1 000 plays and counts each once and says so.
func TestDeterministicGamesCountedOnce(t *testing.T) {
	ops, _ := arena.BuiltinOpenings(gomoku.Game{}, 0)
	res, err := Play(context.Background(), Config{Setup: gomokuSetup(), A: weakGomoku(), B: gomoku.DefaultWeights(),
		Games: 1000, Openings: append(ops, ops...), Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Deterministic || res.Requested != 1000 || res.Result.Games() != 52 || res.Result.Pairs() != 26 || res.Estimate.Pairs != 26 ||
		!strings.Contains(res.Warning, "26 openings") {
		t.Fatalf("got %d games, %d pairs, warning %q", res.Result.Games(), res.Result.Pairs(), res.Warning)
	}
	// With a time limit the engines are not known to be deterministic: every requested game
	// is played, and a pair that repeats an earlier one move for move (pairs 27–30 reuse
	// openings 1–4) is counted once.
	timed := gomokuSetup()
	timed.Limits.Time = time.Second
	res, err = Play(context.Background(), Config{Setup: timed, A: weakGomoku(), B: gomoku.DefaultWeights(),
		Games: 60, Openings: ops, Workers: 2}, nil)
	if err != nil || res.Deterministic || res.Result.Games()+2*res.RepeatedPairs != 60 || res.RepeatedPairs > 4 ||
		(res.RepeatedPairs > 0) != (res.Warning != "") {
		t.Fatalf("timed match: %v, %d games, %d repeated pairs, warning %q", err, res.Result.Games(), res.RepeatedPairs, res.Warning)
	}
}

func TestBuiltinOpenings(t *testing.T) {
	for _, size := range []int{15, 20, 7} {
		ops, err := arena.BuiltinOpenings(gomoku.Game{}, size)
		if err != nil || len(ops) != 26 {
			t.Fatalf("size %d: %d openings, %v", size, len(ops), err)
		}
		seen := map[string]bool{}
		for _, o := range ops {
			b, _ := gomoku.Game{}.NewBoard(size)
			for _, m := range o {
				if err := b.Play(m); err != nil {
					t.Fatalf("size %d opening %v: %v", size, o, err)
				}
			}
			seen[arena.Key(o)] = true
		}
		if len(seen) != 26 {
			t.Fatalf("size %d: %d distinct openings", size, len(seen))
		}
	}
	ops, _ := arena.BuiltinOpenings(gomoku.Game{}, 15)
	if arena.Key(ops[0]) != "h8 h9 h10" || arena.Key(ops[13]) != "h8 i9 j10" {
		t.Fatalf("first direct %v, first indirect %v", ops[0], ops[13])
	}
	for _, name := range genomes.Names() {
		e, _ := genomes.Lookup(name)
		a, _ := arena.BuiltinOpenings(e.Game, 0)
		b, _ := arena.BuiltinOpenings(e.Game, 0)
		if len(a) == 0 || arena.Key(a[len(a)-1]) != arena.Key(b[len(b)-1]) {
			t.Fatalf("%s: builtin openings empty or not fixed", name)
		}
	}
}

var openingFileCases = []struct {
	game engine.Game
	text string
	want string // "" = valid
}{
	{gomoku.Game{}, "# comment\nh8 h9 h10\n\nh8,i9,j10  # indirect\n", ""},
	{gomoku.Game{}, "h8 h9\nh8 h8\n", "openings.txt:2: move 2"},
	{gomoku.Game{}, "h8 zz9\n", "openings.txt:1: move 2"},
	{gomoku.Game{}, "# nothing\n", "no openings"},
	{gomoku.Game{}, "a1 b1 a2 b2 a3 b3 a4 b4 a5\n", "ends the game"},
}

func TestParseOpenings(t *testing.T) {
	for _, tc := range openingFileCases {
		ops, err := arena.ParseOpenings(strings.NewReader(tc.text), "openings.txt", tc.game, 0)
		switch {
		case tc.want == "" && (err != nil || len(ops) != 2):
			t.Errorf("%q: %v, %v", tc.text, ops, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func FuzzParseOpenings(f *testing.F) {
	for _, tc := range openingFileCases {
		f.Add(tc.text)
	}
	f.Add("J10 K9L11\n")
	f.Add("d10-d5/d10 a4-b4/b8\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, name := range genomes.Names() {
			e, _ := genomes.Lookup(name)
			ops, err := arena.ParseOpenings(strings.NewReader(text), "fuzz", e.Game, 0)
			if err != nil {
				continue
			}
			for _, o := range ops { // everything accepted replays legally
				b, _ := e.Game.NewBoard(0)
				for _, m := range o {
					if err := b.Play(m); err != nil {
						t.Fatalf("%s: accepted opening %v fails: %v", name, o, err)
					}
				}
			}
		}
	})
}

// TestMatchCountsRepeatedPairsOnce: players whose determinism the match cannot see (a
// clock set, as for outside engines) replay the same pair from a repeated opening; each
// distinct pair is counted once and the warning says how many repeated.
func TestMatchCountsRepeatedPairsOnce(t *testing.T) {
	ops, _, err := arena.SelectOpenings("random", gomoku.Game{}, 0, 2, 7, nil)
	if err != nil {
		t.Fatal(err)
	}
	setup := gomokuSetup()
	setup.Limits.Time = time.Minute // not known to be deterministic; depth 2 decides first
	repeated := arena.Openings{ops[0], ops[0], ops[1], ops[0], ops[1], ops[1]}
	res, err := Play(context.Background(), Config{Setup: setup, A: weakGomoku(), B: gomoku.DefaultWeights(),
		Games: 12, Openings: repeated, Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Deterministic {
		t.Fatal("a match with a clock was taken as deterministic: the test no longer reaches the move comparison")
	}
	if res.Result.Pairs() != 2 || res.RepeatedPairs != 4 || len(res.Games) != 4 {
		t.Fatalf("6 pairs on 2 distinct openings: counted %d pairs, %d repeated, %d games; want 2, 4, 4", res.Result.Pairs(), res.RepeatedPairs, len(res.Games))
	}
	if !strings.Contains(res.Warning, "4 of 6 pairs repeated") {
		t.Errorf("warning %q does not say how many pairs repeated", res.Warning)
	}
}

// TestGomocupOffsetOpenings: Gomoku opening files may be in Gomocup's offset format
// (c-gomoku-cli's plaintext openings, offsets from the centre, y downward), mixed with
// lines in evotune's notation; an offset off the board names the line and the move; other
// games do not read the format.
func TestGomocupOffsetOpenings(t *testing.T) {
	text := "# Gomocup offsets\n0,0, 1,-1, -1,1\nh8 h9\n-7,7, 7,-7\n"
	ops, err := arena.ParseOpenings(strings.NewReader(text), "o.txt", gomoku.Game{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(ops)
	if want := "[[h8 i9 g7] [h8 h9] [a1 o15]]"; got != want {
		t.Fatalf("openings %s, want %s", got, want)
	}
	if _, err := arena.ParseOpenings(strings.NewReader("0,0\n8,-3, 6,-4\n"), "o.txt", gomoku.Game{}, 0); err == nil || !strings.Contains(err.Error(), "o.txt:2: offset move 1 (8,-3) is off the 15x15 board") {
		t.Fatalf("off-board offset: %v", err)
	}
	c6, _ := genomes.Lookup("connect6")
	if _, err := arena.ParseOpenings(strings.NewReader("0,0\n"), "o.txt", c6.Game, 0); err == nil {
		t.Fatal("connect6 read a Gomocup offset line")
	}
}

// TestMatchTexts: think times by player whatever colour they had, terminations most
// frequent first, and forfeits with the forfeiting engine's first output lines.
func TestMatchTexts(t *testing.T) {
	e, err := genomes.Lookup("chess")
	if err != nil {
		t.Fatal(err)
	}
	g := e.Game
	ms := time.Millisecond
	res := Result{Games: []Game{
		{Pair: 1, AColour: engine.Black.String(), Record: engine.GameRecord{Think: [2]time.Duration{40 * ms, 10 * ms}, MaxThink: [2]time.Duration{30 * ms, 5 * ms}, Moved: [2]int{4, 2}, Termination: "checkmate"}},
		{Pair: 1, AColour: engine.White.String(), Record: engine.GameRecord{Think: [2]time.Duration{22 * ms, 56 * ms}, MaxThink: [2]time.Duration{20 * ms, 50 * ms}, Moved: [2]int{2, 4}, Termination: "adjudication: draw"}},
		{Pair: 2, AColour: engine.Black.String(), Record: engine.GameRecord{Termination: "checkmate", Forfeit: "white made an illegal move e2e5", BlackLog: "a\nb\nc\nd\ne"}},
	}}
	if got := res.ThinkTimes(); got != "time per move: A mean 0.012s max 0.050s over 8 moves; B mean 0.008s max 0.020s over 4 moves" {
		t.Errorf("think times: %q", got)
	}
	if got := Terminations(res.Games); got != "checkmate 2, adjudication: draw 1" {
		t.Errorf("terminations: %q", got)
	}
	f := Forfeits(g, res.Games)
	if len(f) != 1 || !strings.HasPrefix(f[0], "pair 2 (A white): white made an illegal move e2e5\n      engine output: a\n      b\n      c\n      … (5 lines in the --json record)") {
		t.Errorf("forfeits: %q", f)
	}
}
