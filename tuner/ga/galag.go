package ga

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/population"
	"evotune/tuner/record"
	"evotune/tuner/search"
)

// The GA with generations in play (config.Config.GALag L ≥ 1; L = 0 is Generational):
// the generational GA with peers, on the run loop, with no generation barrier.
//
//   - Generation 0 is the paper's weights (slot 0) and perturbations of them (or random
//     genomes, Init), as the generational GA (Generational); generations 1 to L, bred before any is told, are more
//     perturbations (each line's first population). Each generation plays RaceRounds+1
//     pairings: a random permutation of its individuals paired in turn, each pair Games
//     games (Games/2 fresh colour-swapped opening pairs, the same for every pair of a
//     pairing; one round of the loop a pairing, its pairs in turn: search.Round.OneEach).
//     An individual's score is its share of points over its generation's games; the
//     second of each pair is credited with the mirror of the first's games.
//   - Generation k+1 is bred once generation k−L is told, so L+1 generations' pairings
//     are in play at once and a slot freed by a generation's last games takes the next
//     generation's first. Its parents come from the newest told generation of each of the
//     L+1 interleaved lines, generations k−2L to k−L, ranked together by their scores
//     (each against its own generation's peers; a genome carried by elitism counts once,
//     with its newest score): Elite copies of the best, then tournaments (Tournament),
//     uniform crossover (CrossoverRate) and mutation (MutationRate), as the generational GA's model (selection.go).
//     With L = 0 the pool is generation k alone, the root GA's rule.
//   - The seed fixes every draw (initial genomes, pairings, breeding, openings: each a
//     stream of its generation), and generations are told in order, so a seeded run is the
//     same whatever the number of workers or their speed, and after resume (each saved
//     generation stores its ranked individuals: the breeding pool of the generations after).
//   - The hall of fame (AdmitGames > 0) has the same lag: generation k+1's first rounds
//     are the admission test of generation k−L's best against its peers, the generational
//     GA's test (admission.go): skipped for the paper's weights, an individual tested
//     before or the defender's own genes; paired (the candidate and the defender each
//     against the paper's weights on AdmitGames/2 fresh opening pairs, the defender's own
//     games on as many more) or head to head (Config.Admission); judged when its rounds
//     are told and stored with generation k+1. The defender is the latest member admitted by a test
//     told when generation k−L was: the tests of generations up to k−2L−1 (a test in play
//     while a later one is asked does not change its defender, so every test is asked the
//     moment its candidate is known, and the run is the same whatever the workers). A test
//     that passes against a defender no longer the latest admits nothing.
//   - The champion is, as the root GA's (HallChampion), the hall of fame's centre (its genome
//     in slot Population of the generation that admitted the latest member), its best
//     member or the baseline; with ChampionPopulation the mean of the better halves'
//     centres of the newest L+1 told generations, one of each line (centre), a genome of
//     slot Population.
//   - The surrogate child (Config.Surrogate on): generation k+1's last child is the
//     surrogate model's (breedSurrogate), fitted to the peer games of the SurrogateWindow
//     told generations k−L−SurrogateWindow+1 to k−L (those that exist, two at least)
//     around the pool's better half: the generational GA's child, its games L generations
//     older. Each told generation stores its games for it (LaggedState.Surrogate).

// streamGALag is the random stream of a lagged GA generation's openings (draw: the
// generation's pairing).
const streamGALag = 10

// LaggedIndividual is an individual of a told generation, as LaggedState stores it.
type LaggedIndividual struct {
	ID      string             `json:"id"`
	Op      string             `json:"op"`
	Parents []string           `json:"parents,omitempty"`
	Born    int                `json:"born"`
	Genes   map[string]float64 `json:"genes"`
	Stats   genomes.Stats      `json:"stats"`
}

// LaggedState is a told generation's method state (generations.method_state, JSON): its
// individuals ranked best first.
type LaggedState struct {
	Ranked []LaggedIndividual `json:"ranked"`
	// Surrogate is the generation's peer games as the surrogate model reads them (nil
	// with the surrogate off).
	Surrogate *SurrogateObservation `json:"surrogate,omitempty"`
}

