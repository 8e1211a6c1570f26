package gomoku

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"evotune/engine"
)

// seg builds (L, mask) from a row like "?AAA??" (A = own, ? = empty).
func seg(s string) (int, uint32) {
	var m uint32
	for i, ch := range s {
		if ch == 'A' {
			m |= 1 << i
		}
	}
	return len(s), m
}

func TestMatchSegment(t *testing.T) {
	tests := []struct {
		seg  string
		want map[Pattern]uint8
	}{
		{"??AAAA??", map[Pattern]uint8{LiveFour: 1}},
		{"AAAA?", map[Pattern]uint8{DeadFourA: 1}},   // blocked on the left by the edge
		{"??AAAA", map[Pattern]uint8{DeadFourA: 1}},  // blocked on the right
		{"?AAA?A?", map[Pattern]uint8{DeadFourB: 1}}, // a split four
		{"AA?AA", map[Pattern]uint8{DeadFourC: 1}},
		{"???AAA???", map[Pattern]uint8{LiveThree: 1}},
		{"?AAA??", map[Pattern]uint8{LiveThree: 1}},
		{"?AAA?", map[Pattern]uint8{DeadThreeA: 1}}, // cannot become an open four
		{"AAA??", map[Pattern]uint8{DeadThreeA: 1}},
		{"??A?AA??", map[Pattern]uint8{DeadThreeB: 1}},
		{"A??AA", map[Pattern]uint8{DeadThreeC: 1}},
		{"A?A?A", map[Pattern]uint8{DeadThreeD: 1}},
		{"???AA???", map[Pattern]uint8{LiveTwo: 1}},
		{"AA????", map[Pattern]uint8{DeadTwoA: 1}},
		{"???A?A???", map[Pattern]uint8{DeadTwoB: 1}},
		{"??A??A??", map[Pattern]uint8{DeadTwoC: 1}},
		{"AAAA", nil},  // shorter than five: dead space
		{"?????", nil}, // no stones
		{"?A???", nil}, // a single stone is no pattern
		{"??AAAA??AA???", map[Pattern]uint8{LiveFour: 1, LiveTwo: 1}},
		{"?AA??AA?", map[Pattern]uint8{DeadFourC: 0, DeadThreeC: 1}}, // AA??A uses 3 stones, one A left
	}
	for _, tc := range tests {
		got := MatchSegment(seg(tc.seg))
		for p := Pattern(0); p < NumPatterns; p++ {
			if got[p] != tc.want[p] {
				t.Errorf("%s: %s = %d, want %d (all: %v)", tc.seg, PatternNames[p], got[p], tc.want[p], got)
			}
		}
	}
}

// slowMatchSegment is the rules of MatchSegment written out on strings: the reference
// for the bitmask matcher.
func slowMatchSegment(L int, mask uint32) Counts {
	var c Counts
	if L < 5 || mask == 0 {
		return c
	}
	ext := []byte("#" + strings.Repeat("?", L) + "#")
	for i := 0; i < L; i++ {
		if mask&(1<<i) != 0 {
			ext[i+1] = 'A'
		}
	}
	used := make([]bool, L+2)
	for pat := range templates {
		for _, tm := range templates[pat] {
		slide:
			for s := 0; s+len(tm) <= L+2; s++ {
				for j := 0; j < len(tm); j++ {
					if ext[s+j] != tm[j] || (tm[j] == 'A' && used[s+j]) {
						continue slide
					}
				}
				c[pat]++
				for j := 0; j < len(tm); j++ {
					if tm[j] == 'A' {
						used[s+j] = true
					}
				}
			}
		}
	}
	return c
}

// TestSegmentTable checks the bitmask matcher against the string matcher on every segment
// up to length 12, and the table against the matcher on every segment of length 15.
func TestSegmentTable(t *testing.T) {
	for L := 1; L <= 12; L++ {
		for m := uint32(0); m < 1<<L; m++ {
			if got, want := MatchSegment(L, m), slowMatchSegment(L, m); got != want {
				t.Fatalf("L %d mask %b: bitmask %v, strings %v", L, m, got, want)
			}
		}
	}
	for m := uint32(0); m < 1<<15; m += 7 {
		if segmentCounts(15, m) != MatchSegment(15, m) {
			t.Fatalf("mask %b: table and matcher differ", m)
		}
	}
}

