// Package uci is the Universal Chess Interface, both sides: Client drives an outside chess
// engine as fastchess and cutechess-cli do ("uci" → "id"/"option"/"uciok", "setoption",
// "isready"/"readyok", "ucinewgame", "position startpos|fen … moves …", "go wtime btime winc
// binc [movestogo] | movetime | nodes | depth", "info … score cp|mate …", "bestmove",
// "quit"), and Serve lets evotune's own engine be such an engine. A game speaks it by
// giving boards that implement Board (engine/chess).
package uci

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol/wire"
)

// Name is the protocol's name in specs and flags.
const Name = "uci"

// Board is a board UCI carries: the argument of its position command for the game so far
// ("startpos moves e2e4 e7e5", "fen … moves …"), in the moves' UCI notation.
type Board interface {
	engine.Board
	UCIPosition() string
}

// plays reports whether g's boards are UCI boards.
func plays(g engine.Game) bool {
	b, err := g.NewBoard(0)
	if err != nil {
		return false
	}
	_, ok := b.(Board)
	return ok
}

// Dialect is the UCI client's description: a process kept between games (ucinewgame),
// "quit" before closing, any start position (position fen) and options (setoption).
var Dialect = wire.Dialect{
	Name:          Name,
	Plays:         plays,
	KeepsProcess:  true,
	Bye:           "quit",
	TakesOpenings: true,
	TakesOptions:  true,
}

// Client is the UCI client. It keeps nothing of a game but what its Conn holds; the zero
// value is ready.
type Client struct{ wire.Stateless }

// Option is an option an engine declared in its handshake ("option name Hash type spin
// default 16 min 1 max 33554432").
type Option struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Default string   `json:"default"`
	Min     *int64   `json:"min,omitempty"`
	Max     *int64   `json:"max,omitempty"`
	Vars    []string `json:"vars,omitempty"`
}

// rawName is an option line's name as the engine wrote it, between "name" and "type".
var rawName = regexp.MustCompile(`^option\s+name\s+(.*?)\s+type\s`)

// ParseOption reads an "option name … type … [default …] [min …] [max …] [var …]…" line;
// ok is false for any other line, and for one holding a control character (a carriage
// return anywhere, a tab inside the name: setoption would send back another name). Names and values
// may hold blanks: each runs to the next keyword.
func ParseOption(line string) (Option, bool) {
	// A control character in a name would be sent back by setoption as a blank: another
	// name. Tabs between the words are whitespace.
	if strings.ContainsFunc(line, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) {
		return Option{}, false
	}
	if m := rawName.FindStringSubmatch(line); m != nil && strings.ContainsRune(m[1], '\t') {
		return Option{}, false
	}
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "option" || f[1] != "name" {
		return Option{}, false
	}
	var o Option
	key, val := "", []string{}
	flush := func() {
		v := strings.Join(val, " ")
		switch key {
		case "name":
			o.Name = v
		case "type":
			o.Type = v
		case "default":
			o.Default = v
		case "min", "max":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				if key == "min" {
					o.Min = &n
				} else {
					o.Max = &n
				}
			}
		case "var":
			o.Vars = append(o.Vars, v)
		}
		val = val[:0]
	}
	for _, w := range f[1:] {
		switch w {
		case "name", "type", "default", "min", "max", "var":
			flush()
			key = w
			continue
		}
		val = append(val, w)
	}
	flush()
	return o, o.Name != "" && o.Type != ""
}

// CheckValue checks a value for the option: a spin's whole number within min…max, a
// check's true or false, a combo's var; the error says what the engine takes.
func (o Option) CheckValue(v string) error {
	switch o.Type {
	case "spin":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("option %q: %q is not a whole number (a spin)", o.Name, v)
		}
		if o.Min != nil && n < *o.Min || o.Max != nil && n > *o.Max {
			return fmt.Errorf("option %q: %d is outside the engine's %s…%s", o.Name, n, bound(o.Min), bound(o.Max))
		}
	case "check":
		if v != "true" && v != "false" {
			return fmt.Errorf("option %q: %q, want true or false (a check)", o.Name, v)
		}
	case "combo":
		for _, x := range o.Vars {
			if strings.EqualFold(x, v) {
				return nil
			}
		}
		return fmt.Errorf("option %q: %q is none of %s", o.Name, v, strings.Join(o.Vars, ", "))
	case "button":
		return fmt.Errorf("option %q is a button: it takes no value", o.Name)
	}
	return nil
}

func bound(p *int64) string {
	if p == nil {
		return "?"
	}
	return strconv.FormatInt(*p, 10)
}

// Declared parses the option lines of a handshake (wire.Conn.Declared).
func Declared(lines []string) []Option {
	out, _ := ParseDeclared(lines)
	return out
}

