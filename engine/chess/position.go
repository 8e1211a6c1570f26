package chess

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	lib "github.com/corentings/chess/v2"

	"evotune/engine"
	"evotune/engine/search"
)

// Move is a chess move packed for the searcher: from | to<<6 | promotion<<12, squares
// numbered a1 = 0 … h8 = 63 and the promotion piece 0 (none), 1 knight, 2 bishop, 3 rook,
// 4 queen. Its notation (MoveString, ParseMove) is UCI's long algebraic: "e2e4", "e7e8q",
// castling as the king's move ("e1g1").
type Move uint16

// libMove is the library's move.
type libMove = lib.Move

var promoOf = [5]lib.PieceType{lib.NoPieceType, lib.Knight, lib.Bishop, lib.Rook, lib.Queen}

func packMove(m *lib.Move) Move {
	p := 0
	for i, t := range promoOf {
		if i > 0 && m.Promo() == t {
			p = i
		}
	}
	return Move(uint16(m.S1()) | uint16(m.S2())<<6 | uint16(p)<<12)
}

func (m Move) from() lib.Square     { return lib.Square(m & 63) }
func (m Move) to() lib.Square       { return lib.Square(m >> 6 & 63) }
func (m Move) promo() lib.PieceType { return promoOf[min(int(m>>12), 4)] }

// String is the move in UCI notation.
func (m Move) String() string {
	s := m.from().String() + m.to().String()
	if p := m.promo(); p != lib.NoPieceType {
		s += p.String()
	}
	return s
}

// Position is a chess position with what the rules need beyond one FEN: the Zobrist keys of
// the positions since the last capture or pawn move (threefold repetition), the positions
// before each move (Unmake) and, for a player's search, its evaluation tables (nil for a
// board's position: the rules alone). Moves come from github.com/corentings/chess/v2;
// nothing here generates moves by hand.
type Position struct {
	pos   *lib.Position
	prev  []*lib.Position // the positions before each move made, for Unmake
	keys  []uint64        // the key of every position from the start, the current last
	moves []lib.Move      // legal moves of pos (nil = not yet generated)
	plies int             // moves made since the start position (setup not counted)
	tab   *Tables
}

// StartFEN is the standard start position.
const StartFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

// NewPosition returns the standard start position (evaluated with tab; nil = rules only).
func NewPosition(tab *Tables) *Position {
	p, _ := PositionFromFEN(StartFEN, tab)
	return p
}

// libFEN serialises the rules library's FEN decoding: github.com/corentings/chess/v2 v2.3.2
// splits a FEN's ranks into a package-level array (fen.go's rankBuffer), so two boards set
// up at once from two goroutines (two games of a match) could each get the other's ranks,
// a position neither FEN holds. The race detector shows it (TestConcurrentFEN). Later
// releases of the library keep that array on the stack; v2.3.2 is the one the module proxy
// here serves.
var libFEN sync.Mutex

// checkFENBytes refuses a FEN holding a byte outside printable ASCII before the rules
// library sees it: v2.3.2 indexes a 128-entry table with each byte of a rank (fen.go's
// fenCharToPiece) and panics on any byte above 127.
func checkFENBytes(fen string) error {
	for i := 0; i < len(fen); i++ {
		if c := fen[i]; c < ' ' || c > '~' {
			return fmt.Errorf("FEN %q: byte %d (%#x) is not printable ASCII", fen, i+1, c)
		}
	}
	return nil
}

// PositionFromFEN sets up the position a FEN describes. The error names what is wrong: a
// malformed field, a missing king, a side not to move left in check.
func PositionFromFEN(fen string, tab *Tables) (*Position, error) {
	fen = strings.TrimSpace(fen)
	f := strings.Fields(fen)
	switch len(f) {
	case 4: // EPD's four fields: the clocks start at 0 and 1
		fen += " 0 1"
	case 6:
	default:
		return nil, fmt.Errorf("FEN %q: %d fields, want 6 (or EPD's 4)", fen, len(f))
	}
	if err := checkFENBytes(fen); err != nil {
		return nil, err
	}
	var lp lib.Position
	libFEN.Lock()
	err := lp.UnmarshalText([]byte(fen))
	libFEN.Unlock()
	if err != nil {
		return nil, fmt.Errorf("FEN %q: %v", fen, err)
	}
	var kings [2]int
	for sq := lib.A1; sq <= lib.H8; sq++ {
		switch lp.Board().Piece(sq) {
		case lib.WhiteKing:
			kings[0]++
		case lib.BlackKing:
			kings[1]++
		}
	}
	if kings != [2]int{1, 1} {
		return nil, fmt.Errorf("FEN %q: want one king of each colour, found %d white and %d black", fen, kings[0], kings[1])
	}
	p := &Position{pos: &lp, tab: tab}
	p.keys = []uint64{p.computeKey()}
	// The side that just moved may not be in check: no move of the side to move may
	// capture a king.
	for _, m := range p.legal() {
		if t := lp.Board().Piece(m.S2()); t == lib.WhiteKing || t == lib.BlackKing {
			return nil, fmt.Errorf("FEN %q: the side not to move is in check", fen)
		}
	}
	return p, nil
}

