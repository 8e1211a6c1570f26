package tuner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"evotune/genomes"
)

func gaLagConfig(game string, workers, lag int) Config {
	c := smallConfig(game, workers)
	c.Population, c.Generations, c.GALag = 6, 5, lag
	return c
}

// TestGALagSameRunWhateverWorkers: with generations in play, a seeded run is the same on
// 1, 3 and 16 workers (generations are bred from told generations alone and told in
// order), and resumed after a crash it saves the generations the uninterrupted run saved.
func TestGALagSameRunWhateverWorkers(t *testing.T) {
	for _, lag := range []int{1, 2} {
		var want string
		var full *memStore
		for _, w := range []int{1, 3, 16} {
			st := runSmall(t, gaLagConfig("gomoku", w, lag))
			if st.status != "finished" || len(st.gens) != 6 {
				t.Fatalf("lag %d, %d workers: status %q, %d generations (want 6)", lag, w, st.status, len(st.gens))
			}
			got := fingerprint(st.gens)
			if want == "" {
				want, full = got, st
			} else if got != want {
				t.Fatalf("lag %d: %d workers differ from 1:\n%s\n----\n%s", lag, w, got, want)
			}
		}
		crashAndResume(t, gaLagConfig("gomoku", 2, lag), full, 3)
	}
}

// TestGALagGenerations: the generations' records hold what the GA with peers stores —
// every individual's games (each of RaceRounds+1 pairings, Games a pair, one draw of
// openings a pairing) credited to both sides, wins matching losses — and the breeding follows the lag: generations 0 to L are
// initial populations, generation k+1 > L has parents only in generations k−2L to k−L.
func TestGALagGenerations(t *testing.T) {
	const lag = 2
	cfg := gaLagConfig("gomoku", 2, lag)
	cfg.Generations = 7
	st := runSmall(t, cfg)
	if len(st.gens) != 8 {
		t.Fatalf("%d generations saved, want 8", len(st.gens))
	}
	born := map[string]int{} // genome → generation it was born in
	perInd := (cfg.RaceRounds + 1) * cfg.Games
	for _, g := range st.gens {
		var w, l int
		if want := (cfg.RaceRounds + 1) * cfg.Games / 2; len(g.Openings) != want {
			t.Fatalf("generation %d stores %d openings, want %d (one draw a pairing, shared by its pairs)", g.Generation, len(g.Openings), want)
		}
		if len(g.Individuals) != cfg.Population {
			t.Fatalf("generation %d ranks %d individuals", g.Generation, len(g.Individuals))
		}
		for i, in := range g.Individuals {
			if in.Stats.Games() != perInd || in.Rank != i+1 {
				t.Fatalf("generation %d: %s rank %d has %d games, want %d", g.Generation, in.ID, in.Rank, in.Stats.Games(), perInd)
			}
			if i > 0 && in.Fitness < g.Individuals[i-1].Fitness {
				t.Fatalf("generation %d: not ranked by fitness", g.Generation)
			}
			w, l = w+in.Stats.Wins, l+in.Stats.Losses
		}
		if w != l {
			t.Fatalf("generation %d: %d wins and %d losses: the pairs' mirror is missing", g.Generation, w, l)
		}
		for _, n := range g.NewGenomes {
			born[n.ID] = n.Born
			if n.Operator == OpPopulationCentre {
				if n.ID != g.Champion {
					t.Fatalf("generation %d: centre %s, champion %s", g.Generation, n.ID, g.Champion)
				}
				continue
			}
			if g.Generation <= lag {
				if n.Operator != genomes.OpInitial && n.Operator != genomes.OpBaseline {
					t.Fatalf("generation %d (≤ lag): %s bred by %s", g.Generation, n.ID, n.Operator)
				}
				continue
			}
			k := g.Generation - 1
			for _, p := range n.Parents {
				pb, ok := born[p]
				if !ok || pb > k-lag {
					t.Fatalf("generation %d: %s has parent %s born in generation %d (ok %v), after generation %d", g.Generation, n.ID, p, pb, ok, k-lag)
				}
			}
		}
	}
	if fingerprint(st.gens) == fingerprint(runSmall(t, func() Config { c := cfg; c.GALag = 1; return c }()).gens) {
		t.Fatal("lags 2 and 1 gave the same run")
	}
}

// TestGALagSettings: a lag resolves the GA's auto settings to what it needs and refuses
// the others by name; it appears in the run's header and in its summary.
func TestGALagSettings(t *testing.T) {
	c := DefaultConfig("gomoku")
	c.GALag = 2
	c.Resolve()
	if c.Champion != ChampionPopulation || c.Admission != AdmissionNone || c.AdmitGames != 0 || c.Surrogate != SurrogateOff || c.Selection != SelectionPeers {
		t.Fatalf("resolved: champion %s admission %s (%d games) surrogate %s selection %s", c.Champion, c.Admission, c.AdmitGames, c.Surrogate, c.Selection)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]func(c *Config){
		"ga_lag":    func(c *Config) { c.GALag = MaxGALag + 1 },
		"champion":  func(c *Config) { c.Champion = ChampionCentre },
		"admission": func(c *Config) { c.Admission, c.AdmitGames = AdmissionPaired, 64 },
		"surrogate": func(c *Config) { c.Surrogate = SurrogateOn },
		"race":      func(c *Config) { c.Selection = SelectionRace },
	} {
		c := DefaultConfig("gomoku")
		c.GALag = 2
		bad(&c)
		c.Resolve()
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "ga_lag") {
			t.Fatalf("%s: %v, want an error naming ga_lag", name, err)
		}
	}
	tu, err := New(gaLagConfig("gomoku", 1, 1), &memStore{}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	if head, _ := tu.SearchText("5 generations"); !strings.Contains(head, "2 generations in play") {
		t.Fatalf("header %q", head)
	}
	sum, err := tu.Run(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Lag != 1 || sum.SlotHint() != "" {
		t.Fatalf("summary lag %d, hint %q", sum.Lag, sum.SlotHint())
	}
	var s gaLagState
	if err := json.Unmarshal(tu.store.(*memStore).gens[0].MethodState, &s); err != nil || len(s.Ranked) != 6 {
		t.Fatalf("generation 0's state: %v, %d ranked", err, len(s.Ranked))
	}
}
