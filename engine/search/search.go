// Package search is the one negamax alpha-beta searcher shared by all games: iterative
// deepening, a transposition table owned by the searcher (no package globals: the tuner
// runs many searchers in parallel), best-first move ordering (transposition-table move
// first, then the game's ordering score, picked lazily), an optional width limit that
// expands only the best W children (000_9752b1518ee42188.txt §3), depth/node/time limits
// and statistics (nodes, depth, NPS, principal variation).
package search

import (
	"context"
	"errors"
	"time"

	"evotune/engine"
)

// Scored is a move with its move-ordering score (higher is searched first).
type Scored[M comparable] struct {
	Move  M
	Score int64
}

// Position is what a game offers the searcher. Scores are from the side to move's point
// of view, in the game's integer evaluation units.
type Position[M comparable] interface {
	// GenMoves appends the moves to search to buf and returns it, each with an ordering
	// score. A game may return only its forced moves (an immediate win, or the blocks of
	// an immediate loss); the searcher applies the width limit after sorting.
	GenMoves(buf []Scored[M]) []Scored[M]
	// Make plays m; Unmake takes it back. They must be exact inverses.
	Make(m M)
	Unmake(m M)
	// Terminal reports whether the game is over; if so, score is −engine.Win when the side
	// to move has lost, +engine.Win when it has won, and 0 for a draw.
	Terminal() (over bool, score int64)
	// Evaluate is the static evaluation for the side to move.
	Evaluate() int64
	// Key is the Zobrist key (side to move included).
	Key() uint64
}

// Ranker is implemented by positions whose width cut should be made by their evaluation
// rather than by GenMoves' cheap ordering score (the Amazons: 004_5fa71e7c84b0e80d.txt §4
// evaluates every legal move). Where the width limit would cut at a node with at least two
// plies to go, the searcher calls Rank before the cut; at the frontier (one ply to go) the
// children are leaves, so the searcher searches them all: ranking them would evaluate the
// same leaves, and alpha-beta still cuts.
type Ranker[M comparable] interface {
	// Rank replaces each move's ordering score by its static value: the evaluation of
	// the position after the move, from the point of view of the side that made it.
	Rank(moves []Scored[M])
}

// Foreseer is implemented by positions that can prove a forced result at a leaf by
// static analysis (001_4cd63e63655ef194.txt §1.3: a side to move with a four wins in one
// ply). The searcher asks before evaluating a leaf and scores a result found n plies
// ahead like a game end found by search: ±(Win − ply − n), so shorter wins are preferred
// and transposition-table scores stay consistent.
type Foreseer interface {
	// Foresee returns n > 0 when the side to move wins by force in n plies, −n when it
	// loses by force in n plies, and 0 when nothing is proved. Only proven results: a
	// rule of thumb belongs in Evaluate.
	Foresee() int
}

// MaxPly bounds the search depth.
const MaxPly = 64

const (
	boundExact = 1
	boundLower = 2
	boundUpper = 3
)

type ttEntry[M comparable] struct {
	key   uint64
	score int64
	move  M
	depth int8
	bound uint8  // 0: empty
	age   uint16 // the Searcher's age when stored: an entry of another age is empty
}

// Searcher runs searches over positions with move type M. It owns its transposition table
// and buffers; it is not safe for concurrent use (give every worker its own).
type Searcher[M comparable] struct {
	tt     []ttEntry[M]
	ttMask uint64
	ttAge  uint16 // Clear's count: entries of an older age read as empty
	bufs   [MaxPly + 1][]Scored[M]
	pv     [MaxPly + 1][MaxPly + 1]M
	pvLen  [MaxPly + 1]int

	lim      engine.Limits
	foreseer Foreseer  // pos, when it implements Foreseer
	ranker   Ranker[M] // pos, when it implements Ranker
	ctx      context.Context
	deadline time.Time
	nodes    int64
	aborted  bool
	limited  bool
}

// New returns a searcher whose transposition table has 2^ttBits entries; ttBits = 0
// disables the table.
func New[M comparable](ttBits int) *Searcher[M] {
	s := &Searcher[M]{}
	if ttBits > 0 {
		s.tt = make([]ttEntry[M], 1<<ttBits)
		s.ttMask = uint64(len(s.tt) - 1)
	}
	return s
}

// Clear empties the transposition table, so that the next search does not depend on the
// previous ones. It ages the table rather than zeroing it (a 2^16-entry table is 2 MB,
// zeroed for every game and every opening's balance check): entries stored before read as
// empty, and the table is zeroed once every 65 536 clears, when the age wraps.
func (s *Searcher[M]) Clear() {
	if s.ttAge++; s.ttAge == 0 {
		clear(s.tt)
	}
}

