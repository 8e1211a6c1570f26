// Package connect6 is Connect6, connect(19,19,6,2,1), with the "road" evaluation and the
// local-road scanning move generator of Li Xuejun et al. 2015 (000_9752b1518ee42188.txt).
//
// Rules (§1.1): a 19×19 board; Black's first move is one stone, after that each side
// places two stones per move; six or more in a row (horizontal, vertical, either diagonal)
// wins; a full board without six is a draw.
//
// A road is any window of 6 consecutive points in one of the 4 directions; there are 924
// (§1.1, Eq. 1). The evaluation (§1.2) of a position for a colour c is
//
//	V(c) = Σ_{roads holding only c's stones} f(n) − Σ_{roads holding only the opponent's} g(n)
//
// with f = Weights.Value and g = Weights.Threat (Table 1). A move is scored as
// V_after(mover) − V_pre(mover), the paper's Eq. (4)/(6); the static evaluation seen by the
// searcher at a leaf is −V(player who just moved), i.e. from the side to move.
//
// Notation: a point is a column letter A–S (I included) and a row number 1–19, e.g. J10;
// a move is one point (Black's first move) or two, written together: J10K11.
package connect6

import (
	"fmt"
	"strings"

	"evotune/engine"
)

// Board geometry (000_9752b1518ee42188.txt §1.1).
const (
	// Size is the side of the board.
	Size = 19
	// Points is the number of intersections.
	Points = Size * Size
	// K is the winning line length.
	K = 6
	// Roads is the number of 6-point windows on the board (§1.1, Eq. 1).
	Roads = 924
)

// NoPoint marks the missing second stone of Black's one-stone first move.
const NoPoint int16 = -1

// Move is one Connect6 move: one stone (Q == NoPoint, only Black's first move) or two
// distinct stones P and Q, as point indices y*19+x.
type Move struct {
	P, Q int16
}

var (
	// roadCells[r] are the 6 points of road r.
	roadCells [Roads][K]int16
	// pointRoads[p] lists the roads through point p (at most 24).
	pointRoads [Points][]int16
	// roadStart[d][p] is the road starting at p in direction d, or -1.
	roadStart [4][Points]int16
	dirs      = [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}}
	zobrist   = engine.ZobristTable(Points*2+1, 0xC6)
)

func init() {
	n := 0
	for d := range dirs {
		for p := range roadStart[d] {
			roadStart[d][p] = -1
		}
	}
	for d, dv := range dirs {
		for y := 0; y < Size; y++ {
			for x := 0; x < Size; x++ {
				ex, ey := x+dv[0]*(K-1), y+dv[1]*(K-1)
				if ex < 0 || ex >= Size || ey < 0 || ey >= Size {
					continue
				}
				for i := 0; i < K; i++ {
					p := int16((y+dv[1]*i)*Size + x + dv[0]*i)
					roadCells[n][i] = p
					pointRoads[p] = append(pointRoads[p], int16(n))
				}
				roadStart[d][y*Size+x] = int16(n)
				n++
			}
		}
	}
	if n != Roads {
		panic(fmt.Sprintf("connect6: %d roads, want %d", n, Roads))
	}
}

// PointString returns a point's name, e.g. "J10" for (9, 9).
func PointString(p int16) string {
	return fmt.Sprintf("%c%d", 'A'+rune(p%Size), p/Size+1)
}

// String returns the move in the package's notation ("J10" or "J10K11").
func (m Move) String() string {
	if m.Q == NoPoint {
		return PointString(m.P)
	}
	return PointString(m.P) + PointString(m.Q)
}

// ParseMove parses "J10", "J10K11", "j10 k11" or "J10-K11" (column A–S, row 1–19). It
// checks syntax and range only; Position.Legal checks legality. The error names the text.
func ParseMove(s string) (Move, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	var pts []int16
	i := 0
	for i < len(t) {
		c := t[i]
		if c == ' ' || c == '-' || c == ',' {
			i++
			continue
		}
		if c < 'A' || c > 'S' {
			return Move{}, fmt.Errorf("move %q: column %q is not A–S", s, c)
		}
		j := i + 1
		row := 0
		for j < len(t) && t[j] >= '0' && t[j] <= '9' && j-i <= 2 {
			row = row*10 + int(t[j]-'0')
			j++
		}
		if j == i+1 || row < 1 || row > Size {
			return Move{}, fmt.Errorf("move %q: row of point %d is not 1–19", s, len(pts)+1)
		}
		pts = append(pts, int16((row-1)*Size+int(c-'A')))
		i = j
	}
	switch len(pts) {
	case 1:
		return Move{P: pts[0], Q: NoPoint}, nil
	case 2:
		if pts[0] == pts[1] {
			return Move{}, fmt.Errorf("move %q: both stones on the same point", s)
		}
		return Move{P: pts[0], Q: pts[1]}, nil
	}
	return Move{}, fmt.Errorf("move %q: want one or two points like J10 or J10K11", s)
}

