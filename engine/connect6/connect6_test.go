package connect6

import (
	"context"
	"math/rand/v2"
	"testing"

	"evotune/engine"
	"evotune/engine/search"
)

// randomPosition plays n random legal moves from the start (stopping early at a win).
func randomPosition(rng *rand.Rand, n int) (*Position, []Move) {
	p := NewPosition(DefaultWeights().Tables())
	var hist []Move
	for i := 0; i < n; i++ {
		if over, _ := p.Terminal(); over {
			break
		}
		m := randomMove(p, rng)
		p.Make(m)
		hist = append(hist, m)
	}
	return p, hist
}

func randomMove(p *Position, rng *rand.Rand) Move {
	b := &Board{PositionBoard: engine.PositionBoard[*Position, Move]{Pos: p}}
	m, err := ParseMove(Game{}.RandomMove(b, rng))
	if err != nil {
		panic(err)
	}
	return m
}

func recomputeKey(p *Position) uint64 {
	var k uint64
	for pt := range p.cells {
		if c := p.cells[pt]; c != 0 {
			k ^= zobrist[pt*2+int(c)-1]
		}
	}
	if p.stm == engine.White {
		k ^= zobrist[Points*2]
	}
	return k
}

func TestRoadCount(t *testing.T) {
	// Eq. 1: 19·14 + 19·14 + 14·14 + 14·14 = 924.
	n := 0
	for pt := range pointRoads {
		n += len(pointRoads[pt])
	}
	if n != Roads*K {
		t.Fatalf("road memberships = %d, want %d", n, Roads*K)
	}
	if got := len(pointRoads[9*Size+9]); got != 24 {
		t.Fatalf("roads through the centre = %d, want 24", got)
	}
	if got := len(pointRoads[0]); got != 3 {
		t.Fatalf("roads through a corner = %d, want 3", got)
	}
}

// TestLocalScanEqualsGlobalScan is the paper's Eq. (10): for every candidate pair of many
// random positions, the local-road score equals the global score, and both equal the
// change of the incrementally kept V after really making the move.
func TestLocalScanEqualsGlobalScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	weights := []*Weights{DefaultWeights(), {
		Value:  []float64{3, 7, 90, 150, 4000, 1e6},
		Threat: []float64{2, 30, 35, 9000, 800, 1e6},
	}}
	checked := 0
	for iter := 0; iter < 60; iter++ {
		w := weights[iter%2]
		p, _ := randomPosition(rng, 1+rng.IntN(40))
		p.SetTables(w.Tables())
		if over, _ := p.Terminal(); over || p.ply == 0 {
			continue
		}
		c := p.stm
		p.scan = LocalScan
		local := p.GenMoves(nil)
		p.scan = GlobalScan
		global := p.GenMoves(nil)
		if len(local) != len(global) {
			t.Fatalf("iter %d: %d local moves, %d global", iter, len(local), len(global))
		}
		for i := range local {
			if local[i] != global[i] {
				t.Fatalf("iter %d: move %v local score %d, global %v score %d", iter, local[i].Move, local[i].Score, global[i].Move, global[i].Score)
			}
			if i%37 != 0 {
				continue
			}
			m := local[i].Move
			before := p.V(c)
			p.Make(m)
			after := p.V(c)
			if got := p.GlobalV(c); got != after {
				t.Fatalf("incremental V %d != global V %d after %v", after, got, m)
			}
			p.Unmake(m)
			if local[i].Score != engine.Win && after-before != local[i].Score {
				t.Fatalf("iter %d: move %v scored %d, V changed by %d", iter, m, local[i].Score, after-before)
			}
			checked++
		}
	}
	if checked < 500 {
		t.Fatalf("only %d pairs checked", checked)
	}
}

// TestIncrementalState checks the Zobrist key, the road counts and V against a
// from-scratch recomputation after every make and unmake of random games.
func TestIncrementalState(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for g := 0; g < 20; g++ {
		p := NewPosition(DefaultWeights().Tables())
		var hist []Move
		for over, _ := p.Terminal(); !over; over, _ = p.Terminal() {
			m := randomMove(p, rng)
			p.Make(m)
			hist = append(hist, m)
			checkState(t, p)
		}
		for i := len(hist) - 1; i >= 0; i-- {
			p.Unmake(hist[i])
			checkState(t, p)
		}
		if p.stones != 0 || p.key != 0 || p.V(engine.Black) != 0 {
			t.Fatalf("unmaking everything left %d stones, key %x", p.stones, p.key)
		}
	}
}

func checkState(t *testing.T, p *Position) {
	t.Helper()
	if k := recomputeKey(p); k != p.key {
		t.Fatalf("ply %d: key %x, recomputed %x", p.ply, p.key, k)
	}
	q := NewPosition(p.tab)
	for pt := range p.cells {
		if c := p.cells[pt]; c != 0 {
			q.place(int16(pt), engine.Color(c-1))
		}
	}
	if q.cnt != p.cnt || q.near != p.near {
		t.Fatalf("ply %d: road counts or neighbourhood differ from recomputation", p.ply)
	}
	for _, c := range []engine.Color{engine.Black, engine.White} {
		if p.V(c) != p.GlobalV(c) {
			t.Fatalf("ply %d: V(%v) = %d, global %d", p.ply, c, p.V(c), p.GlobalV(c))
		}
	}
}

