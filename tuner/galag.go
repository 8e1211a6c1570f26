package tuner

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"

	"evotune/genomes"
)

// The GA with generations in play (Config.GALag L ≥ 1; L = 0 is ga.go's eaopt loop): the
// generational GA with peers, on the run loop, with no generation barrier.
//
//   - Generation 0 is the paper's weights (slot 0) and perturbations of them (or random
//     genomes, Init), as ga.go's; generations 1 to L, bred before any is told, are more
//     perturbations (each line's first population). Each generation plays RaceRounds+1
//     pairings: a random permutation of its individuals paired in turn, each pair Games
//     games (Games/2 fresh colour-swapped opening pairs, the same for every pair of a
//     pairing; one round of the loop a pair). An individual's score is its share of
//     points over its generation's games; the second of each pair is credited with the
//     mirror of the first's games.
//   - Generation k+1 is bred once generation k−L is told, so L+1 generations' pairings
//     are in play at once and a slot freed by a generation's last games takes the next
//     generation's first. Its parents come from the newest told generation of each of the
//     L+1 interleaved lines, generations k−2L to k−L, ranked together by their scores
//     (each against its own generation's peers; a genome carried by elitism counts once,
//     with its newest score): Elite copies of the best, then tournaments (Tournament),
//     uniform crossover (CrossoverRate) and mutation (MutationRate), as ga.go's model.
//     With L = 0 the pool is generation k alone, ga.go's rule.
//   - The seed fixes every draw (initial genomes, pairings, breeding, openings: each a
//     stream of its generation), and generations are told in order, so a seeded run is the
//     same whatever the number of workers or their speed, and after resume (each saved
//     generation stores its ranked individuals: the breeding pool of the generations after).
//   - The champion is the centre of the newest told generation's better half
//     (ChampionPopulation, populationCentre), a genome of slot Population.
//   - No hall of fame (admission none), no surrogate child: both read the generation
//     before the next is bred, which a lag removes.

// MaxGALag bounds Config.GALag: at 3, replayed 64 slots were 95–98% busy on every game
// (docs/methods.md); a deeper lag breeds from ever older parents (at 8, from generations
// 9 to 17 back).
const MaxGALag = 8

// streamGALag is the random stream of a lagged GA generation's openings (draw: the
// generation's pairing).
const streamGALag = 10

// gaLagIndividual is an individual of a told generation, as its method state stores it.
type gaLagIndividual struct {
	ID      string             `json:"id"`
	Op      string             `json:"op"`
	Parents []string           `json:"parents,omitempty"`
	Born    int                `json:"born"`
	Genes   map[string]float64 `json:"genes"`
	Stats   genomes.Stats      `json:"stats"`
}

// gaLagState is a told generation's method state: its individuals ranked best first.
type gaLagState struct {
	Ranked []gaLagIndividual `json:"ranked"`
}

// gaLagGeneration is a bred generation: its individuals by slot, its pairs in round order
// (slots: the first plays, the second is its opponent) and the rounds asked and told.
type gaLagGeneration struct {
	gen   int
	pop   []*genomes.Genome
	born  []*genomes.Genome // the individuals new in it (elites keep their first ID)
	pairs [][2]int
	asked int
	told  int
}

// gaLagMethod is the GA with generations in play on the run loop (see above).
type gaLagMethod struct {
	a      *arena
	lag    int
	rounds int                       // pairs of a generation: (RaceRounds+1) × ⌊Population/2⌋
	told   map[int][]*genomes.Genome // told generations ranked best first, those still bred from
	newest int                       // the newest told generation (−1: none)
	inPlay []*gaLagGeneration        // bred and not yet told, oldest first
	next   int                       // the next generation to breed
}

// newGAOrLagged is the GA's constructor: ga.go's, or with GALag above 0 the GA with
// generations in play on the run loop.
func newGAOrLagged(t *Tuner) (searchMethod, error) {
	if t.cfg.GALag > 0 {
		return askTell(newGALag)(t)
	}
	return newGA(t)
}

