package chess

import (
	"encoding/json"
	"fmt"
	"math"

	lib "github.com/corentings/chess/v2"

	"evotune/engine"
	"evotune/engine/search"
)

// Weights are the built-in player's evaluation: piece values in centipawns and the scale of
// the piece-square tables in percent. The tables are Tomasz Michniewski's "Simplified
// Evaluation Function" (the chessprogramming wiki's page of that name), the values its
// 100/320/330/500/900: a small, well-known evaluation, the baseline the tuner starts from.
type Weights struct {
	Pawn   float64 `json:"pawn"`
	Knight float64 `json:"knight"`
	Bishop float64 `json:"bishop"`
	Rook   float64 `json:"rook"`
	Queen  float64 `json:"queen"`
	// PST scales every piece-square table, in percent (100 = the tables as written).
	PST float64 `json:"pst"`
}

// DefaultWeights returns the Simplified Evaluation Function's values.
func DefaultWeights() Weights {
	return Weights{Pawn: 100, Knight: 320, Bishop: 330, Rook: 500, Queen: 900, PST: 100}
}

// Game implements engine.Weights.
func (Weights) Game() string { return Name }

// Validate checks that every value is finite and in 0…10 000 (centipawns or percent); the
// error names the field.
func (w Weights) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"pawn", w.Pawn}, {"knight", w.Knight}, {"bishop", w.Bishop}, {"rook", w.Rook}, {"queen", w.Queen}, {"pst", w.PST}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 || f.v > 10000 {
			return fmt.Errorf("%s: %v is outside 0…10000", f.name, f.v)
		}
	}
	return nil
}

// Tables are the evaluation in centipawns: each piece's value plus its square's bonus
// (from White's side; Black's squares mirrored), indexed [piece-1][square].
type Tables struct {
	sq [12][64]int64
}

// Tables builds the evaluation tables of w.
func (w Weights) Tables() *Tables {
	t := &Tables{}
	vals := [6]float64{0, w.Queen, w.Rook, w.Bishop, w.Knight, w.Pawn} // King, Queen, Rook, Bishop, Knight, Pawn
	for kind := 0; kind < 6; kind++ {
		for sq := 0; sq < 64; sq++ {
			// The tables are written rank 8 first: White's square sq is row 7−rank.
			file, rank := sq%8, sq/8
			white := pst[kind][(7-rank)*8+file]
			black := pst[kind][rank*8+file]
			t.sq[kind][sq] = int64(math.Round(vals[kind] + w.PST/100*float64(white)))
			t.sq[6+kind][sq] = int64(math.Round(vals[kind] + w.PST/100*float64(black)))
		}
	}
	return t
}

// pst are the Simplified Evaluation Function's piece-square tables, for White, rank 8 in
// the first row: king (middle game), queen, rook, bishop, knight, pawn — the library's piece
// order.
var pst = [6][64]int{
	{-30, -40, -40, -50, -50, -40, -40, -30,
		-30, -40, -40, -50, -50, -40, -40, -30,
		-30, -40, -40, -50, -50, -40, -40, -30,
		-30, -40, -40, -50, -50, -40, -40, -30,
		-20, -30, -30, -40, -40, -30, -30, -20,
		-10, -20, -20, -20, -20, -20, -20, -10,
		20, 20, 0, 0, 0, 0, 20, 20,
		20, 30, 10, 0, 0, 10, 30, 20},
	{-20, -10, -10, -5, -5, -10, -10, -20,
		-10, 0, 0, 0, 0, 0, 0, -10,
		-10, 0, 5, 5, 5, 5, 0, -10,
		-5, 0, 5, 5, 5, 5, 0, -5,
		0, 0, 5, 5, 5, 5, 0, -5,
		-10, 5, 5, 5, 5, 5, 0, -10,
		-10, 0, 5, 0, 0, 0, 0, -10,
		-20, -10, -10, -5, -5, -10, -10, -20},
	{0, 0, 0, 0, 0, 0, 0, 0,
		5, 10, 10, 10, 10, 10, 10, 5,
		-5, 0, 0, 0, 0, 0, 0, -5,
		-5, 0, 0, 0, 0, 0, 0, -5,
		-5, 0, 0, 0, 0, 0, 0, -5,
		-5, 0, 0, 0, 0, 0, 0, -5,
		-5, 0, 0, 0, 0, 0, 0, -5,
		0, 0, 0, 5, 5, 0, 0, 0},
	{-20, -10, -10, -10, -10, -10, -10, -20,
		-10, 0, 0, 0, 0, 0, 0, -10,
		-10, 0, 5, 10, 10, 5, 0, -10,
		-10, 5, 5, 10, 10, 5, 5, -10,
		-10, 0, 10, 10, 10, 10, 0, -10,
		-10, 10, 10, 10, 10, 10, 10, -10,
		-10, 5, 0, 0, 0, 0, 5, -10,
		-20, -10, -10, -10, -10, -10, -10, -20},
	{-50, -40, -30, -30, -30, -30, -40, -50,
		-40, -20, 0, 0, 0, 0, -20, -40,
		-30, 0, 10, 15, 15, 10, 0, -30,
		-30, 5, 15, 20, 20, 15, 5, -30,
		-30, 0, 15, 20, 20, 15, 0, -30,
		-30, 5, 10, 15, 15, 10, 5, -30,
		-40, -20, 0, 5, 5, 0, -20, -40,
		-50, -40, -30, -30, -30, -30, -40, -50},
	{0, 0, 0, 0, 0, 0, 0, 0,
		50, 50, 50, 50, 50, 50, 50, 50,
		10, 10, 20, 30, 30, 20, 10, 10,
		5, 5, 10, 25, 25, 10, 5, 5,
		0, 0, 0, 20, 20, 0, 0, 0,
		5, -5, -10, 0, 0, -10, -5, 5,
		5, 10, 10, -20, -20, 10, 10, 5,
		0, 0, 0, 0, 0, 0, 0, 0},
}

