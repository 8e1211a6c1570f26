// Package genomes maps each game's evaluation weights to a vector of named, bounded genes,
// and implements eaopt.Genome (github.com/MaxHalford/eaopt v0.4.2) over such vectors with
// the identity and parents every individual needs for exact lineage.
//
// A game is tuned through its Layout: the genes' names, bounds, the paper's defaults and
// a scale (weights spanning orders of magnitude, such as the Connect6 road tables
// 1 … 1 000 000, mutate in log space). The registry (Lookup) maps a game's name to its
// engine and layout.
package genomes

import (
	"fmt"
	"math"

	"evotune/engine"
	"evotune/engine/amazons"
	"evotune/engine/connect6"
	"evotune/engine/gomoku"
)

// Scale is how a gene is mutated.
type Scale int8

const (
	// Linear genes mutate by adding Gaussian noise proportional to their range.
	Linear Scale = iota
	// Log genes mutate by multiplying by exp(Gaussian noise): steps are relative, so a
	// gene of 6 000 and one of 20 change by the same factor.
	Log
)

// String returns "linear" or "log".
func (s Scale) String() string {
	if s == Log {
		return "log"
	}
	return "linear"
}

// Gene describes one tunable number.
type Gene struct {
	// Name is the gene's name in the database and weights files, e.g. "threat_4".
	Name string `json:"name"`
	// Min and Max bound the gene; mutation and crossover never leave [Min, Max].
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// Default is the paper's value.
	Default float64 `json:"default"`
	Scale   Scale   `json:"scale"`
	// Integer genes are rounded after every operator.
	Integer bool `json:"integer,omitempty"`
	// Fixed genes keep their default (the Connect6 six-stone entries, unless freed).
	Fixed bool `json:"fixed,omitempty"`
}

// Layout is the gene vector of one game and its mapping to and from engine weights.
type Layout struct {
	// Game is the registry name.
	Game string
	// Genes in vector order.
	Genes       []Gene
	toWeights   func(x []float64) engine.Weights
	fromWeights func(w engine.Weights) ([]float64, error)
}

// Defaults returns the paper's weights as a gene vector.
func (l *Layout) Defaults() []float64 {
	x := make([]float64, len(l.Genes))
	for i, g := range l.Genes {
		x[i] = g.Default
	}
	return x
}

// Weights converts a gene vector to validated engine weights. The error names a wrong
// length or the gene that is out of its bounds.
func (l *Layout) Weights(x []float64) (engine.Weights, error) {
	if len(x) != len(l.Genes) {
		return nil, fmt.Errorf("%s genome: want %d genes, got %d", l.Game, len(l.Genes), len(x))
	}
	for i, g := range l.Genes {
		if err := engine.CheckValue(g.Name, x[i], g.Min, g.Max); err != nil && !g.Fixed {
			return nil, fmt.Errorf("%s genome: %w", l.Game, err)
		}
	}
	w := l.toWeights(x)
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("%s genome: %w", l.Game, err)
	}
	return w, nil
}

// Vector converts engine weights of the layout's game to a gene vector (values outside a
// gene's bounds are kept: Clamp them if needed).
func (l *Layout) Vector(w engine.Weights) ([]float64, error) {
	if w.Game() != l.Game {
		return nil, fmt.Errorf("weights of %s given to the %s layout", w.Game(), l.Game)
	}
	return l.fromWeights(w)
}

// Named returns the genes as a name → value map (the database's JSON form).
func (l *Layout) Named(x []float64) map[string]float64 {
	m := make(map[string]float64, len(x))
	for i, g := range l.Genes {
		m[g.Name] = x[i]
	}
	return m
}

// FromNamed is the inverse of Named; the error names a missing or unknown gene.
func (l *Layout) FromNamed(m map[string]float64) ([]float64, error) {
	x := make([]float64, len(l.Genes))
	for i, g := range l.Genes {
		v, ok := m[g.Name]
		if !ok {
			return nil, fmt.Errorf("%s genome: gene %s missing", l.Game, g.Name)
		}
		x[i] = v
	}
	if len(m) != len(x) {
		for k := range m {
			if l.index(k) < 0 {
				return nil, fmt.Errorf("%s genome: unknown gene %s", l.Game, k)
			}
		}
	}
	return x, nil
}

func (l *Layout) index(name string) int {
	for i, g := range l.Genes {
		if g.Name == name {
			return i
		}
	}
	return -1
}

// Clamp puts every gene inside its bounds, rounds integer genes and resets fixed genes to
// their defaults, in place.
func (l *Layout) Clamp(x []float64) {
	for i, g := range l.Genes {
		switch {
		case g.Fixed:
			x[i] = g.Default
			continue
		case math.IsNaN(x[i]):
			x[i] = g.Default
		}
		x[i] = math.Max(g.Min, math.Min(g.Max, x[i]))
		if g.Integer {
			x[i] = math.Round(x[i])
		}
	}
}

