package connect6

import (
	"fmt"
	"strings"
)

// SAU coordinates (the SAU / computer-olympiad Connect6 text protocol): two letters A–S per
// stone, column then row, row A at the top, so the centre is JJ = evotune's J10; Black's
// one-stone first move is "JJ", which some programs pad as "JJ@@".

// ParseSAUMove converts a SAU move ("JJ", "JJ@@", "IHJI", any case) to evotune's notation
// ("J10", "I12J11"); the error names a move that is not two or four letters A–S. It does
// not check legality (sau.Game).
func (Game) ParseSAUMove(s string) (string, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	s = strings.TrimSuffix(s, "@@") // Black's one-stone first move may be padded
	if len(s) != 2 && len(s) != 4 {
		return "", fmt.Errorf("move %q: want XXYY (two letters A–S per stone)", s)
	}
	var out strings.Builder
	for i := 0; i < len(s); i += 2 {
		c, r := s[i], s[i+1]
		if c < 'A' || c > 'S' || r < 'A' || r > 'S' {
			return "", fmt.Errorf("move %q: letters must be A–S", s)
		}
		fmt.Fprintf(&out, "%c%d", c, Size-int(r-'A'))
	}
	return out.String(), nil
}

// SAUMove converts a move in evotune's notation to SAU's letters (sau.Game); the
// error is ParseMove's.
func (Game) SAUMove(m string) (string, error) {
	mv, err := ParseMove(m)
	if err != nil {
		return "", err
	}
	pt := func(p int16) string {
		return string([]byte{byte('A' + p%Size), byte('A' + Size - 1 - p/Size)})
	}
	if mv.Q == NoPoint {
		return pt(mv.P), nil
	}
	return pt(mv.P) + pt(mv.Q), nil
}
