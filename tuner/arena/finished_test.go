package arena

import (
	"math"
	"slices"
	"testing"

	"evotune/engine"
)

// TestScenarios: the ways a batch's games left may end are weighed by the finished games'
// shares of outcomes (each count plus one); the finished games keep their records in every
// way; there are none before the games left fit the slots and ScenarioEnum, nor once all
// are finished.
func TestScenarios(t *testing.T) {
	f := NewFinished(5)
	if f.Scenarios(2) != nil {
		t.Fatal("ways of ending with 5 games left on 2 slots")
	}
	for i, o := range []engine.Outcome{engine.BlackWins, engine.BlackWins, engine.WhiteWins} {
		f.Add(i, engine.GameRecord{Outcome: o, Plies: 7})
	}
	ways := f.Scenarios(2)
	if ways == nil || len(ways.Ways) != 9 || len(ways.Open) != 2 || ways.Open[0] != 3 || ways.Open[1] != 4 {
		t.Fatalf("2 games left: %+v, want 9 ways of games 3 and 4", ways)
	}
	// Shares: Black 3/6, White 2/6, draw 1/6.
	share := map[engine.Outcome]float64{engine.BlackWins: 3.0 / 6, engine.WhiteWins: 2.0 / 6, engine.Draw: 1.0 / 6}
	sum, seen := 0.0, map[[2]engine.Outcome]bool{}
	for w := range ways.Ways {
		recs := ways.With(w)
		if recs[0].Outcome != engine.BlackWins || recs[2].Outcome != engine.WhiteWins {
			t.Errorf("way %d changed a finished game: %v", w, recs[:3])
		}
		k := [2]engine.Outcome{recs[3].Outcome, recs[4].Outcome}
		seen[k] = true
		if want := share[k[0]] * share[k[1]]; math.Abs(ways.P[w]-want) > 1e-12 {
			t.Errorf("way %v: probability %g, want %g", k, ways.P[w], want)
		}
		sum += ways.P[w]
	}
	if len(seen) != 9 || math.Abs(sum-1) > 1e-12 {
		t.Errorf("%d distinct ways, probabilities summing to %g: want 9 and 1", len(seen), sum)
	}

	big := NewFinished(40)
	big.Add(0, engine.GameRecord{Outcome: engine.Draw})
	if big.Scenarios(64) != nil {
		t.Errorf("ways of ending of %d games left", 39)
	}
	for i := 1; i < 40-ScenarioEnum; i++ {
		big.Add(i, engine.GameRecord{Outcome: engine.Draw})
	}
	if ways := big.Scenarios(64); ways == nil || len(ways.Open) != ScenarioEnum {
		t.Errorf("%d games left: no ways of ending", ScenarioEnum)
	}
	for i := 40 - ScenarioEnum; i < 40; i++ {
		big.Add(i, engine.GameRecord{Outcome: engine.Draw})
	}
	if big.Scenarios(64) != nil {
		t.Error("ways of ending once every game is finished")
	}
}

// TestFinishedGuess: a guess takes every game left as a draw, only once no more games than
// slots are left and not once all have finished; a game told twice counts once; a
// forwarded batch is told the games finished before and after, each at its own index.
func TestFinishedGuess(t *testing.T) {
	f := NewFinished(4)
	if _, ok := f.Guess(2); ok {
		t.Fatal("a guess with 4 games left on 2 slots")
	}
	f.Add(1, engine.GameRecord{Outcome: engine.BlackWins, Plies: 9})
	f.Add(1, engine.GameRecord{Outcome: engine.WhiteWins})
	f.Add(3, engine.GameRecord{Outcome: engine.WhiteWins, Plies: 11})
	if f.Left() != 2 {
		t.Fatalf("%d games left, want 2 (game 1 told twice counts once)", f.Left())
	}
	recs, ok := f.Guess(2)
	want := []engine.Outcome{engine.Draw, engine.BlackWins, engine.Draw, engine.WhiteWins}
	if !ok || len(recs) != 4 {
		t.Fatalf("guess with 2 games left on 2 slots: %v %v", recs, ok)
	}
	for i, r := range recs {
		if r.Outcome != want[i] {
			t.Errorf("game %d guessed %v, want %v", i, r.Outcome, want[i])
		}
	}
	if recs[1].Plies != 9 {
		t.Errorf("a finished game's record changed: %+v", recs[1])
	}
	to := NewFinished(6)
	f.Forward(to, []int{5, 4, 3, 2})
	f.Add(0, engine.GameRecord{Outcome: engine.Draw})
	to.mu.Lock()
	got := append([]bool(nil), to.got...)
	to.mu.Unlock()
	if !slices.Equal(got, []bool{false, false, true, false, true, true}) || to.Left() != 3 {
		t.Errorf("forwarded games %v, %d left; want games 2, 4 and 5 told", got, to.Left())
	}
	f.Add(2, engine.GameRecord{Outcome: engine.Draw})
	if _, ok := f.Guess(2); ok || f.Left() != 0 {
		t.Error("a guess once every game has finished")
	}
	var none *Finished
	if none.Ticks() != nil {
		t.Error("a nil batch's ticks are not nil")
	}
}
