//go:build unix

package wire

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// pipe reads an engine's standard output with poll(2) and read(2) in the goroutine that
// waits for the answer: the kernel wakes that thread itself when the engine writes (as
// fastchess's and cutechess's readers wake), where the runtime's network poller would wake
// another thread first and hand the goroutine over; measured on UCI games of a few
// milliseconds a move, that hand-over was most of the referee's time between moves.
type pipe struct {
	f        *os.File // kept for Close (and so that its finalizer does not close fd)
	fd       int
	deadline time.Time
	ctx      context.Context
	yielded  time.Time // the reader's last runtime.Gosched (yieldEvery)
}

// enginePipe returns a pipe for an engine's standard input or output (close-on-exec, as
// os.Pipe's): both ends in blocking mode and outside the runtime's network poller. An end
// that os.Pipe made stays in the poller's epoll set even once it is put into blocking mode
// and read here with poll(2), and then every line the engine writes wakes the poller's
// thread for nothing (measured: a wake-up per info line, on cores the engines need).
func enginePipe() (r, w *os.File, err error) {
	var p [2]int
	syscall.ForkLock.RLock() // as os.Pipe: no fork between the pipe and its close-on-exec
	err = syscall.Pipe(p[:])
	if err == nil {
		syscall.CloseOnExec(p[0])
		syscall.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, os.NewSyscallError("pipe", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}

// newPipe takes the read end of the engine's output (of enginePipe: in blocking mode, poll
// says when it is readable) and makes room for its reader (roomForPollers).
func newPipe(f *os.File) *pipe {
	roomForPollers()
	return &pipe{f: f, fd: int(f.Fd()), ctx: context.Background()}
}

// pipes counts the pipes open; the runtime's processors (GOMAXPROCS) are raised to the
// CPUs plus one for every two (a game's two engines think in turn; at most maxExtraProcs
// more), never lowered.
var (
	pipesMu sync.Mutex
	pipes   int
)

// maxExtraProcs bounds the processors added for engines' readers (the garbage collector
// takes a quarter of all processors while it marks: too many would crowd the engines).
const maxExtraProcs = 16

// roomForPollers keeps a processor idle beside every game's goroutine waiting in poll for
// an engine. A goroutine in a system call holds its processor (P); the runtime's monitor hands
// such a P to other work after 20 µs unless some P is idle, and while it does so it wakes
// every 20 µs itself. With a P per waiting reader to spare it leaves them be: measured on
// 200 Stockfish games at 2 000 nodes a move, two at once on two cores, 19.1–19.6 s against
// 22.2–23.1 s with GOMAXPROCS at the CPUs (fastchess: 18.4–19.4 s). Only readers wait in
// those Ps, so the work running at once stays what it was (a pool of built-in engines is
// sized by the CPUs, not by GOMAXPROCS).
func roomForPollers() {
	pipesMu.Lock()
	defer pipesMu.Unlock()
	pipes++
	want := runtime.NumCPU() + min((pipes+1)/2, maxExtraProcs)
	if runtime.GOMAXPROCS(0) < want {
		runtime.GOMAXPROCS(want)
	}
}

// yieldEvery is how often a reader gives its processor back to the scheduler
// (runtime.Gosched) between its system calls. A goroutine that only ever leaves the
// scheduler for system calls keeps one scheduling tick; after 10 ms the runtime's monitor
// takes it for one that never yields: it interrupts the thread with a signal, hands its
// processor to another thread and keeps polling every 20 µs, and those wake-ups preempt the
// engines on a machine with no core to spare.
const yieldEvery = 8 * time.Millisecond

// ctxSlice is how often a wait checks its context: a cancelled game ends this soon.
const ctxSlice = 100 * time.Millisecond

// Read waits until the output is readable, the deadline passes or ctx ends (both
// os.ErrDeadlineExceeded, as an os.File past its read deadline), then reads; io.EOF
// when the output closed.
func (p *pipe) Read(b []byte) (int, error) {
	for {
		wait := -1
		if !p.deadline.IsZero() {
			d := time.Until(p.deadline)
			if d <= 0 {
				return 0, os.ErrDeadlineExceeded
			}
			wait = int((d + time.Millisecond - 1) / time.Millisecond)
		}
		if p.ctx.Done() != nil {
			if p.ctx.Err() != nil {
				return 0, os.ErrDeadlineExceeded
			}
			if s := int(ctxSlice / time.Millisecond); wait < 0 || wait > s {
				wait = s
			}
		}
		if now := time.Now(); now.Sub(p.yielded) >= yieldEvery {
			p.yielded = now
			runtime.Gosched()
		}
		fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, wait)
		if errors.Is(err, unix.EINTR) || err == nil && n == 0 {
			continue
		}
		if err != nil {
			return 0, err
		}
		m, err := unix.Read(p.fd, b)
		switch {
		case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
			continue
		case err != nil:
			return 0, err
		case m == 0:
			return 0, io.EOF
		}
		return m, nil
	}
}

// until bounds the reads that follow by deadline and ctx; the returned function stops
// watching ctx.
func (p *pipe) until(ctx context.Context, deadline time.Time) func() bool {
	p.deadline, p.ctx = deadline, ctx
	return func() bool {
		p.ctx = context.Background()
		return true
	}
}

// Close closes the read end (once; a second Close is the file's error).
func (p *pipe) Close() error {
	err := p.f.Close()
	if err == nil {
		pipesMu.Lock()
		pipes--
		pipesMu.Unlock()
	}
	return err
}
