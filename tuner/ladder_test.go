package tuner

import (
	"strings"
	"testing"

	"evotune/tuner/stats"
)

// TestRungVerdicts: a rung holds when its SPRT accepts H1 or its interval is above 0, does
// not hold at H0 or an Elo of 0 or below, is not proven in between; a match scored all one
// way (Elo held as 1e9) has no finite interval, so an opponent rung built on it is not
// measured, and says why.
func TestRungVerdicts(t *testing.T) {
	for _, c := range []struct {
		v    Verification
		want string
	}{
		{Verification{Games: 100, Elo: 20, EloCI95: 10, EloLow: 10}, HoldsYes},
		{Verification{Games: 100, Elo: 20, EloCI95: 30, EloLow: -10}, HoldsUnproven},
		{Verification{Games: 100, Elo: 20, EloCI95: 30, EloLow: -10, Verdict: stats.AcceptH1}, HoldsYes},
		{Verification{Games: 100, Elo: 20, EloCI95: 10, EloLow: 10, Verdict: stats.AcceptH0}, HoldsNo},
		{Verification{Games: 100, Elo: -3.1, EloCI95: 6, EloLow: -9.1}, HoldsNo},
		{Verification{Games: 0}, HoldsUnmeasured},
		{Verification{Games: 40, Unbounded: true, Kind: RungOpponent, Condition: "cmd:x", Warning: "too near"}, HoldsUnmeasured},
	} {
		if got := c.v.holds(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.v, got, c.want)
		}
	}
	allWins := Verification{Games: 20, Score: 1, Elo: 1e9, EloLow: 359.7, EloHigh: 1e9}
	measured := Verification{Games: 20, Score: 0.6, Elo: 70.4, EloCI95: 119.4, EloLow: -49, EloHigh: 189.8}
	if bounded(allWins) || !bounded(measured) {
		t.Fatalf("bounded: all wins %v, a measured match %v", bounded(allWins), bounded(measured))
	}
	v := Verification{Games: 20, Kind: RungOpponent, Condition: "cmd:stockfish (Skill Level=3)", Unbounded: true, Warning: "the champion scored 100%"}
	if got := v.ProofText(); got != "is not measured against cmd:stockfish (Skill Level=3): the champion scored 100%" {
		t.Fatalf("ProofText %q", got)
	}
	v = Verification{Games: 20, Kind: RungTC, Condition: "tc 60+0.6", Elo: -3.1, EloCI95: 6, EloLow: -9.1}
	if got := v.ProofText(); !strings.HasPrefix(got, "does not hold at tc 60+0.6: −3.1 ± 6.0") {
		t.Fatalf("ProofText %q", got)
	}
}
