package amazons

import (
	"context"
	"math/rand/v2"
	"testing"

	"evotune/engine"
	"evotune/engine/search"
)

// widthSuite is a fixed suite: the positions every 6 plies of a seeded random game on the
// 10×10 board, up to ply 60.
func widthSuite() []*Position {
	rng := rand.New(rand.NewPCG(10, 10))
	p, _ := NewPosition(10, DefaultWeights().Tables())
	var out []*Position
	for p.ply <= 60 && p.HasMove() {
		if p.ply%6 == 0 {
			out = append(out, p.Clone())
		}
		moves := p.AppendMoves(nil)
		p.Make(moves[rng.IntN(len(moves))])
	}
	return out
}

func searchAt(p *Position, lim engine.Limits) search.Result[Move] {
	return search.New[Move](14).Search(context.Background(), p.Clone(), lim)
}

// TestWidthCutByEvaluation: the width cut is made by the weighted evaluation (004 §4).
// At depth 1 any width plays the full-width best move; at depth 2 a width of at least
// the number of legal moves gives exactly the full-width search; at the default depth 2,
// width 10 the root expands the full-width depth-1 best move.
func TestWidthCutByEvaluation(t *testing.T) {
	suite := widthSuite()
	if len(suite) < 10 {
		t.Fatalf("suite has %d positions", len(suite))
	}
	agree := 0
	for i, p := range suite {
		full1 := searchAt(p, engine.Limits{Depth: 1})
		if got := searchAt(p, engine.Limits{Depth: 1, Width: 10}); got.Best != full1.Best || got.Score != full1.Score {
			t.Errorf("position %d (ply %d): depth 1 width 10 plays %s (%d), full width %s (%d)", i, p.ply,
				p.MoveString(got.Best), got.Score, p.MoveString(full1.Best), full1.Score)
		}
		// The root's expanded moves are the ten best by Rank, which must include full1.
		moves := p.GenMoves(nil)
		p.Rank(moves)
		better := 0
		for _, m := range moves {
			if m.Score > full1.Score {
				better++
			}
		}
		if better >= 10 {
			t.Errorf("position %d: %d moves rank above the full-width depth-1 best", i, better)
		}
		def := searchAt(p, Game{}.DefaultLimits())
		if def.Best == full1.Best {
			agree++
		}
	}
	t.Logf("default depth 2 width 10 plays the full-width depth-1 best in %d of %d positions", agree, len(suite))
	// Width ≥ legal moves: identical to full width at depth 2 on two late positions (full
	// width at depth 2 is affordable there).
	for _, p := range suite[len(suite)-2:] {
		n := len(p.AppendMoves(nil))
		full := searchAt(p, engine.Limits{Depth: 2})
		wide := searchAt(p, engine.Limits{Depth: 2, Width: n})
		if full.Best != wide.Best || full.Score != wide.Score {
			t.Errorf("ply %d: width %d plays %s (%d), full width %s (%d)", p.ply, n,
				p.MoveString(wide.Best), wide.Score, p.MoveString(full.Best), full.Score)
		}
	}
}

// TestNoBorderTurns: with no_border_turns 2 the engine's moves in each side's first two
// turns never land on the edge, from turn 3 on edge moves are generated again; the key is
// optional in a weights file and must be a whole number.
func TestNoBorderTurns(t *testing.T) {
	w := DefaultWeights()
	w.NoBorderTurns = 2
	p, _ := NewPosition(10, w.Tables())
	edge := func(ms []search.Scored[Move]) int {
		n := 0
		for _, m := range ms {
			if p.onEdge(m.Move.To) {
				n++
			}
		}
		return n
	}
	all := p.AppendMoves(nil)
	gen := p.GenMoves(nil)
	if edge(gen) != 0 || len(gen) == len(all) || len(gen) == 0 {
		t.Fatalf("turn 1: %d of %d generated moves go to the edge (legal moves %d)", edge(gen), len(gen), len(all))
	}
	pl, _ := Game{}.NewPlayer(w, Game{}.DefaultLimits())
	for p.Turn() <= 2 {
		res := pl.(*Player).Search(context.Background(), p)
		if p.onEdge(res.Best.To) {
			t.Fatalf("turn %d: the engine moved to the edge: %s", p.Turn(), p.MoveString(res.Best))
		}
		p.Make(res.Best)
	}
	if edge(p.GenMoves(nil)) == 0 {
		t.Fatal("turn 3: edge moves are still left out")
	}
	raw := []byte(`{"a":[64,32,32,64,16],"b":[-2,-0.9,-0.9,-2,-0.45],"switch_turn":17,"late_k1":5,"equal":0.5`)
	if w, err := (Game{}).DecodeWeights(append(raw, '}')); err != nil || w.(*Weights).NoBorderTurns != 0 {
		t.Fatalf("without no_border_turns: %v, %v", w, err)
	}
	if _, err := (Game{}).DecodeWeights(append(raw, []byte(`,"no_border_turns":2.5}`)...)); err == nil {
		t.Fatal("no_border_turns 2.5 accepted")
	}
}
