package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol/uci"
	"evotune/engine/protocol/wire"
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
	// BotzoneJSON makes the Botzone client speak Botzone's JSON interaction (one line of
	// JSON in, one out) instead of the simple interaction (botzone.Client.JSON).
	BotzoneJSON bool
	// BotzoneKeepRunning keeps a Botzone bot's process between turns, as Botzone's
	// keep-running mode: the full input on its first turn (input left open), then only the
	// opponent's new move each turn; the bot prints botzone.KeepRunning after each answer.
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
	Options []wire.Option `json:",omitempty"`
	// ArgValues are the values of "{NAME}" placeholders in Argv (numbers, as text): each is
	// put in when the engine starts, so Argv stays the command line the user wrote, which a
	// cluster worker's allow-list compares whole. A value that is not a finite number, or a
	// name that is not a placeholder of Argv, is an error when the engine starts.
	ArgValues map[string]string `json:",omitempty"`
	// Values, if set, names the values this engine plays with ("attack=1.5, defence=0.2":
	// a candidate's genes), written into its LogFile when it starts and when a kept
	// process takes new values, so that the log of a crash says what crashed. It is not
	// part of what the engine is (Key) and never encoded.
	Values string `json:"-"`
	// StartupTime is how long the engine may take to start and answer its handshake,
	// apart from its move clock (0 = StartupAllowance).
	StartupTime time.Duration `json:",omitempty"`
	// Protocol is the protocol the engine speaks: Gomocup, SAU, Botzone or UCI; "" is the
	// game's default (DefaultProtocol). CheckProtocol tells which a game's engines can speak.
	Protocol string `json:",omitempty"`
	// Nodes and Depth bound each search (UCI's go nodes N, go depth D); 0 = unset.
	Nodes int64 `json:",omitempty"`
	Depth int   `json:",omitempty"`
	// MoveTimeFixed sends MoveTime as the time of every move (UCI's go movetime) even with
	// Nodes or Depth set.
	MoveTimeFixed bool `json:",omitempty"`
	// TimeControl, if set, is the game's clock (UCI's go wtime btime …): the referee keeps
	// it (engine.RefereeOptions.TimeControl) and tells the engine both sides' time before
	// each move (External.SetClocks); MoveTime and GameTime are not used then.
	TimeControl *engine.TimeControl `json:",omitempty"`
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
		if !strings.ContainsRune(argv[0], '/') {
			// Debian's engine packages (stockfish, toga2, …) install into /usr/games, which a
			// non-login shell's PATH often lacks.
			if p := filepath.Join("/usr/games", argv[0]); isProgram(p) {
				return fmt.Errorf("cmd:%s: cannot run it: %w; %s is there: write cmd:%s, or add /usr/games to PATH", strings.Join(argv, " "), err, p, strings.Join(append([]string{p}, argv[1:]...), " "))
			}
		}
		return fmt.Errorf("cmd:%s: cannot run it: %w", strings.Join(argv, " "), err)
	}
	return nil
}