func recompute(p *Position) (score [2]int64, fours [2]int32, threes [2]int32, key uint64) {
	q, _ := NewPosition(p.g.n, p.rule, p.tab)
	for m, v := range p.cells {
		q.setCell(Move(m), v)
	}
	q.SetTables(p.tab)
	for m, v := range p.cells {
		if v != 0 {
			key ^= p.g.zobrist[m*2+int(v)-1]
		}
	}
	if p.stm == engine.White {
		key ^= p.g.zobrist[len(p.g.zobrist)-1]
	}
	return q.score, q.fours, q.threes, key
}

func TestIncrementalState(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for g := 0; g < 30; g++ {
		size := []int{15, 20, 7, 22}[g%4]
		p, _ := NewPosition(size, Rule(g%2), DefaultWeights().Tables())
		var hist []Move
		for over, _ := p.Terminal(); !over; over, _ = p.Terminal() {
			b := &Board{PositionBoard: engine.PositionBoard[*Position, Move]{Pos: p}}
			m, err := p.ParseMove(Game{}.RandomMove(b, rng))
			if err != nil {
				t.Fatal(err)
			}
			p.Make(m)
			hist = append(hist, m)
			if s, f, th, k := recompute(p); s != p.score || f != p.fours || th != p.threes || k != p.key {
				t.Fatalf("size %d ply %d: incremental %v %v %v %x, recomputed %v %v %v %x", size, p.ply, p.score, p.fours, p.threes, p.key, s, f, th, k)
			}
			checkNeighbourhoods(t, p)
		}
		for i := len(hist) - 1; i >= 0; i-- {
			p.Unmake(hist[i])
			if s, f, th, k := recompute(p); s != p.score || f != p.fours || th != p.threes || k != p.key {
				t.Fatalf("after unmake ply %d: incremental state differs", p.ply)
			}
			checkNeighbourhoods(t, p)
		}
		if p.key != 0 || p.score != [2]int64{} {
			t.Fatal("unmaking everything did not restore the empty board")
		}
	}
}

