// Package gomoku is Gomoku (five in a row) with the pattern evaluation and negamax search
// of Wang Changfei et al. 2009 (001_4cd63e63655ef194.txt) and the engine framework of Cao
// & Zhao 2021 (002_1c361d516f9a1960.txt): Zobrist hashing, a transposition table,
// iterative deepening, candidates within distance 2 of a stone, best-first ordering, and
// immediate win / forced block detection.
//
// Boards are 15×15 by default, any size 5–22 (Gomocup uses 15 and 20). Rules: Freestyle
// (five or more in a row wins) and Standard (exactly five wins; an overline does not).
// Black moves first.
//
// Evaluation (001 §1.1, §2): for each colour, the Table 1 patterns are counted in every
// line of the 4 directions (see MatchSegment for exactly how), each count weighted by its
// score; the value for the side to move is K1·own − K2·opponent.
//
// Notation: a column letter (a, b, …) and a row number from 1, e.g. h8 is the centre of
// the 15×15 board.
package gomoku

import (
	"fmt"
	"math/bits"
	"strings"
	"sync"

	"evotune/engine"
)

// Board sizes (Gomocup uses 15 and 20).
const (
	// DefaultSize is the standard board side.
	DefaultSize = 15
	// MinSize and maxSize bound the accepted board sides.
	MinSize = 5
	maxSize = 22
	// MaxSize is the largest accepted board side.
	MaxSize = maxSize
)

// Rule selects the winning condition.
type Rule int8

const (
	// Freestyle: five or more in a row wins.
	Freestyle Rule = iota
	// Standard: exactly five in a row wins; six or more does not.
	Standard
	// Renju: Black wins only with exactly five and loses by playing a forbidden move
	// (double three, double four, overline: see Forbidden); White wins with five or more.
	Renju
)

// String returns "freestyle", "standard" or "renju".
func (r Rule) String() string {
	switch r {
	case Standard:
		return "standard"
	case Renju:
		return "renju"
	}
	return "freestyle"
}

// ParseRule accepts "freestyle", "standard" or "renju".
func ParseRule(s string) (Rule, error) {
	switch s {
	case "freestyle", "":
		return Freestyle, nil
	case "standard", "exact5", "exact-five":
		return Standard, nil
	case "renju":
		return Renju, nil
	}
	return 0, fmt.Errorf("gomoku rule %q: want freestyle, standard or renju", s)
}

// Move is a point index y*size+x.
type Move int16

var dirs = [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}}

// geometry holds the immutable tables of one board size.
type geometry struct {
	n         int
	lines     [][]int16  // cells of every line of length ≥ 5
	lineDir   []uint8    // the direction (index into dirs) of every line
	cellLines [][4]int16 // line through a cell per direction, or -1
	cellIndex [][4]uint8 // the cell's index within that line
	zobrist   []uint64   // n*n*2 stone keys, then the side key
	centre    int16
	// nbrs[m] lists the neighbourhood entries a stone on m changes: for each direction k and
	// distance d = 1…4, the cell d steps away on either side and the bit position of m in
	// that cell's 16-bit neighbourhood (see neighbourhoods).
	nbrs [][]nbrRef
}

// nbrRef is one neighbourhood entry that a cell's stone changes.
type nbrRef struct {
	cell  int16
	k     uint8 // direction, as dirs
	shift uint8 // bit position of the stone in the cell's neighbourhood index
}

var geoCache sync.Map // int → *geometry

func geometryOf(n int) *geometry {
	if g, ok := geoCache.Load(n); ok {
		return g.(*geometry)
	}
	g := &geometry{n: n, cellLines: make([][4]int16, n*n), cellIndex: make([][4]uint8, n*n), zobrist: engine.ZobristTable(n*n*2+1, 0x60+uint64(n))}
	g.centre = int16((n/2)*n + n/2)
	for i := range g.cellLines {
		g.cellLines[i] = [4]int16{-1, -1, -1, -1}
	}
	in := func(x, y int) bool { return x >= 0 && x < n && y >= 0 && y < n }
	for d, dv := range dirs {
		for y := 0; y < n; y++ {
			for x := 0; x < n; x++ {
				if in(x-dv[0], y-dv[1]) {
					continue // not the start of a line
				}
				var line []int16
				for xx, yy := x, y; in(xx, yy); xx, yy = xx+dv[0], yy+dv[1] {
					line = append(line, int16(yy*n+xx))
				}
				if len(line) < 5 {
					continue
				}
				for i, c := range line {
					g.cellLines[c][d] = int16(len(g.lines))
					g.cellIndex[c][d] = uint8(i)
				}
				g.lines = append(g.lines, line)
				g.lineDir = append(g.lineDir, uint8(d))
			}
		}
	}
	g.nbrs = make([][]nbrRef, n*n)
	for m := range g.nbrs {
		x, y := m%n, m/n
		for k, dv := range dirs {
			for d := 1; d <= 4; d++ {
				// m is at offset +d from the cell d steps back, at −d from the one d ahead;
				// offsets −4…−1 are bits 0…6 and +1…+4 bits 8…14.
				if xx, yy := x-d*dv[0], y-d*dv[1]; in(xx, yy) {
					g.nbrs[m] = append(g.nbrs[m], nbrRef{int16(yy*n + xx), uint8(k), uint8(6 + 2*d)})
				}
				if xx, yy := x+d*dv[0], y+d*dv[1]; in(xx, yy) {
					g.nbrs[m] = append(g.nbrs[m], nbrRef{int16(yy*n + xx), uint8(k), uint8(8 - 2*d)})
				}
			}
		}
	}
	actual, _ := geoCache.LoadOrStore(n, g)
	return actual.(*geometry)
}