// Result is the outcome of a search.
type Result[M comparable] struct {
	// Best is the move to play; Found is false when the root had no move or the search
	// was stopped before completing depth 1.
	Best  M
	Found bool
	// Score is the root value for the side to move.
	Score int64
	// Depth is the deepest completed iteration.
	Depth int
	// Nodes counts every position visited.
	Nodes int64
	// Elapsed is the wall time.
	Elapsed time.Duration
	// PV is the principal variation of the last completed iteration.
	PV []M
}

// Search runs iterative deepening from depth 1 to lim.Depth (at least 1) on pos, which is
// restored before return. Depth 1 always completes, so Found is true whenever the root has
// a move; deeper iterations stop early on the node or time limit or when ctx is cancelled,
// and the result is that of the last completed iteration. Under a time limit no iteration
// starts after lim.SoftTime, nor after depth 1 when the root has a single move.
func (s *Searcher[M]) Search(ctx context.Context, pos Position[M], lim engine.Limits) Result[M] {
	start := time.Now()
	s.lim = lim
	s.ctx = ctx
	s.foreseer, _ = pos.(Foreseer)
	s.ranker, _ = pos.(Ranker[M])
	s.nodes = 0
	s.aborted = false
	s.deadline = time.Time{}
	if lim.Time > 0 {
		s.deadline = start.Add(lim.Time)
	}
	depth := lim.Depth
	if depth < 1 {
		depth = 1
	}
	if depth > MaxPly {
		depth = MaxPly
	}
	var res Result[M]
	for d := 1; d <= depth; d++ {
		s.limited = d > 1 // depth 1 always completes, so a legal move is always found
		if s.limited {
			if lim.SoftTime > 0 && time.Since(start) >= lim.SoftTime {
				break // a new iteration would most likely be cut off by the hard limit
			}
			if len(s.bufs[0]) == 1 && lim.Time > 0 {
				break // one legal (or forced) move: thinking longer changes nothing
			}
			s.checkAbortNow()
			if s.aborted {
				break
			}
		}
		score := s.negamax(pos, d, 0, -engine.Win-1, engine.Win+1)
		if s.aborted {
			break
		}
		if s.pvLen[0] == 0 {
			break // no legal move at the root
		}
		res.Best, res.Found, res.Score, res.Depth = s.pv[0][0], true, score, d
		res.PV = append(res.PV[:0], s.pv[0][:s.pvLen[0]]...)
		if score > engine.WinThreshold || score < -engine.WinThreshold {
			break // a forced result: deeper search cannot change it
		}
	}
	res.Nodes = s.nodes
	res.Elapsed = time.Since(start)
	return res
}

func (s *Searcher[M]) checkAbort() {
	if !s.limited {
		return
	}
	if s.lim.Nodes > 0 && s.nodes >= s.lim.Nodes {
		s.aborted = true
		return
	}
	if s.nodes&127 != 0 { // a clock read every 128 nodes: cheap, and a node can be slow (Connect6 pairs)
		return
	}
	s.checkAbortNow()
}

func (s *Searcher[M]) checkAbortNow() {
	if s.lim.Nodes > 0 && s.nodes >= s.lim.Nodes {
		s.aborted = true
	}
	if !s.deadline.IsZero() && time.Now().After(s.deadline) {
		s.aborted = true
	}
	if s.ctx != nil && s.ctx.Err() != nil {
		s.aborted = true
	}
}

