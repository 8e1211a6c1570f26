// Package amazons is the Game of the Amazons with the evaluation of Chen Xuanhua & Yang
// Ling 2019 (004_5fa71e7c84b0e80d.txt): territory by queen and king distance (tq, tk),
// position (p1, p2) and mobility, weighted by k1…k5, each a linear function of the turn
// number.
//
// Rules (§2): an n×n board (10×10 in competition, 8×8 on Botzone), four amazons a side,
// Black moves first. A move takes one amazon like a chess queen (any distance, 8
// directions, never over an amazon or arrow) and then shoots an arrow from its landing
// square, also like a queen; the arrow's square is blocked for good. A player who cannot
// move on their turn loses.
//
// Notation: squares are a file letter and a rank from 1 at the bottom (a1 … j10); a move
// is from-to/arrow, e.g. "d1-d7/g7". Botzone's "x0 y0 x1 y1 x2 y2" (x, y from the top-left)
// is accepted too.
package amazons

import (
	"fmt"
	"strconv"
	"strings"

	"evotune/engine"
)

// Board squares hold one of these.
const (
	empty  = 0
	black  = 1 // a Black amazon
	white  = 2 // a White amazon
	arrow  = 3
	border = 4
)

// Move is one Amazons move as padded-board square indices: the amazon goes From → To and
// shoots an arrow to Arrow.
type Move struct {
	From, To, Arrow uint8
}

// Position is an Amazons position on a mailbox board with a one-square border.
type Position struct {
	n       int
	w       int // n + 2
	cells   []int8
	amazons [2][4]uint8
	dirs    [8]int
	stm     engine.Color
	ply     int
	key     uint64
	zobrist []uint64
	tab     *Tables
	// bit maps a padded square to its bit in a bb (shared by clones); emptyBB and amBB
	// mirror cells as bitboards for the evaluation's flood fills.
	bit     []uint8
	emptyBB bb
	amBB    [2]bb
}

// Start positions: Black's and White's amazons as (x, y) from the top-left, as Botzone
// gives them.
var starts = map[int][2][4][2]int{
	// a7 d10 g10 j7 for Black, a4 d1 g1 j4 for White.
	10: {{{0, 3}, {3, 0}, {6, 0}, {9, 3}}, {{0, 6}, {3, 9}, {6, 9}, {9, 6}}},
	8:  {{{0, 2}, {2, 0}, {5, 0}, {7, 2}}, {{0, 5}, {2, 7}, {5, 7}, {7, 5}}},
}

// Sizes lists the supported board sides.
var Sizes = []int{10, 8}

// NewPosition returns the start position on an n×n board (8 or 10), Black to move. The
// error names an unsupported size.
func NewPosition(n int, t *Tables) (*Position, error) {
	st, ok := starts[n]
	if !ok {
		return nil, fmt.Errorf("amazons: board size %d is not supported (8 or 10)", n)
	}
	w := n + 2
	p := &Position{n: n, w: w, cells: make([]int8, w*w), tab: t,
		zobrist: engine.ZobristTable(w*w*3+1, 0xA0+uint64(n))}
	p.dirs = [8]int{1, -1, w, -w, w + 1, w - 1, -w + 1, -w - 1}
	for i := range p.cells {
		x, y := i%w, i/w
		if x == 0 || y == 0 || x == w-1 || y == w-1 {
			p.cells[i] = border
		}
	}
	for c := 0; c < 2; c++ {
		for i, xy := range st[c] {
			sq := p.fromXY(xy[0], xy[1])
			p.cells[sq] = int8(c + 1)
			p.amazons[c][i] = uint8(sq)
			p.key ^= p.zobrist[int(sq)*3+c]
		}
	}
	p.bit = make([]uint8, len(p.cells))
	for sq := range p.cells {
		if p.cells[sq] != border {
			p.bit[sq] = uint8(p.bitIndex(sq))
		}
	}
	p.emptyBB, p.amBB = p.bitboards()
	return p, nil
}

// Clone returns an independent copy.
func (p *Position) Clone() *Position {
	q := *p
	q.cells = append([]int8(nil), p.cells...)
	return &q
}

// fromXY converts Botzone (x, y from the top-left) to a padded square.
func (p *Position) fromXY(x, y int) int { return (y+1)*p.w + x + 1 }

// xy converts a padded square to Botzone (x, y from the top-left).
func (p *Position) xy(sq uint8) (int, int) { return int(sq)%p.w - 1, int(sq)/p.w - 1 }

// SquareString names a square, e.g. "d1" (file from the left, rank 1 at the bottom).
func (p *Position) SquareString(sq uint8) string {
	x, y := p.xy(sq)
	return fmt.Sprintf("%c%d", 'a'+rune(x), p.n-y)
}

// MoveString writes m as "d1-d7/g7".
func (p *Position) MoveString(m Move) string {
	return p.SquareString(m.From) + "-" + p.SquareString(m.To) + "/" + p.SquareString(m.Arrow)
}

