package chess

import (
	"context"
	"strings"
	"testing"

	lib "github.com/corentings/chess/v2"

	"evotune/engine"
)

// play returns a board after the moves (a setup move first, if any); it fails the test on
// an illegal move.
func play(t *testing.T, moves ...string) *Board {
	t.Helper()
	b, err := Game{}.NewBoard(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range moves {
		if err := b.Play(m); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	return b.(*Board)
}

func TestEndings(t *testing.T) {
	cases := []struct {
		name    string
		moves   []string
		outcome engine.Outcome
		why     string
	}{
		{"fool's mate", []string{"f2f3", "e7e5", "g2g4", "d8h4"}, engine.WhiteWins, Checkmate},
		{"scholar's mate", []string{"e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"}, engine.BlackWins, Checkmate},
		{"stalemate", []string{SetupMove("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")}, engine.Draw, Stalemate},
		{"bare kings", []string{SetupMove("8/8/4k3/8/8/3K4/8/8 w - - 0 1")}, engine.Draw, InsufficientMaterial},
		{"king and knight", []string{SetupMove("8/8/4k3/8/8/3K4/3N4/8 w - - 0 1")}, engine.Draw, InsufficientMaterial},
		{"bishops on one colour", []string{SetupMove("8/8/4k3/3b4/8/3K4/4B3/8 w - - 0 1")}, engine.Draw, InsufficientMaterial},
		{"threefold", []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"}, engine.Draw, Repetition},
		{"fifty moves", []string{SetupMove("8/8/4k3/8/8/3K4/3R4/8 w - - 99 80"), "d2d1"}, engine.Draw, FiftyMoves},
		{"mate on the hundredth ply", []string{SetupMove("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80"), "a1a8"}, engine.BlackWins, Checkmate},
	}
	for _, c := range cases {
		b := play(t, c.moves...)
		if got := b.Outcome(); got != c.outcome || b.Termination() != c.why {
			t.Errorf("%s: outcome %v (%q), want %v (%q)", c.name, got, b.Termination(), c.outcome, c.why)
		}
	}
	// Two occurrences are not yet a draw; bishops of both colours can still mate.
	for _, b := range []*Board{
		play(t, "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"),
		play(t, SetupMove("8/8/4k3/4b3/8/3K4/4B3/8 w - - 0 1")),
		play(t, SetupMove("8/8/4k3/8/8/3K4/3R4/8 w - - 98 80"), "d2d1"),
	} {
		if b.Outcome() != engine.Ongoing {
			t.Errorf("%s: %v (%s), want ongoing", b.FEN(), b.Outcome(), b.Termination())
		}
	}
}

func TestBadInput(t *testing.T) {
	b := play(t)
	for _, m := range []string{"e2e5", "e7e5", "e2", "e2e4x", "i2i4", "e7e8k", "0000", ""} {
		if err := b.Play(m); err == nil {
			t.Errorf("%q accepted at the start", m)
		}
	}
	if b.Ply() != 0 || len(b.History()) != 0 {
		t.Errorf("a refused move changed the board: ply %d", b.Ply())
	}
	for _, fen := range []string{
		"8/8/8/8/8/8/8/8 w - - 0 1",                                // no kings
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq",       // three fields
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", // a bad piece
		"4k3/8/8/8/8/8/4R3/4K3 w - - 0 1",                          // Black, not to move, in check
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", // a bad side
	} {
		if _, err := PositionFromFEN(fen, nil); err == nil {
			t.Errorf("FEN %q accepted", fen)
		}
	}
	if err := play(t, "e2e4").Play(SetupMove(StartFEN)); err == nil {
		t.Error("a setup after a move accepted")
	}
}

// TestKeyRecomputed checks the Zobrist key made with each move against one of a position
// set up from its FEN: the same position by two roads has one key.
func TestKeyRecomputed(t *testing.T) {
	b := play(t, "e2e4", "d7d5", "e4e5", "f7f5", "g1f3", "b8c6", "f1b5", "g8f6", "e1g1")
	fresh := play(t, SetupMove(b.FEN()))
	if b.Key() != fresh.Key() {
		t.Errorf("key after moves %x, from the FEN %x", b.Key(), fresh.Key())
	}
	// e5xf6 en passant was possible after f7f5: the key differs from the position without
	// the en-passant square.
	ep := play(t, "e2e4", "d7d5", "e4e5", "f7f5")
	noEP := play(t, SetupMove(strings.Replace(ep.FEN(), " f6 ", " - ", 1)))
	if ep.Key() == noEP.Key() {
		t.Error("the en-passant capture is not in the key")
	}
}

// TestMoveName: a board names a legal move in SAN before it is played (castling, a
// capture, a promotion with check), and names no set-up move and no illegal move.
func TestMoveName(t *testing.T) {
	b := play(t, SetupMove("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1"))
	for _, c := range []struct{ uci, want string }{{"e1g1", "O-O"}, {"e1c1", "O-O-O"}, {"b7a8q", "bxa8=Q+"}, {"a1a8", "Rxa8+"}} {
		if got, ok := b.MoveName(c.uci); !ok || got != c.want {
			t.Errorf("%s is named %q (%v), want %s", c.uci, got, ok, c.want)
		}
	}
	for _, bad := range []string{"e1e3", "zz", SetupMove("8/8/8/8/8/8/8/K6k w - - 0 1")} {
		if got, ok := b.MoveName(bad); ok {
			t.Errorf("%s is named %q", bad, got)
		}
	}
}

func TestBooks(t *testing.T) {
	g := Game{}
	epd := "# a book\n" +
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"1\";\n" +
		"rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n"
	o, err := g.ReadBook("b.epd", []byte(epd), 0)
	if err != nil || len(o) != 2 || len(o[0]) != 1 || !strings.HasPrefix(o[0][0], SetupPrefix) {
		t.Fatalf("EPD book: %v, %v", o, err)
	}
	if b := play(t, o[1]...); b.ToMove() != engine.White || b.Ply() != 0 {
		t.Errorf("EPD opening: %s to move at ply %d", engine.ColourName(g, b.ToMove()), b.Ply())
	}
	for _, c := range []struct{ book, want string }{
		{epd + "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq -\n", "b.epd:4:"},
		{"4k3/8/8/8/8/8/4R3/4K3 w - -\n", "b.epd:1:"},
		{"e2e4 e7e5\n", "b.epd:1:"},
		{"rnbqkb6\xc8/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n", "b.epd:1:"}, // a byte the rules library would index out of range
	} {
		if _, err := g.ReadBook("b.epd", []byte(c.book), 0); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("book %q: %v, want an error starting %q", c.book, err, c.want)
		}
	}
	pgn := "[Event \"a\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n" +
		"[Event \"b\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]\n[SetUp \"1\"]\n\n1... c5 2. Nf3 d6 *\n"
	o, err = g.ReadBook("b.pgn", []byte(pgn), 3)
	if err != nil || strings.Join(o[0], " ") != "e2e4 e7e5 g1f3" || len(o[1]) != 4 || o[1][1] != "c7c5" {
		t.Fatalf("PGN book: %v, %v", o, err)
	}
	bad := strings.Replace(pgn, "2. Nf3 d6", "2. Nf3 Ke5", 1)
	if _, err := g.ReadBook("b.pgn", []byte(bad), 0); err == nil || !strings.HasPrefix(err.Error(), "b.pgn:6:") {
		t.Errorf("PGN book with an illegal move: %v, want an error at b.pgn:6 (the game's first line)", err)
	}
}

// TestPGNRoundTrip writes a played game as PGN and reads it back with the library's reader.
func TestPGNRoundTrip(t *testing.T) {
	g := Game{}
	opening := []string{SetupMove("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")}
	b := play(t)
	p1, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 2})
	p2, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 2})
	rec, err := engine.PlayGame(context.Background(), b, p1, p2, engine.RefereeOptions{Opening: opening, MaxPlies: 40, MoveStats: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Stats) != len(rec.Moves)-1 {
		t.Fatalf("%d stats for %d moves after the opening", len(rec.Stats), len(rec.Moves)-1)
	}
	data, err := g.PGN(engine.PGNGame{White: "a", Black: "b \"quoted\"", Result: rec.Outcome.String(), Moves: rec.Moves,
		StatsFrom: 1, Stats: rec.Stats, Termination: rec.Termination, TimeControl: "10+0.1"})
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{`[FEN "r1bqkbnr/`, `[SetUp "1"]`, `[TimeControl "10+0.1"]`, `[Black "b 'quoted'"]`, "3. ", "/2 "} {
		if !strings.Contains(text, want) {
			t.Errorf("PGN lacks %q:\n%s", want, text)
		}
	}
	back, err := g.ReadBook("g.pgn", data, 0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(back[0], " ") != strings.Join(rec.Moves, " ") {
		t.Errorf("read back %v, played %v", back[0], rec.Moves)
	}
	// The library's own reader sees the same game.
	opt, err := lib.PGN(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(lib.NewGame(opt).Moves()); n != len(rec.Moves)-1 {
		t.Errorf("library read %d moves, want %d", n, len(rec.Moves)-1)
	}
}

// TestPlayerFindsMate checks the built-in player's search on a mate in one and a capture.
func TestPlayerFindsMate(t *testing.T) {
	g := Game{}
	p, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 2})
	for _, c := range []struct{ fen, want string }{
		{"6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8"},
		{"4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", "d1d5"},
	} {
		m, st, err := p.Move(context.Background(), play(t, SetupMove(c.fen)))
		if err != nil || m != c.want {
			t.Errorf("%s: %s (%+v, %v), want %s", c.fen, m, st, err, c.want)
		}
	}
}

