package gomoku

import "evotune/engine"

// What Gomoku offers beyond engine.Game, each by the interface that names it, so that no
// code outside this package names the game: the rule variants (engine.Ruled),
// Piskvork records (engine.PSQRecorder), the Gomocup protocol's rule bits
// (gomocup.Game).

// Rules lists the rule variants WithRule takes: "freestyle", "standard", "renju"
// (engine.Ruled).
func (Game) Rules() []string {
	return []string{Freestyle.String(), Standard.String(), Renju.String()}
}

// FormatPSQ writes a game as Piskvork's .psq (the package's FormatPSQ; engine.PSQRecorder).
func (Game) FormatPSQ(size int, moves []string, times []int64, black, white string) ([]byte, error) {
	return FormatPSQ(size, moves, times, black, white)
}

// ParsePSQ reads a Piskvork .psq game (the package's ParsePSQ; engine.PSQRecorder).
func (Game) ParsePSQ(data []byte) (size int, moves []string, err error) { return ParsePSQ(data) }

// Gomocup's INFO rule bits (the Gomocup protocol, "INFO rule"): 1 exactly five, 4 renju;
// neither is freestyle.
const (
	gomocupExactFive = 1
	gomocupRenju     = 4
)

// GomocupRule is the game's rule as Gomocup's INFO rule bits: 0 freestyle, 1 standard
// (exactly five), 4 renju.
func (g Game) GomocupRule() int {
	switch g.Rule {
	case Standard:
		return gomocupExactFive
	case Renju:
		return gomocupRenju
	}
	return 0
}

// WithGomocupRule returns the game under the rule INFO rule bits select: bit 4 renju, else
// bit 1 standard, else freestyle (other bits, such as 2 continuous game, are ignored).
func (Game) WithGomocupRule(bits int64) engine.Game {
	switch {
	case bits&gomocupRenju != 0:
		return Game{Rule: Renju}
	case bits&gomocupExactFive != 0:
		return Game{Rule: Standard}
	}
	return Game{Rule: Freestyle}
}
