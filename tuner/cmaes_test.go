package tuner

import (
	"context"
	"encoding/json"
	"testing"

	"evotune/genomes"
	"evotune/tuner/cmaes"
	"evotune/tuner/config"
	"evotune/tuner/search"
)

func cmaesConfig(game string, budget int) config.Config {
	c := smallConfig(game, 2)
	c.Method, c.BudgetGames, c.Generations = config.MethodCMAES, budget, 0
	c.CMAES = &config.CMAESConfig{Pairs: 1}
	return c
}

// TestCMAESResume: a CMA-ES run whose save fails after three generations, resumed from
// what was saved (the method states replayed through a new optimiser), saves exactly the
// generations, games and verification of the uninterrupted run, also with generations in
// play (a lag); a resume missing a generation's state, or with a state of the wrong
// length, is refused.
func TestCMAESResume(t *testing.T) {
	lagged := cmaesConfig("gomoku", 120)
	lagged.CMAES.Lag = 2
	lagged.VerifyGames = 8
	full := runSmall(t, lagged)
	crashAndResume(t, lagged, full, 3) // generations 3 and 4 were in play: sampled again
	cfg := cmaesConfig("gomoku", 120)
	cfg.VerifyGames = 8
	full = runSmall(t, cfg)
	if len(full.gens) < 5 {
		t.Fatalf("%d generations saved", len(full.gens))
	}
	cont, sum := crashAndResume(t, cfg, full, 3)
	jc, _ := json.Marshal(cont.verification)
	jf, _ := json.Marshal(full.verification)
	if string(jc) != string(jf) || sum.Generations != len(full.gens) {
		t.Fatalf("verification %s vs %s, %d generations (want %d)", jc, jf, sum.Generations, len(full.gens))
	}
	st := stateFromRecords(1, full.gens[:3]) // what the crashed run had saved
	short := st
	short.MethodStates = st.MethodStates[:2]
	tu3, _ := New(cfg, &memStore{}, nil, "test")
	if _, err := tu3.Resume(context.Background(), short); err == nil {
		t.Fatal("resume with a missing generation state accepted")
	}
	bad := st
	bad.MethodStates = append([][]byte{[]byte(`{"values":[0.5],"mean":[]}`)}, st.MethodStates[1:]...)
	tu4, _ := New(cfg, &memStore{}, nil, "test")
	if _, err := tu4.Resume(context.Background(), bad); err == nil {
		t.Fatal("resume with one value for λ candidates accepted")
	}
}

// TestCMAESGenerations: each generation stores the mean after it (slot 00, the champion,
// parent the mean before), λ candidates with the mean before as parent ranked by score,
// the values told in its method state, and the held-out checkpoint every VerifyEvery
// generations; the first mean is the paper's weights.
func TestCMAESGenerations(t *testing.T) {
	for _, lag := range []int{0, 2} {
		testCMAESGenerations(t, lag)
	}
}

func testCMAESGenerations(t *testing.T, lag int) {
	cfg := cmaesConfig("gomoku", 100)
	cfg.CMAES.Lag = lag
	cfg.VerifyEvery, cfg.VerifyGames = 2, 4
	st := runSmall(t, cfg)
	lambda := 0 // the candidates of generation 0
	for _, n := range st.gens[0].NewGenomes {
		if n.Operator == cmaes.OpCandidate {
			lambda++
		}
	}
	if len(st.gens) < 3+lag {
		t.Fatalf("lag %d: %d generations saved", lag, len(st.gens))
	}
	// meanAfter is the ID of the mean after generation k (the paper's weights before 0).
	meanAfter := func(k int) string {
		if k < 0 {
			return genomes.IndividualID(1, 0, lambda+1)
		}
		return genomes.IndividualID(1, k, 0)
	}
	checks := 0
	for k, g := range st.gens {
		// The candidates play and come from the mean after generation k−lag−1; the new
		// mean from the mean after generation k−1.
		parent, prev := meanAfter(k-lag-1), meanAfter(k-1)
		if g.Opponents[0] != parent {
			t.Fatalf("lag %d generation %d: the candidates played %s, want %s", lag, k, g.Opponents[0], parent)
		}
		if k == 0 {
			if g.NewGenomes[0].ID != parent || g.NewGenomes[0].Operator != genomes.OpBaseline {
				t.Fatalf("generation 0: first genome %+v, want the paper's weights as %s", g.NewGenomes[0], parent)
			}
		}
		if g.Champion != genomes.IndividualID(1, k, 0) || len(g.Individuals) != lambda+1 || g.Individuals[0].ID != g.Champion {
			t.Fatalf("generation %d: champion %s, %d individuals", k, g.Champion, len(g.Individuals))
		}
		var s cmaes.State
		if err := search.DecodeState(g.MethodState, &s); err != nil || len(s.Values) != lambda {
			t.Fatalf("generation %d: state %s: %v", k, g.MethodState, err)
		}
		for r, in := range g.Individuals[1:] {
			slot := 0
			for i := 1; i <= lambda; i++ {
				if genomes.IndividualID(1, k, i) == in.ID {
					slot = i
				}
			}
			if slot == 0 || s.Values[slot-1] != in.Fitness || in.Stats.Wins+in.Stats.Draws+in.Stats.Losses != 2 {
				t.Fatalf("generation %d rank %d: %+v (slot %d), values %v", k, r+2, in, slot, s.Values)
			}
			if r > 0 && in.Fitness < g.Individuals[r].Fitness {
				t.Fatalf("generation %d: ranks out of order", k)
			}
		}
		for _, n := range g.NewGenomes {
			want := parent
			if n.Operator == cmaes.OpMean {
				want = prev
			}
			if n.Operator != genomes.OpBaseline && (len(n.Parents) != 1 || n.Parents[0] != want) {
				t.Fatalf("lag %d generation %d: %s has parents %v, want %s", lag, k, n.ID, n.Parents, want)
			}
		}
		if (k%2 == 0) != (g.Checkpoint != nil) {
			t.Fatalf("generation %d: checkpoint %+v with VerifyEvery 2", k, g.Checkpoint)
		}
		if g.Checkpoint != nil {
			if g.Checkpoint.Champion != g.Champion {
				t.Fatalf("generation %d: checkpoint of %s, champion %s", k, g.Checkpoint.Champion, g.Champion)
			}
			checks++
		}
	}
	if checks < 2 {
		t.Fatalf("%d checkpoints", checks)
	}
}

