package protocol

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/connect6"
)

// SAU coordinates: two letters A–S per stone, column then row, row A at the top (so the
// centre is JJ = evotune's J10).
func sauToNotation(s string) (string, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	s = strings.TrimSuffix(s, "@@") // Black's one-stone first move may be padded
	if len(s) != 2 && len(s) != 4 {
		return "", fmt.Errorf("move %q: want XXYY (two letters A–S per stone)", s)
	}
	var out strings.Builder
	for i := 0; i < len(s); i += 2 {
		c, r := s[i], s[i+1]
		if c < 'A' || c > 'S' || r < 'A' || r > 'S' {
			return "", fmt.Errorf("move %q: letters must be A–S", s)
		}
		fmt.Fprintf(&out, "%c%d", c, connect6.Size-int(r-'A'))
	}
	return out.String(), nil
}

func notationToSAU(m string) (string, error) {
	mv, err := connect6.ParseMove(m)
	if err != nil {
		return "", err
	}
	pt := func(p int16) string {
		return string([]byte{byte('A' + p%connect6.Size), byte('A' + connect6.Size - 1 - p/connect6.Size)})
	}
	if mv.Q == connect6.NoPoint {
		return pt(mv.P), nil
	}
	return pt(mv.P) + pt(mv.Q), nil
}

// SAUMoveTime is the time per move when the user gives none: the SAU protocol carries no
// clock.
const SAUMoveTime = time.Second

// ServeSAU runs the Connect6 text protocol of the SAU platform on in/out until "quit" or
// end of input.
func ServeSAU(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
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
			s, err = notationToSAU(m)
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
			b, _ = connect6.Game{}.NewBoard(0)
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
			m, err := sauToNotation(f[1])
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
