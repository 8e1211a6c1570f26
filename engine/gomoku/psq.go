package gomoku

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// FormatPSQ writes a game in Piskvork's .psq format, the format of Gomocup's game
// records: a header "Piskvorky NxN, 11:11, 0", one line "x,y,ms" per move (x and y from 1
// at the top-left; ms the move's thinking time, 0 when unknown), the two players' names
// (Black's first) and "-1". moves are in evotune's notation ("h8"); times may be nil.
func FormatPSQ(size int, moves []string, times []int64, black, white string) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Piskvorky %dx%d, 11:11, 0\n", size, size)
	for i, m := range moves {
		col, row, err := parseCell(m, size)
		if err != nil {
			return nil, fmt.Errorf("move %d: %w", i+1, err)
		}
		var ms int64
		if i < len(times) {
			ms = times[i]
		}
		fmt.Fprintf(&b, "%d,%d,%d\n", col+1, size-row, ms)
	}
	fmt.Fprintf(&b, "%s\n%s\n-1\n", black, white)
	return b.Bytes(), nil
}

// ParsePSQ reads a Piskvork .psq game: the board size from the header and the moves, in
// evotune's notation, from the "x,y[,ms]" lines that follow it (1-based, from the
// top-left); it stops at the first line that is not a move (the players' names). Errors
// name the line.
func ParsePSQ(data []byte) (size int, moves []string, err error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() {
		return 0, nil, fmt.Errorf("psq: empty file")
	}
	head := strings.TrimSpace(sc.Text())
	var w, h int
	if _, err := fmt.Sscanf(head, "Piskvorky %dx%d", &w, &h); err != nil || w != h {
		return 0, nil, fmt.Errorf("psq line 1: %q is not a header \"Piskvorky NxN, …\" of a square board", head)
	}
	if w < MinSize || w > MaxSize {
		return 0, nil, fmt.Errorf("psq line 1: board %dx%d, evotune plays %d–%d", w, h, MinSize, MaxSize)
	}
	line := 1
	for sc.Scan() {
		line++
		f := strings.Split(strings.TrimSpace(sc.Text()), ",")
		if len(f) < 2 || len(f) > 3 {
			break
		}
		x, e1 := strconv.Atoi(strings.TrimSpace(f[0]))
		y, e2 := strconv.Atoi(strings.TrimSpace(f[1]))
		if e1 != nil || e2 != nil {
			break
		}
		if x < 1 || y < 1 || x > w || y > w {
			return 0, nil, fmt.Errorf("psq line %d: %d,%d is off the %dx%d board", line, x, y, w, w)
		}
		moves = append(moves, fmt.Sprintf("%c%d", 'a'+rune(x-1), w-y+1))
	}
	return w, moves, sc.Err()
}

// parseCell reads "h8" on a size×size board: column from 0, row from 0 at the bottom.
func parseCell(m string, size int) (col, row int, err error) {
	if len(m) < 2 {
		return 0, 0, fmt.Errorf("%q is not a point", m)
	}
	col = int(m[0] - 'a')
	r, err := strconv.Atoi(m[1:])
	if err != nil || col < 0 || col >= size || r < 1 || r > size {
		return 0, 0, fmt.Errorf("%q is not a point of a %dx%d board", m, size, size)
	}
	return col, r - 1, nil
}

// ParseOpeningLine reads one line of an opening file in Gomocup's offset format, the
// plaintext openings of c-gomoku-cli and Gomocup tournaments: "x,y, x,y, …", each move an
// offset from the centre of a size×size board (centre = size/2 rounded down, x to the
// right, y downward; Black's move first). It returns ok false, and no error, for a line
// that is not in that format (a line in evotune's notation, "h8 h9"); an offset outside
// the board is an error naming the move. Implements engine.OpeningLineReader.
func (Game) ParseOpeningLine(line string, size int) (moves []string, ok bool, err error) {
	fields := strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' })
	if len(fields) == 0 || len(fields)%2 != 0 {
		return nil, false, nil
	}
	nums := make([]int, len(fields))
	for i, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, false, nil // not numbers: evotune's own notation
		}
		nums[i] = n
	}
	half := size / 2
	for i := 0; i < len(nums); i += 2 {
		x, y := nums[i]+half, nums[i+1]+half
		if x < 0 || x >= size || y < 0 || y >= size {
			return nil, true, fmt.Errorf("offset move %d (%d,%d) is off the %dx%d board (centre %d,%d)", i/2+1, nums[i], nums[i+1], size, size, half, half)
		}
		moves = append(moves, fmt.Sprintf("%c%d", 'a'+x, size-y))
	}
	return moves, true, nil
}
