package gomoku

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"evotune/engine"
	"evotune/engine/search"
)

// Name is the registry name of the game.
const Name = "gomoku"

// Bounds of the weights.
const (
	MaxPatternScore = 1e7
	MaxStyle        = 100
)

// Weights are the pattern scores of Table 1 and the style factors of §2 of
// 001_4cd63e63655ef194.txt: Value = K1·Value_me − K2·Value_enemy (K1/K2 large =
// attacking, small = defensive). In JSON every pattern is a key named as in PatternNames,
// plus "k1" and "k2"; all 15 keys are required. Scores lie in [0, 1e7], K1 and K2 in
// [0, 100]; scores are rounded to integers.
type Weights struct {
	Scores [NumPatterns]float64
	K1, K2 float64
}

// DefaultWeights returns Table 1 with K1 = K2 = 1.
func DefaultWeights() *Weights {
	return &Weights{
		Scores: [NumPatterns]float64{300000, 2500, 3000, 2600, 3000, 500, 800, 600, 550, 650, 150, 250, 200},
		K1:     1, K2: 1,
	}
}

// Game returns "gomoku".
func (w *Weights) Game() string { return Name }

// Validate checks every score and the style factors.
func (w *Weights) Validate() error {
	for i, s := range w.Scores {
		if err := engine.CheckValue(PatternNames[i], s, 0, MaxPatternScore); err != nil {
			return err
		}
	}
	if err := engine.CheckValue("k1", w.K1, 0, MaxStyle); err != nil {
		return err
	}
	return engine.CheckValue("k2", w.K2, 0, MaxStyle)
}

// MarshalJSON writes the named object, patterns in Table 1 order, then k1 and k2.
func (w *Weights) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, s := range w.Scores {
		fmt.Fprintf(&b, "%q:%s,", PatternNames[i], num(s))
	}
	fmt.Fprintf(&b, "\"k1\":%s,\"k2\":%s}", num(w.K1), num(w.K2))
	return b.Bytes(), nil
}

func num(x float64) string {
	out, _ := json.Marshal(x)
	return string(out)
}

// UnmarshalJSON reads the named object; every key is required and no other is allowed.
func (w *Weights) UnmarshalJSON(data []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(data, &m); err != nil {
		return errors.New("want an object of numbers keyed by pattern name, k1 and k2")
	}
	if err := engine.CheckDuplicateKeys(data); err != nil {
		return err
	}
	for k := range m {
		if indexOf(k) < 0 && k != "k1" && k != "k2" {
			return fmt.Errorf("%s: unknown key", k)
		}
	}
	for i, name := range PatternNames {
		v, ok := m[name]
		if !ok {
			return fmt.Errorf("%s: missing", name)
		}
		w.Scores[i] = v
	}
	var ok bool
	if w.K1, ok = m["k1"]; !ok {
		return errors.New("k1: missing")
	}
	if w.K2, ok = m["k2"]; !ok {
		return errors.New("k2: missing")
	}
	return nil
}

func indexOf(name string) int {
	for i, n := range PatternNames {
		if n == name {
			return i
		}
	}
	return -1
}

// Tables rounds the scores to integers.
func (w *Weights) Tables() *Tables {
	t := &Tables{K1: w.K1, K2: w.K2}
	for i, s := range w.Scores {
		t.Score[i] = int64(math.Round(s))
	}
	return t
}

// Game implements engine.Game for Gomoku with a rule; the zero value is freestyle.
type Game struct {
	Rule Rule
}

// Name returns "gomoku".
func (Game) Name() string { return Name }

// NewBoard returns the empty board; size 0 means 15.
func (g Game) NewBoard(size int) (engine.Board, error) {
	if size == 0 {
		size = DefaultSize
	}
	p, err := NewPosition(size, g.Rule, nil)
	if err != nil {
		return nil, err
	}
	return &Board{PositionBoard: engine.PositionBoard[*Position, Move]{Pos: p}}, nil
}

// DefaultWeights returns Table 1 with K1 = K2 = 1.
func (Game) DefaultWeights() engine.Weights { return DefaultWeights() }