// Free returns a copy of the layout with the named fixed genes made tunable; the error
// names an unknown gene.
func (l *Layout) Free(names ...string) (*Layout, error) {
	c := *l
	c.Genes = append([]Gene(nil), l.Genes...)
	for _, n := range names {
		i := c.index(n)
		if i < 0 {
			return nil, fmt.Errorf("%s layout: no gene %q", l.Game, n)
		}
		c.Genes[i].Fixed = false
	}
	return &c, nil
}

// Connect6Layout: value_1…value_6 and threat_1…threat_6, f(n) and g(n) of Table 1
// (000_9752b1518ee42188.txt §4), log scale in [0.1, 1e8]; n = 6 (six in a road, the win)
// is fixed unless freed.
func Connect6Layout() *Layout {
	d := connect6.DefaultWeights()
	var genes []Gene
	for _, tab := range []struct {
		name string
		v    []float64
	}{{"value", d.Value}, {"threat", d.Threat}} {
		for n := 1; n <= connect6.K; n++ {
			genes = append(genes, Gene{Name: fmt.Sprintf("%s_%d", tab.name, n), Min: 0.1, Max: 1e8,
				Default: tab.v[n-1], Scale: Log, Fixed: n == connect6.K})
		}
	}
	return &Layout{Game: connect6.Name, Genes: genes,
		toWeights: func(x []float64) engine.Weights {
			return &connect6.Weights{Value: append([]float64(nil), x[:6]...), Threat: append([]float64(nil), x[6:12]...)}
		},
		fromWeights: func(w engine.Weights) ([]float64, error) {
			cw := w.(*connect6.Weights)
			return append(append([]float64(nil), cw.Value...), cw.Threat...), nil
		}}
}

// GomokuLayout: the 13 pattern scores of Table 1 (001_4cd63e63655ef194.txt §1.3), log
// scale in [1, 1e7], and K1, K2 (§2), log scale in [0.05, 20].
func GomokuLayout() *Layout {
	d := gomoku.DefaultWeights()
	var genes []Gene
	for i, name := range gomoku.PatternNames {
		genes = append(genes, Gene{Name: name, Min: 1, Max: 1e7, Default: d.Scores[i], Scale: Log})
	}
	genes = append(genes,
		Gene{Name: "k1", Min: 0.05, Max: 20, Default: d.K1, Scale: Log},
		Gene{Name: "k2", Min: 0.05, Max: 20, Default: d.K2, Scale: Log})
	return &Layout{Game: gomoku.Name, Genes: genes,
		toWeights: func(x []float64) engine.Weights {
			w := &gomoku.Weights{K1: x[gomoku.NumPatterns], K2: x[gomoku.NumPatterns+1]}
			copy(w.Scores[:], x)
			return w
		},
		fromWeights: func(w engine.Weights) ([]float64, error) {
			gw := w.(*gomoku.Weights)
			return append(append([]float64(nil), gw.Scores[:]...), gw.K1, gw.K2), nil
		}}
}

// AmazonsLayout: a_1…a_5 in [−200, 200] and b_1…b_5 in [−10, 10] of k_i(t) = a_i + b_i·t,
// switch_turn (integer, [1, 60]), late_k1 [−50, 50] and equal [−1, 1]
// (004_5fa71e7c84b0e80d.txt §4), all linear.
func AmazonsLayout() *Layout {
	d := amazons.DefaultWeights()
	var genes []Gene
	for i := 0; i < 5; i++ {
		genes = append(genes, Gene{Name: fmt.Sprintf("a_%d", i+1), Min: -200, Max: 200, Default: d.A[i]})
	}
	for i := 0; i < 5; i++ {
		genes = append(genes, Gene{Name: fmt.Sprintf("b_%d", i+1), Min: -10, Max: 10, Default: d.B[i]})
	}
	genes = append(genes,
		Gene{Name: "switch_turn", Min: 1, Max: 60, Default: d.SwitchTurn, Integer: true},
		Gene{Name: "late_k1", Min: -50, Max: 50, Default: d.LateK1},
		Gene{Name: "equal", Min: -1, Max: 1, Default: d.Equal})
	return &Layout{Game: amazons.Name, Genes: genes,
		toWeights: func(x []float64) engine.Weights {
			return &amazons.Weights{A: append([]float64(nil), x[0:5]...), B: append([]float64(nil), x[5:10]...),
				SwitchTurn: x[10], LateK1: x[11], Equal: x[12]}
		},
		fromWeights: func(w engine.Weights) ([]float64, error) {
			aw := w.(*amazons.Weights)
			x := append(append([]float64(nil), aw.A...), aw.B...)
			return append(x, aw.SwitchTurn, aw.LateK1, aw.Equal), nil
		}}
}