// newGALag makes the GA with generations in play for the run's arena; the error names a
// Games that is not an even number of at least 2.
func newGALag(a *arena) (askTeller, error) {
	c := a.Config
	if c.Games < 2 || c.Games%2 != 0 {
		return nil, settingErr("games", "", "%d, want an even number ≥ 2 (each pair's games)", c.Games)
	}
	return &gaLagMethod{a: a, lag: c.GALag, rounds: (c.RaceRounds + 1) * (c.Population / 2), told: map[int][]*genomes.Genome{}, newest: -1}, nil
}

// Window: every round of the L+1 generations in play.
func (m *gaLagMethod) Window() int { return m.rounds * (m.lag + 1) }

// DrawsInPlay: a draw of openings a pairing, for each generation in play.
func (m *gaLagMethod) DrawsInPlay() int { return (m.a.Config.RaceRounds + 1) * (m.lag + 1) }

// Committed: a generation's pairs are asked whatever the budgets once its first is (its
// scores need every pairing).
func (m *gaLagMethod) Committed() bool {
	return len(m.inPlay) > 0 && m.inPlay[len(m.inPlay)-1].asked < m.rounds
}

// Restore takes up the told generations a run resumed after generation st.LastGeneration
// breeds from (the newest 2L+1 method states); the generations after it are bred again
// from them, as the uninterrupted run bred them.
func (m *gaLagMethod) Restore(st ResumeState) (leader, error) {
	if len(st.MethodStates) != st.LastGeneration+1 {
		return leader{}, fmt.Errorf("resume: %d GA generation states for %d saved generations", len(st.MethodStates), st.LastGeneration+1)
	}
	c := m.a.Config
	for gen := max(0, st.LastGeneration-2*m.lag); gen <= st.LastGeneration; gen++ {
		var s gaLagState
		if err := decodeState(st.MethodStates[gen], &s); err != nil {
			return leader{}, fmt.Errorf("resume: GA generation %d: %w", gen, err)
		}
		if len(s.Ranked) != c.Population {
			return leader{}, fmt.Errorf("resume: GA generation %d holds %d individuals, the config says %d", gen, len(s.Ranked), c.Population)
		}
		ranked := make([]*genomes.Genome, len(s.Ranked))
		for i, r := range s.Ranked {
			x, err := m.a.Layout.FromNamed(r.Genes)
			if err != nil {
				return leader{}, fmt.Errorf("resume: GA generation %d: individual %s: %w", gen, r.ID, err)
			}
			ranked[i] = &genomes.Genome{Layout: m.a.Layout, X: x, ID: r.ID, Op: r.Op, Parents: r.Parents, Born: r.Born, Stats: r.Stats, Mutation: c.Mutation}
		}
		m.told[gen] = ranked
	}
	m.newest, m.next = st.LastGeneration, st.LastGeneration+1
	rec, x := m.centre(st.LastGeneration)
	return leader{ID: rec.ID, Genes: x, Score: math.NaN()}, nil
}

// Describe: the population, the pairings and the generations in play.
func (m *gaLagMethod) Describe(length string) (string, []string) {
	c := m.a.Config
	return fmt.Sprintf(": population %d, %s, peers: %d pairings of %d games, %d generations in play (generation k+1 bred from generations k−%d to k−%d, no generation barrier), no hall of fame",
		c.Population, length, c.RaceRounds+1, c.Games, m.lag+1, 2*m.lag, m.lag), nil
}

// Ask returns the next pair of the newest generation in play, or breeds the next
// generation once generation next−1−L is told (errAskLater before; nil after generation
// Generations).
func (m *gaLagMethod) Ask() (*round, error) {
	c := m.a.Config
	if n := len(m.inPlay); n == 0 || m.inPlay[n-1].asked == m.rounds {
		switch {
		case c.Generations > 0 && m.next > c.Generations:
			return nil, nil
		case m.next > 0 && m.newest < m.next-1-m.lag:
			return nil, errAskLater
		}
		m.inPlay = append(m.inPlay, m.breed(m.next))
		m.next++
	}
	g := m.inPlay[len(m.inPlay)-1]
	k := g.asked
	g.asked++
	p := g.pairs[k]
	a, b := g.pop[p[0]], g.pop[p[1]]
	// The player is a stand-in that collects this pair's games alone (Tell credits them to
	// both individuals).
	player := &genomes.Genome{Layout: a.Layout, X: a.X, ID: a.ID}
	// The pairs of a pairing play the same openings (one draw: common random numbers, as
	// ga.go's pairings).
	return &round{Gen: g.gen, Draw: g.gen*(c.RaceRounds+1) + k/(c.Population/2), Stream: streamGALag, Players: []*genomes.Genome{player}, Opponents: []*genomes.Genome{b},
		Pairs: c.Games / 2, Label: fmt.Sprintf("generation %d", g.gen), Own: p}, nil
}

