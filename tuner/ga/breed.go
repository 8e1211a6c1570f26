package ga

import (
	"math/rand"
	"sort"

	"github.com/MaxHalford/eaopt"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/population"
)

// SortIndividuals orders eaopt's individuals (each a *genomes.Genome) by racing round (descending), then fitness, then ID: a total
// order, so ranks, elites and selection never depend on how eaopt's unstable sort left
// equal fitnesses, and a resumed run continues exactly as an uninterrupted one.
func SortIndividuals(indis eaopt.Individuals) {
	sort.SliceStable(indis, func(i, j int) bool {
		a, b := indis[i].Genome.(*genomes.Genome), indis[j].Genome.(*genomes.Genome)
		if a.Round != b.Round {
			return a.Round > b.Round
		}
		if indis[i].Fitness != indis[j].Fitness {
			return indis[i].Fitness < indis[j].Fitness
		}
		return a.ID < b.ID
	})
}

// Breed breeds n individuals of generation gen from pool, ranked best first (genomes
// unchanged), with rng (the generation's stream), under c's Elite, Tournament,
// CrossoverRate and MutationRate: the Elite best survive as clones keeping their IDs; the
// rest, the new individuals (born), are bred by rank tournament selection over the pool,
// uniform crossover and mutation, each clamped to layout l (fixed genes at their values)
// and named id(slot) for its slot in next. Clones keep their parents' Stats: the caller
// resets them. Both GAs breed with it: the generational GA from its last generation, the
// GA with generations in play from the pool of its lines (NewLagged).
func Breed(c config.Config, l *genomes.Layout, pool []*genomes.Genome, n, gen int, rng *rand.Rand, id func(slot int) string) (next, born []*genomes.Genome) {
	next = make([]*genomes.Genome, 0, n)
	for i := 0; i < c.Elite && i < len(pool) && i < n; i++ {
		next = append(next, pool[i].Clone().(*genomes.Genome))
	}
	k := max(1, min(c.Tournament, len(pool)-1))
	for len(next) < n {
		a, b := population.Tournament(rng, len(pool), k), population.Tournament(rng, len(pool), k)
		kids := []*genomes.Genome{pool[a].Clone().(*genomes.Genome), pool[b].Clone().(*genomes.Genome)}
		for _, kid := range kids {
			kid.Parents, kid.Op = []string{kid.ID}, genomes.OpClone
		}
		if rng.Float64() < c.CrossoverRate {
			kids[0].Crossover(kids[1], rng)
		}
		for _, kid := range kids {
			if len(next) == n {
				break
			}
			if rng.Float64() < c.MutationRate {
				kid.Mutate(rng)
			}
			// Fixed genes at their values, whatever the parents had: a gene frozen while the
			// run went on is held from the first generation after (nothing changes otherwise:
			// the parents' genes are already inside their bounds and fixed values).
			kid.Layout = l
			l.Clamp(kid.X)
			kid.ID, kid.Born = id(len(next)), gen
			next = append(next, kid)
			born = append(born, kid)
		}
	}
	return next, born
}

// initial is the first population of generation gen, n individuals named id(slot): with
// baseline, slot 0 the paper's weights (the layout's defaults, operator baseline); the
// others perturbations of them (c.Mutation) or, with Init "random", random genomes, each
// drawn from next() (operator initial).
func initial(c config.Config, l *genomes.Layout, gen, n int, baseline bool, next func() *rand.Rand, id func(slot int) string) []*genomes.Genome {
	pop := make([]*genomes.Genome, 0, n)
	for i := range n {
		x := &genomes.Genome{Layout: l, ID: id(i), Born: gen, Mutation: c.Mutation}
		switch {
		case i == 0 && baseline:
			x.X, x.Op = l.Defaults(), genomes.OpBaseline
		case c.Init == "random":
			x.X, x.Op = l.Random(next()), genomes.OpInitial
		default:
			x.X, x.Op = l.Perturb(c.Mutation, next()), genomes.OpInitial
		}
		pop = append(pop, x)
	}
	return pop
}

// peerPairs is a generation's pairings of peers: for each of rounds pairings, a random
// permutation of its n individuals' slots (from rng) paired in turn, ⌊n/2⌋ pairs a pairing.
func peerPairs(rng *rand.Rand, n, rounds int) [][2]int {
	var pairs [][2]int
	for range rounds {
		order := rng.Perm(n)
		for k := 0; k+1 < n; k += 2 {
			pairs = append(pairs, [2]int{order[k], order[k+1]})
		}
	}
	return pairs
}