// gaLagGeneration is a bred generation: its individuals by slot, its pairs in pairing order
// (slots: the first plays, the second is its opponent; ⌊Population/2⌋ a pairing) and the
// pairings asked and told.
type gaLagGeneration struct {
	gen   int
	pop   []*genomes.Genome
	born  []*genomes.Genome // the individuals new in it (elites keep their first ID)
	pairs [][2]int
	asked int
	told  int
	// games are its pairings' games told (kept for the surrogate model only).
	games []record.GameResult
	// tests are the rounds of the admission test it opens with, not yet asked; admission
	// the test once judged (nil: none played).
	tests     []*search.Round
	admission *record.Admission
}

// gaLagMethod is the GA with generations in play on the run loop (see above).
type gaLagMethod struct {
	a      *search.MethodEnv
	lag    int
	rounds int                       // pairings of a generation: RaceRounds+1, each one round of the loop
	told   map[int][]*genomes.Genome // told generations ranked best first, those still bred from
	newest int                       // the newest told generation (−1: none)
	inPlay []*gaLagGeneration        // bred and not yet told, oldest first
	next   int                       // the next generation to breed
	// obs are the told generations' peer games for the surrogate model (Surrogate on),
	// by generation, those a generation still to breed may fit to.
	obs map[int]SurrogateObservation
	// hall is the hall of fame (AdmitGames > 0; a member's Generation is the generation
	// whose best it was).
	hall hallOfFame
}

// NewLagged makes the GA with generations in play for the run's method environment; the
// error names a Games that is not an even number of at least 2.
func NewLagged(a *search.MethodEnv) (search.Method, error) {
	c := a.Config
	if c.Games < 2 || c.Games%2 != 0 {
		return nil, config.Errorf("games", "", "%d, want an even number ≥ 2 (each pair's games)", c.Games)
	}
	return &gaLagMethod{a: a, lag: c.GALag, rounds: c.RaceRounds + 1, told: map[int][]*genomes.Genome{}, newest: -1,
		obs: map[int]SurrogateObservation{}, hall: hallOfFame{tested: map[string]bool{}}}, nil
}

// Window: every round of the L+1 generations in play (a round a pairing), their tests' two
// each included.
func (m *gaLagMethod) Window() int {
	if m.a.Config.AdmitGames > 0 {
		return (m.rounds + 2) * (m.lag + 1)
	}
	return m.rounds * (m.lag + 1)
}

// DrawsInPlay: a draw of openings a pairing, for each generation in play.
func (m *gaLagMethod) DrawsInPlay() int { return (m.a.Config.RaceRounds + 1) * (m.lag + 1) }

// Committed: a generation's pairings are asked whatever the budgets once its first is (its
// scores need every pairing).
func (m *gaLagMethod) Committed() bool {
	n := len(m.inPlay)
	return n > 0 && (m.inPlay[n-1].asked < m.rounds || len(m.inPlay[n-1].tests) > 0)
}

// Restore takes up the told generations a run resumed after generation st.LastGeneration
// breeds from (the newest 2L+1 method states); the generations after it are bred again
// from them, as the uninterrupted run bred them.
func (m *gaLagMethod) Restore(st record.ResumeState) (search.Leader, error) {
	if len(st.MethodStates) != st.LastGeneration+1 {
		return search.Leader{}, fmt.Errorf("resume: %d GA generation states for %d saved generations", len(st.MethodStates), st.LastGeneration+1)
	}
	c := m.a.Config
	first := st.LastGeneration - 2*m.lag // the oldest generation a generation bred after resuming ranks
	if c.Surrogate == config.SurrogateOn {
		first = min(first, st.LastGeneration-m.lag-SurrogateWindow) // and the oldest its model fits to
	}
	for gen := max(0, first); gen <= st.LastGeneration; gen++ {
		var s LaggedState
		if err := search.DecodeState(st.MethodStates[gen], &s); err != nil {
			return search.Leader{}, fmt.Errorf("resume: GA generation %d: %w", gen, err)
		}
		if s.Surrogate != nil && c.Surrogate == config.SurrogateOn {
			m.obs[gen] = *s.Surrogate
		}
		if gen < st.LastGeneration-2*m.lag {
			continue
		}
		if len(s.Ranked) != c.Population {
			return search.Leader{}, fmt.Errorf("resume: GA generation %d holds %d individuals, the config says %d", gen, len(s.Ranked), c.Population)
		}
		ranked := make([]*genomes.Genome, len(s.Ranked))
		for i, r := range s.Ranked {
			x, err := m.a.Layout.FromNamed(r.Genes)
			if err != nil {
				return search.Leader{}, fmt.Errorf("resume: GA generation %d: individual %s: %w", gen, r.ID, err)
			}
			ranked[i] = &genomes.Genome{Layout: m.a.Layout, X: x, ID: r.ID, Op: r.Op, Parents: r.Parents, Born: r.Born, Stats: r.Stats, Mutation: c.Mutation}
		}
		m.told[gen] = ranked
	}
	m.newest, m.next = st.LastGeneration, st.LastGeneration+1
	if c.AdmitGames > 0 {
		if err := m.hall.restore(m.a.Layout, st); err != nil {
			return search.Leader{}, err
		}
	}
	return m.champion(st.LastGeneration, m.told[st.LastGeneration]), nil
}