// ParseDeclared parses the option lines of a handshake and returns those ParseOption
// refuses (no name or type, a control character) as bad, for a caller to name.
func ParseDeclared(lines []string) (opts []Option, bad []string) {
	for _, l := range lines {
		if o, ok := ParseOption(l); ok {
			opts = append(opts, o)
		} else {
			bad = append(bad, l)
		}
	}
	return opts, bad
}

// Find returns the declared option called name (without regard to case, as UCI says; the
// last if an engine declares one twice), or nil.
func Find(declared []Option, name string) *Option {
	var found *Option
	for i := range declared {
		if strings.EqualFold(declared[i].Name, name) {
			found = &declared[i]
		}
	}
	return found
}

// CheckOptions checks values against the options an engine declared (names match without
// regard to case, as UCI says); the error names the option and what is wrong.
func CheckOptions(declared []Option, values []wire.Option) error {
	for _, v := range values {
		found := Find(declared, v.Name)
		if found == nil {
			var names []string
			for _, d := range declared {
				names = append(names, d.Name)
			}
			return fmt.Errorf("option %q: the engine declares no such option (it has: %s)", v.Name, strings.Join(names, ", "))
		}
		if err := found.CheckValue(v.Value); err != nil {
			return err
		}
	}
	return nil
}

// handshake starts the engine: "uci" answered by "uciok" within the start-up allowance
// (the "option" lines kept in c.Declared), the options sent, and "isready" answered.
func handshake(ctx context.Context, c *wire.Conn) error {
	if err := c.Start(); err != nil {
		return err
	}
	if err := c.Send("uci"); err != nil {
		return err
	}
	deadline := time.Now().Add(c.Startup)
	c.Declared = nil
	if _, err := c.Read(ctx, deadline, func(l string) bool {
		if strings.HasPrefix(l, "option ") && !c.LastCut() { // a cut line is named by c.Cut
			c.Declared = append(c.Declared, l)
		}
		return l == "uciok"
	}); err != nil {
		return wire.StartupError("uci", err)
	}
	c.OptionsChanged = false
	return sendOptions(c)
}

// sendOptions sends c.Options, one "setoption name N value V" each.
func sendOptions(c *wire.Conn) error {
	for _, o := range c.Options {
		if err := wire.CheckLine(o.Name, o.Value); err != nil {
			return err
		}
		if err := c.Send("setoption name %s value %s", o.Name, o.Value); err != nil {
			return err
		}
	}
	return nil
}

// Retunes implements wire.Retuner: a running engine takes new values of options it
// declared (setoption before the next ucinewgame); an option it did not declare may be
// read only at start-up, so it needs a new process.
func (Client) Retunes(c *wire.Conn, values []wire.Option) bool {
	return CheckOptions(Declared(c.Declared), values) == nil
}

// ready sends "isready" and waits for "readyok" within the start-up allowance.
func ready(ctx context.Context, c *wire.Conn) error {
	if err := c.Send("isready"); err != nil {
		return err
	}
	_, err := c.Read(ctx, time.Now().Add(c.Startup), func(l string) bool { return l == "readyok" })
	return wire.StartupError("isready", err)
}

// Move implements wire.Client: the handshake on a new process, "ucinewgame" and "isready"
// before each game, then "position" and "go" with c.Search's limits; the answer is the
// bestmove, the last "info … score" line before it kept in c.Stats.
func (Client) Move(ctx context.Context, c *wire.Conn, b engine.Board, _ []string, deadline time.Time, budget time.Duration) (string, error) {
	ub, ok := b.(Board)
	if !ok {
		return "", fmt.Errorf("UCI cannot carry %s", b.Game())
	}
	span := deadline.Sub(c.ThinkStart) // the move's time, from the go command on
	if !c.Running() {
		if err := handshake(ctx, c); err != nil {
			return "", err
		}
		c.NewGame = true
	}
	if c.NewGame {
		if c.OptionsChanged {
			if err := sendOptions(c); err != nil {
				return "", err
			}
			c.OptionsChanged = false
		}
		if err := c.Send("ucinewgame"); err != nil {
			return "", err
		}
		if err := ready(ctx, c); err != nil {
			return "", err
		}
		c.NewGame = false
	}
	if err := c.Send("position %s", ub.UCIPosition()); err != nil {
		return "", err
	}
	goLine := GoCommand(c.Search, b.ToMove(), budget)
	c.ThinkStart = time.Now()
	if err := c.Send("%s", goLine); err != nil {
		return "", err
	}
	deadline = c.ThinkStart.Add(span)
	// The move's statistics are those of the last info line with an exact score, else of the
	// last with a bound (as fastchess reads an engine's last score).
	// Only the lines are kept while the engine thinks; the two that count are parsed after.
	var exact, bound string
	line, err := c.Read(ctx, deadline, func(l string) bool {
		if strings.HasPrefix(l, "info ") {
			if strings.Contains(l, " score ") && !strings.Contains(l, "info string") &&
				(!strings.Contains(l, " multipv ") || strings.Contains(l, " multipv 1 ")) {
				if strings.Contains(l, "bound") {
					bound = l
				} else {
					exact = l
				}
			}
			return false
		}
		return strings.HasPrefix(l, "bestmove")
	})
	c.Stats = engine.SearchStats{NoScore: true}
	for _, l := range []string{bound, exact} { // exact wins
		if st, _, ok := parseInfo(l); ok {
			c.Stats = st
		}
	}
	if err != nil {
		return "", err
	}
	f := strings.Fields(line)
	if len(f) < 2 || f[1] == "(none)" || f[1] == "0000" {
		return "", errors.New("no move: " + strings.TrimSpace(line))
	}
	return f[1], nil
}

