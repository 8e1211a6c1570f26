package wire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"evotune/engine"
)

// MaxTranscript caps an engine's transcript (lines that were not answers, and its stderr)
// kept with a game record, in bytes.
const MaxTranscript = 4096

// Conn is an external engine's process as a protocol client drives it: started when a
// client needs it, lines sent, answers read against a deadline (other lines kept in a
// transcript), and the game the engine knows. One Conn serves one engine for as many games
// as its process plays (protocol.External keeps one per engine); a protocol's Client holds
// no process of its own. The settings are set before the first Start; the game fields are
// the client's to read and write.
type Conn struct {
	// Game is the game played, under its rule.
	Game engine.Game
	// Name names the engine in errors and the log ("cmd:PROG ARGS").
	Name string
	// Command returns the program and its arguments to start (protocol.External's, its
	// weights file written and placeholders filled in); its error stops the start.
	Command func() ([]string, error)
	// MoveTime bounds each move, GameTime the engine's time in a game (0 = no bound),
	// Overhead is the tolerance on top of either before an answer is late, Startup how long
	// a handshake may take (protocol.ExternalSpec's).
	MoveTime, GameTime, Overhead, Startup time.Duration
	// Options are values the protocol sends its own way (Gomocup's INFO).
	Options []Option
	// OptionsChanged is set when Options changed since the running engine got them (a new
	// candidate on a kept process): the client sends them again before the next game.
	OptionsChanged bool
	// LogFile, if set, receives the full transcript (ExternalSpec.LogFile).
	LogFile string
	// Remark, if set, is written into LogFile as evotune's remark when the engine starts
	// (the values it plays with).
	Remark string
	// Ignore, if set, is a line the engine prints between answers that is neither an answer
	// nor kept in the transcript (Botzone's KeepRunning marker).
	Ignore string

	// Known are the moves the engine knows, in evotune's notation.
	Known []string
	// Used is the engine's clock in this game so far.
	Used time.Duration
	// ThinkStart is when the current move's request was sent (after any start-up
	// handshake): the engine's clock runs from there.
	ThinkStart time.Time
	// NewGame is set between games: the next move starts a new game in the running process.
	NewGame bool
	// Search is what a move's search is bounded by, for protocols that say it (UCI's go).
	Search Search
	// Stats are the statistics the engine reported of its last move (UCI's info lines);
	// the client sets them, NoScore when it reported no score.
	Stats engine.SearchStats
	// Declared are the option lines of the engine's handshake (UCI's "option name …").
	Declared []string
	// Cut are the first 80 bytes of each line the engine wrote longer than MaxLine (read
	// only up to it), at most 16 kept.
	Cut []string

	cmd     *exec.Cmd
	stdin   *os.File
	out     *pipe         // the read end of the engine's standard output
	br      *bufio.Reader // buffers out
	partial []byte        // a line begun before a read's deadline passed
	cutting bool          // the line in partial is longer than MaxLine
	lastCut bool          // the last line read was longer than MaxLine
	eof     bool          // the output is closed: the program exited
	errMu   sync.Mutex
	errTail []string      // last lines the program wrote to stderr
	errDone chan struct{} // closed when the program's stderr has been read to its end

	logMu      sync.Mutex
	log        strings.Builder // transcript's head: its first lines, up to half of MaxTranscript
	logTail    []string        // its last lines after the head, up to the other half
	tailBytes  int             // bytes of logTail
	logDropped int             // lines between head and tail left out by the cap

	fullMu    sync.Mutex
	full      *os.File  // LogFile, open from the first Start to Close
	fullStart time.Time // when the log started
}

// Search bounds an engine's search as UCI's go command does: a node count, a depth, a
// fixed time per move, or a clock (TimeControl with the mover's and the other side's
// clocks). Zero values are unset.
type Search struct {
	Nodes       int64
	Depth       int
	MoveTime    bool
	TimeControl *engine.TimeControl
	Own, Opp    engine.Clock
}

// CheckLine refuses a protocol argument (an option's name or value) that could break a
// line: a control character such as a line break, or a name that is empty. The error names
// the option.
func CheckLine(name, value string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("option %q: an empty name", name)
	}
	for _, s := range []string{name, value} {
		if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return fmt.Errorf("option %q: a control character (a line break?) in its name or value %q", name, value)
		}
	}
	return nil
}

