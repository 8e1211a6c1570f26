// Command gen-book writes the project's small opening book: every position after White's and
// Black's first moves (20 × 20 = 400), one EPD line each, in the order of the moves' UCI
// names. It is the book of the tests and of the README's examples:
//
//	go run ./engine/chess/testdata/gen-book > engine/chess/testdata/two-ply.epd
package main

import (
	"fmt"
	"sort"
	"strings"

	"evotune/engine"
	"evotune/engine/chess"
)

func main() {
	g := chess.Game{}
	start, _ := g.NewBoard(0)
	var lines []string
	for _, m1 := range moves(start) {
		b1 := start.Clone()
		b1.Play(m1)
		for _, m2 := range moves(b1) {
			b2 := b1.Clone()
			b2.Play(m2)
			f := strings.Fields(b2.(*chess.Board).FEN())
			lines = append(lines, fmt.Sprintf("%s c0 \"1. %s %s\";", strings.Join(f[:4], " "), m1, m2))
		}
	}
	sort.Strings(lines)
	fmt.Println(strings.Join(lines, "\n"))
}

// moves lists the legal moves of b, sorted.
func moves(b engine.Board) []string {
	out := b.(*chess.Board).Moves()
	sort.Strings(out)
	return out
}
