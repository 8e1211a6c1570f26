package tuner

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/stats"
)

// TestAdmissionNeedsEvidence: a candidate enters the hall of fame only when its
// head-to-head score exceeds ½ by AdmitZ standard errors; its Elo against the paper's
// weights chains through the champion it beat, with the variances added.
func TestAdmissionNeedsEvidence(t *testing.T) {
	lucky := Admission{Result: stats.Result{Wins: 18, Draws: 0, Losses: 14, Penta: [5]int{1, 2, 8, 3, 2}}}
	judge(&lucky, nil, 1.645)
	if lucky.Admitted || lucky.Score <= 0.5 {
		t.Fatalf("18–14 is not evidence at z = 1.645: %+v", lucky)
	}
	strong := Admission{Result: stats.Result{Wins: 44, Draws: 0, Losses: 20, Penta: [5]int{0, 2, 8, 12, 10}}}
	champ := &HallOfFamer{ID: "c", Elo: 50, EloSE: 20}
	judge(&strong, champ, 1.645)
	if !strong.Admitted {
		t.Fatalf("44–20 must be admitted: %+v", strong)
	}
	if math.Abs(strong.ChainElo-(50+strong.Elo)) > 1e-9 || math.Abs(strong.ChainSE-math.Hypot(20, strong.EloSE)) > 1e-9 {
		t.Fatalf("chain %v ± %v from %v ± %v", strong.ChainElo, strong.ChainSE, strong.Elo, strong.EloSE)
	}
}

// TestChampionIsBestLowerBound: the champion is the member with the best Elo − z·SE, not
// the best Elo, and none while every bound is below the baseline's 0.
func TestChampionIsBestLowerBound(t *testing.T) {
	hof := []HallOfFamer{{ID: "a", Elo: 60, EloSE: 10}, {ID: "b", Elo: 90, EloSE: 40}, {ID: "c", Elo: 70, EloSE: 15}}
	if c := champion(hof, 1.645); c == nil || c.ID != "c" {
		t.Fatalf("champion %v, want c (bound 45.3; a 43.6, b 24.2)", c)
	}
	if c := champion(hof, 0); c == nil || c.ID != "b" {
		t.Fatalf("z = 0: champion %v, want b", c)
	}
	if c := champion([]HallOfFamer{{ID: "x", Elo: 10, EloSE: 20}}, 1); c != nil {
		t.Fatalf("a bound below 0 made %s champion", c.ID)
	}
}

// TestRaceAndHallOfFame runs a small race with admission and checks the records: no game
// against an identical genome, admission games on their own openings, a hall of fame
// consistent with the admissions, and the champion taken from it.
func TestRaceAndHallOfFame(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	cfg.Generations, cfg.Population, cfg.Elite, cfg.AdmitGames, cfg.AdmitZ = 3, 6, 2, 8, 0
	st := &memStore{}
	tu, err := New(cfg, st, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := tu.Run(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	genes := map[string]string{"baseline": fmt.Sprint(tu.layout.Defaults())}
	admitted := 0
	for _, g := range st.gens {
		for _, n := range g.NewGenomes {
			x, _ := tu.layout.FromNamed(n.Genes)
			genes[n.ID] = fmt.Sprint(x)
		}
		raceOpenings := cfg.Games / 2 * (cfg.RaceRounds + 1)
		for _, r := range g.GameResults {
			if genes[r.Individual] == genes[r.Opponent] {
				t.Fatalf("gen %d: %s played its identical genome %s", g.Generation, r.Individual, r.Opponent)
			}
			if (r.Round == AdmissionRound) != (r.Opening >= raceOpenings) {
				t.Fatalf("gen %d: round %d game on opening %d", g.Generation, r.Round, r.Opening)
			}
			if HalfOf(g.Openings[r.Opening]) != TuningHalf {
				t.Fatalf("tuning game on a held-out opening %v", g.Openings[r.Opening])
			}
		}
		if a := g.Admission; a != nil {
			if a.Candidate != g.Best || a.Games() != cfg.AdmitGames {
				t.Fatalf("gen %d: admission of %s (best %s) with %d games", g.Generation, a.Candidate, g.Best, a.Games())
			}
			if a.Admitted {
				admitted++
			}
		}
	}
	if len(sum.HallOfFame) != admitted {
		t.Fatalf("hall of fame %d members, %d admissions", len(sum.HallOfFame), admitted)
	}
	if c := champion(sum.HallOfFame, cfg.AdmitZ); c != nil && c.ID != sum.Best || c == nil && sum.Best != genomes.IndividualID(1, 0, 0) {
		t.Fatalf("summary best %s, champion %v", sum.Best, c)
	}
}

// TestTimeBudgetStopsAtGenerationBoundary: with no generation count, a budget that is
// already spent stops after the first complete generation, and the run finishes.
func TestTimeBudgetStopsAtGenerationBoundary(t *testing.T) {
	cfg := smallConfig("amazons", 2)
	cfg.Generations, cfg.TimeBudget = 0, "1ns"
	st := runSmall(t, cfg)
	if len(st.gens) != 1 || st.status != "finished" || st.gens[0].Elapsed <= 0 {
		t.Fatalf("%d generations, status %s", len(st.gens), st.status)
	}
}

// TestMixedDepthsAndCheckpoints: pair k plays at Depths[k mod 2]; checkpoints are stored
// with their generation on held-out openings.
func TestMixedDepthsAndCheckpoints(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	cfg.Depths, cfg.VerifyEvery, cfg.VerifyGames, cfg.AdmitGames = []int{1, 2}, 1, 4, 0
	st := runSmall(t, cfg)
	for _, g := range st.gens {
		for _, r := range g.GameResults {
			if r.Depth != cfg.Depths[r.Opening%2] {
				t.Fatalf("opening %d played at depth %d", r.Opening, r.Depth)
			}
		}
		c := g.Checkpoint
		baseline := c != nil && c.Champion == genomes.IndividualID(1, 0, 0) && c.Games == 0
		if c == nil || c.Generation != g.Generation || c.Games != cfg.VerifyGames && !baseline {
			t.Fatalf("gen %d: checkpoint %+v", g.Generation, c)
		}
	}
}

// TestOpeningSpaceAndHalves: every game's generator draws 1 000 openings with almost no
// repeats (a space of 10⁶ gives one repeat in two such samples), and both halves are used.
func TestOpeningSpaceAndHalves(t *testing.T) {
	for _, name := range genomes.Names() {
		e, _ := genomes.Lookup(name)
		rng := rand.New(rand.NewPCG(1, 1))
		raw, seen, held := 1000, map[string]bool{}, 0
		for i := 0; i < raw; i++ {
			b, _ := e.Game.NewBoard(0)
			o := e.Game.(engine.Opener).RandomOpening(b, rng)
			seen[Key(o)] = true
			if HalfOf(o) == HeldOutHalf {
				held++
			}
		}
		if len(seen) < raw-5 || held < 400 || held > 600 {
			t.Fatalf("%s: %d distinct of %d draws, %d held out", name, len(seen), raw, held)
		}
	}
}
