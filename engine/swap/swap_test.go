package swap

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/gomoku"
)

// scripted is a Chooser that gives fixed answers in turn.
type scripted []struct {
	swap   bool
	stones []string
}

func (s *scripted) SwapAnswer(context.Context, engine.Board) (bool, []string, error) {
	if len(*s) == 0 {
		return false, nil, fmt.Errorf("no more answers")
	}
	a := (*s)[0]
	*s = (*s)[1:]
	return a.swap, a.stones, nil
}

// TestSwapOpening walks every branch of Swap2 and the swap after the third move, with
// scripted answers: who plays White afterwards, the stones laid, and which player a wrong
// answer is charged to.
func TestSwapOpening(t *testing.T) {
	three := []string{"h8", "h9", "i9"}
	type ans = struct {
		swap   bool
		stones []string
	}
	cases := []struct {
		name       string
		rule       string
		p, q       scripted
		moves      int
		pWhite     bool
		failFirst  *bool // nil: no failure
		errContain string
	}{
		{"q swaps", Swap2, scripted{{false, three}}, scripted{{true, nil}}, 3, true, nil, ""},
		{"q stays White", Swap2, scripted{{false, three}}, scripted{{false, []string{"i8"}}}, 4, false, nil, ""},
		{"q lays two, p swaps", Swap2, scripted{{false, three}, {true, nil}}, scripted{{false, []string{"i8", "g7"}}}, 5, false, nil, ""},
		{"q lays two, p plays White", Swap2, scripted{{false, three}, {false, []string{"j10"}}}, scripted{{false, []string{"i8", "g7"}}}, 6, true, nil, ""},
		{"swap3: q swaps", Swap3, scripted{{false, three}}, scripted{{true, nil}}, 3, true, nil, ""},
		{"swap3: two stones refused", Swap3, scripted{{false, three}}, scripted{{false, []string{"i8", "g7"}}}, 3, false, ptr(false), "allows [1]"},
		{"p lays two stones", Swap2, scripted{{false, []string{"h8", "h9"}}}, scripted{}, 0, false, ptr(true), "allows [3]"},
		{"p swaps on the empty board", Swap2, scripted{{true, nil}}, scripted{}, 0, false, ptr(true), "SWAP to the empty board"},
		{"q plays on an occupied point", Swap2, scripted{{false, three}}, scripted{{false, []string{"h8"}}}, 3, false, ptr(false), "h8"},
	}
	for _, c := range cases {
		b, _ := gomoku.Game{}.NewBoard(15)
		p, q := c.p, c.q
		moves, pWhite, err := Opening(context.Background(), c.rule, b, &p, &q)
		var se *Error
		switch {
		case c.failFirst == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.failFirst != nil && (!errors.As(err, &se) || se.First != *c.failFirst || !strings.Contains(err.Error(), c.errContain)):
			t.Errorf("%s: error %v, want one charged to first=%v containing %q", c.name, err, *c.failFirst, c.errContain)
		case len(moves) != c.moves || (c.failFirst == nil && pWhite != c.pWhite):
			t.Errorf("%s: moves %v, p White %v; want %d moves, p White %v", c.name, moves, pWhite, c.moves, c.pWhite)
		case c.failFirst == nil && (b.Ply() != c.moves || (b.ToMove() == engine.White) != (c.moves%2 == 1)):
			t.Errorf("%s: board at ply %d", c.name, b.Ply())
		}
	}
}

func ptr[T any](v T) *T { return &v }

// fifthScripted answers swap questions from a script and the fifth-move questions with
// fixed offers and a fixed pick.
type fifthScripted struct {
	scripted
	offers []string
	pick   string
}

func (f *fifthScripted) FifthFourth(ctx context.Context, b engine.Board) (string, error) {
	_, st, err := f.SwapAnswer(ctx, b)
	if err != nil || len(st) != 1 {
		return "", fmt.Errorf("scripted fourth stone %v: %v", st, err)
	}
	return st[0], nil
}
func (f *fifthScripted) FifthOffer(context.Context, engine.Board, int) ([]string, error) {
	return f.offers, nil
}
func (f *fifthScripted) FifthPick(context.Context, engine.Board, []string) (string, error) {
	return f.pick, nil
}