// isProgram reports whether path is an executable regular file.
func isProgram(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
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
	if tc := spec.TimeControl; tc != nil {
		e.SetClocks(*tc, tc.NewClock(), tc.NewClock())
	}
	m, _, err := e.Move(ctx, b)
	if err != nil {
		if t := outputTail(e.Transcript()); t != "" {
			err = fmt.Errorf("%w; its output: %s", err, t)
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
// amazons): the process (wire.Conn) and the protocol's conversation (wire.Client) of one
// engine, for one game or, after Reuse, the next ones in the same process; Close ends the
// program. Its errors (a crash, no answer in time, a malformed answer) make the
// referee score a forfeit when RefereeOptions.Forfeit is set.
type External struct {
	spec   ExternalSpec
	game   engine.Game
	dl     *dialect    // the protocol, once known (External.dialect)
	client wire.Client // its conversation with this engine
	conn   wire.Conn   // the process and the game it knows

	procKey     string // the spec's ProcessKey as given (before defaults were filled in)
	weightsPath string // the written ExternalSpec.WeightsFile, removed by Close
	broken      bool   // a move or handshake failed: the process is not reused
	own, opp    engine.Clock
}

// SetClocks implements engine.Clocked: the clocks of the next move (ExternalSpec.TimeControl).
func (e *External) SetClocks(_ engine.TimeControl, own, opp engine.Clock) { e.own, e.opp = own, opp }

// StartupAllowance is how long a newly started engine may take to answer its handshake
// (Gomocup START, SAU name?), on top of and separate from its time for the first move, as
// the reference managers allow: loading tables is not thinking.
const StartupAllowance = 10 * time.Second

// NewExternal returns a player for one game of g.
func NewExternal(spec ExternalSpec, g engine.Game) *External {
	key := spec.ProcessKey()
	if spec.MoveTime <= 0 {
		spec.MoveTime = 5 * time.Second
	}
	if spec.Overhead <= 0 {
		spec.Overhead = DefaultMoveOverhead
	}
	e := &External{spec: spec, game: g, procKey: key}
	e.conn = wire.Conn{Game: g, Name: spec.Name(), Command: e.writeWeights,
		MoveTime: spec.MoveTime, GameTime: spec.GameTime, Overhead: spec.Overhead, Startup: spec.startup(),
		Options: spec.Options, LogFile: spec.LogFile, Remark: valuesRemark(spec.Values)}
	return e
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

// Transcript returns what the engine wrote that was not an answer (stdout lines evotune
// skipped: search output, help texts, ERROR replies to commands it does not know) and its
// stderr, capped at wire.MaxTranscript bytes; the referee stores it with the game record.
func (e *External) Transcript() string { return e.conn.Transcript() }

// Move implements engine.Player over the game's protocol.
func (e *External) Move(ctx context.Context, b engine.Board) (string, engine.SearchStats, error) {
	h, ok := b.(engine.Historian)
	if !ok {
		return "", engine.SearchStats{}, errors.New("the board has no move history")
	}
	hist := h.History()
	budget := e.spec.MoveTime
	start := time.Now()
	var deadline time.Time
	if tc := e.spec.TimeControl; tc != nil {
		budget = e.own.Left
		deadline = start.Add(tc.Deadline(e.own))
	} else {
		if e.spec.GameTime > 0 {
			left := e.spec.GameTime - e.conn.Used
			if left <= 0 {
				return "", engine.SearchStats{NoScore: true}, fmt.Errorf("%s: %w: the game time is used up", e.spec.Name(), engine.ErrTimeLoss)
			}
			budget = min(budget, left)
		}
		deadline = start.Add(budget + e.spec.Overhead)
	}
	e.conn.Search = wire.Search{Nodes: e.spec.Nodes, Depth: e.spec.Depth, MoveTime: e.spec.MoveTimeFixed,
		TimeControl: e.spec.TimeControl, Own: e.own, Opp: e.opp}
	e.conn.Stats = engine.SearchStats{NoScore: true}
	e.conn.ThinkStart = start
	var m string
	_, err := e.dialect()
	if err == nil {
		m, err = e.client.Move(ctx, &e.conn, b, hist, deadline, budget)
	}
	el := time.Since(e.conn.ThinkStart) // start-up handshakes are not thinking time
	e.conn.Used += el
	st := e.conn.Stats
	st.Elapsed = el
	if err != nil {
		e.broken = true
		return "", st, fmt.Errorf("%s: %w", e.spec.Name(), err)
	}
	e.conn.Known = append(hist, m)
	return m, st, nil
}

// Close ends the program (politely, then by force) and removes its weights file.
func (e *External) Close() error {
	defer func() {
		if e.weightsPath != "" {
			os.Remove(e.weightsPath)
			e.weightsPath = ""
		}
	}()
	bye := ""
	if d, err := e.dialect(); err == nil {
		bye = d.Bye
	}
	e.conn.Close(bye)
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
	e.conn.ResetGame()
	if e.client != nil {
		e.client.Forget()
	}
	if e.conn.Running() {
		if d, err := e.dialect(); err == nil && d.KeepsProcess {
			e.conn.NewGame = true
		} else {
			e.conn.Stop()
		}
	}
	return true
}

// ProcessKey identifies what a process of the spec is, its options aside: two specs with
// one ProcessKey start the same program, which Retune may give the other's options.
func (s ExternalSpec) ProcessKey() string {
	s.Options = nil
	return s.Key()
}

// Retune gives the engine, ready for its next game (Reuse reported true), the options of
// spec, whose ProcessKey must be this engine's: the running process gets them before the
// next game (UCI setoption, Gomocup INFO) when its protocol takes new values so
// (wire.Retuner), as fastchess and c-gomoku-cli keep an engine whose settings change. It
// reports false when it cannot (another program, a protocol or engine that reads values
// only at start-up, no running process yet is fine: the handshake sends them), and when
// spec leaves out an option the running process was given: the process keeps a value
// once set (UCI setoption, Gomocup INFO), so a player without "Skill Level" would play at
// the level the other player's options left it. The caller then starts a new process.
func (e *External) Retune(spec ExternalSpec) bool {
	if spec.ProcessKey() != e.procKey || e.broken {
		return false
	}
	if _, err := e.dialect(); err != nil {
		return false
	}
	if e.conn.Running() && !setsEvery(spec.Options, e.spec.Options) {
		return false
	}
	if e.conn.Running() {
		r, ok := e.client.(Retuner)
		if !ok || !r.Retunes(&e.conn, spec.Options) {
			return false
		}
		e.conn.OptionsChanged = true
	}
	e.spec.Options, e.spec.Values = spec.Options, spec.Values
	e.conn.Options, e.conn.Remark = spec.Options, valuesRemark(spec.Values)
	if e.conn.Remark != "" {
		e.conn.LogLine("# ", e.conn.Remark)
	}
	return true
}

// setsEvery reports whether options names every option of given (names compared as UCI
// compares them, ignoring case).
func setsEvery(options, given []wire.Option) bool {
	for _, g := range given {
		if !slices.ContainsFunc(options, func(o wire.Option) bool { return strings.EqualFold(o.Name, g.Name) }) {
			return false
		}
	}
	return true
}

// valuesRemark is the log remark of an engine's values ("" for none).
func valuesRemark(values string) string {
	if values == "" {
		return ""
	}
	return "values: " + values
}

// Retuner is wire.Retuner.
type Retuner = wire.Retuner

// SwapAnswer implements swap.Chooser over the protocol's swap question (Gomocup's
// SWAP2BOARD; gomoku only): the engine swaps or lays its stones on b. The error names the
// engine.
func (e *External) SwapAnswer(ctx context.Context, b engine.Board) (bool, []string, error) {
	_, err := e.dialect()
	sc, ok := e.client.(wire.SwapClient)
	if err == nil && !ok {
		err = errors.New("swap openings are Gomocup's (gomoku)")
	}
	if err != nil {
		return false, nil, fmt.Errorf("%s: %w", e.spec.Name(), err)
	}
	swap, stones, err := sc.SwapAnswer(ctx, &e.conn, b)
	if err != nil {
		return false, nil, fmt.Errorf("%s: %w", e.spec.Name(), err)
	}
	return swap, stones, nil
}

// DeclaredOptions starts the spec's engine, runs its handshake and returns the options it
// declares (UCI's "option name … type …" lines, parsed), then ends it: what `weights layout
// --engine` writes a layout from, and what a run's genes are checked against. A protocol
// whose engines declare nothing returns none. skipped names each option line left out: one
// ParseOption refuses, or one longer than wire.MaxLine. The error names the engine and what
// failed, with its output.
func DeclaredOptions(ctx context.Context, spec ExternalSpec, g engine.Game) ([]uci.Option, []string, error) {
	if err := CheckProgram(spec.Argv); err != nil {
		return nil, nil, err
	}
	spec.Options = nil
	e := NewExternal(spec, g)
	defer e.Close()
	if _, err := e.dialect(); err != nil {
		return nil, nil, err
	}
	h, ok := e.client.(wire.Handshaker)
	if !ok {
		return nil, nil, nil
	}
	if err := h.Handshake(ctx, &e.conn); err != nil {
		if t := outputTail(e.Transcript()); t != "" {
			err = fmt.Errorf("%w; its output: %s", err, t)
		}
		return nil, nil, fmt.Errorf("%s: start-up check: %w", spec.Name(), err)
	}
	opts, bad := uci.ParseDeclared(e.conn.Declared)
	var skipped []string
	for _, l := range bad {
		skipped = append(skipped, fmt.Sprintf("%q: not an option line evotune can send back (no name and type, or a control character in it)", l))
	}
	for _, l := range e.conn.Cut {
		if strings.HasPrefix(l, "option") {
			skipped = append(skipped, fmt.Sprintf("%q…: a line longer than %d bytes, cut there", l, wire.MaxLine))
		}
	}
	return opts, skipped, nil
}

// CheckOptions starts the spec's engine, runs its handshake and checks the spec's Options
// against the options it declares (UCI: a name it lacks, a value outside a spin's min…max,
// not a combo's var), then ends it: the check before a match's first game. Protocols whose
// engines declare nothing (Gomocup's INFO) pass. The error names the engine and the option.
func CheckOptions(ctx context.Context, spec ExternalSpec, g engine.Game) error {
	for _, o := range spec.Options {
		if err := wire.CheckLine(o.Name, o.Value); err != nil {
			return fmt.Errorf("%s: %w", spec.Name(), err)
		}
	}
	e := NewExternal(spec, g)
	defer e.Close()
	if _, err := e.dialect(); err != nil {
		return err
	}
	h, ok := e.client.(wire.Handshaker)
	if !ok || len(spec.Options) == 0 {
		return nil
	}
	if err := h.Handshake(ctx, &e.conn); err != nil {
		if t := outputTail(e.Transcript()); t != "" {
			err = fmt.Errorf("%w; its output: %s", err, t)
		}
		return fmt.Errorf("%s: start-up check: %w", spec.Name(), err)
	}
	if err := h.CheckDeclared(e.conn.Declared, spec.Options); err != nil {
		return fmt.Errorf("%s: %w", spec.Name(), err)
	}
	return nil
}

// ShellQuote quotes s for a POSIX shell when it needs it (in single quotes): how an error
// shows a command line or a path the user may paste into a shell.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '+' || r == ':' || r == ',' || r == '=' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// outputTailLines and outputTailWidth bound the engine output an error quotes: its last
// lines, each cut to a width, so that an engine that prints kilobytes (every info line of
// a long search) gives a message of a line or two.
const (
	outputTailLines = 3
	outputTailWidth = 160
)

// outputTail is the end of an engine's transcript as an error quotes it: its last
// outputTailLines lines joined by " | ", each cut to outputTailWidth bytes, saying how
// many lines it left out; "" for an empty transcript.
func outputTail(transcript string) string {
	t := strings.TrimSpace(transcript)
	if t == "" {
		return ""
	}
	lines := strings.Split(t, "\n")
	skipped := max(0, len(lines)-outputTailLines)
	lines = lines[skipped:]
	for i, l := range lines {
		if len(l) > outputTailWidth {
			lines[i] = strings.ToValidUTF8(l[:outputTailWidth], "") + "…"
		}
	}
	out := strings.Join(lines, " | ")
	if skipped > 0 {
		out = fmt.Sprintf("(%d earlier lines left out) %s", skipped, out)
	}
	return out
}