// GoCommand is the go command for a move of side (engine.Black is the first mover: White)
// under s: "go nodes N", "go depth D", the clocks ("wtime … btime … winc … binc …
// [movestogo …]") of s.TimeControl (each side's increment from its own clock), or "go
// movetime" of budget; nodes and depth go with the clocks when both are set, as fastchess
// sends them.
func GoCommand(s wire.Search, side engine.Color, budget time.Duration) string {
	var sb strings.Builder
	sb.WriteString("go")
	if s.Nodes > 0 {
		fmt.Fprintf(&sb, " nodes %d", s.Nodes)
	}
	if s.Depth > 0 {
		fmt.Fprintf(&sb, " depth %d", s.Depth)
	}
	switch tc := s.TimeControl; {
	case tc != nil:
		w, bl := s.Own, s.Opp
		if side != engine.Black {
			w, bl = bl, w
		}
		fmt.Fprintf(&sb, " wtime %d btime %d", w.Left.Milliseconds(), bl.Left.Milliseconds())
		if w.Inc > 0 || bl.Inc > 0 {
			fmt.Fprintf(&sb, " winc %d binc %d", w.Inc.Milliseconds(), bl.Inc.Milliseconds())
		}
		if tc.Moves > 0 {
			fmt.Fprintf(&sb, " movestogo %d", s.Own.MovesLeft)
		}
	case s.Nodes == 0 && s.Depth == 0 || s.MoveTime:
		fmt.Fprintf(&sb, " movetime %d", budget.Milliseconds())
	}
	return sb.String()
}

// MateScore converts UCI's "score mate N" (moves; negative: the engine is mated) to the
// searchers' units: ±(Win − plies to mate).
func MateScore(n int64) int64 {
	if n > 0 {
		return engine.Win - (2*n - 1)
	}
	return -engine.Win + (-2 * n)
}

// parseInfo reads an info line of the first principal variation with a score (cp or mate):
// its score, depth, nodes and PV, and whether the score is a bound (lowerbound,
// upperbound). ok is false for other lines ("info string", other multipv lines, lines
// without a score).
func parseInfo(l string) (st engine.SearchStats, isBound, ok bool) {
	f := strings.Fields(l)
	for i := 1; i < len(f); i++ {
		next := ""
		if i+1 < len(f) {
			next = f[i+1]
		}
		switch f[i] {
		case "string":
			return st, false, false // free text
		case "multipv":
			if next != "1" {
				return st, false, false
			}
		case "depth":
			st.Depth, _ = strconv.Atoi(next)
		case "nodes":
			st.Nodes, _ = strconv.ParseInt(next, 10, 64)
		case "lowerbound", "upperbound":
			isBound = true
		case "score":
			if i+2 < len(f) {
				n, err := strconv.ParseInt(f[i+2], 10, 64)
				if err == nil && next == "cp" && n > -engine.WinThreshold && n < engine.WinThreshold {
					st.Score, ok = n, true
				} else if err == nil && next == "mate" && n > -1000 && n < 1000 {
					st.Score, ok = MateScore(n), true
				}
			}
		case "pv":
			st.PV = append([]string(nil), f[i+1:]...)
			i = len(f)
		}
	}
	st.NoScore = !ok
	return st, isBound, ok
}

// Handshake starts the engine and runs its handshake only (uci, uciok, the options sent,
// isready), for a check before the first game; the option lines it declared are in
// c.Declared (wire.Handshaker).
func (Client) Handshake(ctx context.Context, c *wire.Conn) error {
	if err := handshake(ctx, c); err != nil {
		return err
	}
	return ready(ctx, c)
}

// CheckDeclared checks values against the option lines of a handshake (c.Declared).
func (Client) CheckDeclared(declared []string, values []wire.Option) error {
	return CheckOptions(Declared(declared), values)
}

var _ wire.Handshaker = Client{}
