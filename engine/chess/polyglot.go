package chess

import (
	"fmt"
	"strconv"
	"strings"

	lib "github.com/corentings/chess/v2"
)

// Polyglot opening books (.bin): 16-byte entries, each a position's Polyglot Zobrist key,
// a move and its weight, sorted by key (H. G. Muller, "The Polyglot opening book format").
// The rules library reads the entries and computes the keys (lib.LoadFromBytes,
// lib.ZobristHasher: the start position's key is 0x463b96181691fc9c).

// MaxPolyglotLines bounds the lines a Polyglot book gives (readPolyglot); a book and ply
// count with more are refused with the advice to take fewer plies.
const MaxPolyglotLines = 100000

// maxPolyglotPlies is how deep a Polyglot book is followed when no ply count is given.
const maxPolyglotPlies = 16

// readPolyglot reads a Polyglot book as openings: every line of book moves of weight > 0
// from the start position, plies plies long (0: up to maxPolyglotPlies) or shorter where
// the book has no move, in the book's order (heaviest first). An entry that is not a legal
// move of its position (a key collision) is skipped. Errors name the book.
func readPolyglot(name string, data []byte, plies int) ([][]string, error) {
	if len(data) == 0 || len(data)%16 != 0 {
		return nil, fmt.Errorf("%s: %d bytes, not a Polyglot book (whole 16-byte entries)", name, len(data))
	}
	book, err := lib.LoadFromBytes(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if plies <= 0 {
		plies = maxPolyglotPlies
	}
	var out [][]string
	var walk func(b *Board, line []string) error
	walk = func(b *Board, line []string) error {
		if len(out) > MaxPolyglotLines {
			return fmt.Errorf("%s: more than %d lines of %d plies: take fewer plies", name, MaxPolyglotLines, plies)
		}
		if len(line) == plies {
			out = append(out, append([]string(nil), line...))
			return nil
		}
		key, err := polyglotKey(b)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		played := 0
		for _, e := range book.FindMoves(key) {
			if e.Weight == 0 {
				continue
			}
			m, ok := polyglotMove(b, e.Move)
			if !ok {
				continue
			}
			next := b.Clone().(*Board)
			if err := next.Play(m); err != nil {
				continue
			}
			played++
			if err := walk(next, append(line, m)); err != nil {
				return err
			}
		}
		if played == 0 && len(line) > 0 {
			out = append(out, append([]string(nil), line...))
		}
		return nil
	}
	b, _ := Game{}.NewBoard(0)
	if err := walk(b.(*Board), nil); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no move for the start position", name)
	}
	return out, nil
}

// polyglotKey is the Polyglot Zobrist key of b's position.
func polyglotKey(b *Board) (uint64, error) {
	h, err := lib.NewZobristHasher().HashPosition(b.FEN())
	if err != nil {
		return 0, fmt.Errorf("polyglot key of %s: %v", b.FEN(), err)
	}
	return strconv.ParseUint(h, 16, 64)
}

// polyglotMove reads a Polyglot move (to file bits 0–2, to rank 3–5, from file 6–8, from
// rank 9–11, promotion 12–14: knight 1 … queen 4) as a legal UCI move of b's position.
// Polyglot writes castling as the king taking its own rook (e1h1); that is castling only
// when a king stands on the from square.
func polyglotMove(b *Board, mv uint16) (string, bool) {
	ff, fr, tf, tr := mv>>6&7, mv>>9&7, mv&7, mv>>3&7
	from := string([]byte{'a' + byte(ff), '1' + byte(fr)})
	to := string([]byte{'a' + byte(tf), '1' + byte(tr)})
	if ff == 4 && (fr == 0 || fr == 7) && tr == fr && (tf == 0 || tf == 7) {
		if pc := b.Pos.pos.Board().Piece(lib.Square(fr*8 + ff)); pc == lib.WhiteKing || pc == lib.BlackKing {
			to = map[uint16]string{0: "c", 7: "g"}[tf] + to[1:]
		}
	}
	s := from + to
	if p := mv >> 12 & 7; p >= 1 && p <= 4 {
		s += string("nbrq"[p-1])
	}
	m, err := b.Pos.ParseMove(s)
	if err != nil || b.Pos.Legal(m) != nil {
		return "", false
	}
	return strings.ToLower(s), true
}