// Tables are the fixed-point evaluation tables derived from Weights: F[n] = f(n) and
// G[n] = g(n) for n stones in a road, in 1/TableScale of the paper's units; F[0] = G[0] = 0.
type Tables struct {
	F, G [K + 1]int64
}

// Scan selects how candidate pairs are scored (000_9752b1518ee42188.txt §1 vs §2).
type Scan int8

const (
	// LocalScan scores a pair from the roads through its two stones only (§2, Eq. 10).
	LocalScan Scan = iota
	// GlobalScan scores a pair by evaluating all 924 roads after it (§1.2, Eq. 4).
	GlobalScan
)

// Position is a Connect6 position with incremental road state. The zero value is not
// usable: use NewPosition.
type Position struct {
	cells  [Points]int8 // 0 empty, 1 Black, 2 White
	cnt    [Roads][2]int8
	near   [Points]uint8 // stones within Chebyshev distance 2
	sumF   [2]int64      // Σ over roads holding only colour c of F[n]
	sumG   [2]int64      // Σ over roads holding only colour c of G[n]
	live   [2]int32      // roads holding ≥ K−2 stones of colour c and none of the other
	tab    *Tables
	stm    engine.Color
	ply    int
	stones int
	winner int8 // -1 none, else the colour that made six
	key    uint64
	scan   Scan

	// scratch for move generation
	delta [Points]int64
	s2    [Roads]int64
	cand  []int16
}

// NewPosition returns the empty board, Black to move, evaluated with t. With t nil it is a
// position of the rules alone — stones, side to move, six in a row, Zobrist key — kept
// without road sums, for the referee, perft, the protocols and replays; it is not evaluated
// or searched (a player searches its own copy with its tables: CopyFrom).
func NewPosition(t *Tables) *Position {
	p := &Position{tab: t, winner: -1}
	return p
}

// SetScan selects the pair-scoring method; both give identical scores (Eq. 10).
func (p *Position) SetScan(s Scan) { p.scan = s }

// SetTables switches the evaluation tables and recomputes the road sums from scratch.
func (p *Position) SetTables(t *Tables) {
	p.tab = t
	p.sumF, p.sumG, p.live = [2]int64{}, [2]int64{}, [2]int32{}
	for r := range p.cnt {
		p.addRoad(r, 1)
	}
}

// CopyFrom makes p an exact copy of q's stones and state, keeping p's tables and scan.
func (p *Position) CopyFrom(q *Position) {
	p.cells, p.cnt, p.near = q.cells, q.cnt, q.near
	p.stm, p.ply, p.stones, p.winner, p.key = q.stm, q.ply, q.stones, q.winner, q.key
	p.SetTables(p.tab)
}

// Size returns 19 (engine.Position).
func (p *Position) Size() int { return Size }

// ParseMove reads a move in evotune's notation (the package's ParseMove; engine.Position).
func (p *Position) ParseMove(s string) (Move, error) { return ParseMove(s) }

// MoveString names a move in evotune's notation ("J10K10"; search.Root).
func (p *Position) MoveString(m Move) string { return m.String() }

// ToMove returns the side to move.
func (p *Position) ToMove() engine.Color { return p.stm }

// Ply returns the number of moves played (Black's single stone counts as one).
func (p *Position) Ply() int { return p.ply }

// At returns 0 for an empty point, 1 for Black, 2 for White.
func (p *Position) At(pt int16) int8 { return p.cells[pt] }

// Key returns the Zobrist key.
func (p *Position) Key() uint64 { return p.key }

// Winner returns the colour that made six, if any.
func (p *Position) Winner() (engine.Color, bool) {
	if p.winner < 0 {
		return 0, false
	}
	return engine.Color(p.winner), true
}

// addRoad adds (sign=1) or removes (sign=−1) road r's contribution to the sums.
func (p *Position) addRoad(r int, sign int64) {
	if p.tab == nil { // the rules alone
		return
	}
	b, w := p.cnt[r][0], p.cnt[r][1]
	switch {
	case b > 0 && w == 0:
		p.sumF[0] += sign * p.tab.F[b]
		p.sumG[0] += sign * p.tab.G[b]
		if b >= K-2 {
			p.live[0] += int32(sign)
		}
	case w > 0 && b == 0:
		p.sumF[1] += sign * p.tab.F[w]
		p.sumG[1] += sign * p.tab.G[w]
		if w >= K-2 {
			p.live[1] += int32(sign)
		}
	}
}

