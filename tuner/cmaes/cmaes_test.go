package cmaes

import (
	"math"
	"slices"
	"testing"

	"evotune/tuner/config"
	"evotune/tuner/search"
)

// newMethod is CMA-ES on a small gomoku run of 100 games, one pair a candidate, as the
// tuner makes it for generation 0.
func newMethod(t *testing.T) *cmaesMethod {
	t.Helper()
	c := config.DefaultConfig("gomoku")
	c.Method, c.BudgetGames, c.Generations, c.Workers, c.Depth, c.Width, c.VerifyGames = config.MethodCMAES, 100, 0, 2, 1, 4, 0
	c.CMAES = &config.CMAESConfig{Pairs: 1}
	plan, err := c.Plan()
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(&search.MethodEnv{Layout: plan.Layout, Config: c, RunID: 1})
	if err != nil {
		t.Fatal(err)
	}
	return m.(*cmaesMethod)
}

// TestCMAESMeanIsTheRecombination: after every tell, the mean the method reads (the
// optimiser's own storage) is the weighted recombination of the best μ = λ/2 candidates
// around the previous mean, with CMA-ES's log-rank weights: m' = m + Σ w_i·(x_{i:λ} − m);
// for a generation sampled around an earlier mean m0 (a lag), m' = m + Σ w_i·(x_{i:λ} − m0).
func TestCMAESMeanIsTheRecombination(t *testing.T) {
	m := newMethod(t)
	lambda := m.opt.PopulationSize()
	if want := 4 + int(math.Floor(3*math.Log(float64(len(m.free))))); lambda != want {
		t.Fatalf("λ = %d for %d free genes, want %d", lambda, len(m.free), want)
	}
	mu := lambda / 2
	w := make([]float64, mu)
	var sum float64
	for i := range w {
		w[i] = math.Log(float64(lambda+1)/2) - math.Log(float64(i+1))
		sum += w[i]
	}
	// A generation sampled two tells ago (a lag of 1 and one generation between) moves the
	// mean by its own steps from the mean it was sampled around, added to where the mean
	// is now.
	var lagged *cmaesGeneration
	for k := 0; k < 6; k++ {
		now := append([]float64(nil), m.mean...)
		g := &cmaesGeneration{k: k, m0: now}
		if lagged != nil {
			g, lagged = lagged, nil
		} else {
			ys, err := m.ask()
			if err != nil {
				t.Fatal(err)
			}
			g.ys = ys
		}
		if k == 2 { // sampled now, told after generation 3
			ys, err := m.ask()
			if err != nil {
				t.Fatal(err)
			}
			lagged = &cmaesGeneration{k: 3, ys: ys, m0: now}
		}
		values := make([]float64, len(g.ys))
		for i := range values {
			values[i] = float64((i*7+k)%lambda) / float64(lambda) // distinct: the ranking is unambiguous
		}
		order := make([]int, len(g.ys))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return int(math.Copysign(1, values[a]-values[b])) })
		want := append([]float64(nil), now...)
		for r := 0; r < mu; r++ {
			for j := range want {
				want[j] += w[r] / sum * (g.ys[order[r]][j] - g.m0[j])
			}
		}
		if err := m.tell(g, values); err != nil {
			t.Fatal(err)
		}
		for j := range want {
			if math.Abs(m.mean[j]-want[j]) > 1e-6 {
				t.Fatalf("generation %d gene %d: mean %v, want %v (the recombination of the best %d steps)", k, j, m.mean[j], want[j], mu)
			}
		}
		if slices.Equal(m.mean, now) {
			t.Fatalf("generation %d: the mean did not move", k)
		}
	}
}

// TestCMAESFork: a fork of CMA-ES (its optimiser and mean deep-copied) told the same
// values asks the same candidates as the method; telling and asking the fork other
// values leaves the method as it was, asking what a method never forked asks.
func TestCMAESFork(t *testing.T) {
	newM := func() *cmaesMethod { return newMethod(t) }
	values := func(k, n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64((i*5+k*3)%n) / float64(n)
		}
		return v
	}
	m, ref := newM(), newM()
	step := func(g *cmaesMethod, k int, v []float64) [][]float64 {
		t.Helper()
		if err := g.sampledUpTo(k); err != nil {
			t.Fatal(err)
		}
		if err := g.tell(g.sampled[0], v); err != nil {
			t.Fatal(err)
		}
		g.sampled = g.sampled[1:]
		if err := g.sampledUpTo(k + 1); err != nil {
			t.Fatal(err)
		}
		return g.sampled[0].ys
	}
	for k := range 3 {
		n := m.opt.PopulationSize()
		step(m, k, values(k, n))
		step(ref, k, values(k, n))
	}
	f, err := m.fork()
	if err != nil {
		t.Fatal(err)
	}
	n := m.opt.PopulationSize()
	if got, want := step(f, 3, values(3, n)), step(ref, 3, values(3, n)); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatal("the fork told the method's values asked other candidates")
	}
	other := values(3, n)
	slices.Reverse(other)
	g, err := m.fork()
	if err != nil {
		t.Fatal(err)
	}
	for k := 3; k < 6; k++ {
		step(g, k, other)
	}
	if slices.Equal(g.mean, m.mean) {
		t.Fatal("the fork told other values has the method's mean")
	}
	if got, want := step(m, 3, values(3, n)), ref.sampled[0].ys; !slices.EqualFunc(got, want, slices.Equal) {
		t.Error("a fork's tells changed the method's next candidates")
	}
	if !slices.Equal(m.mean, ref.mean) {
		t.Errorf("a fork's tells changed the method's mean: %v, want %v", m.mean, ref.mean)
	}
}
