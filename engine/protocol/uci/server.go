package uci

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol/wire"
)

// Setter is a UCI board that can start from a FEN (engine/chess: its setup move).
type Setter interface {
	Board
	// SetFEN sets up the position fen on a board with no move played; the error names what
	// is wrong with it.
	SetFEN(fen string) error
}

// Serve runs evotune's engine as a UCI engine on in/out until "quit" or end of input. Each
// whole number of the weights object (its top-level numbers: the chess pieces' values and
// "pst") is a spin option of the same name, so a manager tunes it with setoption. go takes
// wtime/btime/winc/binc/movestogo (a time budget of the mover's clock), movetime, nodes and
// depth; with none, the fallback depth. Bad commands are answered "info string error: …"
// and ignored, as engines do.
func Serve(ctx context.Context, cfg wire.Config, in io.Reader, out io.Writer) error {
	if !plays(cfg.Game) {
		return fmt.Errorf("UCI cannot carry %s", cfg.Game.Name())
	}
	ls := wire.NewLines(in)
	var b Setter
	var ss wire.Session
	complain := func(format string, args ...any) {
		wire.WriteLine(out, "info string error: "+format, args...)
	}
	for {
		line, ok := ls.Next()
		if !ok {
			return nil
		}
		f := strings.Fields(line)
		switch f[0] {
		case "uci":
			wire.WriteLine(out, "id name %s %s", cfg.Name, cfg.Version)
			wire.WriteLine(out, "id author the evotune authors")
			for _, o := range spinOptions(cfg.Weights) {
				lo, hi := int64(0), int64(100000)
				if b, ok := cfg.OptionBounds[o.name]; ok {
					lo, hi = b[0], b[1]
				}
				wire.WriteLine(out, "option name %s type spin default %d min %d max %d", o.name, o.value, lo, hi)
			}
			wire.WriteLine(out, "uciok")
		case "isready":
			wire.WriteLine(out, "readyok")
		case "ucinewgame":
			ss.NewGame(cfg)
		case "setoption":
			w, err := setOption(cfg, line)
			if err != nil {
				complain("%v", err)
				continue
			}
			cfg.Weights = w
			ss.NewGame(cfg) // the player takes the new weights
		case "position":
			nb, err := position(cfg.Game, f[1:])
			if err != nil {
				complain("%v", err)
				b = nil
				continue
			}
			b = nb
		case "go":
			if b == nil {
				complain("go without a position")
				wire.WriteLine(out, "bestmove (none)")
				continue
			}
			scfg, budget := goLimits(cfg, f[1:], b.ToMove())
			m, st, err := ss.Think(ctx, scfg, b, budget)
			if err != nil {
				complain("%v", err)
				wire.WriteLine(out, "bestmove (none)")
				continue
			}
			score := fmt.Sprintf("cp %d", st.Score)
			if st.Score > engine.WinThreshold {
				score = fmt.Sprintf("mate %d", (engine.Win-st.Score+1)/2)
			} else if st.Score < -engine.WinThreshold {
				score = fmt.Sprintf("mate -%d", (engine.Win+st.Score)/2)
			}
			wire.WriteLine(out, "info depth %d score %s nodes %d time %d pv %s", st.Depth, score, st.Nodes, st.Elapsed.Milliseconds(), strings.Join(st.PV, " "))
			wire.WriteLine(out, "bestmove %s", m)
		case "quit":
			return nil
		case "stop", "ponderhit", "debug", "register":
			// The search answers before the next command is read: nothing to stop.
		default:
			complain("unknown command %q", f[0])
		}
	}
}

type spin struct {
	name  string
	value int64
}