// TestFifthOpening walks the fifth-move-N-alternatives rule (五手N打) with scripted players:
// who lays the fourth stone after a swap, that the picked offer is the fifth move, and which
// player a bad offer (too few, symmetric images, an occupied point) or a pick outside the
// offers is charged to; the rule names are checked; built-in players play it through.
func TestFifthOpening(t *testing.T) {
	// Column h only: symmetric under the left-right mirror, so g8 and j8... are images.
	three := []string{"h8", "h9", "h7"}
	cases := []struct {
		name       string
		p, q       fifthScripted
		moves      []string
		pWhite     bool
		failFirst  *bool
		errContain string
	}{
		{"q stays White, Black p offers, White q picks", fifthScripted{scripted{{false, three}}, []string{"i8", "j10"}, ""},
			fifthScripted{scripted{{false, []string{"h6"}}}, nil, "j10"}, []string{"h8", "h9", "h7", "h6", "j10"}, false, nil, ""},
		{"q swaps: p, now White, lays the fourth and picks", fifthScripted{scripted{{false, three}, {false, []string{"h6"}}}, nil, "i8"},
			fifthScripted{scripted{{true, nil}}, []string{"i8", "j10"}, ""}, []string{"h8", "h9", "h7", "h6", "i8"}, true, nil, ""},
		{"mirror images offered", fifthScripted{scripted{{false, three}}, []string{"g8", "j8"}, ""},
			fifthScripted{scripted{{false, []string{"h6"}}}, nil, "g8"}, nil, false, ptr(true), "no error"},
		{"mirror images refused", fifthScripted{scripted{{false, three}}, []string{"g8", "i8"}, ""},
			fifthScripted{scripted{{false, []string{"h6"}}}, nil, "g8"}, nil, false, ptr(true), "same move up to a symmetry"},
		{"too few offers", fifthScripted{scripted{{false, three}}, []string{"g8"}, ""},
			fifthScripted{scripted{{false, []string{"h6"}}}, nil, "g8"}, nil, false, ptr(true), "1 offered, the rule asks 2"},
		{"an occupied point offered", fifthScripted{scripted{{false, three}}, []string{"h9", "i8"}, ""},
			fifthScripted{scripted{{false, []string{"h6"}}}, nil, "i8"}, nil, false, ptr(true), "h9"},
		{"a pick outside the offers", fifthScripted{scripted{{false, three}}, []string{"i8", "j10"}, ""},
			fifthScripted{scripted{{false, []string{"h6"}}}, nil, "a1"}, nil, false, ptr(false), "not one of the offers"},
	}
	for _, c := range cases {
		if c.errContain == "no error" { // g8 and j8 are not images of each other (h is the axis): played
			c.moves, c.failFirst = []string{"h8", "h9", "h7", "h6", "g8"}, nil
		}
		b, _ := gomoku.Game{}.NewBoard(15)
		p, q := c.p, c.q
		moves, pWhite, err := Opening(context.Background(), "fifth-2", b, &p, &q)
		var se *Error
		switch {
		case c.failFirst == nil && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.failFirst != nil && (!errors.As(err, &se) || se.First != *c.failFirst || !strings.Contains(err.Error(), c.errContain)):
			t.Errorf("%s: error %v, want one charged to first=%v containing %q", c.name, err, *c.failFirst, c.errContain)
		case c.failFirst == nil && (strings.Join(moves, " ") != strings.Join(c.moves, " ") || pWhite != c.pWhite || b.ToMove() != engine.White):
			t.Errorf("%s: moves %v, p White %v, %v to move; want %v, %v, White", c.name, moves, pWhite, b.ToMove(), c.moves, c.pWhite)
		}
	}
	for rule, want := range map[string]string{"fifth-2": "", "fifth-10": "", "fifth-0": "N from 1 to 10", "fifth-11": "N from 1 to 10", "fifth-2x": "N from 1", "fifth": "want swap2"} {
		_, err := ParseRule(rule)
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("ParseRule(%q): %v, want %q", rule, err, want)
		}
	}
	// Built-in players: three offers, each legal and no two symmetric; the pick is one.
	g := gomoku.Game{}
	pl, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 2, Width: 8})
	bs := Builtin{Player: pl, Proposals: [][]string{three}}
	for i := 0; i < 3; i++ {
		b, _ := g.NewBoard(15)
		moves, _, err := Opening(context.Background(), "fifth-3", b, bs, bs)
		if err != nil || len(moves) != 5 || b.Ply() != 5 {
			t.Fatalf("built-in players: %v %v", moves, err)
		}
	}
	b, _ := g.NewBoard(15)
	for _, m := range []string{"h8", "h9", "h7", "h6"} {
		b.Play(m)
	}
	offers, err := bs.FifthOffer(context.Background(), b, 3)
	if err != nil || checkOffers(b, offers, 3) != nil {
		t.Fatalf("built-in offers %v: %v, %v", offers, err, checkOffers(b, offers, 3))
	}
	if pick, err := bs.FifthPick(context.Background(), b, offers); err != nil || !slices.Contains(offers, pick) {
		t.Fatalf("built-in pick %q of %v: %v", pick, offers, err)
	}
}
