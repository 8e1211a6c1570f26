package protocol

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"evotune/engine"
)

// ExternalSpec is an external engine: a command line and its time limits.
type ExternalSpec struct {
	// Argv is the program and its arguments.
	Argv []string
	// MoveTime bounds each move (default 5 s); GameTime bounds the engine's total time in
	// a game (0 = no bound).
	MoveTime time.Duration
	GameTime time.Duration
	// Overhead is the per-move tolerance on top of MoveTime (and of the game time) before
	// a late answer is a time loss, for the pipe and process scheduling; fastchess and
	// c-gomoku-cli have the same (default DefaultMoveOverhead).
	Overhead time.Duration
	// BotzoneJSON makes the Amazons client speak Botzone's JSON interaction (one line of
	// JSON in, one out) instead of the simple interaction.
	BotzoneJSON bool
	// BotzoneKeepRunning keeps an Amazons bot's process between turns, as Botzone's
	// keep-running mode: the full input on its first turn (input left open), then only the
	// opponent's new move each turn; the bot prints KeepRunning after each answer.
	BotzoneKeepRunning bool
	// LogFile, if set, receives the engine's full transcript: every line sent ("> "), read
	// ("< ") and written to stderr ("! "), with the time since the engine started. It is
	// never encoded (a spec sent to a cluster worker cannot name a file for it to write).
	LogFile string `json:"-"`
	// WeightsFile, if set, is written in full to a new file of a unique name before the
	// engine starts, and every "{weights}" in Argv is replaced by that file's
	// path; the file is removed when the engine is closed. It is how an engine under
	// tuning reads a candidate's values (tune --engine 'cmd:PROG --weights {weights}').
	WeightsFile []byte `json:",omitempty"`
	// WeightsExt is the extension of the weights file (".json", ".ini").
	WeightsExt string `json:",omitempty"`
	// Options are a candidate's values sent the protocol's own way (a dialect's options;
	// Gomocup: "INFO NAME VALUE" right after START is answered OK, and kept by the engine
	// across RESTART; UCI's "setoption name NAME value VALUE" next), for engines that read
	// parameters so. A protocol without a way refuses them (OptionsProtocols).
	Options []Option `json:",omitempty"`
	// ArgValues are the values of "{NAME}" placeholders in Argv (numbers, as text): each is
	// put in when the engine starts, so Argv stays the command line the user wrote, which a
	// cluster worker's allow-list compares whole. A value that is not a finite number, or a
	// name that is not a placeholder of Argv, is an error when the engine starts.
	ArgValues map[string]string `json:",omitempty"`
	// StartupTime is how long the engine may take to start and answer its handshake,
	// apart from its move clock (0 = StartupAllowance).
	StartupTime time.Duration `json:",omitempty"`
	// Protocol is the protocol the engine speaks: Gomocup, SAU or Botzone; "" is the
	// game's default (DefaultProtocol). CheckProtocol tells which a game's engines can speak.
	Protocol string `json:",omitempty"`
}

// WeightsPlaceholder is replaced in an engine's arguments by the path of its weights file
// (ExternalSpec.WeightsFile).
const WeightsPlaceholder = "{weights}"

// Key identifies what a process of the spec is: two specs with one key start the same
// program with the same values, so one process may play both's games (RESTART between).
func (s ExternalSpec) Key() string {
	s.LogFile = ""
	b, _ := json.Marshal(s)
	return string(b)
}

// startup is the spec's start-up allowance.
func (s ExternalSpec) startup() time.Duration {
	if s.StartupTime > 0 {
		return s.StartupTime
	}
	return StartupAllowance
}

// DefaultMoveOverhead is ExternalSpec.Overhead's default.
const DefaultMoveOverhead = 100 * time.Millisecond

