//go:build !unix

package wire

import (
	"context"
	"os"
	"time"
)

// pipe reads an engine's standard output through the runtime's poller with read
// deadlines (the unix build polls in the waiting thread instead).
type pipe struct{ *os.File }

// enginePipe returns a pipe for an engine's standard input or output (os.Pipe).
func enginePipe() (r, w *os.File, err error) { return os.Pipe() }

// newPipe takes the read end of the engine's output.
func newPipe(f *os.File) *pipe { return &pipe{f} }

// until bounds the reads that follow by deadline and ctx (reads then fail with
// os.ErrDeadlineExceeded); the returned function stops watching ctx.
func (p *pipe) until(ctx context.Context, deadline time.Time) func() bool {
	p.SetReadDeadline(deadline)
	return context.AfterFunc(ctx, func() { p.SetReadDeadline(time.Now()) })
}
