package amazons

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"evotune/engine"
)

// perftTable: depth → leaf count for both boards (the reference numbers).
var perftTable = []struct {
	size  int
	depth int
	nodes int64
}{
	{10, 1, 2176},
	{10, 2, 4307152},
	{8, 1, 1232},
	{8, 2, 1331198},
}

func TestPerft(t *testing.T) {
	for _, tc := range perftTable {
		p, err := NewPosition(tc.size, DefaultWeights().Tables())
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Perft(tc.depth); got != tc.nodes {
			t.Errorf("%d×%d perft(%d) = %d, want %d", tc.size, tc.size, tc.depth, got, tc.nodes)
		}
		if got := int64(len(p.AppendMoves(nil))); tc.depth == 1 && got != tc.nodes {
			t.Errorf("%d×%d: %d generated moves, want %d", tc.size, tc.size, got, tc.nodes)
		}
	}
}

func BenchmarkPerft2(b *testing.B) {
	for _, size := range Sizes {
		p, _ := NewPosition(size, DefaultWeights().Tables())
		b.Run(map[int]string{10: "10x10", 8: "8x8"}[size], func(b *testing.B) {
			for b.Loop() {
				p.Perft(2)
			}
		})
	}
}

func recomputeKey(p *Position) uint64 {
	var k uint64
	for sq, v := range p.cells {
		switch v {
		case black, white:
			k ^= p.zobrist[sq*3+int(v)-1]
		case arrow:
			k ^= p.zobrist[sq*3+2]
		}
	}
	if p.stm == engine.White {
		k ^= p.zobrist[len(p.zobrist)-1]
	}
	return k
}

// TestRandomGames: every generated move is legal by Legal, keys match recomputation after
// make and unmake, GenMoves and AppendMoves agree, and every game ends with the loser to
// move.
func TestRandomGames(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	for g := 0; g < 40; g++ {
		p, _ := NewPosition(Sizes[g%2], DefaultWeights().Tables())
		var hist []Move
		for p.HasMove() {
			moves := p.AppendMoves(nil)
			if sm := p.GenMoves(nil); len(sm) != len(moves) {
				t.Fatalf("GenMoves %d, AppendMoves %d", len(sm), len(moves))
			}
			m := moves[rng.IntN(len(moves))]
			if err := p.Legal(m); err != nil {
				t.Fatalf("generated move rejected: %v", err)
			}
			p.Make(m)
			hist = append(hist, m)
			if recomputeKey(p) != p.key {
				t.Fatalf("ply %d: key differs from recomputation", p.ply)
			}
			if e, am := p.bitboards(); e != p.emptyBB || am != p.amBB {
				t.Fatalf("ply %d: incremental bitboards differ from the board", p.ply)
			}
		}
		if len(p.AppendMoves(nil)) != 0 {
			t.Fatal("HasMove false but moves exist")
		}
		for i := len(hist) - 1; i >= 0; i-- {
			p.Unmake(hist[i])
			if recomputeKey(p) != p.key {
				t.Fatalf("unmake ply %d: key differs", p.ply)
			}
			if e, am := p.bitboards(); e != p.emptyBB || am != p.amBB {
				t.Fatalf("unmake ply %d: incremental bitboards differ from the board", p.ply)
			}
		}
		q, _ := NewPosition(p.n, p.tab)
		if p.key != q.key || string(conv(p.cells)) != string(conv(q.cells)) {
			t.Fatal("unmaking the game did not restore the start")
		}
	}
}

func conv(c []int8) []byte {
	b := make([]byte, len(c))
	for i, v := range c {
		b[i] = byte(v)
	}
	return b
}

func TestNotationAndLegality(t *testing.T) {
	b, _ := Game{}.NewBoard(0)
	for _, bad := range []string{"d10-d9/d10x", "a1-a2/a3", "d10-d10/d9", "d10-e8/e7", "k1-k2/k3", "d10-d5", "", "0 0 0 1 0 2"} {
		if err := b.Play(bad); err == nil {
			t.Errorf("move %q accepted", bad)
		}
	}
	// Black's d10 amazon moves to d5 and shoots back to d10 (through the vacated square).
	if err := b.Play("d10-d5/d10"); err != nil {
		t.Fatal(err)
	}
	// Botzone coordinates: White a4 = (0, 6) → (1, 6) b4, arrow to (1, 2) b8.
	if err := b.Play("0 6 1 6 1 2"); err != nil {
		t.Fatal(err)
	}
	p := b.(*Board).Pos
	if p.cells[p.fromXY(1, 2)] != arrow || p.cells[p.fromXY(1, 6)] != white {
		t.Fatal("Botzone move not applied where expected")
	}
}

