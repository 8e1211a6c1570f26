package sensitivity

import (
	"context"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/amazons"
	"evotune/engine/gomoku"
	"evotune/genomes"
	"evotune/tuner/arena"
)

// TestSensitivityInertGene: Amazons' late_k1 is proved not to change play while it stays
// positive (the late evaluation is late_k1·tq alone), so moving it from 5 to 9 and to 1
// must leave every pair of every variant identical to the base's self-play, score ½.
func TestSensitivityInertGene(t *testing.T) {
	l := genomes.AmazonsLayout()
	setup := arena.GameSetup{Game: amazons.Game{}, Board: 8, Limits: engine.Limits{Depth: 1, Width: 8}, MaxPlies: 200}
	ops, _, err := arena.SelectOpenings("random", amazons.Game{}, 8, 6, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	probes, err := Run(context.Background(), Config{Setup: setup, Layout: l, Base: l.Defaults(),
		Genes: []string{"late_k1"}, Factor: 2, Step: 0.04, Games: 12, Openings: ops, Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) != 2 || probes[0].To != 9 || probes[1].To != 1 || probes[0].Direction != "up" {
		t.Fatalf("late_k1 probes: %+v", probes)
	}
	for _, p := range probes {
		if p.Pairs != 6 || p.Unchanged != 6 || p.Result.Wins != p.Result.Losses {
			t.Errorf("late_k1 → %v: %d of %d pairs unchanged, %+v; want all unchanged", p.To, p.Unchanged, p.Pairs, p.Result)
		}
	}
}

// TestSensitivityGomoku: moving k1 (attack against defence) fourfold changes games; a gene
// at its bound is probed in the other direction only; every tuned gene is probed when none
// is named.
func TestSensitivityGomoku(t *testing.T) {
	l := genomes.GomokuLayout()
	setup := arena.GameSetup{Game: gomoku.Game{}, Limits: engine.Limits{Depth: 2, Width: 8}, MaxPlies: 225}
	ops, _, err := arena.SelectOpenings("random", gomoku.Game{}, 0, 20, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Setup: setup, Layout: l, Base: l.Defaults(), Genes: []string{"k1"}, Factor: 4, Step: 0.1, Games: 40, Openings: ops, Workers: 2}
	probes, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) != 2 || probes[0].To != 4 || probes[1].To != 0.25 {
		t.Fatalf("k1 probes: %+v", probes)
	}
	for _, p := range probes {
		if p.Result.Games() != 40 || p.Unchanged == p.Pairs || p.Estimate == nil {
			t.Errorf("k1 → %v: %d games, %d of %d pairs unchanged", p.To, p.Result.Games(), p.Unchanged, p.Pairs)
		}
	}
	// At its upper bound (20) k1 can only go down.
	cfg.Base = l.Defaults()
	for i, g := range l.Genes {
		if g.Name == "k1" {
			cfg.Base[i] = 20
		}
	}
	cfg.Games = 2
	probes, err = Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) != 1 || probes[0].Direction != "down" || probes[0].To != 5 {
		t.Fatalf("k1 at its bound: %+v", probes)
	}
	// live_four is fixed as inert (genomes.GomokuLayout): moved a hundredfold either way it
	// must repeat every pair.
	cfg.Base, cfg.Genes, cfg.Factor, cfg.Games = l.Defaults(), []string{"live_four"}, 100, 40
	cfg.Setup.Limits = engine.Limits{Depth: 3, Width: 12}
	probes, err = Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) != 2 {
		t.Fatalf("live_four probes: %+v", probes)
	}
	for _, p := range probes {
		if p.Unchanged != p.Pairs || p.Pairs != 20 {
			t.Errorf("live_four → %v: %d of %d pairs unchanged, want all (the layout calls it inert)", p.To, p.Unchanged, p.Pairs)
		}
	}
	// No genes named: the 12 tuned genes (live_four, live_three and k2 are fixed), two
	// directions each.
	cfg.Factor, cfg.Games, cfg.Setup.Limits = 4, 2, engine.Limits{Depth: 2, Width: 8}
	cfg.Base, cfg.Genes = l.Defaults(), nil
	probes, err = Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(probes) != 2*l.FreeCount() {
		t.Fatalf("%d probes, want %d", len(probes), 2*l.FreeCount())
	}
	for _, p := range probes {
		if p.Gene == "live_three" || p.Gene == "k2" || p.Gene == "live_four" {
			t.Errorf("fixed gene %s probed", p.Gene)
		}
	}
}

// TestSensitivityRefuses: bad configurations are refused with the field's name.
func TestSensitivityRefuses(t *testing.T) {
	l := genomes.GomokuLayout()
	ops, _, _ := arena.SelectOpenings("random", gomoku.Game{}, 0, 3, 5, nil)
	ok := Config{Setup: arena.GameSetup{Game: gomoku.Game{}, Limits: engine.Limits{Depth: 1}}, Layout: l, Base: l.Defaults(),
		Factor: 2, Step: 0.1, Games: 6, Openings: ops, Workers: 1}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for want, mut := range map[string]func(*Config){
		"factor 1":            func(c *Config) { c.Factor = 1 },
		"step 0":              func(c *Config) { c.Step = 0 },
		"games 5":             func(c *Config) { c.Games = 5 },
		"3 distinct, 8 games": func(c *Config) { c.Games = 8 },
		`gene "k9"`:           func(c *Config) { c.Genes = []string{"k9"} },
		"base has 2 genes":    func(c *Config) { c.Base = []float64{1, 2} },
		"time limit":          func(c *Config) { c.Setup.Limits.Time = 1 },
		"swap opening rules":  func(c *Config) { c.Setup.OpeningRule = "swap2" },
	} {
		c := ok
		c.Base = l.Defaults()
		mut(&c)
		_, err := Run(context.Background(), c, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}
