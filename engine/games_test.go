package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/amazons"
	"evotune/engine/chess"
	"evotune/engine/connect6"
	"evotune/engine/gomoku"
	"evotune/genomes"
)

// games is every registered game (the genomes registry) and each of its rule variants:
// a game added to the registry is played by these tests without being named here.
var games = func() []engine.Game {
	var out []engine.Game
	for _, name := range genomes.Names() {
		e, _ := genomes.Lookup(name)
		out = append(out, e.Game)
		if r, ok := e.Game.(engine.Ruled); ok {
			for _, rule := range r.Rules()[1:] {
				g, err := r.WithRule(rule)
				if err != nil {
					panic(err)
				}
				out = append(out, g)
			}
		}
	}
	return out
}()

// perGame is a game's value in m, or def for a game m does not name (a game the registry
// gained later: the tests' defaults).
func perGame[T any](g engine.Game, m map[string]T, def T) T {
	if v, ok := m[g.Name()]; ok {
		return v
	}
	return def
}

// randomPlayer plays uniformly random legal moves.
type randomPlayer struct {
	g   engine.Game
	rng *rand.Rand
}

func (r randomPlayer) Move(_ context.Context, b engine.Board) (string, engine.SearchStats, error) {
	m := r.g.RandomMove(b, r.rng)
	if m == "" {
		return "", engine.SearchStats{}, errors.New("no move")
	}
	return m, engine.SearchStats{}, nil
}

// replay plays rec's moves on a fresh board and checks it ends the same way.
func replay(t *testing.T, g engine.Game, size int, rec engine.GameRecord) {
	t.Helper()
	b, _ := g.NewBoard(size)
	for i, m := range rec.Moves {
		if b.Outcome() != engine.Ongoing {
			t.Fatalf("game over before move %d", i+1)
		}
		if err := b.Play(m); err != nil {
			t.Fatalf("replaying move %d: %v", i+1, err)
		}
	}
	if b.Ply() != rec.Plies {
		t.Fatalf("replay reached ply %d, record says %d", b.Ply(), rec.Plies)
	}
	if !rec.PlyLimit && b.Outcome() != rec.Outcome {
		t.Fatalf("replay outcome %v, record %v", b.Outcome(), rec.Outcome)
	}
}

// TestRandomGames plays thousands of random-move games: the referee never sees an illegal
// move, every game ends by the rules, and replaying the record reproduces the outcome.
func TestRandomGames(t *testing.T) {
	counts := map[string]int{}
	for gi, g := range games {
		sizes := []int{0}
		switch g.Name() {
		case gomoku.Name:
			sizes = []int{15, 20, 7}
		case amazons.Name:
			sizes = []int{10, 8}
		}
		n := perGame(g, map[string]int{connect6.Name: 150, gomoku.Name: 400, amazons.Name: 250, chess.Name: 60}, 100)
		rng := rand.New(rand.NewPCG(uint64(gi), 77))
		for i := 0; i < n; i++ {
			size := sizes[i%len(sizes)]
			b, err := g.NewBoard(size)
			if err != nil {
				t.Fatal(err)
			}
			p := randomPlayer{g, rng}
			rec, err := engine.PlayGame(context.Background(), b, p, p, engine.RefereeOptions{})
			if err != nil {
				t.Fatalf("%s game %d: %v", g.Name(), i, err)
			}
			if rec.Outcome == engine.Ongoing || rec.PlyLimit {
				t.Fatalf("%s game %d did not end by the rules", g.Name(), i)
			}
			if i%10 == 0 {
				replay(t, g, size, rec)
			}
			counts[g.Name()]++
		}
	}
	total := 0
	for _, c := range counts {
		total += c
	}
	if total < 1000 {
		t.Fatalf("only %d games played", total)
	}
}