// DecodeWeights strictly decodes the named weights object.
func (Game) DecodeWeights(raw json.RawMessage) (engine.Weights, error) {
	var w Weights
	if err := w.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return &w, nil
}

// DefaultLimits is depth 3 (the paper's default, §1.2) with width 12.
func (Game) DefaultLimits() engine.Limits { return engine.Limits{Depth: 3, Width: 12} }

// NewPlayer returns a negamax alpha-beta player with a 2^16-entry transposition table. The
// error names weights of another game, invalid weights or invalid limits.
func (Game) NewPlayer(w engine.Weights, lim engine.Limits) (engine.Player, error) {
	pl, err := search.NewPlayer(rules, w, lim)
	if err != nil {
		return nil, err
	}
	return pl, nil
}

// Player is a negamax alpha-beta Gomoku player with its own transposition table: the
// player all games share, under Gomoku's rules.
type Player = search.Player[*Position, Move, *Tables]

// rules are what Gomoku tells search.Player: the weights' pattern tables, and a search of a
// copy of the board's position scored with them.
var rules = search.Rules[*Position, Move, *Tables]{
	Game: Name, Defaults: Game{}.DefaultLimits(), TTBits: 16,
	Tables: search.WeightsTables[*Weights, *Tables](Name),
	Root: func(pos *Position, t *Tables, _ *Position) *Position {
		q := pos.Clone()
		q.SetTables(t)
		return q
	},
}

// RandomMove returns a uniformly chosen empty point.
func (Game) RandomMove(b engine.Board, rng *rand.Rand) string {
	p := b.(*Board).Pos
	if o := b.Outcome(); o != engine.Ongoing {
		return ""
	}
	var empty []Move
	for m := range p.cells {
		if p.cells[m] == 0 {
			empty = append(empty, Move(m))
		}
	}
	return p.MoveString(empty[rng.IntN(len(empty))])
}

// Board is the engine.Board of Gomoku.
type Board struct {
	engine.PositionBoard[*Position, Move]      // the position and the moves played
	foul                                  bool // renju: Black played a forbidden move and lost
}

// Game returns "gomoku".
func (b *Board) Game() string { return Name }

// Clone returns an independent copy.
func (b *Board) Clone() engine.Board {
	return &Board{PositionBoard: engine.PositionBoard[*Position, Move]{Pos: b.Pos.Clone(), MoveLog: b.CloneLog()}, foul: b.foul}
}

// Play parses and plays a move; the board is unchanged on error.
func (b *Board) Play(s string) error {
	m, err := b.Pos.ParseMove(s)
	if err != nil {
		return err
	}
	if b.foul {
		return fmt.Errorf("move %s: the game is over (Black played a forbidden move)", b.Pos.MoveString(m))
	}
	if err := b.Pos.Legal(m); err != nil {
		return err
	}
	foul := b.Pos.rule == Renju && b.Pos.stm == engine.Black && b.Pos.Forbidden(m)
	b.Pos.Make(m)
	b.Record(s)
	b.foul = foul
	return nil
}

// Forfeit reports whether the game ended by Black's forbidden move (renju), which loses.
func (b *Board) Forfeit() bool { return b.foul }

// Outcome reports five in a row, Black's forbidden move under renju (White wins) or a full
// board.
func (b *Board) Outcome() engine.Outcome {
	if b.foul {
		return engine.WhiteWins
	}
	if c, ok := b.Pos.Winner(); ok {
		if c == engine.Black {
			return engine.BlackWins
		}
		return engine.WhiteWins
	}
	if b.Pos.Full() {
		return engine.Draw
	}
	return engine.Ongoing
}

// Perft counts the legal move tree of b to depth plies: every empty point is a move; under
// renju a forbidden move of Black's is a move that ends the game (Black loses: Board.Play),
// so it has no children.
func (Game) Perft(b engine.Board, depth int) int64 {
	return perft(b.(*Board).Pos.Clone(), depth)
}

func perft(p *Position, depth int) int64 {
	if depth == 0 {
		return 1
	}
	if over, _ := p.Terminal(); over {
		return 0
	}
	var n int64
	for m := range p.cells {
		if p.cells[m] != 0 {
			continue
		}
		if depth == 1 {
			n++
			continue
		}
		if p.rule == Renju && p.stm == engine.Black && p.Forbidden(Move(m)) {
			continue // a foul: the game is over
		}
		p.Make(Move(m))
		n += perft(p, depth-1)
		p.Unmake(Move(m))
	}
	return n
}

