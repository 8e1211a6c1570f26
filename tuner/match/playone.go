package match

import (
	"context"
	"fmt"
	"strings"

	"evotune/engine"
)

// PlayRequest is one game as `evotune play` states it: each field is one of its flags.
type PlayRequest struct {
	Game engine.Game
	// Black and White are the sides' weights (--black, --white): "default" (the paper's)
	// or a weights file. Black is the first mover except in chess (engine.ColourName).
	Black, White string
	// Board is --board (0 = the game's size, or the --from file's); Limits are --depth and
	// --width (0 = the weights file's, else the game's); MaxPlies is --max-plies (0 = the
	// game's own end).
	Board    int
	Limits   engine.Limits
	MaxPlies int
	// Opening is --opening, moves to play first, comma-separated; From is --from, a saved
	// game (engine.LoadGame) whose moves are played first.
	Opening, From string
}

// Side is the weights spec of the side that plays colour c in r's game ("default" or a
// file), by its colour name.
func (r PlayRequest) Side(c engine.Color) string {
	if engine.ColourName(r.Game, c) == "black" {
		return r.Black
	}
	return r.White
}

// PlayOne plays the game r asks for and returns its final board and record. Errors name
// the flag: a bad limit (--depth), an unreadable weights file (--black), a --from file that
// cannot be read or whose board --board contradicts, a bad board size (--board), a move
// of the opening the rules refuse (--from's, else the referee's error).
func PlayOne(ctx context.Context, r PlayRequest) (engine.Board, engine.GameRecord, error) {
	g := r.Game
	if err := r.Limits.Validate(); err != nil {
		return nil, engine.GameRecord{}, fmt.Errorf("--%w", err)
	}
	players := make([]engine.Player, 2)
	for i := range players {
		c := engine.Color(i)
		w, fl, err := LoadWeights(g, r.Side(c))
		if err != nil {
			return nil, engine.GameRecord{}, fmt.Errorf("--%s: %w", engine.ColourName(g, c), err)
		}
		if players[i], err = g.NewPlayer(w, MergeLimits(g, r.Limits, fl)); err != nil {
			return nil, engine.GameRecord{}, err
		}
	}
	var opening []string
	for _, m := range strings.Split(r.Opening, ",") {
		if m = strings.TrimSpace(m); m != "" {
			opening = append(opening, m)
		}
	}
	board := r.Board
	if r.From != "" {
		moves, size, err := engine.LoadGame(r.From, g)
		if err != nil {
			return nil, engine.GameRecord{}, err
		}
		if size != 0 && board == 0 {
			board = size
		} else if size != 0 && size != board {
			return nil, engine.GameRecord{}, fmt.Errorf("--from %s: the game is on a %d board, --board says %d", r.From, size, board)
		}
		opening = moves
	}
	b, err := g.NewBoard(board)
	if err != nil {
		return nil, engine.GameRecord{}, fmt.Errorf("--board: %w", err)
	}
	rec, err := engine.PlayGame(ctx, b, players[0], players[1], engine.RefereeOptions{Opening: opening, MaxPlies: r.MaxPlies})
	if err != nil && r.From != "" {
		return nil, engine.GameRecord{}, fmt.Errorf("--from %s: %w", r.From, err)
	}
	return b, rec, err
}
