package botzone

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"evotune/engine"
)

// KeepRunning is Botzone's marker that the bot stays alive for the next turn.
const KeepRunning = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"

// Board is the board of a game Botzone plays, its moves read and written as
// Botzone's numbers: *amazons.Board ("x0 y0 x1 y1 x2 y2") and *connect6.Board (ConnectSix,
// "x0 y0 x1 y1"). x is the column from the left, y the row from the top, both from 0; a
// move of all −1 is "no move" (Black's first request). A game whose board implements it
// can be served (Serve) and its external engines can speak Botzone.
type Board interface {
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

// NoMove is Botzone's "no move" of n numbers: Black's first request, and evotune's
// answer when it cannot make sense of its input.
func NoMove(n int) string {
	return strings.TrimSpace(strings.Repeat("-1 ", n))
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

// String writes the numbers separated by single blanks ("2 0 2 5 5 2").
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

// parse reads n numbers.
func parse(s string, n int) (bzMove, error) {
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

// canonical writes a line of n numbers with single blanks; other lines unchanged.
func canonical(s string, n int) string {
	if m, err := parse(s, n); err == nil {
		return m.String()
	}
	return strings.TrimSpace(s)
}

// fromJSON reads a request or response of the JSON interaction: an object with the
// keys x0, y0, … (all n of them, numbers), or a string of n numbers.
func fromJSON(raw []byte, n int) (bzMove, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return parse(s, n)
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

// jsonIn is the JSON interaction's input.
type jsonIn struct {
	Requests    []json.RawMessage `json:"requests"`
	Responses   []json.RawMessage `json:"responses"`
	Data        string            `json:"data"`
	GlobalData  string            `json:"globaldata"`
	TimeLimit   any               `json:"time_limit,omitempty"`
	MemoryLimit any               `json:"memory_limit,omitempty"`
}

// jsonInput is the JSON interaction's input for moves of n numbers.
func jsonInput(reqs, resps []string, n int, data, global string, moveTime time.Duration) string {
	in := jsonIn{Requests: []json.RawMessage{}, Responses: []json.RawMessage{}, Data: data, GlobalData: global,
		TimeLimit: moveTime.Seconds()}
	for _, list := range []struct {
		src []string
		dst *[]json.RawMessage
	}{{reqs, &in.Requests}, {resps, &in.Responses}} {
		for _, m := range list.src {
			r, _ := parse(m, n)
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

// output is the JSON interaction's output; the response is an object with x0, y0,
// … or a string of numbers.
type output struct {
	Response   json.RawMessage `json:"response"`
	Debug      any             `json:"debug,omitempty"`
	Data       string          `json:"data,omitempty"`
	GlobalData string          `json:"globaldata,omitempty"`
}

// move is the output's response as n numbers.
func (o output) move(n int) (bzMove, error) {
	return fromJSON(o.Response, n)
}
