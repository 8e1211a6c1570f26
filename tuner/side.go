package tuner

import (
	"encoding/binary"
	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner/outside"
	"evotune/tuner/schedule"
	"fmt"
	"math"
	"sync"
)

// side returns what plays the gene vector x: the built-in engine's weights, or the
// outside engine with x's values.
func (t *Tuner) side(x []float64) (engine.Weights, *protocol.ExternalSpec, error) {
	if t.outside != nil {
		spec, err := t.outside.Spec(x)
		return nil, spec, err
	}
	return t.weights.of(t.plan.Layout, x)
}

// weightsMemo keeps the built-in engine's weights of the gene vectors asked lately:
// Layout.Weights goes through the engine's JSON, and a run loop that plans a guessed
// generation several times (the run loop's lookAhead) asks the same vectors again. It holds at
// most weightsMemoSize vectors, emptied when full.
type weightsMemo struct {
	mu sync.Mutex
	m  map[string]engine.Weights
}

const weightsMemoSize = 4096

// of returns layout l's weights of gene vector x, from the memo where it holds them (the
// same vector bit for bit); an error is never kept.
func (w *weightsMemo) of(l *genomes.Layout, x []float64) (engine.Weights, *protocol.ExternalSpec, error) {
	key := make([]byte, 0, 8*len(x))
	for _, v := range x {
		key = binary.LittleEndian.AppendUint64(key, math.Float64bits(v))
	}
	w.mu.Lock()
	got, ok := w.m[string(key)]
	w.mu.Unlock()
	if ok {
		return got, nil, nil
	}
	weights, err := l.Weights(x)
	if err != nil {
		return nil, nil, err
	}
	w.mu.Lock()
	if w.m == nil || len(w.m) >= weightsMemoSize {
		w.m = map[string]engine.Weights{}
	}
	w.m[string(key)] = weights
	w.mu.Unlock()
	return weights, nil, nil
}

// baselineRef is the reference "baseline": the paper's weights, or the outside engine
// with the layout's defaults.
func (t *Tuner) baselineRef() (schedule.Opponent, error) {
	x := t.plan.Layout.Defaults()
	w, ext, err := t.side(x)
	if err != nil {
		return schedule.Opponent{}, fmt.Errorf("baseline: %w", err)
	}
	return schedule.Opponent{ID: "baseline", W: w, X: x, Ext: ext}, nil
}

// Outside returns the run's outside engine (nil: the built-in engine is tuned).
func (t *Tuner) Outside() *outside.Outside { return t.outside }

// RunLayout returns the run's gene layout (with the genes the config freed or fixed).
func (t *Tuner) RunLayout() *genomes.Layout { return t.plan.Layout }
