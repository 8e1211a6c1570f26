package ladder

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner/arena"
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
	if allWins.Bounded() || !measured.Bounded() {
		t.Fatalf("Bounded: all wins %v, a measured match %v", allWins.Bounded(), measured.Bounded())
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

// TestLadderEngineIgnoresNodes: an outside engine that ignores go nodes (it never answers
// such a search, as Toga II searches on) is found by one move before the nodes rung plays
// a game: the error names the engine, the condition and the rungs that work instead.
func TestLadderEngineIgnoresNodes(t *testing.T) {
	script := filepath.Join(t.TempDir(), "sleepy")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nwhile read -r l; do\n  case \"$l\" in\n    uci) echo 'id name sleepy'; echo uciok ;;\n    isready) echo readyok ;;\n    'go nodes'*) ;;\n    go*) echo 'bestmove e2e4' ;;\n    quit) exit 0 ;;\n  esac\ndone\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e, err := genomes.Lookup("chess")
	if err != nil {
		t.Fatal(err)
	}
	spec := &protocol.ExternalSpec{Argv: []string{script}, Protocol: protocol.UCI, MoveTime: 300 * time.Millisecond}
	saved := 0
	l := Ladder{Base: VerifyConfig{Setup: arena.GameSetup{Game: e.Game, Limits: e.Game.DefaultLimits(), MaxPlies: 10, Forfeit: true}, ChampionExt: spec, BaselineExt: spec,
		Games: 2, OpeningSpec: "random", Seed: 1, Workers: 1},
		Rungs: []Rung{{Kind: RungNodes, Value: "1000"}}, Save: func(Verification) error { saved++; return nil }}
	_, err = l.Play(context.Background())
	if err == nil || !strings.Contains(err.Error(), "rung 0 (nodes 1000): cmd:"+script+" played no move under go nodes 1000 within its move time (300ms): it ignores nodes limits") || !strings.Contains(err.Error(), "--verify-depth D") || saved != 0 {
		t.Fatalf("a nodes rung for an engine that ignores go nodes: %v (%d rungs saved)", err, saved)
	}
}
