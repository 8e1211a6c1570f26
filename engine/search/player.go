package search

import (
	"context"
	"errors"
	"fmt"
	"time"

	"evotune/engine"
)

// Root is a position a Player searches: a Position that names its moves in the game's
// notation.
type Root[M comparable] interface {
	Position[M]
	// MoveString names a move in the game's notation ("h8", "J10K10", "d1-d6/g6").
	MoveString(m M) string
}

// Rules are what a game tells the Player all games share: its name, its default limits,
// the size of a player's transposition table, how its weights become the evaluation tables
// T its positions use, and how the position searched is made from a board's.
type Rules[P Root[M], M comparable, T any] struct {
	// Game is the game's name (engine.Game.Name), for errors.
	Game string
	// Defaults are the game's default limits: a zero depth becomes Defaults.Depth.
	Defaults engine.Limits
	// TTBits sizes the transposition table: 2^TTBits entries.
	TTBits int
	// Tables turns the game's weights into its evaluation tables; the error names weights of
	// another game or invalid ones.
	Tables func(w engine.Weights) (T, error)
	// Root returns the position to search: a copy of pos (a board's position, the rules
	// alone) evaluated with tab. prev is the last root the player searched (the zero P
	// before the first), which a game may overwrite instead of allocating a new position.
	Root func(pos P, tab T, prev P) P
}

// WeightsTables is Rules.Tables for a game whose weights type W makes its evaluation
// tables T: weights of another game or invalid ones are an error (engine.WeightsAs).
func WeightsTables[W interface {
	engine.Weights
	Tables() T
}, T any](game string) func(engine.Weights) (T, error) {
	return func(w engine.Weights) (T, error) {
		gw, err := engine.WeightsAs[W](game, w)
		if err != nil {
			var zero T
			return zero, err
		}
		return gw.Tables(), nil
	}
}

// Player is the alpha-beta player of every game (engine.Player, engine.Resetter,
// engine.LimitSetter): its weights as the game's evaluation tables, a Searcher with its own
// transposition table (kept from move to move until Reset), and the limits of its next
// moves. A game's Board must have a Position method returning its P (engine.PositionBoard
// has one). The zero value is not usable: use NewPlayer.
type Player[P Root[M], M comparable, T any] struct {
	rules Rules[P, M, T]
	tab   T
	lim   engine.Limits
	s     *Searcher[M]
	root  P // the last position searched (Rules.Root's prev)
	// clock, when clocked, is the mover's clock of the next move (SetClocks): the move's
	// time limit comes from it instead of lim's.
	clock   engine.Clock
	tc      engine.TimeControl
	clocked bool
}

// NewPlayer returns a player of the game r describes with weights w and limits lim (a zero
// depth is the game's default). The error names weights of another game, invalid weights
// or invalid limits.
func NewPlayer[P Root[M], M comparable, T any](r Rules[P, M, T], w engine.Weights, lim engine.Limits) (*Player[P, M, T], error) {
	tab, err := r.Tables(w)
	if err != nil {
		return nil, err
	}
	if lim, err = engine.PlayerLimits(lim, r.Defaults); err != nil {
		return nil, err
	}
	return &Player[P, M, T]{rules: r, tab: tab, lim: lim, s: New[M](r.TTBits)}, nil
}

// Search searches a copy of pos evaluated with the player's weights, within its limits.
func (pl *Player[P, M, T]) Search(ctx context.Context, pos P) Result[M] {
	pl.root = pl.rules.Root(pos, pl.tab, pl.root)
	lim := pl.lim
	if pl.clocked {
		lim.Time = MoveTime(pl.tc, pl.clock)
		lim.SoftTime = lim.Time / 2
		pl.clocked = false
	}
	return pl.s.Search(ctx, pl.root, lim)
}

// SetClocks implements engine.Clocked: the next move is timed from the mover's clock own
// (MoveTime) under the player's depth and node limits, as a chess engine under go wtime
// btime winc binc.
func (pl *Player[P, M, T]) SetClocks(tc engine.TimeControl, own, _ engine.Clock) {
	pl.tc, pl.clock, pl.clocked = tc, own, true
}

// MoveTime is the time a clocked player gives its next move: the time left shared over the
// moves left in the period (30 when the period is the whole game), plus three quarters of
// the increment, never more than the time left less a safety of 50 ms and a tenth of it
// (at least 1 ms).
func MoveTime(tc engine.TimeControl, own engine.Clock) time.Duration {
	togo := 30
	if own.MovesLeft > 0 {
		togo = own.MovesLeft
	}
	t := own.Left/time.Duration(togo) + tc.Inc*3/4
	limit := own.Left - 50*time.Millisecond - own.Left/10
	return max(min(t, limit), time.Millisecond)
}

// Move implements engine.Player: the best move on b (a board of the player's game whose
// game is not over) and the search's statistics.
func (pl *Player[P, M, T]) Move(ctx context.Context, b engine.Board) (string, engine.SearchStats, error) {
	pb, ok := b.(interface{ Position() P })
	if !ok {
		return "", engine.SearchStats{}, fmt.Errorf("%s: board of %s", pl.rules.Game, b.Game())
	}
	if b.Outcome() != engine.Ongoing {
		return "", engine.SearchStats{}, errors.New(pl.rules.Game + ": the game is over")
	}
	pos := pb.Position()
	return Answer(pl.Search(ctx, pos), pos.MoveString)
}

// Reset implements engine.Resetter: the weights w and an empty transposition table, as a
// new player's. The error names weights of another game or invalid ones; the player is
// unchanged then.
func (pl *Player[P, M, T]) Reset(w engine.Weights) error {
	tab, err := pl.rules.Tables(w)
	if err != nil {
		return err
	}
	pl.tab = tab
	pl.s.Clear()
	return nil
}

// SetLimits implements engine.LimitSetter: the limits of the next moves (a zero depth is
// the game's default); the transposition table is kept. The error names invalid limits, as
// NewPlayer's.
func (pl *Player[P, M, T]) SetLimits(lim engine.Limits) error {
	return engine.SetPlayerLimits(&pl.lim, lim, pl.rules.Defaults)
}

// Clear empties the transposition table, so that the next move does not depend on earlier
// ones.
func (pl *Player[P, M, T]) Clear() { pl.s.Clear() }