// BotzoneString writes m as Botzone's "x0 y0 x1 y1 x2 y2".
func (p *Position) BotzoneString(m Move) string {
	x0, y0 := p.xy(m.From)
	x1, y1 := p.xy(m.To)
	x2, y2 := p.xy(m.Arrow)
	return fmt.Sprintf("%d %d %d %d %d %d", x0, y0, x1, y1, x2, y2)
}

func (p *Position) parseSquare(s string) (uint8, error) {
	if len(s) < 2 || s[0] < 'a' || int(s[0]-'a') >= p.n {
		return 0, fmt.Errorf("square %q: want a file a–%c and a rank 1–%d", s, 'a'+rune(p.n-1), p.n)
	}
	r, err := strconv.Atoi(s[1:])
	if err != nil || r < 1 || r > p.n {
		return 0, fmt.Errorf("square %q: rank is not 1–%d", s, p.n)
	}
	return uint8(p.fromXY(int(s[0]-'a'), p.n-r)), nil
}

// ParseMove parses "d1-d7/g7" or Botzone's "x0 y0 x1 y1 x2 y2"; it checks syntax and
// range, Legal checks the rules. The error names the text.
func (p *Position) ParseMove(s string) (Move, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if f := strings.Fields(t); len(f) == 6 {
		var v [6]int
		for i, x := range f {
			n, err := strconv.Atoi(x)
			if err != nil || n < 0 || n >= p.n {
				return Move{}, fmt.Errorf("move %q: coordinate %q is not 0–%d", s, x, p.n-1)
			}
			v[i] = n
		}
		return Move{uint8(p.fromXY(v[0], v[1])), uint8(p.fromXY(v[2], v[3])), uint8(p.fromXY(v[4], v[5]))}, nil
	}
	a, rest, ok1 := strings.Cut(t, "-")
	b, c, ok2 := strings.Cut(rest, "/")
	if !ok1 || !ok2 {
		return Move{}, fmt.Errorf("move %q: want from-to/arrow like d1-d7/g7", s)
	}
	var m Move
	var err error
	if m.From, err = p.parseSquare(a); err != nil {
		return Move{}, fmt.Errorf("move %q: %w", s, err)
	}
	if m.To, err = p.parseSquare(b); err != nil {
		return Move{}, fmt.Errorf("move %q: %w", s, err)
	}
	if m.Arrow, err = p.parseSquare(c); err != nil {
		return Move{}, fmt.Errorf("move %q: %w", s, err)
	}
	return m, nil
}

// Size returns the board side.
func (p *Position) Size() int { return p.n }

// ToMove returns the side to move.
func (p *Position) ToMove() engine.Color { return p.stm }

// Ply returns the number of moves played.
func (p *Position) Ply() int { return p.ply }

// Turn is the turn number of the side to move, counted as Botzone's turnID: 1 for each
// side's first move, 2 for its second, … (ply/2 + 1). The k_i(t) of §4 use it.
func (p *Position) Turn() int { return p.ply/2 + 1 }

// Key returns the Zobrist key.
func (p *Position) Key() uint64 { return p.key }

// Make plays m for the side to move (no legality check: see Legal).
func (p *Position) Make(m Move) {
	c := int(p.stm)
	p.cells[m.From] = empty
	p.cells[m.To] = int8(c + 1)
	p.cells[m.Arrow] = arrow
	for i, a := range p.amazons[c] {
		if a == m.From {
			p.amazons[c][i] = m.To
			break
		}
	}
	p.key ^= p.zobrist[int(m.From)*3+c] ^ p.zobrist[int(m.To)*3+c] ^ p.zobrist[int(m.Arrow)*3+2] ^ p.zobrist[len(p.zobrist)-1]
	p.toggleBits(c, m)
	p.stm = p.stm.Opponent()
	p.ply++
}

// Unmake takes back m, the last move made.
func (p *Position) Unmake(m Move) {
	p.ply--
	p.stm = p.stm.Opponent()
	c := int(p.stm)
	p.cells[m.Arrow] = empty
	p.cells[m.To] = empty
	p.cells[m.From] = int8(c + 1)
	for i, a := range p.amazons[c] {
		if a == m.To {
			p.amazons[c][i] = m.From
			break
		}
	}
	p.key ^= p.zobrist[int(m.From)*3+c] ^ p.zobrist[int(m.To)*3+c] ^ p.zobrist[int(m.Arrow)*3+2] ^ p.zobrist[len(p.zobrist)-1]
	p.toggleBits(c, m)
}

