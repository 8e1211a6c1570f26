package amazons

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"evotune/engine"
	"evotune/engine/search"
)

// Name is the registry name of the game.
const Name = "amazons"

// Weight bounds.
const (
	MaxA      = 1000
	MaxB      = 100
	MaxSwitch = 200
	MaxEqual  = 2
	// MaxNoBorderTurns bounds Weights.NoBorderTurns.
	MaxNoBorderTurns = 50
)

// Weights are the coefficients of §4 of 004_5fa71e7c84b0e80d.txt:
// k_i(t) = A[i] + B[i]·t for turn t < SwitchTurn (i = 1..5 for tq, tk, p1, p2, mobility);
// from SwitchTurn on k1 = LateK1 and k2…k5 = 0. Equal is the territory credit of a square
// both sides reach equally fast. JSON: {"a": [5], "b": [5], "switch_turn": 17,
// "late_k1": 5, "equal": 0.5}; all these keys are required. Bounds: |a| ≤ 1000,
// |b| ≤ 100, switch_turn an integer in [1, 200], |late_k1| ≤ 1000, |equal| ≤ 2.
//
// NoBorderTurns (optional key "no_border_turns", default 0, an integer in [0, 50]) is the
// paper's practical rule (§4, last paragraph: its engine forbade amazons to move to the
// border in the first few turns): in the side's turns 1…NoBorderTurns the engine does not
// move an amazon onto an edge square unless it has no other move. It is not a gene.
type Weights struct {
	A          []float64 `json:"a"`
	B          []float64 `json:"b"`
	SwitchTurn float64   `json:"switch_turn"`
	LateK1     float64   `json:"late_k1"`
	Equal      float64   `json:"equal"`
	// NoBorderTurns: see the type's doc; 0 = off.
	NoBorderTurns float64 `json:"no_border_turns,omitempty"`
}

// DefaultWeights returns the paper's fit: a = (64, 32, 32, 64, 16),
// b = (−2, −0.9, −0.9, −2, −0.45), switch at turn 17, late k1 = 5, equal = 0.5.
func DefaultWeights() *Weights {
	return &Weights{
		A:          []float64{64, 32, 32, 64, 16},
		B:          []float64{-2, -0.9, -0.9, -2, -0.45},
		SwitchTurn: 17, LateK1: 5, Equal: 0.5,
	}
}

// Game returns "amazons".
func (w *Weights) Game() string { return Name }

// Validate checks lengths and bounds; the error names the field.
func (w *Weights) Validate() error {
	if err := engine.CheckVector("a", w.A, 5, -MaxA, MaxA); err != nil {
		return err
	}
	if err := engine.CheckVector("b", w.B, 5, -MaxB, MaxB); err != nil {
		return err
	}
	if err := engine.CheckValue("switch_turn", w.SwitchTurn, 1, MaxSwitch); err != nil {
		return err
	}
	if w.SwitchTurn != math.Trunc(w.SwitchTurn) {
		return fmt.Errorf("switch_turn: %g is not a whole turn number", w.SwitchTurn)
	}
	if err := engine.CheckValue("late_k1", w.LateK1, -MaxA, MaxA); err != nil {
		return err
	}
	if err := engine.CheckValue("equal", w.Equal, -MaxEqual, MaxEqual); err != nil {
		return err
	}
	if err := engine.CheckValue("no_border_turns", w.NoBorderTurns, 0, MaxNoBorderTurns); err != nil {
		return err
	}
	if w.NoBorderTurns != math.Trunc(w.NoBorderTurns) {
		return fmt.Errorf("no_border_turns: %g is not a whole number of turns", w.NoBorderTurns)
	}
	return nil
}

// Tables converts the weights for the evaluation.
func (w *Weights) Tables() *Tables {
	t := &Tables{Switch: int(w.SwitchTurn), LateK1: w.LateK1, Equal: w.Equal, NoBorderTurns: int(w.NoBorderTurns)}
	copy(t.A[:], w.A)
	copy(t.B[:], w.B)
	return t
}

// Game implements engine.Game for the Amazons.
type Game struct{}

// Name returns "amazons".
func (Game) Name() string { return Name }

// OnSquares implements engine.OnSquares: amazons and arrows stand on squares.
func (Game) OnSquares() {}

// NewBoard returns the start position; size 0 means 10.
func (Game) NewBoard(size int) (engine.Board, error) {
	if size == 0 {
		size = 10
	}
	p, err := NewPosition(size, nil)
	if err != nil {
		return nil, err
	}
	return &Board{engine.PositionBoard[*Position, Move]{Pos: p}}, nil
}

// DefaultWeights returns the paper's fit.
func (Game) DefaultWeights() engine.Weights { return DefaultWeights() }

// DecodeWeights strictly decodes the weights object; every key is required.
func (Game) DecodeWeights(raw json.RawMessage) (engine.Weights, error) {
	var d struct {
		A          []float64 `json:"a"`
		B          []float64 `json:"b"`
		SwitchTurn *float64  `json:"switch_turn"`
		LateK1     *float64  `json:"late_k1"`
		Equal      *float64  `json:"equal"`
		NoBorder   float64   `json:"no_border_turns"`
	}
	if err := engine.DecodeStrict(raw, &d); err != nil {
		return nil, err
	}
	switch {
	case d.A == nil:
		return nil, errors.New("a: missing")
	case d.B == nil:
		return nil, errors.New("b: missing")
	case d.SwitchTurn == nil:
		return nil, errors.New("switch_turn: missing")
	case d.LateK1 == nil:
		return nil, errors.New("late_k1: missing")
	case d.Equal == nil:
		return nil, errors.New("equal: missing")
	}
	w := &Weights{A: d.A, B: d.B, SwitchTurn: *d.SwitchTurn, LateK1: *d.LateK1, Equal: *d.Equal, NoBorderTurns: d.NoBorder}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w, nil
}