// Running reports whether a process is running.
func (c *Conn) Running() bool { return c.cmd != nil }

// Start starts the program Command gives (argv[0] a path or a name on PATH); its stdout
// lines are read as they come, its stderr kept in the transcript. The error names the
// program.
func (c *Conn) Start() error {
	argv, err := c.Command()
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	dieWithReferee(cmd)
	// Standard input is written and standard output read in the goroutine that waits for
	// the answer, through pipes of enginePipe (no reader goroutine in between: a hand-over
	// per line would cost a scheduler wake-up each, and a UCI engine writes its info lines
	// by the dozen a move); see pipe.
	inR, in, err := enginePipe()
	if err != nil {
		return err
	}
	out, outW, err := enginePipe()
	if err != nil {
		inR.Close()
		in.Close()
		return err
	}
	closeAll := func() {
		for _, f := range []*os.File{inR, in, out, outW} {
			f.Close()
		}
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		closeAll()
		return err
	}
	if err := cmd.Start(); err != nil {
		closeAll()
		return fmt.Errorf("cannot start %s: %w", c.Name, err)
	}
	inR.Close() // the child holds its own copies
	outW.Close()
	if c.LogFile != "" {
		c.fullMu.Lock()
		if c.full == nil {
			f, err := os.OpenFile(c.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err == nil {
				c.full, c.fullStart = f, time.Now()
			}
		}
		c.fullMu.Unlock()
		c.LogLine("# ", fmt.Sprintf("started %s (pid %d)", c.Name, cmd.Process.Pid))
		if c.Remark != "" {
			c.LogLine("# ", c.Remark)
		}
	}
	p := newPipe(out)
	c.cmd, c.stdin, c.out, c.br, c.partial, c.eof = cmd, in, p, bufio.NewReaderSize(p, 64*1024), nil, false
	c.errDone = make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			c.errMu.Lock()
			c.errTail = append(c.errTail, sc.Text())
			if len(c.errTail) > 5 {
				c.errTail = c.errTail[1:]
			}
			c.errMu.Unlock()
			c.Note("stderr", sc.Text())
			c.LogLine("! ", sc.Text())
		}
	}(c.errDone)
	return nil
}

// wait reaps the process (Process.Kill first where it must go) once its stderr has been
// read to the end: exec's Wait closes the stderr pipe, and lines still in it would be lost
// from the transcript. A program whose children keep stderr open is waited for a second.
func (c *Conn) wait() error {
	select {
	case <-c.errDone:
	case <-time.After(time.Second):
	}
	return c.cmd.Wait()
}

// LogLine appends a line to LogFile, if any: dir is "> " (sent), "< " (read), "! "
// (stderr) or "# " (evotune's remark), after the seconds since the log started.
func (c *Conn) LogLine(dir, line string) {
	c.fullMu.Lock()
	defer c.fullMu.Unlock()
	if c.full != nil {
		fmt.Fprintf(c.full, "%9.3f %s%s\n", time.Since(c.fullStart).Seconds(), dir, line)
	}
}

// Send writes one line (format and args as fmt.Printf) to the engine; a line that would hold
// a control character (a line break) is refused and nothing is written. When the engine is
// gone or stopped reading, the error says so, and what it printed before is kept in the
// transcript.
func (c *Conn) Send(format string, args ...any) error {
	line := fmt.Sprintf(format, args...)
	// One command is one line: a value holding a line break (an option's name or value from
	// a task or a flag) would smuggle in commands of its own. Nothing is written then.
	if i := strings.IndexFunc(line, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }); i >= 0 {
		return fmt.Errorf("refused to send %q: a control character (a line break?) at byte %d would break the protocol's one command a line", line, i)
	}
	c.LogLine("> ", line)
	if _, err := io.WriteString(c.stdin, line+"\n"); err != nil {
		// What it printed before is still in the pipe, and is the only clue to why. Read it
		// for up to a second (until its output closes), keep it in the transcript, and make
		// sure the process is gone.
		c.drainTranscript(time.Second)
		c.cmd.Process.Kill()
		// An engine that exited by itself says how (its exit status), which a broken pipe
		// alone does not.
		var ee *exec.ExitError
		if werr := c.wait(); errors.As(werr, &ee) && ee.Exited() {
			return fmt.Errorf("the engine exited or stopped reading (%v): %w", werr, err)
		}
		return fmt.Errorf("the engine exited or stopped reading: %w", err)
	}
	return nil
}

