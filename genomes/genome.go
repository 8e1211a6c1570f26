package genomes

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"strings"

	"github.com/MaxHalford/eaopt"
)

// Operators that make an individual, recorded in its lineage.
const (
	// OpBaseline is the paper's weights, unchanged.
	OpBaseline = "baseline"
	// OpInitial is a perturbation of the baseline (or a random genome) in generation 0.
	OpInitial = "initial"
	// OpElite is an individual carried unchanged into the next generation; it keeps its
	// ID and its accumulated games.
	OpElite = "elite"
	// OpClone is a copy of a selected parent that neither crossover nor mutation changed.
	OpClone = "clone"
	// OpCrossover is the uniform crossover of two parents.
	OpCrossover = "crossover"
	// OpMutation is a mutated copy of one parent.
	OpMutation = "mutation"
	// OpCrossoverMutation is a crossover child that was then mutated.
	OpCrossoverMutation = "crossover+mutation"
	// OpImported is an individual loaded from a weights file.
	OpImported = "imported"
)

// Mutation sets the strength of Genome.Mutate.
type Mutation struct {
	// GeneRate is the probability that each free gene changes (at least one always does).
	GeneRate float64 `json:"gene_rate" yaml:"gene_rate"`
	// LogSigma is the standard deviation of the log-space step of Log genes (0.25 ≈ ×1.28).
	LogSigma float64 `json:"log_sigma" yaml:"log_sigma"`
	// LinearSigma is the standard deviation of Linear genes as a fraction of their range.
	LinearSigma float64 `json:"linear_sigma" yaml:"linear_sigma"`
}

// DefaultMutation changes each gene with probability 0.3 by a factor e^N(0, 0.25) (log
// genes) or by N(0, 0.05·range) (linear genes).
var DefaultMutation = Mutation{GeneRate: 0.3, LogSigma: 0.25, LinearSigma: 0.05}

// Stats are an individual's game results (the tuner keeps one generation's).
type Stats struct {
	Wins, Draws, Losses int
	// Penta counts colour-swapped game pairs by the individual's pair score 0, ½, 1, 1½, 2.
	Penta [5]int
}

// Games returns the number of games.
func (s Stats) Games() int { return s.Wins + s.Draws + s.Losses }

// Score returns (W + D/2)/N, or ½ with no games.
func (s Stats) Score() float64 {
	if s.Games() == 0 {
		return 0.5
	}
	return (float64(s.Wins) + float64(s.Draws)/2) / float64(s.Games())
}

// Add returns the sum of two records.
func (s Stats) Add(o Stats) Stats {
	s.Wins += o.Wins
	s.Draws += o.Draws
	s.Losses += o.Losses
	for i := range s.Penta {
		s.Penta[i] += o.Penta[i]
	}
	return s
}

// Genome is one individual: a gene vector of a Layout with its identity, lineage and
// accumulated results. It implements eaopt.Genome; eaopt minimises, so Evaluate returns
// 1 − score.
type Genome struct {
	Layout *Layout
	X      []float64
	// ID is stable for the individual's whole life (elites keep it).
	ID string
	// Parents are the IDs of the individuals it was made from (none for generation 0).
	Parents []string
	// Op is the operator that made it (OpBaseline, OpCrossover, …).
	Op string
	// Born is the generation it was made in.
	Born int
	// Stats are its results in the current generation (the tuner never adds up results
	// of different generations: their openings and references differ).
	Stats Stats
	// Round is the last racing round it played in the current generation (0 = screening).
	Round int
	// Mutation parameters for Mutate.
	Mutation Mutation
	// Evaluator computes the fitness; the tuner sets it (it plays the generation's games
	// as one batch on its worker pool, then answers each genome from the batch).
	Evaluator func(*Genome) (float64, error)
}

// Evaluate returns 1 − score from the Evaluator.
func (g *Genome) Evaluate() (float64, error) {
	return g.Evaluator(g)
}

// Mutate changes each free gene with probability GeneRate (at least one gene), in log
// space for Log genes, then clamps to the bounds.
func (g *Genome) Mutate(rng *rand.Rand) {
	free := make([]int, 0, len(g.X))
	for i, gene := range g.Layout.Genes {
		if !gene.Fixed {
			free = append(free, i)
		}
	}
	if len(free) == 0 {
		return
	}
	changed := false
	for _, i := range free {
		if rng.Float64() < g.Mutation.GeneRate {
			g.mutateGene(i, rng)
			changed = true
		}
	}
	if !changed {
		g.mutateGene(free[rng.Intn(len(free))], rng)
	}
	g.Layout.Clamp(g.X)
	if g.Op == OpCrossover {
		g.Op = OpCrossoverMutation
	} else {
		g.Op = OpMutation
	}
}

