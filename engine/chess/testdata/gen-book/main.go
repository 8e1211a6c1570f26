// Command gen-book writes the project's small opening book: every position after White's and
// Black's first moves (20 × 20 = 400), one EPD line each, in the order of the moves' UCI
// names. It is the book of the tests and of the README's examples:
//
//	go run ./engine/chess/testdata/gen-book > engine/chess/testdata/two-ply.epd
//
// With -polyglot FILE it writes the same 400 lines as a Polyglot book instead (420 entries
// of weight 1: the 20 first moves and the 20 replies to each, keys from the rules
// library's Polyglot hasher, sorted by key as the format wants):
//
//	go run ./engine/chess/testdata/gen-book -polyglot engine/chess/testdata/two-ply.bin
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"os"
	"sort"
	"strconv"
	"strings"

	lib "github.com/corentings/chess/v2"

	"evotune/engine"
	"evotune/engine/chess"
)

func main() {
	polyglot := flag.String("polyglot", "", "write the book as a Polyglot book to this file")
	flag.Parse()
	if *polyglot != "" {
		if err := os.WriteFile(*polyglot, polyglotBook(), 0o644); err != nil {
			log.Fatal(err)
		}
		return
	}
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

// polyglotBook is the 400 lines as a Polyglot book: 16-byte entries (key, move, weight 1,
// learn 0), big-endian, sorted by key.
func polyglotBook() []byte {
	type entry struct {
		key  uint64
		move uint16
	}
	key := func(p *lib.Position) uint64 {
		h, err := lib.NewZobristHasher().HashPosition(p.String())
		if err != nil {
			log.Fatal(err)
		}
		k, err := strconv.ParseUint(h, 16, 64)
		if err != nil {
			log.Fatal(err)
		}
		return k
	}
	// Polyglot's move: to file, to rank, from file, from rank, 3 bits each.
	enc := func(m lib.Move) uint16 {
		f, t := int(m.S1()), int(m.S2())
		return uint16(t%8 | (t/8)<<3 | (f%8)<<6 | (f/8)<<9)
	}
	var es []entry
	start := lib.StartingPosition()
	for _, m := range start.ValidMoves() {
		es = append(es, entry{key(start), enc(m)})
		p := start.Update(&m)
		for _, r := range p.ValidMoves() {
			es = append(es, entry{key(p), enc(r)})
		}
	}
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].key != es[j].key {
			return es[i].key < es[j].key
		}
		return es[i].move < es[j].move
	})
	var out []byte
	for _, e := range es {
		var b [16]byte
		binary.BigEndian.PutUint64(b[:8], e.key)
		binary.BigEndian.PutUint16(b[8:10], e.move)
		binary.BigEndian.PutUint16(b[10:12], 1)
		out = append(out, b[:]...)
	}
	return out
}