// Write writes input (whole lines, each ending in a newline) to the engine at once, as a
// Botzone turn's input is given.
func (c *Conn) Write(input string) error {
	c.LogLine("> ", strings.TrimRight(input, "\n"))
	if _, err := io.WriteString(c.stdin, input); err != nil {
		return fmt.Errorf("the engine stopped reading: %w", err)
	}
	return nil
}

// CloseInput ends the engine's input (a Botzone bot may read to end of input before it
// answers).
func (c *Conn) CloseInput() { c.stdin.Close() }

// drainTranscript reads what the engine writes for up to d, until its output closes, into
// the transcript.
func (c *Conn) drainTranscript(d time.Duration) {
	defer c.until(context.Background(), time.Now().Add(d))()
	for {
		l, err := c.readLine()
		if err != nil {
			return
		}
		if l != "" {
			c.Note("stdout", l)
		}
	}
}

// until bounds the reads that follow by deadline and ctx (reads then fail with
// os.ErrDeadlineExceeded); the returned function stops watching ctx.
func (c *Conn) until(ctx context.Context, deadline time.Time) func() bool {
	return c.out.until(ctx, deadline)
}

// MaxLine caps a line read from an engine (bytes); the rest of a longer line is dropped
// (and the line's start kept in Conn.Cut).
const MaxLine = 1 << 20

// readLine reads the next line of the engine's output (logged to LogFile, trimmed of
// surrounding blanks; blank lines kept: Botzone's output is positional), waiting until the
// output's read deadline. The error is os.ErrDeadlineExceeded when the deadline passed (a
// line begun is kept for the next call) or io.EOF when the output closed.
func (c *Conn) readLine() (string, error) {
	if c.eof {
		return "", io.EOF
	}
	for {
		frag, err := c.br.ReadSlice('\n')
		if len(c.partial)+len(frag) <= MaxLine {
			c.partial = append(c.partial, frag...)
		} else {
			c.cutting = true
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == nil || errors.Is(err, io.EOF) && len(c.partial) > 0:
			text := strings.TrimRight(string(c.partial), "\r\n")
			c.partial = c.partial[:0]
			if c.cutting && len(c.Cut) < 16 {
				c.Cut = append(c.Cut, text[:min(80, len(text))])
			}
			c.lastCut, c.cutting = c.cutting, false
			c.LogLine("< ", text)
			return strings.TrimSpace(text), nil
		case errors.Is(err, os.ErrDeadlineExceeded):
			return "", err
		default:
			c.eof = true
			return "", io.EOF
		}
	}
}

// LastCut reports whether the last line read was longer than MaxLine, and so cut.
func (c *Conn) LastCut() bool { return c.lastCut }

// Note adds a line to the transcript: stream is "stdout", "stderr" or "evotune". The
// transcript keeps its first lines (an engine's banner and start-up errors) and its last
// (what it did when it failed), about MaxTranscript bytes in all; the lines between are
// counted.
func (c *Conn) Note(stream, line string) {
	c.logMu.Lock()
	defer c.logMu.Unlock()
	entry := stream + ": " + line + "\n"
	if len(c.logTail) == 0 && c.logDropped == 0 && c.log.Len()+len(entry) <= MaxTranscript/2 {
		c.log.WriteString(entry)
		return
	}
	c.logTail = append(c.logTail, entry)
	c.tailBytes += len(entry)
	for c.tailBytes > MaxTranscript/2 && len(c.logTail) > 1 {
		c.tailBytes -= len(c.logTail[0])
		c.logTail = c.logTail[1:]
		c.logDropped++
	}
}

// Transcript returns what the engine wrote that was not an answer and its stderr: its first
// and its last lines, about MaxTranscript bytes, with a count of the lines left out between.
func (c *Conn) Transcript() string {
	c.logMu.Lock()
	defer c.logMu.Unlock()
	t := c.log.String()
	if c.logDropped > 0 {
		t += fmt.Sprintf("… %d lines left out …\n", c.logDropped)
	}
	return t + strings.Join(c.logTail, "")
}