// spinOptions are the whole top-level numbers of w's JSON, sorted by name.
func spinOptions(w engine.Weights) []spin {
	var obj map[string]any
	data, _ := json.Marshal(w)
	if json.Unmarshal(data, &obj) != nil {
		return nil
	}
	var out []spin
	for k, v := range obj {
		if x, ok := v.(float64); ok && x == math.Trunc(x) && math.Abs(x) < 1e15 {
			out = append(out, spin{k, int64(x)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// setOption applies "setoption name N value V" to the weights: N a spin option's name (any
// case), V a whole number; the weights are decoded again, so the game's own bounds apply.
func setOption(cfg wire.Config, line string) (engine.Weights, error) {
	rest, ok := strings.CutPrefix(line, "setoption name ")
	name, value, ok2 := strings.Cut(rest, " value ")
	if !ok || !ok2 {
		return nil, fmt.Errorf("%q: want setoption name NAME value VALUE", line)
	}
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("option %q: %q is not a whole number", name, value)
	}
	var obj map[string]json.RawMessage
	data, _ := json.Marshal(cfg.Weights)
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	key := ""
	for _, o := range spinOptions(cfg.Weights) {
		if strings.EqualFold(o.name, name) {
			key = o.name
		}
	}
	if key == "" {
		return nil, fmt.Errorf("no option %q", name)
	}
	obj[key] = json.RawMessage(strconv.FormatInt(n, 10))
	data, _ = json.Marshal(obj)
	w, err := cfg.Game.DecodeWeights(bytes.TrimSpace(data))
	if err != nil {
		return nil, fmt.Errorf("option %q: %v", name, err)
	}
	return w, nil
}

// position reads "startpos|fen F [moves M…]" into a new board; the error names the move or
// the FEN that is wrong.
func position(g engine.Game, f []string) (Setter, error) {
	nb, err := g.NewBoard(0)
	if err != nil {
		return nil, err
	}
	b, ok := nb.(Setter)
	if !ok {
		return nil, fmt.Errorf("%s boards cannot be set up from a FEN", g.Name())
	}
	if len(f) == 0 {
		return nil, fmt.Errorf("position: want startpos or fen")
	}
	i := 1
	switch f[0] {
	case "startpos":
	case "fen":
		for i < len(f) && f[i] != "moves" {
			i++
		}
		if err := b.SetFEN(strings.Join(f[1:i], " ")); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("position %q: want startpos or fen", f[0])
	}
	if i < len(f) && f[i] == "moves" {
		for _, m := range f[i+1:] {
			if err := b.Play(m); err != nil {
				return nil, err
			}
		}
	} else if i < len(f) {
		return nil, fmt.Errorf("position: %q where moves belongs", f[i])
	}
	return b, nil
}

// goLimits reads a go command's arguments: the limits to search with and the time budget
// (a share of the mover's clock, or movetime).
func goLimits(cfg wire.Config, args []string, side engine.Color) (wire.Config, time.Duration) {
	num := map[string]int64{}
	for i := 0; i+1 < len(args); i++ {
		if n, err := strconv.ParseInt(args[i+1], 10, 64); err == nil {
			num[args[i]] = n
			i++
		}
	}
	ms := func(k string) time.Duration { return time.Duration(num[k]) * time.Millisecond }
	var budget time.Duration
	own, inc := ms("wtime"), ms("winc")
	if side != engine.Black {
		own, inc = ms("btime"), ms("binc")
	}
	if own > 0 {
		togo := max(num["movestogo"], 0)
		if togo == 0 {
			togo = 30
		}
		budget = max(own/time.Duration(togo)+inc*3/4, time.Millisecond)
		budget = min(budget, own/2+inc)
	}
	if mt := ms("movetime"); mt > 0 {
		budget = mt
	}
	if n := num["nodes"]; n > 0 {
		cfg.Limits.Nodes = n
		if cfg.Limits.Depth == 0 {
			cfg.Limits.Depth = engine.MaxDepth
		}
	}
	if d := num["depth"]; d > 0 {
		cfg.Limits.Depth = int(min(d, int64(engine.MaxDepth)))
	}
	return cfg, budget
}
