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
