package amazons

import (
	"strings"
	"testing"
)

// TestFormatSGF pins the SGF record against the specification's Amazons page: evotune's
// 10×10 start is the specification's default with the colours exchanged (Black at the top,
// as on Botzone), so the setup is written; White's d1-d7/g7 is the page's example move
// "djddgd"; an illegal move is refused with its number.
func TestFormatSGF(t *testing.T) {
	data, err := FormatSGF(10, []string{"d10-d8/d9", "d1-d7/g7"}, "black]x", "white", "0-1")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, want := range []string{"GM[18]", "SZ[10]", `PB[black\]x]`, "RE[W+]", "AB[ad][da][ga][jd]AW[ag][dj][gj][jg]", ";B[dadcdb]", ";W[djddgd]"} {
		if !strings.Contains(s, want) {
			t.Errorf("SGF lacks %s:\n%s", want, s)
		}
	}
	if _, err := FormatSGF(10, []string{"d10-d8/d9", "d10-d7/g7"}, "b", "w", ""); err == nil || !strings.Contains(err.Error(), "move 2") {
		t.Errorf("an illegal move: %v", err)
	}
	if data, err := FormatSGF(8, nil, "b", "w", ""); err != nil || !strings.Contains(string(data), "SZ[8]") || !strings.Contains(string(data), "AB[ac][ca][fa][hc]") {
		t.Errorf("8×8: %s %v", data, err)
	}
}