// paddedCells is the size of the padded board of the largest size.
const paddedCells = (maxSize + 2*pad) * (maxSize + 2*pad)

// Tables are the integer pattern scores and the style factors derived from Weights.
type Tables struct {
	Score  [NumPatterns]int64
	K1, K2 float64
}

// Position is a Gomoku position with incremental per-line pattern scores.
type Position struct {
	g         *geometry
	rule      Rule
	tab       *Tables
	cells     []int8              // 0 empty, 1 Black, 2 White
	padded    *[paddedCells]int8  // cells with a border of 4 (value 3): builds nbh
	nbh       [][4]uint16         // every cell's neighbourhood index per direction, kept by setCell
	winTab    *[1 << 16]int32     // dirWindowScores()
	thrTab    *[2][1 << 16]uint16 // threatTables()
	near      []uint8
	lineBits  [][2]uint32 // stones of every line per colour, bit i = the line's i-th cell
	lineScore [][2]int64  // pattern score of every line per colour
	lineFours [][2]uint8  // four-patterns of every line per colour
	lineThree [][2]uint8  // three-patterns (live and dead) of every line per colour
	score     [2]int64
	fours     [2]int32
	threes    [2]int32
	stm       engine.Color
	ply       int
	winner    int8
	key       uint64
}

// NewPosition returns the empty size×size board with the given rule and tables. With t nil
// it is a position of the rules alone (stones, five, renju fouls, Zobrist key), its lines'
// patterns kept but not scored, for the referee, perft, the protocols and replays; it is not
// evaluated or searched (a player searches a copy with its tables: SetTables). The error
// names an unsupported size.
func NewPosition(size int, rule Rule, t *Tables) (*Position, error) {
	if size < MinSize || size > MaxSize {
		return nil, fmt.Errorf("gomoku: board size %d is outside %d–%d", size, MinSize, MaxSize)
	}
	g := geometryOf(size)
	p := &Position{g: g, rule: rule, tab: t, winner: -1,
		cells: make([]int8, size*size), near: make([]uint8, size*size),
		padded:    new([paddedCells]int8),
		lineScore: make([][2]int64, len(g.lines)), lineFours: make([][2]uint8, len(g.lines)),
		lineThree: make([][2]uint8, len(g.lines)),
		lineBits:  make([][2]uint32, len(g.lines))}
	segmentCounts(5, 0) // build the segment table now, not inside the first search
	p.winTab, p.thrTab = dirWindowScores(), threatTables()
	for i := range p.padded {
		p.padded[i] = 3
	}
	for m := range p.cells {
		p.setCell(Move(m), 0)
	}
	p.nbh = make([][4]uint16, size*size)
	for m := range p.nbh {
		p.nbh[m] = p.gatherNeighbourhoods(Move(m))
	}
	return p, nil
}

// Clone returns an independent copy sharing the immutable tables.
func (p *Position) Clone() *Position {
	q := *p
	q.cells = append([]int8(nil), p.cells...)
	q.near = append([]uint8(nil), p.near...)
	pd := *p.padded
	q.padded = &pd
	q.nbh = append([][4]uint16(nil), p.nbh...)
	q.lineScore = append([][2]int64(nil), p.lineScore...)
	q.lineBits = append([][2]uint32(nil), p.lineBits...)
	q.lineFours = append([][2]uint8(nil), p.lineFours...)
	q.lineThree = append([][2]uint8(nil), p.lineThree...)
	return &q
}

