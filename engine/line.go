package engine

// LineWinner is implemented by boards of games won by a line of stones (Gomoku's five,
// Connect6's six): WinningLine returns the winner's line as points in the game's notation
// ("h8"), in order along the line, or nil when the game was not won by a line.
type LineWinner interface {
	WinningLine() []string
}

// LineOf returns the points of the first run of at least k equal stones c on a size×size
// board, searched along rows, columns and both diagonals, in order along the run; nil when
// there is none. Points are indices y·size + x (x the column, y the row from the bottom,
// both from 0: the Gomoku and Connect6 move index); at returns the stone at a point.
func LineOf(size, k int, c int8, at func(point int) int8) []int {
	for _, d := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
		for y := 0; y < size; y++ {
			for x := 0; x < size; x++ {
				// A run starts where the point before it is off the board or not c.
				px, py := x-d[0], y-d[1]
				if at(y*size+x) != c || (px >= 0 && px < size && py >= 0 && py < size && at(py*size+px) == c) {
					continue
				}
				var run []int
				for cx, cy := x, y; cx >= 0 && cx < size && cy >= 0 && cy < size && at(cy*size+cx) == c; cx, cy = cx+d[0], cy+d[1] {
					run = append(run, cy*size+cx)
				}
				if len(run) >= k {
					return run
				}
			}
		}
	}
	return nil
}

// WinningLine is LineOf for a board won by colour winner (Black or White; cells hold 1 and
// 2, as Gomoku's and Connect6's At) written with name: what a LineWinner returns.
func WinningLine(size, k int, winner Color, at func(point int) int8, name func(point int) string) []string {
	var out []string
	for _, pt := range LineOf(size, k, int8(winner)+1, at) {
		out = append(out, name(pt))
	}
	return out
}
