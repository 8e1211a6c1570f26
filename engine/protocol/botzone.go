package protocol

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/amazons"
)

// KeepRunning is Botzone's marker that the bot stays alive for the next turn.
const KeepRunning = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"

// noMove is Botzone's "no move": Black's first request, and evotune's answer when it
// cannot make sense of its input.
const noMove = "-1 -1 -1 -1 -1 -1"

// jsonNoMove is noMove in the JSON interaction.
const jsonNoMove = `{"response":{"x0":-1,"y0":-1,"x1":-1,"y1":-1,"x2":-1,"y2":-1}}`

// BotzoneMoveTime is the time per move when the user gives none: Botzone's per-turn limit
// for the Amazons is 1 s (a long-running bot's first turn gets more; 1 s is safe).
const BotzoneMoveTime = time.Second

// launchAllowance is the time a process takes from its launch to its package
// initialisation (processStart), which a clock started at launch has already counted
// (≈ 20 ms measured here).
const launchAllowance = 30 * time.Millisecond

// ServeBotzone plays the Amazons on Botzone. Simple interaction: the input is the turn
// number n, then 2n−1 lines (requests and evotune's earlier responses, alternating), then
// the data and globaldata lines (evotune saves none), and the answer is one move "x0 y0 x1
// y1 x2 y2". JSON interaction (an input line starting with '{'): {"requests": [{"x0": …,
// "y2": …}, …], "responses": [...], ...} in, {"response": {"x0": …, "y2": …}} out. Without
// keepRunning the bot answers its one turn and returns, as Botzone runs one process per
// turn (the lines after the requests are not read as moves). With keepRunning it prints
// KeepRunning after each answer and then reads either a new full input or just the next
// request (a line, or a JSON object). A bad input is answered with "-1 -1 -1 -1 -1 -1"
// (JSON: all -1) and a reason on stderr (errOut).
func ServeBotzone(ctx context.Context, cfg Config, in io.Reader, out, errOut io.Writer, keepRunning bool) error {
	ls := newLines(in)
	var history []string // all moves in Botzone form, Black's first
	var blackFirst bool  // whether evotune is Black
	answered := false    // whether this process has answered before
	jsonMode := false    // the input was JSON: answer in JSON
	answer := func() {
		b, err := replay(cfg, history)
		var m string
		if err == nil {
			budget := cfg.budgetFor(0)
			if !answered {
				// Botzone's clock for a bot's first answer (every answer in simple
				// interaction, where a process plays one turn) runs from the process's start.
				budget = max(budget-time.Since(processStart)-launchAllowance, time.Millisecond)
			}
			m, _, err = think(ctx, cfg, b, budget)
		}
		answered = true
		if err == nil {
			p := b.(*amazons.Board).Position()
			mv, _ := p.ParseMove(m)
			m = p.BotzoneString(mv)
			history = append(history, m)
		}
		switch {
		case err != nil:
			fmt.Fprintln(errOut, "evotune:", err)
			m = noMove
		}
		if jsonMode {
			r, _ := parseBotzoneRequest(m)
			data, _ := json.Marshal(struct {
				Response botzoneRequest `json:"response"`
			}{r})
			writeLine(out, "%s", data)
		} else {
			writeLine(out, "%s", m)
		}
		if keepRunning {
			writeLine(out, KeepRunning)
		}
	}
	first := true
	for {
		line, ok := ls.next()
		if !ok {
			return nil
		}
		if strings.HasPrefix(line, "{") { // JSON interaction
			jsonMode = true
			var in botzoneInput
			var req botzoneRequest
			switch {
			case json.Unmarshal([]byte(line), &in) == nil && in.Requests != nil:
				history = history[:0]
				var msgs []string
				for i, r := range in.Requests {
					var q botzoneRequest
					if err := json.Unmarshal(r, &q); err != nil {
						fmt.Fprintln(errOut, "evotune: request", i+1, err)
						msgs = nil
						break
					}
					msgs = append(msgs, q.String())
					if i < len(in.Responses) {
						if err := json.Unmarshal(in.Responses[i], &q); err != nil {
							fmt.Fprintln(errOut, "evotune: response", i+1, err)
							msgs = nil
							break
						}
						msgs = append(msgs, q.String())
					}
				}
				if len(msgs) == 0 {
					fmt.Fprintln(errOut, "evotune: no requests in the JSON input")
					writeLine(out, jsonNoMove)
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
			case json.Unmarshal([]byte(line), &req) == nil: // keep-running: the next request
				if first {
					blackFirst = req.String() == noMove
				}
				if !(first && blackFirst) {
					history = append(history, req.String())
				}
			default:
				fmt.Fprintln(errOut, "evotune: input is not Botzone JSON")
				writeLine(out, jsonNoMove)
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
			var reqs []string
			for i := 0; i < 2*n-1; i++ {
				l, ok := ls.next()
				if !ok {
					return nil
				}
				reqs = append(reqs, l)
			}
			if n < 1 {
				fmt.Fprintln(errOut, "evotune: turn number", n)
				writeLine(out, noMove)
				if !keepRunning {
					return nil
				}
				continue
			}
			blackFirst = strings.TrimSpace(reqs[0]) == noMove
			for i, l := range reqs {
				if i == 0 && blackFirst {
					continue
				}
				history = append(history, l)
			}
			first = false
			answer()
			if !keepRunning {
				return nil // the data and globaldata lines follow; one turn per process
			}
			continue
		}
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
func replay(cfg Config, history []string) (engine.Board, error) {
	b, err := cfg.Game.NewBoard(cfg.Board)
	if err != nil {
		return nil, err
	}
	for i, m := range history {
		if err := b.Play(m); err != nil {
			return nil, fmt.Errorf("move %d %q: %v", i+1, m, err)
		}
	}
	if b.Outcome() != engine.Ongoing {
		return nil, fmt.Errorf("the game is over (%v)", b.Outcome())
	}
	return b, nil
}
