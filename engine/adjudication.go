package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Adjudication ends games early as cutechess-cli and fastchess do, from the scores the
// players report (SearchStats.Score, from the mover's side, in centipawns for chess):
//   - resign: a side whose score was at most −ResignScore for ResignMoves of its moves in a
//     row loses, once its last score is below zero (ResignTwoSided: both sides' scores, as
//     |score| ≥ ResignScore, for 2·ResignMoves plies in a row);
//   - draw: from full move DrawMoveNumber on, both sides' scores within ±DrawScore for
//     DrawMoves moves each (2·DrawMoves plies) in a row, counting anew at every capture or
//     pawn move;
//   - MaxMoves: a draw after MaxMoves moves by each side (2·MaxMoves plies played by the
//     players; the opening not counted).
//
// Zero fields turn a rule off. A move without a score (an engine that printed none)
// breaks a run.
type Adjudication struct {
	ResignMoves    int   `json:"resign_moves,omitempty"`
	ResignScore    int64 `json:"resign_score,omitempty"`
	ResignTwoSided bool  `json:"resign_two_sided,omitempty"`
	DrawMoveNumber int   `json:"draw_move_number,omitempty"`
	DrawMoves      int   `json:"draw_moves,omitempty"`
	DrawScore      int64 `json:"draw_score,omitempty"`
	MaxMoves       int   `json:"max_moves,omitempty"`
}

// ParseResign reads cutechess/fastchess's "movecount=3,score=600[,twosided=true]" into a.
func (a *Adjudication) ParseResign(s string) error {
	return parseKV("resign", s, map[string]any{"movecount": &a.ResignMoves, "score": &a.ResignScore, "twosided": &a.ResignTwoSided},
		func() error {
			if a.ResignMoves < 1 || a.ResignScore < 1 {
				return fmt.Errorf("resign %q: want movecount ≥ 1 and score ≥ 1", s)
			}
			return nil
		})
}

// ParseDraw reads "movenumber=34,movecount=8,score=20" into a.
func (a *Adjudication) ParseDraw(s string) error {
	return parseKV("draw", s, map[string]any{"movenumber": &a.DrawMoveNumber, "movecount": &a.DrawMoves, "score": &a.DrawScore},
		func() error {
			if a.DrawMoves < 1 || a.DrawScore < 0 || a.DrawMoveNumber < 0 {
				return fmt.Errorf("draw %q: want movecount ≥ 1, score ≥ 0 and movenumber ≥ 0", s)
			}
			return nil
		})
}

// parseKV reads "k=v,k=v" into the targets (*int, *int64, *bool); the error names an
// unknown key or a bad value.
func parseKV(what, s string, keys map[string]any, check func() error) error {
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		dst, known := keys[k]
		if !ok || !known {
			var names []string
			for n := range keys {
				names = append(names, n)
			}
			return fmt.Errorf("%s %q: %q is not KEY=VALUE with a key of %s", what, s, kv, strings.Join(sortedCopy(names), ", "))
		}
		var err error
		switch d := dst.(type) {
		case *int:
			*d, err = strconv.Atoi(v)
		case *int64:
			*d, err = strconv.ParseInt(v, 10, 64)
		case *bool:
			*d, err = strconv.ParseBool(v)
		}
		if err != nil {
			return fmt.Errorf("%s %q: %s=%q is not a valid value", what, s, k, v)
		}
	}
	return check()
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// Active reports whether any rule is on.
func (a Adjudication) Active() bool {
	return a.ResignMoves > 0 || a.DrawMoves > 0 || a.MaxMoves > 0
}

// HalfMoveClocker is implemented by boards with a fifty-move counter and full-move numbers
// (chess): the draw adjudication counts anew after a capture or pawn move and starts at a
// full move number.
type HalfMoveClocker interface {
	HalfMoveClock() int
	FullMoveNumber() int
}