// SetTables switches the evaluation tables and recomputes every line.
func (p *Position) SetTables(t *Tables) {
	p.tab = t
	p.score, p.fours, p.threes = [2]int64{}, [2]int32{}, [2]int32{}
	for li := range p.g.lines {
		for c := engine.Black; c <= engine.White; c++ {
			s, f, th := p.lineEval(li, c)
			p.lineScore[li][c], p.lineFours[li][c], p.lineThree[li][c] = s, f, th
			p.score[c] += s
			p.fours[c] += int32(f)
			p.threes[c] += int32(th)
		}
	}
}

// Size returns the board side.
func (p *Position) Size() int { return p.g.n }

// Rule returns the winning rule.
func (p *Position) Rule() Rule { return p.rule }

// ToMove returns the side to move.
func (p *Position) ToMove() engine.Color { return p.stm }

// Ply returns the number of stones played.
func (p *Position) Ply() int { return p.ply }

// Key returns the Zobrist key.
func (p *Position) Key() uint64 { return p.key }

// At returns 0 for empty, 1 for Black, 2 for White.
func (p *Position) At(m Move) int8 { return p.cells[m] }

// Winner returns the colour that made five, if any.
func (p *Position) Winner() (engine.Color, bool) {
	return engine.Color(p.winner), p.winner >= 0
}

// Full reports a board with no empty point.
func (p *Position) Full() bool { return p.ply == len(p.cells) }

// lineEval returns the pattern score and the numbers of four-patterns and three-patterns
// of colour c in line li. Segments (runs free of opponent stones, see MatchSegment) are cut
// out of the line's bitmasks.
func (p *Position) lineEval(li int, c engine.Color) (int64, uint8, uint8) {
	own, opp := p.lineBits[li][c], p.lineBits[li][c.Opponent()]
	if own == 0 {
		return 0, 0, 0
	}
	L := len(p.g.lines[li])
	var score int64
	var fours, threes uint8
	for start := 0; start < L; {
		end := L
		if rest := opp >> start; rest != 0 {
			end = start + bits.TrailingZeros32(rest)
		}
		if n := end - start; n >= 5 {
			if mask := (own >> start) & (1<<n - 1); mask != 0 {
				cnt := segmentCounts(n, mask)
				if p.tab != nil {
					for i, k := range cnt {
						if k != 0 {
							score += int64(k) * p.tab.Score[i]
						}
					}
				}
				fours += cnt[LiveFour] + cnt[DeadFourA] + cnt[DeadFourB] + cnt[DeadFourC]
				threes += cnt[LiveThree] + cnt[DeadThreeA] + cnt[DeadThreeB] + cnt[DeadThreeC] + cnt[DeadThreeD]
			}
		}
		start = end + 1
	}
	return score, fours, threes
}

func (p *Position) update(m Move) {
	for _, li := range p.g.cellLines[m] {
		if li < 0 {
			continue
		}
		for c := engine.Black; c <= engine.White; c++ {
			s, f, th := p.lineEval(int(li), c)
			p.score[c] += s - p.lineScore[li][c]
			p.fours[c] += int32(f) - int32(p.lineFours[li][c])
			p.threes[c] += int32(th) - int32(p.lineThree[li][c])
			p.lineScore[li][c], p.lineFours[li][c], p.lineThree[li][c] = s, f, th
		}
	}
}

func (p *Position) bumpNear(m Move, d int) { engine.BumpNear(p.near, p.g.n, int(m), 2, d) }

// Make plays m for the side to move (no legality check: see Legal).
func (p *Position) Make(m Move) {
	c := p.stm
	p.setCell(m, int8(c)+1)
	p.key ^= p.g.zobrist[int(m)*2+int(c)] ^ p.g.zobrist[len(p.g.zobrist)-1]
	p.bumpNear(m, 1)
	p.update(m)
	if p.makesFive(m, c) {
		p.winner = int8(c)
	}
	p.stm = c.Opponent()
	p.ply++
}

// Unmake takes back m, the last move made.
func (p *Position) Unmake(m Move) {
	p.ply--
	p.stm = p.stm.Opponent()
	c := p.stm
	p.setCell(m, 0)
	p.key ^= p.g.zobrist[int(m)*2+int(c)] ^ p.g.zobrist[len(p.g.zobrist)-1]
	p.bumpNear(m, -1)
	p.update(m)
	p.winner = -1
}

