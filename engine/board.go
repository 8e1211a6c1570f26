package engine

import (
	"fmt"
	"strings"
)

// MoveLog is the move history a game's Board keeps for engine.Historian; embed it and call
// Record after every move played.
type MoveLog struct {
	hist []string
}

// History returns a copy of the moves recorded so far, in the game's notation.
func (l *MoveLog) History() []string { return append([]string(nil), l.hist...) }

// Record appends a move played.
func (l *MoveLog) Record(move string) { l.hist = append(l.hist, move) }

// CloneLog returns an independent copy of the log.
func (l *MoveLog) CloneLog() MoveLog { return MoveLog{hist: l.History()} }

// BumpNear adds d to near[] over the (2·radius+1)² square of an n×n board centred on the
// point pt = y·n + x, clipped at the edges: the candidate-point counts of Gomoku
// (001_4cd63e63655ef194.txt §2: the square of side 4 around each stone) and Connect6.
func BumpNear(near []uint8, n, pt, radius, d int) {
	x, y := pt%n, pt/n
	for yy := max(y-radius, 0); yy <= min(y+radius, n-1); yy++ {
		for xx := max(x-radius, 0); xx <= min(x+radius, n-1); xx++ {
			near[yy*n+xx] = uint8(int(near[yy*n+xx]) + d)
		}
	}
}

// PictureRows is the picture (Pictured) of an n×n board: row n first, each point the
// byte at(x, row) (x from 0 at the left, row from 1 at the bottom), as DrawBoard draws it.
func PictureRows(n int, at func(x, row int) byte) []string {
	out := make([]string, 0, n)
	for row := n; row >= 1; row-- {
		b := make([]byte, n)
		for x := range b {
			b[x] = at(x, row)
		}
		out = append(out, string(b))
	}
	return out
}

// DrawBoard draws an n×n board as text, row n at the top: each row labelled with its
// number, each point the byte at(x, row) (x from 0 at the left, row from 1 at the bottom),
// and a last line of file letters from firstFile.
func DrawBoard(n int, firstFile byte, at func(x, row int) byte) string {
	var sb strings.Builder
	for row := n; row >= 1; row-- {
		fmt.Fprintf(&sb, "%2d ", row)
		for x := 0; x < n; x++ {
			sb.WriteByte(at(x, row))
			sb.WriteByte(' ')
		}
		sb.WriteByte('\n')
	}
	sb.WriteString("   ")
	for x := 0; x < n; x++ {
		sb.WriteByte(firstFile + byte(x))
		sb.WriteByte(' ')
	}
	sb.WriteByte('\n')
	return sb.String()
}

// Position is what a game's position offers PositionBoard: its state and its moves M
// parsed from the game's notation, checked and made (engine/<game>/board.go).
type Position[M any] interface {
	// Size is the board side.
	Size() int
	// ToMove is the side to move.
	ToMove() Color
	// Ply is the number of moves played.
	Ply() int
	// Key is the Zobrist key.
	Key() uint64
	// String draws the position.
	String() string
	// Picture draws the position for a viewer (Pictured).
	Picture() []string
	// ParseMove reads a move in the game's notation; the error names a malformed move.
	ParseMove(s string) (M, error)
	// Legal returns nil for a legal move, else an error naming why it is not.
	Legal(m M) error
	// Make plays a legal move.
	Make(m M)
}

// PositionBoard is the part of engine.Board the three games share: a position and the
// moves played (MoveLog, engine.Historian). A game's Board embeds it and adds Game,
// Outcome and Clone (and its own Play where a move does more, as Gomoku's renju foul).
type PositionBoard[P Position[M], M any] struct {
	// Pos is the position (the game's Board owns it; its searches copy it).
	Pos P
	MoveLog
}

// Position returns the position (shared, not a copy): what a search.Player searches a copy
// of.
func (b *PositionBoard[P, M]) Position() P { return b.Pos }

// Size returns the board side.
func (b *PositionBoard[P, M]) Size() int { return b.Pos.Size() }

// Picture draws the position for a viewer (Pictured).
func (b *PositionBoard[P, M]) Picture() []string { return b.Pos.Picture() }

// ToMove returns the side to move.
func (b *PositionBoard[P, M]) ToMove() Color { return b.Pos.ToMove() }

// Ply returns the number of moves played.
func (b *PositionBoard[P, M]) Ply() int { return b.Pos.Ply() }

// Key returns the Zobrist key.
func (b *PositionBoard[P, M]) Key() uint64 { return b.Pos.Key() }

// String draws the board.
func (b *PositionBoard[P, M]) String() string { return b.Pos.String() }

// Play parses, checks and plays a move in the game's notation and records it; the board is
// unchanged on error (the error is ParseMove's or Legal's).
func (b *PositionBoard[P, M]) Play(s string) error {
	m, err := b.Pos.ParseMove(s)
	if err != nil {
		return err
	}
	if err := b.Pos.Legal(m); err != nil {
		return err
	}
	b.Pos.Make(m)
	b.Record(s)
	return nil
}
