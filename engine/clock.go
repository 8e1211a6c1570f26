package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// TimeControl is a chess clock as tournament managers keep it: Base for Moves moves (0 = the
// whole game), then Base again for the next Moves; Inc added after every move (Fischer).
// Margin is how far past zero a clock may run before the move is a time loss (fastchess's
// timemargin); an answer later than that loses.
type TimeControl struct {
	Moves  int           `json:"moves,omitempty"`
	Base   time.Duration `json:"base_ns"`
	Inc    time.Duration `json:"inc_ns,omitempty"`
	Margin time.Duration `json:"margin_ns,omitempty"`
}

// ParseTimeControl reads a time control as the chess world writes it (cutechess-cli's and
// fastchess's tc): "10+0.1" (10 s and 0.1 s a move), "40/60+0.6" (60 s for every 40 moves,
// 0.6 s a move), "60" or "1:30+1" (minutes:seconds). The error names the part that is wrong.
func ParseTimeControl(s string) (TimeControl, error) {
	var tc TimeControl
	rest := strings.TrimSpace(s)
	if m, r, ok := strings.Cut(rest, "/"); ok {
		n, err := strconv.Atoi(m)
		if err != nil || n < 1 || n > 1000 {
			return tc, fmt.Errorf("time control %q: %q before '/' is not a number of moves (1–1000)", s, m)
		}
		tc.Moves, rest = n, r
	}
	base, inc, hasInc := strings.Cut(rest, "+")
	var err error
	if tc.Base, err = parseSeconds(base); err != nil {
		return tc, fmt.Errorf("time control %q: base time: %v", s, err)
	}
	if hasInc {
		if tc.Inc, err = parseSeconds(inc); err != nil {
			return tc, fmt.Errorf("time control %q: increment: %v", s, err)
		}
	}
	if tc.Base+tc.Inc <= 0 {
		return tc, fmt.Errorf("time control %q: no time at all", s)
	}
	return tc, nil
}

// parseSeconds reads "12.5" (seconds) or "1:30" (minutes:seconds) as a duration of at most
// a day.
func parseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	min := 0.0
	if m, sec, ok := strings.Cut(s, ":"); ok {
		v, err := strconv.ParseFloat(m, 64)
		if err != nil || v < 0 || v != math.Trunc(v) {
			return 0, fmt.Errorf("%q: minutes are not a whole number", s)
		}
		min, s = v, sec
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < 0 {
		return 0, fmt.Errorf("%q is not a number of seconds", s)
	}
	v += 60 * min
	if v > 86400 {
		return 0, fmt.Errorf("%q: more than a day", s)
	}
	return time.Duration(math.Round(v * 1e9)), nil
}

// String writes the time control as PGN's TimeControl tag and ParseTimeControl read it:
// "40/60+0.6", "10+0.1", "60".
func (tc TimeControl) String() string {
	s := strconv.FormatFloat(tc.Base.Seconds(), 'f', -1, 64)
	if tc.Moves > 0 {
		s = strconv.Itoa(tc.Moves) + "/" + s
	}
	if tc.Inc > 0 {
		s += "+" + strconv.FormatFloat(tc.Inc.Seconds(), 'f', -1, 64)
	}
	return s
}

// Clock is one side's clock during a game: the time left, under a moves-per-period
// control the moves left in the period, and the increment its control adds each move
// (the sides of a game may play under different controls: a tournament's engines each
// with its own tc=).
type Clock struct {
	Left      time.Duration
	MovesLeft int
	Inc       time.Duration
}

// clockOverrun is fastchess's extra wait beyond a clock's margin before it stops listening
// (its TimeControl::MARGIN): an answer after that is not awaited, whatever it would be.
const clockOverrun = 100 * time.Millisecond

// NewClock is a clock at the start of a game: Base plus one increment, as fastchess starts
// its clocks.
func (tc TimeControl) NewClock() Clock {
	return Clock{Left: tc.Base + tc.Inc, MovesLeft: tc.Moves, Inc: tc.Inc}
}

// Deadline is how long the side may take for its next move before the referee stops
// waiting: the time left, the margin and a tenth of a second.
func (tc TimeControl) Deadline(c Clock) time.Duration { return c.Left + tc.Margin + clockOverrun }

// Spend charges a move that took elapsed to c, as fastchess's TimeControl::updateTime: a new
// period's Base when the period's last move is made, the time taken, and the increment. It
// reports false (a time loss) when the clock ran more than Margin past zero.
func (tc TimeControl) Spend(c *Clock, elapsed time.Duration) bool {
	if tc.Moves > 0 {
		if c.MovesLeft == 1 {
			c.MovesLeft = tc.Moves
			c.Left += tc.Base
		} else {
			c.MovesLeft--
		}
	}
	c.Left -= elapsed
	if c.Left < -tc.Margin {
		return false
	}
	c.Left = max(c.Left, 0)
	c.Left += tc.Inc
	return true
}

// Clocked is implemented by players that are told the clocks before each move (an external
// engine under UCI's go wtime btime …): own is the mover's, opp the other side's.
type Clocked interface {
	SetClocks(tc TimeControl, own, opp Clock)
}
