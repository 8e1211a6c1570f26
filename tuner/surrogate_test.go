package tuner

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/ga"
	"evotune/tuner/population"
	"evotune/tuner/record"
	"evotune/tuner/search"
)

// TestGASurrogate: with Surrogate, every generation from the third on has exactly one
// child bred from the model, whose parent is the last generation's best and whose genes
// lie within two mutation steps of the better half's centre; the generations before it
// are those of the run without the model, and later ones are not. The run is the same
// with 1 and 3 workers, and resumed after a crash it is the uninterrupted run.
func TestGASurrogate(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	cfg.Selection, cfg.Generations, cfg.Population = config.SelectionPeers, 4, 8
	plain := runSmall(t, cfg)
	cfg.Surrogate = config.SurrogateOn
	full := runSmall(t, cfg)
	if len(full.gens) != 5 {
		t.Fatalf("%d generations saved", len(full.gens))
	}
	tu, err := New(cfg, &memStore{}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	l := tu.plan.Layout
	trust := ga.SurrogateTrust(l, cfg.Mutation)
	genes := map[string][]float64{}
	for _, g := range full.gens {
		for _, n := range g.NewGenomes {
			x, err := l.FromNamed(n.Genes)
			if err != nil {
				t.Fatal(err)
			}
			genes[n.ID] = x
		}
	}
	prev := map[int]record.GenerationRecord{}
	for _, g := range full.gens {
		prev[g.Generation] = g
		var models []record.GenomeRecord
		for _, n := range g.NewGenomes {
			if n.Operator == ga.OpSurrogate {
				models = append(models, n)
			}
		}
		if want := min(1, max(0, g.Generation-1)); len(models) != want {
			t.Fatalf("generation %d: %d surrogate children, want %d", g.Generation, len(models), want)
		}
		var o ga.SurrogateObservation
		if err := search.DecodeState(g.MethodState, &o); err != nil || len(o.Points) != cfg.Population || len(o.Games) == 0 {
			t.Fatalf("generation %d: its state holds %d points and %d games (%v)", g.Generation, len(o.Points), len(o.Games), err)
		}
		if len(models) == 0 {
			continue
		}
		before := prev[g.Generation-1]
		if p := models[0].Parents; len(p) != 1 || p[0] != before.Best {
			t.Fatalf("generation %d: the surrogate child's parents %v, want the last generation's best %s", g.Generation, p, before.Best)
		}
		ranked := make([]*genomes.Genome, len(before.Individuals))
		for _, in := range before.Individuals {
			ranked[in.Rank-1] = &genomes.Genome{ID: in.ID, X: genes[in.ID]}
		}
		centre, _ := population.BetterHalfCentre(l, ranked)
		c, x := ga.UnitCoordinates(l, centre), ga.UnitCoordinates(l, genes[models[0].ID])
		k := 0
		for i, gene := range l.Genes {
			if gene.Fixed {
				continue
			}
			if slack := 1 / (gene.Max - gene.Min); math.Abs(x[k]-c[k]) > trust[k]+slack { // an integer gene rounds
				t.Fatalf("generation %d: the surrogate child's %s is %.4f from the centre in unit coordinates, more than %.4f", g.Generation, l.Genes[i].Name, math.Abs(x[k]-c[k]), trust[k])
			}
			k++
		}
	}
	for k := range 2 {
		if a, b := fingerprint(plain.gens[k:k+1]), fingerprint(full.gens[k:k+1]); a != strings.ReplaceAll(b, string(full.gens[k].MethodState), "") {
			t.Fatalf("generation %d differs with the surrogate model, before it breeds", k)
		}
	}
	if fingerprint(plain.gens[2:]) == fingerprint(full.gens[2:]) {
		t.Fatal("the surrogate model changed nothing")
	}
	cfg.Workers = 1
	if fingerprint(runSmall(t, cfg).gens) != fingerprint(full.gens) {
		t.Fatal("1 and 2 workers differ")
	}
	crashAndResume(t, cfg, full, 3)
	cfg.Selection = config.SelectionRace
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "surrogate") {
		t.Fatalf("surrogate with race selection: %v, want an error naming surrogate", err)
	}
}