// TestCMAESDefaultLambda: a new CMA-ES run's λ follows its planned candidates and free
// genes (CMAESLambdaFor), never its workers; a λ the run names, a run planned by
// generations or time, and a small budget keep what they had.
func TestCMAESDefaultLambda(t *testing.T) {
	for _, c := range []struct {
		game                string
		budget, gens, pairs int
		timeBudget          string
		free                []string
		workers, wantLambda int
	}{
		{game: "gomoku", workers: 1, wantLambda: 44},                 // 44 000 games: 2 750 candidates ≥ 60 × 44
		{game: "gomoku", workers: 64, wantLambda: 44},                // the same plan on 64 slots
		{game: "connect6", budget: 20000, workers: 2, wantLambda: 0}, // 1 250 candidates < 60 × 40: the optimiser's 10
		{game: "amazons", workers: 2, wantLambda: 0},                 // 250 candidates: the optimiser's 11
		{game: "gomoku", budget: 200000, workers: 2, wantLambda: 44}, // at most 4 × 11
		{game: "gomoku", budget: 44000, pairs: 4, workers: 2, wantLambda: 44},
		{game: "gomoku", budget: 42240, pairs: 8, workers: 2, wantLambda: 44}, // 2 640 candidates: 60 × 44
		{game: "gomoku", budget: 42239, pairs: 8, workers: 2, wantLambda: 0},
		{game: "gomoku", budget: 44000, gens: 50, workers: 2, wantLambda: 0},
		{game: "gomoku", timeBudget: "1h", workers: 16, wantLambda: 0},
		{game: "gomoku", budget: 200000, free: []string{"no-such-gene"}, workers: 2, wantLambda: 0}, // unknown genes: the layout's error is Validate's
	} {
		cfg := config.DefaultConfig(c.game)
		cfg.Method, cfg.BudgetGames, cfg.Generations, cfg.TimeBudget, cfg.Workers = config.MethodCMAES, c.budget, c.gens, c.timeBudget, c.workers
		cfg.Free = c.free
		if c.pairs > 0 {
			cfg.CMAES = &config.CMAESConfig{Pairs: c.pairs}
		}
		cfg.NewRunDefaults(false)
		if got := cfg.CMAESParams().Lambda; got != c.wantLambda {
			t.Errorf("%+v: λ %d, want %d", c, got, c.wantLambda)
		}
	}
	for _, c := range []struct{ candidates, n, want int }{
		{0, 12, 11}, {704, 12, 11}, {2639, 12, 11}, {2640, 12, 44}, {100000, 12, 44}, {1000000, 2000, 98}, {1, 1, 4},
	} {
		if got := config.CMAESLambdaFor(c.candidates, c.n); got != c.want {
			t.Errorf("CMAESLambdaFor(%d, %d) = %d, want %d", c.candidates, c.n, got, c.want)
		}
	}
	cfg := config.DefaultConfig("gomoku")
	cfg.Method, cfg.CMAES = config.MethodCMAES, &config.CMAESConfig{Lambda: 6}
	if cfg.NewRunDefaults(false); cfg.CMAES.Lambda != 6 {
		t.Errorf("a run naming λ 6 got %d", cfg.CMAES.Lambda)
	}
	cfg.CMAES.Lambda = 0
	if cfg.NewRunDefaults(true); cfg.CMAES.Lambda != 0 {
		t.Errorf("--cmaes-lambda 0 got %d", cfg.CMAES.Lambda)
	}
	// Compare's runs share the base's section: the default goes into a copy.
	shared := &config.CMAESConfig{Sigma: 0.2}
	cfg = config.DefaultConfig("gomoku")
	cfg.Method, cfg.CMAES = config.MethodCMAES, shared
	if cfg.NewRunDefaults(false); cfg.CMAES.Lambda != 44 || cfg.CMAES.Sigma != 0.2 || shared.Lambda != 0 {
		t.Errorf("λ %d σ %g, the shared section's λ %d: want 44, 0.2, 0", cfg.CMAES.Lambda, cfg.CMAES.Sigma, shared.Lambda)
	}
}