func (p *Position) setCell(m Move, v int8) {
	if old := p.cells[m]; old != 0 {
		for d, li := range p.g.cellLines[m] {
			if li >= 0 {
				p.lineBits[li][old-1] &^= 1 << p.g.cellIndex[m][d]
			}
		}
	}
	if v != 0 {
		for d, li := range p.g.cellLines[m] {
			if li >= 0 {
				p.lineBits[li][v-1] |= 1 << p.g.cellIndex[m][d]
			}
		}
	}
	if delta := uint16(p.cells[m] ^ v); delta != 0 && p.nbh != nil {
		for _, r := range p.g.nbrs[m] {
			p.nbh[r.cell][r.k] ^= delta << r.shift
		}
	}
	p.cells[m] = v
	w := p.g.n + 2*pad
	p.padded[int(m)%p.g.n+pad+(int(m)/p.g.n+pad)*w] = v
}

// runThrough returns the length of c's run through m in direction d, counting m as c's.
func (p *Position) runThrough(m Move, c engine.Color, d int) int {
	n := p.g.n
	own := int8(c) + 1
	x0, y0 := int(m)%n, int(m)/n
	run := 1
	for _, s := range [2]int{1, -1} {
		x, y := x0+s*dirs[d][0], y0+s*dirs[d][1]
		for x >= 0 && x < n && y >= 0 && y < n && p.cells[y*n+x] == own {
			run++
			x, y = x+s*dirs[d][0], y+s*dirs[d][1]
		}
	}
	return run
}

// makesFive reports whether a stone of c at m wins under the position's rule.
func (p *Position) makesFive(m Move, c engine.Color) bool {
	for d := range dirs {
		r := p.runThrough(m, c, d)
		if r == 5 || (r > 5 && (p.rule == Freestyle || p.rule == Renju && c == engine.White)) {
			return true
		}
	}
	return false
}

// Legal reports why m cannot be played, or nil.
func (p *Position) Legal(m Move) error {
	if p.winner >= 0 || p.Full() {
		return fmt.Errorf("move %s: the game is over", p.MoveString(m))
	}
	if m < 0 || int(m) >= len(p.cells) {
		return fmt.Errorf("move %d: off the %d×%d board", m, p.g.n, p.g.n)
	}
	if p.cells[m] != 0 {
		return fmt.Errorf("move %s: the point is occupied", p.MoveString(m))
	}
	return nil
}

// Terminal reports five in a row (the side to move lost) or a full board (draw).
func (p *Position) Terminal() (bool, int64) {
	if p.winner >= 0 {
		if engine.Color(p.winner) == p.stm {
			return true, engine.Win
		}
		return true, -engine.Win
	}
	if p.Full() {
		return true, 0
	}
	return false, 0
}

// Evaluate is K1·own − K2·opponent pattern score for the side to move
// (001_4cd63e63655ef194.txt §2).
func (p *Position) Evaluate() int64 {
	return int64(p.tab.K1*float64(p.score[p.stm]) - p.tab.K2*float64(p.score[p.stm.Opponent()]))
}

// PatternScore returns Σ count·score over all lines for colour c (incrementally kept).
func (p *Position) PatternScore(c engine.Color) int64 { return p.score[c] }

// MoveString names a point, e.g. "h8".
func (p *Position) MoveString(m Move) string {
	n := p.g.n
	return fmt.Sprintf("%c%d", 'a'+rune(int(m)%n), int(m)/n+1)
}

// ParseMove parses "h8" (also "H8") on this board; the error names the text.
func (p *Position) ParseMove(s string) (Move, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	n := p.g.n
	if len(t) < 2 || t[0] < 'a' || int(t[0]-'a') >= n {
		return 0, fmt.Errorf("move %q: want a column a–%c and a row 1–%d, like h8", s, 'a'+rune(n-1), n)
	}
	row := 0
	for _, ch := range t[1:] {
		if ch < '0' || ch > '9' || row > 100 {
			return 0, fmt.Errorf("move %q: row is not a number", s)
		}
		row = row*10 + int(ch-'0')
	}
	if row < 1 || row > n {
		return 0, fmt.Errorf("move %q: row %d is outside 1–%d", s, row, n)
	}
	return Move((row-1)*n + int(t[0]-'a')), nil
}

// Picture draws the position for a viewer (engine.Pictured): 'B' Black's stones, 'W'
// White's.
func (p *Position) Picture() []string {
	n := p.Size()
	return engine.PictureRows(n, func(x, row int) byte { return ".BW"[p.cells[(row-1)*n+x]] })
}

// String draws the board, top row first, X = Black, O = White.
func (p *Position) String() string {
	n := p.g.n
	return engine.DrawBoard(n, 'a', func(x, row int) byte { return ".XO"[p.cells[(row-1)*n+x]] })
}