// MaxTranscript caps an engine's transcript (lines that were not answers, and its stderr)
// kept with a game record, in bytes.
const MaxTranscript = 4096

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
// start-up check of 'tune --opponent' and 'resume' (handshake and one move, within the
// spec's move time plus StartupAllowance). The error names the engine and what failed,
// with the engine's output.
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
		if t := strings.TrimSpace(e.Transcript()); t != "" {
			err = fmt.Errorf("%w; its output: %s", err, strings.ReplaceAll(t, "\n", " | "))
		}
		return fmt.Errorf("start-up check (first move of a game): %w", err)
	}
	if err := b.Play(m); err != nil {
		return fmt.Errorf("start-up check: %s answered %q at the start position: %w", spec.Name(), m, err)
	}
	return nil
}

// Name is how the engine is named in results: "cmd:PATH ARGS".
func (s ExternalSpec) Name() string { return "cmd:" + strings.Join(s.Argv, " ") }

// External is an engine.Player backed by a program speaking its protocol
// (ExternalSpec.Protocol: by default Gomocup for gomoku, SAU for connect6, Botzone for
// amazons). One External plays one game; Close
// ends the program. Its errors (a crash, no answer in time, a malformed answer) make the
// referee score a forfeit when RefereeOptions.Forfeit is set.
type External struct {
	spec ExternalSpec
	game engine.Game
	dl   dialect // the protocol, once known (External.dialect)

	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string
	exited  chan struct{}
	errMu   sync.Mutex
	errTail []string // last lines the program wrote to stderr

	logMu      sync.Mutex
	log        strings.Builder // transcript: non-answer lines and stderr, capped
	logDropped int             // lines left out of the transcript by the cap

	// Botzone data and globaldata the bot saved last turn, passed back next turn.
	bzData, bzGlobal string

	fullMu    sync.Mutex
	full      *os.File  // ExternalSpec.LogFile, open while the engine runs
	fullStart time.Time // when the log started

	known []string // the moves the program knows, in evotune's notation
	used  time.Duration
	// thinkStart is when the current move's request was sent (after any start-up
	// handshake): the engine's clock runs from there.
	thinkStart time.Time

	weightsPath string // the written ExternalSpec.WeightsFile, removed by Close
	broken      bool   // a move or handshake failed: the process is not reused
	newGame     bool   // Reuse was called: the next move starts a new game in the same process
}

// StartupAllowance is how long a newly started engine may take to answer its handshake
// (Gomocup START, SAU name?), on top of and separate from its time for the first move, as
// the reference managers allow: loading tables is not thinking.
const StartupAllowance = 10 * time.Second

// NewExternal returns a player for one game of g.
func NewExternal(spec ExternalSpec, g engine.Game) *External {
	if spec.MoveTime <= 0 {
		spec.MoveTime = 5 * time.Second
	}
	if spec.Overhead <= 0 {
		spec.Overhead = DefaultMoveOverhead
	}
	return &External{spec: spec, game: g}
}