// TestEngineSelfPlay plays engine-vs-engine games from random openings: every engine move
// is legal and every game ends.
func TestEngineSelfPlay(t *testing.T) {
	for gi, g := range games {
		rng := rand.New(rand.NewPCG(uint64(gi), 5))
		n := perGame(g, map[string]int{connect6.Name: 40, gomoku.Name: 30, amazons.Name: 30, chess.Name: 10}, 20)
		if testing.Short() {
			n = max(4, n/4) // the quick command: a quarter of the games, every game still played
		}
		lim := perGame(g, map[string]engine.Limits{connect6.Name: {Depth: 2, Width: 6}, gomoku.Name: {Depth: 2, Width: 8}, amazons.Name: {Depth: 1}}, engine.Limits{Depth: 2})
		for i := 0; i < n; i++ {
			size := 0
			if g.Name() == amazons.Name && i%2 == 1 {
				size = 8
			}
			b, _ := g.NewBoard(size)
			var opening []string
			for k := 0; k < 1+rng.IntN(4); k++ {
				m := g.RandomMove(b, rng)
				if err := b.Play(m); err != nil {
					t.Fatal(err)
				}
				opening = append(opening, m)
			}
			b, _ = g.NewBoard(size)
			p1, _ := g.NewPlayer(g.DefaultWeights(), lim)
			p2, _ := g.NewPlayer(g.DefaultWeights(), lim)
			rec, err := engine.PlayGame(context.Background(), b, p1, p2, engine.RefereeOptions{Opening: opening, MaxPlies: 400})
			if err != nil {
				t.Fatalf("%s game %d: %v", g.Name(), i, err)
			}
			if rec.Outcome == engine.Ongoing {
				t.Fatalf("%s game %d never ended", g.Name(), i)
			}
			replay(t, g, size, rec)
		}
	}
}

func TestRefereeRejectsIllegalMove(t *testing.T) {
	g := gomoku.Game{}
	b, _ := g.NewBoard(0)
	bad := badPlayer{}
	good, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 1})
	_, err := engine.PlayGame(context.Background(), b, good, bad, engine.RefereeOptions{})
	var ime *engine.IllegalMoveError
	if !errors.As(err, &ime) || ime.Side != engine.White {
		t.Fatalf("want an IllegalMoveError for White, got %v", err)
	}
	if b.Ply() != 1 {
		t.Fatalf("the illegal move changed the board: ply %d", b.Ply())
	}
	// An illegal opening move names its index.
	b, _ = g.NewBoard(0)
	_, err = engine.PlayGame(context.Background(), b, good, good, engine.RefereeOptions{Opening: []string{"h8", "h8"}})
	if err == nil || !strings.Contains(err.Error(), "opening move 2") {
		t.Fatalf("illegal opening: %v", err)
	}
	// The ply limit ends a game as a draw.
	b, _ = g.NewBoard(0)
	rec, err := engine.PlayGame(context.Background(), b, good, good, engine.RefereeOptions{MaxPlies: 3})
	if err != nil || rec.Outcome != engine.Draw || !rec.PlyLimit || rec.Plies != 3 {
		t.Fatalf("ply limit 3: %+v, %v", rec, err)
	}
}

type badPlayer struct{}

func (badPlayer) Move(context.Context, engine.Board) (string, engine.SearchStats, error) {
	return "h8", engine.SearchStats{}, nil // occupied after Black's centre opening
}

