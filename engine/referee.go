package engine

import (
	"context"
	"errors"
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
	// TimeControl, if set, runs a chess clock for each side: players that are Clocked are
	// told both clocks before each move, and a move that runs a clock out (TimeControl.Spend)
	// loses the game (Termination TermTimeLoss) — with Forfeit, else it is an error.
	TimeControl *TimeControl
	// SideTimeControl, where set, is one side's own clock (index Black, White: the first
	// mover, the second) in place of TimeControl: a tournament's engines may each play
	// under a control of their own.
	SideTimeControl [2]*TimeControl
	// Adjudicate ends games early from the players' scores (Adjudication).
	Adjudicate Adjudication
	// MoveStats keeps every move's statistics in the record (GameRecord.Stats), for
	// records that show them (PGN comments).
	MoveStats bool
}

// MoveStat is what a player reported of one move: its score (from the mover's side, in the
// game's units; chess: centipawns, mates as ±(Win − plies)), the depth and nodes of its
// search and its thinking time.
type MoveStat struct {
	Score   int64         `json:"score"`
	NoScore bool          `json:"no_score,omitempty"`
	Depth   int           `json:"depth,omitempty"`
	Nodes   int64         `json:"nodes,omitempty"`
	Time    time.Duration `json:"time_ns"`
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
	// Slot, when set, is how long the game held the game slot that played it, its
	// engines' starts included: a cluster worker sets it (0: not measured; SlotTime).
	Slot time.Duration `json:"slot_ns,omitempty"`
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
	// out of the score (match.Result.UnplayedPairs, package tuner/match).
	Unplayed bool `json:"unplayed,omitempty"`
	// Termination says how the game ended: the board's own words (engine.Terminator:
	// "checkmate", "threefold repetition", …) or the referee's (TermResign, TermTimeLoss, …).
	Termination string `json:"termination"`
	// Stats are the players' statistics of each move after the opening
	// (RefereeOptions.MoveStats), in move order.
	Stats []MoveStat `json:"stats"`
	// Swapped is set when a swap opening (Swap2, the swap after the third move) made the
	// game's first player White: Black and White in this record are then the players'
	// colours after the swap, and the task's Black played White.
	Swapped bool `json:"swapped"`
}

// SlotTime is how long the game held its game slot: Slot where the slot's owner measured
// it (a cluster worker: its engines' starts included, as a local slot's busy time counts
// them), else the game's wall time.
func (r GameRecord) SlotTime() time.Duration {
	if r.Slot > 0 {
		return r.Slot
	}
	return r.Duration
}

// ErrTimeLoss is wrapped by a player's error, or the referee's, when a clock ran out: the
// game is a time forfeit (GameRecord.Termination TermTimeLoss).
var ErrTimeLoss = errors.New("time loss")

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
	// Name is the side's name in the game ("white" for chess's first mover; "" = Side's).
	Name string
	Ply  int
	Move string
	Err  error
}

func (e *IllegalMoveError) Error() string {
	name := e.Name
	if name == "" {
		name = e.Side.String()
	}
	return fmt.Sprintf("ply %d: %s played illegal move %q: %v", e.Ply, name, e.Move, e.Err)
}

// sideName is side's name on b: the board's own colour names (ColourNamer: chess's first
// mover is White) or side.String().
func sideName(b Board, side Color) string {
	if n, ok := b.(ColourNamer); ok {
		return n.ColourNames()[side]
	}
	return side.String()
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
	var clocks [2]Clock
	var tcs [2]*TimeControl // each side's control (nil: no clock)
	for side := range tcs {
		tcs[side] = opt.TimeControl
		if opt.SideTimeControl[side] != nil {
			tcs[side] = opt.SideTimeControl[side]
		}
		if tcs[side] != nil {
			clocks[side] = tcs[side].NewClock()
		}
	}
	adj := adjudicator{a: opt.Adjudicate}
	var last SearchStats // the last move's statistics
	lastSide := Black
	for b.Outcome() == Ongoing {
		if opt.MaxPlies > 0 && b.Ply() >= opt.MaxPlies {
			rec.PlyLimit = true
			rec.Termination = TermPlyLimit
			break
		}
		if opt.Adjudicate.Active() {
			if o, why := adj.verdict(b, lastSide, last); o != Ongoing {
				rec.Outcome, rec.Termination = o, why
				rec.Plies = b.Ply()
				rec.Duration = time.Since(start)
				transcripts(&rec, black, white)
				return rec, nil
			}
		}
		if err := ctx.Err(); err != nil {
			return rec, err
		}
		side := b.ToMove()
		p := black
		if side == White {
			p = white
		}
		if c, ok := p.(Clocked); ok && tcs[side] != nil {
			c.SetClocks(*tcs[side], clocks[side], clocks[side.Opponent()])
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
			err = fmt.Errorf("ply %d: %s: %w", b.Ply(), sideName(b, side), err)
			transcripts(&rec, black, white)
			if opt.Forfeit {
				rec = forfeit(rec, b, side, err, start)
				rec.Termination = TermForfeit
				if errors.Is(err, ErrTimeLoss) {
					rec.Termination = TermTimeLoss
				}
				rec.Unplayed = rec.Moved[side] == 1 // this was its first answer
				return rec, nil
			}
			return rec, err
		}
		rec.Nodes += st.Nodes
		if err := b.Play(m); err != nil {
			ie := &IllegalMoveError{Side: side, Name: sideName(b, side), Ply: b.Ply(), Move: m, Err: err}
			transcripts(&rec, black, white)
			if opt.Forfeit {
				rec = forfeit(rec, b, side, ie, start)
				rec.Termination = TermIllegalMove
				return rec, nil
			}
			return rec, ie
		}
		rec.Moves = append(rec.Moves, m)
		if opt.MoveStats {
			rec.Stats = append(rec.Stats, MoveStat{Score: st.Score, NoScore: st.NoScore, Depth: st.Depth, Nodes: st.Nodes, Time: el})
		}
		if tc := tcs[side]; tc != nil && !tc.Spend(&clocks[side], el) {
			err := fmt.Errorf("ply %d: %s: %w: %.3fs over the clock", b.Ply()-1, sideName(b, side), ErrTimeLoss, -clocks[side].Left.Seconds())
			transcripts(&rec, black, white)
			if !opt.Forfeit {
				return rec, err
			}
			rec = forfeit(rec, b, side, err, start)
			rec.Termination = TermTimeLoss
			return rec, nil
		}
		adj.update(b, side, st)
		last, lastSide = st, side
	}
	rec.Outcome = b.Outcome()
	if rec.Outcome == Ongoing {
		rec.Outcome = Draw
	}
	if f, ok := b.(interface{ Forfeit() bool }); ok && f.Forfeit() {
		rec.Forfeit = "black forfeits: a forbidden move (renju)"
	}
	if t, ok := b.(Terminator); ok && rec.Termination == "" {
		rec.Termination = t.Termination()
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
	rec.Forfeit = fmt.Sprintf("%s forfeits: %v", sideName(b, side), err)
	rec.Plies = b.Ply()
	rec.Duration = time.Since(start)
	return rec
}