// Describe: the population, the pairings and the generations in play.
func (m *gaLagMethod) Describe(length string) (string, []string) {
	c := m.a.Config
	hall := "no hall of fame"
	if c.AdmitGames > 0 {
		hall = fmt.Sprintf("admission %d games at z=%g of generation k−%d's best", c.AdmitGames, c.AdmitZ, m.lag)
	}
	surrogate := ""
	if c.Surrogate == config.SurrogateOn {
		surrogate = fmt.Sprintf(", a surrogate model's child each generation from generation %d", m.lag+2)
	}
	return fmt.Sprintf(": population %d, %s, peers: %d pairings of %d games%s, %d generations in play (generation k+1 bred from generations k−%d to k−%d, no generation barrier), %s",
		c.Population, length, c.RaceRounds+1, c.Games, surrogate, m.lag+1, 2*m.lag, m.lag, hall), nil
}

// Ask returns the next pairing of the newest generation in play, or breeds the next
// generation once generation next−1−L is told (ErrAskLater before; nil after generation
// Generations).
func (m *gaLagMethod) Ask() (*search.Round, error) {
	c := m.a.Config
	if n := len(m.inPlay); n == 0 || (m.inPlay[n-1].asked == m.rounds && len(m.inPlay[n-1].tests) == 0) {
		switch {
		case c.Generations > 0 && m.next > c.Generations:
			return nil, nil
		case m.next > 0 && m.newest < m.next-1-m.lag:
			return nil, search.ErrAskLater
		}
		m.inPlay = append(m.inPlay, m.breed(m.next))
		m.next++
	}
	g := m.inPlay[len(m.inPlay)-1]
	if len(g.tests) > 0 { // the generation opens with its admission test
		r := g.tests[0]
		g.tests = g.tests[1:]
		return r, nil
	}
	k := g.asked
	g.asked++
	per := c.Population / 2
	r := &search.Round{Gen: g.gen, Draw: g.gen*(c.RaceRounds+1) + k, Stream: streamGALag, Pairs: c.Games / 2, OneEach: true,
		Label: fmt.Sprintf("generation %d", g.gen), GameRound: k, Own: k}
	for _, p := range g.pairs[k*per : (k+1)*per] {
		a, b := g.pop[p[0]], g.pop[p[1]]
		// The player is a stand-in that collects its pair's games alone (Tell credits them
		// to both individuals). The pairs of a pairing play the same openings (one draw:
		// common random numbers, as the generational GA's pairings).
		r.Players = append(r.Players, &genomes.Genome{Layout: a.Layout, X: a.X, ID: a.ID})
		r.Opponents = append(r.Opponents, b)
	}
	return r, nil
}

// breed makes generation gen: the initial population, or children of the pool (the told
// generations gen−1−2L to gen−1−L ranked together), with its pairings.
func (m *gaLagMethod) breed(gen int) *gaLagGeneration {
	c, l := m.a.Config, m.a.Layout
	n := c.Population
	g := &gaLagGeneration{gen: gen}
	if gen <= m.lag { // nothing told yet: an initial population
		rng := m.a.RandV1(gen, search.StreamInit)
		g.pop = initial(c, l, gen, n, gen == 0, func() *rand.Rand { return rng }, func(slot int) string { return m.a.IndividualID(gen, slot) })
		g.born = slices.Clone(g.pop)
	} else {
		pool := m.pool(gen - 1 - m.lag)
		g.pop, g.born = Breed(c, l, pool, n, gen, m.a.RandV1(gen, search.StreamGA), func(slot int) string { return m.a.IndividualID(gen, slot) })
		breedSurrogate(c, l, m.window(gen-1-m.lag), pool, g.pop)
		for _, x := range g.pop {
			x.Stats = genomes.Stats{} // a generation's scores are its own games'
		}
	}
	g.pairs = peerPairs(m.a.RandV1(gen, search.StreamPairing), n, c.RaceRounds+1)
	if gen > m.lag && c.AdmitGames > 0 {
		g.tests = m.planTest(gen, m.told[gen-1-m.lag][0])
	}
	return g
}

