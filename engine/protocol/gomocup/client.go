package gomocup

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol/wire"
)

// Name is the protocol's name in specs and flags.
const Name = "gomocup"

// Dialect is the Gomocup client's description: it plays a Game, keeps its process between
// games (RESTART), says END before closing, sets up any opening (BOARD) and carries options
// (INFO NAME VALUE).
var Dialect = wire.Dialect{
	Name:          Name,
	Plays:         wire.GameIs[Game],
	KeepsProcess:  true,
	Bye:           "END",
	TakesOpenings: true,
	TakesOptions:  true,
}

// Client is the Gomocup client, as Piskvork and c-gomoku-cli speak to an engine: START and
// INFO, BEGIN/TURN/BOARD, RESTART between games, SWAP2BOARD, END. It keeps nothing of a
// game but what c holds; the zero value is ready.
type Client struct{ wire.Stateless }

// Move implements wire.Client: START (and INFO) on a new process, RESTART on a new game,
// INFO time_left (under a chess clock, wire.Search.TimeControl, the mover's clock), then BEGIN on the empty board, TURN with the opponent's move when the
// engine knows the game before it, else BOARD with the whole game; the answer is "x,y".
func (Client) Move(ctx context.Context, c *wire.Conn, b engine.Board, hist []string, deadline time.Time, budget time.Duration) (string, error) {
	n := b.Size()
	if c.Running() && c.NewGame {
		if c.OptionsChanged { // a new candidate's values, kept by the engine across RESTART
			for _, o := range c.Options {
				if err := c.Send("INFO %s %s", o.Name, o.Value); err != nil {
					return "", err
				}
			}
			c.OptionsChanged = false
		}
		if err := restart(ctx, c); err != nil {
			return "", err
		}
		deadline = time.Now().Add(budget + c.Overhead)
		c.ThinkStart = time.Now()
	}
	if !c.Running() {
		if err := start(ctx, c, n); err != nil {
			return "", err
		}
		deadline = time.Now().Add(budget + c.Overhead)
		c.ThinkStart = time.Now()
	}
	c.NewGame = false
	// time_left every move; with no match limit, the largest value, as Piskvork sends it.
	left := int64(math.MaxInt32)
	switch {
	case c.Search.TimeControl != nil: // a clock the referee keeps: the mover's time left
		left = c.Search.Own.Left.Milliseconds()
	case c.GameTime > 0:
		left = (c.GameTime - c.Used).Milliseconds()
	}
	c.Send("INFO time_left %d", left)
	var err error
	switch {
	case len(hist) == 0:
		err = c.Send("BEGIN")
	case c.KnowsBefore(hist):
		x, y := XY(hist[len(hist)-1], n)
		err = c.Send("TURN %d,%d", x, y)
	default:
		err = c.Send("BOARD")
		me := len(hist) % 2 // index parity of the side to move's stones
		for i, m := range hist {
			if err != nil {
				break
			}
			field := 2
			if i%2 == me {
				field = 1
			}
			x, y := XY(m, n)
			err = c.Send("%d,%d,%d", x, y, field)
		}
		if err == nil {
			err = c.Send("DONE")
		}
	}
	if err != nil {
		return "", err
	}
	l, err := c.Read(ctx, deadline, isAnswer)
	if err != nil {
		return "", err
	}
	a, cc, ok := strings.Cut(l, ",")
	x, e1 := strconv.Atoi(strings.TrimSpace(a))
	y, e2 := strconv.Atoi(strings.TrimSpace(cc))
	if !ok || e1 != nil || e2 != nil || x < 0 || y < 0 || x >= n || y >= n {
		return "", fmt.Errorf("protocol violation: answer %q is not x,y on the board", l)
	}
	return fmt.Sprintf("%c%d", 'a'+rune(x), n-y), nil
}

