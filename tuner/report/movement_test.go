package report_test

import (
	"strings"
	"testing"

	"evotune/genomes"
	_ "evotune/tuner" // the methods, registered: a summary speaks its run's method
	"evotune/tuner/config"
	"evotune/tuner/record"
	"evotune/tuner/report"
)

// TestMovement: a champion that changes by events (a hall of fame) is improving only when
// it changed in the run's last quarter; one that moves every generation (SPSA's θ) only
// when it moved there at least a fifth of its whole distance. The genes it moved most come
// first, each with its baseline and final value, and the text says which case holds.
func TestMovement(t *testing.T) {
	l := &genomes.Layout{Genes: []genomes.Gene{
		{Name: "pawn", Min: 0, Max: 200, Default: 100, Integer: true},
		{Name: "knight", Min: 100, Max: 500, Default: 300, Integer: true},
		{Name: "ratio", Min: 0.1, Max: 10, Default: 1, Scale: genomes.Log},
		{Name: "anchor", Min: 0, Max: 10, Default: 5, Fixed: true},
	}}
	base := l.Defaults()
	at := func(p, k, r float64) []float64 { return []float64{p, k, r, 5} }
	repeat := func(x []float64, n int) [][]float64 {
		var out [][]float64
		for range n {
			out = append(out, x)
		}
		return out
	}
	// A hall of fame admitted in generation 2 of 16 and never after: stalled.
	stalled := append(repeat(base, 2), repeat(at(60, 300, 1), 14)...)
	m := report.MovementOf(l, base, stalled, 0)
	if m.Improving || m.LastChange != 2 || m.Window != 4 || m.Recent != 0 || len(m.Genes) != 1 || m.Genes[0] != (record.GeneMove{Name: "pawn", From: 100, To: 60}) {
		t.Fatalf("stalled hall of fame: %+v", m)
	}
	// The same run admitting again in generation 14: improving.
	late := append(append([][]float64(nil), stalled[:14]...), at(50, 320, 1), at(50, 320, 1))
	if m := report.MovementOf(l, base, late, 0); !m.Improving || m.LastChange != 14 || m.Genes[0].Name != "pawn" || m.Genes[1] != (record.GeneMove{Name: "knight", From: 300, To: 320}) {
		t.Fatalf("late admission: %+v", m)
	}
	// The stalled champion stepping a unit away and back within the last quarter (θ's
	// integer gene rounding to a neighbour for a few steps): changed late, but not
	// improving.
	back := append(append(append([][]float64(nil), stalled[:13]...), at(61, 300, 1), at(61, 300, 1)), at(60, 300, 1))
	if m := report.MovementOf(l, base, back, 0); m.Improving || m.LastChange != 15 || m.Recent != 0 {
		t.Fatalf("a step away and back: %+v", m)
	}
	// θ drifting every step to the end: improving; θ that stopped drifting and only
	// jitters by a unit: not, though it changed in its last step.
	var drift, settled [][]float64
	for k := range 20 {
		drift = append(drift, at(100-2*float64(k+1), 300, 1))
		settled = append(settled, at(max(60, 100-4*float64(k+1))+float64(k%2), 300, 1))
	}
	if m := report.MovementOf(l, base, drift, 0); !m.Improving || m.LastChange != 19 || m.Window != 5 {
		t.Fatalf("drifting θ: %+v", m)
	}
	if m := report.MovementOf(l, base, settled, 0); m.Improving || m.LastChange != 19 {
		t.Fatalf("settled θ: %+v", m)
	}
	// A resumed session's path starts at its first generation: no change is assumed there.
	if m := report.MovementOf(l, base, repeat(at(60, 300, 2), 5), 30); m.LastChange != -1 || m.Improving || m.From != 30 || len(m.Genes) != 2 || m.Genes[1] != (record.GeneMove{Name: "ratio", From: 1, To: 2}) {
		t.Fatalf("resumed, unchanged: %+v", m)
	}
	if report.MovementOf(l, base, nil, 0) != nil {
		t.Fatal("an empty path measured something")
	}
	s := report.Summary{RunID: 4, Baseline: "the layout's defaults", Movement: report.MovementOf(l, base, stalled, 0)}
	if txt := s.MovementText(); !strings.Contains(txt, "moved 0.067 from the layout's defaults") || !strings.Contains(txt, "most in pawn 100 → 60") ||
		!strings.Contains(txt, "no longer improving at the end: it last changed in generation 2 and moved 0.000 in the last 4 generations of the 16") {
		t.Errorf("stalled text: %s", txt)
	}
	s.Method, s.Movement = config.MethodSPSA, report.MovementOf(l, base, drift, 0)
	if txt := s.MovementText(); !strings.Contains(txt, "still improving at the end: it last changed in SPSA step 19") || !strings.Contains(txt, "evotune resume 4 with a larger --budget-games") {
		t.Errorf("drifting text: %s", txt)
	}
	if (report.Summary{Movement: report.MovementOf(l, base, repeat(base, 3), 0)}).MovementText() != "" {
		t.Error("a champion that never left the baseline has a movement text")
	}
}
