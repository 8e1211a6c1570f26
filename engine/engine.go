package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"
)

// Color is a side: Black moves first in all three games (000_9752b1518ee42188.txt §1.1,
// 001_4cd63e63655ef194.txt §1, 004_5fa71e7c84b0e80d.txt §2).
type Color int8

const (
	// Black is the first player.
	Black Color = 0
	// White is the second player.
	White Color = 1
)

// Opponent returns the other colour.
func (c Color) Opponent() Color { return 1 - c }

// String returns "black" or "white".
func (c Color) String() string {
	if c == Black {
		return "black"
	}
	return "white"
}

// Outcome is the state of a game: still going, or how it ended.
type Outcome int8

const (
	// Ongoing means the game is not over.
	Ongoing Outcome = iota
	// BlackWins means Black won.
	BlackWins
	// WhiteWins means White won.
	WhiteWins
	// Draw means neither side won (full board or the referee's ply limit).
	Draw
)

// String returns "ongoing", "1-0" (Black wins), "0-1" (White wins) or "1/2-1/2".
func (o Outcome) String() string {
	switch o {
	case BlackWins:
		return "1-0"
	case WhiteWins:
		return "0-1"
	case Draw:
		return "1/2-1/2"
	}
	return "ongoing"
}

// MarshalJSON writes the outcome as its String ("1-0", "0-1", "1/2-1/2", "ongoing"): a
// result a reader of the JSON can read without this package's constants.
func (o Outcome) MarshalJSON() ([]byte, error) { return json.Marshal(o.String()) }

// UnmarshalJSON reads what MarshalJSON writes, and the numbers older versions wrote.
func (o *Outcome) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		var n int8
		if err := json.Unmarshal(data, &n); err != nil || n < int8(Ongoing) || n > int8(Draw) {
			return fmt.Errorf("outcome %s: want \"1-0\", \"0-1\", \"1/2-1/2\" or \"ongoing\"", data)
		}
		*o = Outcome(n)
		return nil
	}
	for _, c := range []Outcome{Ongoing, BlackWins, WhiteWins, Draw} {
		if c.String() == s {
			*o = c
			return nil
		}
	}
	return fmt.Errorf("outcome %q: want \"1-0\", \"0-1\", \"1/2-1/2\" or \"ongoing\"", s)
}

// Score returns the outcome from colour c's side: 1 if c won, 0 if c lost, ½ for a draw
// (and for Ongoing).
func (o Outcome) Score(c Color) float64 {
	switch {
	case o == BlackWins && c == Black, o == WhiteWins && c == White:
		return 1
	case o == BlackWins || o == WhiteWins:
		return 0
	}
	return 0.5
}

// Win is the score of a won position in the searchers' integer units; a win found n plies
// from the root scores Win − n, so shorter wins are preferred. Evaluations must stay well
// inside ±WinThreshold.
const Win int64 = 1 << 50

// WinThreshold separates game-theoretic scores (|s| > WinThreshold) from evaluations.
const WinThreshold = Win - 10000

// Board is a position of one game behind a type-erased interface: moves are strings in the
// game's usual notation (see each game's ParseMove). Implementations are not safe for
// concurrent use; Clone gives an independent copy.
type Board interface {
	// Game is the registry name of the game ("connect6", "gomoku", "amazons").
	Game() string
	// Size is the board's side length in points or squares.
	Size() int
	// ToMove is the side to move.
	ToMove() Color
	// Ply is the number of moves played from the start position.
	Ply() int
	// Play parses a move, checks that it is legal, and plays it. The error names the move
	// and what is wrong with it; the board is unchanged on error.
	Play(move string) error
	// Outcome reports whether the game is over and how.
	Outcome() Outcome
	// Key is the Zobrist key of the position (side to move included).
	Key() uint64
	// Clone returns an independent copy.
	Clone() Board
	// String draws the board as text.
	String() string
}

// Limits bound one search. Zero values mean "no limit", except Depth where 0 means the
// game's default.
type Limits struct {
	// Depth is the nominal search depth in plies (a two-stone Connect6 move is one ply).
	Depth int `json:"depth"`
	// Width, if > 0, expands only the best Width children of every node by move-ordering
	// score (000_9752b1518ee42188.txt §3).
	Width int `json:"width"`
	// Nodes stops the search after about this many nodes.
	Nodes int64 `json:"nodes,omitempty"`
	// Time stops the search after about this long. A time limit makes moves depend on the
	// machine's speed: the tuner never sets it.
	Time time.Duration `json:"time,omitempty"`
	// SoftTime, if > 0, starts no new iteration of iterative deepening after this long
	// (a deeper iteration started late would only be cut off by Time): the move comes
	// between SoftTime and Time.
	SoftTime time.Duration `json:"soft_time,omitempty"`
}