func (s *Searcher[M]) negamax(pos Position[M], depth, ply int, alpha, beta int64) int64 {
	s.nodes++
	s.pvLen[ply] = 0
	if ply > 0 {
		s.checkAbort()
		if s.aborted {
			return 0
		}
	}
	if over, score := pos.Terminal(); over {
		switch {
		case score > 0:
			return engine.Win - int64(ply)
		case score < 0:
			return -engine.Win + int64(ply)
		}
		return 0
	}
	if depth <= 0 || ply >= MaxPly {
		if s.foreseer != nil {
			switch n := s.foreseer.Foresee(); {
			case n > 0:
				return engine.Win - int64(ply+n)
			case n < 0:
				return -engine.Win + int64(ply-n)
			}
		}
		return pos.Evaluate()
	}

	key := pos.Key()
	var ttMove M
	hasTTMove := false
	var e *ttEntry[M]
	if s.tt != nil {
		e = &s.tt[key&s.ttMask]
		if e.key == key && e.bound != 0 && e.age == s.ttAge {
			ttMove, hasTTMove = e.move, true
			if ply > 0 && int(e.depth) >= depth {
				sc := fromTT(e.score, ply)
				switch {
				case e.bound == boundExact,
					e.bound == boundLower && sc >= beta,
					e.bound == boundUpper && sc <= alpha:
					if hasTTMove {
						s.pv[ply][0] = ttMove
						s.pvLen[ply] = 1
					}
					return sc
				}
			}
		}
	}

	moves := pos.GenMoves(s.bufs[ply][:0])
	s.bufs[ply] = moves
	if len(moves) == 0 {
		return pos.Evaluate()
	}
	sorted := 0 // moves[:sorted] are in search order
	if ttFirst(moves, ttMove, hasTTMove) {
		sorted = 1
	}
	n := len(moves)
	if w := s.lim.Width; w > 0 && n > w {
		if s.ranker == nil {
			n = w
		} else if depth >= 2 {
			s.ranker.Rank(moves)
			n = w
		}
		// A ranked position's frontier node (depth 1, the root's included) searches every
		// child: ranking them would evaluate the same leaves.
	}

	origAlpha := alpha
	best := int64(-engine.Win - 1)
	var bestMove M
	for i := 0; i < n; i++ {
		if i >= sorted {
			pickBest(moves, i)
		}
		m := moves[i].Move
		pos.Make(m)
		score := -s.negamax(pos, depth-1, ply+1, -beta, -alpha)
		pos.Unmake(m)
		if s.aborted {
			return 0
		}
		if score > best {
			best, bestMove = score, m
			if score > alpha {
				alpha = score
				s.pv[ply][0] = m
				copy(s.pv[ply][1:], s.pv[ply+1][:s.pvLen[ply+1]])
				s.pvLen[ply] = s.pvLen[ply+1] + 1
				if alpha >= beta {
					break
				}
			}
		}
	}
	if s.pvLen[ply] == 0 {
		// Every move failed low: still report the best one found.
		s.pv[ply][0] = bestMove
		s.pvLen[ply] = 1
	}
	if e != nil {
		bound := uint8(boundExact)
		switch {
		case best <= origAlpha:
			bound = boundUpper
		case best >= beta:
			bound = boundLower
		}
		*e = ttEntry[M]{key: key, score: toTT(best, ply), move: bestMove, depth: int8(depth), bound: bound, age: s.ttAge}
	}
	return best
}

// ttFirst moves the transposition-table move, if present, to the front and reports
// whether it did.
func ttFirst[M comparable](moves []Scored[M], ttMove M, hasTTMove bool) bool {
	if !hasTTMove {
		return false
	}
	for i := range moves {
		if moves[i].Move == ttMove {
			moves[0], moves[i] = moves[i], moves[0]
			return true
		}
	}
	return false
}

// pickBest swaps the best-scored move of moves[i:] into moves[i] (the first of equal
// scores, so the order is deterministic). Picking lazily means a node that cuts off after
// its first move or two never pays for a full sort.
func pickBest[M comparable](moves []Scored[M], i int) {
	best := i
	for j := i + 1; j < len(moves); j++ {
		if moves[j].Score > moves[best].Score {
			best = j
		}
	}
	moves[i], moves[best] = moves[best], moves[i]
}

// toTT and fromTT store win scores relative to the node, so a transposition reached at a
// different ply keeps the right distance to the win.
func toTT(score int64, ply int) int64 {
	switch {
	case score > engine.WinThreshold:
		return score + int64(ply)
	case score < -engine.WinThreshold:
		return score - int64(ply)
	}
	return score
}

func fromTT(score int64, ply int) int64 {
	switch {
	case score > engine.WinThreshold:
		return score - int64(ply)
	case score < -engine.WinThreshold:
		return score + int64(ply)
	}
	return score
}

// Answer turns a search result into what engine.Player.Move returns: the best move and the
// statistics with the principal variation, formatted in the game's notation by format. The
// error reports a root without a legal move.
func Answer[M comparable](res Result[M], format func(M) string) (string, engine.SearchStats, error) {
	st := engine.SearchStats{Nodes: res.Nodes, Depth: res.Depth, Score: res.Score, Elapsed: res.Elapsed}
	for _, m := range res.PV {
		st.PV = append(st.PV, format(m))
	}
	if !res.Found {
		return "", st, errors.New("no legal move")
	}
	return format(res.Best), st, nil
}
