// Package sau is the SAU / computer-olympiad text protocol for Connect6, both sides: Serve
// lets evotune's engine play on the SAU platform ("name?", "new black", "new white",
// "move XXYY", "end", "quit"; bad commands answered "error <reason>"), and Client drives an
// outside engine the way the platform does. Each stone is two letters A–S, column then row,
// row A at the top; Black's one-stone first move is "move JJ" or "move JJ@@". A game speaks
// it by implementing Game.
package sau

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol/wire"
)

// Game is a game the SAU protocol carries (connect6.Game): its moves converted to and
// from SAU's letters (two per stone, column then row from the top, A–S).
type Game interface {
	engine.Game
	// ParseSAUMove converts a SAU move ("JJ", "JJ@@", "IHJI") to the game's notation; the
	// error names a malformed move.
	ParseSAUMove(s string) (string, error)
	// SAUMove converts a move in the game's notation to SAU's letters.
	SAUMove(m string) (string, error)
}

// MoveTime is the time per move when the user gives none: the SAU protocol carries no
// clock.
const MoveTime = time.Second

// Serve runs the Connect6 text protocol of the SAU platform on in/out until "quit" or
// end of input. cfg.Game must be a Game.
func Serve(ctx context.Context, cfg wire.Config, in io.Reader, out io.Writer) error {
	sg, ok := cfg.Game.(Game)
	if !ok {
		return fmt.Errorf("the SAU protocol cannot carry %s", cfg.Game.Name())
	}
	ls := wire.NewLines(in)
	var b engine.Board
	var me engine.Color
	var ss wire.Session // the player of the game in play
	respond := func() {
		if b == nil || b.Outcome() != engine.Ongoing || b.ToMove() != me {
			return
		}
		m, _, err := ss.Think(ctx, cfg, b, cfg.BudgetFor(0))
		if err == nil {
			err = b.Play(m)
		}
		var s string
		if err == nil {
			s, err = sg.SAUMove(m)
		}
		if err != nil {
			wire.WriteLine(out, "error %v", err)
			return
		}
		if len(s) == 2 && cfg.PadFirstMove {
			s += "@@"
		}
		wire.WriteLine(out, "move %s", s)
	}
	for {
		line, ok := ls.Next()
		if !ok {
			return nil
		}
		f := strings.Fields(strings.ToLower(line))
		switch {
		case f[0] == "name?":
			wire.WriteLine(out, "name %s", cfg.Name)
		case f[0] == "new" && len(f) == 2 && (f[1] == "black" || f[1] == "white"):
			b, _ = cfg.Game.NewBoard(0)
			ss.NewGame(cfg)
			me = engine.Black
			if f[1] == "white" {
				me = engine.White
			}
			respond()
		case f[0] == "move" && len(f) == 2:
			if b == nil {
				wire.WriteLine(out, "error no game: send 'new black' or 'new white' first")
				continue
			}
			m, err := sg.ParseSAUMove(f[1])
			if err == nil && b.ToMove() == me {
				err = fmt.Errorf("it is evotune's turn")
			}
			if err == nil {
				err = b.Play(m)
			}
			if err != nil {
				wire.WriteLine(out, "error %v", err)
				continue
			}
			respond()
		case f[0] == "end":
			b = nil
		case f[0] == "quit":
			return nil
		default:
			wire.WriteLine(out, "error unknown command %q", line)
		}
	}
}
