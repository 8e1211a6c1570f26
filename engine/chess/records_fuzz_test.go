package chess

import (
	"strings"
	"testing"
)

// fuzzFENs are the positions FuzzParseSAN reads moves in: the start, Kiwipete (castling
// both ways, pins, en passant after a double step), a promotion race and a position with
// two knights and two rooks that can reach the same squares (disambiguation).
var fuzzFENs = []string{
	"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/P6k/8/8/8/8/6Kp/8 w - - 0 1",
	"4k3/8/8/2N1N3/8/R6R/8/4K3 w - - 0 1",
}

// FuzzParseSAN: in each position, any text is read or refused without a panic; a move
// read is legal there, and its SAN as evotune writes it reads back to the same move.
func FuzzParseSAN(f *testing.F) {
	for _, s := range []string{"e4", "Nf3", "O-O", "O-O-O", "exd5", "a8=Q", "a8=N+", "Rad3", "R3h5", "Nc5e4", "Ke2", "e8=K", "Qxf7#", "", "0-0", "Z9"} {
		f.Add(uint8(0), s)
		f.Add(uint8(1), s)
	}
	f.Add(uint8(2), "a8=Q")
	f.Add(uint8(3), "Ncd3")
	f.Add(uint8(3), "Rad3")
	f.Fuzz(func(t *testing.T, which uint8, s string) {
		fen := fuzzFENs[int(which)%len(fuzzFENs)]
		p, err := PositionFromFEN(fen, nil)
		if err != nil {
			t.Fatalf("%s: %v", fen, err)
		}
		m, err := p.ParseSAN(s)
		if err != nil {
			return
		}
		if err := p.Legal(m); err != nil {
			t.Fatalf("ParseSAN(%q) in %s = %s, not legal: %v", s, fen, m, err)
		}
		san := p.SAN(m)
		back, err := p.ParseSAN(san)
		if err != nil || back != m {
			t.Fatalf("ParseSAN(%q) in %s = %s, whose SAN %q reads back as %s, %v", s, fen, m, san, back, err)
		}
	})
}

// FuzzReadBook: any book text, as EPD, as PGN and as a Polyglot book, is read or refused with an error that
// names the book, without a panic; every opening read plays legally from the start.
func FuzzReadBook(f *testing.F) {
	f.Add("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"1\";\n", uint8(0))
	f.Add("4k3/8/8/8/8/8/4R3/4K3 w - -\n", uint8(0))
	f.Add("[Event \"a\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n", uint8(3))
	f.Add("[Event \"b\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]\n[SetUp \"1\"]\n\n1... c5 2. Nf3 d6 *\n", uint8(0))
	f.Add("[Event \"c\"]\n\n1. e4 {a comment} (1. d4 d5) e5 $1 2. Ke2 *\n", uint8(8))
	f.Add("1. e4 e5", uint8(2))
	f.Fuzz(func(t *testing.T, book string, plies uint8) {
		g := Game{}
		for _, name := range []string{"fuzz.epd", "fuzz.pgn", "fuzz.bin"} {
			ops, err := g.ReadBook(name, []byte(book), int(plies%16))
			if err != nil {
				if !strings.HasPrefix(err.Error(), name) {
					t.Fatalf("ReadBook(%s): the error %q does not name the book", name, err)
				}
				continue
			}
			for i, o := range ops {
				b, _ := g.NewBoard(0)
				for _, m := range o {
					if err := b.Play(m); err != nil {
						t.Fatalf("ReadBook(%s): opening %d %v: %s: %v", name, i, o, m, err)
					}
				}
			}
		}
	})
}
