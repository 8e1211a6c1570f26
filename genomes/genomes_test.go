package genomes

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
)

func TestLayoutsRoundTrip(t *testing.T) {
	for _, name := range Names() {
		e, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		l := e.Layout
		w, err := l.Weights(l.Defaults())
		if err != nil {
			t.Fatalf("%s defaults: %v", name, err)
		}
		if fmt.Sprint(w) != fmt.Sprint(e.Game.DefaultWeights()) {
			t.Fatalf("%s: defaults map to %v, not the paper's %v", name, w, e.Game.DefaultWeights())
		}
		x, err := l.Vector(w)
		if err != nil || fmt.Sprint(x) != fmt.Sprint(l.Defaults()) {
			t.Fatalf("%s: Vector(Weights(defaults)) = %v, %v", name, x, err)
		}
		back, err := l.FromNamed(l.Named(x))
		if err != nil || fmt.Sprint(back) != fmt.Sprint(x) {
			t.Fatalf("%s: named round trip %v, %v", name, back, err)
		}
		named := l.Named(x)
		named["bogus"] = 1
		if _, err := l.FromNamed(named); err == nil || !strings.Contains(err.Error(), "bogus") {
			t.Fatalf("%s: unknown gene accepted: %v", name, err)
		}
		if _, err := l.Weights(x[1:]); err == nil {
			t.Fatalf("%s: short vector accepted", name)
		}
	}
	if _, err := Lookup("chess"); err == nil || !strings.Contains(err.Error(), "connect6") {
		t.Fatalf("unknown game: %v", err)
	}
}

// TestOperatorsStayInBounds: thousands of mutations and crossovers never leave the
// bounds, never touch fixed genes, round integer genes, and record lineage.
func TestOperatorsStayInBounds(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, name := range Names() {
		e, _ := Lookup(name)
		l := e.Layout
		a := &Genome{Layout: l, X: l.Defaults(), ID: "a", Mutation: DefaultMutation}
		b := &Genome{Layout: l, X: l.Random(rng), ID: "b", Mutation: DefaultMutation}
		for i := 0; i < 2000; i++ {
			before := append([]float64(nil), a.X...)
			a.Mutate(rng)
			if fmt.Sprint(before) == fmt.Sprint(a.X) && i < 50 {
				// A mutation changes at least one gene unless it was clamped at a bound.
				changed := false
				for j := range before {
					changed = changed || before[j] != a.X[j]
				}
				if !changed && !atBound(l, before) {
					t.Fatalf("%s: mutation changed nothing", name)
				}
			}
			if i%10 == 0 {
				a.Crossover(b, rng)
				if len(a.Parents) != 2 || a.Op != OpCrossover {
					t.Fatalf("%s: crossover lineage %v %s", name, a.Parents, a.Op)
				}
			}
			for _, g := range []*Genome{a, b} {
				for j, gene := range l.Genes {
					v := g.X[j]
					if v < gene.Min || v > gene.Max || math.IsNaN(v) {
						t.Fatalf("%s: gene %s = %v outside [%v, %v]", name, gene.Name, v, gene.Min, gene.Max)
					}
					if gene.Fixed && v != gene.Default {
						t.Fatalf("%s: fixed gene %s changed to %v", name, gene.Name, v)
					}
					if gene.Integer && v != math.Round(v) {
						t.Fatalf("%s: integer gene %s = %v", name, gene.Name, v)
					}
				}
				if _, err := l.Weights(g.X); err != nil {
					t.Fatalf("%s: operators made invalid weights: %v", name, err)
				}
			}
		}
		c := a.Clone().(*Genome)
		c.X[0]++
		if c.ID != a.ID || a.X[0] == c.X[0] {
			t.Fatal("Clone shares genes or loses identity")
		}
	}
}

func atBound(l *Layout, x []float64) bool {
	for i, g := range l.Genes {
		if !g.Fixed && (x[i] == g.Min || x[i] == g.Max) {
			return true
		}
	}
	return false
}

func TestFreeFixedGene(t *testing.T) {
	e, _ := Lookup("connect6")
	l, err := e.Layout.Free("value_6")
	if err != nil {
		t.Fatal(err)
	}
	if l.Genes[5].Fixed || !e.Layout.Genes[5].Fixed {
		t.Fatal("Free must unfix the copy only")
	}
	if _, err := e.Layout.Free("value_7"); err == nil {
		t.Fatal("unknown gene freed")
	}
}

func TestIndividualID(t *testing.T) {
	id := IndividualID(12, 3, 7)
	if id != "12-g3-07" {
		t.Fatalf("id %s", id)
	}
	if r, err := RunOfIndividual(id); err != nil || r != 12 {
		t.Fatalf("run of %s: %d %v", id, r, err)
	}
	for _, bad := range []string{"", "x-g1-01", "0-g1-01", "3", "3-x1-01"} {
		if _, err := RunOfIndividual(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