// SearchStats describes one finished search.
type SearchStats struct {
	// Nodes counts positions visited (interior and leaf).
	Nodes int64 `json:"nodes"`
	// Depth is the deepest fully completed iteration.
	Depth int `json:"depth"`
	// Score is the value of the root for the side to move, in the game's evaluation units
	// (±Win − plies for forced results).
	Score int64 `json:"score"`
	// Elapsed is the wall time of the search.
	Elapsed time.Duration `json:"elapsed_ns"`
	// PV is the principal variation in the game's notation, best move first.
	PV []string `json:"pv"`
	// NoScore is set when the player reported no score (an external engine that printed
	// none): Score means nothing then, and adjudication does not count the move.
	NoScore bool `json:"no_score,omitempty"`
}

// NPS returns nodes per second (0 if no time elapsed).
func (s SearchStats) NPS() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Nodes) / s.Elapsed.Seconds()
}

// Player chooses moves. A Player may keep state between calls (for instance a
// transposition table); for reproducible games make a fresh Player per game.
type Player interface {
	// Move returns a legal move for the side to move of b in the game's notation. b is not
	// modified. The error is non-nil only when the context is cancelled before any move
	// was found or the position has no legal move.
	Move(ctx context.Context, b Board) (string, SearchStats, error)
}

// Weights are the evaluation parameters of one game. Implementations are plain structs
// that marshal to the "weights" object of a weights file.
type Weights interface {
	// Game is the registry name of the game the weights belong to.
	Game() string
	// Validate checks lengths, finiteness and bounds; the error names the field, e.g.
	// "value[3]: -5 is below the minimum 0".
	Validate() error
}

// Game is one game as the registry, referee, tuner and command line see it.
type Game interface {
	// Name is the registry name ("connect6", "gomoku", "amazons").
	Name() string
	// NewBoard returns the start position on a size×size board; size 0 means the game's
	// default. The error names the unsupported size.
	NewBoard(size int) (Board, error)
	// DefaultWeights returns the paper's weights (the tuner's baseline).
	DefaultWeights() Weights
	// DecodeWeights strictly decodes the "weights" object of a weights file: unknown keys,
	// missing keys, wrong lengths and out-of-range values are errors naming the field.
	DecodeWeights(raw json.RawMessage) (Weights, error)
	// DefaultLimits returns the search limits used when none are given.
	DefaultLimits() Limits
	// NewPlayer returns an alpha-beta player with its own search state. The error names
	// the weights of another game or invalid limits.
	NewPlayer(w Weights, lim Limits) (Player, error)
	// RandomMove returns a uniformly chosen legal move (for a two-stone Connect6 move: two
	// uniformly chosen distinct empty points), or "" if the side to move has none.
	RandomMove(b Board, rng *rand.Rand) string
}

// OpeningLineReader is implemented by a game whose opening files may also come in a
// format of its own community besides evotune's notation (Gomoku: Gomocup's offset format,
// "x,y, x,y"). ParseOpeningLine reads one line (comments already removed) of a size×size
// game: ok false, and no error, means the line is not in that format.
type OpeningLineReader interface {
	ParseOpeningLine(line string, size int) (moves []string, ok bool, err error)
}

// ZobristTable returns n pseudo-random 64-bit keys from a fixed seed (SplitMix64), so
// that keys, and therefore transposition-table behaviour, are the same in every process
// (002_1c361d516f9a1960.txt: one 64-bit random per point and colour, XOR on place/remove).
func ZobristTable(n int, seed uint64) []uint64 {
	keys := make([]uint64, n)
	x := seed
	for i := range keys {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		keys[i] = z ^ (z >> 31)
	}
	return keys
}

// BenchPosition is one position of a game's fixed benchmark suite: the moves that lead to
// it from the start, on a board of the given size (0 = default).
type BenchPosition struct {
	Name  string
	Size  int
	Moves []string
}

// Perfter is implemented by games that can count their legal move tree (perft).
type Perfter interface {
	// Perft counts the leaves of the legal move tree of b to depth plies (perft(0) = 1; a
	// finished game has no children). b is not modified.
	Perft(b Board, depth int) int64
}

