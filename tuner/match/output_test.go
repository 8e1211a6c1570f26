package match

import (
	"context"
	"errors"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/gomoku"
	"evotune/engine/protocol"
	"evotune/tuner/stats"
)

// TestTournamentPieces checks what the tournament command takes from the package: the
// entrants read (too few, a spec at fault, two of one name), each entrant's own limits, a
// pairing's PGN clock, the stored pairings found on resume and the rounds refused.
func TestTournamentPieces(t *testing.T) {
	if _, err := ParseEntrants([]string{"weights=default"}); !errors.Is(err, ErrFewEntrants) || !strings.HasPrefix(err.Error(), "1 given") {
		t.Errorf("one entrant: %v, want ErrFewEntrants with the number given", err)
	}
	if _, err := ParseEntrants([]string{"weights=default", "nodes=x weights=default"}); err == nil || !strings.HasPrefix(err.Error(), `2 ("nodes=x weights=default"): nodes=x`) {
		t.Errorf("a bad spec: %v, want it named by place and spec", err)
	}
	if _, err := ParseEntrants([]string{"weights=default", "weights=default"}); err == nil || !strings.Contains(err.Error(), `1 and 2 are both named "default"`) {
		t.Errorf("two of one name: %v", err)
	}
	es, err := ParseEntrants([]string{"name=a weights=default", "name=b cmd=prog nodes=500 depth=6 tc=10+0.1"})
	if err != nil || len(es) != 2 {
		t.Fatalf("%v %v", es, err)
	}
	if es[0].OwnLimits() != "" || es[1].OwnLimits() != " tc 10+0.1 nodes 500 depth 6" {
		t.Errorf("own limits %q and %q", es[0].OwnLimits(), es[1].OwnLimits())
	}

	tc, err := engine.ParseTimeControl("10+0.1")
	if err != nil {
		t.Fatal(err)
	}
	other, _ := engine.ParseTimeControl("40/60")
	p := &Pairing{}
	if p.Clock() != nil {
		t.Errorf("no clock: %v, want no tag", p.Clock())
	}
	p.Plan.Config.Setup.TimeControl = &tc
	if c := p.Clock(); c == nil || c.String() != tc.String() {
		t.Errorf("both under the tournament's clock: %v", c)
	}
	p.Plan.Config.BExt = &protocol.ExternalSpec{TimeControl: &other}
	if c := p.Clock(); c != nil {
		t.Errorf("B under a clock of its own: %v, want no tag", c)
	}

	tour := Tournament{Entrants: es, Rounds: 1, Base: Request{Game: gomoku.Game{}}}
	pairings := tour.Pairings()
	st := &memStore{}
	if _, err := tour.Resume(context.Background(), st, pairings); !errors.Is(err, ErrNotStored) || st.writes != 0 {
		t.Errorf("nothing stored: %v (%d writes), want ErrNotStored and nothing written", err, st.writes)
	}
	if _, err := st.Create(context.Background(), tour.Key(pairings[0]), "gomoku", "a", "b", 2); err != nil {
		t.Fatal(err)
	}
	if ss, err := tour.Resume(context.Background(), st, pairings); err != nil || len(ss) != 1 || ss[0] == nil || ss[0].ID() != 1 {
		t.Errorf("one stored pairing: %v %v", ss, err)
	}
	tour.Rounds = 0
	if err := tour.PlanAll(context.Background(), pairings); err == nil || !strings.HasPrefix(err.Error(), "--rounds 0: ") {
		t.Errorf("no rounds: %v", err)
	}
}

// TestMatchEnds checks a match's names refused, the error of a match that counted no game
// and the text of a stopped one.
func TestMatchEnds(t *testing.T) {
	if err := CheckName("tuned\n[Result \"1-0\"]"); err == nil {
		t.Error("a name with a newline was taken")
	}
	if err := CheckName(strings.Repeat("x", 201)); err == nil {
		t.Error("a name of 201 characters was taken")
	}
	if err := CheckName("Stockfish 16 (Skill Level=3)"); err != nil {
		t.Error(err)
	}
	var res Result
	res.UnplayedPairs = 3
	if err := res.NothingCounted(); err == nil || !strings.Contains(err.Error(), "3 pairs had a game forfeited") {
		t.Errorf("no game counted: %v", err)
	}
	res.Result = stats.Result{Wins: 1, Losses: 1}
	if err := res.NothingCounted(); err != nil {
		t.Errorf("two games counted: %v", err)
	}
	var b strings.Builder
	res.WriteInterrupted(&b, 3, "out.pgn")
	if s := b.String(); !strings.HasPrefix(s, "match interrupted after 3 games") || !strings.Contains(s, "all 3 games that ended are in out.pgn") {
		t.Errorf("stopped match's text:\n%s", s)
	}
	b.Reset()
	res.WriteInterrupted(&b, 3, "")
	if strings.Contains(b.String(), "games that ended are in") {
		t.Errorf("no PGN, yet the text names one:\n%s", b.String())
	}
}
