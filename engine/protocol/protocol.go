// Package protocol lets evotune's engines play in the managers and contests these games
// already use, over standard input and output:
//
//   - Gomoku: the Gomocup (Piskvork) protocol — START, RECTSTART, RESTART, BEGIN, TURN,
//     BOARD … DONE, INFO, TAKEBACK, ABOUT, END; answers UNKNOWN for unknown commands and
//     ERROR for bad ones. Coordinates are x,y from 0 at the top-left.
//   - Connect6: the SAU / computer-olympiad text protocol — "name?", "new black",
//     "new white", "move XXYY" (each stone two letters A–S, column then row, row A at the
//     top; Black's one-stone first move as "move JJ" or "move JJ@@"), "end", "quit".
//     Bad commands are answered "error <reason>".
//   - Amazons: Botzone's simple interaction (the turn number, then the requests and
//     responses so far, one move "x0 y0 x1 y1 x2 y2" out; "-1 -1 -1 -1 -1 -1" as Black's
//     first request) and its keep-running mode.
//
// The engines never answer with an illegal move: every move comes from the searcher on a
// board that validated the opponent's moves.
package protocol

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"evotune/engine"
)

// Config is an engine served over a protocol.
type Config struct {
	Game    engine.Game
	Weights engine.Weights
	// Limits are the search limits; a protocol's time controls lower Limits.Time per move.
	Limits engine.Limits
	// Board is the board side for protocols that do not say it (Botzone); 0 = default.
	Board int
	// Name and Version are reported to managers.
	Name, Version string
	// PadFirstMove writes Black's one-stone Connect6 first move as "move JJ@@" instead of
	// "move JJ" (both are read).
	PadFirstMove bool
}

// lines reads commands, trimming CR LF and surrounding blanks.
type lines struct{ sc *bufio.Scanner }

func newLines(r io.Reader) *lines {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	return &lines{sc}
}

func (l *lines) next() (string, bool) {
	for l.sc.Scan() {
		if s := strings.TrimSpace(l.sc.Text()); s != "" {
			return s, true
		}
	}
	return "", false
}

// think returns the engine's move on b within lim.
func think(ctx context.Context, cfg Config, b engine.Board, lim engine.Limits) (string, error) {
	p, err := cfg.Game.NewPlayer(cfg.Weights, lim)
	if err != nil {
		return "", err
	}
	m, _, err := p.Move(ctx, b)
	return m, err
}

// moveLimits lowers the search limits to a per-move time budget (0 = none): iterative
// deepening stops in time and keeps the last completed depth.
func moveLimits(base engine.Limits, budget time.Duration) engine.Limits {
	l := base
	if budget > 0 {
		if l.Time == 0 || budget < l.Time {
			l.Time = budget
		}
		if l.Depth == 0 {
			l.Depth = 64
		}
	}
	return l
}

func writeLine(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, format+"\n", args...)
	if f, ok := w.(interface{ Flush() error }); ok {
		f.Flush()
	}
}