// toggleBits applies (or, applied again, takes back) m's change to the bitboards: From
// becomes empty, To colour c's, Arrow blocked. From may equal Arrow (an arrow shot back).
func (p *Position) toggleBits(c int, m Move) {
	var f, t, a bb
	f.set(int(p.bit[m.From]))
	t.set(int(p.bit[m.To]))
	a.set(int(p.bit[m.Arrow]))
	// Empty squares: From gains, To and Arrow lose; with From = Arrow the two cancel.
	p.emptyBB = bb{p.emptyBB.lo ^ f.lo ^ t.lo ^ a.lo, p.emptyBB.hi ^ f.hi ^ t.hi ^ a.hi}
	p.amBB[c] = bb{p.amBB[c].lo ^ f.lo ^ t.lo, p.amBB[c].hi ^ f.hi ^ t.hi}
}

// reaches reports whether a queen on from reaches to over empty squares (from itself may
// be empty or not).
func (p *Position) reaches(from, to uint8) bool {
	if from == to {
		return false
	}
	fx, fy := int(from)%p.w, int(from)/p.w
	ddx, ddy := int(to)%p.w-fx, int(to)/p.w-fy
	if ddx != 0 && ddy != 0 && abs(ddx) != abs(ddy) {
		return false // not on a line
	}
	step := sign(ddy)*p.w + sign(ddx)
	for sq := int(from) + step; ; sq += step {
		if p.cells[sq] != empty {
			return false
		}
		if sq == int(to) {
			return true
		}
	}
}

func sign(x int) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Legal reports why m cannot be played, or nil.
func (p *Position) Legal(m Move) error {
	if over, _ := p.Terminal(); over {
		return fmt.Errorf("move %s: the game is over", p.MoveString(m))
	}
	for _, sq := range []uint8{m.From, m.To, m.Arrow} {
		if int(sq) >= len(p.cells) || p.cells[sq] == border {
			return fmt.Errorf("move: square off the board")
		}
	}
	s := p.MoveString(m)
	if p.cells[m.From] != int8(p.stm)+1 {
		return fmt.Errorf("move %s: no %s amazon on %s", s, p.stm, p.SquareString(m.From))
	}
	if !p.reaches(m.From, m.To) {
		return fmt.Errorf("move %s: the amazon cannot reach %s", s, p.SquareString(m.To))
	}
	p.cells[m.From] = empty
	ok := p.reaches(m.To, m.Arrow)
	p.cells[m.From] = int8(p.stm) + 1
	if !ok {
		return fmt.Errorf("move %s: the arrow cannot reach %s", s, p.SquareString(m.Arrow))
	}
	return nil
}

// HasMove reports whether the side to move can move: an amazon with an empty neighbour can
// step there and shoot back to where it stood.
func (p *Position) HasMove() bool {
	for _, a := range p.amazons[p.stm] {
		for _, d := range p.dirs {
			if p.cells[int(a)+d] == empty {
				return true
			}
		}
	}
	return false
}

// Terminal reports a side to move that cannot move: it has lost.
func (p *Position) Terminal() (bool, int64) {
	if p.HasMove() {
		return false, 0
	}
	return true, -engine.Win
}

// AppendMoves appends every legal move of the side to move to buf.
func (p *Position) AppendMoves(buf []Move) []Move {
	c := int(p.stm)
	for _, from := range p.amazons[c] {
		p.cells[from] = empty
		for _, d := range p.dirs {
			for to := int(from) + d; p.cells[to] == empty; to += d {
				for _, e := range p.dirs {
					for a := to + e; p.cells[a] == empty; a += e {
						buf = append(buf, Move{from, uint8(to), uint8(a)})
					}
				}
			}
		}
		p.cells[from] = int8(c + 1)
	}
	return buf
}

// CountMoves counts the legal moves of the side to move without generating them.
func (p *Position) CountMoves() int64 {
	c := int(p.stm)
	var n int64
	for _, from := range p.amazons[c] {
		p.cells[from] = empty
		for _, d := range p.dirs {
			for to := int(from) + d; p.cells[to] == empty; to += d {
				for _, e := range p.dirs {
					for a := to + e; p.cells[a] == empty; a += e {
						n++
					}
				}
			}
		}
		p.cells[from] = int8(c + 1)
	}
	return n
}

// Perft counts the leaf nodes of the legal move tree to the given depth.
func (p *Position) Perft(depth int) int64 {
	if depth <= 0 {
		return 1
	}
	if depth == 1 {
		return p.CountMoves()
	}
	var n int64
	for _, m := range p.AppendMoves(nil) {
		p.Make(m)
		n += p.Perft(depth - 1)
		p.Unmake(m)
	}
	return n
}

// Picture draws the position for a viewer (engine.Pictured): 'B' and 'W' the amazons, 'x'
// the arrows.
func (p *Position) Picture() []string {
	return engine.PictureRows(p.n, func(x, row int) byte { return ".BWx"[p.cells[p.fromXY(x, p.n-row)]] })
}

// String draws the board, rank n at the top: B/W amazons, x arrows.
func (p *Position) String() string {
	return engine.DrawBoard(p.n, 'a', func(x, row int) byte { return ".BWx"[p.cells[p.fromXY(x, p.n-row)]] })
}