// FEN returns the position's FEN (six fields).
func (p *Position) FEN() string { return p.pos.String() }

// Lib is the library's position (shared: do not modify).
func (p *Position) Lib() *lib.Position { return p.pos }

// Size is 8.
func (p *Position) Size() int { return 8 }

// ToMove is the side to move as engine colours: White, the first mover, is engine.Black
// (index 0), Black engine.White (index 1) — see Game.ColourNames.
func (p *Position) ToMove() engine.Color {
	if p.pos.Turn() == lib.White {
		return engine.Black
	}
	return engine.White
}

// Ply is the number of moves made since the start position (a FEN setup is not a move).
func (p *Position) Ply() int { return p.plies }

// Key is the Zobrist key of the position (pieces, side to move, castling rights and an
// en-passant file where a capture there is possible).
func (p *Position) Key() uint64 { return p.keys[len(p.keys)-1] }

// Picture draws the position for a viewer (engine.Pictured): rank 8 first, FEN's piece letters,
// '.' for an empty square.
func (p *Position) Picture() []string {
	lb := p.pos.Board()
	out := make([]string, 8)
	for r := 7; r >= 0; r-- {
		row := make([]byte, 8)
		for f := 0; f < 8; f++ {
			row[f] = '.'
			if pc := lb.Piece(lib.NewSquare(lib.File(f), lib.Rank(r))); pc != lib.NoPiece {
				s := pc.Type().String()
				if pc.Color() == lib.White {
					s = strings.ToUpper(s)
				}
				row[f] = s[0]
			}
		}
		out[7-r] = string(row)
	}
	return out
}

// String draws the board as text, rank 8 at the top, White's pieces in capitals.
func (p *Position) String() string {
	b := p.pos.Board()
	return engine.DrawBoard(8, 'a', func(x, row int) byte {
		pc := b.Piece(lib.NewSquare(lib.File(x), lib.Rank(row-1)))
		if pc == lib.NoPiece {
			return '.'
		}
		s := pc.Type().String()
		if pc.Color() == lib.White {
			s = strings.ToUpper(s)
		}
		return s[0]
	})
}

// ParseMove reads a move in UCI notation; the error names a malformed move.
func (p *Position) ParseMove(s string) (Move, error) {
	if len(s) < 4 || len(s) > 5 || s[0] < 'a' || s[0] > 'h' || s[2] < 'a' || s[2] > 'h' ||
		s[1] < '1' || s[1] > '8' || s[3] < '1' || s[3] > '8' {
		return 0, fmt.Errorf("move %q: want UCI notation such as e2e4 or e7e8q", s)
	}
	m := Move(uint16(s[0]-'a') + uint16(s[1]-'1')*8 | (uint16(s[2]-'a')+uint16(s[3]-'1')*8)<<6)
	if len(s) == 5 {
		i := strings.IndexByte("nbrq", s[4])
		if i < 0 {
			return 0, fmt.Errorf("move %q: promotion piece %q, want n, b, r or q", s, s[4])
		}
		m |= Move(i+1) << 12
	}
	return m, nil
}

// legal returns the legal moves (generated once per position).
func (p *Position) legal() []lib.Move {
	if p.moves == nil {
		p.moves = p.pos.ValidMoves()
		if p.moves == nil {
			p.moves = []lib.Move{}
		}
	}
	return p.moves
}

// find returns the library's move for m, or nil if m is not legal.
func (p *Position) find(m Move) *lib.Move {
	ms := p.legal()
	for i := range ms {
		if packMove(&ms[i]) == m {
			return &ms[i]
		}
	}
	return nil
}

// Legal returns nil for a legal move, else an error naming why it is not.
func (p *Position) Legal(m Move) error {
	if over, _, why := p.Status(); over {
		return fmt.Errorf("move %s: the game is over (%s)", m, why)
	}
	if p.find(m) == nil {
		return fmt.Errorf("move %s is not legal in %s", m, p.FEN())
	}
	return nil
}