// breed makes generation gen: the initial population, or children of the pool (the told
// generations gen−1−2L to gen−1−L ranked together), with its pairings.
func (m *gaLagMethod) breed(gen int) *gaLagGeneration {
	c, l := m.a.Config, m.a.Layout
	n := c.Population
	g := &gaLagGeneration{gen: gen}
	if gen <= m.lag { // nothing told yet: an initial population
		rng := m.a.RandV1(gen, streamInit)
		for i := range n {
			x := &genomes.Genome{Layout: l, ID: m.a.IndividualID(gen, i), Born: gen, Mutation: c.Mutation}
			switch {
			case i == 0 && gen == 0:
				x.X, x.Op = l.Defaults(), genomes.OpBaseline
			case c.Init == "random":
				x.X, x.Op = l.Random(rng), genomes.OpInitial
			default:
				x.X, x.Op = l.Perturb(c.Mutation, rng), genomes.OpInitial
			}
			g.pop = append(g.pop, x)
			g.born = append(g.born, x)
		}
	} else {
		pool := m.pool(gen - 1 - m.lag)
		rng := m.a.RandV1(gen, streamGA)
		for i := 0; i < c.Elite && i < len(pool); i++ {
			e := pool[i].Clone().(*genomes.Genome)
			e.Stats = genomes.Stats{}
			g.pop = append(g.pop, e)
		}
		k := max(1, min(c.Tournament, len(pool)-1))
		for len(g.pop) < n {
			a, b := tournament(rng, len(pool), k), tournament(rng, len(pool), k)
			kids := []*genomes.Genome{pool[a].Clone().(*genomes.Genome), pool[b].Clone().(*genomes.Genome)}
			for _, kid := range kids {
				kid.Parents, kid.Op = []string{kid.ID}, genomes.OpClone
			}
			if rng.Float64() < c.CrossoverRate {
				kids[0].Crossover(kids[1], rng)
			}
			for _, kid := range kids {
				if len(g.pop) == n {
					break
				}
				if rng.Float64() < c.MutationRate {
					kid.Mutate(rng)
				}
				kid.Layout = l
				l.Clamp(kid.X) // fixed genes at their values, whatever the parents had
				kid.ID, kid.Born, kid.Stats = m.a.IndividualID(gen, len(g.pop)), gen, genomes.Stats{}
				g.pop = append(g.pop, kid)
				g.born = append(g.born, kid)
			}
		}
	}
	rng := m.a.RandV1(gen, streamPairing)
	for range c.RaceRounds + 1 {
		order := rng.Perm(n)
		for k := 0; k+1 < n; k += 2 {
			g.pairs = append(g.pairs, [2]int{order[k], order[k+1]})
		}
	}
	return g
}

// pool is the breeding pool of a generation bred after generation newest is told: the
// told generations newest−L to newest (those that exist), ranked together best first by
// score, then ID; a genome in several (elitism) counts once, with its newest score.
func (m *gaLagMethod) pool(newest int) []*genomes.Genome {
	seen := map[string]bool{}
	var pool []*genomes.Genome
	for gen := newest; gen >= max(0, newest-m.lag); gen-- {
		for _, g := range m.told[gen] {
			if !seen[g.ID] {
				seen[g.ID] = true
				pool = append(pool, g)
			}
		}
	}
	rankGenomes(pool)
	return pool
}

// rankGenomes sorts genomes best first: by score, then ID (a total order).
func rankGenomes(gs []*genomes.Genome) {
	sort.SliceStable(gs, func(i, j int) bool {
		if si, sj := gs[i].Stats.Score(), gs[j].Stats.Score(); si != sj {
			return si > sj
		}
		return gs[i].ID < gs[j].ID
	})
}

// mirror is the record of the other side of the games s records.
func mirror(s genomes.Stats) genomes.Stats {
	m := genomes.Stats{Wins: s.Losses, Draws: s.Draws, Losses: s.Wins}
	for i := range s.Penta {
		m.Penta[len(s.Penta)-1-i] = s.Penta[i]
	}
	return m
}

