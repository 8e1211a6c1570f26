package tuner

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/population"
	"evotune/tuner/record"
	"evotune/tuner/search"
)

// TestSurrogateFitsTheStrength: games drawn from a known strength, a concave quadratic
// of three genes whose best genome lies beyond a box around the sampled cloud's centre in
// two genes and at the centre in the third, are fitted by the model, and its best genome
// in the box moves towards the true best in the two genes, by at least half the way the
// box allows, and keeps the third near the centre. (Five seeds of the games pass.)
func TestSurrogateFitsTheStrength(t *testing.T) {
	opt := []float64{0.8, 0.2, 0.5}
	strength := func(u []float64) float64 {
		var s float64
		for a := range u {
			s -= 6 * (u[a] - opt[a]) * (u[a] - opt[a])
		}
		return s
	}
	rng := rand.New(rand.NewSource(5))
	var obs []surrogateObservation
	for range 6 {
		var o surrogateObservation
		for range 12 {
			o.Points = append(o.Points, []float64{0.5 + 0.2*rng.NormFloat64(), 0.5 + 0.2*rng.NormFloat64(), 0.5 + 0.2*rng.NormFloat64()})
		}
		for range 300 {
			a, b := rng.Intn(12), rng.Intn(12)
			if a == b {
				continue
			}
			first := rng.Intn(2) == 0
			z := strength(o.Points[a]) - strength(o.Points[b])
			if first {
				z += 0.2
			} else {
				z -= 0.2
			}
			score := 0.0
			if rng.Float64() < 1/(1+math.Exp(-z)) {
				score = 1
			}
			o.Games = append(o.Games, surrogateGame{A: a, B: b, First: first, Score: score})
		}
		obs = append(obs, o)
	}
	m := fitSurrogate(obs)
	if m == nil {
		t.Fatal("no model")
	}
	if adv := m.theta[len(m.theta)-1]; adv < 0.05 || adv > 0.4 {
		t.Errorf("the first mover's advantage %.3f, want near 0.2", adv)
	}
	centre := []float64{0.5, 0.5, 0.5}
	got := m.best(centre, []float64{0.35, 0.35, 0.35}, []float64{0.65, 0.65, 0.65})
	if got[0] < 0.575 || got[1] > 0.425 || math.Abs(got[2]-0.5) > 0.1 {
		t.Fatalf("the model's best genome %.3f, want gene 0 towards 0.8, gene 1 towards 0.2, gene 2 near 0.5", got)
	}
	if m.value(got) <= m.value(centre) {
		t.Fatalf("the best genome's value %.3f is not above the centre's %.3f", m.value(got), m.value(centre))
	}
}

// TestSurrogateBestInTheBox: the coordinate ascent finds a concave model's best point
// inside the box, and a linear model's at the corner its slopes point to.
func TestSurrogateBestInTheBox(t *testing.T) {
	lo, hi := []float64{0, 0}, []float64{1, 1}
	// f = d0 − d1 − d0² − d1² + 0.5·d0·d1 around mean 0: stationary where
	// 1 − 2·d0 + 0.5·d1 = 0 and −1 − 2·d1 + 0.5·d0 = 0, d0 = 0.4, d1 = −0.4 (in the box
	// when the mean is 0.5).
	concave := &quadraticModel{mean: []float64{0.5, 0.5}, cross: true, theta: []float64{1, -1, -1, 0.5, -1, 0}}
	got := concave.best([]float64{0.5, 0.5}, lo, hi)
	if math.Abs(got[0]-0.9) > 1e-6 || math.Abs(got[1]-0.1) > 1e-6 {
		t.Fatalf("concave model: best %.6f, want [0.9 0.1]", got)
	}
	linear := &quadraticModel{mean: []float64{0.5, 0.5}, cross: true, theta: []float64{-2, 3, 0, 0, 0, 0}}
	if got := linear.best([]float64{0.5, 0.5}, []float64{0.4, 0.4}, []float64{0.6, 0.6}); got[0] != 0.4 || got[1] != 0.6 {
		t.Fatalf("linear model: best %v, want the corner [0.4 0.6]", got)
	}
}

