package protocol

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"evotune/engine"
	"evotune/engine/amazons"
	"evotune/engine/gomoku"
)

// ExternalSpec is an external engine: a command line and its time limits.
type ExternalSpec struct {
	// Argv is the program and its arguments.
	Argv []string
	// MoveTime bounds each move (default 5 s); GameTime bounds the engine's total time in
	// a game (0 = no bound).
	MoveTime time.Duration
	GameTime time.Duration
}

// ParseCommand reads "cmd:PATH [ARGS]" (arguments separated by blanks); ok is false when
// s does not start with "cmd:".
func ParseCommand(s string) (argv []string, ok bool, err error) {
	rest, ok := strings.CutPrefix(s, "cmd:")
	if !ok {
		return nil, false, nil
	}
	argv = strings.Fields(rest)
	if len(argv) == 0 {
		return nil, true, fmt.Errorf("%q: no program after cmd:", s)
	}
	return argv, true, nil
}

// CheckProgram reports whether argv[0] names an executable program (a path, or a name
// found on PATH), so that a run or match with an engine that cannot start fails before it
// plays, not with every game a forfeit.
func CheckProgram(argv []string) error {
	if len(argv) == 0 {
		return errors.New("no program")
	}
	if _, err := exec.LookPath(argv[0]); err != nil {
		return fmt.Errorf("cmd:%s: cannot run it: %w", strings.Join(argv, " "), err)
	}
	return nil
}

// Probe starts the engine, asks it for the first move of a game of g on a board of side
// board (0 = the game's default) and checks the move is legal, then ends the engine: the
// start-up check of 'tune --opponent' and 'match' (handshake and one move, within the
// spec's move time plus StartupAllowance). The error names the engine and what failed.
func Probe(ctx context.Context, spec ExternalSpec, g engine.Game, board int) error {
	if err := CheckProgram(spec.Argv); err != nil {
		return err
	}
	b, err := g.NewBoard(board)
	if err != nil {
		return err
	}
	e := NewExternal(spec, g)
	defer e.Close()
	m, _, err := e.Move(ctx, b)
	if err != nil {
		return fmt.Errorf("start-up check (first move of a game): %w", err)
	}
	if err := b.Play(m); err != nil {
		return fmt.Errorf("start-up check: %s answered %q at the start position: %w", spec.Name(), m, err)
	}
	return nil
}

// AcceptsOpenings reports whether the game's protocol can start an external engine from
// any opening: Gomocup (BOARD) and Botzone (the full history) can; the SAU protocol cannot
// hand an engine moves of its own colour, so Connect6 games with external engines start
// from the empty board.
func AcceptsOpenings(game string) bool { return game != "connect6" }

// Name is how the engine is named in results: "cmd:PATH ARGS".
func (s ExternalSpec) Name() string { return "cmd:" + strings.Join(s.Argv, " ") }

// External is an engine.Player backed by a program speaking the game's protocol (Gomocup
// for gomoku, SAU for connect6, Botzone for amazons). One External plays one game; Close
// ends the program. Its errors (a crash, no answer in time, a malformed answer) make the
// referee score a forfeit when RefereeOptions.Forfeit is set.
type External struct {
	spec ExternalSpec
	game engine.Game

	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string
	exited  chan struct{}
	errMu   sync.Mutex
	errTail []string // last lines the program wrote to stderr

	known []string // the moves the program knows, in evotune's notation
	used  time.Duration
	// thinkStart is when the current move's request was sent (after any start-up
	// handshake): the engine's clock runs from there.
	thinkStart time.Time
}

// StartupAllowance is how long a newly started engine may take to answer its handshake
// (Gomocup START, SAU name?), on top of and separate from its time for the first move, as
// the reference managers allow: loading tables is not thinking.
const StartupAllowance = 5 * time.Second

// NewExternal returns a player for one game of g.
func NewExternal(spec ExternalSpec, g engine.Game) *External {
	if spec.MoveTime <= 0 {
		spec.MoveTime = 5 * time.Second
	}
	return &External{spec: spec, game: g}
}

func (e *External) start() error {
	cmd := exec.Command(e.spec.Argv[0], e.spec.Argv[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start %s: %w", e.spec.Name(), err)
	}
	// Each process gets its own channels, captured here: a Botzone engine is restarted every
	// move, and the previous process's reader must never close the next one's channel.
	lines, exited := make(chan string, 64), make(chan struct{})
	e.cmd, e.stdin, e.lines, e.exited = cmd, in, lines, exited
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" {
				lines <- l
			}
		}
		close(exited)
	}()
	go func() {
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			e.errMu.Lock()
			e.errTail = append(e.errTail, sc.Text())
			if len(e.errTail) > 5 {
				e.errTail = e.errTail[1:]
			}
			e.errMu.Unlock()
		}
	}()
	return nil
}

