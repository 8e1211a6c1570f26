package tuner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/record"
	"evotune/tuner/steady"
)

func steadyConfig(game string, workers, budget int) config.Config {
	c := smallConfig(game, workers)
	c.Method, c.Generations, c.BudgetGames = config.MethodSteady, 0, budget
	return c
}

// TestSteadySameRunWhateverWorkers: births finish in any order on 1 or 3 workers, and
// are decided in birth order: the generations, games and method states are the same.
func TestSteadySameRunWhateverWorkers(t *testing.T) {
	for _, game := range shortGames([]string{"gomoku", "amazons"}) {
		a := runSmall(t, steadyConfig(game, 1, 160))
		b := runSmall(t, steadyConfig(game, 3, 160))
		if fa, fb := fingerprint(a.gens), fingerprint(b.gens); fa != fb {
			t.Fatalf("%s: 1 and 3 workers differ:\n%s\n----\n%s", game, fa, fb)
		}
		if a.status != "finished" || len(a.gens) < 3 {
			t.Fatalf("%s: status %q, %d generations", game, a.status, len(a.gens))
		}
	}
}

// TestSteadyWindowSameRunWhateverWorkers: a run with 8 births in play is the same on 1
// and 3 workers, and is not the run of the default window (the setting reaches the loop).
func TestSteadyWindowSameRunWhateverWorkers(t *testing.T) {
	at := func(workers, window int) string {
		c := steadyConfig("gomoku", workers, 240)
		if window > 0 {
			c.Steady = &config.SteadyConfig{Window: window}
		}
		return fingerprint(runSmall(t, c).gens)
	}
	w8 := at(1, 8)
	if w8 != at(3, 8) {
		t.Fatal("window 8: 1 and 3 workers differ")
	}
	if w8 == at(1, 0) {
		t.Fatal("window 8 played the run of window 4")
	}
}

// TestSteadyDefaultWindow: a new steady-state run's window follows the births it plans,
// never its workers: one per 16, from DefaultSteadyWindow to MaxDefaultSteadyWindow; a
// window the run names is kept, and one the command line named is not replaced.
func TestSteadyDefaultWindow(t *testing.T) {
	for _, c := range []struct {
		game                string
		budget, gens, games int
		timeBudget          string
		workers, want       int
	}{
		{game: "gomoku", workers: 1, want: 32},                  // the default 44 000 games: 687 births
		{game: "gomoku", workers: 64, want: 32},                 // the same plan on 64 slots
		{game: "connect6", budget: 20000, workers: 2, want: 19}, // 312 births
		{game: "amazons", workers: 2, want: 4},                  // 4 000 games: 62 births
		{game: "gomoku", budget: 8000, games: 16, workers: 2, want: 15},
		{game: "gomoku", budget: 44000, gens: 20, workers: 2, want: 15}, // the fewer: 21 generations of 12
		{game: "gomoku", timeBudget: "1h", workers: 16, want: config.DefaultSteadyWindow},
	} {
		cfg := config.DefaultConfig(c.game)
		cfg.Method, cfg.BudgetGames, cfg.Generations, cfg.TimeBudget, cfg.Games, cfg.Workers = config.MethodSteady, c.budget, c.gens, c.timeBudget, c.games, c.workers
		cfg.NewRunDefaults(false)
		if cfg.Steady == nil || cfg.Steady.Window != c.want {
			t.Errorf("%+v: window %v, want %d", c, cfg.Steady, c.want)
		}
	}
	cfg := config.DefaultConfig("gomoku")
	cfg.Method, cfg.Steady = config.MethodSteady, &config.SteadyConfig{Window: 3}
	if cfg.NewRunDefaults(false); cfg.Steady.Window != 3 {
		t.Errorf("a run naming window 3 got %d", cfg.Steady.Window)
	}
	cfg.Steady = nil
	if cfg.NewRunDefaults(true); cfg.Steady != nil || cfg.SteadyParams().Window != config.DefaultSteadyWindow {
		t.Errorf("a named window replaced: %+v", cfg.Steady)
	}
	cfg.Steady = &config.SteadyConfig{Window: 300}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "steady.window") {
		t.Errorf("window 300: %v", err)
	}
}

