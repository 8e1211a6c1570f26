package chess

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"evotune/engine"
	"evotune/engine/search"
)

// Name is the registry name of the game.
const Name = "chess"

// SetupPrefix starts an opening's first "move" that sets up a position instead: "fen:"
// and the FEN with its blanks written as '_' (so that the opening survives any tool that
// splits moves on blanks), e.g. "fen:8/8/8/8/8/8/8/K1k5_w_-_-_0_1". Board.Play takes it
// as the first move only.
const SetupPrefix = "fen:"

// SetupMove returns the setup "move" of fen (see SetupPrefix).
func SetupMove(fen string) string {
	return SetupPrefix + strings.Join(strings.Fields(fen), "_")
}

// Game implements engine.Game for chess: the rules of github.com/corentings/chess/v2, with
// the draws a referee declares itself (threefold repetition, fifty moves, insufficient
// material) as fastchess declares them, and the built-in material and piece-square player.
type Game struct{}

// Name returns "chess".
func (Game) Name() string { return Name }

// OnSquares implements engine.OnSquares: chess pieces stand on squares.
func (Game) OnSquares() {}

// ColourNames names the sides in the order they move: White first.
func (Game) ColourNames() [2]string { return [2]string{"white", "black"} }

// NewBoard returns the start position; size must be 0 or 8.
func (Game) NewBoard(size int) (engine.Board, error) {
	if size != 0 && size != 8 {
		return nil, fmt.Errorf("chess is played on 8×8, not %d×%d", size, size)
	}
	return &Board{PositionBoard: engine.PositionBoard[*Position, Move]{Pos: NewPosition(nil)}}, nil
}

// DefaultWeights returns the Simplified Evaluation Function's values.
func (Game) DefaultWeights() engine.Weights { return DefaultWeights() }

// DecodeWeights strictly decodes the weights object; every key is required.
func (Game) DecodeWeights(raw json.RawMessage) (engine.Weights, error) { return decodeWeights(raw) }

// DefaultLimits is depth 3 (every legal move searched: no width limit).
func (Game) DefaultLimits() engine.Limits { return engine.Limits{Depth: 3} }

// Player is the built-in chess player: the player all games share, under chess's rules.
type Player = search.Player[*Position, Move, *Tables]

var rules = search.Rules[*Position, Move, *Tables]{
	Game: Name, Defaults: Game{}.DefaultLimits(), TTBits: 16,
	Tables: search.WeightsTables[Weights, *Tables](Name),
	Root: func(pos *Position, t *Tables, _ *Position) *Position {
		q := pos.Clone()
		q.tab = t
		return q
	},
}

// NewPlayer returns an alpha-beta player with a 2^16-entry transposition table. The error
// names weights of another game, invalid weights or invalid limits.
func (Game) NewPlayer(w engine.Weights, lim engine.Limits) (engine.Player, error) {
	pl, err := search.NewPlayer(rules, w, lim)
	if err != nil {
		return nil, err
	}
	return pl, nil
}

// RandomMove returns a uniformly chosen legal move, or "" if there is none.
func (Game) RandomMove(b engine.Board, rng *rand.Rand) string {
	p := b.(*Board).Pos
	ms := p.legal()
	if over, _, _ := p.Status(); over || len(ms) == 0 {
		return ""
	}
	return packMove(&ms[rng.IntN(len(ms))]).String()
}

// RandomOpening is four uniformly random legal plies from the start (an opening book,
// --book, is what chess matches should use: random plies give unbalanced positions, but a
// colour-swapped pair plays both sides of each).
func (g Game) RandomOpening(b engine.Board, rng *rand.Rand) []string {
	c := b.Clone()
	var out []string
	for i := 0; i < 4; i++ {
		m := g.RandomMove(c, rng)
		if m == "" || c.Play(m) != nil {
			break
		}
		out = append(out, m)
	}
	return out
}

// Perft counts the legal move tree of b to depth plies (a finished game, by any of
// Status's rules, has no children).
func (Game) Perft(b engine.Board, depth int) int64 {
	return perft(b.(*Board).Pos.Clone(), depth)
}

func perft(p *Position, depth int) int64 {
	if depth == 0 {
		return 1
	}
	ms := p.legal()
	if depth == 1 {
		return int64(len(ms))
	}
	var n int64
	for _, m := range append([]Move(nil), packAll(ms)...) {
		p.Make(m)
		n += perft(p, depth-1)
		p.Unmake(m)
	}
	return n
}

func packAll(ms []libMove) []Move {
	out := make([]Move, len(ms))
	for i := range ms {
		out[i] = packMove(&ms[i])
	}
	return out
}

