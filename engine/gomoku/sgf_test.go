package gomoku

import (
	"strings"
	"testing"
)

// TestSGFRoundTrip: a game written as SGF reads back to the same moves and size, with
// SGF's top-left origin (h8 on 15×15 is "hh"; a15 is "aa"; o1 is "oo"), the result and
// escaped player names.
func TestSGFRoundTrip(t *testing.T) {
	moves := []string{"h8", "a15", "o1", "i9", "g7"}
	data, err := FormatSGF(15, moves, `eng]ine\1`, "other", "1-0", "freestyle")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{"GM[4]", "SZ[15]", `PB[eng\]ine\\1]`, "RE[B+]", ";B[hh]", ";W[aa]", ";B[oo]", ";W[ig]", ";B[gi]"} {
		if !strings.Contains(text, want) {
			t.Fatalf("SGF lacks %s:\n%s", want, text)
		}
	}
	size, got, err := ParseSGF(data)
	if err != nil || size != 15 || strings.Join(got, " ") != strings.Join(moves, " ") {
		t.Fatalf("read back: size %d, moves %v, %v", size, got, err)
	}
}

// TestSGFErrors: what ParseSGF refuses, each with a message naming the problem.
func TestSGFErrors(t *testing.T) {
	for _, c := range []struct{ sgf, want string }{
		{"hello", "no game tree"},
		{"(;GM[1]SZ[19];B[aa])", "not Gomoku"},
		{"(;SZ[99];B[aa])", "board size"},
		{"(;SZ[15];B[aa];B[bb])", "alternate"},
		{"(;SZ[15];B[zz])", "not a point"},
		{"(;SZ[15];B[aa", "unterminated"},
	} {
		if _, _, err := ParseSGF([]byte(c.sgf)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.sgf, err, c.want)
		}
	}
	// Variations: the main line is the first one.
	if _, moves, err := ParseSGF([]byte("(;SZ[15];B[hh](;W[ii];B[jj])(;W[aa]))")); err != nil || strings.Join(moves, " ") != "h8 i7 j6" {
		t.Fatalf("main line %v, %v", moves, err)
	}
}

// FuzzParseSGF: no input makes ParseSGF panic, and whatever it accepts writes back as SGF
// that reads to the same moves.
func FuzzParseSGF(f *testing.F) {
	f.Add("(;GM[4]SZ[15];B[hh];W[ii])")
	f.Add("(;SZ[15];B[hh](;W[ii])(;W[aa]))")
	f.Fuzz(func(t *testing.T, s string) {
		size, moves, err := ParseSGF([]byte(s))
		if err != nil {
			return
		}
		data, err := FormatSGF(size, moves, "b", "w", "", "")
		if err != nil {
			t.Fatalf("accepted moves %v do not write back: %v", moves, err)
		}
		_, again, err := ParseSGF(data)
		if err != nil || strings.Join(again, " ") != strings.Join(moves, " ") {
			t.Fatalf("%v → %v, %v", moves, again, err)
		}
	})
}