// TestSteadyBirths: every birth after the initial population plays the openings its
// first parent plays for it; a generation's members are the last one's or its births; the
// population keeps its size; each generation's champion is a new genome (the centre of
// the better half) whose first parent is the best member; the budget holds within one
// window of births.
func TestSteadyBirths(t *testing.T) {
	cfg := steadyConfig("gomoku", 2, 200)
	st := runSmall(t, cfg)
	prev := map[string]bool{}
	ops := map[string]string{}
	total := 0
	for _, g := range st.gens {
		total += g.Games
		var s steady.State
		if err := json.Unmarshal(g.MethodState, &s); err != nil {
			t.Fatal(err)
		}
		if len(s.Members) != cfg.Population || len(g.Individuals) != cfg.Population {
			t.Fatalf("generation %d: %d members, %d individuals", g.Generation, len(s.Members), len(g.Individuals))
		}
		openings := map[string][]int{}
		for _, r := range g.GameResults {
			openings[r.Individual] = append(openings[r.Individual], r.Opening)
		}
		champ := g.NewGenomes[len(g.NewGenomes)-1]
		if champ.Operator != steady.OpCentre || champ.ID != g.Champion || champ.Parents[0] != g.Individuals[0].ID {
			t.Fatalf("generation %d: champion %+v, best %s", g.Generation, champ, g.Individuals[0].ID)
		}
		for _, n := range g.NewGenomes[:len(g.NewGenomes)-1] {
			ops[n.ID] = n.Operator
			if n.Operator == genomes.OpBaseline || n.Operator == genomes.OpInitial || ops[n.Parents[0]] == genomes.OpBaseline {
				continue // the paper's weights play no game against themselves
			}
			for _, o := range openings[n.ID] {
				if !slices.Contains(openings[n.Parents[0]], o) {
					t.Fatalf("birth %s: opening %d not played by its first parent %s", n.ID, o, n.Parents[0])
				}
			}
		}
		for _, id := range s.Members {
			if !prev[id] && !genomesBorn(g, id) {
				t.Fatalf("generation %d: member %s was neither a member before nor born in it", g.Generation, id)
			}
		}
		prev = map[string]bool{}
		for _, id := range s.Members {
			prev[id] = true
		}
	}
	if total < 200 || total > 200+cfg.SteadyParams().Window*2*cfg.Games {
		t.Fatalf("%d games for a budget of 200", total)
	}
}

func genomesBorn(g record.GenerationRecord, id string) bool {
	for _, n := range g.NewGenomes {
		if n.ID == id {
			return true
		}
	}
	return false
}

// TestSteadyResume: checkpoints come every VerifyEvery generations and measure the
// generation's champion; a run whose save fails after two generations, resumed from what was
// saved (the population, its slots and the births in play), saves exactly the
// uninterrupted run's later generations, games and checkpoints (also with 8 births in
// play); a resume whose state names a member the population lacks is refused.
func TestSteadyResume(t *testing.T) {
	cfg := steadyConfig("gomoku", 2, 240)
	cfg.VerifyGames, cfg.VerifyEvery = 8, 2
	w8 := cfg
	w8.Steady = &config.SteadyConfig{Window: 8}
	crashAndResume(t, w8, runSmall(t, w8), 2) // 8 births in play: resumed, the same generations
	full := runSmall(t, cfg)
	if len(full.gens) < 4 {
		t.Fatalf("%d generations saved", len(full.gens))
	}
	for _, g := range full.gens { // --verify-every 2: a held-out check of the champion
		if (g.Checkpoint != nil) != (g.Generation%2 == 0) || g.Checkpoint != nil && (g.Checkpoint.Champion != g.Champion || g.Checkpoint.Games != 8) {
			t.Fatalf("generation %d (champion %s): checkpoint %+v", g.Generation, g.Champion, g.Checkpoint)
		}
	}
	cont, sum := crashAndResume(t, cfg, full, 2)
	jc, _ := json.Marshal(cont.verification)
	jf, _ := json.Marshal(full.verification)
	if string(jc) != string(jf) || sum.Generations != len(full.gens) {
		t.Fatalf("verification %s vs %s, %d generations (want %d)", jc, jf, sum.Generations, len(full.gens))
	}
	bad := stateFromRecords(1, full.gens[:2]) // what the crashed run had saved
	bad.MethodStates = slices.Clone(bad.MethodStates)
	var s steady.State
	_ = json.Unmarshal(bad.MethodStates[1], &s)
	s.Members[0] = genomes.IndividualID(1, 9, 9)
	bad.MethodStates[1], _ = json.Marshal(s)
	tu3, _ := New(cfg, &memStore{}, nil, "test")
	if _, err := tu3.Resume(context.Background(), bad); err == nil {
		t.Fatal(fmt.Sprintf("resume naming a member %s the population lacks accepted", s.Members[0]))
	}
}

// TestSteadyTimeBudgetBeforeFirstPopulation: a time budget that has passed before the
// initial population is decided still completes it, so the run saves one whole generation
// (it panicked on the members not yet born).
func TestSteadyTimeBudgetBeforeFirstPopulation(t *testing.T) {
	cfg := steadyConfig("gomoku", 2, 0)
	cfg.TimeBudget = "1ns"
	st := runSmall(t, cfg)
	if st.status != "finished" || len(st.gens) != 1 {
		t.Fatalf("status %q, %d generations; want finished after 1", st.status, len(st.gens))
	}
	if n := len(st.gens[0].Individuals); n != cfg.Population {
		t.Fatalf("generation 0 ranks %d individuals, want the population's %d", n, cfg.Population)
	}
}