// Bencher is implemented by games with a fixed benchmark suite.
type Bencher interface {
	// BenchSuite returns the suite's positions and the limits it is searched with.
	BenchSuite() ([]BenchPosition, Limits)
}

// Ruled is implemented by games with rule variants (Gomoku: freestyle, standard, renju).
type Ruled interface {
	// WithRule returns the game under the named rule; the error names an unknown rule.
	WithRule(name string) (Game, error)
	// RuleName is the name of the game's current rule, as WithRule takes it.
	RuleName() string
	// Rules lists the rule names WithRule takes, the default first.
	Rules() []string
}

// WithRule returns g under the named rule ("" = g unchanged). The error says that g has
// no rule variants, or names the unknown rule (Ruled.WithRule).
func WithRule(g Game, rule string) (Game, error) {
	if rule == "" {
		return g, nil
	}
	r, ok := g.(Ruled)
	if !ok {
		return nil, fmt.Errorf("%s has no rule variants", g.Name())
	}
	return r.WithRule(rule)
}

// RuleOf is g's rule name (Ruled.RuleName), or "" for a game without rule variants.
func RuleOf(g Game) string {
	if r, ok := g.(Ruled); ok {
		return r.RuleName()
	}
	return ""
}

// Opener is implemented by games that can make random openings for tuning and matches.
type Opener interface {
	// RandomOpening returns a few legal opening moves from the start position of b (which
	// it does not modify), drawn from rng.
	RandomOpening(b Board, rng *rand.Rand) []string
}

// CheckedOpener is an Opener whose RandomOpening draws candidates until one passes a check
// (a shallow search finds the position balanced), keeping the last of OpeningTries when
// none passes (CheckedOpening). OpeningCandidate draws the next candidate from rng, its
// draws never depending on a check; OpeningCheck reports whether one passes, reading
// nothing but b's size and the moves, and is safe to call from several goroutines. So the
// checks of candidates drawn ahead can run at once and still give RandomOpening's openings.
type CheckedOpener interface {
	Opener
	// OpeningCandidate returns a few legal opening moves from the start position of b
	// (which it does not modify), drawn from rng.
	OpeningCandidate(b Board, rng *rand.Rand) []string
	// OpeningCheck reports whether the opening passes the game's check on a board of b's
	// size (b is not modified).
	OpeningCheck(b Board, moves []string) bool
}

// OpeningTries is how many candidates a CheckedOpener's opening draws before it keeps the
// last one, which then failed its check.
const OpeningTries = 50

// CheckedOpening is the RandomOpening of a CheckedOpener: its first candidate drawn from
// rng that passes the check, or the OpeningTries-th.
func CheckedOpening(g CheckedOpener, b Board, rng *rand.Rand) []string {
	var c []string
	for range OpeningTries {
		if c = g.OpeningCandidate(b, rng); g.OpeningCheck(b, c) {
			break
		}
	}
	return c
}

// Resetter is implemented by players that can be reused for another game: Reset installs
// new weights and clears every piece of search state (transposition table included), so the
// next game is exactly as with a fresh player, without allocating a new table. The error
// names weights of another game.
type Resetter interface {
	Reset(w Weights) error
}

// LimitSetter is implemented by players whose search limits can change between the moves
// of a game while their search state (the transposition table) is kept, as an engine under
// a clock keeps its hash table from move to move. The error names invalid limits (as
// NewPlayer's); the player is then unchanged.
type LimitSetter interface {
	SetLimits(lim Limits) error
}

// SGFWriter is implemented by games that have an SGF game number (FF[4] GM, the SGF
// specification at red-bean.com/sgf: Gomoku and Renju 4, Amazons 18): SGF writes a game of
// size×size from its moves in the game's notation, the players (Black first) and the result
// ("1-0", "0-1", "1/2-1/2"). The error names a move that is not legal or not on the board.
type SGFWriter interface {
	SGF(size int, moves []string, black, white, result string) ([]byte, error)
}

// PSQRecorder is implemented by games whose records Piskvork's .psq format holds (Gomoku:
// Gomocup's game records). FormatPSQ writes a game of size×size from its moves in the
// game's notation, the moves' thinking times in ms (nil = 0) and the players (Black
// first); ParsePSQ reads one back: the board size and the moves. Errors name the move or
// the line.
type PSQRecorder interface {
	FormatPSQ(size int, moves []string, times []int64, black, white string) ([]byte, error)
	ParsePSQ(data []byte) (size int, moves []string, err error)
}