// Make plays a legal move.
func (p *Position) Make(m Move) {
	lm := p.find(m)
	p.prev = append(p.prev, p.pos)
	p.pos = p.pos.Update(lm)
	p.moves = nil
	p.plies++
	p.keys = append(p.keys, p.computeKey())
}

// Unmake takes back the last move made.
func (p *Position) Unmake(Move) {
	n := len(p.prev) - 1
	p.pos, p.prev = p.prev[n], p.prev[:n]
	p.keys = p.keys[:len(p.keys)-1]
	p.moves = nil
	p.plies--
}

// Clone returns an independent copy (library positions are never modified, only
// replaced, so they are shared).
func (p *Position) Clone() *Position {
	q := *p
	q.prev = append([]*lib.Position(nil), p.prev...)
	q.keys = append([]uint64(nil), p.keys...)
	q.moves = nil
	return &q
}

// Terminations, as fastchess and cutechess name the way a game ended.
const (
	Checkmate            = "checkmate"
	Stalemate            = "stalemate"
	FiftyMoves           = "fifty-move rule"
	Repetition           = "threefold repetition"
	InsufficientMaterial = "insufficient material"
)

// Status reports whether the game is over, its result for the side to move (+1 won, −1
// lost, 0 drawn) and why, in fastchess's order (its chess library's isGameOver): the
// fifty-move rule (unless the move that reached it mated), insufficient material (bare
// kings; king and one minor piece against a king; a bishop each on squares of one colour;
// two bishops of one colour against a bare king), threefold repetition (the position seen
// twice before since the last capture or pawn move), then checkmate or stalemate.
func (p *Position) Status() (over bool, result int, why string) {
	if p.pos.HalfMoveClock() >= 100 {
		if len(p.legal()) == 0 && p.inCheck() {
			return true, -1, Checkmate
		}
		return true, 0, FiftyMoves
	}
	if p.insufficient() {
		return true, 0, InsufficientMaterial
	}
	if p.repeated() {
		return true, 0, Repetition
	}
	if len(p.legal()) == 0 {
		if p.inCheck() {
			return true, -1, Checkmate
		}
		return true, 0, Stalemate
	}
	return false, 0, ""
}

// repeated reports a third occurrence of the position since the last capture or pawn move.
func (p *Position) repeated() bool {
	n := len(p.keys) - 1
	key, count := p.keys[n], 0
	for i := n - 2; i >= 0 && i >= n-p.pos.HalfMoveClock(); i -= 2 {
		if p.keys[i] == key {
			if count++; count == 2 {
				return true
			}
		}
	}
	return false
}

// insufficient is fastchess's insufficient-material rule (see Status).
func (p *Position) insufficient() bool {
	b := p.pos.Board()
	var n, pieces, knights int
	var bishops [2][]lib.Square // by colour of the piece
	for sq := lib.A1; sq <= lib.H8; sq++ {
		pc := b.Piece(sq)
		if pc == lib.NoPiece {
			continue
		}
		n++
		switch pc.Type() {
		case lib.King:
		case lib.Bishop:
			c := 0
			if pc.Color() == lib.Black {
				c = 1
			}
			bishops[c] = append(bishops[c], sq)
		case lib.Knight:
			knights++
		default:
			pieces++
		}
		if n > 4 {
			return false
		}
	}
	light := func(sq lib.Square) bool { return (int(sq.File())+int(sq.Rank()))%2 == 1 }
	switch n {
	case 2:
		return true
	case 3:
		return pieces == 0
	case 4:
		if pieces > 0 || knights > 0 {
			return false
		}
		if len(bishops[0]) == 1 && len(bishops[1]) == 1 {
			return light(bishops[0][0]) == light(bishops[1][0])
		}
		for _, bs := range bishops {
			if len(bs) == 2 {
				return light(bs[0]) == light(bs[1])
			}
		}
	}
	return false
}

// zobrist: 12×64 piece keys, side to move, 4 castling rights, 8 en-passant files.
var zobrist = engine.ZobristTable(12*64+1+4+8, 0xc4e55)

