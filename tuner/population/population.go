// Package population holds what the population methods (the GA, with or without
// generations in play, and the steady-state GA) share: rank tournament selection, the
// weighted centre of genomes (a hall of fame's, the better half of a ranked population's)
// and a generation's ranked fields (individuals, fitness statistics, diversity).
package population

import (
	"math"
	"math/rand"

	"gonum.org/v1/gonum/stat"

	"evotune/genomes"
	"evotune/tuner/record"
)

// CentreWeights are the weights of the m members of a hall of fame (in admission order)
// in its Centre: evolution strategies' recombination weights (Hansen, "The CMA Evolution
// Strategy: A Tutorial", 2016, eq. 49: w_i ∝ ln(μ + ½) − ln i for the i-th best of μ),
// ranked by recency, the latest member first: every member beat the one reigning before
// it, so the later are the better. They sum to 1.
func CentreWeights(m int) []float64 {
	w := make([]float64, m)
	var sum float64
	for k := range w {
		w[k] = math.Log(float64(m)+0.5) - math.Log(float64(m-k)) // k = m−1, the latest: rank 1
		sum += w[k]
	}
	for k := range w {
		w[k] /= sum
	}
	return w
}

// Centre returns the Centre of the hall of fame's genes in layout l: each free gene the
// members' values weighted by CentreWeights (log genes averaged in log space: a weighted
// geometric mean), then clamped and rounded as any gene is; fixed genes at their defaults.
func Centre(l *genomes.Layout, hof []record.HallOfFamer) []float64 {
	xs := make([][]float64, len(hof))
	for k, h := range hof {
		xs[k] = h.Genes
	}
	return WeightedCentre(l, xs, CentreWeights(len(hof)))
}

// MeanCentre is the Centre of genomes xs (each a layout-l gene vector; at least one) with
// equal weights: each free gene their mean (log genes: their geometric mean), then clamped
// and rounded as any gene is.
func MeanCentre(l *genomes.Layout, xs [][]float64) []float64 {
	w := make([]float64, len(xs))
	for k := range w {
		w[k] = 1 / float64(len(xs))
	}
	return WeightedCentre(l, xs, w)
}

// WeightedCentre is the Centre of genomes xs with weights w (summing to 1): each free
// gene the weighted mean of their values (log genes in log space), clamped and rounded.
func WeightedCentre(l *genomes.Layout, xs [][]float64, w []float64) []float64 {
	x := make([]float64, len(l.Genes))
	for i, g := range l.Genes {
		var sum float64
		for k, h := range xs {
			if g.Scale == genomes.Log && g.Min > 0 {
				sum += w[k] * math.Log(h[i])
			} else {
				sum += w[k] * h[i]
			}
		}
		x[i] = sum
		if g.Scale == genomes.Log && g.Min > 0 {
			x[i] = math.Exp(x[i])
		}
	}
	l.Clamp(x)
	return x
}

// BetterHalfCentre returns the Centre of the better half of ranked (sorted best first;
// at least one), weighted by rank as CentreWeights weigh recency (the best most), and the
// ID of the last genome of that half.
func BetterHalfCentre(l *genomes.Layout, ranked []*genomes.Genome) ([]float64, string) {
	mu := max(1, len(ranked)/2)
	half := make([]record.HallOfFamer, mu) // CentreWeights weigh the last most: the best goes last
	for i := 0; i < mu; i++ {
		half[mu-1-i] = record.HallOfFamer{ID: ranked[i].ID, Genes: ranked[i].X}
	}
	return Centre(l, half), ranked[mu-1].ID
}

// Tournament picks the best-ranked of k individuals drawn uniformly (with replacement)
// from a population of n sorted best first; it returns an index.
func Tournament(rng *rand.Rand, n, k int) int {
	best := n
	for i := 0; i < k; i++ {
		best = min(best, rng.Intn(n))
	}
	return best
}

// RankedFields fills rec's individuals from ranked (best first, each scored by its Stats:
// fitness 1 − score), their fitness statistics and the generation's diversity (the mean
// normalised gene distance over pairs).
func RankedFields(rec *record.GenerationRecord, l *genomes.Layout, ranked []*genomes.Genome) {
	fits := make([]float64, len(ranked))
	for i, x := range ranked {
		fits[i] = 1 - x.Stats.Score()
		rec.Individuals = append(rec.Individuals, record.IndividualRecord{ID: x.ID, Rank: i + 1, Fitness: fits[i], Stats: x.Stats})
	}
	FitnessFields(rec, l, ranked, fits)
}

// FitnessFields fills rec's fitness statistics from fits (one per individual of pop,
// non-empty) and its diversity: the mean normalised gene distance over pairs of pop.
func FitnessFields(rec *record.GenerationRecord, l *genomes.Layout, pop []*genomes.Genome, fits []float64) {
	rec.FitMin, rec.FitMax = fits[0], fits[0]
	for _, f := range fits {
		rec.FitMin, rec.FitMax = math.Min(rec.FitMin, f), math.Max(rec.FitMax, f)
	}
	rec.FitMean, rec.FitStd = stat.MeanStdDev(fits, nil)
	if len(fits) < 2 {
		rec.FitStd = 0
	}
	var dsum float64
	var npairs int
	for i := range pop {
		for j := i + 1; j < len(pop); j++ {
			dsum += l.Distance(pop[i].X, pop[j].X)
			npairs++
		}
	}
	if npairs > 0 {
		rec.Diversity = dsum / float64(npairs)
	}
}
