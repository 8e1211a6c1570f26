package connect6

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"evotune/engine"
	"evotune/engine/search"
)

// Name is the registry name of the game.
const Name = "connect6"

// MaxWeight bounds every table entry.
const MaxWeight = 1e9

// Weights are the road tables of Table 1 (000_9752b1518ee42188.txt §1.2, §4): Value[n−1]
// is f(n), the value of a road holding n of one's own stones and none of the opponent's;
// Threat[n−1] is g(n), the threat of a road holding n opponent stones and none of one's
// own; n = 1..6. Each has exactly 6 entries in [0, 1e9]. They are kept to 1/TableScale
// (0.01) of the paper's unit, so fractional weights such as value_1 = 0.3 play as written
// instead of being rounded to 0 or 1 (rounding made value_1/threat_1 on/off switches).
type Weights struct {
	Value  []float64 `json:"value"`
	Threat []float64 `json:"threat"`
}

// DefaultWeights returns Table 1: value (1, 20, 40, 200, 200, 1 000 000) and threat
// (1, 25, 50, 6 000, 6 000, 1 000 000) for n = 1..6.
func DefaultWeights() *Weights {
	return &Weights{
		Value:  []float64{1, 20, 40, 200, 200, 1000000},
		Threat: []float64{1, 25, 50, 6000, 6000, 1000000},
	}
}

// Game returns "connect6".
func (w *Weights) Game() string { return Name }

// Validate checks both tables: 6 finite entries in [0, 1e9].
func (w *Weights) Validate() error {
	if err := engine.CheckVector("value", w.Value, K, 0, MaxWeight); err != nil {
		return err
	}
	return engine.CheckVector("threat", w.Threat, K, 0, MaxWeight)
}

// TableScale is the number of table units per unit of the paper's weights: evaluations
// and search scores are in 1/100 of the paper's units. With weights ≤ 1e9 a position's
// sum over all 924 roads stays below 1e14, far under engine.WinThreshold.
const TableScale = 100

// Tables converts the weights to the fixed-point tables the position uses (TableScale
// units per paper unit, rounded to the nearest unit). Scaling every weight by one factor
// scales every score and leaves play unchanged, so only ratios matter.
func (w *Weights) Tables() *Tables {
	t := &Tables{}
	for n := 1; n <= K; n++ {
		t.F[n] = int64(math.Round(w.Value[n-1] * TableScale))
		t.G[n] = int64(math.Round(w.Threat[n-1] * TableScale))
	}
	return t
}

// Game implements engine.Game for Connect6.
type Game struct{}

// Name returns "connect6".
func (Game) Name() string { return Name }

// NewBoard returns the empty 19×19 board; size must be 0 or 19.
func (Game) NewBoard(size int) (engine.Board, error) {
	if size != 0 && size != Size {
		return nil, fmt.Errorf("connect6: board size %d is not supported (only 19)", size)
	}
	return &Board{engine.PositionBoard[*Position, Move]{Pos: NewPosition(nil)}}, nil
}

// DefaultWeights returns Table 1.
func (Game) DefaultWeights() engine.Weights { return DefaultWeights() }