// ResetGame empties the transcript and forgets the game in play (the moves known and the
// clock), for the next game.
func (c *Conn) ResetGame() {
	c.logMu.Lock()
	c.log.Reset()
	c.logTail, c.tailBytes, c.logDropped = nil, 0, 0
	c.logMu.Unlock()
	c.Used, c.Known = 0, nil
}

// ErrTimeLoss is Read's error when the deadline passes with no answer; it wraps
// engine.ErrTimeLoss, so the referee records the game as a time forfeit.
var ErrTimeLoss = fmt.Errorf("%w: no answer in time", engine.ErrTimeLoss)

// Read returns the next line accept takes as an answer. Other lines — Gomocup MESSAGE and
// DEBUG, search output, help texts, ERROR replies to commands the engine does not know —
// go to the transcript and are skipped, as the reference managers skip them; blank lines
// and Ignore are skipped silently. It fails when the deadline passes (ErrTimeLoss), the
// context ends or the program exits (the error gives its exit status and last stderr
// lines).
func (c *Conn) Read(ctx context.Context, deadline time.Time, accept func(string) bool) (string, error) {
	stop := c.until(ctx, deadline)
	for {
		l, err := c.readLine()
		if err == nil && (l == "" || c.Ignore != "" && l == c.Ignore) {
			continue
		}
		if err == nil && !accept(l) {
			c.Note("stdout", l)
			continue
		}
		stop()
		switch {
		case err == nil:
			return l, nil
		case ctx.Err() != nil:
			return "", ctx.Err()
		case errors.Is(err, os.ErrDeadlineExceeded):
			return "", ErrTimeLoss
		}
		// The output closed: the program exited (its last stderr lines say why, if anything).
		// Make sure it is gone before waiting (a program that closed stdout but kept running
		// would block Wait); stderr is read to its end first.
		c.cmd.Process.Kill()
		c.wait()
		c.errMu.Lock()
		tail := strings.Join(c.errTail, " | ")
		c.errMu.Unlock()
		return "", fmt.Errorf("the engine exited (%v) %s", c.cmd.ProcessState, tail)
	}
}

// Drain waits up to grace for the program to finish writing and returns the lines it wrote
// after its answer (blank lines kept: Botzone's output is positional), up to the line stop
// (not included; "" = none).
func (c *Conn) Drain(grace time.Duration, stop string) []string {
	defer c.until(context.Background(), time.Now().Add(grace))()
	var out []string
	for {
		l, err := c.readLine()
		if err != nil || stop != "" && l == stop {
			return out
		}
		out = append(out, l)
	}
}

// Stop ends the running process at once (end of input, kill, reap).
func (c *Conn) Stop() {
	c.stdin.Close()
	c.cmd.Process.Kill()
	c.wait()
	c.out.Close()
	c.cmd = nil
}

// Close ends the process politely — the line bye ("" = none), end of input, half a second
// to exit — then by force, and closes the log file.
func (c *Conn) Close(bye string) {
	if c.cmd != nil && c.cmd.Process != nil {
		if bye != "" {
			c.Send("%s", bye)
		}
		c.stdin.Close()
		stop := c.until(context.Background(), time.Now().Add(500*time.Millisecond))
		for {
			if _, err := c.readLine(); err != nil {
				break // exited (its output closed), or the half second is over
			}
		}
		stop()
		c.cmd.Process.Kill()
		c.wait()
		c.out.Close()
		c.cmd = nil
	}
	c.fullMu.Lock()
	if c.full != nil {
		c.full.Close()
		c.full = nil
	}
	c.fullMu.Unlock()
}

// StartupError marks a handshake (what: "START", "RESTART") that timed out as a start-up
// failure, not a time loss in the game.
func StartupError(what string, err error) error {
	if errors.Is(err, ErrTimeLoss) {
		return fmt.Errorf("start-up failure: no answer to %s in time", what)
	}
	return err
}

// KnowsBefore reports whether the engine knows the game hist up to its last move: Known
// is hist without its last move (the opponent's), so one move brings the engine up to
// date.
func (c *Conn) KnowsBefore(hist []string) bool {
	if len(hist) != len(c.Known)+1 {
		return false
	}
	for i := range c.Known {
		if c.Known[i] != hist[i] {
			return false
		}
	}
	return true
}
