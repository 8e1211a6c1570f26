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
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

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
	// scale anchor, unless freed), or Held when HeldSet.
	Fixed bool `json:"fixed,omitempty"`
	// Held, when HeldSet, is the value a fixed gene keeps instead of its default: a gene
	// frozen while a run goes on (resume --fix) keeps the value the champion had.
	Held    float64 `json:"held,omitempty"`
	HeldSet bool    `json:"held_set,omitempty"`
	// Note says why a gene is fixed or what is known of its effect on play.
	Note string `json:"note,omitempty"`
	// Option is the outside engine's own name of the parameter when it is not Name (a UCI
	// option such as "King Safety"): sent verbatim as the protocol's option name.
	Option string `json:"option,omitempty"`
	// CEnd and REnd, if set, are this gene's SPSA perturbation and learning rate at the last
	// step in the gene's own units (an OpenBench/fishtest parameter's c_end and r_end);
	// 0 = the run's.
	CEnd float64 `json:"c_end,omitempty"`
	REnd float64 `json:"r_end,omitempty"`
}

// SpinBounds returns each gene's bounds as whole numbers (min rounded up, max down), by
// gene name: what evotune's own engine declares as its UCI spin options' min and max
// (wire.Config.OptionBounds).
func (l *Layout) SpinBounds() map[string][2]int64 {
	m := make(map[string][2]int64, len(l.Genes))
	for _, g := range l.Genes {
		m[g.Name] = [2]int64{int64(math.Ceil(g.Min)), int64(math.Floor(g.Max))}
	}
	return m
}

// OptionName is the name an outside engine knows the gene by: Option, else Name.
func (g Gene) OptionName() string {
	if g.Option != "" {
		return g.Option
	}
	return g.Name
}

// Layout is the gene vector of one game and its mapping to and from engine weights.
type Layout struct {
	// Game is the registry name.
	Game string
	// Genes in vector order.
	Genes []Gene
	// builtin is the game whose weights the genes are, by name (weightsByName); nil for
	// a layout file's genes, which an outside engine reads its own way.
	builtin engine.Game
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
	if l.builtin == nil {
		return nil, fmt.Errorf("%s genome: %w", l.Game, ErrNoBuiltinWeights)
	}
	for i, g := range l.Genes {
		if err := engine.CheckValue(g.Name, x[i], g.Min, g.Max); err != nil && !g.Fixed {
			return nil, fmt.Errorf("%s genome: %w", l.Game, err)
		}
	}
	obj, err := weightsObject(l.builtin.DefaultWeights())
	if err != nil {
		return nil, fmt.Errorf("%s genome: %w", l.Game, err)
	}
	for i, g := range l.Genes {
		if err := obj.set(g.Name, x[i]); err != nil {
			return nil, fmt.Errorf("%s genome: %w", l.Game, err)
		}
	}
	raw, err := json.Marshal(obj)
	if err == nil {
		var w engine.Weights
		if w, err = l.builtin.DecodeWeights(raw); err == nil {
			return w, nil
		}
	}
	return nil, fmt.Errorf("%s genome: %w", l.Game, err)
}

// Vector converts engine weights of the layout's game to a gene vector (values outside a
// gene's bounds are kept: Clamp them if needed).
func (l *Layout) Vector(w engine.Weights) ([]float64, error) {
	if w.Game() != l.Game {
		return nil, fmt.Errorf("weights of %s given to the %s layout", w.Game(), l.Game)
	}
	if l.builtin == nil {
		return nil, fmt.Errorf("%s layout: %w", l.Game, ErrNoBuiltinWeights)
	}
	obj, err := weightsObject(w)
	if err != nil {
		return nil, fmt.Errorf("%s layout: %w", l.Game, err)
	}
	x := make([]float64, len(l.Genes))
	for i, g := range l.Genes {
		if x[i], err = obj.get(g.Name); err != nil {
			return nil, fmt.Errorf("%s layout: %w", l.Game, err)
		}
	}
	return x, nil
}

// weightsObj is a weights file's "weights" object, decoded: the genes of a built-in
// layout are its numbers by name, gene NAME the number NAME and gene KEY_N the N-th entry
// (from 1) of the array KEY ("value_3" is value[2], "a_1" is a[0], "k1" is k1), as
// docs/json.md names them; so no layout indexes a gene vector by hand.
type weightsObj map[string]any

// weightsObject is w's object (its JSON, decoded).
func weightsObject(w engine.Weights) (weightsObj, error) {
	raw, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	var obj weightsObj
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// slot finds gene name's number: the array and index, or (nil, −1) for the number name
// itself; the error names a gene that is no number of the object.
func (o weightsObj) slot(name string) ([]any, int, error) {
	if _, ok := o[name].(float64); ok {
		return nil, -1, nil
	}
	if i := strings.LastIndexByte(name, '_'); i > 0 {
		arr, _ := o[name[:i]].([]any)
		k, err := strconv.Atoi(name[i+1:])
		if err == nil && strconv.Itoa(k) == name[i+1:] && k >= 1 && k <= len(arr) {
			if _, ok := arr[k-1].(float64); ok {
				return arr, k - 1, nil
			}
		}
	}
	return nil, 0, fmt.Errorf("gene %s: no such number in the weights", name)
}

// get is gene name's value.
func (o weightsObj) get(name string) (float64, error) {
	arr, i, err := o.slot(name)
	switch {
	case err != nil:
		return 0, err
	case arr == nil:
		return o[name].(float64), nil
	}
	return arr[i].(float64), nil
}

// set puts v as gene name's value.
func (o weightsObj) set(name string, v float64) error {
	arr, i, err := o.slot(name)
	switch {
	case err != nil:
		return err
	case arr == nil:
		o[name] = v
	default:
		arr[i] = v
	}
	return nil
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
			x[i] = g.FixedValue()
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
		if !fixed {
			c.Genes[i].HeldSet, c.Genes[i].Held = false, 0
		}
	}
	return &c, nil
}

// FixedValue is the value a fixed gene keeps: Held when HeldSet, else Default.
func (g Gene) FixedValue() float64 {
	if g.HeldSet {
		return g.Held
	}
	return g.Default
}

// Hold returns a copy of the layout with each named gene fixed at its value in values
// (resume --fix: a gene frozen at the champion's value); the error names an unknown gene
// or a value outside the gene's bounds.
func (l *Layout) Hold(values map[string]float64) (*Layout, error) {
	c := *l
	c.Genes = append([]Gene(nil), l.Genes...)
	for n, v := range values {
		i := c.index(n)
		if i < 0 {
			return nil, fmt.Errorf("%s layout: no gene %q", l.Game, n)
		}
		g := &c.Genes[i]
		if !(v >= g.Min && v <= g.Max) {
			return nil, fmt.Errorf("%s layout: gene %s held at %g, outside %g–%g", l.Game, n, v, g.Min, g.Max)
		}
		g.Fixed, g.Held, g.HeldSet = true, v, true
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