// weightsCases are bad weights files and the text the error must contain.
var weightsCases = []struct {
	game engine.Game
	json string
	want string
}{
	{connect6.Game{}, `{"format":"evotune.weights/v1","game":"connect6","weights":{"value":[1,20,40,200,200,1000000],"threat":[1,25,50,6000,6000,1000000]},"extra":1}`, "extra"},
	{connect6.Game{}, `{"format":"evotune.weights/v1","game":"gomoku","weights":{}}`, "game"},
	{connect6.Game{}, `{"format":"evotune.weights/v1","game":"connect6","weights":{"value":[1,20,40,200,200],"threat":[1,25,50,6000,6000,1000000]}}`, "value: want 6 entries, got 5"},
	{connect6.Game{}, `{"format":"evotune.weights/v1","game":"connect6","weights":{"value":[1,20,40,200,200,1000000],"threat":[1,25,50,-6000,6000,1000000]}}`, "threat[3]"},
	{connect6.Game{}, `{"format":"evotune.weights/v1","game":"connect6","weights":{"value":[1,20,40,200,200,1e300],"threat":[1,25,50,6000,6000,1000000]}}`, "value[5]"},
	{connect6.Game{}, `{"format":"evotune.weights/v1","game":"connect6","weights":{"value":[1,20,"NaN",200,200,1],"threat":[1,25,50,6000,6000,1000000]}}`, "value"},
	{connect6.Game{}, `{"format":"evotune.weights/v1","game":"connect6","weights":{"value":[1,2,3,4,5,6],"threet":[1,2,3,4,5,6]}}`, "threet"},
	{connect6.Game{}, `{"format":"evotune.weights/v1","game":"connect6","weights":{"value":[1,2,3,4,5,6]}}`, "threat: missing"},
	{connect6.Game{}, `not json at all`, "invalid JSON"},
	{connect6.Game{}, `{"format":"something/v9","game":"connect6","weights":{}}`, "format"},
	{connect6.Game{}, `{"format":"evotune.weights/v1","game":"connect6"}`, "weights: missing"},
	{gomoku.Game{}, `{"format":"evotune.weights/v1","game":"gomoku","weights":{"live_four":1}}`, "dead_four_a: missing"},
	{gomoku.Game{}, `{"format":"evotune.weights/v1","game":"gomoku","weights":{"live_four":300000,"dead_four_a":2500,"dead_four_b":3000,"dead_four_c":2600,"live_three":3000,"dead_three_a":500,"dead_three_b":800,"dead_three_c":600,"dead_three_d":550,"live_two":650,"dead_two_a":150,"dead_two_b":250,"dead_two_c":200,"k1":1,"k2":-1}}`, "k2"},
	{amazons.Game{}, `{"format":"evotune.weights/v1","game":"amazons","weights":{"a":[64,32,32,64],"b":[-2,-0.9,-0.9,-2,-0.45],"switch_turn":17,"late_k1":5,"equal":0.5}}`, "a: want 5 entries, got 4"},
	{amazons.Game{}, `{"format":"evotune.weights/v1","game":"amazons","weights":{"a":[64,32,32,64,16],"b":[-2,-0.9,-0.9,-2,-0.45],"switch_turn":17.5,"late_k1":5,"equal":0.5}}`, "switch_turn"},
	{amazons.Game{}, `{"format":"evotune.weights/v1","game":"amazons","weights":{"a":[64,32,32,64,16],"b":[-2,-0.9,-0.9,-2,-0.45],"switch_turn":17,"late_k1":5,"equal":0.5},"search":{"depth":-1}}`, "search.depth"},
	{amazons.Game{}, `{"format":"evotune.weights/v1","game":"amazons","weights":{"a":[64,32,32,64,1e309],"b":[-2,-0.9,-0.9,-2,-0.45],"switch_turn":17,"late_k1":5,"equal":0.5}}`, "1e309 is out of range"},
	{amazons.Game{}, "  \n", "the file is empty"},
	{amazons.Game{}, "\xff\xfe{\x00", "UTF-16 text: save it as UTF-8"},
}

func TestBadWeightsFiles(t *testing.T) {
	for _, tc := range weightsCases {
		_, _, err := engine.ParseWeightsFile([]byte(tc.json), tc.game)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %.60s…: error %v, want it to mention %q", tc.game.Name(), tc.json, err, tc.want)
		}
	}
}

// TestWeightsFileBOM: a UTF-8 byte-order mark (as Windows editors write) is read past.
func TestWeightsFileBOM(t *testing.T) {
	g := amazons.Game{}
	data, err := engine.MarshalWeightsFile(g.DefaultWeights(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := engine.ParseWeightsFile(append([]byte("\xef\xbb\xbf"), data...), g); err != nil {
		t.Errorf("with a BOM: %v", err)
	}
}

func TestWeightsFileRoundTrip(t *testing.T) {
	for _, g := range games {
		lim := g.DefaultLimits()
		elo := 12.5
		data, err := engine.MarshalWeightsFile(g.DefaultWeights(), &lim, &engine.Provenance{Run: 3, EloVsBaseline: &elo})
		if err != nil {
			t.Fatal(err)
		}
		w, f, err := engine.ParseWeightsFile(data, g)
		if err != nil {
			t.Fatalf("%s: %v", g.Name(), err)
		}
		if fmt.Sprint(w) != fmt.Sprint(g.DefaultWeights()) || *f.Search != lim || *f.Provenance.EloVsBaseline != elo {
			t.Fatalf("%s: round trip changed the file: %v", g.Name(), w)
		}
	}
}

func FuzzParseWeightsFile(f *testing.F) {
	for _, tc := range weightsCases {
		f.Add(tc.json)
	}
	for _, g := range games {
		data, _ := engine.MarshalWeightsFile(g.DefaultWeights(), nil, nil)
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, g := range games {
			w, _, err := engine.ParseWeightsFile([]byte(s), g)
			if err == nil {
				// Anything accepted is valid and loads into a player.
				if err := w.Validate(); err != nil {
					t.Fatalf("accepted invalid weights: %v", err)
				}
				if _, err := g.NewPlayer(w, engine.Limits{Depth: 1}); err != nil {
					t.Fatalf("accepted weights rejected by NewPlayer: %v", err)
				}
			}
		}
	})
}

// FuzzPlayMove: any text either is rejected with the board unchanged, or is a legal move
// that changes the position.
func FuzzPlayMove(f *testing.F) {
	for _, s := range []string{"J10", "J10K11", "h8", "a1", "d10-d5/d10", "0 3 1 3 1 4", "", "zz99", "A0", "S19S18", "j4-j5/j4", "d10-d10/d10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, g := range games {
			b, _ := g.NewBoard(0)
			if g.Name() != amazons.Name {
				_ = b.Play(g.RandomMove(b, rand.New(rand.NewPCG(1, 1))))
			}
			before, ply := b.Key(), b.Ply()
			if err := b.Play(s); err != nil {
				if b.Key() != before || b.Ply() != ply {
					t.Fatalf("%s: rejected move %q changed the board", g.Name(), s)
				}
				continue
			}
			if b.Ply() != ply+1 || b.Key() == before {
				t.Fatalf("%s: accepted move %q did not advance the game", g.Name(), s)
			}
		}
	})
}