func mustPlay(t *testing.T, b engine.Board, moves ...string) {
	t.Helper()
	for _, m := range moves {
		if err := b.Play(m); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRules(t *testing.T) {
	b, _ := Game{}.NewBoard(0)
	for _, bad := range []string{"J10K11", "T1", "A0", "A20", "", "J10K11L12", "J10J10"} {
		if err := b.Play(bad); err == nil {
			t.Errorf("first move %q accepted", bad)
		}
	}
	mustPlay(t, b, "J10")
	if err := b.Play("K10"); err == nil {
		t.Error("one-stone second move accepted")
	}
	if err := b.Play("J10K10"); err == nil {
		t.Error("move onto an occupied point accepted")
	}
	// Black builds A1..F1 (six) while White plays elsewhere; overline also counts.
	mustPlay(t, b, "S19Q18", "A1B1", "O17M16", "C1D1", "K15H14")
	if b.Outcome() != engine.Ongoing {
		t.Fatal("game over before six")
	}
	mustPlay(t, b, "E1F1")
	if b.Outcome() != engine.BlackWins {
		t.Fatalf("outcome %v after six in a row, want 1-0", b.Outcome())
	}
	if err := b.Play("A5A6"); err == nil {
		t.Error("move after the end accepted")
	}
}

func TestForcedWinAndBlock(t *testing.T) {
	b, _ := Game{}.NewBoard(0)
	// White to move has four in row 5 (open both ends) → must win at once; Black
	// threatens nothing comparable.
	mustPlay(t, b, "J10", "A5B5", "J12J14", "C5D5", "K3L3")
	p := b.(*Board).Pos
	p.SetTables(DefaultWeights().Tables()) // a board is the rules alone: evaluate with the paper's tables
	moves := p.GenMoves(nil)
	if len(moves) != 1 {
		t.Fatalf("%d moves with a win available, want 1", len(moves))
	}
	p.Make(moves[0].Move)
	if w, ok := p.Winner(); !ok || w != engine.White {
		t.Fatalf("forced move %v does not win", moves[0].Move)
	}
	p.Unmake(moves[0].Move)

	// Black to move faces White's four: every generated move must block it.
	b2, _ := Game{}.NewBoard(0)
	mustPlay(t, b2, "J10", "A5B5", "J12J14", "C5D5")
	p2 := b2.(*Board).Pos
	p2.SetTables(DefaultWeights().Tables()) // a board is the rules alone: evaluate with the paper's tables
	for _, sm := range p2.GenMoves(nil) {
		p2.Make(sm.Move)
		if r := openThreat(p2, engine.White); r >= 0 {
			t.Fatalf("move %v leaves White road %d open", sm.Move, r)
		}
		p2.Unmake(sm.Move)
	}
	// With width 1, the searcher still blocks (the block is all it is offered).
	pl, _ := NewPlayer(DefaultWeights(), engine.Limits{Depth: 2, Width: 1}, LocalScan)
	m, _, err := pl.Move(context.Background(), b2)
	if err != nil {
		t.Fatal(err)
	}
	mustPlay(t, b2, m)
	if r := openThreat(p2, engine.White); r >= 0 {
		t.Fatalf("width-1 move %s leaves White road %d open", m, r)
	}
}

// openThreat returns a road holding ≥4 stones of c and none of the opponent's, or -1.
func openThreat(p *Position, c engine.Color) int {
	for r := range p.cnt {
		if p.cnt[r][c] >= 4 && p.cnt[r][c.Opponent()] == 0 {
			return r
		}
	}
	return -1
}

// minimax is plain full-width minimax over the same move generator, for comparison.
func minimax(p *Position, depth int) int64 {
	if over, s := p.Terminal(); over {
		return s
	}
	if depth == 0 {
		return p.Evaluate()
	}
	best := int64(-engine.Win - 1)
	for _, m := range p.GenMoves(nil) {
		p.Make(m.Move)
		v := -minimax(p, depth-1)
		p.Unmake(m.Move)
		best = max(best, v)
	}
	return best
}

func TestAlphaBetaEqualsMinimax(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 2; i++ {
		// One stone on the board: 276 pairs at the root keeps full minimax cheap.
		p, _ := randomPosition(rng, 1)
		if over, _ := p.Terminal(); over {
			continue
		}
		want := minimax(p, 2)
		for _, bits := range []int{0, 12} {
			s := search.New[Move](bits)
			res := s.Search(context.Background(), p, engine.Limits{Depth: 2})
			got := res.Score
			if want > engine.WinThreshold || want < -engine.WinThreshold {
				continue // minimax here does not count plies to the win
			}
			if got != want {
				t.Fatalf("position %d (tt bits %d): alpha-beta %d, minimax %d", i, bits, got, want)
			}
		}
	}
}
