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
)

// KeepRunning is Botzone's marker that the bot stays alive for the next turn.
const KeepRunning = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"

// BotzoneBoard is the board of a game Botzone plays, its moves read and written as
// Botzone's numbers: *amazons.Board ("x0 y0 x1 y1 x2 y2") and *connect6.Board (ConnectSix,
// "x0 y0 x1 y1"). x is the column from the left, y the row from the top, both from 0; a
// move of all −1 is "no move" (Black's first request). A game whose board implements it
// can be served (ServeBotzone) and its external engines can speak Botzone.
type BotzoneBoard interface {
	engine.Board
	// BotzoneFields is how many numbers make a move.
	BotzoneFields() int
	// BotzoneMove writes move m (evotune's notation) as Botzone's numbers; the board is
	// the position m is played on.
	BotzoneMove(m string) (string, error)
	// ParseBotzoneMove reads Botzone's numbers as a move in evotune's notation; it checks
	// syntax and range, not the rules. The error names the text.
	ParseBotzoneMove(s string) (string, error)
}

// botzoneNoMove is Botzone's "no move" of n numbers: Black's first request, and evotune's
// answer when it cannot make sense of its input.
func botzoneNoMove(n int) string {
	return strings.TrimSpace(strings.Repeat("-1 ", n))
}

// BotzoneMoveTime is the time per move when the user gives none: Botzone's per-turn limit
// for the Amazons is 1 s (a long-running bot's first turn gets more; 1 s is safe).
const BotzoneMoveTime = time.Second

// launchAllowance is the time a process takes from its launch to its package
// initialisation (processStart), which a clock started at launch has already counted
// (≈ 20 ms measured here).
const launchAllowance = 30 * time.Millisecond

