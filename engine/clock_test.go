package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"evotune/engine"
	"evotune/engine/chess"
)

func TestParseTimeControl(t *testing.T) {
	for _, c := range []struct {
		in   string
		want engine.TimeControl
		str  string
	}{
		{"10+0.1", engine.TimeControl{Base: 10 * time.Second, Inc: 100 * time.Millisecond}, "10+0.1"},
		{"40/60+0.6", engine.TimeControl{Moves: 40, Base: time.Minute, Inc: 600 * time.Millisecond}, "40/60+0.6"},
		{"60", engine.TimeControl{Base: time.Minute}, "60"},
		{"1:30+1", engine.TimeControl{Base: 90 * time.Second, Inc: time.Second}, "90+1"},
		{"0+0.05", engine.TimeControl{Inc: 50 * time.Millisecond}, "0+0.05"},
	} {
		got, err := engine.ParseTimeControl(c.in)
		if err != nil || got != c.want || got.String() != c.str {
			t.Errorf("%q: %+v %q (%v), want %+v %q", c.in, got, got.String(), err, c.want, c.str)
		}
	}
	for _, bad := range []string{"", "0", "x+1", "10+y", "0/10", "-5+1", "40/", "100000"} {
		if _, err := engine.ParseTimeControl(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestClockSpend follows fastchess's updateTime: the increment is on the clock from the
// start, a period's base comes back after its last move, and only a clock past −margin loses.
func TestClockSpend(t *testing.T) {
	tc := engine.TimeControl{Moves: 2, Base: time.Second, Inc: 100 * time.Millisecond, Margin: 50 * time.Millisecond}
	c := tc.NewClock()
	if c.Left != 1100*time.Millisecond || c.MovesLeft != 2 {
		t.Fatalf("new clock %+v", c)
	}
	steps := []struct {
		took time.Duration
		left time.Duration
		ok   bool
	}{
		{600 * time.Millisecond, 600 * time.Millisecond, true},  // 1100−600+100
		{500 * time.Millisecond, 1200 * time.Millisecond, true}, // last move of the period: +1 s
		{1230 * time.Millisecond, 100 * time.Millisecond, true}, // 30 ms over, within the margin: 0 + inc
		{600 * time.Millisecond, 600 * time.Millisecond, true},  // 100 + 1000 (a new period) − 600 + 100
		{751 * time.Millisecond, 0, false},                      // 151 ms over: lost
	}
	for i, s := range steps {
		ok := tc.Spend(&c, s.took)
		if ok != s.ok || ok && c.Left != s.left {
			t.Errorf("move %d: ok %v left %v, want %v %v", i+1, ok, c.Left, s.ok, s.left)
		}
	}
}

// scripted plays fixed moves with fixed scores and thinking times.
type scripted struct {
	moves  []string
	scores []int64
	think  time.Duration
	i      int
	clocks []engine.Clock
}

func (s *scripted) Move(_ context.Context, b engine.Board) (string, engine.SearchStats, error) {
	if s.i >= len(s.moves) {
		return "", engine.SearchStats{}, errors.New("out of moves")
	}
	m, sc := s.moves[s.i], s.scores[s.i]
	s.i++
	return m, engine.SearchStats{Score: sc, Elapsed: s.think, NoScore: sc == noScore}, nil
}

func (s *scripted) SetClocks(_ engine.TimeControl, own, _ engine.Clock) {
	s.clocks = append(s.clocks, own)
}

const noScore = -1 << 40

// The knights tour squares they never come back to: no capture, no pawn move, no check and
// no position twice, for 24 plies.
var whiteKnight = []string{"g1f3", "b1c3", "f3g5", "c3b5", "g5h3", "b5a3", "h3f4", "a3c4", "f4d3", "c4e5", "d3b4", "e5g4"}
var blackKnight = []string{"g8f6", "b8c6", "f6g4", "c6b4", "g4h6", "b4a6", "h6f5", "a6c5", "f5d6", "c5e4", "d6b5", "e4g5"}

func adjudicate(t *testing.T, a engine.Adjudication, white, black []int64) engine.GameRecord {
	t.Helper()
	b, _ := chess.Game{}.NewBoard(0)
	rec, err := engine.PlayGame(context.Background(), b, &scripted{moves: whiteKnight, scores: white},
		&scripted{moves: blackKnight, scores: black}, engine.RefereeOptions{Adjudicate: a, Forfeit: true})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func repeat(x int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = x
	}
	return out
}

func TestAdjudication(t *testing.T) {
	// Black's score at or below −600 for 3 of its moves, then below zero: Black loses before
	// White's 4th move, after 6 plies.
	rec := adjudicate(t, engine.Adjudication{ResignMoves: 3, ResignScore: 600}, repeat(50, 12), repeat(-700, 12))
	if rec.Outcome != engine.BlackWins || rec.Termination != engine.TermResign || rec.Plies != 6 {
		t.Errorf("resign: %v %q after %d plies, want White (first mover) wins by resign after 6", rec.Outcome, rec.Termination, rec.Plies)
	}
	// A move without a score breaks the run.
	broken := repeat(-700, 12)
	broken[1] = noScore
	rec = adjudicate(t, engine.Adjudication{ResignMoves: 3, ResignScore: 600}, repeat(50, 12), broken)
	if rec.Termination != engine.TermResign || rec.Plies != 10 {
		t.Errorf("resign after a scoreless move: %q after %d plies, want resign after 10", rec.Termination, rec.Plies)
	}
	// Both within ±20 for 4 moves each from move 2 on: a draw after 8 plies.
	rec = adjudicate(t, engine.Adjudication{DrawMoveNumber: 2, DrawMoves: 4, DrawScore: 20}, repeat(10, 12), repeat(-15, 12))
	if rec.Outcome != engine.Draw || rec.Termination != engine.TermDrawAdjudicated || rec.Plies != 8 {
		t.Errorf("draw: %v %q after %d plies, want a draw by adjudication after 8", rec.Outcome, rec.Termination, rec.Plies)
	}
	// Not before move 6 (full moves made ≥ 6 needs 12 plies).
	rec = adjudicate(t, engine.Adjudication{DrawMoveNumber: 6, DrawMoves: 4, DrawScore: 20}, repeat(10, 12), repeat(-15, 12))
	if rec.Termination == engine.TermDrawAdjudicated && rec.Plies < 12 {
		t.Errorf("draw adjudicated after %d plies, before move 6", rec.Plies)
	}
	// A score outside ±20 restarts the count.
	w := repeat(10, 12)
	w[2] = 80
	rec = adjudicate(t, engine.Adjudication{DrawMoves: 4, DrawScore: 20}, w, repeat(0, 12))
	if rec.Termination != engine.TermDrawAdjudicated || rec.Plies != 13 {
		t.Errorf("draw after a score outside the window: %q after %d plies, want 13", rec.Termination, rec.Plies)
	}
	rec = adjudicate(t, engine.Adjudication{MaxMoves: 3}, repeat(0, 12), repeat(0, 12))
	if rec.Termination != engine.TermMaxMoves || rec.Plies != 6 || rec.Outcome != engine.Draw {
		t.Errorf("max moves: %q after %d plies", rec.Termination, rec.Plies)
	}
}

func TestParseAdjudication(t *testing.T) {
	var a engine.Adjudication
	if err := a.ParseResign("movecount=3,score=600"); err != nil || a.ResignMoves != 3 || a.ResignScore != 600 {
		t.Errorf("resign: %+v %v", a, err)
	}
	if err := a.ParseDraw("movenumber=34,movecount=8,score=20"); err != nil || a.DrawMoveNumber != 34 || a.DrawMoves != 8 || a.DrawScore != 20 {
		t.Errorf("draw: %+v %v", a, err)
	}
	for _, bad := range []string{"movecount=3", "score=x,movecount=3", "moves=3,score=600", "movecount=0,score=600"} {
		if err := new(engine.Adjudication).ParseResign(bad); err == nil {
			t.Errorf("resign %q accepted", bad)
		}
	}
}

// TestClockLoss: a player that thinks past its clock loses on time; a Clocked player is told
// its clock before each move.
func TestClockLoss(t *testing.T) {
	b, _ := chess.Game{}.NewBoard(0)
	tc := engine.TimeControl{Base: 250 * time.Millisecond, Inc: 10 * time.Millisecond}
	white := &scripted{moves: whiteKnight, scores: repeat(0, 12), think: 100 * time.Millisecond}
	black := &scripted{moves: blackKnight, scores: repeat(0, 12), think: time.Millisecond}
	rec, err := engine.PlayGame(context.Background(), b, white, black, engine.RefereeOptions{TimeControl: &tc, Forfeit: true})
	if err != nil {
		t.Fatal(err)
	}
	// 260 → 170 → 80 → −20: the third move runs out.
	if rec.Outcome != engine.WhiteWins || rec.Termination != engine.TermTimeLoss || len(white.clocks) != 3 ||
		white.clocks[1].Left != 170*time.Millisecond || !strings.Contains(rec.Forfeit, "time loss") {
		t.Errorf("%v %q %q, clocks %v", rec.Outcome, rec.Termination, rec.Forfeit, white.clocks)
	}
}

// TestSideClocks: each side may play under a control of its own (a tournament engine's
// tc=): the second mover's short clock runs out while the first mover's long one does not,
// and each is told its own clock with its own increment.
func TestSideClocks(t *testing.T) {
	b, _ := chess.Game{}.NewBoard(0)
	long := engine.TimeControl{Base: 10 * time.Second, Inc: time.Second}
	short := engine.TimeControl{Base: 250 * time.Millisecond, Inc: 10 * time.Millisecond}
	first := &scripted{moves: whiteKnight, scores: repeat(0, 12), think: 100 * time.Millisecond}
	second := &scripted{moves: blackKnight, scores: repeat(0, 12), think: 100 * time.Millisecond}
	rec, err := engine.PlayGame(context.Background(), b, first, second, engine.RefereeOptions{TimeControl: &long,
		SideTimeControl: [2]*engine.TimeControl{engine.White: &short}, Forfeit: true})
	if err != nil {
		t.Fatal(err)
	}
	// The second mover: 260 → 170 → 80 → −20, out on its third move; the first mover has
	// 11 s, 1 s more after each move.
	if rec.Outcome != engine.BlackWins || rec.Termination != engine.TermTimeLoss || len(second.clocks) != 3 ||
		second.clocks[1].Left != 170*time.Millisecond || second.clocks[0].Inc != 10*time.Millisecond {
		t.Errorf("%v %q %q, the second mover's clocks %v", rec.Outcome, rec.Termination, rec.Forfeit, second.clocks)
	}
	if len(first.clocks) != 3 || first.clocks[0].Left != 11*time.Second || first.clocks[1].Left != 11900*time.Millisecond || first.clocks[0].Inc != time.Second {
		t.Errorf("the first mover's clocks %v", first.clocks)
	}
}
