// Package botzone is Botzone's bot interaction, both sides: Serve lets evotune's engine run
// as a Botzone bot (the simple interaction: the turn number, then the requests and
// responses so far, one move out; the JSON interaction; the keep-running mode), and Client
// runs an outside bot the way Botzone does (a process per turn, or per game when it keeps
// running). Moves are numbers, x the column from the left and y the row from the top, from
// 0 (the Amazons "x0 y0 x1 y1 x2 y2", ConnectSix "x0 y0 x1 y1"); all −1 is "no move". A
// game speaks it when its board implements Board.
package botzone

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol/wire"
)

// MoveTime is the time per move when the user gives none: Botzone's per-turn limit
// for the Amazons is 1 s (a long-running bot's first turn gets more; 1 s is safe).
const MoveTime = time.Second

// launchAllowance is the time a process takes from its launch to its package
// initialisation (wire.ProcessStart), which a clock started at launch has already counted
// (≈ 20 ms measured here).
const launchAllowance = 30 * time.Millisecond

// maxTurn bounds the turn number of a simple-interaction input: no game lasts longer, and
// a larger one (2n−1 lines to read) is refused as malformed.
const maxTurn = 100000

// Serve plays a game Botzone plays (cfg.Game's board is a Board: the
// Amazons, "x0 y0 x1 y1 x2 y2"; ConnectSix, "x0 y0 x1 y1"). Simple interaction: the input
// is the turn number n, then 2n−1 lines (requests and evotune's earlier responses,
// alternating), then the data and globaldata lines (evotune saves none), and the answer is
// one move. JSON interaction (an input line starting with '{'): {"requests": [{"x0": …,
// "y0": …, …}, …], "responses": [...], ...} in, {"response": {"x0": …, …}} out. Without
// keepRunning the bot answers its one turn and returns, as Botzone runs one process per
// turn (the lines after the requests are not read as moves). With keepRunning it prints
// KeepRunning after each answer and then reads either a new full input or just the next
// request (a line, or a JSON object). A bad input is answered with all −1 ("no move") and a
// reason on stderr (errOut). A game Botzone does not play is an error at once.
func Serve(ctx context.Context, cfg wire.Config, in io.Reader, out, errOut io.Writer, keepRunning bool) error {
	nb, err := cfg.Game.NewBoard(cfg.Board)
	if err != nil {
		return err
	}
	bb, ok := nb.(Board)
	if !ok {
		return fmt.Errorf("Botzone does not play %s", cfg.Game.Name())
	}
	n := bb.BotzoneFields()
	noMove := NoMove(n)
	jsonNoMove, _ := json.Marshal(output{Response: mustJSON(make(bzMove, n).none())})
	ls := wire.NewLines(in)
	var ss wire.Session  // the player of the game in play, kept between keep-running turns
	var history []string // all moves in Botzone form, Black's first
	var blackFirst bool  // whether evotune is Black
	answered := false    // whether this process has answered before
	jsonMode := false    // the input was JSON: answer in JSON
	answer := func() {
		b, err := replay(cfg, history)
		var m string
		if err == nil {
			budget := cfg.BudgetFor(0)
			if !answered && budget > 0 {
				// Botzone's clock for a bot's first answer (every answer in simple
				// interaction, where a process plays one turn) runs from the process's start.
				// No budget (0) stays none: the depth decides.
				budget = max(budget-time.Since(wire.ProcessStart)-launchAllowance, time.Millisecond)
			}
			m, _, err = ss.Think(ctx, cfg, b, budget)
		}
		answered = true
		if err == nil {
			m, err = b.(Board).BotzoneMove(m)
		}
		if err == nil {
			history = append(history, m)
		} else {
			fmt.Fprintln(errOut, "evotune:", err)
			m = noMove
		}
		if jsonMode {
			r, _ := parse(m, n)
			data, _ := json.Marshal(struct {
				Response bzMove `json:"response"`
			}{r})
			wire.WriteLine(out, "%s", data)
		} else {
			wire.WriteLine(out, "%s", m)
		}
		if keepRunning {
			wire.WriteLine(out, KeepRunning)
		}
	}
	first := true
	for {
		line, ok := ls.Next()
		if !ok {
			return nil
		}
		if strings.HasPrefix(line, "{") { // JSON interaction
			jsonMode = true
			var in jsonIn
			var req bzMove
			var reqErr error
			switch {
			case json.Unmarshal([]byte(line), &in) == nil && in.Requests != nil:
				history = history[:0]
				ss.NewGame(cfg) // a full input: the game from its start
				var msgs []string
				for i, r := range in.Requests {
					q, err := fromJSON(r, n)
					if err != nil {
						fmt.Fprintln(errOut, "evotune: request", i+1, err)
						msgs = nil
						break
					}
					msgs = append(msgs, q.String())
					if i < len(in.Responses) {
						if q, err = fromJSON(in.Responses[i], n); err != nil {
							fmt.Fprintln(errOut, "evotune: response", i+1, err)
							msgs = nil
							break
						}
						msgs = append(msgs, q.String())
					}
				}
				if len(msgs) == 0 {
					fmt.Fprintln(errOut, "evotune: no requests in the JSON input")
					wire.WriteLine(out, "%s", jsonNoMove)
					if !keepRunning {
						return nil
					}
					continue
				}
				blackFirst = msgs[0] == noMove
				for i, l := range msgs {
					if i == 0 && blackFirst {
						continue
					}
					history = append(history, l)
				}
			case func() bool { req, reqErr = fromJSON([]byte(line), n); return reqErr == nil }(): // keep-running: the next request
				if first {
					blackFirst = req.String() == noMove
				}
				if !(first && blackFirst) {
					history = append(history, req.String())
				}
			default:
				fmt.Fprintln(errOut, "evotune: input is not Botzone JSON:", reqErr)
				wire.WriteLine(out, "%s", jsonNoMove)
				if !keepRunning {
					return nil
				}
				continue
			}
			first = false
			answer()
			if !keepRunning {
				return nil
			}
			continue
		}
		if n, err := strconv.Atoi(line); err == nil { // a full simple-interaction input
			history = history[:0]
			ss.NewGame(cfg)
			var reqs []string
			for i := 0; n <= maxTurn && i < 2*n-1; i++ {
				l, ok := ls.Next()
				if !ok {
					return nil
				}
				reqs = append(reqs, l)
			}
			if n < 1 || n > maxTurn {
				fmt.Fprintln(errOut, "evotune: turn number", n)
				wire.WriteLine(out, noMove)
				if !keepRunning {
					return nil
				}
				continue
			}
			blackFirst = canonical(reqs[0], n) == noMove
			for i, l := range reqs {
				if i == 0 && blackFirst {
					continue
				}
				history = append(history, canonical(l, n))
			}
			first = false
			answer()
			if !keepRunning {
				return nil // the data and globaldata lines follow; one turn per process
			}
			continue
		}
		line = canonical(line, n)
		if first { // a bare request line first: take it as turn 1
			blackFirst = line == noMove
			first = false
			if !blackFirst {
				history = append(history, line)
			}
			answer()
			continue
		}
		history = append(history, line) // keep-running: the opponent's new move
		answer()
	}
}

// replay plays Botzone moves from the start; the error names the bad one.
func replay(cfg wire.Config, history []string) (engine.Board, error) {
	b, err := cfg.Game.NewBoard(cfg.Board)
	if err != nil {
		return nil, err
	}
	bb := b.(Board)
	for i, s := range history {
		m, err := bb.ParseBotzoneMove(s)
		if err == nil {
			err = b.Play(m)
		}
		if err != nil {
			return nil, fmt.Errorf("move %d %q: %v", i+1, s, err)
		}
	}
	if b.Outcome() != engine.Ongoing {
		return nil, fmt.Errorf("the game is over (%v)", b.Outcome())
	}
	return b, nil
}
