package sau

import (
	"context"
	"errors"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol/wire"
)

// Name is the protocol's name in specs and flags.
const Name = "sau"

// Dialect is the SAU client's description: it plays a Game, keeps its process between
// games ("new"), says quit before closing, and cannot start an engine from an opening
// holding stones of its own colour; it carries no options.
var Dialect = wire.Dialect{
	Name:          Name,
	Plays:         wire.GameIs[Game],
	KeepsProcess:  true,
	Bye:           "quit",
	TakesOpenings: false,
	TakesOptions:  false,
}

// Client is the SAU client, as the SAU platform speaks to an engine: name?, new COLOUR,
// move XXYY, quit. The zero value is ready.
type Client struct{ wire.Stateless }

// Move implements wire.Client: on a new process the name handshake, on a new game "new
// black" or "new white" (an opening of at most one stone, the opponent's), then the
// opponent's last move as "move XXYY"; the answer is "move XXYY".
func (Client) Move(ctx context.Context, c *wire.Conn, b engine.Board, hist []string, deadline time.Time, _ time.Duration) (string, error) {
	g := c.Game.(Game)
	me := len(hist) % 2 // moves alternate one per ply
	if !c.Running() || c.NewGame {
		for i := range hist {
			if i%2 == me {
				return "", errors.New("the SAU protocol cannot give an engine opening moves of its own colour (use --openings none)")
			}
		}
		if len(hist) > 1 {
			return "", errors.New("the SAU protocol cannot set up this opening")
		}
		if !c.Running() {
			if err := c.Start(); err != nil {
				return "", err
			}
			if err := handshake(ctx, c); err != nil {
				return "", err
			}
		}
		c.NewGame = false
		deadline = time.Now().Add(c.MoveTime + c.Overhead)
		c.ThinkStart = time.Now()
		color := "black"
		if me == 1 {
			color = "white"
		}
		if err := c.Send("new %s", color); err != nil {
			return "", err
		}
		c.Known = nil
	}
	if len(hist) > 0 {
		if !c.KnowsBefore(hist) {
			return "", errors.New("the SAU protocol cannot resynchronise a changed game")
		}
		s, err := g.SAUMove(hist[len(hist)-1])
		if err != nil {
			return "", err
		}
		if err := c.Send("move %s", s); err != nil {
			return "", err
		}
	}
	l, err := c.Read(ctx, deadline, func(l string) bool {
		f := strings.Fields(l)
		return len(f) == 2 && strings.EqualFold(f[0], "move")
	})
	if err != nil {
		return "", err
	}
	return g.ParseSAUMove(strings.Fields(l)[1])
}

// handshake asks the engine its name as the SAU platform does ("name?"), and, for engines
// that know only "name", asks that after a second; a help text printed at start-up is
// skipped. An engine that names itself in neither way within c.Startup still plays (the
// name is not needed to play); the transcript says so.
func handshake(ctx context.Context, c *wire.Conn) error {
	if err := c.Send("name?"); err != nil {
		return err
	}
	isName := func(l string) bool { return strings.HasPrefix(strings.ToLower(l), "name") }
	end := time.Now().Add(c.Startup)
	_, err := c.Read(ctx, time.Now().Add(time.Second), isName)
	if errors.Is(err, wire.ErrTimeLoss) {
		if err := c.Send("name"); err != nil {
			return err
		}
		_, err = c.Read(ctx, end, isName)
		if errors.Is(err, wire.ErrTimeLoss) {
			c.Note("evotune", "no answer to name? or name; playing on")
			return nil
		}
	}
	return err
}