// computeKey hashes the position from scratch.
func (p *Position) computeKey() uint64 {
	b := p.pos.Board()
	var k uint64
	for sq := lib.A1; sq <= lib.H8; sq++ {
		if pc := b.Piece(sq); pc != lib.NoPiece {
			k ^= zobrist[int(pc-1)*64+int(sq)]
		}
	}
	if p.pos.Turn() == lib.Black {
		k ^= zobrist[12*64]
	}
	cr := p.pos.CastleRights()
	for i, c := range [4]struct {
		c lib.Color
		s lib.Side
	}{{lib.White, lib.KingSide}, {lib.White, lib.QueenSide}, {lib.Black, lib.KingSide}, {lib.Black, lib.QueenSide}} {
		if cr.CanCastle(c.c, c.s) {
			k ^= zobrist[12*64+1+i]
		}
	}
	if ep := p.pos.EnPassantSquare(); ep != lib.NoSquare {
		for _, m := range p.legal() {
			if m.S2() == ep && m.HasTag(lib.EnPassant) {
				k ^= zobrist[12*64+5+int(ep.File())]
				break
			}
		}
	}
	return k
}

// MoveString names a move in UCI notation (search.Root).
func (p *Position) MoveString(m Move) string { return m.String() }

// SAN names a legal move in standard algebraic notation ("Nf3", "exd5", "O-O", "e8=Q+").
func (p *Position) SAN(m Move) string {
	lm := p.find(m)
	if lm == nil {
		return m.String()
	}
	// The check sign is decided here (see inCheck), not by the library.
	san := strings.TrimRight(lib.AlgebraicNotation{}.Encode(p.pos, lm), "+#")
	q := p.Clone()
	q.Make(m)
	if q.inCheck() {
		if len(q.legal()) == 0 {
			return san + "#"
		}
		return san + "+"
	}
	return san
}

// ParseSAN reads a move in standard algebraic notation; the error names a move that is not
// legal here.
func (p *Position) ParseSAN(s string) (Move, error) {
	lm, err := lib.AlgebraicNotation{}.Decode(p.pos, s)
	if err != nil {
		return 0, fmt.Errorf("move %q: %v", s, err)
	}
	m := packMove(lm)
	if p.find(m) == nil {
		return 0, fmt.Errorf("move %q is not legal in %s", s, p.FEN())
	}
	return m, nil
}

var errNoTables = errors.New("chess: the position has no evaluation tables")

var _ search.Root[Move] = (*Position)(nil)

// inCheck reports whether the side to move's king is attacked. The library's own flag is
// not used: it marks an under-promotion that would give check as a queen (f7f8r next to a
// king on e7) as check, which would make such a stalemate a checkmate. This looks only at
// attacks on one square; the moves themselves are the library's.
func (p *Position) inCheck() bool {
	b := p.pos.Board()
	us := p.pos.Turn()
	king := lib.WhiteKing
	if us == lib.Black {
		king = lib.BlackKing
	}
	for sq := lib.A1; sq <= lib.H8; sq++ {
		if b.Piece(sq) == king {
			return attacked(b, sq, us.Other())
		}
	}
	return false
}

// attacked reports whether a piece of colour by attacks sq.
func attacked(b *lib.Board, sq lib.Square, by lib.Color) bool {
	f, r := int(sq.File()), int(sq.Rank())
	at := func(ff, rr int) lib.Piece {
		if ff < 0 || ff > 7 || rr < 0 || rr > 7 {
			return lib.NoPiece
		}
		return b.Piece(lib.NewSquare(lib.File(ff), lib.Rank(rr)))
	}
	is := func(pc lib.Piece, types ...lib.PieceType) bool {
		if pc == lib.NoPiece || pc.Color() != by {
			return false
		}
		for _, t := range types {
			if pc.Type() == t {
				return true
			}
		}
		return false
	}
	behind := -1 // a white pawn attacks from the rank below
	if by == lib.Black {
		behind = 1
	}
	for _, df := range []int{-1, 1} {
		if is(at(f+df, r+behind), lib.Pawn) {
			return true
		}
	}
	for _, d := range [8][2]int{{1, 2}, {2, 1}, {-1, 2}, {-2, 1}, {1, -2}, {2, -1}, {-1, -2}, {-2, -1}} {
		if is(at(f+d[0], r+d[1]), lib.Knight) {
			return true
		}
	}
	for _, d := range [8][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
		if is(at(f+d[0], r+d[1]), lib.King) {
			return true
		}
		slider := lib.Rook
		if d[0] != 0 && d[1] != 0 {
			slider = lib.Bishop
		}
		for k := 1; k < 8; k++ {
			ff, rr := f+k*d[0], r+k*d[1]
			if ff < 0 || ff > 7 || rr < 0 || rr > 7 {
				break
			}
			if pc := at(ff, rr); pc != lib.NoPiece {
				if is(pc, slider, lib.Queen) {
					return true
				}
				break
			}
		}
	}
	return false
}
