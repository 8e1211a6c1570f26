package engine

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// TimeControl is a chess clock as tournament managers keep it: Base for Moves moves (0 = the
// whole game), then Base again for the next Moves; Inc added after every move (Fischer).
// Margin is how far past zero a clock may run before the move is a time loss (fastchess's
// timemargin); an answer later than that loses.
type TimeControl struct {
	Moves  int           `json:"moves,omitempty"`
	Base   time.Duration `json:"base_ns"`
	Inc    time.Duration `json:"inc_ns,omitempty"`
	Margin time.Duration `json:"margin_ns,omitempty"`
}

// ParseTimeControl reads a time control as the chess world writes it (cutechess-cli's and
// fastchess's tc): "10+0.1" (10 s and 0.1 s a move), "40/60+0.6" (60 s for every 40 moves,
// 0.6 s a move), "60" or "1:30+1" (minutes:seconds). The error names the part that is wrong.
func ParseTimeControl(s string) (TimeControl, error) {
	var tc TimeControl
	rest := strings.TrimSpace(s)
	if m, r, ok := strings.Cut(rest, "/"); ok {
		n, err := strconv.Atoi(m)
		if err != nil || n < 1 || n > 1000 {
			return tc, fmt.Errorf("time control %q: %q before '/' is not a number of moves (1–1000)", s, m)
		}
		tc.Moves, rest = n, r
	}
	base, inc, hasInc := strings.Cut(rest, "+")
	var err error
	if tc.Base, err = parseSeconds(base); err != nil {
		return tc, fmt.Errorf("time control %q: base time: %v", s, err)
	}
	if hasInc {
		if tc.Inc, err = parseSeconds(inc); err != nil {
			return tc, fmt.Errorf("time control %q: increment: %v", s, err)
		}
	}
	if tc.Base+tc.Inc <= 0 {
		return tc, fmt.Errorf("time control %q: no time at all", s)
	}
	return tc, nil
}

// parseSeconds reads "12.5" (seconds) or "1:30" (minutes:seconds) as a duration of at most
// a day.
func parseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	min := 0.0
	if m, sec, ok := strings.Cut(s, ":"); ok {
		v, err := strconv.ParseFloat(m, 64)
		if err != nil || v < 0 || v != math.Trunc(v) {
			return 0, fmt.Errorf("%q: minutes are not a whole number", s)
		}
		min, s = v, sec
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < 0 {
		return 0, fmt.Errorf("%q is not a number of seconds", s)
	}
	v += 60 * min
	if v > 86400 {
		return 0, fmt.Errorf("%q: more than a day", s)
	}
	return time.Duration(math.Round(v * 1e9)), nil
}

// String writes the time control as PGN's TimeControl tag and ParseTimeControl read it:
// "40/60+0.6", "10+0.1", "60".
func (tc TimeControl) String() string {
	s := strconv.FormatFloat(tc.Base.Seconds(), 'f', -1, 64)
	if tc.Moves > 0 {
		s = strconv.Itoa(tc.Moves) + "/" + s
	}
	if tc.Inc > 0 {
		s += "+" + strconv.FormatFloat(tc.Inc.Seconds(), 'f', -1, 64)
	}
	return s
}

// Clock is one side's clock during a game: the time left and, under a moves-per-period
// control, the moves left in the period.
type Clock struct {
	Left      time.Duration
	MovesLeft int
}

// clockOverrun is fastchess's extra wait beyond a clock's margin before it stops listening
// (its TimeControl::MARGIN): an answer after that is not awaited, whatever it would be.
const clockOverrun = 100 * time.Millisecond

// NewClock is a clock at the start of a game: Base plus one increment, as fastchess starts
// its clocks.
func (tc TimeControl) NewClock() Clock { return Clock{Left: tc.Base + tc.Inc, MovesLeft: tc.Moves} }

// Deadline is how long the side may take for its next move before the referee stops
// waiting: the time left, the margin and a tenth of a second.
func (tc TimeControl) Deadline(c Clock) time.Duration { return c.Left + tc.Margin + clockOverrun }

// Spend charges a move that took elapsed to c, as fastchess's TimeControl::updateTime: a new
// period's Base when the period's last move is made, the time taken, and the increment. It
// reports false (a time loss) when the clock ran more than Margin past zero.
func (tc TimeControl) Spend(c *Clock, elapsed time.Duration) bool {
	if tc.Moves > 0 {
		if c.MovesLeft == 1 {
			c.MovesLeft = tc.Moves
			c.Left += tc.Base
		} else {
			c.MovesLeft--
		}
	}
	c.Left -= elapsed
	if c.Left < -tc.Margin {
		return false
	}
	c.Left = max(c.Left, 0)
	c.Left += tc.Inc
	return true
}

// Clocked is implemented by players that are told the clocks before each move (an external
// engine under UCI's go wtime btime …): own is the mover's, opp the other side's.
type Clocked interface {
	SetClocks(tc TimeControl, own, opp Clock)
}

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

// ColourNamer is implemented by games whose sides are not called black and white in that
// order: ColourNames names the first mover, then the second (chess: "white", "black").
type ColourNamer interface {
	ColourNames() [2]string
}

// ColourName is c's name in g: ColourNames where g has its own, else c.String().
func ColourName(g Game, c Color) string {
	if n, ok := g.(ColourNamer); ok {
		return n.ColourNames()[c]
	}
	return c.String()
}

// PGNGame is a game as a PGN record holds it: the Seven Tag Roster's values, the moves in
// the game's notation (the opening's included), the players' statistics of the moves from
// StatsFrom on (GameRecord.Stats), and how it ended.
type PGNGame struct {
	Event, Site, Date, Round string
	White, Black             string
	// Result is "1-0", "0-1" or "1/2-1/2".
	Result string
	Moves  []string
	// StatsFrom is the index in Moves of the first move Stats describe (the opening's
	// length); moves before it are marked as the book's.
	StatsFrom   int
	Stats       []MoveStat
	Termination string
	TimeControl string
	// Comment is written after the last move (e.g. a forfeit's reason).
	Comment string
}

// PGNWriter is implemented by games recorded as PGN (chess): PGN writes one game; the error
// names a move that is not legal.
type PGNWriter interface {
	PGN(g PGNGame) ([]byte, error)
}

// BookReader is implemented by games with opening books of their own formats (chess: EPD
// and PGN): ReadBook reads the file name's data into openings (moves in the game's
// notation), each cut to plies plies (0 = whole) where the format holds games. Errors name
// the file and line.
type BookReader interface {
	ReadBook(name string, data []byte, plies int) ([][]string, error)
}

// Pictured is implemented by boards that draw themselves for a viewer (the dashboard):
// Picture gives the rows from the top, one character a square, '.' for an empty one and
// the game's own letters for pieces (chess: FEN's KQRBNP for White, kqrbnp for Black); the
// pieces stand on squares. FEN is the position as its community writes it.
type Pictured interface {
	Picture() []string
	FEN() string
}