// DefaultLimits is depth 2, width 10.
func (Game) DefaultLimits() engine.Limits { return engine.Limits{Depth: 2, Width: 10} }

// NewPlayer returns an alpha-beta player with a 2^14-entry transposition table. The error
// names weights of another game, invalid weights or invalid limits.
func (Game) NewPlayer(w engine.Weights, lim engine.Limits) (engine.Player, error) {
	pl, err := search.NewPlayer(rules, w, lim)
	if err != nil {
		return nil, err
	}
	return pl, nil
}

// Player is a width-limited alpha-beta Amazons player: the player all games share, under
// the Amazons' rules.
type Player = search.Player[*Position, Move, *Tables]

// rules are what the Amazons tell search.Player: the weights' coefficient tables, and a
// search of a copy of the board's position evaluated with them.
var rules = search.Rules[*Position, Move, *Tables]{
	Game: Name, Defaults: Game{}.DefaultLimits(), TTBits: 14,
	Tables: search.WeightsTables[*Weights, *Tables](Name),
	Root: func(pos *Position, t *Tables, _ *Position) *Position {
		q := pos.Clone()
		q.tab = t
		return q
	},
}

// RandomMove returns a uniformly chosen legal move, or "" if there is none.
func (Game) RandomMove(b engine.Board, rng *rand.Rand) string {
	p := b.(*Board).Pos
	moves := p.AppendMoves(nil)
	if len(moves) == 0 {
		return ""
	}
	return p.MoveString(moves[rng.IntN(len(moves))])
}

// Board is the engine.Board of the Amazons.
type Board struct {
	engine.PositionBoard[*Position, Move] // the position and the moves played
}

// Game returns "amazons".
func (b *Board) Game() string { return Name }

// Clone returns an independent copy.
func (b *Board) Clone() engine.Board {
	return &Board{engine.PositionBoard[*Position, Move]{Pos: b.Pos.Clone(), MoveLog: b.CloneLog()}}
}

// Outcome reports a side to move that cannot move (it loses).
func (b *Board) Outcome() engine.Outcome {
	if b.Pos.HasMove() {
		return engine.Ongoing
	}
	if b.Pos.stm == engine.Black {
		return engine.WhiteWins
	}
	return engine.BlackWins
}

// Perft counts the legal move tree of b to depth plies.
func (Game) Perft(b engine.Board, depth int) int64 {
	return b.(*Board).Pos.Clone().Perft(depth)
}

// BenchSuite is four positions (start, after 2, 6 and 12 plies of a fixed game, on 10×10
// and 8×8) searched at depth 2, width 10.
func (Game) BenchSuite() ([]engine.BenchPosition, engine.Limits) {
	// The first 12 plies of evotune's own depth-2, width-10 self-play with the paper's weights.
	game := []string{"a7-c7/a5", "a4-c4/c6", "d10-e9/e1", "d1-g4/i6", "j7-f7/h5", "g1-h2/d6",
		"g10-i8/d3", "j4-g7/j7", "c7-c8/h8", "c4-b3/b7", "i8-e4/b4", "g7-g8/e8"}
	return []engine.BenchPosition{
		{Name: "start", Size: 10},
		{Name: "ply2", Size: 10, Moves: game[:2]},
		{Name: "ply6", Size: 10, Moves: game[:6]},
		{Name: "ply12", Size: 10, Moves: game},
		{Name: "8x8-start", Size: 8},
	}, engine.Limits{Depth: 2, Width: 10}
}

// RandomOpening is two uniformly random legal moves (one for each side).
func (g Game) RandomOpening(b engine.Board, rng *rand.Rand) []string {
	c := b.Clone()
	var out []string
	for i := 0; i < 2; i++ {
		m := g.RandomMove(c, rng)
		if m == "" || c.Play(m) != nil {
			break
		}
		out = append(out, m)
	}
	return out
}

// BotzoneFields returns 6: a Botzone Amazons move is "x0 y0 x1 y1 x2 y2" (from, to, arrow;
// x the column from the left, y the row from the top, from 0). It makes Board a
// botzone.Board.
func (b *Board) BotzoneFields() int { return 6 }

// BotzoneMove writes move m ("d1-d7/g7") as Botzone's six numbers; the error names a move
// that does not parse.
func (b *Board) BotzoneMove(m string) (string, error) {
	mv, err := b.Pos.ParseMove(m)
	if err != nil {
		return "", err
	}
	return b.Pos.BotzoneString(mv), nil
}

// ParseBotzoneMove reads Botzone's six numbers as a move in evotune's notation
// ("d1-d7/g7"). It checks syntax and range only; Play checks the rules. The error names
// the text.
func (b *Board) ParseBotzoneMove(s string) (string, error) {
	if len(strings.Fields(s)) != 6 {
		return "", fmt.Errorf("move %q: want six numbers x0 y0 x1 y1 x2 y2", s)
	}
	mv, err := b.Pos.ParseMove(s)
	if err != nil {
		return "", err
	}
	return b.Pos.MoveString(mv), nil
}
