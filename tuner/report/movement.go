package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/record"
)

// MovementOf measures path, the champion's genes after each of a run's generations from
// generation from on, against the baseline's genes base in layout l; nil for an empty path.
func MovementOf(l *genomes.Layout, base []float64, path [][]float64, from int) *record.Movement {
	n := len(path)
	if n == 0 {
		return nil
	}
	end := path[n-1]
	m := &record.Movement{Distance: l.Distance(base, end), From: from, Generations: n, LastChange: -1}
	type share struct {
		i int
		s float64
	}
	var moved []share
	for i, g := range l.Genes {
		if g.Fixed || end[i] == base[i] {
			continue
		}
		s := math.Abs(end[i]-base[i]) / (g.Max - g.Min)
		if g.Scale == genomes.Log {
			s = math.Abs(math.Log(end[i])-math.Log(base[i])) / math.Log(g.Max/g.Min)
		}
		moved = append(moved, share{i, s})
	}
	sort.SliceStable(moved, func(a, b int) bool { return moved[a].s > moved[b].s })
	for _, s := range moved[:min(3, len(moved))] {
		m.Genes = append(m.Genes, record.GeneMove{Name: l.Genes[s.i].Name, From: base[s.i], To: end[s.i]})
	}
	changes := 0
	prev := base
	if from > 0 {
		prev = path[0] // the champion before the path is unknown: its first generation counts as no change
	}
	for k, x := range path {
		if l.Distance(prev, x) > 0 {
			changes++
			m.LastChange = from + k
		}
		prev = x
	}
	m.Window = max(1, (n+3)/4)
	before := base
	if n > m.Window {
		before = path[n-1-m.Window]
	}
	m.Recent = l.Distance(before, end)
	if 2*changes < n {
		// Changed within the window, and not back to where the window began (an integer
		// gene stepping to a neighbour and back is no progress).
		m.Improving = m.LastChange >= from+n-m.Window && m.Recent > 0
	} else {
		m.Improving = m.Recent > 0 && m.Recent >= m.Distance/5
	}
	return m
}

// MovementText says how far the champion moved from the baseline, in which genes most, and
// whether it was still moving when the run ended (so whether more games may help); "" when
// nothing was measured or the champion never left the baseline.
func (s Summary) MovementText() string {
	m := s.Movement
	if m == nil || (m.Distance == 0 && m.LastChange < 0) {
		return ""
	}
	meth, _ := config.MethodOf(s.Method)
	t := fmt.Sprintf("the champion moved %.3f from %s (the mean change of a free gene, as a share of its range)", m.Distance, s.Baseline)
	if len(m.Genes) > 0 {
		var g []string
		for _, x := range m.Genes {
			g = append(g, x.Name+" "+geneText(x.From)+" → "+geneText(x.To))
		}
		t += ", most in " + strings.Join(g, ", ")
	}
	window := fmt.Sprintf("the last %s of the %d", Plural(m.Window, meth.Saved), m.Generations)
	if m.From > 0 {
		window += " this session ran"
	}
	last := "it did not change"
	if m.LastChange >= 0 {
		last = fmt.Sprintf("it last changed in %s %d", meth.Saved, m.LastChange)
	}
	if m.Improving {
		return t + fmt.Sprintf(";\nstill improving at the end: %s and moved %.3f in %s — more games may take it further (evotune resume %d with a larger --budget-games)", last, m.Recent, window, s.RunID)
	}
	return t + fmt.Sprintf(";\nno longer improving at the end: %s and moved %.3f in %s — more games at these settings are unlikely to move it", last, m.Recent, window)
}

// geneText writes a gene's value as briefly as it reads: whole numbers without decimals,
// others to 4 significant digits.
func geneText(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}
