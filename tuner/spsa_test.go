package tuner

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/record"
	"evotune/tuner/search"
	"evotune/tuner/spsa"
)

func spsaConfig(game string, budget, pairs int) config.Config {
	c := smallConfig(game, 2)
	c.Method, c.BudgetGames, c.Generations = config.MethodSPSA, budget, 0
	c.SPSA = &config.SPSAConfig{Pairs: pairs}
	return c
}

// TestSPSARun: an SPSA run stops at its game budget; every step stores θ+ and θ− (children
// of θ_k) with their games against each other, and θ_{k+1} = θ_k + R_k·c_k·(W − L)·Δ_k in ln
// units, where θ± = θ_k ± c_k·Δ_k.
func TestSPSARun(t *testing.T) {
	cfg := spsaConfig("gomoku", 64, 4) // 8 games a step: 8 steps
	st := &memStore{}
	tu, err := New(cfg, st, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := tu.Run(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.gens) != 8 || sum.Games != 64 || sum.Generations != 8 {
		t.Fatalf("%d generations, %d games, want 8 and 64", len(st.gens), sum.Games)
	}
	genes := map[string]map[string]float64{}
	for _, g := range st.gens {
		for _, n := range g.NewGenomes {
			genes[n.ID] = n.Genes
		}
	}
	base := genomes.IndividualID(1, 0, 3)
	if b := genes[base]; b == nil || b["dead_three_b"] != 800 {
		t.Fatalf("θ_0 %s is not the paper's weights: %v", base, b)
	}
	prev := base
	moved := 0
	for k, g := range st.gens {
		if len(g.Individuals) != 3 || g.Best != g.Individuals[0].ID || g.Champion != g.Best {
			t.Fatalf("step %d: individuals %+v, best %s champion %s", k, g.Individuals, g.Best, g.Champion)
		}
		next, plus, minus := g.Individuals[0], g.Individuals[1], g.Individuals[2]
		for _, n := range g.NewGenomes {
			if n.ID != base && (len(n.Parents) != 1 || n.Parents[0] != prev) {
				t.Fatalf("step %d: %s has parents %v, want [%s]", k, n.ID, n.Parents, prev)
			}
		}
		if plus.Stats.Games() != 8 || plus.Stats.Wins != minus.Stats.Losses || plus.Stats.Losses != minus.Stats.Wins {
			t.Fatalf("step %d: θ+ %+v θ− %+v", k, plus.Stats, minus.Stats)
		}
		for _, r := range g.GameResults {
			if r.Individual != plus.ID || r.Opponent != minus.ID {
				t.Fatalf("step %d: a game of %s against %s", k, r.Individual, r.Opponent)
			}
		}
		ck, rk := spsa.Env{MethodEnv: tu.methodEnv()}.Gains(k)
		for _, gene := range tu.plan.Layout.Genes {
			if gene.Fixed {
				continue
			}
			lp, lm, l0, l1 := math.Log(genes[plus.ID][gene.Name]), math.Log(genes[minus.ID][gene.Name]), math.Log(genes[prev][gene.Name]), math.Log(genes[next.ID][gene.Name])
			delta := math.Copysign(1, lp-lm)
			if math.Abs((lp-lm)-2*ck*delta) > 1e-9 || math.Abs((lp+lm)/2-l0) > 1e-9 {
				t.Fatalf("step %d gene %s: ln θ+ %g, ln θ− %g around ln θ %g, want ±%g", k, gene.Name, lp, lm, l0, ck)
			}
			want := l0 + rk*ck*float64(plus.Stats.Wins-plus.Stats.Losses)*delta
			if math.Abs(l1-want) > 1e-9 {
				t.Fatalf("step %d gene %s: ln θ_{k+1} %g, want %g", k, gene.Name, l1, want)
			}
			if l1 != l0 {
				moved++
			}
		}
		prev = next.ID
	}
	if moved == 0 {
		t.Fatal("θ never moved in 8 steps")
	}
	if sum.Best != prev {
		t.Fatalf("champion %s, want the last θ %s", sum.Best, prev)
	}
}

// TestSPSAResumeEqualsUninterrupted: an SPSA run that dies after step 2 and is resumed from
// what was saved (θ replayed from the step results) ends exactly as the uninterrupted run.
func TestSPSAResumeEqualsUninterrupted(t *testing.T) {
	for _, game := range []string{"gomoku", "amazons"} {
		cfg := spsaConfig(game, 48, 4)
		cfg.VerifyGames = 8
		full := runSmall(t, cfg)
		crashed := &memStore{failAt: 3}
		tu, _ := New(cfg, crashed, nil, "test")
		if _, err := tu.Run(context.Background(), 0); err == nil || len(crashed.gens) != 3 {
			t.Fatalf("%s: simulated crash: %v, %d generations", game, err, len(crashed.gens))
		}
		st := stateFromRecords(1, crashed.gens)
		st.Games = 3 * 8
		cont := &memStore{}
		tu2, _ := New(cfg, cont, nil, "test")
		sum, err := tu2.Resume(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := fingerprint(cont.gens), fingerprint(full.gens[3:]); got != want {
			t.Fatalf("%s: resumed steps differ:\n%s\n----\n%s", game, got, want)
		}
		jc, _ := json.Marshal(cont.verification)
		jf, _ := json.Marshal(full.verification)
		if string(jc) != string(jf) || sum.Games != 48 || sum.Generations != 6 {
			t.Fatalf("%s: verification %s vs %s, %d games, %d generations", game, jc, jf, sum.Games, sum.Generations)
		}
		st.MethodStates = st.MethodStates[:2]
		tu3, _ := New(cfg, &memStore{}, nil, "test")
		if _, err := tu3.Resume(context.Background(), st); err == nil {
			t.Fatalf("%s: resume with a missing step state accepted", game)
		}
	}
}

// TestSPSATimeBudgetCalibrates: an SPSA run with a time budget alone measures its game
// budget first, stores it with its configuration, stops by it (or by the time), and plays
// exactly the steps of a run given that budget outright: the calibration games touch no
// random stream and no stored opening.
func TestSPSATimeBudgetCalibrates(t *testing.T) {
	if testing.Short() {
		t.Skip("long (a run of a few seconds' time budget, calibrated first): go test without -short runs it")
	}
	cfg := spsaConfig("gomoku", 0, 4)
	cfg.TimeBudget = "3s"
	st := &memStore{}
	tu, err := New(cfg, st, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	if !tu.NeedsCalibration() {
		t.Fatal("an SPSA run with only a time budget does not ask for a calibration")
	}
	sum, err := tu.Run(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := tu.Calibrate(context.Background())
	if c.Games < 8 || c.BudgetGames < 8 || tu.NeedsCalibration() {
		t.Fatalf("calibration %+v (still needed: %v)", c, tu.NeedsCalibration())
	}
	var stored config.Config
	if err := json.Unmarshal([]byte(st.config), &stored); err != nil || stored.BudgetGames != c.BudgetGames || stored.TimeBudget != "3s" {
		t.Fatalf("stored config %s (err %v): want budget_games %d and the time budget", st.config, err, c.BudgetGames)
	}
	if sum.Games > c.BudgetGames+8 || len(st.gens) == 0 || sum.BudgetGames != c.BudgetGames {
		t.Fatalf("%d games in %d steps, budget %d (summary's %d)", sum.Games, len(st.gens), c.BudgetGames, sum.BudgetGames)
	}
	plain := spsaConfig("gomoku", c.BudgetGames, 4)
	plain.Generations = len(st.gens) - 1 // the steps the timed run had time for
	full := runSmall(t, plain)
	if got, want := fingerprint(st.gens), fingerprint(full.gens[:len(st.gens)]); got != want {
		t.Fatalf("the calibrated run's steps differ from a run given its budget:\n%s\n----\n%s", got, want)
	}
}

// TestBudgetGamesStopsTheGA: the GA stops at the first generation boundary after the game
// budget, and not before.
func TestBudgetGamesStopsTheGA(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	cfg.Generations, cfg.BudgetGames = 0, 150
	st := runSmall(t, cfg)
	total, before := 0, 0
	for i, g := range st.gens {
		if i == len(st.gens)-1 {
			before = total
		}
		total += g.Games
	}
	if total < 150 || before >= 150 || len(st.gens) < 2 {
		t.Fatalf("%d generations, %d games (%d before the last), budget 150", len(st.gens), total, before)
	}
}

// TestSPSAConfigErrors: SPSA needs a budget (games, time, or generations), and bad
// parameters are named.
func TestSPSAConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		edit func(*config.Config)
		want string
	}{
		{func(c *config.Config) { c.BudgetGames, c.TimeBudget = 0, "" }, "needs budget_games"},
		{func(c *config.Config) { c.SPSA = &config.SPSAConfig{CEnd: -1} }, "spsa.c_end"},
		{func(c *config.Config) { c.SPSA = &config.SPSAConfig{Alpha: 2} }, "spsa.alpha"},
		{func(c *config.Config) { c.Method = "nes" }, `method: "nes", want one of ga, spsa, cmaes, steady`},
		{func(c *config.Config) { c.Method, c.CMAES = config.MethodCMAES, &config.CMAESConfig{Lambda: 2} }, "cmaes.lambda: 2"},
		{func(c *config.Config) { c.Method, c.CMAES = config.MethodCMAES, &config.CMAESConfig{Sigma: -1} }, "cmaes.sigma"},
		{func(c *config.Config) { c.BudgetGames = -5 }, "budget_games: -5"},
	} {
		c := spsaConfig("gomoku", 64, 4)
		tc.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error with %q, got %v", tc.want, err)
		}
	}
}

// TestSPSACheckpoints: with VerifyEvery, SPSA stores a held-out check of θ after the step
// every VerifyEvery steps, as the GA does for its champion: the checkpoint names that
// step's θ (slot 00), plays VerifyGames games (none while θ is still the paper's weights)
// and no other step has one.
func TestSPSACheckpoints(t *testing.T) {
	cfg := spsaConfig("gomoku", 24, 2) // 6 steps of 2 pairs
	cfg.VerifyEvery, cfg.VerifyGames = 2, 4
	st := runSmall(t, cfg)
	if len(st.gens) < 4 {
		t.Fatalf("%d steps saved", len(st.gens))
	}
	played := 0
	for _, g := range st.gens {
		c := g.Checkpoint
		if g.Generation%2 != 0 {
			if c != nil {
				t.Errorf("step %d: a checkpoint between VerifyEvery steps: %+v", g.Generation, c)
			}
			continue
		}
		if c == nil || c.Generation != g.Generation || c.Champion != genomes.IndividualID(1, g.Generation, 0) {
			t.Fatalf("step %d: checkpoint %+v, want one of θ after the step, %s", g.Generation, c, genomes.IndividualID(1, g.Generation, 0))
		}
		if !c.Baseline {
			if c.Games != cfg.VerifyGames {
				t.Errorf("step %d: checkpoint of %d games, want %d", g.Generation, c.Games, cfg.VerifyGames)
			}
			played++
		}
	}
	if played == 0 {
		t.Errorf("no checkpoint played games: θ never left the paper's weights")
	}
}

// TestSPSAExtendedResume: an SPSA run extended on resume (a larger game budget from its
// next step on, Config.Extensions) replays its earlier steps under the gains they were
// played with and plans the later ones over the new total: the extended run, crashed and
// resumed again, ends as the extended run that was not interrupted.
func TestSPSAExtendedResume(t *testing.T) {
	cfg := spsaConfig("gomoku", 48, 4)
	first := runSmall(t, cfg)
	ext := cfg
	ext.BudgetGames = 96
	ext.Extensions = []config.Extension{{FromGeneration: len(first.gens), Games: 48, Budget: config.Budget{BudgetGames: 96}, Before: config.Budget{BudgetGames: 48}}}
	st := stateFromRecords(1, first.gens)
	st.Games = 48
	whole := &memStore{}
	tu, _ := New(ext, whole, nil, "test")
	if _, err := tu.Resume(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	if len(whole.gens) < 4 {
		t.Fatalf("the extension played %d steps", len(whole.gens))
	}
	crashAt := len(first.gens) + 2
	crashed := &memStore{failAt: crashAt}
	tu2, _ := New(ext, crashed, nil, "test")
	if _, err := tu2.Resume(context.Background(), st); err == nil || len(crashed.gens) != 2 {
		t.Fatalf("simulated crash: %v, %d steps", err, len(crashed.gens))
	}
	st2 := stateFromRecords(1, append(append([]record.GenerationRecord(nil), first.gens...), crashed.gens...))
	st2.Games = 48 + 2*8
	cont := &memStore{}
	tu3, _ := New(ext, cont, nil, "test")
	if _, err := tu3.Resume(context.Background(), st2); err != nil {
		t.Fatal(err)
	}
	if got, want := fingerprint(cont.gens), fingerprint(whole.gens[2:]); got != want {
		t.Fatalf("the extended run resumed after a crash differs:\n%s\n----\n%s", got, want)
	}
	// The steps after the extension are planned over 96 games, those before over 48.
	c0, _ := spsa.Env{MethodEnv: tu.methodEnv()}.Gains(0)
	cFirst, _ := spsa.Env{MethodEnv: &search.MethodEnv{Config: cfg}}.Gains(0)
	cNew, _ := spsa.Env{MethodEnv: tu.methodEnv()}.Gains(len(first.gens))
	cPlanned, _ := spsa.Env{MethodEnv: &search.MethodEnv{Config: func() config.Config { c := cfg; c.BudgetGames = 96; return c }()}}.Gains(len(first.gens))
	if c0 != cFirst || cNew != cPlanned {
		t.Fatalf("c_0 %g (the 48-game plan's %g), c_%d %g (the 96-game plan's %g)", c0, cFirst, len(first.gens), cNew, cPlanned)
	}
}

// TestPlateau: the last k checkpoints are a plateau when none beats the best before them,
// and never before k+1 checkpoints.
func TestPlateau(t *testing.T) {
	for _, c := range []struct {
		elos []float64
		k    int
		want bool
	}{
		{[]float64{10, 30, 20, 25}, 2, true},
		{[]float64{10, 30, 20, 31}, 2, false},
		{[]float64{10, 30, 30}, 1, true},
		{[]float64{30, 20}, 2, false},
		{[]float64{5, 4, 3, 2, 1}, 4, true},
		{[]float64{5, 4}, 0, false},
	} {
		if got := ladder.Plateau(c.elos, c.k); got != c.want {
			t.Errorf("Plateau(%v, %d) = %v, want %v", c.elos, c.k, got, c.want)
		}
	}
}

// TestSPSALagSameWhateverWorkers: with a lag, step k perturbs θ_{k−lag} (its θ+ and θ−
// name that θ as their parent) while the steps before it play, and a seeded run is the
// same with 1, 2 and 16 workers and after a crash and resume; its steps differ from the
// same run without a lag (which θ each step perturbs is not the same).
func TestSPSALagSameWhateverWorkers(t *testing.T) {
	cfg := spsaConfig("gomoku", 96, 4) // 12 steps of 4 pairs
	cfg.SPSA.Lag = 2
	var want string
	var first *memStore
	for _, w := range []int{1, 2, 16} {
		cfg.Workers = w
		st := runSmall(t, cfg)
		if len(st.gens) != 12 {
			t.Fatalf("%d workers: %d steps, want 12", w, len(st.gens))
		}
		if got := fingerprint(st.gens); want == "" {
			want, first = got, st
		} else if got != want {
			t.Fatalf("%d workers differ from 1:\n%s\n----\n%s", w, got, want)
		}
	}
	for _, g := range first.gens {
		for _, n := range g.NewGenomes {
			if n.Operator != spsa.OpPlus {
				continue
			}
			if parent := genomes.IndividualID(1, max(0, g.Generation-3), 0); g.Generation < 3 && n.Parents[0] != genomes.IndividualID(1, 0, 3) ||
				g.Generation >= 3 && n.Parents[0] != parent {
				t.Fatalf("step %d: θ+ %s has parent %v, want θ_%d", g.Generation, n.ID, n.Parents, max(0, g.Generation-2))
			}
		}
	}
	cfg.Workers = 2
	crashed := &memStore{failAt: 5}
	tu, _ := New(cfg, crashed, nil, "test")
	if _, err := tu.Run(context.Background(), 0); err == nil || len(crashed.gens) != 5 {
		t.Fatalf("simulated crash: %v, %d steps", err, len(crashed.gens))
	}
	st := stateFromRecords(1, crashed.gens)
	st.Games = 5 * 8
	cont := &memStore{}
	tu2, _ := New(cfg, cont, nil, "test")
	if _, err := tu2.Resume(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	if got, full := fingerprint(cont.gens), fingerprint(first.gens[5:]); got != full {
		t.Fatalf("resumed steps differ:\n%s\n----\n%s", got, full)
	}
	cfg.SPSA.Lag = 0
	if fingerprint(runSmall(t, cfg).gens) == want {
		t.Fatal("lag 2 and lag 0 gave the same steps")
	}
}

// TestSPSADefaultLag: a new SPSA run's lag follows the steps it plans, never its workers:
// one step in play per 16 planned, from DefaultSPSALag to MaxDefaultSPSALag; a lag the run
// names, even 0, is kept.
func TestSPSADefaultLag(t *testing.T) {
	for _, c := range []struct {
		game           string
		budget, gens   int
		timeBudget     string
		pairs, workers int
		want           int
	}{
		{game: "gomoku", workers: 1, want: 48},                  // the default 44 000 games: 1 375 steps
		{game: "gomoku", workers: 64, want: 48},                 // the same plan on 64 slots
		{game: "connect6", budget: 20000, workers: 2, want: 39}, // 625 steps
		{game: "amazons", workers: 2, want: 8},                  // 4 000 games: 125 steps
		{game: "gomoku", budget: 8000, workers: 2, want: 15},    // 250 steps
		{game: "gomoku", budget: 8000, pairs: 4, workers: 2, want: 48},
		{game: "gomoku", budget: 44000, gens: 200, workers: 2, want: 12}, // the fewer: 200 steps
		{game: "gomoku", timeBudget: "1h", workers: 16, want: config.DefaultSPSALag},
	} {
		cfg := config.DefaultConfig(c.game)
		cfg.Method, cfg.BudgetGames, cfg.Generations, cfg.TimeBudget, cfg.Workers = config.MethodSPSA, c.budget, c.gens, c.timeBudget, c.workers
		if c.pairs > 0 {
			cfg.SPSA = &config.SPSAConfig{Pairs: c.pairs}
		}
		cfg.NewRunDefaults(false)
		if cfg.SPSA == nil || cfg.SPSA.Lag != c.want {
			t.Errorf("%+v: lag %v, want %d", c, cfg.SPSA, c.want)
		}
	}
	cfg := config.DefaultConfig("gomoku")
	cfg.Method, cfg.SPSA = config.MethodSPSA, &config.SPSAConfig{Lag: 3}
	if cfg.NewRunDefaults(false); cfg.SPSA.Lag != 3 {
		t.Errorf("a run naming lag 3 got %d", cfg.SPSA.Lag)
	}
	cfg.SPSA.Lag = 0
	if cfg.NewRunDefaults(true); cfg.SPSA.Lag != 0 {
		t.Errorf("--spsa-lag 0 got %d", cfg.SPSA.Lag)
	}
}