// TestBenchSuitesReplay: every bench position is reachable by legal moves.
func TestBenchSuitesReplay(t *testing.T) {
	for _, g := range games {
		suite, _ := g.(engine.Bencher).BenchSuite()
		for _, bp := range suite {
			b, err := g.NewBoard(bp.Size)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range bp.Moves {
				if err := b.Play(m); err != nil {
					t.Fatalf("%s %s: %v", g.Name(), bp.Name, err)
				}
			}
			if b.Outcome() != engine.Ongoing {
				t.Fatalf("%s %s: bench position is finished", g.Name(), bp.Name)
			}
		}
	}
}

// TestOutcomeJSON: outcomes are written as "1-0", "0-1", "1/2-1/2", "ongoing" and read back
// from those and from the numbers older versions wrote; anything else is an error.
func TestOutcomeJSON(t *testing.T) {
	for _, o := range []engine.Outcome{engine.Ongoing, engine.BlackWins, engine.WhiteWins, engine.Draw} {
		data, err := json.Marshal(o)
		var back, num engine.Outcome
		if err != nil || string(data) != `"`+o.String()+`"` || json.Unmarshal(data, &back) != nil || back != o {
			t.Fatalf("%v: %s %v, read back %v", o, data, err, back)
		}
		if err := json.Unmarshal([]byte(fmt.Sprint(int(o))), &num); err != nil || num != o {
			t.Fatalf("%v from a number: %v %v", o, num, err)
		}
	}
	var o engine.Outcome
	if json.Unmarshal([]byte(`"2-0"`), &o) == nil || json.Unmarshal([]byte(`7`), &o) == nil {
		t.Fatal("bad outcomes accepted")
	}
}

