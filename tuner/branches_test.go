package tuner

import (
	"math"
	"testing"

	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/search"
)

// TestScenarios: the ways a batch's games left may end are weighed by the finished games'
// shares of outcomes (each count plus one); the finished games keep their records in every
// way; there are none before the games left fit the slots and scenarioEnum, nor once all
// are finished.
func TestScenarios(t *testing.T) {
	f := newFinishedGames(5)
	if f.scenarios(2) != nil {
		t.Fatal("ways of ending with 5 games left on 2 slots")
	}
	for i, o := range []engine.Outcome{engine.BlackWins, engine.BlackWins, engine.WhiteWins} {
		f.add(i, engine.GameRecord{Outcome: o, Plies: 7})
	}
	ways := f.scenarios(2)
	if ways == nil || len(ways.ways) != 9 || len(ways.open) != 2 || ways.open[0] != 3 || ways.open[1] != 4 {
		t.Fatalf("2 games left: %+v, want 9 ways of games 3 and 4", ways)
	}
	// Shares: Black 3/6, White 2/6, draw 1/6.
	share := map[engine.Outcome]float64{engine.BlackWins: 3.0 / 6, engine.WhiteWins: 2.0 / 6, engine.Draw: 1.0 / 6}
	sum, seen := 0.0, map[[2]engine.Outcome]bool{}
	for w := range ways.ways {
		recs := ways.with(w)
		if recs[0].Outcome != engine.BlackWins || recs[2].Outcome != engine.WhiteWins {
			t.Errorf("way %d changed a finished game: %v", w, recs[:3])
		}
		k := [2]engine.Outcome{recs[3].Outcome, recs[4].Outcome}
		seen[k] = true
		if want := share[k[0]] * share[k[1]]; math.Abs(ways.p[w]-want) > 1e-12 {
			t.Errorf("way %v: probability %g, want %g", k, ways.p[w], want)
		}
		sum += ways.p[w]
	}
	if len(seen) != 9 || math.Abs(sum-1) > 1e-12 {
		t.Errorf("%d distinct ways, probabilities summing to %g: want 9 and 1", len(seen), sum)
	}

	big := newFinishedGames(40)
	big.add(0, engine.GameRecord{Outcome: engine.Draw})
	if big.scenarios(64) != nil {
		t.Errorf("ways of ending of %d games left", 39)
	}
	for i := 1; i < 40-scenarioEnum; i++ {
		big.add(i, engine.GameRecord{Outcome: engine.Draw})
	}
	if ways := big.scenarios(64); ways == nil || len(ways.open) != scenarioEnum {
		t.Errorf("%d games left: no ways of ending", scenarioEnum)
	}
	for i := 40 - scenarioEnum; i < 40; i++ {
		big.add(i, engine.GameRecord{Outcome: engine.Draw})
	}
	if big.scenarios(64) != nil {
		t.Error("ways of ending once every game is finished")
	}
}

// TestWayCredit: crediting one way after another from the pairs with no game left gives
// each way the Stats (wins, draws, losses and pentanomial) that crediting all its games
// does.
func TestWayCredit(t *testing.T) {
	r := &search.Round{Players: []*genomes.Genome{{ID: "a"}, {ID: "b"}, {ID: "c"}}}
	lr := &loopRound{r: r}
	for ind := range 3 {
		for pair := range 2 {
			for _, c := range []engine.Color{engine.Black, engine.White} {
				lr.b.refs = append(lr.b.refs, entry{ind: ind, pair: pair, c: c, task: len(lr.b.refs)})
			}
		}
	}
	lr.b.refs[11].task = -1 // not played (identical genomes): a draw
	f := newFinishedGames(12)
	for i, o := range []engine.Outcome{engine.BlackWins, engine.Draw, engine.WhiteWins, engine.BlackWins, engine.Draw, engine.Draw, engine.WhiteWins, engine.BlackWins} {
		f.add([]int{0, 1, 2, 3, 4, 6, 8, 9}[i], engine.GameRecord{Outcome: o})
	}
	ways := f.scenarios(12)
	if ways == nil || len(ways.ways) != 81 {
		t.Fatalf("4 games left: %v ways, want 81", ways)
	}
	credit := newWayCredit(lr, ways)
	for w := range ways.ways {
		recs := ways.with(w)
		got := credit.round(recs)
		want := make([]*genomes.Genome, 3)
		for i, p := range r.Players {
			want[i] = p.Clone().(*genomes.Genome)
		}
		creditOn(&lr.b, recs, want, 0, nil)
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
