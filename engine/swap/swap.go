// Package swap referees the swap openings of Gomoku (002 §1): Swap2, the swap after the
// third move and the fifth-move-N-alternatives rule, between two players that answer the
// opening's questions (Chooser, FifthChooser) — built-in searchers (Builtin) or external
// engines over Gomocup's SWAP2BOARD (protocol.External).
package swap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
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
	// Fifth is the prefix of the fifth-move-N-alternatives rule (三手交换五手N打, 002 §1):
	// "fifth-N" (N from 1 to MaxFifth; "fifth-2" is the classic 五手二打): the swap after
	// the third move, White's fourth stone (laid by whoever then holds White), then Black
	// offers N fifth moves, no two of them the same up to a symmetry of the position, and
	// White chooses the one that is played; White plays on. See ParseRule.
	Fifth = "fifth"
	// MaxFifth bounds N of "fifth-N".
	MaxFifth = 10
)

// ParseRule checks a swap opening rule name (Swap2, Swap3 or "fifth-N") and returns
// N for the fifth-move rule (0 for the others); the error names what is wrong.
func ParseRule(rule string) (n int, err error) {
	switch {
	case rule == Swap2 || rule == Swap3:
		return 0, nil
	case strings.HasPrefix(rule, Fifth+"-"):
		if _, err := fmt.Sscanf(rule, Fifth+"-%d", &n); err == nil && n >= 1 && n <= MaxFifth && rule == fmt.Sprintf("%s-%d", Fifth, n) {
			return n, nil
		}
		return 0, fmt.Errorf("opening rule %q: want %s-N with N from 1 to %d (the number of fifth moves Black offers)", rule, Fifth, MaxFifth)
	}
	return 0, fmt.Errorf("opening rule %q: want %s, %s or %s-N (五手N打, N fifth moves offered)", rule, Swap2, Swap3, Fifth)
}

// FifthChooser answers the fifth-move rule's questions (Fifth): the first player, White
// after the second player swapped, lays the fourth stone on b (three stones, White to move);
// Black offers n fifth moves (four stones laid, Black to move); White picks one of them.
type FifthChooser interface {
	FifthFourth(ctx context.Context, b engine.Board) (string, error)
	FifthOffer(ctx context.Context, b engine.Board, n int) ([]string, error)
	FifthPick(ctx context.Context, b engine.Board, offers []string) (string, error)
}

// Chooser answers the questions of a swap opening, as Gomocup's SWAP2BOARD asks them:
// on the board b holding the opening so far (0, 3 or 5 stones, Black first), either swap
// (take Black) or lay stones: 3 on the empty board, 1 (the next move, staying with the
// colour that plays it) or 2 (the Swap2 option: let the other choose) after 3, 1 after 5.
type Chooser interface {
	SwapAnswer(ctx context.Context, b engine.Board) (swap bool, stones []string, err error)
}

// Error is a swap-opening failure charged to one player: First is true for the first
// player (the proposer), false for the second.
type Error struct {
	First bool
	Err   error
}