// TestSurrogateAuto: the default (auto) turns the surrogate model on for an outside
// engine whose champion is the population's centre, and off for the built-in games, for
// another champion, for racing and for another method; a run stored before the setting
// ("") keeps it off.
func TestSurrogateAuto(t *testing.T) {
	for _, c := range []struct {
		name              string
		engine, champion  string
		selection, method string
		stored            bool
		want              string
	}{
		{"built-in", "", config.ChampionAuto, config.SelectionAuto, config.MethodGA, false, config.SurrogateOff},
		{"outside engine", "cmd:engine", config.ChampionAuto, config.SelectionAuto, config.MethodGA, false, config.SurrogateOn},
		{"outside engine, hall-of-fame centre", "cmd:engine", config.ChampionCentre, config.SelectionAuto, config.MethodGA, false, config.SurrogateOff},
		{"outside engine, racing", "cmd:engine", config.ChampionAuto, config.SelectionRace, config.MethodGA, false, config.SurrogateOff},
		{"outside engine, SPSA", "cmd:engine", config.ChampionAuto, config.SelectionAuto, config.MethodSPSA, false, config.SurrogateOff},
		{"outside engine, stored before", "cmd:engine", config.ChampionAuto, config.SelectionAuto, config.MethodGA, true, ""},
	} {
		cfg := config.DefaultConfig("gomoku")
		cfg.Engine, cfg.Champion, cfg.Selection, cfg.Method = c.engine, c.champion, c.selection, c.method
		if c.stored {
			cfg.Surrogate = ""
		}
		cfg.Resolve()
		if cfg.Surrogate != c.want {
			t.Errorf("%s: surrogate %q, want %q", c.name, cfg.Surrogate, c.want)
		}
	}
}

// TestGALagAuto: a new run of an outside engine's GA whose generations play each other
// and whose champion is the population's centre takes one generation in play
// (NewRunGALag), with the surrogate child; a lag named (even 0), a built-in game, a hall
// of fame, racing, opponents and another method keep 0; a stored configuration is never
// given a lag (its empty ga_lag is 0).
func TestGALagAuto(t *testing.T) {
	for _, c := range []struct {
		name  string
		set   func(c *config.Config)
		named bool
		want  int
	}{
		{"outside engine", func(c *config.Config) {}, false, 1},
		{"outside engine, --ga-lag 0", func(c *config.Config) {}, true, 0},
		{"outside engine, --ga-lag 3", func(c *config.Config) { c.GALag = 3 }, true, 3},
		{"outside engine, --champion population", func(c *config.Config) { c.Champion = config.ChampionPopulation }, false, 1},
		{"built-in", func(c *config.Config) { c.Engine = "" }, false, 0},
		{"outside engine, hall-of-fame centre", func(c *config.Config) { c.Champion = config.ChampionCentre }, false, 0},
		{"outside engine, head-to-head tests", func(c *config.Config) { c.Admission = config.AdmissionHeadToHead }, false, 0},
		{"outside engine, racing", func(c *config.Config) { c.Selection = config.SelectionRace }, false, 0},
		{"outside engine, opponents", func(c *config.Config) { c.Opponents = []string{"cmd:other"} }, false, 0},
		{"outside engine, SPSA", func(c *config.Config) { c.Method = config.MethodSPSA }, false, 0},
	} {
		cfg := config.DefaultConfig("gomoku")
		cfg.Engine = "cmd:engine"
		c.set(&cfg)
		cfg.NewRunGALag(c.named)
		cfg.Resolve()
		if cfg.GALag != c.want {
			t.Errorf("%s: ga_lag %d, want %d", c.name, cfg.GALag, c.want)
		}
		if c.name == "outside engine" && (cfg.Surrogate != config.SurrogateOn || cfg.Champion != config.ChampionPopulation || cfg.AdmitGames != 0) {
			t.Errorf("%s: surrogate %s, champion %s, admission games %d; want on, population, 0", c.name, cfg.Surrogate, cfg.Champion, cfg.AdmitGames)
		}
	}
	// A config file names the lag by its key, 0 included (compare's runs read it so).
	for _, f := range []struct {
		text string
		want int
	}{{"ga_lag: 0\n", 0}, {"ga_lag: 2\n", 2}, {"population: 12\n", 1}} {
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(path, []byte(f.text), 0o644); err != nil {
			t.Fatal(err)
		}
		base := config.DefaultConfig("gomoku")
		base.Engine = "cmd:engine"
		cfg, err := config.LoadConfigFile(path, base)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.NewRunGALag(false); cfg.GALag != f.want {
			t.Errorf("config file %q: ga_lag %d, want %d", f.text, cfg.GALag, f.want)
		}
	}
	stored, err := config.DecodeConfig(`{"game":"gomoku","method":"ga","engine":"cmd:engine","population":12,"champion":"population","surrogate":"on"}`)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Resolve(); stored.GALag != 0 {
		t.Fatalf("a stored outside engine's run without ga_lag resolved to lag %d, want 0", stored.GALag)
	}
}
