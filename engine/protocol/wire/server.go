package wire

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"evotune/engine"
)

// ProcessStart is when this process started (package initialisation), for protocols whose
// clock starts with the process (Botzone's simple interaction).
var ProcessStart = time.Now()

// Config is an engine served over a protocol.
type Config struct {
	Game    engine.Game
	Weights engine.Weights
	// Limits are the search limits. Limits.Depth is a cap the user asked for (0 = none):
	// with a time budget iterative deepening goes as deep as the budget allows, up to it.
	// Limits.Time is ignored: budgets come from the protocol, MoveTime or DefaultMoveTime.
	Limits engine.Limits
	// FallbackDepth is the depth searched when no time budget is known (the weights file's
	// or the game's default depth), unless Limits.Depth is set.
	FallbackDepth int
	// MoveTime, if > 0, is the user's time per move; it replaces DefaultMoveTime and caps
	// the protocol's own budget.
	MoveTime time.Duration
	// DefaultMoveTime is the time per move for protocols that carry no clock (SAU,
	// Botzone: its per-turn limit); 0 = none (then FallbackDepth).
	DefaultMoveTime time.Duration
	// Board is the board side for protocols that do not say it (Botzone); 0 = default.
	Board int
	// Name and Version are reported to managers.
	Name, Version string
	// PadFirstMove writes Black's one-stone Connect6 first move as "move JJ@@" instead of
	// "move JJ" (both are read).
	PadFirstMove bool
	// OptionBounds, if set, are the min and max a UCI server declares for a spin option by
	// name (the weights' bounds of the game's layout); an option not in it declares 0 to
	// 100000.
	OptionBounds map[string][2]int64
	// Log, if set, receives one line per move with depth, score, nodes, NPS, time and the
	// principal variation (protocols without a message command write it to stderr).
	Log io.Writer
}

// Lines reads a server's commands, one a line, trimming CR LF and surrounding blanks.
type Lines struct{ sc *bufio.Scanner }

// NewLines reads commands from r (lines up to 1 MiB).
func NewLines(r io.Reader) *Lines {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	return &Lines{sc}
}

// Next returns the next line that is not blank; ok is false at end of input.
func (l *Lines) Next() (string, bool) {
	for l.sc.Scan() {
		if s := strings.TrimSpace(l.sc.Text()); s != "" {
			return s, true
		}
	}
	return "", false
}

// UntilDone reads the lines of a block up to its DONE line (Gomocup BOARD, SWAP2BOARD);
// ok is false at end of input.
func (l *Lines) UntilDone() ([]string, bool) {
	var block []string
	for {
		s, ok := l.Next()
		if !ok {
			return nil, false
		}
		if strings.EqualFold(s, "DONE") {
			return block, true
		}
		block = append(block, s)
	}
}

// Session is a server's player for the game in play: made at the game's first move and
// kept from move to move with its transposition table (its limits set per move:
// engine.LimitSetter), as evotune's in-process players and real engines keep theirs, so a
// game through a protocol is the game played in process; newGame makes it exactly fresh
// (engine.Resetter). The zero value is ready.
type Session struct {
	p engine.Player
}

// NewGame starts a new game: the next move's search starts from an empty table.
func (s *Session) NewGame(cfg Config) {
	if r, ok := s.p.(engine.Resetter); !ok || r.Reset(cfg.Weights) != nil {
		s.p = nil
	}
}

// Think returns the engine's move on b within a per-move time budget (0 = none; see
// Config.Limits) and the search's statistics; the error is the search's.
func (s *Session) Think(ctx context.Context, cfg Config, b engine.Board, budget time.Duration) (string, engine.SearchStats, error) {
	lim := cfg.LimitsFor(budget)
	if ls, ok := s.p.(engine.LimitSetter); !ok || ls.SetLimits(lim) != nil {
		s.p = nil
	}
	if s.p == nil {
		p, err := cfg.Game.NewPlayer(cfg.Weights, lim)
		if err != nil {
			return "", engine.SearchStats{}, err
		}
		s.p = p
	}
	m, st, err := s.p.Move(ctx, b)
	if err == nil && cfg.Log != nil {
		fmt.Fprintln(cfg.Log, Info(st))
	}
	return m, st, err
}

// Info formats a search's statistics as engines report them per move, e.g.
// "depth 7 score 1234 nodes 812345 nps 1.02M time 0.794s pv h8 i9 h10".
func Info(st engine.SearchStats) string {
	nps := st.NPS()
	var n string
	switch {
	case nps >= 1e6:
		n = fmt.Sprintf("%.2fM", nps/1e6)
	case nps >= 1e3:
		n = fmt.Sprintf("%.1fk", nps/1e3)
	default:
		n = fmt.Sprintf("%.0f", nps)
	}
	return fmt.Sprintf("depth %d score %d nodes %d nps %s time %.3fs pv %s",
		st.Depth, st.Score, st.Nodes, n, st.Elapsed.Seconds(), strings.Join(st.PV, " "))
}

// Safety margins of a time budget: the hard limit leaves room for the process, the pipe
// and the last partial iteration's unwinding; no new iteration starts after the soft limit.
const (
	hardShare   = 85 // percent of the budget
	softShare   = 50 // percent of the budget
	fixedMargin = 25 * time.Millisecond
)

// BudgetFor is the time for this move: the protocol's own budget (0 = none) capped by
// MoveTime, else MoveTime, else DefaultMoveTime.
func (cfg Config) BudgetFor(protocolBudget time.Duration) time.Duration {
	b := protocolBudget
	if cfg.MoveTime > 0 && (b == 0 || cfg.MoveTime < b) {
		b = cfg.MoveTime
	}
	if b == 0 {
		b = cfg.DefaultMoveTime
	}
	return b
}

// LimitsFor are the search limits for one move with the given budget (0 = none): with a
// budget, iterative deepening runs to the user's depth cap (or engine.MaxDepth) and stops at
// hardShare% of the budget less a fixed margin, starting no iteration after softShare%;
// without one, it searches the cap or FallbackDepth.
func (cfg Config) LimitsFor(budget time.Duration) engine.Limits {
	l := cfg.Limits
	l.Time, l.SoftTime = 0, 0
	if budget <= 0 {
		if l.Depth == 0 {
			l.Depth = cfg.FallbackDepth
		}
		return l
	}
	l.Time = max(budget*hardShare/100-fixedMargin, time.Millisecond)
	l.SoftTime = budget * softShare / 100
	if l.Depth == 0 {
		l.Depth = engine.MaxDepth // the one depth limit; the clock stops it sooner
	}
	return l
}

// WriteLine writes one answer line (format and args as fmt.Printf) and flushes w if it
// buffers.
func WriteLine(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, format+"\n", args...)
	if f, ok := w.(interface{ Flush() error }); ok {
		f.Flush()
	}
}
