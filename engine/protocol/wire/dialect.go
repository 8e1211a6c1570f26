// Package wire is what every protocol package (gomocup, sau, botzone, uci) shares,
// below them: for the client side, an engine's process and its line I/O (Conn), the
// description of a protocol (Dialect) and the conversation it holds (Client); for the
// server side, the command reader (Lines), the searching player kept from move to move
// (Session), the served engine's settings and the time budget of a move (Config). It names
// no protocol and no game.
package wire

import (
	"context"
	"time"

	"evotune/engine"
)

// Option is one named value sent to an engine in its protocol's way
// (protocol.ExternalSpec.Options). Name is a layout's gene name (letters, digits, '_' and
// '.'); Value is a number as text.
type Option struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Dialect describes one protocol's client side: whether it carries a game, how its
// processes live and what it can carry. Each protocol package offers its own
// (gomocup.Dialect, sau.Dialect, botzone.Dialect); protocol lists them.
type Dialect struct {
	// Name is how specs and flags name the protocol ("gomocup", "sau", "botzone").
	Name string
	// Plays reports whether the protocol can carry games of g (it may build a board).
	Plays func(g engine.Game) bool
	// KeepsProcess is true when a process plays the next game too (Gomocup RESTART, SAU
	// "new"); otherwise it is stopped after each game (Botzone).
	KeepsProcess bool
	// Bye is the last line sent before the engine's input is closed ("" = none).
	Bye string
	// TakesOpenings is true when an engine can be started from any opening.
	TakesOpenings bool
	// TakesOptions is true when the protocol carries Options.
	TakesOptions bool
}

// GameIs is Dialect.Plays for a protocol that carries the games implementing T (its
// capability: gomocup.Game, sau.Game).
func GameIs[T any](g engine.Game) bool {
	_, ok := g.(T)
	return ok
}

// Stateless is embedded by a Client that keeps nothing of a game but what its Conn holds:
// its Forget does nothing.
type Stateless struct{}

// Forget implements Client: there is nothing to forget.
func (Stateless) Forget() {}

// Client is one protocol's conversation with one engine over c. A new protocol — UCI
// next: "uci"/"uciok", a candidate's values as "setoption name X value Y", "position …
// moves …", "go movetime N", "bestmove" — is a package with a Dialect, a Client and its
// server, and one line in protocol's list of dialects.
type Client interface {
	// Move returns the engine's move on b, whose moves so far are hist, starting the
	// process (or a new game in it, c.NewGame) as needed; the answer is late after
	// deadline, budget is the move's time. A client that spends time on a handshake
	// resets c.ThinkStart after it (the clock runs from the request).
	Move(ctx context.Context, c *Conn, b engine.Board, hist []string, deadline time.Time, budget time.Duration) (string, error)
	// Forget drops what the client kept of the game in play (Botzone's data and
	// globaldata), before the next game.
	Forget()
}

// SwapClient is a Client that can ask its engine a swap opening's question (Gomocup's
// SWAP2BOARD): swap, or the stones it lays on b.
type SwapClient interface {
	Client
	SwapAnswer(ctx context.Context, c *Conn, b engine.Board) (swap bool, stones []string, err error)
}

// Handshaker is a Client whose engines declare what they take in a handshake (UCI's
// options): Handshake starts the process and runs it, CheckDeclared checks values against
// what the engine declared (Conn.Declared).
type Handshaker interface {
	Client
	Handshake(ctx context.Context, c *Conn) error
	CheckDeclared(declared []string, values []Option) error
}

// Retuner is a Client whose running engine can take new option values between games
// (UCI's setoption before ucinewgame, Gomocup's INFO before RESTART), so that a new
// candidate under tuning costs no new process. Retunes reports whether the engine on c
// takes values so (UCI: only options it declared); the client then sends c.Options before
// the next game when c.OptionsChanged is set.
type Retuner interface {
	Client
	Retunes(c *Conn, values []Option) bool
}