// ArgPlaceholder matches "{NAME}" in an engine's arguments (ExternalSpec.ArgValues).
var ArgPlaceholder = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_.]*)\}`)

// writeWeights writes ExternalSpec.WeightsFile (once per External) and returns the
// arguments with the placeholders replaced: {weights} by its path, {NAME} by ArgValues.
func (e *External) writeWeights() ([]string, error) {
	argv := append([]string(nil), e.spec.Argv...)
	if len(e.spec.ArgValues) > 0 {
		used := map[string]bool{}
		for name, v := range e.spec.ArgValues {
			if x, err := strconv.ParseFloat(v, 64); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("argument value {%s}: %q is not a finite number", name, v)
			}
		}
		for i := 1; i < len(argv); i++ {
			argv[i] = ArgPlaceholder.ReplaceAllStringFunc(argv[i], func(m string) string {
				name := m[1 : len(m)-1]
				if v, ok := e.spec.ArgValues[name]; ok {
					used[name] = true
					return v
				}
				return m
			})
		}
		for name := range e.spec.ArgValues {
			if !used[name] {
				return nil, fmt.Errorf("argument value {%s}: no such placeholder in %s", name, strings.Join(e.spec.Argv, " "))
			}
		}
	}
	if len(e.spec.WeightsFile) == 0 {
		return argv, nil
	}
	if e.weightsPath == "" {
		// A new file of a name no one else knows, complete before the engine starts.
		f, err := os.CreateTemp("", "evotune-weights-*"+e.spec.WeightsExt)
		if err != nil {
			return nil, fmt.Errorf("weights file: %w", err)
		}
		_, werr := f.Write(e.spec.WeightsFile)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(f.Name())
			return nil, fmt.Errorf("weights file: %w", werr)
		}
		e.weightsPath = f.Name()
	}
	for i := range argv {
		argv[i] = strings.ReplaceAll(argv[i], WeightsPlaceholder, e.weightsPath)
	}
	return argv, nil
}

func (e *External) start() error {
	argv, err := e.writeWeights()
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
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
	if e.spec.LogFile != "" {
		e.fullMu.Lock()
		if e.full == nil {
			f, err := os.OpenFile(e.spec.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err == nil {
				e.full, e.fullStart = f, time.Now()
			}
		}
		e.fullMu.Unlock()
		e.logFull("# ", fmt.Sprintf("started %s (pid %d)", e.spec.Name(), cmd.Process.Pid))
	}
	// Each process gets its own channels, captured here: a Botzone engine is restarted every
	// move, and the previous process's reader must never close the next one's channel.
	lines, exited := make(chan string, 64), make(chan struct{})
	e.cmd, e.stdin, e.lines, e.exited = cmd, in, lines, exited
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			e.logFull("< ", sc.Text())
			lines <- strings.TrimSpace(sc.Text()) // blank lines too: Botzone's output is positional
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
			e.note("stderr", sc.Text())
			e.logFull("! ", sc.Text())
		}
	}()
	return nil
}

// logFull appends a line to ExternalSpec.LogFile, if any: dir is "> " (sent), "< " (read)
// or "! " (stderr).
func (e *External) logFull(dir, line string) {
	e.fullMu.Lock()
	defer e.fullMu.Unlock()
	if e.full != nil {
		fmt.Fprintf(e.full, "%9.3f %s%s\n", time.Since(e.fullStart).Seconds(), dir, line)
	}
}

func (e *External) send(format string, args ...any) error {
	e.logFull("> ", fmt.Sprintf(format, args...))
	if _, err := fmt.Fprintf(e.stdin, format+"\n", args...); err != nil {
		// The engine is gone or closed its input: what it printed before is still in the
		// pipe, and is the only clue to why. Wait briefly for its output to close, keep
		// those lines in the transcript, and make sure the process is gone.
		select {
		case <-e.exited:
		case <-time.After(time.Second):
		}
		e.drainTranscript()
		e.cmd.Process.Kill()
		e.cmd.Wait()
		return fmt.Errorf("the engine exited or stopped reading: %w", err)
	}
	return nil
}

// drainTranscript moves the lines already read from the engine's stdout and not yet taken
// as answers into the transcript.
func (e *External) drainTranscript() {
	for {
		select {
		case l := <-e.lines:
			if l != "" {
				e.note("stdout", l)
			}
		default:
			return
		}
	}
}

// note adds a line to the transcript (up to MaxTranscript bytes; later lines are counted).
func (e *External) note(stream, line string) {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	entry := stream + ": " + line + "\n"
	if e.log.Len()+len(entry) > MaxTranscript {
		e.logDropped++
		return
	}
	e.log.WriteString(entry)
}

// Transcript returns what the engine wrote that was not an answer (stdout lines evotune
// skipped: search output, help texts, ERROR replies to commands it does not know) and its
// stderr, capped at MaxTranscript bytes; the referee stores it with the game record.
func (e *External) Transcript() string {
	e.logMu.Lock()
	defer e.logMu.Unlock()
	t := e.log.String()
	if e.logDropped > 0 {
		t += fmt.Sprintf("… %d more lines not kept\n", e.logDropped)
	}
	return t
}

// read returns the next line accept takes as an answer. Other lines — Gomocup MESSAGE and
// DEBUG, search output, help texts, ERROR replies to commands the engine does not know —
// go to the transcript and are skipped, as the reference managers skip them. It fails when
// the deadline passes (a time loss), the context ends or the program exits.
func (e *External) read(ctx context.Context, deadline time.Time, accept func(string) bool) (string, error) {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		select {
		case l := <-e.lines:
			if l == "" || l == KeepRunning {
				continue
			}
			if !accept(l) {
				e.note("stdout", l)
				continue
			}
			return l, nil
		case <-e.exited:
			for {
				select {
				case l := <-e.lines:
					if l != "" && accept(l) {
						return l, nil
					}
					if l != "" {
						e.note("stdout", l)
					}
					continue
				default:
				}
				break
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
	deadline := start.Add(budget + e.spec.Overhead)
	var m string
	d, err := e.dialect()
	if err == nil {
		m, err = d.move(e, ctx, b, hist, deadline, budget)
	}
	el := time.Since(e.thinkStart) // start-up handshakes are not thinking time
	e.used += el
	if err != nil {
		e.broken = true
		return "", engine.SearchStats{Elapsed: el}, fmt.Errorf("%s: %w", e.spec.Name(), err)
	}
	e.known = append(hist, m)
	return m, engine.SearchStats{Elapsed: el}, nil
}

// Close ends the program (politely, then by force) and removes its weights file.
func (e *External) Close() error {
	defer func() {
		if e.weightsPath != "" {
			os.Remove(e.weightsPath)
			e.weightsPath = ""
		}
	}()
	if e.cmd == nil || e.cmd.Process == nil {
		e.fullMu.Lock()
		if e.full != nil {
			e.full.Close()
			e.full = nil
		}
		e.fullMu.Unlock()
		return nil
	}
	if d, err := e.dialect(); err == nil && d.bye() != "" {
		e.send("%s", d.bye())
	}
	e.stdin.Close()
	select {
	case <-e.exited:
	case <-time.After(500 * time.Millisecond):
	}
	e.cmd.Process.Kill()
	e.cmd.Wait()
	e.cmd = nil
	e.fullMu.Lock()
	if e.full != nil {
		e.full.Close()
		e.full = nil
	}
	e.fullMu.Unlock()
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
	xy := func(m string) (int, int) { return gomocupXY(m, n) }
	if e.cmd != nil && e.newGame {
		if err := e.gomocupRestart(ctx); err != nil {
			return "", err
		}
		deadline = time.Now().Add(budget + e.spec.Overhead)
		e.thinkStart = time.Now()
	}
	if e.cmd == nil {
		if err := e.gomocupStart(ctx, n); err != nil {
			return "", err
		}
		deadline = time.Now().Add(budget + e.spec.Overhead)
		e.thinkStart = time.Now()
	}
	e.newGame = false
	// time_left every move; with no match limit, the largest value, as Piskvork sends it.
	left := int64(math.MaxInt32)
	if e.spec.GameTime > 0 {
		left = (e.spec.GameTime - e.used).Milliseconds()
	}
	e.send("INFO time_left %d", left)
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
	l, err := e.read(ctx, deadline, gomocupAnswer)
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

// gomocupStart starts the engine for a game on an n×n board: START (within
// StartupAllowance) and the full INFO, as Piskvork sends it at the start of every game.
// Engines answer keys they do not know with ERROR or nothing; read skips such lines.
func (e *External) gomocupStart(ctx context.Context, n int) error {
	if err := e.start(); err != nil {
		return err
	}
	if err := e.send("START %d", n); err != nil {
		return err
	}
	l, err := e.read(ctx, time.Now().Add(e.spec.startup()), okOrError)
	if err != nil {
		return startupError("START", err)
	}
	if !strings.EqualFold(l, "OK") {
		return fmt.Errorf("START %d answered %q", n, l)
	}
	for _, o := range e.spec.Options {
		if err := e.send("INFO %s %s", o.Name, o.Value); err != nil {
			return err
		}
	}
	rule := e.game.(GomocupGame).GomocupRule()
	e.send("INFO timeout_turn %d", e.spec.MoveTime.Milliseconds())
	e.send("INFO timeout_match %d", e.spec.GameTime.Milliseconds())
	e.send("INFO max_memory 0")
	e.send("INFO game_type 1")
	e.send("INFO rule %d", rule)
	e.known = nil
	return nil
}

func okOrError(l string) bool {
	u := strings.ToUpper(l)
	return u == "OK" || strings.HasPrefix(u, "ERROR")
}

// startupError marks a handshake that timed out as a start-up failure, not a time loss
// in the game.
func startupError(what string, err error) error {
	if strings.HasPrefix(err.Error(), "time loss") {
		return fmt.Errorf("start-up failure: no answer to %s in time", what)
	}
	return err
}

// gomocupRestart starts a new game in the running engine (Gomocup RESTART, answered OK,
// as c-gomoku-cli reuses engines between games): the engine keeps its settings and INFO
// values; the match clock restarts.
func (e *External) gomocupRestart(ctx context.Context) error {
	if err := e.send("RESTART"); err != nil {
		return err
	}
	l, err := e.read(ctx, time.Now().Add(e.spec.startup()), okOrError)
	if err != nil {
		return startupError("RESTART", err)
	}
	if !strings.EqualFold(l, "OK") {
		return fmt.Errorf("RESTART answered %q", l)
	}
	e.known = nil
	return nil
}

// Reuse prepares the engine for a new game in the same process, as tournament managers
// keep engines between games: Gomocup RESTART, SAU "new" with the next colour; a Botzone
// bot starts anew every game (keep-running) or every move. It reports false when the
// process must not be reused (it failed in its last game: a crash, a time loss, a
// protocol violation); the caller then closes it and starts a new one. The transcript
// and the game clock start empty.
func (e *External) Reuse() bool {
	if e.broken {
		return false
	}
	e.logMu.Lock()
	e.log.Reset()
	e.logDropped = 0
	e.logMu.Unlock()
	e.used, e.known, e.bzData, e.bzGlobal = 0, nil, "", ""
	if e.cmd != nil {
		if d, err := e.dialect(); err == nil && d.keepsProcess() {
			e.newGame = true
		} else {
			e.stop()
		}
	}
	return true
}

// stop ends the running process at once (end of input, kill, reap).
func (e *External) stop() {
	e.stdin.Close()
	e.cmd.Process.Kill()
	e.cmd.Wait()
	e.cmd = nil
}

// SwapAnswer implements SwapChooser over Gomocup's SWAP2BOARD: the opening stones so far
// (x,y lines), DONE; the answer is SWAP or stones "x,y x,y …". Gomoku only.
func (e *External) SwapAnswer(ctx context.Context, b engine.Board) (bool, []string, error) {
	if e.spec.ProtocolFor(e.game) != Gomocup {
		return false, nil, fmt.Errorf("%s: swap openings are Gomocup's (gomoku)", e.spec.Name())
	}
	n := b.Size()
	if e.cmd == nil {
		if err := e.gomocupStart(ctx, n); err != nil {
			return false, nil, fmt.Errorf("%s: %w", e.spec.Name(), err)
		}
	}
	h, ok := b.(engine.Historian)
	if !ok {
		return false, nil, errors.New("the board has no move history")
	}
	start := time.Now()
	err := e.send("SWAP2BOARD")
	for _, m := range h.History() {
		x, y := gomocupXY(m, n)
		if err == nil {
			err = e.send("%d,%d", x, y)
		}
	}
	if err == nil {
		err = e.send("DONE")
	}
	if err != nil {
		return false, nil, fmt.Errorf("%s: %w", e.spec.Name(), err)
	}
	l, err := e.read(ctx, start.Add(e.spec.MoveTime+e.spec.Overhead), func(l string) bool {
		if strings.EqualFold(l, "SWAP") {
			return true
		}
		f := strings.Fields(l)
		for _, xy := range f {
			if !gomocupAnswer(xy) {
				return false
			}
		}
		return len(f) > 0
	})
	e.used += time.Since(start)
	if err != nil {
		return false, nil, fmt.Errorf("%s: %w", e.spec.Name(), err)
	}
	e.known = nil // the game goes on with BOARD
	if strings.EqualFold(l, "SWAP") {
		return true, nil, nil
	}
	var stones []string
	for _, xy := range strings.Fields(l) {
		a, c, _ := strings.Cut(xy, ",")
		x, _ := strconv.Atoi(strings.TrimSpace(a))
		y, _ := strconv.Atoi(strings.TrimSpace(c))
		if x < 0 || y < 0 || x >= n || y >= n {
			return false, nil, fmt.Errorf("%s: protocol violation: stone %q is off the board", e.spec.Name(), xy)
		}
		stones = append(stones, fmt.Sprintf("%c%d", 'a'+rune(x), n-y))
	}
	return false, stones, nil
}

// gomocupXY converts a Gomoku move ("h8") to Gomocup's x,y (from 0 at the top-left).
func gomocupXY(m string, n int) (int, int) {
	row, _ := strconv.Atoi(m[1:])
	return int(m[0] - 'a'), n - row
}

// gomocupAnswer is a move answer "x,y" (blanks allowed); anything else is skipped.
func gomocupAnswer(l string) bool {
	a, c, ok := strings.Cut(l, ",")
	_, e1 := strconv.Atoi(strings.TrimSpace(a))
	_, e2 := strconv.Atoi(strings.TrimSpace(c))
	return ok && e1 == nil && e2 == nil
}

// ---- SAU (Connect6) ----

func (e *External) sauMove(ctx context.Context, b engine.Board, hist []string, deadline time.Time) (string, error) {
	me := len(hist) % 2 // moves alternate one per ply
	if e.cmd == nil || e.newGame {
		for i := range hist {
			if i%2 == me {
				return "", errors.New("the SAU protocol cannot give an engine opening moves of its own colour (use --openings none)")
			}
		}
		if len(hist) > 1 {
			return "", errors.New("the SAU protocol cannot set up this opening")
		}
		if e.cmd == nil {
			if err := e.start(); err != nil {
				return "", err
			}
			if err := e.sauHandshake(ctx); err != nil {
				return "", err
			}
		}
		e.newGame = false
		deadline = time.Now().Add(e.spec.MoveTime + e.spec.Overhead)
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
		s, err := e.game.(SAUGame).SAUMove(hist[len(hist)-1])
		if err != nil {
			return "", err
		}
		if err := e.send("move %s", s); err != nil {
			return "", err
		}
	}
	l, err := e.read(ctx, deadline, func(l string) bool {
		f := strings.Fields(l)
		return len(f) == 2 && strings.EqualFold(f[0], "move")
	})
	if err != nil {
		return "", err
	}
	return e.game.(SAUGame).ParseSAUMove(strings.Fields(l)[1])
}

// sauHandshake asks the engine its name as the SAU platform does ("name?"), and, for
// engines that know only "name", asks that after a second; a help text printed at start-up
// is skipped. An engine that names itself in neither way within StartupAllowance still
// plays (the name is not needed to play); the transcript says so.
func (e *External) sauHandshake(ctx context.Context) error {
	if err := e.send("name?"); err != nil {
		return err
	}
	isName := func(l string) bool { return strings.HasPrefix(strings.ToLower(l), "name") }
	end := time.Now().Add(e.spec.startup())
	_, err := e.read(ctx, time.Now().Add(time.Second), isName)
	if err != nil && strings.HasPrefix(err.Error(), "time loss") {
		if err := e.send("name"); err != nil {
			return err
		}
		_, err = e.read(ctx, end, isName)
		if err != nil && strings.HasPrefix(err.Error(), "time loss") {
			e.note("evotune", "no answer to name? or name; playing on")
			return nil
		}
	}
	return err
}

// ---- Botzone (Amazons, ConnectSix) ----

// botzoneMove runs the program once for this move, as Botzone does without keep-running:
// the full input (simple interaction: the turn number, requests and responses
// alternating, then the data and globaldata the bot saved last turn; or the same as one
// line of JSON), then end of input. The answer is the first line that is a move (simple)
// or a JSON object with a response; the lines after it are the bot's debug, data and
// globaldata (simple), kept for the next turn.
func (e *External) botzoneMove(ctx context.Context, b engine.Board, hist []string, deadline time.Time) (string, error) {
	ref, err := e.game.NewBoard(b.Size())
	if err != nil {
		return "", err
	}
	rb, ok := ref.(BotzoneBoard)
	if !ok {
		return "", fmt.Errorf("Botzone does not play %s", e.game.Name())
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
		reqs = append(reqs, botzoneNoMove(n))
	}
	for i, m := range bz {
		if i%2 == me {
			resps = append(resps, m)
		} else {
			reqs = append(reqs, m)
		}
	}
	keep := e.spec.BotzoneKeepRunning
	if keep && e.cmd != nil && len(hist) == len(e.known)+1 && prefixOf(e.known, hist) {
		// Keep-running: the bot is alive and knows the game; send the new request only.
		req := bz[len(bz)-1]
		if e.spec.BotzoneJSON {
			r, _ := parseBotzone(req, n)
			raw, _ := json.Marshal(r)
			req = string(raw)
		}
		if err := e.send("%s", req); err != nil {
			return "", err
		}
		return e.botzoneAnswer(ctx, b, deadline, true)
	}
	if e.cmd != nil { // a keep-running bot that lost track: start afresh
		e.stop()
	}
	if err := e.start(); err != nil {
		return "", err
	}
	if !keep {
		defer e.stop()
	}
	var input string
	if e.spec.BotzoneJSON {
		input = botzoneJSONInput(reqs, resps, n, e.bzData, e.bzGlobal, e.spec.MoveTime)
	} else {
		var sb strings.Builder
		fmt.Fprintf(&sb, "%d\n", len(reqs))
		for i, r := range reqs {
			sb.WriteString(r + "\n")
			if i < len(resps) {
				sb.WriteString(resps[i] + "\n")
			}
		}
		sb.WriteString(e.bzData + "\n" + e.bzGlobal + "\n")
		input = sb.String()
	}
	e.logFull("> ", strings.TrimRight(input, "\n"))
	if _, err := io.WriteString(e.stdin, input); err != nil {
		return "", fmt.Errorf("the engine stopped reading: %w", err)
	}
	if !keep {
		e.stdin.Close() // end of input: a bot may read to EOF before it answers
	}
	return e.botzoneAnswer(ctx, b, deadline, keep)
}

// botzoneAnswer reads a Botzone bot's answer to the position b: a JSON response or the
// first line that is a move; after a simple-interaction answer of a bot that exits, the
// lines that follow it are its debug, data and globaldata.
func (e *External) botzoneAnswer(ctx context.Context, b engine.Board, deadline time.Time, keep bool) (string, error) {
	bb := b.(BotzoneBoard)
	n := bb.BotzoneFields()
	var move string
	if e.spec.BotzoneJSON {
		var out botzoneOutput
		if _, err := e.read(ctx, deadline, func(l string) bool {
			out = botzoneOutput{}
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
		e.bzData, e.bzGlobal = out.Data, out.GlobalData
		return move, nil
	}
	if _, err := e.read(ctx, deadline, func(l string) bool {
		m, err := bb.ParseBotzoneMove(l)
		move = m
		return err == nil
	}); err != nil {
		return "", err
	}
	if keep {
		return move, nil
	}
	rest := e.drain(100 * time.Millisecond) // what followed the answer: debug, data, globaldata
	e.bzData, e.bzGlobal = "", ""
	if len(rest) > 1 {
		e.bzData = rest[1]
	}
	if len(rest) > 2 {
		e.bzGlobal = strings.Join(rest[2:], " ")
	}
	return move, nil
}

// drain waits up to grace for the program to finish writing and returns the lines it
// wrote after its answer (blank lines kept: Botzone's output is positional).
func (e *External) drain(grace time.Duration) []string {
	select {
	case <-e.exited:
	case <-time.After(grace):
	}
	var out []string
	for {
		select {
		case l := <-e.lines:
			if l == KeepRunning {
				return out
			}
			out = append(out, l)
		default:
			return out
		}
	}
}
