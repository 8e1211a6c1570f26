package spsa

import (
	"math"
	"testing"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/search"
)

// testEnv is SPSA's view of a gomoku run of budget games, pairs game pairs a step, as
// the tuner makes it.
func testEnv(t *testing.T, budget, pairs int) Env {
	t.Helper()
	c := config.DefaultConfig("gomoku")
	c.Method, c.BudgetGames, c.Generations, c.Workers, c.Depth, c.Width, c.VerifyGames = config.MethodSPSA, budget, 0, 2, 1, 4, 0
	c.SPSA = &config.SPSAConfig{Pairs: pairs}
	c.Resolve()
	plan, err := c.Plan()
	if err != nil {
		t.Fatal(err)
	}
	return Env{&search.MethodEnv{Layout: plan.Layout, Config: plan.Config, RunID: 1}}
}

// TestSPSAGainsReachTheirEnds: fishtest's schedule makes c_k equal c_end and R_k = a_k/c_k²
// equal r_end at the last game pair, and starts c at c_end·N^γ.
func TestSPSAGainsReachTheirEnds(t *testing.T) {
	a := testEnv(t, 2000, 1) // N = 1000 pairs, one per step
	p := a.Config.SPSAParams()
	ck, rk := a.Gains(999)
	if math.Abs(ck-p.CEnd) > 1e-12 || math.Abs(rk-p.REnd) > 1e-12 {
		t.Fatalf("last step: c_k %g r_k %g, want c_end %g r_end %g", ck, rk, p.CEnd, p.REnd)
	}
	c0, r0 := a.Gains(0)
	if want := p.CEnd * math.Pow(1000, p.Gamma); math.Abs(c0-want) > 1e-9 {
		t.Fatalf("first step: c_0 %g, want %g", c0, want)
	}
	if !(r0 > rk) {
		t.Fatalf("learning rate does not decay: R_0 %g, R_end %g", r0, rk)
	}
}

// TestSPSAPerGeneGains: a gene with its own c_end and r_end (an OpenBench line's, in the
// gene's units) reaches them at the last step — c_end in SPSA units: c_end/default for a log
// gene, c_end/(range/5) for a linear one — while the other genes keep the run's schedule.
func TestSPSAPerGeneGains(t *testing.T) {
	a := testEnv(t, 2000, 1)
	l := *a.Layout
	l.Genes = append([]genomes.Gene(nil), l.Genes...)
	logGene, linGene := -1, -1
	for i, g := range l.Genes {
		switch {
		case g.Fixed:
		case g.Scale == genomes.Log && logGene < 0:
			logGene = i
		case g.Scale == genomes.Linear && linGene < 0:
			linGene = i
		}
	}
	if logGene < 0 {
		t.Fatal("no free log gene in the gomoku layout")
	}
	l.Genes[logGene].CEnd, l.Genes[logGene].REnd = 0.1*l.Genes[logGene].Default, 0.01
	if linGene >= 0 {
		g := &l.Genes[linGene]
		g.CEnd = (g.Max - g.Min) / 50 // 0.1 SPSA units
	}
	a.Layout = &l
	p := a.Config.SPSAParams()
	ck, rk := a.GeneGains(999)
	for i, g := range l.Genes {
		wantC, wantR := p.CEnd, p.REnd
		switch i {
		case logGene:
			wantC, wantR = 0.1, 0.01
		case linGene:
			wantC = 0.1
		}
		if math.Abs(ck[i]-wantC) > 1e-9 || math.Abs(rk[i]-wantR) > 1e-12 {
			t.Errorf("gene %s at the last step: c_k %g r_k %g, want %g and %g", g.Name, ck[i], rk[i], wantC, wantR)
		}
	}
	c0, _ := a.Gains(0)
	ck0, _ := a.GeneGains(0)
	if math.Abs(ck0[logGene]-c0*0.1/p.CEnd) > 1e-9 {
		t.Errorf("first step: the gene's c_0 %g, want the run's %g scaled to its c_end", ck0[logGene], c0)
	}
}

