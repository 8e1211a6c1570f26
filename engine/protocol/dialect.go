package protocol

import (
	"context"
	"fmt"
	"strings"
	"time"

	"evotune/engine"
)

// The protocols external engines speak (ExternalSpec.Protocol).
const (
	// Gomocup is the Gomocup (Piskvork) protocol: gomoku.
	Gomocup = "gomocup"
	// SAU is the SAU / computer-olympiad text protocol: connect6; it cannot start an engine
	// from an opening holding stones of its own colour.
	SAU = "sau"
	// Botzone is Botzone's bot interaction (simple or JSON, per move or keep-running): the
	// Amazons and ConnectSix (any board whose type implements BotzoneBoard). Every turn
	// carries the game's whole history, so an engine starts from any opening.
	Botzone = "botzone"
)

// dialect is one protocol's client side. External owns the engine's process and its line
// I/O (start, send, read until an answer or a deadline, the transcript, the values file);
// a dialect owns the conversation. A new protocol — UCI next: "uci"/"uciok", a candidate's
// values as "setoption name X value Y", "position … moves …", "go movetime N", "bestmove" —
// is one new file: a dialect and its line in dialects. Nothing outside this package
// changes: specs name it (ExternalSpec.Protocol), CheckProtocol and the tune and match
// flags list it for the games it plays.
type dialect interface {
	// plays reports whether the protocol can carry games of g.
	plays(g engine.Game) bool
	// move returns the engine's move on b, whose moves so far are hist, starting the
	// process (or a new game in it) as needed; the answer is late after deadline, budget is
	// the move's time.
	move(e *External, ctx context.Context, b engine.Board, hist []string, deadline time.Time, budget time.Duration) (string, error)
	// keepsProcess reports whether a process plays the next game too (Gomocup RESTART, SAU
	// "new"); otherwise it is stopped after each game (Botzone).
	keepsProcess() bool
	// bye is the last line sent before the engine's input is closed ("" = none).
	bye() string
	// takesOpenings reports whether an engine can be started from any opening.
	takesOpenings() bool
	// takesOptions reports whether the protocol carries ExternalSpec.Options.
	takesOptions() bool
}

// Option is one named value sent to an engine in its protocol's way (ExternalSpec.Options).
// Name is a layout's gene name (letters, digits, '_' and '.'); Value is a number as text.
type Option struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// OptionsProtocols lists the protocols of g that carry ExternalSpec.Options (Gomocup's INFO).
func OptionsProtocols(g engine.Game) []string {
	return protocolsWhere(g, dialect.takesOptions)
}

// OpeningProtocols lists the protocols of g that start an engine from any opening (all but
// SAU).
func OpeningProtocols(g engine.Game) []string {
	return protocolsWhere(g, dialect.takesOpenings)
}

// protocolsWhere lists the protocols that play g and have property ok, in dialects' order.
func protocolsWhere(g engine.Game, ok func(dialect) bool) []string {
	var out []string
	for _, x := range dialects {
		if x.d.plays(g) && ok(x.d) {
			out = append(out, x.name)
		}
	}
	return out
}

// dialects are the protocols in order of preference: a game's default protocol is the
// first that plays it.
var dialects = []struct {
	name string
	d    dialect
}{{Gomocup, gomocupDialect{}}, {SAU, sauDialect{}}, {Botzone, botzoneDialect{}}}

func dialectOf(name string) dialect {
	for _, x := range dialects {
		if x.name == name {
			return x.d
		}
	}
	return nil
}

// Protocols lists the protocols external engines of g can speak, its default first.
func Protocols(g engine.Game) []string {
	return protocolsWhere(g, func(dialect) bool { return true })
}

// DefaultProtocol is the protocol g's external engines speak unless told otherwise:
// Gomocup for gomoku, SAU for connect6, Botzone for amazons ("" for a game with none).
func DefaultProtocol(g engine.Game) string {
	for _, x := range dialects {
		if x.d.plays(g) {
			return x.name
		}
	}
	return ""
}

