package protocol

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"evotune/engine"
)

// SAUGame is a game the SAU protocol carries (connect6.Game): its moves converted to and
// from SAU's letters (two per stone, column then row from the top, A–S).
type SAUGame interface {
	engine.Game
	// ParseSAUMove converts a SAU move ("JJ", "JJ@@", "IHJI") to the game's notation; the
	// error names a malformed move.
	ParseSAUMove(s string) (string, error)
	// SAUMove converts a move in the game's notation to SAU's letters.
	SAUMove(m string) (string, error)
}

// SAUMoveTime is the time per move when the user gives none: the SAU protocol carries no
// clock.
const SAUMoveTime = time.Second

// ServeSAU runs the Connect6 text protocol of the SAU platform on in/out until "quit" or
// end of input. cfg.Game must be a SAUGame.
func ServeSAU(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	sg, ok := cfg.Game.(SAUGame)
	if !ok {
		return fmt.Errorf("the SAU protocol cannot carry %s", cfg.Game.Name())
	}
	ls := newLines(in)
	var b engine.Board
	var me engine.Color
	var ss session // the player of the game in play
	respond := func() {
		if b == nil || b.Outcome() != engine.Ongoing || b.ToMove() != me {
			return
		}
		m, _, err := ss.think(ctx, cfg, b, cfg.budgetFor(0))
		if err == nil {
			err = b.Play(m)
		}
		var s string
		if err == nil {
			s, err = sg.SAUMove(m)
		}
		if err != nil {
			writeLine(out, "error %v", err)
			return
		}
		if len(s) == 2 && cfg.PadFirstMove {
			s += "@@"
		}
		writeLine(out, "move %s", s)
	}
	for {
		line, ok := ls.next()
		if !ok {
			return nil
		}
		f := strings.Fields(strings.ToLower(line))
		switch {
		case f[0] == "name?":
			writeLine(out, "name %s", cfg.Name)
		case f[0] == "new" && len(f) == 2 && (f[1] == "black" || f[1] == "white"):
			b, _ = cfg.Game.NewBoard(0)
			ss.newGame(cfg)
			me = engine.Black
			if f[1] == "white" {
				me = engine.White
			}
			respond()
		case f[0] == "move" && len(f) == 2:
			if b == nil {
				writeLine(out, "error no game: send 'new black' or 'new white' first")
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
				writeLine(out, "error %v", err)
				continue
			}
			respond()
		case f[0] == "end":
			b = nil
		case f[0] == "quit":
			return nil
		default:
			writeLine(out, "error unknown command %q", line)
		}
	}
}