// BenchSuite is five middle-game positions of 4 to 13 stones searched at depth 6 with no
// width limit.
func (Game) BenchSuite() ([]engine.BenchPosition, engine.Limits) {
	return []engine.BenchPosition{
		{Name: "open4", Moves: []string{"h8", "i9", "h10", "g9"}},
		{Name: "cross7", Moves: []string{"h8", "h9", "h10", "i9", "g9", "j9", "i10"}},
		{Name: "diag9", Moves: []string{"h8", "i7", "i9", "g9", "j10", "k11", "g7", "h7", "j7"}},
		{Name: "mid11", Moves: []string{"h8", "i8", "g9", "i10", "i9", "j9", "g7", "g8", "f10", "e11", "h10"}},
		{Name: "mid13", Moves: []string{"h8", "h9", "g9", "i7", "f10", "e11", "g10", "g11", "h10", "i10", "f8", "f9", "e9"}},
	}, engine.Limits{Depth: 6}
}

// RuleName is the game's rule: "freestyle", "standard" or "renju" (engine.Ruled).
func (g Game) RuleName() string { return g.Rule.String() }

// WithRule returns the game under "freestyle", "standard" or "renju".
func (Game) WithRule(name string) (engine.Game, error) {
	r, err := ParseRule(name)
	if err != nil {
		return nil, err
	}
	return Game{Rule: r}, nil
}

// BalanceMargin bounds how lopsided a random opening may be: a depth-2 search with the
// paper's weights must score it within ±BalanceMargin for the side to move (less than one
// live three, 3000).
const BalanceMargin = 1000

// OpeningStones and OpeningRadius shape random openings: five stones (Black, White,
// Black, White, Black) on distinct points within three of the centre. On 15×15 that is
// C(49,3)·C(46,2) ≈ 1.9·10⁷ distinct positions before the balance filter, far more than a
// night of tuning draws (three stones within two points give only about 10 900).
const (
	OpeningStones = 5
	OpeningRadius = 3
)

// RandomOpening is OpeningStones stones on distinct points within OpeningRadius of the
// centre, drawn until the position is balanced (see BalanceMargin; after
// engine.OpeningTries draws the last one is kept).
func (g Game) RandomOpening(b engine.Board, rng *rand.Rand) []string {
	return engine.CheckedOpening(g, b, rng)
}

// OpeningCandidate is one draw of RandomOpening: OpeningStones stones on distinct points
// within OpeningRadius of the centre of b's board, before the balance check.
func (g Game) OpeningCandidate(b engine.Board, rng *rand.Rand) []string {
	p := b.(*Board).Pos
	n := p.g.n
	var used []Move
	var out []string
	for len(out) < OpeningStones {
		r := min(OpeningRadius, n/2)
		m := Move((n/2+rng.IntN(2*r+1)-r)*n + n/2 + rng.IntN(2*r+1) - r)
		dup := false
		for _, u := range used {
			dup = dup || u == m
		}
		if !dup {
			used = append(used, m)
			out = append(out, p.MoveString(m))
		}
	}
	return out
}

// OpeningCheck is RandomOpening's check: Balanced on b's board size.
func (g Game) OpeningCheck(b engine.Board, moves []string) bool {
	return Balanced(g, b.(*Board).Pos.g.n, moves)
}

// Balanced reports whether a depth-2 search with the paper's weights scores the position
// after moves within ±BalanceMargin for the side to move.
func Balanced(g Game, size int, moves []string) bool {
	b, err := g.NewBoard(size)
	if err != nil {
		return false
	}
	for _, m := range moves {
		if b.Play(m) != nil {
			return false
		}
	}
	pl := balancePlayers.Get().(*Player)
	defer balancePlayers.Put(pl)
	pl.Clear() // as a fresh player: the score must not depend on earlier calls
	_, st, err := pl.Move(context.Background(), b)
	return err == nil && st.Score >= -BalanceMargin && st.Score <= BalanceMargin
}