// TestCheckDuplicateKeys: a key given twice in any object of a JSON document is an error
// naming the key and where; the same names in different objects, as values or in arrays
// are not.
func TestCheckDuplicateKeys(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"a":1,"b":{"a":2},"c":["a","a"],"d":"a"}`, ""},
		{`{"a":1,"a":2}`, `duplicate key "a" at the top level`},
		{`{"weights":{"live_four":1,"k1":2,"live_four":3}}`, `duplicate key "live_four" in weights`},
		{`{"a":{"b":{}},"c":[1,{"d":2,"e":[{"f":1,"f":1}]}]}`, `duplicate key "f" in c[].e[]`},
		{`{"a":[{"x":1},{"x":1}]}`, ""},
		{`{"a":1,"b"`, ""}, // a syntax error is the decoder's to report
		{strings.Repeat("[", 40) + strings.Repeat("]", 40), "nested deeper than 32"},
	} {
		err := engine.CheckDuplicateKeys([]byte(tc.doc))
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.doc, err, tc.want)
		}
	}
	// Every weights file of a built-in engine goes through it.
	for _, g := range []engine.Game{connect6.Game{}, gomoku.Game{}, amazons.Game{}} {
		data, err := engine.MarshalWeightsFile(g.DefaultWeights(), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(data, []byte(`"weights": {`)) + len(`"weights": {`)
		first := data[i:]
		key := first[bytes.IndexByte(first, '"'):]
		key = key[:bytes.IndexByte(key[1:], '"')+2]
		dup := append(append(append([]byte(nil), data[:i]...), append(key, []byte(`: 1, `)...)...), data[i:]...)
		if _, _, err := engine.ParseWeightsFile(dup, g); err == nil || !strings.Contains(err.Error(), "duplicate key "+string(key)) {
			t.Errorf("%s: a weights file with %s twice: %v", g.Name(), key, err)
		}
	}
}

// TestPlayerContract checks the player every game shares (search.Player under the game's
// rules): weights and boards of another game are refused by name, a finished game has no
// move, Reset makes a used player answer exactly as a new one (weights changed, table
// emptied), and SetLimits changes the depth searched and refuses bad limits.
func TestPlayerContract(t *testing.T) {
	for gi, g := range games {
		other := games[(gi+1)%len(games)]
		for k := 2; other.Name() == g.Name(); k++ { // the next game of another name
			other = games[(gi+k)%len(games)]
		}
		if _, err := g.NewPlayer(other.DefaultWeights(), engine.Limits{}); err == nil {
			t.Errorf("%s: weights of %s accepted", g.Name(), other.Name())
		}
		lim := engine.Limits{Depth: 2, Width: 6}
		pl, err := g.NewPlayer(g.DefaultWeights(), lim)
		if err != nil {
			t.Fatal(err)
		}
		ob, _ := other.NewBoard(0)
		if _, _, err := pl.Move(context.Background(), ob); err == nil || !strings.Contains(err.Error(), "board of "+other.Name()) {
			t.Errorf("%s: a board of %s: %v", g.Name(), other.Name(), err)
		}
		// A used player, Reset, answers as a new one: its table (which holds this very
		// position) is emptied.
		rng := rand.New(rand.NewPCG(uint64(gi), 9))
		b2, _ := g.NewBoard(0)
		if err := b2.Play(g.RandomMove(b2, rng)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := pl.Move(context.Background(), b2); err != nil {
			t.Fatal(err)
		}
		if err := pl.(engine.Resetter).Reset(g.DefaultWeights()); err != nil {
			t.Fatal(err)
		}
		fresh, _ := g.NewPlayer(g.DefaultWeights(), lim)
		m1, s1, e1 := pl.Move(context.Background(), b2)
		m2, s2, e2 := fresh.Move(context.Background(), b2)
		if e1 != nil || e2 != nil || m1 != m2 || s1.Score != s2.Score || s1.Nodes != s2.Nodes {
			t.Errorf("%s: after Reset %s %d %d nodes (%v), a new player %s %d %d nodes (%v)", g.Name(), m1, s1.Score, s1.Nodes, e1, m2, s2.Score, s2.Nodes, e2)
		}
		if err := pl.(engine.Resetter).Reset(other.DefaultWeights()); err == nil {
			t.Errorf("%s: Reset with weights of %s accepted", g.Name(), other.Name())
		}
		ls := pl.(engine.LimitSetter)
		if err := ls.SetLimits(engine.Limits{Depth: -1}); err == nil {
			t.Errorf("%s: depth −1 accepted", g.Name())
		}
		if err := ls.SetLimits(engine.Limits{Depth: 1}); err != nil {
			t.Fatal(err)
		}
		if _, st, err := pl.Move(context.Background(), b2); err != nil || st.Depth != 1 {
			t.Errorf("%s: after SetLimits(depth 1) searched depth %d (%v)", g.Name(), st.Depth, err)
		}
		// A finished game has no move.
		for b2.Outcome() == engine.Ongoing {
			if err := b2.Play(g.RandomMove(b2, rng)); err != nil {
				t.Fatal(err)
			}
		}
		if m, _, err := pl.Move(context.Background(), b2); err == nil {
			t.Errorf("%s: a move %s in a finished game", g.Name(), m)
		}
	}
}

// TestPictures: every game's board draws itself for a viewer (engine.Pictured): a row per
// line of its size, a character per point, a move changes the picture, and only chess's
// board has a FEN.
func TestPictures(t *testing.T) {
	for gi, g := range games {
		b, err := g.NewBoard(0)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := b.(engine.Pictured)
		if !ok {
			t.Fatalf("%s: the board does not draw itself", g.Name())
		}
		rows := p.Picture()
		if len(rows) != b.Size() || len(rows[0]) != b.Size() {
			t.Fatalf("%s: %d rows of %d, want %d×%d", g.Name(), len(rows), len(rows[0]), b.Size(), b.Size())
		}
		before := strings.Join(rows, "\n")
		m := g.RandomMove(b, rand.New(rand.NewPCG(uint64(gi), 5)))
		if err := b.Play(m); err != nil {
			t.Fatal(err)
		}
		if after := strings.Join(p.Picture(), "\n"); after == before || strings.Trim(after, ".BWxKQRBNPkqrbnp\n") != "" {
			t.Errorf("%s: after %s the picture is\n%s", g.Name(), m, after)
		}
		if _, fen := b.(engine.FENBoard); fen != (g.Name() == chess.Name) {
			t.Errorf("%s: FEN board %v", g.Name(), fen)
		}
	}
}
