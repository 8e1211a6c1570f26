package gomoku

import (
	"strings"
	"testing"
)

// TestPSQ: a game written as .psq reads back move for move; Piskvork's coordinates are
// 1-based from the top-left; bad headers and stones off the board are errors naming the
// line.
func TestPSQ(t *testing.T) {
	moves := []string{"h8", "a15", "o1", "i9", "a1"}
	data, err := FormatPSQ(15, moves, []int64{10, 20}, "pbrain-a", "pbrain-b")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	want := []string{"Piskvorky 15x15, 11:11, 0", "8,8,10", "1,1,20", "15,15,0", "9,7,0", "1,15,0", "pbrain-a", "pbrain-b", "-1", ""}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("psq:\n%s", data)
	}
	size, got, err := ParsePSQ(data)
	if err != nil || size != 15 || strings.Join(got, " ") != strings.Join(moves, " ") {
		t.Fatalf("read back: size %d, moves %v, %v", size, got, err)
	}
	for _, bad := range []struct{ data, want string }{
		{"Gomoku 15x15\n8,8,0\n", "line 1"},
		{"Piskvorky 15x20, 11:11, 0\n", "square"},
		{"Piskvorky 15x15, 11:11, 0\n8,8,0\n16,1,0\n", "line 3"},
	} {
		if _, _, err := ParsePSQ([]byte(bad.data)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want an error naming %q", bad.data, err, bad.want)
		}
	}
}

// FuzzParsePSQ: no input makes ParsePSQ panic, and whatever it accepts writes back as .psq
// that reads to the same board size and moves.
func FuzzParsePSQ(f *testing.F) {
	f.Add("Piskvorky 15x15, 11:11, 0\n8,8,0\n9,9,12\nblack\nwhite\n-1\n")
	f.Add("Piskvorky 20x20, 0:0, 0\n1,1\n20,20,5\n")
	f.Add("Piskvorky 15x16, 11:11, 0\n")
	f.Fuzz(func(t *testing.T, s string) {
		size, moves, err := ParsePSQ([]byte(s))
		if err != nil {
			return
		}
		data, err := FormatPSQ(size, moves, nil, "b", "w")
		if err != nil {
			t.Fatalf("accepted moves %v on %d×%d do not write back: %v", moves, size, size, err)
		}
		size2, again, err := ParsePSQ(data)
		if err != nil || size2 != size || strings.Join(again, " ") != strings.Join(moves, " ") {
			t.Fatalf("%d %v → %d %v, %v", size, moves, size2, again, err)
		}
	})
}