// CheckProtocol returns nil when external engines of g can speak protocol p ("" = the
// default), else an error naming the protocols they can speak.
func CheckProtocol(g engine.Game, p string) error {
	ps := Protocols(g)
	if len(ps) == 0 {
		return fmt.Errorf("%s engines speak no protocol evotune knows", g.Name())
	}
	if p == "" || dialectOf(p) != nil && dialectOf(p).plays(g) {
		return nil
	}
	return fmt.Errorf("protocol %q: %s engines speak %s", p, g.Name(), strings.Join(ps, " or "))
}

// ProtocolFor is the protocol the spec's engine speaks in a game of g: Protocol, or g's
// default.
func (s ExternalSpec) ProtocolFor(g engine.Game) string {
	if s.Protocol != "" {
		return s.Protocol
	}
	return DefaultProtocol(g)
}

// AcceptsOpenings reports whether the engine can be started from any opening of g:
// Gomocup (BOARD) and Botzone (the full history) can; SAU cannot hand an engine moves of its
// own colour, so games with such an engine start from the empty board. A nil spec is a
// built-in engine, which can.
func (s *ExternalSpec) AcceptsOpenings(g engine.Game) bool {
	if s == nil {
		return true
	}
	d := dialectOf(s.ProtocolFor(g))
	return d == nil || d.takesOpenings()
}

// dialect is the engine's protocol (found once: a dialect's plays may build a board); the
// error names a protocol its game cannot be played in, or options it cannot carry.
func (e *External) dialect() (dialect, error) {
	if e.dl != nil {
		return e.dl, nil
	}
	p := e.spec.ProtocolFor(e.game)
	d := dialectOf(p)
	switch {
	case d == nil || !d.plays(e.game):
		return nil, fmt.Errorf("no protocol %q for %s", p, e.game.Name())
	case len(e.spec.Options) > 0 && !d.takesOptions():
		return nil, fmt.Errorf("the %s protocol has no way to send options (%s)", p, e.spec.Options[0].Name)
	}
	e.dl = d
	return d, nil
}

// gomocupDialect is the Gomocup client: START and INFO, BEGIN/TURN/BOARD, RESTART, END.
type gomocupDialect struct{}

func (gomocupDialect) plays(g engine.Game) bool {
	_, ok := g.(GomocupGame)
	return ok
}
func (gomocupDialect) move(e *External, ctx context.Context, b engine.Board, hist []string, deadline time.Time, budget time.Duration) (string, error) {
	return e.gomocupMove(ctx, b, hist, deadline, budget)
}
func (gomocupDialect) keepsProcess() bool  { return true }
func (gomocupDialect) bye() string         { return "END" }
func (gomocupDialect) takesOpenings() bool { return true }
func (gomocupDialect) takesOptions() bool  { return true }

// sauDialect is the SAU client: name?, new COLOUR, move XXYY, quit.
type sauDialect struct{}

func (sauDialect) plays(g engine.Game) bool {
	_, ok := g.(SAUGame)
	return ok
}
func (sauDialect) move(e *External, ctx context.Context, b engine.Board, hist []string, deadline time.Time, _ time.Duration) (string, error) {
	return e.sauMove(ctx, b, hist, deadline)
}
func (sauDialect) keepsProcess() bool  { return true }
func (sauDialect) bye() string         { return "quit" }
func (sauDialect) takesOpenings() bool { return false }
func (sauDialect) takesOptions() bool  { return false }

// botzoneDialect is the Botzone client: the whole game every turn, a process per move or
// (keep-running) per game.
type botzoneDialect struct{}

func (botzoneDialect) plays(g engine.Game) bool {
	b, err := g.NewBoard(0)
	if err != nil {
		return false
	}
	_, ok := b.(BotzoneBoard)
	return ok
}
func (botzoneDialect) move(e *External, ctx context.Context, b engine.Board, hist []string, deadline time.Time, _ time.Duration) (string, error) {
	return e.botzoneMove(ctx, b, hist, deadline)
}
func (botzoneDialect) keepsProcess() bool  { return false }
func (botzoneDialect) bye() string         { return "" }
func (botzoneDialect) takesOpenings() bool { return true }
func (botzoneDialect) takesOptions() bool  { return false }