// balancePlayers are Balanced's players (the paper's weights, depth 2, width 10), kept
// between calls: a new one allocates a transposition table.
var balancePlayers = sync.Pool{New: func() any {
	pl, _ := Game{}.NewPlayer(DefaultWeights(), engine.Limits{Depth: 2, Width: 10})
	return pl
}}

// renjuOpenings are the 26 standard renju openings: Black's first stone at the centre
// (h8 on 15×15), White's second directly above it (h9: the 13 direct openings) or diagonally
// (i9: the 13 indirect openings), and Black's third as listed, in offsets from the centre.
var renjuOpenings = []struct {
	name     string
	white    [2]int
	third    [2]int
	indirect bool
}{
	{"kansei", [2]int{0, 1}, [2]int{0, 2}, false}, {"keigetsu", [2]int{0, 1}, [2]int{1, 2}, false},
	{"sosei", [2]int{0, 1}, [2]int{2, 2}, false}, {"kagetsu", [2]int{0, 1}, [2]int{1, 1}, false},
	{"zangetsu", [2]int{0, 1}, [2]int{2, 1}, false}, {"ugetsu", [2]int{0, 1}, [2]int{1, 0}, false},
	{"kinsei", [2]int{0, 1}, [2]int{2, 0}, false}, {"shogetsu", [2]int{0, 1}, [2]int{0, -1}, false},
	{"kyugetsu", [2]int{0, 1}, [2]int{1, -1}, false}, {"shingetsu", [2]int{0, 1}, [2]int{2, -1}, false},
	{"zuisei", [2]int{0, 1}, [2]int{0, -2}, false}, {"sangetsu", [2]int{0, 1}, [2]int{1, -2}, false},
	{"yusei", [2]int{0, 1}, [2]int{2, -2}, false},
	{"chosei", [2]int{1, 1}, [2]int{2, 2}, true}, {"kyogetsu", [2]int{1, 1}, [2]int{2, 1}, true},
	{"kosei", [2]int{1, 1}, [2]int{2, 0}, true}, {"suigetsu", [2]int{1, 1}, [2]int{2, -1}, true},
	{"ryusei", [2]int{1, 1}, [2]int{2, -2}, true}, {"ungetsu", [2]int{1, 1}, [2]int{1, 0}, true},
	{"hogetsu", [2]int{1, 1}, [2]int{1, -1}, true}, {"rangetsu", [2]int{1, 1}, [2]int{1, -2}, true},
	{"gingetsu", [2]int{1, 1}, [2]int{0, -1}, true}, {"myojo", [2]int{1, 1}, [2]int{0, -2}, true},
	{"shagetsu", [2]int{1, 1}, [2]int{-1, -1}, true}, {"meigetsu", [2]int{1, 1}, [2]int{-1, -2}, true},
	{"suisei", [2]int{1, 1}, [2]int{-2, -2}, true},
}

// BuiltinOpenings returns the 26 standard renju openings (13 direct, 13 indirect),
// centred on the board; boards under 5×5 have none.
func (Game) BuiltinOpenings(size int) []engine.NamedOpening {
	if size == 0 {
		size = DefaultSize
	}
	p, err := NewPosition(size, Freestyle, DefaultWeights().Tables())
	if err != nil {
		return nil
	}
	c := size / 2
	at := func(d [2]int) string { return p.MoveString(Move((c+d[1])*size + c + d[0])) }
	var out []engine.NamedOpening
	for _, o := range renjuOpenings {
		out = append(out, engine.NamedOpening{Name: o.name, Moves: []string{at([2]int{0, 0}), at(o.white), at(o.third)}})
	}
	return out
}

// WinningLine returns the winner's five (or the longer run that won under freestyle) as
// points in order ("h8", "i9", …), nil when no one has made five (engine.LineWinner).
func (b *Board) WinningLine() []string {
	c, ok := b.Pos.Winner()
	if !ok {
		return nil
	}
	return engine.WinningLine(b.Pos.g.n, 5, c, func(i int) int8 { return b.Pos.At(Move(i)) },
		func(i int) string { return b.Pos.MoveString(Move(i)) })
}
