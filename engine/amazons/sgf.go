package amazons

import (
	"bytes"
	"fmt"
	"strings"
)

// FormatSGF writes an Amazons game as SGF (FF[4], GM[18]: the Amazons page of the SGF
// specification, red-bean.com/sgf/amazons.html): a root node with the board size, the
// players (Black first), the result ("1-0" → RE[B+], "0-1" → RE[W+]; anything else leaves
// RE out) and the start position as setup properties — AB Black's amazons, AW White's —
// then one node per move, B and W alternating, each three points concatenated: from, to,
// arrow. A point is two letters, column then row, "a" at the top-left. The setup is always
// written: evotune's start (Botzone's) has Black's amazons at the top, the reverse of the
// specification's default for 10×10 (AB[dj][gj][ag][jg]AW[da][ga][ad][jd]), and 8×8 has no
// default. moves are in evotune's notation ("d10-d4/g4"); an illegal one is an error
// naming it.
func FormatSGF(size int, moves []string, black, white, result string) ([]byte, error) {
	p, err := NewPosition(size, DefaultWeights().Tables())
	if err != nil {
		return nil, err
	}
	pt := func(sq uint8) string {
		x, y := p.xy(sq)
		return string([]byte{byte('a' + x), byte('a' + y)})
	}
	text := strings.NewReplacer(`\`, `\\`, `]`, `\]`, "\n", " ", "\r", " ")
	var b bytes.Buffer
	fmt.Fprintf(&b, "(;FF[4]GM[18]CA[UTF-8]AP[evotune]SZ[%d]PB[%s]PW[%s]", size, text.Replace(black), text.Replace(white))
	switch result {
	case "1-0":
		b.WriteString("RE[B+]")
	case "0-1":
		b.WriteString("RE[W+]")
	}
	for c, prop := range []string{"AB", "AW"} {
		b.WriteString(prop)
		for _, sq := range p.amazons[c] {
			fmt.Fprintf(&b, "[%s]", pt(sq))
		}
	}
	b.WriteString("\n")
	for i, s := range moves {
		m, err := p.ParseMove(s)
		if err == nil {
			err = p.Legal(m)
		}
		if err != nil {
			return nil, fmt.Errorf("move %d: %w", i+1, err)
		}
		colour := "B"
		if i%2 == 1 {
			colour = "W"
		}
		fmt.Fprintf(&b, ";%s[%s%s%s]", colour, pt(m.From), pt(m.To), pt(m.Arrow))
		p.Make(m)
		if i%8 == 7 {
			b.WriteString("\n")
		}
	}
	b.WriteString(")\n")
	return b.Bytes(), nil
}

// SGF writes a game as SGF, GM[18] (engine.SGFWriter; FormatSGF).
func (Game) SGF(size int, moves []string, black, white, result string) ([]byte, error) {
	return FormatSGF(size, moves, black, white, result)
}
