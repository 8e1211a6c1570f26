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