// window is the surrogate model's observations for a generation bred from the pool of
// told generation newest: those of generations newest−SurrogateWindow+1 to newest, oldest
// first (those told and kept).
func (m *gaLagMethod) window(newest int) []SurrogateObservation {
	var w []SurrogateObservation
	for gen := max(0, newest-SurrogateWindow+1); gen <= newest; gen++ {
		if o, ok := m.obs[gen]; ok {
			w = append(w, o)
		}
	}
	return w
}

// planTest plans generation gen's admission test of winner, the best of generation
// gen−1−L (nil when none is needed: the winner is the paper's weights, was tested before
// or is the defender's genes): its rounds, in the order to ask them. The defender is the
// latest member admitted by the tests of generations up to gen−L−1 (the candidates of
// generations up to gen−2L−2): the tests told when generation gen−1−L is, also after a
// resume, whose hall of fame holds later ones.
func (m *gaLagMethod) planTest(gen int, winner *genomes.Genome) []*search.Round {
	reigning := -1
	for i := len(m.hall.hof) - 1; i >= 0; i-- {
		if m.hall.hof[i].Generation <= gen-2*m.lag-2 {
			reigning = i
			break
		}
	}
	t := m.hall.plan(m.a.Config, gen-1-m.lag, winner, reigning)
	if t == nil {
		return nil
	}
	l := m.a.Layout
	base := &genomes.Genome{Layout: l, X: l.Defaults(), ID: "baseline"}
	return m.hall.testRounds(t, l, base, func(stream uint64, gameRound int) *search.Round {
		return &search.Round{Gen: gen, Draw: gen, Stream: stream, Pairs: t.n, Label: fmt.Sprintf("generation %d admission", gen), GameRound: gameRound, Own: t}
	})
}