// Tell credits a told pair's games to both of its individuals; the generation's last pair
// completes it.
func (m *gaLagMethod) Tell(r *round) (*told, error) {
	if len(m.inPlay) == 0 {
		return nil, fmt.Errorf("%s told with no generation in play", r.Label)
	}
	g := m.inPlay[0]
	p, ok := r.Own.([2]int)
	if !ok || r.Gen != g.gen || g.told >= len(g.pairs) || g.pairs[g.told] != p {
		return nil, fmt.Errorf("%s: a pair told out of order (generation %d, pair %d expected)", r.Label, g.gen, g.told)
	}
	g.told++
	s := r.Players[0].Stats
	a, b := g.pop[p[0]], g.pop[p[1]]
	a.Stats, b.Stats = a.Stats.Add(s), b.Stats.Add(mirror(s))
	if g.told < len(g.pairs) {
		return nil, nil
	}
	m.inPlay = m.inPlay[1:]
	ranked := append([]*genomes.Genome(nil), g.pop...)
	rankGenomes(ranked)
	m.told[g.gen], m.newest = ranked, g.gen
	for gen := range m.told {
		if gen < g.gen-2*m.lag { // no generation bred from now on reads it
			delete(m.told, gen)
		}
	}
	return m.generation(g, ranked), nil
}

// centre is the champion after generation gen: the centre of its better half.
func (m *gaLagMethod) centre(gen int) (GenomeRecord, []float64) {
	ranked := m.told[gen]
	x, last := betterHalfCentre(m.a.Layout, ranked)
	return GenomeRecord{ID: m.a.IndividualID(gen, m.a.Config.Population), Born: gen, Operator: OpPopulationCentre,
		Parents: []string{ranked[0].ID, last}, Genes: m.a.Layout.Named(x)}, x
}

// generation is what the loop stores of told generation g (ranked best first): its
// individuals, genomes born in it, the champion and the method state.
func (m *gaLagMethod) generation(g *gaLagGeneration, ranked []*genomes.Genome) *told {
	l := m.a.Layout
	champ, cx := m.centre(g.gen)
	st := gaLagState{}
	rec := GenerationRecord{Best: ranked[0].ID, Champion: champ.ID}
	for _, x := range g.pop {
		rec.Opponents = append(rec.Opponents, x.ID)
	}
	for _, x := range g.born {
		rec.NewGenomes = append(rec.NewGenomes, GenomeRecord{ID: x.ID, Born: x.Born, Operator: x.Op, Parents: x.Parents, Genes: l.Named(x.X)})
	}
	rec.NewGenomes = append(rec.NewGenomes, champ)
	for _, x := range ranked {
		st.Ranked = append(st.Ranked, gaLagIndividual{ID: x.ID, Op: x.Op, Parents: x.Parents, Born: x.Born, Genes: l.Named(x.X), Stats: x.Stats})
	}
	rankedFields(&rec, l, ranked)
	return &told{Record: rec, State: func() any { return st }, Champion: leader{ID: champ.ID, Genes: cx, Score: math.NaN()},
		BestPlayer: ranked[0].ID, BestScore: ranked[0].Stats.Score(), MeanScore: 1 - rec.FitMean}
}

// rankedFields fills rec's individuals from ranked (best first, each scored by its Stats:
// fitness 1 − score), their fitness statistics and the generation's diversity (the mean
// normalised gene distance over pairs).
func rankedFields(rec *GenerationRecord, l *genomes.Layout, ranked []*genomes.Genome) {
	fits := make([]float64, len(ranked))
	for i, x := range ranked {
		fits[i] = 1 - x.Stats.Score()
		rec.Individuals = append(rec.Individuals, IndividualRecord{ID: x.ID, Rank: i + 1, Fitness: fits[i], Stats: x.Stats})
	}
	fitnessFields(rec, l, ranked, fits)
}

// fitnessFields fills rec's fitness statistics from fits (one per individual of pop,
// non-empty) and its diversity: the mean normalised gene distance over pairs of pop.
func fitnessFields(rec *GenerationRecord, l *genomes.Layout, pop []*genomes.Genome, fits []float64) {
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