func (e *External) send(format string, args ...any) error {
	if _, err := fmt.Fprintf(e.stdin, format+"\n", args...); err != nil {
		return fmt.Errorf("the engine exited or stopped reading: %w", err)
	}
	return nil
}

// read returns the next line that is not chatter (Gomocup MESSAGE/DEBUG lines), or an
// error when the deadline passes, the context ends or the program exits.
func (e *External) read(ctx context.Context, deadline time.Time) (string, error) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		select {
		case l := <-e.lines:
			u := strings.ToUpper(l)
			if strings.HasPrefix(u, "MESSAGE") || strings.HasPrefix(u, "DEBUG") {
				continue
			}
			return l, nil
		case <-e.exited:
			select {
			case l := <-e.lines:
				return l, nil
			default:
			}
			e.errMu.Lock()
			tail := strings.Join(e.errTail, " | ")
			e.errMu.Unlock()
			// Its output is closed; make sure it is gone before waiting (a program that closed
			// stdout but kept running would block Wait).
			e.cmd.Process.Kill()
			e.cmd.Wait()
			return "", fmt.Errorf("the engine exited (%v) %s", e.cmd.ProcessState, tail)
		case <-timer.C:
			return "", errors.New("time loss: no answer in time")
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// Move implements engine.Player over the game's protocol.
func (e *External) Move(ctx context.Context, b engine.Board) (string, engine.SearchStats, error) {
	h, ok := b.(engine.Historian)
	if !ok {
		return "", engine.SearchStats{}, errors.New("the board has no move history")
	}
	hist := h.History()
	budget := e.spec.MoveTime
	if e.spec.GameTime > 0 {
		left := e.spec.GameTime - e.used
		if left <= 0 {
			return "", engine.SearchStats{}, fmt.Errorf("%s: time loss: the game time is used up", e.spec.Name())
		}
		budget = min(budget, left)
	}
	start := time.Now()
	e.thinkStart = start
	deadline := start.Add(budget)
	var m string
	var err error
	switch e.game.Name() {
	case "gomoku":
		m, err = e.gomocupMove(ctx, b, hist, deadline, budget)
	case "connect6":
		m, err = e.sauMove(ctx, b, hist, deadline)
	case "amazons":
		m, err = e.botzoneMove(ctx, b, hist, deadline)
	default:
		err = fmt.Errorf("no protocol for %s", e.game.Name())
	}
	el := time.Since(e.thinkStart) // start-up handshakes are not thinking time
	e.used += el
	if err != nil {
		return "", engine.SearchStats{Elapsed: el}, fmt.Errorf("%s: %w", e.spec.Name(), err)
	}
	e.known = append(hist, m)
	return m, engine.SearchStats{Elapsed: el}, nil
}

// Close ends the program (politely, then by force).
func (e *External) Close() error {
	if e.cmd == nil || e.cmd.Process == nil {
		return nil
	}
	switch e.game.Name() {
	case "gomoku":
		e.send("END")
	case "connect6":
		e.send("quit")
	}
	e.stdin.Close()
	select {
	case <-e.exited:
	case <-time.After(500 * time.Millisecond):
	}
	e.cmd.Process.Kill()
	e.cmd.Wait()
	e.cmd = nil
	return nil
}

func prefixOf(known, hist []string) bool {
	if len(known) > len(hist) {
		return false
	}
	for i := range known {
		if known[i] != hist[i] {
			return false
		}
	}
	return true
}

// ---- Gomocup ----

func (e *External) gomocupMove(ctx context.Context, b engine.Board, hist []string, deadline time.Time, budget time.Duration) (string, error) {
	n := b.Size()
	xy := func(m string) (int, int) {
		row, _ := strconv.Atoi(m[1:])
		return int(m[0] - 'a'), n - row
	}
	if e.cmd == nil {
		if err := e.start(); err != nil {
			return "", err
		}
		if err := e.send("START %d", n); err != nil {
			return "", err
		}
		l, err := e.read(ctx, time.Now().Add(StartupAllowance))
		if err != nil {
			return "", err
		}
		deadline = time.Now().Add(budget)
		e.thinkStart = time.Now()
		if !strings.EqualFold(l, "OK") {
			return "", fmt.Errorf("START %d answered %q", n, l)
		}
		rule := 0
		if g, ok := e.game.(gomoku.Game); ok && g.Rule == gomoku.Standard {
			rule = 1
		} else if ok && g.Rule == gomoku.Renju {
			rule = 4
		}
		e.send("INFO timeout_turn %d", budget.Milliseconds())
		e.send("INFO timeout_match %d", e.spec.GameTime.Milliseconds())
		e.send("INFO rule %d", rule)
		e.known = nil
	}
	if e.spec.GameTime > 0 {
		e.send("INFO time_left %d", (e.spec.GameTime - e.used).Milliseconds())
	}
	var err error
	switch {
	case len(hist) == 0:
		err = e.send("BEGIN")
	case len(hist) == len(e.known)+1 && prefixOf(e.known, hist):
		x, y := xy(hist[len(hist)-1])
		err = e.send("TURN %d,%d", x, y)
	default:
		err = e.send("BOARD")
		me := len(hist) % 2 // index parity of the side to move's stones
		for i, m := range hist {
			if err != nil {
				break
			}
			field := 2
			if i%2 == me {
				field = 1
			}
			x, y := xy(m)
			err = e.send("%d,%d,%d", x, y, field)
		}
		if err == nil {
			err = e.send("DONE")
		}
	}
	if err != nil {
		return "", err
	}
	l, err := e.read(ctx, deadline)
	if err != nil {
		return "", err
	}
	a, c, ok := strings.Cut(l, ",")
	x, e1 := strconv.Atoi(strings.TrimSpace(a))
	y, e2 := strconv.Atoi(strings.TrimSpace(c))
	if !ok || e1 != nil || e2 != nil || x < 0 || y < 0 || x >= n || y >= n {
		return "", fmt.Errorf("protocol violation: answer %q is not x,y on the board", l)
	}
	return fmt.Sprintf("%c%d", 'a'+rune(x), n-y), nil
}

// ---- SAU (Connect6) ----

func (e *External) sauMove(ctx context.Context, b engine.Board, hist []string, deadline time.Time) (string, error) {
	me := len(hist) % 2 // moves alternate one per ply
	if e.cmd == nil {
		for i := range hist {
			if i%2 == me {
				return "", errors.New("the SAU protocol cannot give an engine opening moves of its own colour (use --openings none)")
			}
		}
		if len(hist) > 1 {
			return "", errors.New("the SAU protocol cannot set up this opening")
		}
		if err := e.start(); err != nil {
			return "", err
		}
		if err := e.send("name?"); err != nil {
			return "", err
		}
		if l, err := e.read(ctx, time.Now().Add(StartupAllowance)); err != nil {
			return "", err
		} else if !strings.HasPrefix(strings.ToLower(l), "name") {
			return "", fmt.Errorf("protocol violation: name? answered %q", l)
		}
		deadline = time.Now().Add(e.spec.MoveTime)
		e.thinkStart = time.Now()
		color := "black"
		if me == 1 {
			color = "white"
		}
		if err := e.send("new %s", color); err != nil {
			return "", err
		}
		e.known = nil
	}
	if len(hist) > 0 {
		if len(hist) != len(e.known)+1 || !prefixOf(e.known, hist) {
			return "", errors.New("the SAU protocol cannot resynchronise a changed game")
		}
		s, err := notationToSAU(hist[len(hist)-1])
		if err != nil {
			return "", err
		}
		if err := e.send("move %s", s); err != nil {
			return "", err
		}
	}
	l, err := e.read(ctx, deadline)
	if err != nil {
		return "", err
	}
	f := strings.Fields(l)
	if len(f) != 2 || !strings.EqualFold(f[0], "move") {
		return "", fmt.Errorf("protocol violation: answer %q is not 'move XXYY'", l)
	}
	return sauToNotation(f[1])
}

// ---- Botzone (Amazons) ----

// botzoneMove runs the program once for this move with the simple interaction's full
// input, as Botzone does without keep-running.
func (e *External) botzoneMove(ctx context.Context, b engine.Board, hist []string, deadline time.Time) (string, error) {
	ref, err := e.game.NewBoard(b.Size())
	if err != nil {
		return "", err
	}
	var bz []string
	for _, m := range hist {
		p := ref.(*amazons.Board).Position()
		mv, err := p.ParseMove(m)
		if err != nil {
			return "", err
		}
		bz = append(bz, p.BotzoneString(mv))
		if err := ref.Play(m); err != nil {
			return "", err
		}
	}
	me := len(hist) % 2
	var reqs, resps []string
	if me == 0 {
		reqs = append(reqs, noMove)
	}
	for i, m := range bz {
		if i%2 == me {
			resps = append(resps, m)
		} else {
			reqs = append(reqs, m)
		}
	}
	if err := e.start(); err != nil {
		return "", err
	}
	defer func() {
		e.stdin.Close()
		e.cmd.Process.Kill()
		e.cmd.Wait()
		e.cmd = nil
	}()
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d\n", len(reqs))
	for i, r := range reqs {
		sb.WriteString(r + "\n")
		if i < len(resps) {
			sb.WriteString(resps[i] + "\n")
		}
	}
	if _, err := io.WriteString(e.stdin, sb.String()); err != nil {
		return "", fmt.Errorf("the engine stopped reading: %w", err)
	}
	l, err := e.read(ctx, deadline)
	if err != nil {
		return "", err
	}
	p := b.(*amazons.Board).Position()
	mv, err := p.ParseMove(l)
	if err != nil {
		return "", fmt.Errorf("protocol violation: %w", err)
	}
	return p.MoveString(mv), nil
}
