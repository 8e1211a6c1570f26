package schedule

import (
	"testing"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/genomes"
)

// fakeSides plays built-in sides with no weights, opening pair k at depth k+1.
type fakeSides struct{}

func (fakeSides) Side([]float64) (engine.Weights, *protocol.ExternalSpec, error) {
	return nil, nil, nil
}
func (fakeSides) DepthOf(k int) int { return k + 1 }
func (fakeSides) Game() engine.Game { return nil }

// TestOnAndCredit: two players with the same genes share their games against an opponent
// (each distinct game once), a player never plays an opponent of its own genes (two draws,
// no game), every entry is at its pair's depth, and crediting gives each player its games,
// a row per game played and a pentanomial count per pair.
func TestOnAndCredit(t *testing.T) {
	a := &genomes.Genome{ID: "a", X: []float64{1}}
	twin := &genomes.Genome{ID: "twin", X: []float64{1}}
	b := &genomes.Genome{ID: "b", X: []float64{2}}
	refs := []Opponent{{ID: "ref", X: []float64{2}}}
	openings := [][]string{{"h8"}, {"g7"}}
	var bt Batch
	if err := On(&bt, fakeSides{}, []*genomes.Genome{a, twin, b}, []int{0, 1, 2}, refs, openings, 0, 2, 3); err != nil {
		t.Fatal(err)
	}
	if len(bt.Tasks) != 4 || len(bt.Refs) != 12 {
		t.Fatalf("%d tasks, %d entries: want 4 distinct games (a and its twin share them) and 12 entries", len(bt.Tasks), len(bt.Refs))
	}
	for _, e := range bt.Refs {
		if e.Depth != e.Pair+1 || e.Round != 3 || e.Opp != "ref" {
			t.Errorf("entry %+v: want depth %d, round 3, opponent ref", e, e.Pair+1)
		}
		if (e.Ind == 2) != (e.Task == -1) {
			t.Errorf("entry %+v: only b, whose genes are the reference's, plays no game", e)
		}
	}
	if bt.Tasks[0].Opening[0] != "h8" || bt.Tasks[2].Opening[0] != "g7" || bt.Tasks[0].Depth != 1 {
		t.Errorf("tasks %+v: want pair 0 then pair 1, each both colours", bt.Tasks)
	}
	// a wins every game as Black and draws as White.
	recs := make([]engine.GameRecord, len(bt.Tasks))
	for i := range recs {
		recs[i] = engine.GameRecord{Outcome: engine.Draw}
		if i%2 == 0 {
			recs[i] = engine.GameRecord{Outcome: engine.BlackWins}
		}
	}
	rows, pairs := Credit(&bt, recs, []*genomes.Genome{a, twin, b}, 10, nil)
	if a.Stats.Wins != 2 || a.Stats.Draws != 2 || twin.Stats != a.Stats || b.Stats.Draws != 4 || b.Stats.Games() != 4 {
		t.Fatalf("stats a %+v, twin %+v, b %+v", a.Stats, twin.Stats, b.Stats)
	}
	if a.Stats.Penta != [5]int{0, 0, 0, 2, 0} || b.Stats.Penta != [5]int{0, 0, 2, 0, 0} {
		t.Errorf("pentanomials a %v, b %v: want two 1½ pairs and two 1 pairs", a.Stats.Penta, b.Stats.Penta)
	}
	if len(rows) != 8 || rows[0].Opening != 10 || rows[2].Opening != 11 || pairs[[2]int{0, 1}] != 1.5 {
		t.Errorf("%d rows (first opening %d), pair score %v: want 8 rows numbered from 10", len(rows), rows[0].Opening, pairs[[2]int{0, 1}])
	}
}
