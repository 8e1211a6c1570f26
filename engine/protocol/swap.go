package protocol

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"evotune/engine"
)

// Swap opening rules for Gomoku (002 §1: the professional rules let the second player
// choose colours after an opening the first player laid, so the first move's advantage is
// not decided by who starts):
const (
	// Swap2 is Gomocup's Swap2: the first player lays three stones (Black, White, Black);
	// the second player swaps (takes Black), or plays White's fourth stone, or lays two more
	// (White, Black) and lets the first player choose: swap (take Black) or play White's
	// sixth stone.
	Swap2 = "swap2"
	// Swap3 is the swap after the third move (三手交换): the first player lays three stones;
	// the second player swaps or plays White's fourth stone.
	Swap3 = "swap3"
)

// SwapChooser answers the questions of a swap opening, as Gomocup's SWAP2BOARD asks them:
// on the board b holding the opening so far (0, 3 or 5 stones, Black first), either swap
// (take Black) or lay stones: 3 on the empty board, 1 (the next move, staying with the
// colour that plays it) or 2 (the Swap2 option: let the other choose) after 3, 1 after 5.
type SwapChooser interface {
	SwapAnswer(ctx context.Context, b engine.Board) (swap bool, stones []string, err error)
}

// SwapError is a swap-opening failure charged to one player: First is true for the first
// player (the proposer), false for the second.
type SwapError struct {
	First bool
	Err   error
}

func (e *SwapError) Error() string { return e.Err.Error() }
func (e *SwapError) Unwrap() error { return e.Err }

// SwapOpening runs a swap opening (Swap2 or Swap3) on the empty board b between the first
// player p and the second player q, playing the stones on b. It returns the opening's moves
// and whether p plays White in the game that follows (the opening's last stone was played
// by the other colour, so the game goes on with the side b says is to move). A player that
// fails (an error, an illegal stone, an answer the rule does not allow) is named by a
// *SwapError; it loses the game.
func SwapOpening(ctx context.Context, rule string, b engine.Board, p, q SwapChooser) (moves []string, pWhite bool, err error) {
	if rule != Swap2 && rule != Swap3 {
		return nil, false, fmt.Errorf("opening rule %q: want %s or %s", rule, Swap2, Swap3)
	}
	lay := func(first bool, stones []string, want ...int) error {
		ok := false
		for _, n := range want {
			ok = ok || len(stones) == n
		}
		if !ok {
			return &SwapError{first, fmt.Errorf("%s: laid %d stones (%s), the rule allows %v here", rule, len(stones), strings.Join(stones, " "), want)}
		}
		for _, s := range stones {
			if err := b.Play(s); err != nil {
				return &SwapError{first, fmt.Errorf("%s: stone %s: %w", rule, s, err)}
			}
			moves = append(moves, s)
		}
		if b.Outcome() != engine.Ongoing {
			return &SwapError{first, fmt.Errorf("%s: the opening stones end the game", rule)}
		}
		return nil
	}
	ask := func(first bool, c SwapChooser) (bool, []string, error) {
		swap, stones, err := c.SwapAnswer(ctx, b)
		if err != nil {
			return false, nil, &SwapError{first, err}
		}
		return swap, stones, nil
	}
	// 1. p lays three stones.
	swap, stones, err := ask(true, p)
	if err == nil && swap {
		err = &SwapError{true, errors.New("answered SWAP to the empty board")}
	}
	if err == nil {
		err = lay(true, stones, 3)
	}
	if err != nil {
		return moves, false, err
	}
	// 2. q swaps, plays White's fourth stone, or (Swap2) lays two more.
	if swap, stones, err = ask(false, q); err != nil {
		return moves, false, err
	}
	switch {
	case swap: // q takes Black; p plays White, to move
		return moves, true, nil
	case rule == Swap3 || len(stones) == 1:
		if err := lay(false, stones, 1); err != nil {
			return moves, false, err
		}
		return moves, false, nil // q played White's fourth: q is White, p Black to move
	}
	if err := lay(false, stones, 1, 2); err != nil {
		return moves, false, err
	}
	// 3. p swaps (takes Black) or plays White's sixth stone.
	if swap, stones, err = ask(true, p); err != nil {
		return moves, false, err
	}
	if swap {
		return moves, false, nil // p takes Black; q is White, to move
	}
	if err := lay(true, stones, 1); err != nil {
		return moves, false, err
	}
	return moves, true, nil // p played White's sixth: p is White, Black to move
}

// BuiltinSwap makes a built-in player answer a swap opening with its own search: it lays
// the proposal whose search score is nearest 0 (a balanced opening) and otherwise takes
// the colour its search prefers, swapping when the side to move (White) scores below 0 and
// else playing White's move. It never uses Swap2's two-stone option.
type BuiltinSwap struct {
	Player engine.Player
	// Proposals are three-stone openings to choose from (e.g. the game's opening book).
	Proposals [][]string
}

// SwapAnswer implements SwapChooser.
func (s BuiltinSwap) SwapAnswer(ctx context.Context, b engine.Board) (bool, []string, error) {
	if b.Ply() == 0 {
		best, bestScore := -1, int64(0)
		for i, o := range s.Proposals {
			if len(o) != 3 {
				continue
			}
			c := b.Clone()
			ok := true
			for _, m := range o {
				ok = ok && c.Play(m) == nil
			}
			if !ok || c.Outcome() != engine.Ongoing {
				continue
			}
			_, st, err := s.Player.Move(ctx, c)
			if err != nil {
				return false, nil, err
			}
			if d := abs(st.Score); best < 0 || d < bestScore {
				best, bestScore = i, d
			}
		}
		if best < 0 {
			return false, nil, errors.New("no three-stone proposal fits this board")
		}
		return false, append([]string(nil), s.Proposals[best]...), nil
	}
	m, st, err := s.Player.Move(ctx, b)
	if err != nil {
		return false, nil, err
	}
	if st.Score < 0 { // White, to move, stands worse: take Black
		return true, nil, nil
	}
	return false, []string{m}, nil
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
