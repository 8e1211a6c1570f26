package search

import (
	"context"
	"fmt"
	"testing"
	"time"

	"evotune/engine"
)

// tree is a synthetic game: a position is the path of move indices from the root; every
// node has a pseudo-random number of children (branch−1..branch, 0 = a loss for the side
// to move at some nodes) and leaves evaluate to a hash of the path. Transpositions happen
// because the key ignores the order of the first two moves.
type tree struct {
	path   []int
	branch int
}

func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}

func (t *tree) hash() uint64 {
	var h uint64 = 7
	for i, m := range t.path {
		if i < 2 {
			h += mix(uint64(m) + 1000) // order-free: transpositions
		} else {
			h = mix(h ^ uint64(m+1)*0x9e3779b97f4a7c15)
		}
	}
	return mix(h + uint64(len(t.path)))
}

func (t *tree) GenMoves(buf []Scored[int]) []Scored[int] {
	n := t.branch - int(t.hash()%2)
	for i := 0; i < n; i++ {
		buf = append(buf, Scored[int]{Move: i, Score: int64(mix(t.hash()+uint64(i)) % 7)})
	}
	return buf
}
func (t *tree) Make(m int)   { t.path = append(t.path, m) }
func (t *tree) Unmake(m int) { t.path = t.path[:len(t.path)-1] }
func (t *tree) Terminal() (bool, int64) {
	if len(t.path) > 0 && t.hash()%23 == 0 {
		return true, -engine.Win
	}
	return false, 0
}
func (t *tree) Evaluate() int64 { return int64(t.hash()%2001) - 1000 }
func (t *tree) Key() uint64     { return t.hash() }

func minimax(t *tree, depth, ply int) int64 {
	if over, s := t.Terminal(); over {
		return s + int64(ply) // loss at ply: −Win + ply, as the searcher scores it
	}
	if depth == 0 {
		return t.Evaluate()
	}
	best := int64(-engine.Win - 1)
	for _, m := range t.GenMoves(nil) {
		t.Make(m.Move)
		best = max(best, -minimax(t, depth-1, ply+1))
		t.Unmake(m.Move)
	}
	return best
}

// TestAlphaBetaEqualsMinimax: with no width limit, alpha-beta (with or without the
// transposition table, with iterative deepening) returns the minimax value.
func TestAlphaBetaEqualsMinimax(t *testing.T) {
	for seed := 0; seed < 30; seed++ {
		for depth := 1; depth <= 4; depth++ {
			root := &tree{path: []int{seed}, branch: 5}
			if over, _ := root.Terminal(); over {
				continue
			}
			want := minimax(root, depth, 0)
			for _, bits := range []int{0, 10} {
				s := New[int](bits)
				res := s.Search(context.Background(), root, engine.Limits{Depth: depth})
				if res.Score != want {
					t.Fatalf("seed %d depth %d tt %d: alpha-beta %d, minimax %d", seed, depth, bits, res.Score, want)
				}
				if len(root.path) != 1 {
					t.Fatalf("search did not restore the position: %v", root.path)
				}
				if !res.Found || res.PV[0] != res.Best {
					t.Fatalf("best %v not first in PV %v", res.Best, res.PV)
				}
			}
		}
	}
}

// TestPVReplaysToScore: playing the principal variation from the root reaches a leaf
// whose evaluation (signed for the side to move) is the root score.
func TestPVReplaysToScore(t *testing.T) {
	for seed := 0; seed < 20; seed++ {
		root := &tree{path: []int{seed}, branch: 4}
		if over, _ := root.Terminal(); over {
			continue
		}
		res := New[int](0).Search(context.Background(), root, engine.Limits{Depth: 3})
		if res.Score > engine.WinThreshold || res.Score < -engine.WinThreshold {
			continue
		}
		for _, m := range res.PV {
			root.Make(m)
		}
		v := root.Evaluate()
		if len(res.PV)%2 == 1 {
			v = -v
		}
		if len(res.PV) != 3 || v != res.Score {
			t.Fatalf("seed %d: PV %v ends at %d, root score %d", seed, res.PV, v, res.Score)
		}
	}
}

// TestWidthLimit: with width 1 the search follows only the best-ordered child, so the
// node count is one line per iteration.
func TestWidthLimit(t *testing.T) {
	root := &tree{path: []int{1}, branch: 6}
	res := New[int](0).Search(context.Background(), root, engine.Limits{Depth: 3, Width: 1})
	if res.Nodes > 1+2+3+3 { // iterations 1..3 visit at most depth+1 nodes each
		t.Fatalf("width 1 visited %d nodes", res.Nodes)
	}
	full := New[int](0).Search(context.Background(), root, engine.Limits{Depth: 3})
	if full.Nodes <= res.Nodes {
		t.Fatalf("full width visited %d nodes, width 1 %d", full.Nodes, res.Nodes)
	}
}

func TestNodeAndTimeLimits(t *testing.T) {
	root := &tree{path: []int{2}, branch: 8}
	res := New[int](0).Search(context.Background(), root, engine.Limits{Depth: 30, Nodes: 5000})
	if res.Nodes > 5000+100 || !res.Found {
		t.Fatalf("node limit 5000: visited %d, found %v", res.Nodes, res.Found)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res = New[int](0).Search(ctx, root, engine.Limits{Depth: 30})
	if res.Depth > 1 {
		t.Fatalf("cancelled search completed depth %d", res.Depth)
	}
	// Depth 30 of a branching factor of 8 never completes: a search that returns has been
	// stopped by its clock (its result, not a wall-clock bound, is asserted).
	res = New[int](0).Search(context.Background(), root, engine.Limits{Depth: 30, Time: 50 * time.Millisecond})
	if !res.Found || res.Depth >= 30 {
		t.Fatalf("time-limited search: found %v, depth %d", res.Found, res.Depth)
	}
}

// TestClearForgets: after Clear, a searcher's next search (score, best move, principal
// variation and node count) is a fresh searcher's, also when Clear's age wraps around;
// without Clear the table's entries save nodes, which is what the node count would show.
func TestClearForgets(t *testing.T) {
	lim := engine.Limits{Depth: 4, Width: 3}
	for seed := 0; seed < 10; seed++ {
		a, b := &tree{path: []int{seed}, branch: 5}, &tree{path: []int{seed + 100}, branch: 5}
		if over, _ := b.Terminal(); over {
			continue
		}
		fresh := New[int](10).Search(context.Background(), b, lim)
		again := New[int](10)
		again.Search(context.Background(), b, lim)
		if warm := again.Search(context.Background(), b, lim); warm.Nodes >= fresh.Nodes {
			t.Fatalf("seed %d: a second search without Clear visited %d nodes, a fresh one %d: the table saved nothing", seed, warm.Nodes, fresh.Nodes)
		}
		// The searches at one age, then Clear at another: {0, 65535} is 65 535 clears later,
		// where the age wraps to the searches' own.
		for _, age := range [][2]uint16{{0, 0}, {1, 1}, {0, 65535}} {
			s := New[int](10)
			s.ttAge = age[0]
			s.Search(context.Background(), a, lim)
			s.Search(context.Background(), b, lim)
			s.ttAge = age[1]
			s.Clear()
			got := s.Search(context.Background(), b, lim)
			if got.Score != fresh.Score || got.Best != fresh.Best || got.Nodes != fresh.Nodes || fmt.Sprint(got.PV) != fmt.Sprint(fresh.PV) {
				t.Fatalf("seed %d, ages %v: after Clear %+v, a fresh searcher %+v", seed, age, got, fresh)
			}
		}
	}
}