// Error implements error: the failure's text.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap is the failure, for errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// Opening runs a swap opening (Swap2 or Swap3) on the empty board b between the first
// player p and the second player q, playing the stones on b. It returns the opening's moves
// and whether p plays White in the game that follows (the opening's last stone was played
// by the other colour, so the game goes on with the side b says is to move). A player that
// fails (an error, an illegal stone, an answer the rule does not allow) is named by a
// *Error; it loses the game.
func Opening(ctx context.Context, rule string, b engine.Board, p, q Chooser) (moves []string, pWhite bool, err error) {
	fifth, err := ParseRule(rule)
	if err != nil {
		return nil, false, err
	}
	lay := func(first bool, stones []string, want ...int) error {
		ok := false
		for _, n := range want {
			ok = ok || len(stones) == n
		}
		if !ok {
			return &Error{first, fmt.Errorf("%s: laid %d stones (%s), the rule allows %v here", rule, len(stones), strings.Join(stones, " "), want)}
		}
		for _, s := range stones {
			if err := b.Play(s); err != nil {
				return &Error{first, fmt.Errorf("%s: stone %s: %w", rule, s, err)}
			}
			moves = append(moves, s)
		}
		if b.Outcome() != engine.Ongoing {
			return &Error{first, fmt.Errorf("%s: the opening stones end the game", rule)}
		}
		return nil
	}
	ask := func(first bool, c Chooser) (bool, []string, error) {
		swap, stones, err := c.SwapAnswer(ctx, b)
		if err != nil {
			return false, nil, &Error{first, err}
		}
		return swap, stones, nil
	}
	// 1. p lays three stones.
	swap, stones, err := ask(true, p)
	if err == nil && swap {
		err = &Error{true, errors.New("answered SWAP to the empty board")}
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
	if fifth > 0 {
		pWhite, err := fifthMove(ctx, rule, fifth, b, p, q, swap, stones, lay)
		return moves, pWhite, err
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

// fifthMove runs the rest of the fifth-move rule after q's answer to the three stones
// (swap, or White's fourth stone): p, holding White after q swapped, lays the fourth stone;
// Black offers n fifth moves, White picks one; White then moves. It reports whether p holds
// White; lay plays stones (and records them as the opening's moves).
func fifthMove(ctx context.Context, rule string, n int, b engine.Board, p, q Chooser, swap bool, stones []string,
	lay func(first bool, stones []string, want ...int) error) (bool, error) {
	pWhite := swap // q took Black: p holds White
	if swap {      // p, now White, lays the fourth stone
		pf, ok := p.(FifthChooser)
		if !ok {
			return pWhite, &Error{true, fmt.Errorf("%s: the player cannot lay the fourth stone after a swap (no protocol carries the question)", rule)}
		}
		m, err := pf.FifthFourth(ctx, b.Clone())
		if err != nil {
			return pWhite, &Error{true, err}
		}
		stones = []string{m}
	}
	if err := lay(pWhite, stones, 1); err != nil { // laid by White: p if it swapped to White
		return pWhite, err
	}
	black, white := p, q
	blackFirst := true // whether Black is the first player p (for Error)
	if pWhite {
		black, white, blackFirst = q, p, false
	}
	bf, ok := black.(FifthChooser)
	if !ok {
		return pWhite, &Error{blackFirst, fmt.Errorf("%s: the player cannot offer fifth moves (no protocol carries the question)", rule)}
	}
	wf, ok := white.(FifthChooser)
	if !ok {
		return pWhite, &Error{!blackFirst, fmt.Errorf("%s: the player cannot choose a fifth move (no protocol carries the question)", rule)}
	}
	offers, err := bf.FifthOffer(ctx, b.Clone(), n)
	if err == nil {
		err = checkOffers(b, offers, n)
	}
	if err != nil {
		return pWhite, &Error{blackFirst, fmt.Errorf("%s: fifth moves %s: %w", rule, strings.Join(offers, " "), err)}
	}
	pick, err := wf.FifthPick(ctx, b.Clone(), append([]string(nil), offers...))
	if err == nil && !slices.Contains(offers, pick) {
		err = fmt.Errorf("picked %s, not one of the offers %s", pick, strings.Join(offers, " "))
	}
	if err != nil {
		return pWhite, &Error{!blackFirst, fmt.Errorf("%s: %w", rule, err)}
	}
	if err := lay(blackFirst, []string{pick}, 1); err != nil {
		return pWhite, err
	}
	return pWhite, nil
}

// checkOffers checks Black's fifth-move offers on b: n moves, each legal, no two the same
// point or symmetric images of each other under a symmetry of the position (one of the
// square's eight that maps each colour's stones onto themselves).
func checkOffers(b engine.Board, offers []string, n int) error {
	if len(offers) != n {
		return fmt.Errorf("%d offered, the rule asks %d", len(offers), n)
	}
	for _, m := range offers {
		if err := b.Clone().Play(m); err != nil {
			return err
		}
	}
	h, ok := b.(engine.Historian)
	if !ok {
		return errors.New("the board has no move history")
	}
	size := b.Size()
	syms := positionSymmetries(h.History(), size)
	for i := range offers {
		for j := i + 1; j < len(offers); j++ {
			for _, sym := range syms {
				if sym(offers[i]) == strings.ToLower(offers[j]) {
					return fmt.Errorf("%s and %s are the same move up to a symmetry of the position", offers[i], offers[j])
				}
			}
		}
	}
	return nil
}

// positionSymmetries returns the symmetries of the square (as maps of a point "h8" to its
// image) that map the stones of moves (Black's on even plies) onto stones of the same
// colour: the identity always.
func positionSymmetries(moves []string, size int) []func(string) string {
	xy := func(m string) (int, int) { x, y := pointXY(strings.ToLower(m), size); return x, y }
	name := func(x, y int) string { return fmt.Sprintf("%c%d", 'a'+rune(x), size-y) }
	n := size - 1
	all := []func(x, y int) (int, int){
		func(x, y int) (int, int) { return x, y }, func(x, y int) (int, int) { return n - x, y },
		func(x, y int) (int, int) { return x, n - y }, func(x, y int) (int, int) { return n - x, n - y },
		func(x, y int) (int, int) { return y, x }, func(x, y int) (int, int) { return n - y, x },
		func(x, y int) (int, int) { return y, n - x }, func(x, y int) (int, int) { return n - y, n - x },
	}
	colour := map[string]int{}
	for i, m := range moves {
		colour[strings.ToLower(m)] = i%2 + 1
	}
	var out []func(string) string
	for _, t := range all {
		ok := true
		for m, c := range colour {
			x, y := xy(m)
			if colour[name(t(x, y))] != c {
				ok = false
				break
			}
		}
		if ok {
			t := t
			out = append(out, func(m string) string { x, y := xy(m); return name(t(x, y)) })
		}
	}
	return out
}

// Builtin makes a built-in player answer a swap opening with its own search: it lays
// the proposal whose search score is nearest 0 (a balanced opening) and otherwise takes
// the colour its search prefers, swapping when the side to move (White) scores below 0 and
// else playing White's move. It never uses Swap2's two-stone option.
type Builtin struct {
	Player engine.Player
	// Proposals are three-stone openings to choose from (e.g. the game's opening book).
	Proposals [][]string
}

// SwapAnswer implements Chooser.
func (s Builtin) SwapAnswer(ctx context.Context, b engine.Board) (bool, []string, error) {
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

// FifthFourth implements FifthChooser: the player's own move.
func (s Builtin) FifthFourth(ctx context.Context, b engine.Board) (string, error) {
	m, _, err := s.Player.Move(ctx, b)
	return m, err
}

// FifthOffer implements FifthChooser for Black: the n moves near the stones whose position
// the player's search scores best for Black (lowest for White, to move), skipping a move
// that is a symmetric image of one already offered.
func (s Builtin) FifthOffer(ctx context.Context, b engine.Board, n int) ([]string, error) {
	type cand struct {
		m     string
		score int64
	}
	var cs []cand
	for _, m := range nearPoints(b, 2) {
		c := b.Clone()
		if c.Play(m) != nil || c.Outcome() != engine.Ongoing {
			continue
		}
		_, st, err := s.Player.Move(ctx, c)
		if err != nil {
			return nil, err
		}
		cs = append(cs, cand{m, st.Score})
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(a.score, b.score) })
	var offers []string
	for _, c := range cs {
		if len(offers) == n {
			break
		}
		if checkOffers(b, append(append([]string(nil), offers...), c.m), len(offers)+1) == nil {
			offers = append(offers, c.m)
		}
	}
	if len(offers) < n {
		return offers, fmt.Errorf("only %d distinct fifth moves found near the stones", len(offers))
	}
	return offers, nil
}

// FifthPick implements FifthChooser for White: the offer whose position the player's
// search scores best for White (to move after it).
func (s Builtin) FifthPick(ctx context.Context, b engine.Board, offers []string) (string, error) {
	best, bestScore := "", int64(0)
	for _, m := range offers {
		c := b.Clone()
		if err := c.Play(m); err != nil {
			return "", err
		}
		_, st, err := s.Player.Move(ctx, c)
		if err != nil {
			return "", err
		}
		if best == "" || st.Score > bestScore {
			best, bestScore = m, st.Score
		}
	}
	if best == "" {
		return "", errors.New("no offer to pick")
	}
	return best, nil
}

// nearPoints lists the empty points within d (Chebyshev distance) of a stone of b, in
// board order ("a1", "b1", …).
func nearPoints(b engine.Board, d int) []string {
	h, _ := b.(engine.Historian)
	size := b.Size()
	taken := map[[2]int]bool{}
	var stones [][2]int
	for _, m := range h.History() {
		x, y := pointXY(strings.ToLower(m), size)
		taken[[2]int{x, y}] = true
		stones = append(stones, [2]int{x, y})
	}
	var out []string
	for y := size - 1; y >= 0; y-- {
		for x := 0; x < size; x++ {
			if taken[[2]int{x, y}] {
				continue
			}
			for _, s := range stones {
				if max(abs(int64(s[0]-x)), abs(int64(s[1]-y))) <= int64(d) {
					out = append(out, fmt.Sprintf("%c%d", 'a'+rune(x), size-y))
					break
				}
			}
		}
	}
	return out
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// pointXY converts a point in Gomoku's notation ("h8": column letter, row from the bottom)
// to x, y from 0 at the top-left on a board of side size.
func pointXY(m string, size int) (int, int) {
	row, _ := strconv.Atoi(m[1:])
	return int(m[0] - 'a'), size - row
}