func (g *Genome) mutateGene(i int, rng *rand.Rand) {
	gene := g.Layout.Genes[i]
	if gene.Scale == Log && g.X[i] > 0 {
		g.X[i] *= math.Exp(rng.NormFloat64() * g.Mutation.LogSigma)
		return
	}
	step := rng.NormFloat64() * g.Mutation.LinearSigma * (gene.Max - gene.Min)
	if gene.Integer && math.Abs(step) < 1 {
		step = math.Copysign(1, step) // an integer gene must move at least one unit
	}
	g.X[i] += step
}

// Crossover swaps each gene with the mate's with probability ½ (uniform crossover); both
// become children of both parents.
func (g *Genome) Crossover(mate eaopt.Genome, rng *rand.Rand) {
	o := mate.(*Genome)
	for i := range g.X {
		if rng.Float64() < 0.5 {
			g.X[i], o.X[i] = o.X[i], g.X[i]
		}
	}
	parents := []string{g.ID, o.ID}
	g.Parents, o.Parents = parents, append([]string(nil), parents...)
	g.Op, o.Op = OpCrossover, OpCrossover
}

// Clone returns a deep copy with the same identity and results.
func (g *Genome) Clone() eaopt.Genome {
	c := *g
	c.X = append([]float64(nil), g.X...)
	c.Parents = append([]string(nil), g.Parents...)
	return &c
}

// Distance is the mean absolute difference of two gene vectors in each gene's scale,
// normalised by the range (0 = identical, 1 = opposite bounds); the tuner's diversity is
// its mean over pairs.
func (l *Layout) Distance(a, b []float64) float64 {
	var d float64
	n := 0
	for i, g := range l.Genes {
		if g.Fixed {
			continue
		}
		n++
		if g.Scale == Log {
			d += math.Abs(math.Log(a[i])-math.Log(b[i])) / math.Log(g.Max/g.Min)
		} else {
			d += math.Abs(a[i]-b[i]) / (g.Max - g.Min)
		}
	}
	if n == 0 {
		return 0
	}
	return d / float64(n)
}

// Perturb returns the defaults with every free gene moved by a mutation step of the given
// strength (the initial population around the baseline).
func (l *Layout) Perturb(m Mutation, rng *rand.Rand) []float64 {
	g := &Genome{Layout: l, X: l.Defaults(), Mutation: Mutation{GeneRate: 1, LogSigma: m.LogSigma, LinearSigma: m.LinearSigma}}
	g.Mutate(rng)
	return g.X
}

// Random returns a vector drawn uniformly within the bounds (log-uniformly for Log
// genes); fixed genes keep their defaults.
func (l *Layout) Random(rng *rand.Rand) []float64 {
	x := l.Defaults()
	for i, g := range l.Genes {
		switch {
		case g.Fixed:
		case g.Scale == Log:
			x[i] = math.Exp(math.Log(g.Min) + rng.Float64()*(math.Log(g.Max)-math.Log(g.Min)))
		default:
			x[i] = g.Min + rng.Float64()*(g.Max-g.Min)
		}
	}
	l.Clamp(x)
	return x
}

// IndividualID names an individual: run R, born in generation G, slot S → "R-gG-SS". IDs
// are unique across a database, and an elite keeps its ID in later generations.
func IndividualID(run int64, gen, slot int) string {
	return fmt.Sprintf("%d-g%d-%02d", run, gen, slot)
}

// RunOfIndividual parses the run number out of an individual ID like "1-g3-07"; the error
// names a malformed ID.
func RunOfIndividual(id string) (int64, error) {
	head, rest, ok := strings.Cut(id, "-")
	n, err := strconv.ParseInt(head, 10, 64)
	if !ok || err != nil || n <= 0 || !strings.HasPrefix(rest, "g") {
		return 0, fmt.Errorf("individual ID %q: want RUN-gGEN-SLOT, like 1-g3-07", id)
	}
	return n, nil
}
