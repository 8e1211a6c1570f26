package ga

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"evotune/genomes"
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
	var obs []SurrogateObservation
	for range 6 {
		var o SurrogateObservation
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
			o.Games = append(o.Games, SurrogateGame{A: a, B: b, First: first, Score: score})
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
	u := UnitCoordinates(l, []float64{100, 1, 0.5})
	if len(u) != 2 || math.Abs(u[0]-0.25) > 1e-12 || math.Abs(u[1]-0.5) > 1e-12 {
		t.Fatalf("unit coordinates %v, want [0.25 0.5]", u)
	}
	if x := fromUnit(l, []float64{0.2513, 0.75}); x[0] != 101 || math.Abs(x[1]-math.Pow(10, 0.5)) > 1e-9 || x[2] != 0.5 {
		t.Fatalf("from unit coordinates %v, want [101 3.162 0.5]", x)
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
	two := SurrogateObservation{Points: [][]float64{{0.5, 0.5}, {0.6, 0.5}}, Games: []SurrogateGame{{A: 1, B: 0, First: true, Score: 1}, {A: 0, B: 1, First: true, Score: 0}}}
	three := SurrogateObservation{Points: [][]float64{{0.5, 0.5, 0.1}, {0.6, 0.5, 0.9}}, Games: two.Games}
	trust := []float64{0.1, 0.1}
	if _, ok := SurrogateChild(l, []SurrogateObservation{three}, ranked, trust); ok {
		t.Fatal("a child from observations of three free genes in a layout of two")
	}
	x, ok := SurrogateChild(l, []SurrogateObservation{three, two}, ranked, trust)
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
			var obs []SurrogateObservation
			for range SurrogateWindow {
				var o SurrogateObservation
				for range 12 {
					p := make([]float64, n)
					for k := range p {
						p[k] = 0.5 + 0.1*rng.NormFloat64()
					}
					o.Points = append(o.Points, p)
				}
				for range 180 {
					o.Games = append(o.Games, SurrogateGame{A: rng.Intn(12), B: rng.Intn(12), First: rng.Intn(2) == 0, Score: float64(rng.Intn(3)) / 2})
				}
				obs = append(obs, o)
			}
			ranked := []*genomes.Genome{{ID: "x", X: l.Defaults()}}
			trust := SurrogateTrust(l, genomes.DefaultMutation)
			for range b.N {
				if _, ok := SurrogateChild(l, obs, ranked, trust); !ok {
					b.Fatal("no child")
				}
			}
		})
	}
}
