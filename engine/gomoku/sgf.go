package gomoku

import (
	"bytes"
	"fmt"
	"strings"
)

// FormatSGF writes a game as SGF (FF[4], GM[4]: Gomoku and Renju, the game number of the SGF
// specification at red-bean.com/sgf): a root node with the board size, the players (Black
// first), the result and the rule, then one node per move, B and W alternating. SGF points
// are two letters, column then row, "a" at the top-left; moves are in evotune's notation
// ("h8": column h, row 8 from the bottom). result is "1-0", "0-1" or "1/2-1/2"; anything
// else leaves RE out. Errors name the move that is not a point of the board.
func FormatSGF(size int, moves []string, black, white, result, rule string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "(;FF[4]GM[4]CA[UTF-8]AP[evotune]SZ[%d]PB[%s]PW[%s]", size, sgfText(black), sgfText(white))
	switch result {
	case "1-0":
		b.WriteString("RE[B+]")
	case "0-1":
		b.WriteString("RE[W+]")
	case "1/2-1/2":
		b.WriteString("RE[0]")
	}
	if rule != "" {
		fmt.Fprintf(&b, "RU[%s]", sgfText(rule))
	}
	b.WriteString("\n")
	for i, m := range moves {
		col, row, err := parseCell(m, size)
		if err != nil {
			return nil, fmt.Errorf("move %d: %w", i+1, err)
		}
		colour := "B"
		if i%2 == 1 {
			colour = "W"
		}
		fmt.Fprintf(&b, ";%s[%c%c]", colour, 'a'+col, 'a'+(size-1-row))
		if i%10 == 9 {
			b.WriteString("\n")
		}
	}
	b.WriteString(")\n")
	return b.Bytes(), nil
}

// sgfText escapes an SGF SimpleText value: "]" and "\" get a backslash; line breaks
// become spaces.
func sgfText(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `]`, `\]`, "\n", " ", "\r", " ").Replace(s)
	return s
}

// ParseSGF reads the main line of a Gomoku SGF game (GM[4], or no GM): the board size
// (SZ, default 15) and the moves in evotune's notation, which must alternate B, W from
// Black. Setup stones (AB, AW), variations after the main line and properties other than
// SZ, GM, B and W are ignored. Errors name what is wrong.
func ParseSGF(data []byte) (size int, moves []string, err error) {
	s := string(data)
	start := strings.Index(s, "(;")
	if start < 0 {
		return 0, nil, fmt.Errorf("sgf: no game tree \"(;\"")
	}
	size = 15
	var colours []string
	var points []string
	i := start + 1
	depth := 1
	for i < len(s) && depth > 0 {
		c := s[i]
		switch {
		case c == '(':
			// a variation: only the first one continues the main line
			depth++
			i++
		case c == ')':
			depth--
			i++
			if depth >= 1 {
				// the end of the first variation ends the main line too
				depth = 0
			}
		case c >= 'A' && c <= 'Z':
			j := i
			for j < len(s) && s[j] >= 'A' && s[j] <= 'Z' {
				j++
			}
			ident := s[i:j]
			i = j
			var values []string
			for {
				for i < len(s) && strings.ContainsRune(" \t\r\n", rune(s[i])) {
					i++
				}
				if i >= len(s) || s[i] != '[' {
					break
				}
				var v strings.Builder
				i++
				for i < len(s) && s[i] != ']' {
					if s[i] == '\\' && i+1 < len(s) {
						i++
					}
					v.WriteByte(s[i])
					i++
				}
				if i >= len(s) {
					return 0, nil, fmt.Errorf("sgf: property %s: unterminated value", ident)
				}
				i++
				values = append(values, v.String())
			}
			if len(values) == 0 {
				return 0, nil, fmt.Errorf("sgf: property %s has no value", ident)
			}
			switch ident {
			case "GM":
				if values[0] != "4" {
					return 0, nil, fmt.Errorf("sgf: GM[%s] is not Gomoku (GM[4])", values[0])
				}
			case "SZ":
				if _, err := fmt.Sscanf(values[0], "%d", &size); err != nil || size < 5 || size > 26 {
					return 0, nil, fmt.Errorf("sgf: SZ[%s] is not a board size 5–26", values[0])
				}
			case "B", "W":
				colours, points = append(colours, ident), append(points, values[0])
			}
		default:
			i++
		}
	}
	for k, p := range points {
		want := "B"
		if k%2 == 1 {
			want = "W"
		}
		if colours[k] != want {
			return 0, nil, fmt.Errorf("sgf: move %d is %s[%s]; moves must alternate from Black", k+1, colours[k], p)
		}
		if len(p) != 2 || p[0] < 'a' || p[1] < 'a' || int(p[0]-'a') >= size || int(p[1]-'a') >= size {
			return 0, nil, fmt.Errorf("sgf: move %d %s[%s] is not a point of a %dx%d board", k+1, colours[k], p, size, size)
		}
		moves = append(moves, fmt.Sprintf("%c%d", p[0], size-int(p[1]-'a')))
	}
	return size, moves, nil
}

// SGF writes a game as SGF with the game's rule as RU (engine.SGFWriter; FormatSGF).
func (g Game) SGF(size int, moves []string, black, white, result string) ([]byte, error) {
	return FormatSGF(size, moves, black, white, result, g.RuleName())
}