// ServeBotzone plays a game Botzone plays (cfg.Game's board is a BotzoneBoard: the
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
func ServeBotzone(ctx context.Context, cfg Config, in io.Reader, out, errOut io.Writer, keepRunning bool) error {
	nb, err := cfg.Game.NewBoard(cfg.Board)
	if err != nil {
		return err
	}
	bb, ok := nb.(BotzoneBoard)
	if !ok {
		return fmt.Errorf("Botzone does not play %s", cfg.Game.Name())
	}
	n := bb.BotzoneFields()
	noMove := botzoneNoMove(n)
	jsonNoMove, _ := json.Marshal(botzoneOutput{Response: mustJSON(make(bzMove, n).none())})
	ls := newLines(in)
	var ss session       // the player of the game in play, kept between keep-running turns
	var history []string // all moves in Botzone form, Black's first
	var blackFirst bool  // whether evotune is Black
	answered := false    // whether this process has answered before
	jsonMode := false    // the input was JSON: answer in JSON
	answer := func() {
		b, err := botzoneReplay(cfg, history)
		var m string
		if err == nil {
			budget := cfg.budgetFor(0)
			if !answered && budget > 0 {
				// Botzone's clock for a bot's first answer (every answer in simple
				// interaction, where a process plays one turn) runs from the process's start.
				// No budget (0) stays none: the depth decides.
				budget = max(budget-time.Since(processStart)-launchAllowance, time.Millisecond)
			}
			m, _, err = ss.think(ctx, cfg, b, budget)
		}
		answered = true
		if err == nil {
			m, err = b.(BotzoneBoard).BotzoneMove(m)
		}
		if err == nil {
			history = append(history, m)
		} else {
			fmt.Fprintln(errOut, "evotune:", err)
			m = noMove
		}
		if jsonMode {
			r, _ := parseBotzone(m, n)
			data, _ := json.Marshal(struct {
				Response bzMove `json:"response"`
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
			var req bzMove
			var reqErr error
			switch {
			case json.Unmarshal([]byte(line), &in) == nil && in.Requests != nil:
				history = history[:0]
				ss.newGame(cfg) // a full input: the game from its start
				var msgs []string
				for i, r := range in.Requests {
					q, err := botzoneFromJSON(r, n)
					if err != nil {
						fmt.Fprintln(errOut, "evotune: request", i+1, err)
						msgs = nil
						break
					}
					msgs = append(msgs, q.String())
					if i < len(in.Responses) {
						if q, err = botzoneFromJSON(in.Responses[i], n); err != nil {
							fmt.Fprintln(errOut, "evotune: response", i+1, err)
							msgs = nil
							break
						}
						msgs = append(msgs, q.String())
					}
				}
				if len(msgs) == 0 {
					fmt.Fprintln(errOut, "evotune: no requests in the JSON input")
					writeLine(out, "%s", jsonNoMove)
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
			case func() bool { req, reqErr = botzoneFromJSON([]byte(line), n); return reqErr == nil }(): // keep-running: the next request
				if first {
					blackFirst = req.String() == noMove
				}
				if !(first && blackFirst) {
					history = append(history, req.String())
				}
			default:
				fmt.Fprintln(errOut, "evotune: input is not Botzone JSON:", reqErr)
				writeLine(out, "%s", jsonNoMove)
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
			ss.newGame(cfg)
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
			blackFirst = canonicalBotzone(reqs[0], n) == noMove
			for i, l := range reqs {
				if i == 0 && blackFirst {
					continue
				}
				history = append(history, canonicalBotzone(l, n))
			}
			first = false
			answer()
			if !keepRunning {
				return nil // the data and globaldata lines follow; one turn per process
			}
			continue
		}
		line = canonicalBotzone(line, n)
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

// botzoneReplay plays Botzone moves from the start; the error names the bad one.
func botzoneReplay(cfg Config, history []string) (engine.Board, error) {
	b, err := cfg.Game.NewBoard(cfg.Board)
	if err != nil {
		return nil, err
	}
	bb := b.(BotzoneBoard)
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

// bzMove is a Botzone move: its numbers in order (x0 y0 x1 y1 [x2 y2]).
type bzMove []int

// none makes m all −1 ("no move") and returns it.
func (m bzMove) none() bzMove {
	for i := range m {
		m[i] = -1
	}
	return m
}

func (m bzMove) String() string {
	f := make([]string, len(m))
	for i, v := range m {
		f[i] = strconv.Itoa(v)
	}
	return strings.Join(f, " ")
}

// bzKey is the JSON key of a move's i-th number: x0, y0, x1, y1, x2, y2.
func bzKey(i int) string { return fmt.Sprintf("%c%d", "xy"[i%2], i/2) }

// MarshalJSON writes {"x0": …, "y0": …, …} in order.
func (m bzMove) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, v := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%d", bzKey(i), v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// parseBotzone reads n numbers.
func parseBotzone(s string, n int) (bzMove, error) {
	f := strings.Fields(s)
	if len(f) != n {
		return nil, fmt.Errorf("%q is not %d numbers", s, n)
	}
	m := make(bzMove, n)
	for i, t := range f {
		v, err := strconv.Atoi(t)
		if err != nil {
			return nil, fmt.Errorf("%q is not %d numbers", s, n)
		}
		m[i] = v
	}
	return m, nil
}

// canonicalBotzone writes a line of n numbers with single blanks; other lines unchanged.
func canonicalBotzone(s string, n int) string {
	if m, err := parseBotzone(s, n); err == nil {
		return m.String()
	}
	return strings.TrimSpace(s)
}

// botzoneFromJSON reads a request or response of the JSON interaction: an object with the
// keys x0, y0, … (all n of them, numbers), or a string of n numbers.
func botzoneFromJSON(raw []byte, n int) (bzMove, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return parseBotzone(s, n)
	}
	var obj map[string]json.Number
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("%s is neither an object {x0 …} nor a string of %d numbers", raw, n)
	}
	m := make(bzMove, n)
	for i := range m {
		v, ok := obj[bzKey(i)]
		x, err := v.Int64()
		if !ok || err != nil {
			return nil, fmt.Errorf("%s: key %s is missing or not a whole number", raw, bzKey(i))
		}
		m[i] = int(x)
	}
	return m, nil
}

// botzoneInput is the JSON interaction's input.
type botzoneInput struct {
	Requests    []json.RawMessage `json:"requests"`
	Responses   []json.RawMessage `json:"responses"`
	Data        string            `json:"data"`
	GlobalData  string            `json:"globaldata"`
	TimeLimit   any               `json:"time_limit,omitempty"`
	MemoryLimit any               `json:"memory_limit,omitempty"`
}

// botzoneJSONInput is the JSON interaction's input for moves of n numbers.
func botzoneJSONInput(reqs, resps []string, n int, data, global string, moveTime time.Duration) string {
	in := botzoneInput{Requests: []json.RawMessage{}, Responses: []json.RawMessage{}, Data: data, GlobalData: global,
		TimeLimit: moveTime.Seconds()}
	for _, list := range []struct {
		src []string
		dst *[]json.RawMessage
	}{{reqs, &in.Requests}, {resps, &in.Responses}} {
		for _, m := range list.src {
			r, _ := parseBotzone(m, n)
			*list.dst = append(*list.dst, mustJSON(r))
		}
	}
	out, _ := json.Marshal(in)
	return string(out) + "\n"
}

// mustJSON marshals evotune's own values of fixed shape (moves), which cannot fail.
func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// botzoneOutput is the JSON interaction's output; the response is an object with x0, y0,
// … or a string of numbers.
type botzoneOutput struct {
	Response   json.RawMessage `json:"response"`
	Debug      any             `json:"debug,omitempty"`
	Data       string          `json:"data,omitempty"`
	GlobalData string          `json:"globaldata,omitempty"`
}

// move is the output's response as n numbers.
func (o botzoneOutput) move(n int) (bzMove, error) {
	return botzoneFromJSON(o.Response, n)
}