func (p *Position) place(pt int16, c engine.Color) {
	p.cells[pt] = int8(c) + 1
	p.key ^= zobrist[int(pt)*2+int(c)]
	p.stones++
	for _, r := range pointRoads[pt] {
		p.addRoad(int(r), -1)
		p.cnt[r][c]++
		p.addRoad(int(r), 1)
		if p.cnt[r][c] == K {
			p.winner = int8(c)
		}
	}
	p.bumpNear(pt, 1)
}

func (p *Position) remove(pt int16, c engine.Color) {
	p.cells[pt] = 0
	p.key ^= zobrist[int(pt)*2+int(c)]
	p.stones--
	for _, r := range pointRoads[pt] {
		p.addRoad(int(r), -1)
		p.cnt[r][c]--
		p.addRoad(int(r), 1)
	}
	p.bumpNear(pt, -1)
}

func (p *Position) bumpNear(pt int16, d int) { engine.BumpNear(p.near[:], Size, int(pt), 2, d) }

// Make plays m for the side to move. It does not check legality (see Legal).
func (p *Position) Make(m Move) {
	c := p.stm
	p.place(m.P, c)
	if m.Q != NoPoint {
		p.place(m.Q, c)
	}
	p.stm = c.Opponent()
	p.key ^= zobrist[Points*2]
	p.ply++
}

// Unmake takes back m, the last move made.
func (p *Position) Unmake(m Move) {
	p.ply--
	p.key ^= zobrist[Points*2]
	p.stm = p.stm.Opponent()
	c := p.stm
	if m.Q != NoPoint {
		p.remove(m.Q, c)
	}
	p.remove(m.P, c)
	p.winner = -1 // a game with a winner is over: the position before it had none
}

// Legal reports why m cannot be played now, or nil.
func (p *Position) Legal(m Move) error {
	if p.winner >= 0 || p.stones == Points {
		return fmt.Errorf("move %s: the game is over", m)
	}
	if p.ply == 0 && m.Q != NoPoint {
		return fmt.Errorf("move %s: Black's first move is one stone", m)
	}
	if p.ply > 0 && m.Q == NoPoint {
		return fmt.Errorf("move %s: after Black's first move every move is two stones", m)
	}
	for _, pt := range []int16{m.P, m.Q} {
		if pt == NoPoint {
			continue
		}
		if pt < 0 || pt >= Points {
			return fmt.Errorf("move %s: point off the board", m)
		}
		if p.cells[pt] != 0 {
			return fmt.Errorf("move %s: %s is occupied", m, PointString(pt))
		}
	}
	if m.P == m.Q {
		return fmt.Errorf("move %s: both stones on one point", m)
	}
	return nil
}

// Terminal reports a finished game: the side to move has lost if the previous move made
// six; a full board is a draw.
func (p *Position) Terminal() (bool, int64) {
	if p.winner >= 0 {
		if engine.Color(p.winner) == p.stm {
			return true, engine.Win
		}
		return true, -engine.Win
	}
	if p.stones == Points {
		return true, 0
	}
	return false, 0
}

// Evaluate is the static evaluation for the side to move: −V(opponent), where V is the
// paper's evaluation of the player who has just moved (§1.2): G[n] for the side to move's
// roads minus F[n] for the opponent's.
func (p *Position) Evaluate() int64 {
	return p.sumG[p.stm] - p.sumF[p.stm.Opponent()]
}

// V returns the paper's evaluation V(c) = Σ own f − Σ opponent g from the incrementally
// kept sums (§1.2).
func (p *Position) V(c engine.Color) int64 {
	return p.sumF[c] - p.sumG[c.Opponent()]
}

// GlobalV recomputes V(c) by scanning all 924 roads (§1.2, the global scan). It must equal
// V(c); tests check it.
func (p *Position) GlobalV(c engine.Color) int64 {
	var v int64
	for r := range p.cnt {
		v += p.roadValue(r, c, 0)
	}
	return v
}

// roadValue is road r's contribution to V(c) after adding k more stones of colour c to
// it (k ≤ the road's empty points).
func (p *Position) roadValue(r int, c engine.Color, k int8) int64 {
	own, opp := p.cnt[r][c], p.cnt[r][c.Opponent()]
	switch {
	case opp > 0 && own+k > 0:
		return 0
	case opp > 0:
		return -p.tab.G[opp]
	}
	return p.tab.F[own+k]
}

// Picture draws the position for a viewer (engine.Pictured): 'B' Black's stones, 'W'
// White's.
func (p *Position) Picture() []string {
	return engine.PictureRows(Size, func(x, row int) byte { return ".BW"[p.cells[(row-1)*Size+x]] })
}

// String draws the board, row 19 at the top, X = Black, O = White.
func (p *Position) String() string {
	return engine.DrawBoard(Size, 'A', func(x, row int) byte { return ".XO"[p.cells[(row-1)*Size+x]] })
}