// TestSurrogateUnitCoordinates: a gene vector maps to unit coordinates (log genes by the
// logarithm of their range, fixed genes left out) and back.
func TestSurrogateUnitCoordinates(t *testing.T) {
	l := &genomes.Layout{Game: "test", Genes: []genomes.Gene{
		{Name: "a", Min: 0, Max: 400, Default: 100, Integer: true},
		{Name: "b", Min: 0.1, Max: 10, Default: 1, Scale: genomes.Log},
		{Name: "c", Min: 0, Max: 1, Default: 0.5, Fixed: true},
	}}
	u := unitCoordinates(l, []float64{100, 1, 0.5})
	if len(u) != 2 || math.Abs(u[0]-0.25) > 1e-12 || math.Abs(u[1]-0.5) > 1e-12 {
		t.Fatalf("unit coordinates %v, want [0.25 0.5]", u)
	}
	if x := fromUnit(l, []float64{0.2513, 0.75}); x[0] != 101 || math.Abs(x[1]-math.Pow(10, 0.5)) > 1e-9 || x[2] != 0.5 {
		t.Fatalf("from unit coordinates %v, want [101 3.162 0.5]", x)
	}
}

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
	trust := surrogateTrust(l, cfg.Mutation)
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
			if n.Operator == OpSurrogate {
				models = append(models, n)
			}
		}
		if want := min(1, max(0, g.Generation-1)); len(models) != want {
			t.Fatalf("generation %d: %d surrogate children, want %d", g.Generation, len(models), want)
		}
		var o surrogateObservation
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
		c, x := unitCoordinates(l, centre), unitCoordinates(l, genes[models[0].ID])
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

// TestSurrogateChildAfterTheGenesChanged: observations made with another number of free
// genes (a run resumed with --fix or --free) are left out of the fit, and with none left
// there is no surrogate child.
func TestSurrogateChildAfterTheGenesChanged(t *testing.T) {
	l := &genomes.Layout{Game: "test", Genes: []genomes.Gene{
		{Name: "a", Min: 0, Max: 1, Default: 0.5},
		{Name: "b", Min: 0, Max: 1, Default: 0.5},
	}}
	ranked := []*genomes.Genome{{ID: "x", X: []float64{0.5, 0.5}}, {ID: "y", X: []float64{0.4, 0.6}}}
	two := surrogateObservation{Points: [][]float64{{0.5, 0.5}, {0.6, 0.5}}, Games: []surrogateGame{{A: 1, B: 0, First: true, Score: 1}, {A: 0, B: 1, First: true, Score: 0}}}
	three := surrogateObservation{Points: [][]float64{{0.5, 0.5, 0.1}, {0.6, 0.5, 0.9}}, Games: two.Games}
	trust := []float64{0.1, 0.1}
	if _, ok := surrogateChild(l, []surrogateObservation{three}, ranked, trust); ok {
		t.Fatal("a child from observations of three free genes in a layout of two")
	}
	x, ok := surrogateChild(l, []surrogateObservation{three, two}, ranked, trust)
	if !ok || len(x) != 2 || x[0] <= 0.5 {
		t.Fatalf("child %v (%v), want gene a above the centre, where the winner played", x, ok)
	}
}

// BenchmarkSurrogateFit times one surrogate child (the fit of a full window and the
// search of its best genome), which the GA computes between a generation's last game and
// the next generation's first: 8 generations of 12 individuals and 180 games each, for
// 6 free genes (every cross term), 12 and 48 (the squares alone).
// go test ./tuner -run '^$' -bench SurrogateFit
func BenchmarkSurrogateFit(b *testing.B) {
	for _, n := range []int{6, 12, 48} {
		b.Run(fmt.Sprintf("genes=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewSource(1))
			l := &genomes.Layout{Game: "test"}
			for k := range n {
				l.Genes = append(l.Genes, genomes.Gene{Name: fmt.Sprint("g", k), Min: 0, Max: 1, Default: 0.5})
			}
			var obs []surrogateObservation
			for range SurrogateWindow {
				var o surrogateObservation
				for range 12 {
					p := make([]float64, n)
					for k := range p {
						p[k] = 0.5 + 0.1*rng.NormFloat64()
					}
					o.Points = append(o.Points, p)
				}
				for range 180 {
					o.Games = append(o.Games, surrogateGame{A: rng.Intn(12), B: rng.Intn(12), First: rng.Intn(2) == 0, Score: float64(rng.Intn(3)) / 2})
				}
				obs = append(obs, o)
			}
			ranked := []*genomes.Genome{{ID: "x", X: l.Defaults()}}
			trust := surrogateTrust(l, genomes.DefaultMutation)
			for range b.N {
				if _, ok := surrogateChild(l, obs, ranked, trust); !ok {
					b.Fatal("no child")
				}
			}
		})
	}
}