// TestSPSAIntegerGenesPerturbed: an integer gene whose perturbation c_k is below half a
// unit (caution_factor 0–5: c_end 0.2 SPSA units is 0.2 of a unit) is played one unit
// apart in θ+ and θ− at every step, on Δ's side, inside its bounds, and its update is
// scaled to the wider perturbation; a gene whose perturbation is wide enough (strength
// 1–100) is perturbed as before; the run names the widened genes.
func TestSPSAIntegerGenesPerturbed(t *testing.T) {
	a := testEnv(t, 2000, 1)
	l := *a.Layout
	l.Genes = []genomes.Gene{
		{Name: "caution_factor", Min: 0, Max: 5, Default: 1, Scale: genomes.Linear, Integer: true},
		{Name: "strength", Min: 1, Max: 100, Default: 50, Scale: genomes.Linear, Integer: true},
	}
	a.Layout = &l
	if got := a.WidenedIntegerGenes(); len(got) != 1 || got[0] != "caution_factor" {
		t.Errorf("widened genes %v, want [caution_factor]", got)
	}
	u := search.Theta(a.Layout, l.Defaults())
	results := []int{3, -2, 5, -7, 1, 0, 4, -3, 6, -1, 2, -5, 7, 0, -4, 3, 8, -6, 1, 2}
	seen := map[float64]bool{}
	for k, r := range results {
		plus, minus, s := a.Points(u, k)
		d := a.Delta(k)
		if diff := (plus[0] - minus[0]) * d[0]; diff != 1 {
			t.Errorf("step %d: caution_factor θ+ %g θ− %g (Δ %+g): want one unit apart on Δ's side", k, plus[0], minus[0], d[0])
		}
		for _, x := range []float64{plus[0], minus[0]} {
			if x < 0 || x > 5 || x != math.Trunc(x) {
				t.Errorf("step %d: caution_factor %g outside 0–5 or not whole", k, x)
			}
			seen[x] = true
		}
		ck, _ := a.GeneGains(k)
		if wide := 0.5 / search.Unit(l.Genes[0]); math.Abs(s[0]-ck[0]/wide) > 1e-12 || s[0] >= 1 {
			t.Errorf("step %d: caution_factor's update scale %g, want c_k/c' = %g", k, s[0], ck[0]/wide)
		}
		if s[1] != 1 || plus[1] == minus[1] {
			t.Errorf("step %d: strength θ+ %g θ− %g scale %g: want an ordinary perturbation", k, plus[1], minus[1], s[1])
		}
		before := u[0]
		a.Update(u, k, r, s)
		_, rk := a.GeneGains(k)
		if want := before + rk[0]*ck[0]*s[0]*float64(r)*d[0]; math.Abs(u[0]-want) > 1e-12 && u[0] > 0 && u[0] < 5 {
			t.Errorf("step %d: θ of caution_factor %g, want %g", k, u[0], want)
		}
	}
	if len(seen) < 2 {
		t.Errorf("caution_factor played only %v", seen)
	}
}

// TestCalibrationPair: the calibration's players are the defaults moved by c_end the
// first step's way (Δ_0) and the other way: every free gene moved, in opposite
// directions on Δ_0's sides, and the fixed genes left at their defaults.
func TestCalibrationPair(t *testing.T) {
	a := testEnv(t, 2000, 4)
	l := *a.Layout
	l.Genes = append([]genomes.Gene(nil), l.Genes...)
	l.Genes[1].Fixed = true
	a.Layout = &l
	plus, minus := a.CalibrationPair()
	def, d := l.Defaults(), a.Delta(0)
	if len(plus) != len(def) || len(minus) != len(def) {
		t.Fatalf("pair of %d and %d genes, the layout has %d", len(plus), len(minus), len(def))
	}
	for i, g := range l.Genes {
		if g.Fixed {
			if plus[i] != def[i] || minus[i] != def[i] {
				t.Errorf("fixed %s: %g and %g, want its default %g", g.Name, plus[i], minus[i], def[i])
			}
			continue
		}
		if (plus[i]-def[i])*d[i] <= 0 || (minus[i]-def[i])*d[i] >= 0 {
			t.Errorf("%s (Δ_0 %+g): θ+ %g, θ− %g around the default %g, want them on either side, θ+ on Δ_0's", g.Name, d[i], plus[i], minus[i], def[i])
		}
	}
}
