package engine

import (
	"context"
	"fmt"
	"time"
)

// RefereeOptions configure PlayGame.
type RefereeOptions struct {
	// Opening is a list of moves played before the players take over. An illegal opening
	// move is an error naming its index.
	Opening []string
	// MaxPlies ends a game that is still going after this many plies (opening included) as
	// a draw; 0 means no limit beyond the game's own end (a full board).
	MaxPlies int
	// Forfeit makes a player's failure (an error from Move — a crash, a time loss, a
	// protocol violation — or an illegal move) a loss for that player instead of an error,
	// as tournaments score external engines. Cancellation is still an error.
	Forfeit bool
}

// GameRecord is the result of one refereed game.
type GameRecord struct {
	// Outcome is how the game ended (never Ongoing).
	Outcome Outcome `json:"outcome"`
	// Plies is the number of plies played, opening included.
	Plies int `json:"plies"`
	// Moves lists every move, opening included, in the game's notation.
	Moves []string `json:"moves"`
	// PlyLimit is true when the referee ended the game at MaxPlies.
	PlyLimit bool `json:"ply_limit"`
	// Nodes is the total search nodes of both players.
	Nodes int64 `json:"nodes"`
	// Duration is the wall time of the game.
	Duration time.Duration `json:"duration_ns"`
	// Forfeit says why a player lost by forfeit (RefereeOptions.Forfeit), else "".
	Forfeit string `json:"forfeit"`
	// Think is each colour's total thinking time (index Black, White) and MaxThink its
	// longest single move: SearchStats.Elapsed as the player reports it (an external
	// engine: from the move request to the answer, its start-up handshake excluded), else
	// the wall time of the Player.Move call.
	Think    [2]time.Duration `json:"think_ns"`
	MaxThink [2]time.Duration `json:"max_think_ns"`
	// Moved counts each colour's moves after the opening.
	Moved [2]int `json:"moved"`
	// BlackLog and WhiteLog are an external engine's transcript: what it wrote that was not
	// an answer (search output, help texts, replies to commands it does not know) and its
	// standard error, size-capped; "" for built-in players.
	BlackLog string `json:"black_log"`
	WhiteLog string `json:"white_log"`
	// Unplayed is set when the forfeit (Forfeit) came before the forfeiting player made a
	// move: it did not start, or failed or ran out of time on its first answer. Such a game
	// says nothing about how well either side plays; matches report it apart and leave it
	// out of the score (tuner.MatchResult.UnplayedPairs).
	Unplayed bool `json:"unplayed,omitempty"`
	// Swapped is set when a swap opening (Swap2, the swap after the third move) made the
	// game's first player White: Black and White in this record are then the players'
	// colours after the swap, and the task's Black played White.
	Swapped bool `json:"swapped"`
}

// Transcriber is a Player that keeps a transcript of its non-answer output (an external
// engine); the referee stores it in the GameRecord.
type Transcriber interface {
	Transcript() string
}

// transcripts copies the players' transcripts into rec.
func transcripts(rec *GameRecord, black, white Player) {
	if t, ok := black.(Transcriber); ok {
		rec.BlackLog = t.Transcript()
	}
	if t, ok := white.(Transcriber); ok {
		rec.WhiteLog = t.Transcript()
	}
}

// IllegalMoveError reports a player's move that the board refused; the referee never plays
// such a move.
type IllegalMoveError struct {
	Side Color
	Ply  int
	Move string
	Err  error
}

func (e *IllegalMoveError) Error() string {
	return fmt.Sprintf("ply %d: %s played illegal move %q: %v", e.Ply, e.Side, e.Move, e.Err)
}

func (e *IllegalMoveError) Unwrap() error { return e.Err }

// PlayGame plays b (which it modifies) to the end between black and white, after the
// opening. Every move goes through Board.Play, which validates it. It returns an
// *IllegalMoveError if a player returns an illegal move, the context's error if cancelled,
// and otherwise the finished game's record.
func PlayGame(ctx context.Context, b Board, black, white Player, opt RefereeOptions) (GameRecord, error) {
	start := time.Now()
	rec := GameRecord{}
	for i, m := range opt.Opening {
		if b.Outcome() != Ongoing {
			return rec, fmt.Errorf("opening move %d (%s): the game is already over", i+1, m)
		}
		if err := b.Play(m); err != nil {
			return rec, fmt.Errorf("opening move %d: %w", i+1, err)
		}
		rec.Moves = append(rec.Moves, m)
	}
	for b.Outcome() == Ongoing {
		if opt.MaxPlies > 0 && b.Ply() >= opt.MaxPlies {
			rec.PlyLimit = true
			break
		}
		if err := ctx.Err(); err != nil {
			return rec, err
		}
		side := b.ToMove()
		p := black
		if side == White {
			p = white
		}
		t0 := time.Now()
		m, st, err := p.Move(ctx, b)
		el := time.Since(t0)
		if st.Elapsed > 0 {
			el = st.Elapsed
		}
		rec.Think[side] += el
		rec.MaxThink[side] = max(rec.MaxThink[side], el)
		rec.Moved[side]++
		if err != nil {
			if ctx.Err() != nil {
				return rec, ctx.Err()
			}
			err = fmt.Errorf("ply %d: %s: %w", b.Ply(), side, err)
			transcripts(&rec, black, white)
			if opt.Forfeit {
				rec = forfeit(rec, b, side, err, start)
				rec.Unplayed = rec.Moved[side] == 1 // this was its first answer
				return rec, nil
			}
			return rec, err
		}
		rec.Nodes += st.Nodes
		if err := b.Play(m); err != nil {
			ie := &IllegalMoveError{Side: side, Ply: b.Ply(), Move: m, Err: err}
			transcripts(&rec, black, white)
			if opt.Forfeit {
				return forfeit(rec, b, side, ie, start), nil
			}
			return rec, ie
		}
		rec.Moves = append(rec.Moves, m)
	}
	rec.Outcome = b.Outcome()
	if rec.Outcome == Ongoing {
		rec.Outcome = Draw
	}
	if f, ok := b.(interface{ Forfeit() bool }); ok && f.Forfeit() {
		rec.Forfeit = "black forfeits: a forbidden move (renju)"
	}
	rec.Plies = b.Ply()
	rec.Duration = time.Since(start)
	transcripts(&rec, black, white)
	return rec, nil
}

// forfeit ends the game as a loss for side.
func forfeit(rec GameRecord, b Board, side Color, err error, start time.Time) GameRecord {
	rec.Outcome = WhiteWins
	if side == White {
		rec.Outcome = BlackWins
	}
	rec.Forfeit = fmt.Sprintf("%s forfeits: %v", side, err)
	rec.Plies = b.Ply()
	rec.Duration = time.Since(start)
	return rec
}
