package genomes

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	randv2 "math/rand/v2"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/gomoku"
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
	if _, err := Lookup("shogi"); err == nil || !strings.Contains(err.Error(), "connect6") {
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

// TestScaleAnchors checks the reason each layout fixes a scale anchor: multiplying the
// anchored group of genes by one factor must leave every move of a game unchanged. If it
// did change play, the anchor would remove a real direction from the search space.
func TestScaleAnchors(t *testing.T) {
	groups := map[string][][]string{
		"connect6": {{"value_1", "value_2", "value_3", "value_4", "value_5", "value_6", "threat_1", "threat_2", "threat_3", "threat_4", "threat_5", "threat_6"}},
		"gomoku":   {gomokuPatterns(), {"k1", "k2"}},
		"amazons":  {{"a_1", "a_2", "a_3", "a_4", "a_5", "b_1", "b_2", "b_3", "b_4", "b_5"}},
	}
	for _, name := range Names() {
		e, _ := Lookup(name)
		l := e.Layout
		rng := rand.New(rand.NewSource(3))
		opp, err := l.Weights(l.Perturb(DefaultMutation, rng))
		if err != nil {
			t.Fatal(err)
		}
		for _, group := range groups[name] {
			x := l.Defaults()
			y := l.Defaults()
			for _, g := range group {
				i := l.index(g)
				if i < 0 {
					t.Fatalf("%s: no gene %s", name, g)
				}
				y[i] *= 2.5
			}
			wx, err1 := l.Weights(x)
			wy, err2 := l.Weights(y)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			lim := e.Game.DefaultLimits()
			lim.Depth = 2
			for k := 0; k < 3; k++ {
				b, _ := e.Game.NewBoard(0)
				opening := e.Game.(engine.Opener).RandomOpening(b, randv2.New(randv2.NewPCG(uint64(k), 9)))
				var moves [2]string
				for j, w := range []engine.Weights{wx, wy} {
					pa, _ := e.Game.NewPlayer(w, lim)
					pb, _ := e.Game.NewPlayer(opp, lim)
					b, _ := e.Game.NewBoard(0)
					rec, err := engine.PlayGame(context.Background(), b, pa, pb, engine.RefereeOptions{Opening: opening, MaxPlies: 60})
					if err != nil {
						t.Fatal(err)
					}
					moves[j] = strings.Join(rec.Moves, " ")
				}
				if moves[0] != moves[1] {
					t.Fatalf("%s: scaling %v by 2.5 changed the game from opening %v:\n%s\n%s", name, group, opening, moves[0], moves[1])
				}
			}
		}
	}
}

func gomokuPatterns() []string { return gomoku.PatternNames[:] }

// TestOffering: the registry answers which games offer a capability, by the interfaces
// their engines implement (no list of names kept beside them).
func TestOffering(t *testing.T) {
	if got := Offering[engine.Ruled](); len(got) != 1 || got[0] != "gomoku" {
		t.Errorf("games with rule variants: %v, want [gomoku]", got)
	}
	if got := Offering[engine.Perfter](); len(got) != len(Names()) {
		t.Errorf("games with perft: %v, want all of %v", got, Names())
	}
	if got := Offering[engine.PGNWriter](); len(got) != 1 || got[0] != "chess" {
		t.Errorf("games with PGN records: %v, want [chess]", got)
	}
	if got := Offering[engine.SGFWriter](); len(got) != 2 || got[0] != "amazons" || got[1] != "gomoku" {
		t.Errorf("games with an SGF number: %v, want [amazons gomoku]", got)
	}
}

// flatten names every number of a weights object as a built-in layout's genes do, written
// independently of the layout: "k1" for a number, "value_3" for value[2].
func flatten(t *testing.T, w engine.Weights) map[string]float64 {
	t.Helper()
	raw, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for k, v := range obj {
		switch v := v.(type) {
		case float64:
			out[k] = v
		case []any:
			for i, e := range v {
				out[fmt.Sprintf("%s_%d", k, i+1)] = e.(float64)
			}
		}
	}
	return out
}

// TestGenesAreNamedNumbers: every gene of a built-in layout, moved alone, moves exactly the
// weights' number of its name, both ways (Weights and Vector).
func TestGenesAreNamedNumbers(t *testing.T) {
	for _, name := range Names() {
		e, _ := Lookup(name)
		l := e.Layout
		base := flatten(t, e.Game.DefaultWeights())
		for i, g := range l.Genes {
			x := l.Defaults()
			x[i] = g.Min
			if g.Min == g.Default {
				x[i] = g.Max
			}
			w, err := l.Weights(x)
			if err != nil {
				t.Fatalf("%s %s = %v: %v", name, g.Name, x[i], err)
			}
			got := flatten(t, w)
			for k, v := range got {
				want := base[k]
				if k == g.Name {
					want = x[i]
				}
				if v != want {
					t.Errorf("%s: gene %s = %v set %s to %v (want %v)", name, g.Name, x[i], k, v, want)
				}
			}
			if back, err := l.Vector(w); err != nil || back[i] != x[i] {
				t.Errorf("%s: Vector gives %s = %v (%v), want %v", name, g.Name, back, err, x[i])
			}
		}
	}
}
