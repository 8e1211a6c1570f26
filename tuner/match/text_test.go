package match

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/chess"
	"evotune/engine/protocol/wire"
	"evotune/tuner/arena"
)

// TestMatchRecords: WritePGN names the contestants by the colours they had, numbers the
// rounds pair.game, and writes the time control and a forfeit's reason; WithOptions and
// LimitsText say what a match header says.
func TestMatchRecords(t *testing.T) {
	tc, err := engine.ParseTimeControl("10+0.1")
	if err != nil {
		t.Fatal(err)
	}
	res := Result{
		Games: []Game{
			{Pair: 0, AColour: engine.Black.String(), Record: engine.GameRecord{Moves: []string{"f2f3", "e7e5", "g2g4", "d8h4"}, Outcome: engine.WhiteWins, Termination: "checkmate"}},
			{Pair: 0, AColour: engine.White.String(), Record: engine.GameRecord{Moves: []string{"e2e4"}, Outcome: engine.WhiteWins, Forfeit: "illegal move e7e7"}},
		},
	}
	path := filepath.Join(t.TempDir(), "m.pgn")
	if err := res.WritePGN(path, chess.Game{}, "A", "B", &tc); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pgn := string(data)
	for _, want := range []string{`[Round "1.1"]`, `[Round "1.2"]`, `[TimeControl "10+0.1"]`, "illegal move e7e7", `[Result "0-1"]`} {
		if !strings.Contains(pgn, want) {
			t.Errorf("PGN lacks %s:\n%s", want, pgn)
		}
	}
	if first, second := strings.Index(pgn, `[White "A"]`), strings.Index(pgn, `[White "B"]`); first < 0 || second < first {
		t.Errorf("A has White (the first mover) in game 1, B in game 2:\n%s", pgn)
	}
	if got := WithOptions("cmd:sf", []wire.Option{{Name: "Skill Level", Value: "5"}, {Name: "Hash", Value: "16"}}); got != "cmd:sf (Skill Level=5, Hash=16)" {
		t.Errorf("WithOptions: %q", got)
	}
	s := arena.GameSetup{Limits: engine.Limits{Depth: 3, Width: 12, Nodes: 2000}, TimeControl: &tc}
	if got := s.LimitsText(false, false, 0); got != "tc 10+0.1 nodes 2000 depth 3 width 12" {
		t.Errorf("built-in engines: %q", got)
	}
	if got := (arena.GameSetup{Limits: engine.Limits{Depth: 3, Width: 12}}).LimitsText(true, true, 0); got != "outside engines' own limits" {
		t.Errorf("two outside engines: %q", got)
	}
}