// start starts the engine for a game on an n×n board: START (within c.Startup), the
// options, and the full INFO, as Piskvork sends it at the start of every game. Engines
// answer keys they do not know with ERROR or nothing; Read skips such lines.
func start(ctx context.Context, c *wire.Conn, n int) error {
	if err := c.Start(); err != nil {
		return err
	}
	if err := c.Send("START %d", n); err != nil {
		return err
	}
	l, err := c.Read(ctx, time.Now().Add(c.Startup), okOrError)
	if err != nil {
		return wire.StartupError("START", err)
	}
	if !strings.EqualFold(l, "OK") {
		return fmt.Errorf("START %d answered %q", n, l)
	}
	for _, o := range c.Options {
		if err := c.Send("INFO %s %s", o.Name, o.Value); err != nil {
			return err
		}
	}
	c.OptionsChanged = false
	rule := c.Game.(Game).GomocupRule()
	turn, match := c.MoveTime, c.GameTime
	if tc := c.Search.TimeControl; tc != nil {
		// A chess clock: the game's time is its base, and one move may take all that is
		// left (time_left says how much before every move; an increment shows there).
		turn, match = tc.Base+tc.Inc, tc.Base
	}
	c.Send("INFO timeout_turn %d", turn.Milliseconds())
	c.Send("INFO timeout_match %d", match.Milliseconds())
	c.Send("INFO max_memory 0")
	c.Send("INFO game_type 1")
	c.Send("INFO rule %d", rule)
	c.Known = nil
	return nil
}

func okOrError(l string) bool {
	u := strings.ToUpper(l)
	return u == "OK" || strings.HasPrefix(u, "ERROR")
}

// Retunes implements wire.Retuner: Gomocup's INFO may come at any time and the engine
// keeps its values across RESTART, so a running engine takes a new candidate's values.
func (Client) Retunes(*wire.Conn, []wire.Option) bool { return true }

// restart starts a new game in the running engine (Gomocup RESTART, answered OK, as
// c-gomoku-cli reuses engines between games): the engine keeps its settings and INFO
// values; the match clock restarts.
func restart(ctx context.Context, c *wire.Conn) error {
	if err := c.Send("RESTART"); err != nil {
		return err
	}
	l, err := c.Read(ctx, time.Now().Add(c.Startup), okOrError)
	if err != nil {
		return wire.StartupError("RESTART", err)
	}
	if !strings.EqualFold(l, "OK") {
		return fmt.Errorf("RESTART answered %q", l)
	}
	c.Known = nil
	return nil
}

// SwapAnswer implements wire.SwapClient over Gomocup's SWAP2BOARD: the opening stones so
// far (x,y lines), DONE; the answer is SWAP or stones "x,y x,y …", within the move time.
// The time is charged to c.Used.
func (Client) SwapAnswer(ctx context.Context, c *wire.Conn, b engine.Board) (bool, []string, error) {
	n := b.Size()
	if !c.Running() {
		if err := start(ctx, c, n); err != nil {
			return false, nil, err
		}
	}
	h, ok := b.(engine.Historian)
	if !ok {
		return false, nil, errors.New("the board has no move history")
	}
	begin := time.Now()
	err := c.Send("SWAP2BOARD")
	for _, m := range h.History() {
		x, y := XY(m, n)
		if err == nil {
			err = c.Send("%d,%d", x, y)
		}
	}
	if err == nil {
		err = c.Send("DONE")
	}
	if err != nil {
		return false, nil, err
	}
	l, err := c.Read(ctx, begin.Add(c.MoveTime+c.Overhead), func(l string) bool {
		if strings.EqualFold(l, "SWAP") {
			return true
		}
		f := strings.Fields(l)
		for _, xy := range f {
			if !isAnswer(xy) {
				return false
			}
		}
		return len(f) > 0
	})
	c.Used += time.Since(begin)
	if err != nil {
		return false, nil, err
	}
	c.Known = nil // the game goes on with BOARD
	if strings.EqualFold(l, "SWAP") {
		return true, nil, nil
	}
	var stones []string
	for _, xy := range strings.Fields(l) {
		a, cc, _ := strings.Cut(xy, ",")
		x, _ := strconv.Atoi(strings.TrimSpace(a))
		y, _ := strconv.Atoi(strings.TrimSpace(cc))
		if x < 0 || y < 0 || x >= n || y >= n {
			return false, nil, fmt.Errorf("protocol violation: stone %q is off the board", xy)
		}
		stones = append(stones, fmt.Sprintf("%c%d", 'a'+rune(x), n-y))
	}
	return false, stones, nil
}

// XY converts a move in Gomoku's notation ("h8": column letter, row from the bottom) to
// Gomocup's x,y from 0 at the top-left of an n×n board.
func XY(m string, n int) (int, int) {
	row, _ := strconv.Atoi(m[1:])
	return int(m[0] - 'a'), n - row
}

// isAnswer is a move answer "x,y" (blanks allowed); anything else is skipped.
func isAnswer(l string) bool {
	a, c, ok := strings.Cut(l, ",")
	_, e1 := strconv.Atoi(strings.TrimSpace(a))
	_, e2 := strconv.Atoi(strings.TrimSpace(c))
	return ok && e1 == nil && e2 == nil
}