// BenchSuite is the start position and Kiwipete, searched at depth 3.
func (Game) BenchSuite() ([]engine.BenchPosition, engine.Limits) {
	return []engine.BenchPosition{
		{Name: "start"},
		{Name: "kiwipete", Moves: []string{SetupMove(Kiwipete)}},
		{Name: "italian", Moves: []string{"e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"}},
	}, engine.Limits{Depth: 3}
}

// Kiwipete is Peter McKenzie's perft test position (castling, en passant, promotions).
const Kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

// Board is the engine.Board of chess.
type Board struct {
	engine.PositionBoard[*Position, Move]
	start string // the FEN the game started from ("" = the standard start)
}

// Game returns "chess".
func (b *Board) Game() string { return Name }

// ColourNames names the sides in the order they move (engine.ColourNamer): White first.
func (b *Board) ColourNames() [2]string { return Game{}.ColourNames() }

// Clone returns an independent copy.
func (b *Board) Clone() engine.Board {
	return &Board{PositionBoard: engine.PositionBoard[*Position, Move]{Pos: b.Pos.Clone(), MoveLog: b.CloneLog()}, start: b.start}
}

// Play plays a move in UCI notation, or — as the first move only — sets up a position
// (SetupPrefix). The board is unchanged on error, which names the move and why.
func (b *Board) Play(s string) error {
	if rest, ok := strings.CutPrefix(s, SetupPrefix); ok {
		if len(b.History()) > 0 {
			return fmt.Errorf("%.40s…: a position can be set up only before the first move", s)
		}
		fen := strings.ReplaceAll(rest, "_", " ")
		p, err := PositionFromFEN(fen, nil)
		if err != nil {
			return err
		}
		b.Pos, b.start = p, p.FEN()
		b.Record(SetupMove(fen))
		return nil
	}
	return b.PositionBoard.Play(s)
}

// Outcome reports checkmate (the side to move lost) and the draws of Status.
func (b *Board) Outcome() engine.Outcome {
	over, r, _ := b.Pos.Status()
	switch {
	case !over:
		return engine.Ongoing
	case r == 0:
		return engine.Draw
	case b.Pos.ToMove() == engine.Black: // White to move was mated
		return engine.WhiteWins
	}
	return engine.BlackWins
}

// Termination says how the game ended by the rules ("checkmate", "stalemate",
// "threefold repetition", "fifty-move rule", "insufficient material"), or "".
func (b *Board) Termination() string {
	_, _, why := b.Pos.Status()
	return why
}

// StartFEN is the FEN the game started from (StartFEN for the standard start).
func (b *Board) StartFEN() string {
	if b.start == "" {
		return StartFEN
	}
	return b.start
}

// FEN is the current position's FEN.
func (b *Board) FEN() string { return b.Pos.FEN() }

// HalfMoveClock is the number of plies since the last capture or pawn move.
func (b *Board) HalfMoveClock() int { return b.Pos.pos.HalfMoveClock() }

// FullMoveNumber is the FEN's full-move number (1 at the start, +1 after each Black move).
func (b *Board) FullMoveNumber() int { return fullMove(b.Pos) }

// UCIPosition is the UCI position command's argument for the game so far: "startpos" or
// "fen F", then "moves" and the moves played.
func (b *Board) UCIPosition() string {
	var sb strings.Builder
	hist := b.History()
	if len(hist) > 0 && strings.HasPrefix(hist[0], SetupPrefix) {
		sb.WriteString("fen " + strings.ReplaceAll(strings.TrimPrefix(hist[0], SetupPrefix), "_", " "))
		hist = hist[1:]
	} else {
		sb.WriteString("startpos")
	}
	if len(hist) > 0 {
		sb.WriteString(" moves " + strings.Join(hist, " "))
	}
	return sb.String()
}

// MoveName names move s (UCI notation) in standard algebraic notation in the board's
// position (engine.MoveNamer): "Nf3", "exd5", "O-O", "e8=Q+"; ok false for a set-up move
// or a move that is not legal here.
func (b *Board) MoveName(s string) (string, bool) {
	if strings.HasPrefix(s, SetupPrefix) {
		return "", false
	}
	m, err := b.Pos.ParseMove(s)
	if err != nil || b.Pos.Legal(m) != nil {
		return "", false
	}
	return b.Pos.SAN(m), true
}

// SetFEN sets up fen on a board with no move played (uci.Setter); the error names what is
// wrong with the FEN.
func (b *Board) SetFEN(fen string) error { return b.Play(SetupMove(fen)) }

// Moves lists the legal moves in UCI notation (none once the game is over).
func (b *Board) Moves() []string {
	if over, _, _ := b.Pos.Status(); over {
		return nil
	}
	ms := b.Pos.legal()
	out := make([]string, len(ms))
	for i := range ms {
		out[i] = packMove(&ms[i]).String()
	}
	return out
}
