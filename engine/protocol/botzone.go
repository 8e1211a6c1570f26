package protocol

import (
	"context"
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

// BotzoneMoveTime is the time per move when the user gives none: Botzone's per-turn limit
// for the Amazons is 1 s (a long-running bot's first turn gets more; 1 s is safe).
const BotzoneMoveTime = time.Second

// launchAllowance is the time a process takes from its launch to its package
// initialisation (processStart), which a clock started at launch has already counted
// (≈ 20 ms measured here).
const launchAllowance = 30 * time.Millisecond

// ServeBotzone runs Botzone's simple interaction for the Amazons: the input is the turn
// number n, then 2n−1 lines (requests and evotune's earlier responses, alternating), and the
// answer is one move "x0 y0 x1 y1 x2 y2". With keepRunning the bot prints KeepRunning after
// each answer and then reads either a new full input or just the next request line. A bad
// input is answered with "-1 -1 -1 -1 -1 -1" and a reason on stderr (errOut).
func ServeBotzone(ctx context.Context, cfg Config, in io.Reader, out, errOut io.Writer, keepRunning bool) error {
	ls := newLines(in)
	var history []string // all moves in Botzone form, Black's first
	var blackFirst bool  // whether evotune is Black
	answered := false    // whether this process has answered before
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
		if err != nil {
			fmt.Fprintln(errOut, "evotune:", err)
			writeLine(out, noMove)
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
