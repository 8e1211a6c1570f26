package search

import (
	"testing"

	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/schedule"
)

// TestWayCredit: crediting one way after another from the pairs with no game left gives
// each way the Stats (wins, draws, losses and pentanomial) that crediting all its games
// does.
func TestWayCredit(t *testing.T) {
	r := &Round{Players: []*genomes.Genome{{ID: "a"}, {ID: "b"}, {ID: "c"}}}
	lr := &loopRound{r: r}
	for ind := range 3 {
		for pair := range 2 {
			for _, c := range []engine.Color{engine.Black, engine.White} {
				lr.b.Refs = append(lr.b.Refs, schedule.Entry{Ind: ind, Pair: pair, C: c, Task: len(lr.b.Refs)})
			}
		}
	}
	lr.b.Refs[11].Task = -1 // not played (identical genomes): a draw
	f := arena.NewFinished(12)
	for i, o := range []engine.Outcome{engine.BlackWins, engine.Draw, engine.WhiteWins, engine.BlackWins, engine.Draw, engine.Draw, engine.WhiteWins, engine.BlackWins} {
		f.Add([]int{0, 1, 2, 3, 4, 6, 8, 9}[i], engine.GameRecord{Outcome: o})
	}
	ways := f.Scenarios(12)
	if ways == nil || len(ways.Ways) != 81 {
		t.Fatalf("4 games left: %v ways, want 81", ways)
	}
	credit := newWayCredit(lr, ways)
	for w := range ways.Ways {
		recs := ways.With(w)
		got := credit.round(recs)
		want := make([]*genomes.Genome, 3)
		for i, p := range r.Players {
			want[i] = p.Clone().(*genomes.Genome)
		}
		schedule.Credit(&lr.b, recs, want, 0, nil)
		for i := range want {
			if got.Players[i].Stats != want[i].Stats {
				t.Fatalf("way %d, player %d: %+v, want %+v", w, i, got.Players[i].Stats, want[i].Stats)
			}
		}
	}
	for _, p := range r.Players {
		if p.Stats.Games() != 0 {
			t.Errorf("the round's own player %s was credited: %+v", p.ID, p.Stats)
		}
	}
}
