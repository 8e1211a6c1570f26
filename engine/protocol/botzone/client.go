package botzone

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol/wire"
)

// Name is the protocol's name in specs and flags.
const Name = "botzone"

// Dialect is the Botzone client's description: it plays a game whose board is a Board,
// runs a process per move (or, keep-running, per game), starts from any opening (every
// turn carries the whole game) and carries no options.
var Dialect = wire.Dialect{
	Name: Name,
	Plays: func(g engine.Game) bool {
		b, err := g.NewBoard(0)
		if err != nil {
			return false
		}
		_, ok := b.(Board)
		return ok
	},
	KeepsProcess:  false,
	Bye:           "",
	TakesOpenings: true,
	TakesOptions:  false,
}

// Client is the Botzone client: the whole game every turn, a process per move or
// (KeepRunning) per game. It keeps the data and globaldata the bot saved last turn, passed
// back next turn; make one per engine.
type Client struct {
	// JSON speaks Botzone's JSON interaction (one line of JSON in, one out) instead of the
	// simple interaction.
	JSON bool
	// KeepRunning keeps the bot's process between turns, as Botzone's keep-running mode:
	// the full input on its first turn (input left open), then only the opponent's new
	// move each turn; the bot prints KeepRunning after each answer.
	KeepRunning bool

	data, global string // the bot's data and globaldata from its last turn
}

// Forget implements wire.Client: the bot's saved data and globaldata are dropped.
func (cl *Client) Forget() { cl.data, cl.global = "", "" }

// Move implements wire.Client. Without KeepRunning it runs the program once for this move,
// as Botzone does: the full input (simple interaction: the turn number, requests and
// responses alternating, then the data and globaldata the bot saved last turn; or the same
// as one line of JSON), then end of input. The answer is the first line that is a move
// (simple) or a JSON object with a response; the lines after it are the bot's debug, data
// and globaldata (simple), kept for the next turn. With KeepRunning a live bot that knows
// the game gets only the opponent's new move.
func (cl *Client) Move(ctx context.Context, c *wire.Conn, b engine.Board, hist []string, deadline time.Time, _ time.Duration) (string, error) {
	c.Ignore = KeepRunning
	ref, err := c.Game.NewBoard(b.Size())
	if err != nil {
		return "", err
	}
	rb, ok := ref.(Board)
	if !ok {
		return "", fmt.Errorf("Botzone does not play %s", c.Game.Name())
	}
	n := rb.BotzoneFields()
	var bz []string
	for _, m := range hist {
		s, err := rb.BotzoneMove(m)
		if err != nil {
			return "", err
		}
		bz = append(bz, s)
		if err := ref.Play(m); err != nil {
			return "", err
		}
	}
	me := len(hist) % 2
	var reqs, resps []string
	if me == 0 {
		reqs = append(reqs, NoMove(n))
	}
	for i, m := range bz {
		if i%2 == me {
			resps = append(resps, m)
		} else {
			reqs = append(reqs, m)
		}
	}
	if cl.KeepRunning && c.Running() && c.KnowsBefore(hist) {
		// Keep-running: the bot is alive and knows the game; send the new request only.
		req := bz[len(bz)-1]
		if cl.JSON {
			r, _ := parse(req, n)
			raw, _ := json.Marshal(r)
			req = string(raw)
		}
		if err := c.Send("%s", req); err != nil {
			return "", err
		}
		return cl.answer(ctx, c, b, deadline)
	}
	if c.Running() { // a keep-running bot that lost track: start afresh
		c.Stop()
	}
	if err := c.Start(); err != nil {
		return "", err
	}
	if !cl.KeepRunning {
		defer c.Stop()
	}
	var input string
	if cl.JSON {
		input = jsonInput(reqs, resps, n, cl.data, cl.global, c.MoveTime)
	} else {
		var sb strings.Builder
		fmt.Fprintf(&sb, "%d\n", len(reqs))
		for i, r := range reqs {
			sb.WriteString(r + "\n")
			if i < len(resps) {
				sb.WriteString(resps[i] + "\n")
			}
		}
		sb.WriteString(cl.data + "\n" + cl.global + "\n")
		input = sb.String()
	}
	if err := c.Write(input); err != nil {
		return "", err
	}
	if !cl.KeepRunning {
		c.CloseInput() // end of input: a bot may read to EOF before it answers
	}
	return cl.answer(ctx, c, b, deadline)
}

// answer reads a Botzone bot's answer to the position b: a JSON response or the first line
// that is a move; after a simple-interaction answer of a bot that exits, the lines that
// follow it are its debug, data and globaldata.
func (cl *Client) answer(ctx context.Context, c *wire.Conn, b engine.Board, deadline time.Time) (string, error) {
	bb := b.(Board)
	n := bb.BotzoneFields()
	var move string
	if cl.JSON {
		var out output
		if _, err := c.Read(ctx, deadline, func(l string) bool {
			out = output{}
			return json.Unmarshal([]byte(l), &out) == nil && out.Response != nil
		}); err != nil {
			return "", err
		}
		r, err := out.move(n)
		if err == nil {
			move, err = bb.ParseBotzoneMove(r.String())
		}
		if err != nil {
			return "", fmt.Errorf("protocol violation: %w", err)
		}
		cl.data, cl.global = out.Data, out.GlobalData
		return move, nil
	}
	if _, err := c.Read(ctx, deadline, func(l string) bool {
		m, err := bb.ParseBotzoneMove(l)
		move = m
		return err == nil
	}); err != nil {
		return "", err
	}
	if cl.KeepRunning {
		return move, nil
	}
	rest := c.Drain(100*time.Millisecond, KeepRunning) // what followed the answer: debug, data, globaldata
	cl.data, cl.global = "", ""
	if len(rest) > 1 {
		cl.data = rest[1]
	}
	if len(rest) > 2 {
		cl.global = strings.Join(rest[2:], " ")
	}
	return move, nil
}