// TestUnderpromotion: a rook promotion next to the king gives no check (the library would
// mark it as a queen's), and a stalemate by under-promotion is a stalemate.
func TestUnderpromotion(t *testing.T) {
	b := play(t, SetupMove("8/4kP2/8/8/8/8/8/K7 w - - 0 1"))
	m, _ := b.Pos.ParseMove("f7f8r")
	if san := b.Pos.SAN(m); san != "f8=R" {
		t.Errorf("SAN %q, want f8=R", san)
	}
	if q, _ := b.Pos.ParseMove("f7f8q"); b.Pos.SAN(q) != "f8=Q+" {
		t.Errorf("SAN of the queen promotion %q, want f8=Q+", b.Pos.SAN(q))
	}
	// Black: Ka8, a7 blocked by a6; White's king on c7 guards b8 and b7. d8=Q and d8=R mate
	// along the eighth rank; d8=B and d8=N stalemate.
	const fen = "k7/p1KP4/P7/8/8/8/8/8 w - - 0 1"
	for promo, want := range map[string]string{"q": Checkmate, "r": Checkmate, "b": Stalemate, "n": Stalemate} {
		if s := play(t, SetupMove(fen), "d7d8"+promo); s.Termination() != want {
			t.Errorf("d8=%s: %q, want %q", promo, s.Termination(), want)
		}
	}
}