// adjudicator follows the scores of one game (fastchess's DrawTracker, ResignTracker and
// MaxMovesTracker).
type adjudicator struct {
	a       Adjudication
	draw    int    // plies in a row within ±DrawScore
	resign  [2]int // each side's moves in a row at or below −ResignScore
	resign2 int    // plies in a row with |score| ≥ ResignScore (two-sided)
	plies   int    // plies played by the players
}

// update takes the score of the move just made by side (ok false: no score) on board b.
func (j *adjudicator) update(b Board, side Color, st SearchStats) {
	j.plies++
	hc, _ := b.(HalfMoveClocker)
	if hc != nil && hc.HalfMoveClock() == 0 {
		j.draw = 0
	}
	cp := !st.NoScore && st.Score > -WinThreshold && st.Score < WinThreshold
	mate := !st.NoScore && !cp
	if j.a.DrawMoves > 0 {
		if cp && abs64(st.Score) <= j.a.DrawScore {
			j.draw++
		} else {
			j.draw = 0
		}
	}
	if j.a.ResignTwoSided {
		if cp && abs64(st.Score) >= j.a.ResignScore || mate {
			j.resign2++
		} else {
			j.resign2 = 0
		}
	} else if cp && st.Score <= -j.a.ResignScore || mate && st.Score < 0 {
		j.resign[side]++
	} else {
		j.resign[side] = 0
	}
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// verdict is checked before each move, after the rules' own end: the outcome and the
// termination when a rule ends the game (Ongoing otherwise). last is the side that made the
// last move and st its statistics.
func (j *adjudicator) verdict(b Board, last Color, st SearchStats) (Outcome, string) {
	if j.a.ResignMoves > 0 && j.plies > 0 {
		resignable := j.resign[0] >= j.a.ResignMoves || j.resign[1] >= j.a.ResignMoves
		if j.a.ResignTwoSided {
			resignable = j.resign2 >= 2*j.a.ResignMoves
		}
		if resignable && !st.NoScore && st.Score < 0 {
			if last == Black {
				return WhiteWins, TermResign
			}
			return BlackWins, TermResign
		}
	}
	if j.a.DrawMoves > 0 {
		moveNumber := (b.Ply() + 1) / 2 // full moves made, for boards without FEN numbers
		if hc, ok := b.(HalfMoveClocker); ok {
			moveNumber = hc.FullMoveNumber() - 1
		}
		if moveNumber >= j.a.DrawMoveNumber && j.draw >= 2*j.a.DrawMoves {
			return Draw, TermDrawAdjudicated
		}
	}
	if j.a.MaxMoves > 0 && j.plies >= 2*j.a.MaxMoves {
		return Draw, TermMaxMoves
	}
	return Ongoing, ""
}

// Terminations the referee gives (GameRecord.Termination) beside a board's own
// (Terminator: "checkmate", "stalemate", …).
const (
	// TermResign: the resign adjudication ended the game.
	TermResign = "adjudication: resign"
	// TermDrawAdjudicated: the draw adjudication ended the game.
	TermDrawAdjudicated = "adjudication: draw"
	// TermMaxMoves: the maximum number of moves was reached.
	TermMaxMoves = "adjudication: max moves"
	// TermPlyLimit: RefereeOptions.MaxPlies was reached.
	TermPlyLimit = "ply limit"
	// TermTimeLoss: a clock ran out (TimeControl, or an engine's move or game time).
	TermTimeLoss = "time forfeit"
	// TermIllegalMove: a player's move was not legal.
	TermIllegalMove = "illegal move"
	// TermForfeit: a player failed otherwise (a crash, no move, a protocol violation).
	TermForfeit = "forfeit"
	// TermNormal: the game ended by its rules, on a board that does not say how.
	TermNormal = "normal"
)

// Terminator is implemented by boards that say how a finished game ended by the rules
// ("checkmate", "threefold repetition", …); "" while it goes on.
type Terminator interface {
	Termination() string
}