// decodeWeights strictly decodes the "weights" object of a chess weights file: every key
// is required; the error names a missing, unknown or out-of-range field.
func decodeWeights(raw json.RawMessage) (engine.Weights, error) {
	var d struct {
		Pawn, Knight, Bishop, Rook, Queen, PST *float64
	}
	if err := engine.DecodeStrict(raw, &struct {
		Pawn   **float64 `json:"pawn"`
		Knight **float64 `json:"knight"`
		Bishop **float64 `json:"bishop"`
		Rook   **float64 `json:"rook"`
		Queen  **float64 `json:"queen"`
		PST    **float64 `json:"pst"`
	}{&d.Pawn, &d.Knight, &d.Bishop, &d.Rook, &d.Queen, &d.PST}); err != nil {
		return nil, err
	}
	var w Weights
	for _, f := range []struct {
		name string
		src  *float64
		dst  *float64
	}{{"pawn", d.Pawn, &w.Pawn}, {"knight", d.Knight, &w.Knight}, {"bishop", d.Bishop, &w.Bishop},
		{"rook", d.Rook, &w.Rook}, {"queen", d.Queen, &w.Queen}, {"pst", d.PST, &w.PST}} {
		if f.src == nil {
			return nil, fmt.Errorf("%s: missing", f.name)
		}
		*f.dst = *f.src
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w, nil
}

// Evaluate is the static evaluation for the side to move, in centipawns: the sum of the
// side's table entries minus the other side's. A position without tables (a board's) is
// an error of the caller: it panics with errNoTables.
func (p *Position) Evaluate() int64 {
	if p.tab == nil {
		panic(errNoTables)
	}
	b := p.pos.Board()
	var s int64
	for sq := lib.A1; sq <= lib.H8; sq++ {
		pc := b.Piece(sq)
		if pc == lib.NoPiece {
			continue
		}
		v := p.tab.sq[pc-1][sq]
		if pc >= lib.BlackKing {
			v = -v
		}
		s += v
	}
	if p.pos.Turn() == lib.Black {
		s = -s
	}
	return s
}

// value orders captures: most valuable victim, least valuable attacker (MVV-LVA).
var value = [7]int64{0, 20, 9, 5, 3, 3, 1} // by lib.PieceType: none, king, queen, rook, bishop, knight, pawn

// GenMoves returns the legal moves, captures and promotions first by MVV-LVA (search.Position).
func (p *Position) GenMoves(buf []search.Scored[Move]) []search.Scored[Move] {
	b := p.pos.Board()
	for i := range p.legal() {
		m := &p.moves[i]
		var sc int64
		if m.HasTag(lib.Capture) {
			victim := b.Piece(m.S2()).Type()
			if m.HasTag(lib.EnPassant) {
				victim = lib.Pawn
			}
			sc = 100 + 10*value[victim] - value[b.Piece(m.S1()).Type()]
		}
		if m.Promo() == lib.Queen {
			sc += 90
		}
		buf = append(buf, search.Scored[Move]{Move: packMove(m), Score: sc})
	}
	return buf
}

// Terminal reports the end of the game by Status (search.Position).
func (p *Position) Terminal() (bool, int64) {
	over, r, _ := p.Status()
	return over, int64(r)
}