func play(t *testing.T, b engine.Board, moves ...string) {
	t.Helper()
	for _, m := range moves {
		if err := b.Play(m); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRules(t *testing.T) {
	// Black: a1 b1 c1 d1 then f1, e1 fills to six.
	moves := []string{"a1", "a3", "b1", "b3", "c1", "c3", "d1", "h8", "f1", "h9"}
	for _, tc := range []struct {
		rule Rule
		want engine.Outcome
	}{{Freestyle, engine.BlackWins}, {Standard, engine.Ongoing}} {
		b, _ := Game{Rule: tc.rule}.NewBoard(0)
		play(t, b, moves...)
		play(t, b, "e1")
		if b.Outcome() != tc.want {
			t.Errorf("%v: six in a row gives %v, want %v", tc.rule, b.Outcome(), tc.want)
		}
	}
	b, _ := Game{}.NewBoard(0)
	for _, bad := range []string{"p1", "a0", "a16", "", "1a", "zz"} {
		if err := b.Play(bad); err == nil {
			t.Errorf("move %q accepted", bad)
		}
	}
	play(t, b, "h8")
	if err := b.Play("h8"); err == nil {
		t.Error("occupied point accepted")
	}
	if _, err := (Game{}).NewBoard(4); err == nil {
		t.Error("4×4 board accepted")
	}
}

func TestForcedWinAndBlock(t *testing.T) {
	b, _ := Game{}.NewBoard(0)
	// Black has an open three b1..d1? no: a closed four a1-d1 (edge) → e1 wins at once.
	play(t, b, "a1", "h8", "b1", "h9", "c1", "j10", "d1")
	p := b.(*Board).Pos
	moves := p.GenMoves(nil)
	if len(moves) != 1 || p.MoveString(moves[0].Move) != "e1" {
		t.Fatalf("White must block at e1, got %d moves starting %s", len(moves), p.MoveString(moves[0].Move))
	}
	play(t, b, "e1", "g1")
	// White has h8 h9 (two); Black to move with no four. A deep search must not lose.
	pl, _ := Game{}.NewPlayer(DefaultWeights(), engine.Limits{Depth: 3, Width: 1})
	b2, _ := Game{}.NewBoard(0)
	play(t, b2, "h8", "a1", "h9", "a2", "h10", "b5", "h11")
	m, _, err := pl.Move(context.Background(), b2)
	if err != nil {
		t.Fatal(err)
	}
	if m != "h12" && m != "h7" {
		t.Fatalf("White with width 1 played %s, not a block of the four h8-h11", m)
	}
	play(t, b2, "h12")
	m, _, _ = pl.Move(context.Background(), b2)
	play(t, b2, m)
	if b2.Outcome() != engine.BlackWins {
		t.Fatalf("Black did not take the win (played %s)", m)
	}
}

func TestWeightsJSON(t *testing.T) {
	w := DefaultWeights()
	data, err := w.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Game{}.DecodeWeights(data)
	if err != nil {
		t.Fatal(err)
	}
	if *got.(*Weights) != *w {
		t.Fatalf("round trip changed the weights: %+v", got)
	}
	for _, bad := range []string{`{"live_four":1}`, `[1,2]`, `{"k1":1,"k2":1,"bogus":3}`} {
		if _, err := (Game{}).DecodeWeights([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// slowPointScore is the direct definition of the point score, to check the table.
// checkNeighbourhoods compares every cell's incrementally kept neighbourhood indices with
// ones built from the cells directly (off-board neighbours are 3).
func checkNeighbourhoods(t *testing.T, p *Position) {
	t.Helper()
	n := p.g.n
	for m := range p.cells {
		x0, y0 := m%n, m/n
		for k, dv := range dirs {
			var want uint16
			for i, d := range []int{-4, -3, -2, -1, 1, 2, 3, 4} {
				x, y := x0+d*dv[0], y0+d*dv[1]
				v := uint16(3)
				if x >= 0 && x < n && y >= 0 && y < n {
					v = uint16(p.cells[y*n+x])
				}
				want |= v << (2 * i)
			}
			if got := p.neighbourhoods(Move(m))[k]; got != want {
				t.Fatalf("size %d ply %d cell %s direction %d: neighbourhood %016b, from the cells %016b", n, p.ply, p.MoveString(Move(m)), k, got, want)
			}
		}
	}
}

func slowPointScore(p *Position, m Move) int64 {
	n := p.g.n
	x0, y0 := int(m)%n, int(m)/n
	var score int64
	for _, dv := range dirs {
		for s := -4; s <= 0; s++ {
			var nb, nw int
			ok := true
			for i := s; i < s+5; i++ {
				x, y := x0+i*dv[0], y0+i*dv[1]
				if x < 0 || x >= n || y < 0 || y >= n {
					ok = false
					break
				}
				switch p.cells[y*n+x] {
				case 1:
					nb++
				case 2:
					nw++
				}
			}
			if !ok {
				continue
			}
			if nw == 0 {
				score += windowWeight[nb]
			}
			if nb == 0 {
				score += windowWeight[nw]
			}
		}
	}
	return score
}

func TestPointScoreTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for g := 0; g < 20; g++ {
		b, _ := Game{}.NewBoard([]int{15, 6, 20}[g%3])
		for i := 0; i < 30 && b.Outcome() == engine.Ongoing; i++ {
			play(t, b, Game{}.RandomMove(b, rng))
			p := b.(*Board).Pos
			for m := range p.cells {
				if p.cells[m] == 0 && p.pointScore(Move(m)) != slowPointScore(p, Move(m)) {
					t.Fatalf("point %s: table %d, direct %d", p.MoveString(Move(m)), p.pointScore(Move(m)), slowPointScore(p, Move(m)))
				}
			}
		}
	}
}

// TestRandomOpeningsBalanced: random openings are legal, OpeningStones stones, and balanced by
// the definition of Balanced; the filter rejects some raw draws (it is not vacuous).
func TestRandomOpeningsBalanced(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	g := Game{}
	for i := 0; i < 30; i++ {
		b, _ := g.NewBoard(0)
		o := g.RandomOpening(b, rng)
		if len(o) != OpeningStones || !Balanced(g, 15, o) {
			t.Fatalf("opening %v: not %d stones or not balanced", o, OpeningStones)
		}
	}
	rejected := 0
	for _, o := range [][]string{{"h8", "a1", "h9"}, {"h8", "o15", "i9"}, {"h8", "h9", "i8"}, {"g7", "h8", "i9"}} {
		if !Balanced(g, 15, o) {
			rejected++
		}
	}
	if rejected == 0 {
		t.Fatal("no lopsided opening is rejected: the balance filter does nothing")
	}
}