// tellTest takes a told round of test t, of generation g, and judges the test once its
// last round is told (hallOfFame.judge; a test that passes against a member no longer the
// latest admits nothing).
func (m *gaLagMethod) tellTest(g *gaLagGeneration, t *admissionTest, r *search.Round) error {
	if r.Gen != g.gen || g.told > 0 || t.told >= t.rounds {
		return fmt.Errorf("%s: a test round told out of order (generation %d in play, %d of its pairings told)", r.Label, g.gen, g.told)
	}
	if t.tell(r) {
		m.hall.judge(t, m.a.Config.AdmitZ, true)
		g.admission = t.a
	}
	return nil
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

// Tell credits a told pairing's games to both individuals of each of its pairs; the
// generation's last pairing completes it.
func (m *gaLagMethod) Tell(r *search.Round) (*search.Told, error) {
	if len(m.inPlay) == 0 {
		return nil, fmt.Errorf("%s told with no generation in play", r.Label)
	}
	g := m.inPlay[0]
	if t, ok := r.Own.(*admissionTest); ok {
		return nil, m.tellTest(g, t, r)
	}
	k, ok := r.Own.(int)
	per := m.a.Config.Population / 2
	if !ok || r.Gen != g.gen || g.told >= m.rounds || k != g.told || len(r.Players) != per {
		return nil, fmt.Errorf("%s: a pairing told out of order (generation %d, pairing %d expected)", r.Label, g.gen, g.told)
	}
	g.told++
	if m.a.Config.Surrogate == config.SurrogateOn {
		g.games = append(g.games, r.Games...)
	}
	for j, p := range g.pairs[k*per : (k+1)*per] {
		s := r.Players[j].Stats
		a, b := g.pop[p[0]], g.pop[p[1]]
		a.Stats, b.Stats = a.Stats.Add(s), b.Stats.Add(mirror(s))
	}
	if g.told < m.rounds {
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
	if m.a.Config.Surrogate == config.SurrogateOn {
		m.obs[g.gen] = ObserveGeneration(m.a.Layout, ranked, g.games)
		g.games = nil
		for gen := range m.obs {
			if gen < g.gen-m.lag-SurrogateWindow { // no window from now on reaches it
				delete(m.obs, gen)
			}
		}
	}
	return m.generation(g, ranked), nil
}

// champion is the run's champion after told generation gen (ranked best first): the hall
// of fame's (hallChampion, with the hall as the summary shows it) or, with
// ChampionPopulation, the centre of the generation's better half.
func (m *gaLagMethod) champion(gen int, ranked []*genomes.Genome) search.Leader {
	c := m.a.Config
	if c.Champion == config.ChampionPopulation || c.AdmitGames == 0 {
		rec, x := m.centre(gen)
		return search.Leader{ID: rec.ID, Genes: x, Score: math.NaN()}
	}
	return m.hall.leader(c, m.a.Layout, m.centreID, m.a.IndividualID(0, 0), ranked)
}

// centreID names the hall of fame's centre: the genome in slot Population of the
// generation whose test admitted the latest member (the centre changes only then).
func (m *gaLagMethod) centreID() string {
	return m.a.IndividualID(m.hall.hof[len(m.hall.hof)-1].Generation+m.lag+1, m.a.Config.Population)
}

// centre is the champion with ChampionPopulation after told generation gen: the mean
// (meanCentre) of the better halves' centres (betterHalfCentre) of the told generations
// gen−L to gen, the newest of each interleaved line (those that exist). One generation's
// better half is a few individuals ranked by a few dozen games each; on the same 8 000
// held-out gomoku games, this mean measured +4.3 Elo (standard error 2.5) over the newest
// generation's centre alone at L = 2 (nine seeds, 44 000 games) and +3.9 (standard error
// 1.2) at L = 3 (nine seeds, 72 000 games); twice as many generations measured the same
// (docs/methods.md). Its parents are generation gen's best and the last of its better half.
func (m *gaLagMethod) centre(gen int) (record.GenomeRecord, []float64) {
	ranked := m.told[gen]
	var xs [][]float64
	for g := max(0, gen-m.lag); g < gen; g++ {
		x, _ := population.BetterHalfCentre(m.a.Layout, m.told[g])
		xs = append(xs, x)
	}
	x, last := population.BetterHalfCentre(m.a.Layout, ranked)
	if len(xs) > 0 {
		x = population.MeanCentre(m.a.Layout, append(xs, x))
	}
	return record.GenomeRecord{ID: m.a.IndividualID(gen, m.a.Config.Population), Born: gen, Operator: config.OpPopulationCentre,
		Parents: []string{ranked[0].ID, last}, Genes: m.a.Layout.Named(x)}, x
}

// generation is what the loop stores of told generation g (ranked best first): its
// individuals, genomes born in it, the champion and the method state.
func (m *gaLagMethod) generation(g *gaLagGeneration, ranked []*genomes.Genome) *search.Told {
	l, c := m.a.Layout, m.a.Config
	champ := m.champion(g.gen, ranked)
	st := LaggedState{}
	rec := record.GenerationRecord{Admission: g.admission}
	for _, x := range g.pop {
		rec.Opponents = append(rec.Opponents, x.ID)
	}
	for _, x := range g.born {
		rec.NewGenomes = append(rec.NewGenomes, record.GenomeRecord{ID: x.ID, Born: x.Born, Operator: x.Op, Parents: x.Parents, Genes: l.Named(x.X)})
	}
	switch {
	case c.Champion == config.ChampionPopulation || c.AdmitGames == 0:
		centre, _ := m.centre(g.gen)
		rec.NewGenomes = append(rec.NewGenomes, centre)
	case c.Champion == config.ChampionCentre && len(m.hall.hof) >= 2 && g.admission != nil && g.admission.Admitted:
		// The hall of fame's new centre, stored whether or not it is the champion yet (as
		// the generational GA's centreBorn).
		rec.NewGenomes = append(rec.NewGenomes, m.hall.centreRecord(l, c.AdmitZ, m.centreID(), g.gen))
	}
	if c.AdmitGames > 0 {
		rec.HallOfFame = slices.Clone(m.hall.hof)
	}
	if o, ok := m.obs[g.gen]; ok {
		st.Surrogate = &o
	}
	for _, x := range ranked {
		st.Ranked = append(st.Ranked, LaggedIndividual{ID: x.ID, Op: x.Op, Parents: x.Parents, Born: x.Born, Genes: l.Named(x.X), Stats: x.Stats})
	}
	population.RankedFields(&rec, l, ranked)
	return toldOf(rec, func() any { return st }, champ, ranked)
}