// TestFeatures checks the evaluation terms on the start position, where the sides are
// mirror images: queen territory of each square is symmetric, so tq(Black) + tq(White)
// counts the equal squares twice, and p1, p2 vanish by symmetry.
func TestFeatures(t *testing.T) {
	p, _ := NewPosition(10, DefaultWeights().Tables())
	fb := p.Features(0.5)
	if math.Abs(fb.P1) > 1e-9 || math.Abs(fb.P2) > 1e-9 {
		t.Fatalf("start position p1 = %v, p2 = %v, want 0 by symmetry", fb.P1, fb.P2)
	}
	if math.Abs(fb.Mobility-1) > 1e-4 {
		t.Fatalf("start mobility ratio %v, want 1", fb.Mobility)
	}
	// With equal = 0 and a symmetric position, territory sums to 0.
	if f := p.Features(0); f.TQ != 0 || f.TK != 0 {
		t.Fatalf("start tq %v tk %v with equal = 0, want 0", f.TQ, f.TK)
	}
	// After Black's move the evaluation is from White's side and k uses White's turn 1.
	p.Make(p.AppendMoves(nil)[0])
	k := p.tab.K(p.Turn())
	if p.Turn() != 1 || k[0] != 62 {
		t.Fatalf("turn %d k1 %v, want turn 1, k1 = 64 − 2 = 62", p.Turn(), k[0])
	}
	late := DefaultWeights().Tables().K(17)
	if late != [5]float64{5, 0, 0, 0, 0} {
		t.Fatalf("k at turn 17 = %v, want (5,0,0,0,0)", late)
	}
}

// TestFeaturesMatchMailbox compares the bitboard features with a square-by-square
// reference (brute-force distance relaxation on the mailbox board, then §3's sums) on
// positions of random games on both boards.
func TestFeaturesMatchMailbox(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	checked := 0
	for g := 0; g < 6; g++ {
		p, _ := NewPosition(Sizes[g%2], DefaultWeights().Tables())
		for p.HasMove() {
			for _, equal := range []float64{0.5, -0.3} {
				got, want := p.Features(equal), refFeatures(p, equal)
				for i, pair := range [][2]float64{{got.TQ, want.TQ}, {got.TK, want.TK}, {got.P1, want.P1}, {got.P2, want.P2}, {got.Mobility, want.Mobility}} {
					if math.Abs(pair[0]-pair[1]) > 1e-9 {
						t.Fatalf("game %d ply %d equal %v: feature %d (tq, tk, p1, p2, mobility) = %v, reference %v\n%s",
							g, p.ply, equal, i, pair[0], pair[1], p)
					}
				}
				checked++
			}
			moves := p.AppendMoves(nil)
			p.Make(moves[rng.IntN(len(moves))])
		}
	}
	if checked < 200 {
		t.Fatalf("only %d positions checked", checked)
	}
}

// unreachable is the reference's distance of a square a side cannot reach.
const unreachable = 127

// refFeatures is §3 computed square by square from brute-force distances.
func refFeatures(p *Position, equal float64) Features {
	me, op := int(p.stm), 1-int(p.stm)
	dqm, dqo := bruteDistances(p, me, true), bruteDistances(p, op, true)
	dkm, dko := bruteDistances(p, me, false), bruteDistances(p, op, false)
	terr := func(mine, theirs int8) float64 {
		switch {
		case mine == theirs:
			return equal
		case theirs == unreachable:
			return 2
		case mine == unreachable:
			return -2
		case mine < theirs:
			return 1
		}
		return -1
	}
	pow := func(d int8) float64 {
		if d == unreachable {
			return 0
		}
		return math.Ldexp(1, -int(d))
	}
	var f Features
	for sq, v := range p.cells {
		if v != empty {
			continue
		}
		f.TQ += terr(dqm[sq], dqo[sq])
		f.TK += terr(dkm[sq], dko[sq])
		f.P1 += 2 * (pow(dqm[sq]) - pow(dqo[sq]))
		f.P2 += math.Max(-1, math.Min(1, float64(int(dko[sq])-int(dkm[sq]))/6))
	}
	count := func(c int) float64 {
		n := 0
		for _, a := range p.amazons[c] {
			for _, d := range p.dirs {
				for to := int(a) + d; p.cells[to] == empty; to += d {
					n++
				}
			}
		}
		return float64(n)
	}
	f.Mobility = count(me) / (count(op) + 0.00001)
	return f
}

func TestPlayerMovesLegally(t *testing.T) {
	b, _ := Game{}.NewBoard(8)
	pl, err := Game{}.NewPlayer(DefaultWeights(), engine.Limits{Depth: 2, Width: 6})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := engine.PlayGame(context.Background(), b, pl, pl, engine.RefereeOptions{MaxPlies: 200})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Outcome == engine.Ongoing || rec.Plies < 10 {
		t.Fatalf("self-play ended %v after %d plies", rec.Outcome, rec.Plies)
	}
}

// TestCloneIsIndependent: evaluating a clone never changes what the original computes.
func TestCloneIsIndependent(t *testing.T) {
	p, _ := NewPosition(10, DefaultWeights().Tables())
	want := p.EvaluateFloat()
	q := p.Clone()
	q.Make(q.AppendMoves(nil)[100])
	q.EvaluateFloat()
	if got := p.EvaluateFloat(); got != want {
		t.Fatalf("original evaluates %v after the clone's evaluation, want %v", got, want)
	}
}

// bruteDistances relaxes queen (or king) steps until nothing changes: the reference
// distances of colour c's amazons to every square.
func bruteDistances(p *Position, c int, queen bool) []int8 {
	d := make([]int8, len(p.cells))
	for i := range d {
		d[i] = unreachable
	}
	for _, a := range p.amazons[c] {
		d[a] = 0
	}
	for changed := true; changed; {
		changed = false
		for sq := range p.cells {
			if d[sq] == unreachable {
				continue
			}
			for _, dir := range p.dirs {
				for to := sq + dir; p.cells[to] == empty; to += dir {
					if d[to] > d[sq]+1 {
						d[to] = d[sq] + 1
						changed = true
					}
					if !queen {
						break
					}
				}
			}
		}
	}
	return d
}