// ExtraBencher is implemented by games that measure something beside their bench suite
// (Amazons: the root ranking the width cut does, 003 §3).
type ExtraBencher interface {
	// ExtraBench measures it and returns its key in bench's JSON report, its values there,
	// and one line for the text report.
	ExtraBench() (key string, values map[string]any, line string)
}

// ScanBencher is implemented by games with a paper's benchmark of their move generator's
// scans (Connect6: Fig. 3 of 000_9752b1518ee42188.txt §4.2.1, global vs local road scan).
type ScanBencher interface {
	// ScanBench runs the benchmark with scan ("global", "local" or "both") at depth and
	// width (0 = the paper's: depths 3, 4, 5, width 10). It returns the rows for a JSON
	// report and the text report; the error names a bad scan.
	ScanBench(ctx context.Context, scan string, depth, width int) (rows any, text string, err error)
}

// OpeningBook is implemented by games with a built-in set of standard openings.
type OpeningBook interface {
	// BuiltinOpenings returns the standard openings for a size×size board (0 = default),
	// each as its moves and a name.
	BuiltinOpenings(size int) []NamedOpening
}

// NamedOpening is one opening of a book.
type NamedOpening struct {
	Name  string
	Moves []string
}

// Historian is implemented by boards that remember their moves (all of evotune's do):
// external-engine protocols need the game so far.
type Historian interface {
	// History returns the moves played from the start, in the game's notation.
	History() []string
}

// ColourNamer is implemented by games whose sides are not called black and white in that
// order: ColourNames names the first mover, then the second (chess: "white", "black").
type ColourNamer interface {
	ColourNames() [2]string
}

// ColourName is c's name in g: ColourNames where g has its own, else c.String().
func ColourName(g Game, c Color) string {
	if n, ok := g.(ColourNamer); ok {
		return n.ColourNames()[c]
	}
	return c.String()
}

// PGNGame is a game as a PGN record holds it: the Seven Tag Roster's values, the moves in
// the game's notation (the opening's included), the players' statistics of the moves from
// StatsFrom on (GameRecord.Stats), and how it ended.
type PGNGame struct {
	Event, Site, Date, Round string
	White, Black             string
	// Result is "1-0", "0-1" or "1/2-1/2".
	Result string
	Moves  []string
	// StatsFrom is the index in Moves of the first move Stats describe (the opening's
	// length); moves before it are marked as the book's.
	StatsFrom   int
	Stats       []MoveStat
	Termination string
	TimeControl string
	// Comment is written after the last move (e.g. a forfeit's reason).
	Comment string
}

// PGNWriter is implemented by games recorded as PGN (chess): PGN writes one game; the error
// names a move that is not legal.
type PGNWriter interface {
	PGN(g PGNGame) ([]byte, error)
}

// BookReader is implemented by games with opening books of their own formats (chess: EPD
// and PGN): ReadBook reads the file name's data into openings (moves in the game's
// notation), each cut to plies plies (0 = whole) where the format holds games. Errors name
// the file and line.
type BookReader interface {
	ReadBook(name string, data []byte, plies int) ([][]string, error)
}

// Pictured is implemented by boards that draw themselves for a viewer (the dashboard; every
// registered game's board, through PositionBoard): Picture gives the rows from the top, one
// character a point or square: '.' empty; the stone games 'B' and 'W' for the first and
// the second mover's stones or amazons and 'x' for an arrow; chess FEN's letters
// (KQRBNP White's, kqrbnp Black's).
type Pictured interface {
	Picture() []string
}

// OnSquares is implemented by games whose pieces stand on squares (Amazons, chess), not on
// a grid's intersections (the stone games): a viewer draws squares for them.
type OnSquares interface {
	OnSquares()
}

// MoveNamer is implemented by boards whose records name a move otherwise than the notation
// it is played in (chess: SAN "Nf3" and "O-O" for UCI's "g1f3" and "e1g1", as PGN writes
// them): MoveName names move s in the board's position, before s is played; ok is false
// for what is not a move of the position (a set-up move, an illegal move).
type MoveNamer interface {
	MoveName(s string) (name string, ok bool)
}

// FENBoard is implemented by boards whose pieces stand on squares and whose positions
// their community writes as FEN (chess): a viewer draws squares, not intersections.
type FENBoard interface {
	FEN() string
}
