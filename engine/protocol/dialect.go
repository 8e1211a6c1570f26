package protocol

import (
	"context"
	"fmt"
	"io"
	"strings"

	"evotune/engine"
	"evotune/engine/protocol/botzone"
	"evotune/engine/protocol/gomocup"
	"evotune/engine/protocol/sau"
	"evotune/engine/protocol/uci"
	"evotune/engine/protocol/wire"
)

// The protocols external engines speak (ExternalSpec.Protocol).
const (
	// Gomocup is the Gomocup (Piskvork) protocol: gomoku.
	Gomocup = gomocup.Name
	// SAU is the SAU / computer-olympiad text protocol: connect6; it cannot start an engine
	// from an opening holding stones of its own colour.
	SAU = sau.Name
	// Botzone is Botzone's bot interaction (simple or JSON, per move or keep-running): the
	// Amazons and ConnectSix (any board whose type implements botzone.Board). Every turn
	// carries the game's whole history, so an engine starts from any opening.
	Botzone = botzone.Name
	// UCI is the Universal Chess Interface: chess (any game whose boards are uci.Board).
	UCI = uci.Name
)

// dialect is one protocol's line in dialects: its description and how a spec makes its
// client.
type dialect struct {
	wire.Dialect
	client func(ExternalSpec) wire.Client
	serve  func(ctx context.Context, cfg wire.Config, in io.Reader, out, errOut io.Writer, keepRunning bool) error
}

// dialects are the protocols in order of preference: a game's default protocol is the
// first that plays it. A new protocol is a package beside gomocup, sau, botzone and uci and
// one line here; nothing outside this package changes: specs name it
// (ExternalSpec.Protocol), CheckProtocol and the tune and match flags list it for the games
// it plays.
var dialects = []dialect{
	{gomocup.Dialect, func(ExternalSpec) wire.Client { return gomocup.Client{} },
		func(ctx context.Context, cfg wire.Config, in io.Reader, out, _ io.Writer, _ bool) error {
			return gomocup.Serve(ctx, cfg, in, out)
		}},
	{sau.Dialect, func(ExternalSpec) wire.Client { return sau.Client{} },
		func(ctx context.Context, cfg wire.Config, in io.Reader, out, errOut io.Writer, _ bool) error {
			cfg.DefaultMoveTime, cfg.Log = sau.MoveTime, errOut
			return sau.Serve(ctx, cfg, in, out)
		}},
	{botzone.Dialect, func(s ExternalSpec) wire.Client {
		return &botzone.Client{JSON: s.BotzoneJSON, KeepRunning: s.BotzoneKeepRunning}
	}, func(ctx context.Context, cfg wire.Config, in io.Reader, out, errOut io.Writer, keepRunning bool) error {
		cfg.DefaultMoveTime, cfg.Log = botzone.MoveTime, errOut
		return botzone.Serve(ctx, cfg, in, out, errOut, keepRunning)
	}},
	{uci.Dialect, func(ExternalSpec) wire.Client { return uci.Client{} },
		func(ctx context.Context, cfg wire.Config, in io.Reader, out, _ io.Writer, _ bool) error {
			return uci.Serve(ctx, cfg, in, out)
		}},
}

// Serve serves the engine cfg describes over protocol p ("" = the game's default) on
// in/out until the protocol's end or end of input: search logs (protocols without a message
// command) and Botzone's complaints go to errOut; keepRunning is Botzone's keep-running mode
// (an error with any other protocol). SAU and Botzone carry no clock: their own time per
// move (1 s) becomes cfg.DefaultMoveTime, used when cfg.MoveTime is 0. The error names a
// protocol the game cannot be served over.
func Serve(ctx context.Context, p string, cfg wire.Config, in io.Reader, out, errOut io.Writer, keepRunning bool) error {
	if err := CheckProtocol(cfg.Game, p); err != nil {
		return err
	}
	p = ExternalSpec{Protocol: p}.ProtocolFor(cfg.Game)
	if keepRunning && p != Botzone {
		return fmt.Errorf("keep-running is Botzone's mode; %s is served over %s", cfg.Game.Name(), p)
	}
	return dialectOf(p).serve(ctx, cfg, in, out, errOut, keepRunning)
}

// OptionsProtocols lists the protocols of g that carry ExternalSpec.Options (Gomocup's INFO).
func OptionsProtocols(g engine.Game) []string {
	return protocolsWhere(g, func(d dialect) bool { return d.TakesOptions })
}

// OpeningProtocols lists the protocols of g that start an engine from any opening (all but
// SAU).
func OpeningProtocols(g engine.Game) []string {
	return protocolsWhere(g, func(d dialect) bool { return d.TakesOpenings })
}

// protocolsWhere lists the protocols that play g and have property ok, in dialects' order.
func protocolsWhere(g engine.Game, ok func(dialect) bool) []string {
	var out []string
	for _, x := range dialects {
		if x.Plays(g) && ok(x) {
			out = append(out, x.Name)
		}
	}
	return out
}

func dialectOf(name string) *dialect {
	for i := range dialects {
		if dialects[i].Name == name {
			return &dialects[i]
		}
	}
	return nil
}

// Names lists every protocol evotune speaks (gomocup, sau, botzone, uci), in its order.
func Names() []string {
	var out []string
	for _, x := range dialects {
		out = append(out, x.Name)
	}
	return out
}

// Protocols lists the protocols external engines of g can speak, its default first.
func Protocols(g engine.Game) []string {
	return protocolsWhere(g, func(dialect) bool { return true })
}

// DefaultProtocol is the protocol g's external engines speak unless told otherwise:
// Gomocup for gomoku, SAU for connect6, Botzone for amazons ("" for a game with none).
func DefaultProtocol(g engine.Game) string {
	for _, x := range dialects {
		if x.Plays(g) {
			return x.Name
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
	if p == "" || dialectOf(p) != nil && dialectOf(p).Plays(g) {
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
	return d == nil || d.TakesOpenings
}

// dialect is the engine's protocol (found once: a dialect's plays may build a board); the
// error names a protocol its game cannot be played in, or options it cannot carry.
func (e *External) dialect() (*dialect, error) {
	if e.dl != nil {
		return e.dl, nil
	}
	p := e.spec.ProtocolFor(e.game)
	d := dialectOf(p)
	switch {
	case d == nil || !d.Plays(e.game):
		return nil, fmt.Errorf("no protocol %q for %s", p, e.game.Name())
	case len(e.spec.Options) > 0 && !d.TakesOptions:
		return nil, fmt.Errorf("the %s protocol has no way to send options (%s)", p, e.spec.Options[0].Name)
	}
	e.dl, e.client = d, d.client(e.spec)
	return d, nil
}
