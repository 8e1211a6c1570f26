package chess

import (
	"encoding/binary"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
)

// bookEntry is one Polyglot entry: the position after the moves, the move and its weight.
type bookEntry struct {
	after  []string
	move   uint16
	weight uint16
}

// polyglotBook writes entries as a Polyglot book: keys from the positions, sorted by key.
func polyglotBook(t *testing.T, entries []bookEntry) []byte {
	t.Helper()
	type raw struct {
		key          uint64
		move, weight uint16
	}
	var rs []raw
	for _, e := range entries {
		key, err := polyglotKey(play(t, e.after...))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, raw{key, e.move, e.weight})
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].key < rs[j].key })
	var out []byte
	for _, r := range rs {
		var b [16]byte
		binary.BigEndian.PutUint64(b[:8], r.key)
		binary.BigEndian.PutUint16(b[8:10], r.move)
		binary.BigEndian.PutUint16(b[10:12], r.weight)
		out = append(out, b[:]...)
	}
	return out
}

// pg encodes a UCI move as Polyglot does (castling as the king taking its rook: pass e1h1).
func pg(uci string) uint16 {
	f := func(c byte) uint16 { return uint16(c - 'a') }
	r := func(c byte) uint16 { return uint16(c - '1') }
	m := f(uci[2]) | r(uci[3])<<3 | f(uci[0])<<6 | r(uci[1])<<9
	if len(uci) == 5 {
		m |= uint16(strings.IndexByte("nbrq", uci[4])+1) << 12
	}
	return m
}

// TestPolyglotKeys: the keys are Polyglot's own, as its format's description lists them.
func TestPolyglotKeys(t *testing.T) {
	for _, c := range []struct {
		moves []string
		key   uint64
	}{
		{nil, 0x463b96181691fc9c},
		{[]string{"e2e4"}, 0x823c9b50fd114196},
		{[]string{"e2e4", "d7d5"}, 0x0756b94461c50fb0},
		{[]string{"e2e4", "d7d5", "e4e5", "f7f5"}, 0x22a48b5a8e47ff78},
		{[]string{"a2a4", "b7b5", "h2h4", "b5b4", "c2c4"}, 0x3c8123ea7b067637},
	} {
		if k, err := polyglotKey(play(t, c.moves...)); err != nil || k != c.key {
			t.Errorf("after %v: key %#x (%v), want %#x", c.moves, k, err, c.key)
		}
	}
}

// TestPolyglotBook: a book's lines from the start, heaviest move first, cut at the plies
// asked for or where the book has no move; a move of weight 0 is not played; castling
// written as the king taking its rook is castling; a file that is not whole entries is
// refused with its name.
func TestPolyglotBook(t *testing.T) {
	castle := []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"}
	data := polyglotBook(t, []bookEntry{
		{nil, pg("e2e4"), 10},
		{nil, pg("d2d4"), 5},
		{nil, pg("c2c4"), 0},
		{[]string{"e2e4"}, pg("e7e5"), 3},
		{[]string{"e2e4"}, pg("c7c5"), 2},
		{[]string{"d2d4"}, pg("d7d5"), 0},
		{[]string{"e2e4", "e7e5"}, pg("g1f3"), 1},
		{[]string{"e2e4", "e7e5", "g1f3"}, pg("b8c6"), 1},
		{[]string{"e2e4", "e7e5", "g1f3", "b8c6"}, pg("f1c4"), 1},
		{[]string{"e2e4", "e7e5", "g1f3", "b8c6", "f1c4"}, pg("g8f6"), 1},
		{castle, pg("e1h1"), 1},
	})
	g := Game{}
	lines := func(plies int) string {
		t.Helper()
		ops, err := g.ReadBook("book.bin", data, plies)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, o := range ops {
			out = append(out, strings.Join(o, " "))
		}
		return strings.Join(out, " | ")
	}
	if got, want := lines(1), "e2e4 | d2d4"; got != want {
		t.Errorf("1 ply: %s, want %s", got, want)
	}
	if got, want := lines(2), "e2e4 e7e5 | e2e4 c7c5 | d2d4"; got != want {
		t.Errorf("2 plies: %s, want %s", got, want)
	}
	all, err := g.ReadBook("BOOK.BIN", data, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(castle), "e1g1")
	if !slices.ContainsFunc(all, func(o []string) bool { return slices.Equal(o, want) }) {
		t.Errorf("every ply: %v, want a line %v (castling)", all, want)
	}
	for _, o := range all {
		play(t, o...) // every line plays from the start
	}
	if _, err := g.ReadBook("short.bin", data[:20], 4); err == nil || !strings.HasPrefix(err.Error(), "short.bin: 20 bytes") {
		t.Errorf("a torn book: %v", err)
	}
	if _, err := g.ReadBook("none.bin", polyglotBook(t, []bookEntry{{[]string{"e2e4"}, pg("e7e5"), 1}}), 4); err == nil ||
		!strings.Contains(err.Error(), "no move for the start position") {
		t.Errorf("a book without the start position: %v", err)
	}
}

// TestTwoPlyPolyglotBook: testdata/two-ply.bin (gen-book -polyglot: 420 entries) read two
// plies deep gives the 400 lines of testdata/two-ply.epd, each line's moves the ones the
// EPD's c0 names.
func TestTwoPlyPolyglotBook(t *testing.T) {
	data, err := os.ReadFile("testdata/two-ply.bin")
	if err != nil {
		t.Fatal(err)
	}
	ops, err := Game{}.ReadBook("two-ply.bin", data, 2)
	if err != nil {
		t.Fatal(err)
	}
	epd, err := os.ReadFile("testdata/two-ply.epd")
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, l := range strings.Split(strings.TrimSpace(string(epd)), "\n") {
		_, c0, _ := strings.Cut(l, `c0 "1. `)
		want = append(want, strings.TrimSuffix(c0, `";`))
	}
	for _, o := range ops {
		got = append(got, strings.Join(o, " "))
	}
	sort.Strings(want)
	sort.Strings(got)
	if len(got) != 400 || !slices.Equal(got, want) {
		t.Fatalf("%d lines from the Polyglot book, %d in the EPD; first: %v / %v", len(got), len(want), got[:min(3, len(got))], want[:3])
	}
}
