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
	// Fixed genes keep their default (the Connect6 six-stone entries and each game's
	// scale anchor, unless freed).
	Fixed bool `json:"fixed,omitempty"`
	// Note says why a gene is fixed or what is known of its effect on play.
	Note string `json:"note,omitempty"`
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
// length or the gene that is out of its bounds; a layout read from a layout file has no
// built-in weights (ErrNoBuiltinWeights).
func (l *Layout) Weights(x []float64) (engine.Weights, error) {
	if len(x) != len(l.Genes) {
		return nil, fmt.Errorf("%s genome: want %d genes, got %d", l.Game, len(l.Genes), len(x))
	}
	if l.toWeights == nil {
		return nil, fmt.Errorf("%s genome: %w", l.Game, ErrNoBuiltinWeights)
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
	if l.fromWeights == nil {
		return nil, fmt.Errorf("%s layout: %w", l.Game, ErrNoBuiltinWeights)
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
func (l *Layout) Free(names ...string) (*Layout, error) { return l.setFixed(false, names) }

// Fix returns a copy of the layout with the named genes held at their defaults (e.g.
// gomoku k1,k2 to tune the pattern scores alone); the error names an unknown gene.
func (l *Layout) Fix(names ...string) (*Layout, error) { return l.setFixed(true, names) }

// WithFixed applies Free(free...) and then Fix(fix...), as a run's configuration does.
func (l *Layout) WithFixed(free, fix []string) (*Layout, error) {
	c, err := l.Free(free...)
	if err != nil {
		return nil, err
	}
	return c.Fix(fix...)
}

func (l *Layout) setFixed(fixed bool, names []string) (*Layout, error) {
	c := *l
	c.Genes = append([]Gene(nil), l.Genes...)
	for _, n := range names {
		i := c.index(n)
		if i < 0 {
			return nil, fmt.Errorf("%s layout: no gene %q", l.Game, n)
		}
		c.Genes[i].Fixed = fixed
	}
	return &c, nil
}

// FreeCount is the number of genes the GA may change.
func (l *Layout) FreeCount() int {
	n := 0
	for _, g := range l.Genes {
		if !g.Fixed {
			n++
		}
	}
	return n
}