// DecodeWeights strictly decodes {"value": [6 numbers], "threat": [6 numbers]}.
func (Game) DecodeWeights(raw json.RawMessage) (engine.Weights, error) {
	var w Weights
	if err := engine.DecodeStrict(raw, &w); err != nil {
		return nil, err
	}
	if w.Value == nil {
		return nil, errors.New("value: missing")
	}
	if w.Threat == nil {
		return nil, errors.New("threat: missing")
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return &w, nil
}

// DefaultLimits is depth 3, width 10, the paper's strength-test setting (§4.2.2).
func (Game) DefaultLimits() engine.Limits { return engine.Limits{Depth: 3, Width: 10} }

// NewPlayer returns an alpha-beta player with the local scan.
func (g Game) NewPlayer(w engine.Weights, lim engine.Limits) (engine.Player, error) {
	pl, err := NewPlayer(w, lim, LocalScan)
	if err != nil {
		return nil, err // not a nil *Player in a non-nil interface
	}
	return pl, nil
}

// NewPlayer returns an alpha-beta player scoring pairs with the given scan, with a
// 2^16-entry transposition table. The error names weights of another game or invalid
// limits.
func NewPlayer(w engine.Weights, lim engine.Limits, scan Scan) (*Player, error) {
	return search.NewPlayer(rulesOf(scan), w, lim)
}

// Player is an alpha-beta Connect6 player (000_9752b1518ee42188.txt §3): the player all
// games share, under Connect6's rules, searching its own position copy.
type Player = search.Player[*Position, Move, *Tables]

// rulesOf is what Connect6 tells search.Player: the weights' road tables, and a search of
// the board's position copied into the player's own (made once, with the scan; its road
// sums recomputed with the tables at every copy).
func rulesOf(scan Scan) search.Rules[*Position, Move, *Tables] {
	return search.Rules[*Position, Move, *Tables]{
		Game: Name, Defaults: Game{}.DefaultLimits(), TTBits: 16,
		Tables: search.WeightsTables[*Weights, *Tables](Name),
		Root: func(pos *Position, t *Tables, own *Position) *Position {
			if own == nil {
				own = NewPosition(t)
				own.SetScan(scan)
			}
			own.tab = t
			own.CopyFrom(pos)
			return own
		},
	}
}

// RandomMove returns one (first move) or two distinct uniformly chosen empty points.
func (Game) RandomMove(b engine.Board, rng *rand.Rand) string {
	p := b.(*Board).Pos
	if p.winner >= 0 || p.stones == Points {
		return ""
	}
	var empty []int16
	for pt := int16(0); pt < Points; pt++ {
		if p.cells[pt] == 0 {
			empty = append(empty, pt)
		}
	}
	i := rng.IntN(len(empty))
	if p.ply == 0 {
		return Move{empty[i], NoPoint}.String()
	}
	j := rng.IntN(len(empty) - 1)
	if j >= i {
		j++
	}
	return Move{empty[i], empty[j]}.String()
}

// Board is the engine.Board of Connect6.
type Board struct {
	engine.PositionBoard[*Position, Move] // the position and the moves played
}

// Game returns "connect6".
func (b *Board) Game() string { return Name }

// Outcome reports six in a row or a full board.
func (b *Board) Outcome() engine.Outcome {
	if c, ok := b.Pos.Winner(); ok {
		if c == engine.Black {
			return engine.BlackWins
		}
		return engine.WhiteWins
	}
	if b.Pos.stones == Points {
		return engine.Draw
	}
	return engine.Ongoing
}

// Clone returns an independent copy.
func (b *Board) Clone() engine.Board {
	q := NewPosition(b.Pos.tab)
	q.CopyFrom(b.Pos)
	return &Board{engine.PositionBoard[*Position, Move]{Pos: q, MoveLog: b.CloneLog()}}
}

// Perft counts the legal move tree of b to depth plies: Black's first move has 361
// children, later positions C(e, 2) for e empty points.
func (Game) Perft(b engine.Board, depth int) int64 {
	return perft(b.(*Board).Pos, depth)
}

func perft(p *Position, depth int) int64 {
	if depth == 0 {
		return 1
	}
	if over, _ := p.Terminal(); over {
		return 0
	}
	var empty []int16
	for pt := int16(0); pt < Points; pt++ {
		if p.cells[pt] == 0 {
			empty = append(empty, pt)
		}
	}
	e := int64(len(empty))
	if depth == 1 {
		if p.ply == 0 {
			return e
		}
		return e * (e - 1) / 2
	}
	var n int64
	visit := func(m Move) {
		p.Make(m)
		n += perft(p, depth-1)
		p.Unmake(m)
	}
	for i, a := range empty {
		if p.ply == 0 {
			visit(Move{a, NoPoint})
			continue
		}
		for _, b := range empty[i+1:] {
			visit(Move{a, b})
		}
	}
	return n
}

// BenchSuite is the paper's 9th-move position plus positions after 3 and 5 moves of the
// same game, searched at depth 5, width 10 (000_9752b1518ee42188.txt §4.2.1).
func (Game) BenchSuite() ([]engine.BenchPosition, engine.Limits) {
	return []engine.BenchPosition{
		{Name: "move4", Moves: BenchGame[:3]},
		{Name: "move6", Moves: BenchGame[:5]},
		{Name: "move9", Moves: BenchGame},
	}, engine.Limits{Depth: 5, Width: 10}
}

// OpeningRadius bounds the stones of random openings around the centre. Black's first
// stone lies within one point of it (9 points), White's two and Black's next two within
// OpeningRadius (49 points): 9·C(48,2)·C(46,2) ≈ 1.05·10⁷ ordered openings, over 3·10⁶
// distinct positions, far more than a night of tuning draws (the two-ply openings within
// two points number only 2 484).
const OpeningRadius = 3

// BalanceMargin bounds how lopsided a random opening may be, in the paper's units: a
// depth-2 search with the paper's weights must score it at least −BalanceMargin for the
// side to move (White, who has one stone fewer; about 10% of raw draws fail, those where
// Black's stones already form a strong road).
const BalanceMargin = 300

// RandomOpening is three moves (Black's first stone, White's two, Black's two; 5 stones)
// around the centre (see OpeningRadius), drawn until Balanced (after engine.OpeningTries
// draws the last one is kept).
func (g Game) RandomOpening(b engine.Board, rng *rand.Rand) []string {
	return engine.CheckedOpening(g, b, rng)
}

// OpeningCandidate is one draw of RandomOpening: Black's first stone within one point of
// the centre, then four more distinct stones within OpeningRadius, as three moves.
func (g Game) OpeningCandidate(_ engine.Board, rng *rand.Rand) []string {
	near := func(r int) int16 {
		return int16((Size/2+rng.IntN(2*r+1)-r)*Size + Size/2 + rng.IntN(2*r+1) - r)
	}
	pts := []int16{near(1)}
	for len(pts) < 5 {
		p := near(OpeningRadius)
		dup := false
		for _, q := range pts {
			dup = dup || p == q
		}
		if !dup {
			pts = append(pts, p)
		}
	}
	return []string{Move{pts[0], NoPoint}.String(), Move{pts[1], pts[2]}.String(), Move{pts[3], pts[4]}.String()}
}

// OpeningCheck is RandomOpening's check: Balanced (the board is always 19×19).
func (g Game) OpeningCheck(_ engine.Board, moves []string) bool { return Balanced(moves) }

// Balanced reports whether the moves are legal from the start and a depth-2, width-10
// search with the paper's weights scores the position at least −BalanceMargin for the side
// to move.
func Balanced(moves []string) bool {
	b, _ := Game{}.NewBoard(0)
	for _, m := range moves {
		if b.Play(m) != nil {
			return false
		}
	}
	pl := balancePlayers.Get().(*Player)
	defer balancePlayers.Put(pl)
	pl.Clear() // as a fresh player: the score must not depend on earlier calls
	_, st, err := pl.Move(context.Background(), b)
	return err == nil && st.Score >= -BalanceMargin*TableScale
}

// balancePlayers are Balanced's players (the paper's weights, depth 2, width 10), kept
// between calls: a new one allocates a transposition table.
var balancePlayers = sync.Pool{New: func() any {
	pl, _ := Game{}.NewPlayer(DefaultWeights(), engine.Limits{Depth: 2, Width: 10})
	return pl
}}

// BotzoneFields returns 4: a Botzone ConnectSix move is "x0 y0 x1 y1", x the column from
// the left and y the row from the top, both from 0; Black's one-stone first move has
// x1 = y1 = −1 (wiki.botzone.org.cn, ConnectSix). It makes Board a botzone.Board.
func (b *Board) BotzoneFields() int { return 4 }

// BotzoneMove writes move m ("J10", "J10K11") as Botzone's "x0 y0 x1 y1"; the error names
// a move that does not parse.
func (b *Board) BotzoneMove(m string) (string, error) {
	mv, err := ParseMove(m)
	if err != nil {
		return "", err
	}
	xy := func(p int16) (int, int) {
		if p == NoPoint {
			return -1, -1
		}
		return int(p) % Size, Size - 1 - int(p)/Size
	}
	x0, y0 := xy(mv.P)
	x1, y1 := xy(mv.Q)
	return fmt.Sprintf("%d %d %d %d", x0, y0, x1, y1), nil
}

// ParseBotzoneMove reads Botzone's "x0 y0 x1 y1" (x1 = y1 = −1 for a one-stone move) as a
// move in evotune's notation ("J10K11"). It checks syntax and range only; Play checks the
// rules. The error names the text.
func (b *Board) ParseBotzoneMove(s string) (string, error) {
	f := strings.Fields(s)
	if len(f) != 4 {
		return "", fmt.Errorf("move %q: want four numbers x0 y0 x1 y1", s)
	}
	var v [4]int
	for i, t := range f {
		n, err := strconv.Atoi(t)
		if err != nil || n < -1 || n >= Size {
			return "", fmt.Errorf("move %q: coordinate %q is not 0–%d", s, t, Size-1)
		}
		v[i] = n
	}
	pt := func(x, y int) int16 { return int16((Size-1-y)*Size + x) }
	switch {
	case v[0] < 0 || v[1] < 0:
		return "", fmt.Errorf("move %q: the first stone has no point", s)
	case v[2] < 0 && v[3] < 0:
		return PointString(pt(v[0], v[1])), nil
	case v[2] < 0 || v[3] < 0:
		return "", fmt.Errorf("move %q: the second stone has one coordinate −1", s)
	}
	return PointString(pt(v[0], v[1])) + PointString(pt(v[2], v[3])), nil
}

// WinningLine returns the winner's six (or longer run) as points in order ("J10", "K10",
// …), nil when no one has made six (engine.LineWinner).
func (b *Board) WinningLine() []string {
	c, ok := b.Pos.Winner()
	if !ok {
		return nil
	}
	return engine.WinningLine(Size, K, c, func(i int) int8 { return b.Pos.At(int16(i)) },
		func(i int) string { return PointString(int16(i)) })
}
