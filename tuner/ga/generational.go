package ga

import (
	"fmt"
	"maps"
	"math"
	"math/rand"
	"slices"
	"sort"

	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/population"
	"evotune/tuner/record"
	"evotune/tuner/schedule"
	"evotune/tuner/search"

	"github.com/MaxHalford/eaopt"
)

// The generational GA (config.Config.Method "ga" without a lag), a method on the run loop
// (search.Method) on eaopt's population and model:
//
//   - Generation 0 is the paper's weights and perturbations of them (or random genomes).
//     A generation's games are one round of its pairings of peers (the default: RaceRounds+1
//     random pairings of the population, each a draw of openings, search.Round.Streams;
//     the second of each pair credited with the mirror of the first's games) or its racing
//     rounds against the reference opponents, one after another (the better half of each
//     plays the next). Every draw of a generation is Exclusive, after the ones before it:
//     its pairings or racing rounds, then its admission test's and its defence's.
//   - Told its games, the generation is ranked (eaopt's Evaluate: fitness 1 − score;
//     SortIndividuals) and its race winner tested for the hall of fame (selection.go): two
//     rounds, the candidate's test (with the defender on the same openings, or head to
//     head) and the defender's own games. With testsBehind the generation waits, pending,
//     while the next ones are bred and played: its test is asked behind the next
//     generation's pairings (on the local slots at once, planned again when a test before
//     it admits: advance, replan), and the generation is stored once its test is judged,
//     in order (a tell may so complete several: Backlog).
//   - Generation g+1 is bred by eaopt's model (model: elites, tournaments, crossover,
//     mutation, and a surrogate model's child) once g is told and at most testsDeep
//     generations are pending, unless the budget, counted at a size the games' speed never
//     changes (inPlay), is spent or the run has its Generations.
//   - While a generation's pairings end, the next generation is guessed from them (Guess:
//     the games in play taken as draws) and the loop plays its pairings ahead on the slots
//     left free, keeping them when the generation really bred plays the same games.
//   - The seed fixes every draw (each a stream of its generation), so a seeded run is the
//     same whatever the number of workers or their speed, and after resume (Restore: the
//     saved generation's population, the hall of fame and the surrogate model's games).

// Generational is the generational GA on the run loop; made by NewGenerational, one a run.
type Generational struct {
	a    *search.MethodEnv
	cfg  config.Config
	opts Options
	pop  *eaopt.Population // the generation in play or last told, in breeding order
	cur  *loopGen          // the generation in play or last told (nil before generation 0)
	hall hallOfFame
	// window is the surrogate model's observations: the peer games of the newest
	// SurrogateWindow generations told, oldest first (config.Config.Surrogate).
	window []SurrogateObservation
	// queue holds the admission tests' rounds planned and not yet asked; pending the
	// generations told and not yet complete, oldest first (testsBehind: their tests judged
	// in order); done the generations completed by the last tell and not yet returned
	// (Backlog), of numbers doneGens and distinct games doneGames. The loop stores what a
	// tell returns after the asks that follow it, so the budget counts those games until
	// the next tell (unstored).
	queue     []*search.Round
	pending   []*loopGen
	done      []*search.Told
	doneGens  []int
	doneGames []int
	unstored  int      // the distinct games of the generations completed and not yet stored
	returned  int      // of those, the ones the last tell returned
	ending    bool     // no more generations are bred
	next      *loopGen // the generation model bred
	// guessed is the last round guessed (Guess); tried and used count the generations
	// that had one and those whose games it planned (aheadPays' rule).
	guessed             *search.Round
	tried, used, fitted int
	replans             int // tests planned again (replan)
	// For the budget (inPlay): newest is the newest pending generation; saved the last
	// testsDeep completed generations' race winners and the games of their admission tests;
	// hofAfter the hall of fame's size after each of them; hofFrom its size when the run
	// was resumed (0: a new run); winners the generation each race winner first won.
	newest   int
	saved    map[int]savedTest
	hofAfter map[int]int
	hofFrom  int
	winners  map[string]int
}

// loopGen is a generation of Generational: its individuals, in breeding order, and those
// born in it; the references it plays (race) and what it stores as its opponents; its pairs (peers:
// pairing d's pairs at d·⌊P/2⌋, first plays second) or the racing players and round; its
// games told so far (rows and distinct games); once told, its ranking and fitness; and its
// admission test (planned: decided, test nil when none is played).
type loopGen struct {
	gen       int
	pop       []*genomes.Genome
	born      []*genomes.Genome
	refs      []*genomes.Genome
	outside   []schedule.Opponent
	opponents []string
	pairs     [][2]int
	players   []int
	round     int
	games     []record.GameResult
	distinct  int
	ranked    []*genomes.Genome
	fits      []float64
	ask       *search.Round // its next racing round, planned and not yet asked
	planned   bool
	reigning  int // the hall of fame's last member when its test was planned (−1: none)
	test      *loopTest
	adm       *record.Admission
}

// loopTest is an admission test of Generational: its decision (plan), its rounds asked and
// told, and what they gave: the candidate's record and pair scores, the
// defender's pair scores on the same openings and its own games.
type loopTest struct {
	admissionTest
	g        *loopGen
	asked    bool
	rs       []*search.Round // its rounds, once asked
	distinct int
}

// NewGenerational makes the generational GA for the run's method environment a (its
// Config and RunID set again by the run before Restore and the first Ask).
func NewGenerational(a *search.MethodEnv, opts Options) *Generational {
	return &Generational{a: a, cfg: a.Config, opts: opts, hall: hallOfFame{tested: map[string]bool{}},
		saved: map[int]savedTest{}, hofAfter: map[int]int{}, winners: map[string]int{}}
}

// Window: a generation's games, and the two rounds of each pending generation's admission
// test (up to testsDeep+1 generations pending) behind them.
func (m *Generational) Window() int { return 2*testsDeep + 3 }

// KeepsBudget: the GA counts the budget itself (inPlay), its admission tests at a size the
// games' speed never changes.
func (m *Generational) KeepsBudget() {}

// testsBehind reports whether the GA plays each generation's admission test behind the next
// generations' pairings, so that no game slot waits for a test, nor for a generation's
// slowest pairing. Only where nothing of the next generations depends on the test: peers
// selection (a race would play the hall of fame), and no checkpoints (which measure the
// champion the test may change, and may end the run). Each test is planned once every test
// before it is judged, against the hall of fame as it stands, so it is the test the run
// with tests in turn plays, and the generation is stored once its test is judged: tests,
// hall of fame and records are in generation order, and a generation's games, genomes and
// test are those of the run with tests in turn. Only the game budget's last generation may
// differ (inPlay).
func (m *Generational) testsBehind() bool {
	c := m.cfg
	return !m.opts.TestsInTurn && c.Selection == config.SelectionPeers && c.AdmitGames > 0 && c.VerifyEvery == 0
}

// keep is how many generations may be pending when the next is bred.
func (m *Generational) keep() int {
	if m.testsBehind() {
		return testsDeep
	}
	return 0
}

// fitnessOf is every genome's Evaluator: 1 − its score over its games of the generation.
func fitnessOf(g *genomes.Genome) (float64, error) { return 1 - g.Stats.Score(), nil }

// Describe says how the GA searches, after "tuning GAME" in tune's header: the
// population, the run's length, racing (or the pairings of peers) and the hall of fame's
// test.
func (m *Generational) Describe(length string) (string, []string) {
	c := m.a.Config
	scoring := fmt.Sprintf("%d games per racing round, %d rounds", c.Games, c.RaceRounds)
	if c.Selection == config.SelectionPeers {
		scoring = fmt.Sprintf("peers: %d pairings of %d games", c.RaceRounds+1, c.Games)
	}
	admission := fmt.Sprintf("admission %d games at z=%g", c.AdmitGames, c.AdmitZ)
	if c.AdmitGames == 0 {
		admission = "no hall of fame"
	}
	if c.Surrogate == config.SurrogateOn {
		scoring += ", a surrogate model's child each generation from the third"
	}
	return fmt.Sprintf(": population %d, %s, %s, %s", c.Population, length, scoring, admission), nil
}

// Restore takes up the population, the hall of fame and the admission tests of the last
// saved generation, the next generation to be bred from it; the error names what of st
// does not fit the configuration.
func (m *Generational) Restore(st record.ResumeState) (search.Leader, error) {
	m.cfg = m.a.Config
	if len(st.Population) != m.cfg.Population {
		return search.Leader{}, fmt.Errorf("resume: generation %d has %d individuals, the config says %d", st.LastGeneration, len(st.Population), m.cfg.Population)
	}
	g := &loopGen{gen: st.LastGeneration}
	for _, r := range st.Population {
		x, err := m.a.Layout.FromNamed(r.Genes)
		if err != nil {
			return search.Leader{}, fmt.Errorf("resume: individual %s: %w", r.ID, err)
		}
		g.pop = append(g.pop, &genomes.Genome{Layout: m.a.Layout, X: x, ID: r.ID, Op: r.Op, Parents: r.Parents, Born: r.Born,
			Stats: r.Stats, Round: r.Round, Mutation: m.cfg.Mutation, Evaluator: fitnessOf})
	}
	if err := m.hall.restore(m.a.Layout, st); err != nil {
		return search.Leader{}, err
	}
	for _, id := range st.Tested {
		m.winners[id] = -1
	}
	m.hofFrom = len(m.hall.hof)
	if m.cfg.Surrogate == config.SurrogateOn {
		for _, raw := range st.MethodStates[max(0, len(st.MethodStates)-SurrogateWindow):] {
			var o SurrogateObservation
			if err := search.DecodeState(raw, &o); err != nil {
				return search.Leader{}, fmt.Errorf("resume: the surrogate model's games: %w", err)
			}
			m.window = append(m.window, o)
		}
	}
	m.setPop(g)
	if err := m.rank(g); err != nil {
		return search.Leader{}, err
	}
	m.cur = g
	return m.leader(g.gen, g.pop), nil // the stored order is the rank order
}

// setPop makes g's individuals eaopt's population, unscored.
func (m *Generational) setPop(g *loopGen) {
	m.pop = &eaopt.Population{}
	for _, x := range g.pop {
		x.Evaluator = fitnessOf
		m.pop.Individuals = append(m.pop.Individuals, eaopt.Individual{Genome: x, Fitness: math.Inf(1), ID: x.ID})
	}
}

// rank scores g's individuals (eaopt's Evaluate) and ranks them (SortIndividuals).
func (m *Generational) rank(g *loopGen) error {
	if err := m.pop.Individuals.Evaluate(false); err != nil {
		return err
	}
	indis := append(eaopt.Individuals(nil), m.pop.Individuals...)
	SortIndividuals(indis)
	g.ranked, g.fits = make([]*genomes.Genome, len(indis)), make([]float64, len(indis))
	for i, in := range indis {
		g.ranked[i], g.fits[i] = in.Genome.(*genomes.Genome), in.Fitness
	}
	return nil
}

// first makes generation 0: slot 0 is the paper's weights, the others perturbations of
// them (or random genomes), each from its own seed of generation 0's stream.
func (m *Generational) first() *loopGen {
	c, l := m.cfg, m.a.Layout
	rng := m.a.Rand(0, search.StreamInit)
	g := &loopGen{gen: 0}
	// Each individual on a source of its own, seeded from the generation's stream.
	next := func() *rand.Rand { return rand.New(rand.NewSource(int64(rng.Uint64() >> 1))) }
	g.pop = initial(c, l, 0, c.Population, true, next, func(slot int) string { return m.a.IndividualID(0, slot) })
	g.born = slices.Clone(g.pop)
	m.setPop(g)
	return g
}

// model is the generational model with elitism: the best Elite individuals by rank survive
// unchanged (keeping their IDs; they play fresh games each generation); the rest are bred
// by rank tournament selection, uniform crossover and mutation (Breed), the last one, once
// two generations are told, the surrogate model's best genome near the better half's
// centre (Config.Surrogate). It implements eaopt.Model.
type model struct{ m *Generational }

// Validate implements eaopt.Model.
func (model) Validate() error { return nil }

// Apply implements eaopt.Model: it replaces pop by the next generation (m.next), bred from
// pop ranked, with randomness from the generation's own stream.
func (md model) Apply(pop *eaopt.Population) error {
	m := md.m
	gen := m.cur.gen + 1
	rng := m.a.RandV1(gen, search.StreamGA)
	pop.RNG = rng
	old := pop.Individuals
	SortIndividuals(old)
	n := len(old)
	ranked := make([]*genomes.Genome, n)
	for i, in := range old {
		ranked[i] = in.Genome.(*genomes.Genome)
	}
	next, born := Breed(m.cfg, m.a.Layout, ranked, n, gen, rng, func(slot int) string { return m.a.IndividualID(gen, slot) })
	breedSurrogate(m.cfg, m.a.Layout, m.window, ranked, next)
	for _, g := range next {
		g.Stats, g.Round = genomes.Stats{}, 0
	}
	m.next = &loopGen{gen: gen, pop: next, born: born}
	pop.Individuals = make(eaopt.Individuals, n)
	for i, g := range next {
		g.Evaluator = fitnessOf
		pop.Individuals[i] = eaopt.Individual{Genome: g, Fitness: math.Inf(1), ID: g.ID}
	}
	return nil
}

// games plans generation g's games: its pairings (one round) or its first racing round.
func (m *Generational) games(g *loopGen) (*search.Round, error) {
	c := m.cfg
	for _, x := range g.pop {
		x.Stats, x.Round = genomes.Stats{}, 0
	}
	if c.Selection == config.SelectionPeers {
		for _, x := range g.pop {
			g.opponents = append(g.opponents, x.ID)
		}
		n := len(g.pop)
		g.pairs = peerPairs(m.a.RandV1(g.gen, search.StreamPairing), n, c.RaceRounds+1)
		r := &search.Round{Gen: g.gen, Exclusive: true, OneEach: true, Pairs: c.Games / 2, Label: "pairings", Own: g,
			GuessNext: len(c.Opponents) == 0}
		if k := m.surrogateSlot(n); k >= 0 {
			r.Held = []string{g.pop[k].ID}
		}
		r.DrawAhead = append(m.testDraw(g.gen), m.drawsOf(g.gen+1)...)
		for d := 0; d <= c.RaceRounds; d++ {
			r.Streams = append(r.Streams, search.StreamOpenings+uint64(d)<<4)
		}
		for _, p := range g.pairs {
			a, b := g.pop[p[0]], g.pop[p[1]]
			r.Players = append(r.Players, &genomes.Genome{Layout: a.Layout, X: a.X, ID: a.ID})
			r.Opponents = append(r.Opponents, b)
		}
		return r, nil
	}
	g.refs = append(g.refs, m.baseline())
	for _, h := range m.hall.hof[max(0, len(m.hall.hof)-c.Champions):] {
		g.refs = append(g.refs, &genomes.Genome{Layout: m.a.Layout, X: h.Genes, ID: h.ID})
	}
	for _, o := range c.Opponents {
		argv, _, _ := protocol.ParseCommand(o)
		spec := c.OpponentSpec(argv)
		g.outside = append(g.outside, schedule.Opponent{ID: spec.Name(), Ext: spec})
	}
	for _, o := range g.refs {
		g.opponents = append(g.opponents, o.ID)
	}
	for _, o := range g.outside {
		g.opponents = append(g.opponents, o.ID)
	}
	g.players = make([]int, len(g.pop))
	for i := range g.players {
		g.players[i] = i
	}
	return m.raceRound(g), nil
}

// raceRound is generation g's racing round g.round: its players against its references
// on fresh openings of the round's stream.
func (m *Generational) raceRound(g *loopGen) *search.Round {
	r := &search.Round{Gen: g.gen, Exclusive: true, Stream: search.StreamOpenings + uint64(g.round)<<4, Pairs: m.cfg.Games / 2,
		Opponents: g.refs, Outside: g.outside, GameRound: g.round, Label: fmt.Sprintf("round %d", g.round), Own: g}
	for _, i := range g.players {
		r.Players = append(r.Players, g.pop[i])
	}
	if g.round < m.cfg.RaceRounds {
		r.DrawAhead = []arena.DrawKey{{Gen: g.gen, Stream: search.StreamOpenings + uint64(g.round+1)<<4, N: r.Pairs, After: (g.round + 1) * r.Pairs}}
	} else {
		r.DrawAhead = m.testDraw(g.gen)
	}
	if g.round == 0 {
		r.DrawAhead = append(r.DrawAhead, m.drawsOf(g.gen+1)...)
	}
	return r
}

// drawsOf is generation gen's draws, made ahead of their turn (search.Round.DrawAhead):
// every round of its pairings or race, then its admission test's and its defence's.
func (m *Generational) drawsOf(gen int) []arena.DrawKey {
	c := m.cfg
	var keys []arena.DrawKey
	after := 0
	for r := 0; r <= c.RaceRounds; r++ {
		keys = append(keys, arena.DrawKey{Gen: gen, Stream: search.StreamOpenings + uint64(r)<<4, N: c.Games / 2, After: after})
		after += c.Games / 2
	}
	if n := c.AdmitGames / 2; n > 0 {
		keys = append(keys, arena.DrawKey{Gen: gen, Stream: search.StreamAdmit, N: n, After: after},
			arena.DrawKey{Gen: gen, Stream: search.StreamDefence, N: n, After: after + n})
	}
	return keys
}

// testDraw is generation gen's admission test's draw once its games are all drawn (none
// without a hall of fame).
func (m *Generational) testDraw(gen int) []arena.DrawKey {
	c := m.cfg
	if c.AdmitGames == 0 {
		return nil
	}
	return []arena.DrawKey{{Gen: gen, Stream: search.StreamAdmit, N: c.AdmitGames / 2, After: (c.RaceRounds + 1) * (c.Games / 2)}}
}

// baseline is the paper's weights (or the outside engine's defaults) as an opponent.
func (m *Generational) baseline() *genomes.Genome {
	return &genomes.Genome{Layout: m.a.Layout, X: m.a.Layout.Defaults(), ID: "baseline"}
}

// Ask returns the generation's games, the next generation's once the one before is told
// and no more than keep generations are pending (bred from it: model), then the
// admission tests planned; nil once no more generations are bred and every pending one is
// stored.
func (m *Generational) Ask() (*search.Round, error) {
	if m.cur == nil { // generation 0
		m.cfg = m.a.Config
		m.cur = m.first()
		return m.games(m.cur)
	}
	if r := m.cur.ask; r != nil { // the generation's next racing round
		m.cur.ask = nil
		return r, nil
	}
	if m.cur.ranked != nil && !m.ending && len(m.pending) <= m.keep() {
		next := m.cur.gen + 1
		if c := m.cfg; c.Generations > 0 && next > c.Generations || m.a.OverBudget(m.inPlay()) {
			m.ending = true
		} else {
			if err := (model{m}).Apply(m.pop); err != nil {
				return nil, err
			}
			m.cur, m.next = m.next, nil
			r, err := m.games(m.cur)
			if err == nil {
				m.adopted(r)
			}
			return r, err
		}
	}
	if len(m.queue) > 0 {
		r := m.queue[0]
		m.queue = m.queue[1:]
		return r, nil
	}
	if m.ending && len(m.pending) == 0 {
		return nil, nil
	}
	return nil, search.ErrAskLater
}

// Tell takes a round of generation games or of an admission test; it returns the first
// generation it completes (Backlog: the others).
func (m *Generational) Tell(r *search.Round) (*search.Told, error) {
	m.unstored -= m.returned // stored by now
	m.returned = 0
	switch own := r.Own.(type) {
	case *loopGen:
		if err := m.tellGames(own, r); err != nil {
			return nil, err
		}
	case *loopTest:
		if err := m.tellTest(own, r); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s: a round the GA did not ask", r.Label)
	}
	_, out, err := m.Backlog()
	return out, err
}

// Backlog returns the next generation the last tell completed, in order.
func (m *Generational) Backlog() (int, *search.Told, error) {
	if len(m.done) == 0 {
		return 0, nil, nil
	}
	out, gen := m.done[0], m.doneGens[0]
	m.returned += m.doneGames[0]
	m.done, m.doneGens, m.doneGames = m.done[1:], m.doneGens[1:], m.doneGames[1:]
	return gen, out, nil
}

// tellGames credits a told round of generation g's games: a pairing's to both players of
// each pair (the second the mirror of the first's), a racing round's to its players, whose
// better half plays the next; the last ranks the generation (told).
func (m *Generational) tellGames(g *loopGen, r *search.Round) error {
	if g != m.cur || g.ranked != nil {
		return fmt.Errorf("%s: generation %d's games told out of order", r.Label, g.gen)
	}
	g.games = append(g.games, r.Games...)
	g.distinct += r.Distinct
	if m.cfg.Selection == config.SelectionPeers {
		if len(r.Players) != len(g.pairs) {
			return fmt.Errorf("%s: %d pairs told, %d asked", r.Label, len(r.Players), len(g.pairs))
		}
		for j, p := range g.pairs {
			s := r.Players[j].Stats
			a, b := g.pop[p[0]], g.pop[p[1]]
			a.Stats, b.Stats = a.Stats.Add(s), b.Stats.Add(mirror(s))
		}
		return m.told(g)
	}
	for _, i := range g.players {
		g.pop[i].Round = g.round
	}
	if g.round == m.cfg.RaceRounds || len(g.players) <= 1 {
		return m.told(g)
	}
	// The better half goes on: by score, then ID (a total order).
	sort.SliceStable(g.players, func(a, b int) bool {
		pa, pb := g.pop[g.players[a]], g.pop[g.players[b]]
		if sa, sb := pa.Stats.Score(), pb.Stats.Score(); sa != sb {
			return sa > sb
		}
		return pa.ID < pb.ID
	})
	g.players = g.players[:(len(g.players)+1)/2]
	sort.Ints(g.players)
	g.round++
	g.ask = m.raceRound(g)
	return nil
}

// told ranks generation g, its games all told, and makes it pending: its admission test is
// planned once every test before it is judged (advance).
func (m *Generational) told(g *loopGen) error {
	if err := m.rank(g); err != nil {
		return err
	}
	if m.cfg.Surrogate == config.SurrogateOn {
		m.window = append(m.window, ObserveGeneration(m.a.Layout, g.ranked, g.games))
		m.window = m.window[max(0, len(m.window)-SurrogateWindow):]
	}
	m.pending = append(m.pending, g)
	if m.testsBehind() {
		m.newest = g.gen
		if _, ok := m.winners[g.ranked[0].ID]; !ok {
			m.winners[g.ranked[0].ID] = g.gen
		}
	}
	m.advance()
	return nil
}

// advance completes the pending generations, oldest first, whose admission test is judged
// or that have none, and plans and queues the test of the oldest one left; where a round
// dropped stops its games (MethodEnv.DropsStopped: this process's slots), the tests of all
// the pending generations, each against the hall of fame as it stands (the tests before
// it taken to fail), planned again when one before it admits its candidate (replan). A
// test judged is so always the one the run with tests in turn plays.
func (m *Generational) advance() {
	for len(m.pending) > 0 {
		p := m.pending[0]
		m.planTest(p)
		if p.test != nil && p.adm == nil {
			break
		}
		m.pending = m.pending[1:]
		m.complete(p)
	}
	for i, p := range m.pending {
		if i > 0 && !m.a.DropsStopped {
			break // a test planned again could not stop its games: each waits for the ones before
		}
		m.planTest(p)
		if t := p.test; t != nil && !t.asked {
			t.asked, t.g = true, p
			t.rs = m.testRounds(t)
			m.queue = append(m.queue, t.rs...)
		}
	}
}

// planTest plans pending generation p's admission test, once (plan), against the hall of
// fame as it stands.
func (m *Generational) planTest(p *loopGen) {
	if !p.planned {
		p.test = m.plan(p.gen, p.ranked[0], &m.hall)
		p.planned, p.reigning = true, len(m.hall.hof)-1
	}
}

// replan drops the admission tests of the pending generations after the oldest that were
// planned against a hall of fame since grown (a test before them admitted its candidate):
// their rounds not yet told are dropped (search.Round.Dropped) and advance plans them again,
// on the same openings, against the new defender.
func (m *Generational) replan() {
	for _, q := range m.pending[1:] {
		if !q.planned || q.reigning == len(m.hall.hof)-1 {
			continue
		}
		if t := q.test; t != nil {
			delete(m.hall.tested, q.ranked[0].ID) // marked by the plan replaced
			for _, r := range t.rs {
				if i := slices.Index(m.queue, r); i >= 0 {
					m.queue = slices.Delete(m.queue, i, i+1)
				} else {
					r.Dropped = true
				}
			}
		}
		q.planned, q.test = false, nil
		m.replans++
	}
}

// Replans counts the admission tests planned again because a test before them admitted
// its candidate.
func (m *Generational) Replans() int { return m.replans }

// plan decides generation gen's admission test of its race winner against the hall of fame
// as it stands (hallOfFame.plan), marking the winner in h's tested; nil when none is
// played.
func (m *Generational) plan(gen int, winner *genomes.Genome, h *hallOfFame) *loopTest {
	t := h.plan(m.cfg, gen, winner, len(h.hof)-1)
	if t == nil {
		return nil
	}
	return &loopTest{admissionTest: *t}
}

// testRounds is test t's rounds (hallOfFame.testRounds), each drawn after the
// generation's openings before it (search.Round.Exclusive).
func (m *Generational) testRounds(t *loopTest) []*search.Round {
	return m.hall.testRounds(&t.admissionTest, m.a.Layout, m.baseline(), func(stream uint64, gameRound int) *search.Round {
		return &search.Round{Gen: t.g.gen, Exclusive: true, Stream: stream, Pairs: t.n, Label: "admission", GameRound: gameRound, Own: t}
	})
}

// tasks is how many distinct games test t plays: each of its matchups 2·n, but one of
// identical genes (none: identical genomes never play).
func (m *Generational) tasks(t *loopTest) int {
	base := fmt.Sprint(m.a.Layout.Defaults())
	games := func(x []float64, opp string) int {
		if fmt.Sprint(x) == opp {
			return 0
		}
		return 2 * t.n
	}
	if t.reigning < 0 {
		return games(t.winner, base)
	}
	def := m.hall.hof[t.reigning].Genes
	if t.headToHead {
		n := games(t.winner, fmt.Sprint(def))
		if t.defends {
			n += games(def, base)
		}
		return n
	}
	return games(t.winner, base) + 2*games(def, base)
}

// tellTest takes a told round of test t, and judges the test once its last round is told
// (hallOfFame.judge): the defender's own games go to its record, the candidate is
// admitted when it passed; the pending generations then advance.
func (m *Generational) tellTest(t *loopTest, r *search.Round) error {
	g := t.g
	if len(m.pending) == 0 || m.pending[0] != g || t.told >= t.rounds {
		return fmt.Errorf("%s: an admission test told out of order", r.Label)
	}
	t.distinct += r.Distinct
	g.games = append(g.games, r.Games...)
	if !t.tell(r) {
		return nil
	}
	m.hall.judge(&t.admissionTest, m.cfg.AdmitZ, false)
	g.adm = t.a
	g.distinct += t.distinct
	if t.a.Admitted {
		m.replan()
	}
	m.advance()
	return nil
}

// complete takes pending generation p, its test judged (or none played), as stored: what
// the budget counts of it (saveOldest's), and its record, returned by the tell.
func (m *Generational) complete(p *loopGen) {
	if m.testsBehind() {
		tested := 0
		if p.test != nil {
			tested = p.test.distinct
		}
		m.saved[p.gen] = savedTest{winner: p.ranked[0], tested: tested}
		m.hofAfter[p.gen] = len(m.hall.hof)
		delete(m.saved, p.gen-testsDeep)
		delete(m.hofAfter, p.gen-testsDeep)
	}
	m.unstored += p.distinct
	m.done = append(m.done, m.record(p))
	m.doneGens = append(m.doneGens, p.gen)
	m.doneGames = append(m.doneGames, p.distinct)
}

// record is what the loop stores of generation p (the loop adds its games, openings,
// times and checkpoint), with the champion after it: its individuals ranked, the genomes
// born in it (the hall of fame's new centre and the population's centre included), its
// admission test and the hall of fame after it.
func (m *Generational) record(p *loopGen) *search.Told {
	l, c := m.a.Layout, m.cfg
	champ := m.leader(p.gen, p.ranked)
	rec := record.GenerationRecord{Opponents: slices.Clone(p.opponents), Admission: p.adm, HallOfFame: slices.Clone(m.hall.hof)}
	for i, g := range p.ranked {
		rec.Individuals = append(rec.Individuals, record.IndividualRecord{ID: g.ID, Rank: i + 1, Round: g.Round, Fitness: p.fits[i], Stats: g.Stats})
	}
	for _, g := range p.born {
		rec.NewGenomes = append(rec.NewGenomes, record.GenomeRecord{ID: g.ID, Born: g.Born, Operator: g.Op, Parents: g.Parents, Genes: l.Named(g.X)})
	}
	if g := m.centreBorn(p.gen); g != nil {
		rec.NewGenomes = append(rec.NewGenomes, *g)
	}
	if c.Champion == config.ChampionPopulation {
		g, _ := m.populationCentre(p.gen, p.ranked)
		rec.NewGenomes = append(rec.NewGenomes, g)
	}
	var state func() any
	if c.Surrogate == config.SurrogateOn {
		obs := ObserveGeneration(l, p.ranked, p.games)
		state = func() any { return obs }
	}
	population.FitnessFields(&rec, l, p.ranked, p.fits)
	return toldOf(rec, state, champ, p.ranked)
}

// toldOf is what the loop stores of a generation whose individuals are ranked (best
// first): its record rec (its best and champion set here), the method's state, the
// champion, and the progress line's best and mean scores and the champion's hall-of-fame
// centre (how many members) or, for a member, its Elo.
func toldOf(rec record.GenerationRecord, state func() any, champ search.Leader, ranked []*genomes.Genome) *search.Told {
	rec.Best, rec.Champion = ranked[0].ID, champ.ID
	out := &search.Told{Record: rec, State: state, Champion: champ, BestPlayer: ranked[0].ID, BestScore: ranked[0].Stats.Score(), MeanScore: 1 - rec.FitMean}
	if h := champ.Hall; h != nil {
		out.CentreOf = len(h.CentreOf)
		if h.Champion != nil && len(h.CentreOf) == 0 { // a centre has no record of its own
			if elo, _, ok := h.Champion.Estimate(); ok {
				out.ChampionElo = &elo
			}
		}
	}
	return out
}

// centreBorn is the genome of the hall of fame's new centre when generation gen admitted
// a member and the run's champion is the centre (Config.Champion), nil otherwise: stored
// with the generation whether or not the centre is the champion yet, so that it is there
// when a member's bound later makes it so. Its genome row has two parents, the member with
// the best lower bound (else the first) and the latest; every member is a parent: the hall
// of fame's rows admitted up to its generation.
func (m *Generational) centreBorn(gen int) *record.GenomeRecord {
	hof := m.hall.hof
	if m.cfg.Champion != config.ChampionCentre || len(hof) < 2 || hof[len(hof)-1].Generation != gen {
		return nil
	}
	r := m.hall.centreRecord(m.a.Layout, m.cfg.AdmitZ, m.centreID(), gen)
	return &r
}

// centreID names the hall of fame's centre: the genome in the slot after the population's
// of the generation that admitted the latest member (the centre changes only then).
func (m *Generational) centreID() string {
	return m.a.IndividualID(m.hall.hof[len(m.hall.hof)-1].Generation, m.cfg.Population)
}

// populationCentre is the genome of ChampionPopulation's champion after generation gen,
// whose individuals are ranked (best first): the centre of its better half.
func (m *Generational) populationCentre(gen int, ranked []*genomes.Genome) (record.GenomeRecord, []float64) {
	x, last := population.BetterHalfCentre(m.a.Layout, ranked)
	return record.GenomeRecord{ID: m.a.IndividualID(gen, m.cfg.Population), Born: gen, Operator: config.OpPopulationCentre,
		Parents: []string{ranked[0].ID, last}, Genes: m.a.Layout.Named(x)}, x
}

// leader is the run's champion after generation gen, ranked (best first), with the hall of
// fame as the summary shows it: with Config.Champion population, the centre of the
// generation's better half (populationCentre); without a hall of fame (AdmitGames 0), the
// rank-1 individual; otherwise the hall of fame's pick (HallChampion: its centre, its
// member with the best lower bound, or the baseline while none is above it).
func (m *Generational) leader(gen int, ranked []*genomes.Genome) search.Leader {
	c := m.cfg
	switch {
	case c.Champion == config.ChampionPopulation:
		rec, x := m.populationCentre(gen, ranked)
		return search.Leader{ID: rec.ID, Genes: x, Score: scoreOf(rec.ID, ranked), Hall: m.hall.view()}
	case c.AdmitGames == 0:
		return search.Leader{ID: ranked[0].ID, Genes: slices.Clone(ranked[0].X), Score: ranked[0].Stats.Score(), Hall: m.hall.view()}
	}
	return m.hall.leader(c, m.a.Layout, m.centreID, m.a.IndividualID(0, 0), ranked)
}

// inPlay is the games the generations not yet stored will have stored, with the tests of
// the newest testsDeep−1 generations counted at a size that never depends on the games'
// speed. After the newest generation N is told, every test up to N−testsDeep is judged when
// N+1 is bred: the tests of the pending generations up to N−testsDeep+1 count as planned
// now, in order against the hall of fame as it stands. Whether the later tests, N−1's and
// N's, are played against the hall of fame the run will leave depends on how fast the
// tests before them played, so each counts, stored or not, as the test it would be against
// the hall of fame after N−testsDeep (testSize). So the number of generations is the same
// whatever the workers. (A run resumed near its budget's end may stop a generation earlier
// or later: it counts its saved generations' tests as played.)
func (m *Generational) inPlay() int {
	n, final := m.unstored, m.newest-(testsDeep-1)
	hall := hallOfFame{hof: m.hall.hof, tested: maps.Clone(m.hall.tested)}
	for _, p := range m.pending {
		n += p.distinct
		t := p.test
		if !p.planned {
			t = m.plan(p.gen, p.ranked[0], &hall)
		}
		switch {
		case p.gen > final:
			n += m.testSize(p.ranked[0], p.gen, final-1)
		case t != nil:
			n += m.tasks(t)
		}
	}
	for gen, s := range m.saved {
		if gen > final {
			n += m.testSize(s.winner, gen, final-1) - s.tested
		}
	}
	return n
}

// testSize is the games of generation gen's admission test of winner against the hall of
// fame as generation `after` left it (hallOfFame.plan's matchups: none when the winner is
// the paper's weights or a winner of an earlier generation; the candidate's, and with a
// defender its test on the same openings, unless head to head, and its own games).
func (m *Generational) testSize(winner *genomes.Genome, gen, after int) int {
	c := m.cfg
	if first, ok := m.winners[winner.ID]; c.AdmitGames == 0 || winner.Op == genomes.OpBaseline || ok && first < gen {
		return 0
	}
	hof := m.hofFrom
	if h, ok := m.hofAfter[after]; ok {
		hof = h
	}
	n := 1
	if hof > 0 {
		h2h := c.Admission == config.AdmissionHeadToHead
		if !h2h {
			n++
		}
		if !h2h || c.Champion == config.ChampionBest || c.Champion == "" {
			n++
		}
	}
	return n * c.AdmitGames
}

// surrogateSlot is the slot of a generation of n whose genes the surrogate model may fit to
// every game of the generation before (the last child: model.Apply), −1 where none is.
func (m *Generational) surrogateSlot(n int) int {
	if m.cfg.Surrogate != config.SurrogateOn || n-1 < m.cfg.Elite || n < 2 {
		return -1
	}
	return n - 1
}

// Guess returns the pairings of the generation bred from generation r.Gen were its
// pairings told as r (search.Guesser; the loop plays them ahead while r's last games end):
// its individuals credited and ranked as told would rank them, bred as model breeds
// (the surrogate child's games held: Round.Held). Nil for any other round, and while
// guessing does not pay (aheadPays' rule): the guess is then only judged against the
// generation bred (adopted), not played.
func (m *Generational) Guess(r *search.Round) (*search.Round, error) {
	g, ok := r.Own.(*loopGen)
	if !ok || g != m.cur || g.ranked != nil || m.cfg.Selection != config.SelectionPeers || len(r.Players) != len(g.pairs) {
		return nil, nil
	}
	pop := make([]*genomes.Genome, len(g.pop))
	for i, x := range g.pop {
		c := x.Clone().(*genomes.Genome)
		c.Stats, c.Round = genomes.Stats{}, 0
		pop[i] = c
	}
	for j, p := range g.pairs {
		s := r.Players[j].Stats
		a, b := pop[p[0]], pop[p[1]]
		a.Stats, b.Stats = a.Stats.Add(s), b.Stats.Add(mirror(s))
	}
	indis := make(eaopt.Individuals, len(pop))
	for i, x := range pop {
		indis[i] = eaopt.Individual{Genome: x, Fitness: 1 - x.Stats.Score(), ID: x.ID}
	}
	SortIndividuals(indis)
	ranked := make([]*genomes.Genome, len(indis))
	for i, in := range indis {
		ranked[i] = in.Genome.(*genomes.Genome)
	}
	gen := g.gen + 1
	next, born := Breed(m.cfg, m.a.Layout, ranked, len(ranked), gen, m.a.RandV1(gen, search.StreamGA), func(slot int) string { return m.a.IndividualID(gen, slot) })
	guess, err := m.games(&loopGen{gen: gen, pop: next, born: born})
	if err != nil {
		return nil, nil // the real breeding meets it, if it is one
	}
	m.guessed = guess
	if !m.aheadPays() {
		return nil, nil
	}
	return guess, nil
}

// adopted counts, once a generation's pairings r are bred, whether the last guess of them
// planned the same games (aheadPays' rule): the same players and opponents, by genes, but
// the held ones.
func (m *Generational) adopted(r *search.Round) {
	q := m.guessed
	m.guessed = nil
	if q == nil || q.Gen != r.Gen {
		return
	}
	m.tried++
	same := len(q.Players) == len(r.Players)
	for j := 0; same && j < len(r.Players); j++ {
		held := slices.Contains(r.Held, r.Players[j].ID) || slices.Contains(r.Held, r.Opponents[j].ID)
		same = held || slices.Equal(q.Players[j].X, r.Players[j].X) && slices.Equal(q.Opponents[j].X, r.Opponents[j].X)
	}
	if same {
		m.used++
		for _, x := range m.cur.pop {
			if slices.Contains(r.Held, x.ID) && x.Op == OpSurrogate {
				m.fitted++
			}
		}
	}
}

// Guessed counts the generations bred after a guess of them (Guess), those whose guess
// planned their games (adopted: the games played ahead were the generation's) and, of
// those, the ones beside a surrogate model's child (its games held, played once bred).
func (m *Generational) Guessed() (guessed, adopted, fitted int) { return m.tried, m.used, m.fitted }

// Options are the generational GA's switches, for tests and replay benchmarks:
// KeepGuessing guesses the next generation however few guesses were adopted (aheadPays),
// TestsInTurn plays each admission test before the next generation (testsBehind). (The run
// loop's LoopOptions play no round ahead and draw in turn.)
type Options struct {
	KeepGuessing, TestsInTurn bool
}

// savedTest is a saved generation's race winner and the games of its admission test.
type savedTest struct {
	winner *genomes.Genome
	tested int
}

// testsDeep is the most generations not yet saved when the next is bred (testsBehind):
// how deep the admission tests queue behind the pairings, which never changes what is bred
// (unlike Config.GALag, the lag of the GA with generations in play, which breeds from
// older generations: galag.go). Generation g+1 is bred once generation g's pairings end
// and generation g−3's admission test is judged, so the tests of g−2 to g play on the
// slots that g+1's pairings leave free, and g+1's pairings on the slots a test's slowest
// games leave free. Replayed, depths of 2, 3 and 4 keep the same share of the slots busy
// (gomoku 90–91% of 16, connect6 94%, amazons 97–98%); 3 counts the budget as the GA did
// before tests were planned ahead (inPlay).
const testsDeep = 3

// Tested is how many race winners were tested for the hall of fame (or marked tested by a
// test planned).
func (m *Generational) Tested() int { return len(m.hall.tested) }

// aheadPays reports whether guessing the next generation pays in this run, so that the
// guess is played ahead: for the first aheadTrial generations with a guess, unless the
// run's slots outnumber its processors (MethodEnv.SlotsOverCores); after them, while at
// least one in aheadShare of those guesses planned the games the generation played
// (adopted). Every guess is judged, played or not, so a run whose guesses become right
// (a population that converges) plays them from then on. A guess is right when the
// generation's last results hardly move its ranking; where each result does (a noisy
// engine, small generations), nearly every guess is wrong, and its games, though on slots
// that would wait, take processor time from the games that count where the slots share
// processors: a Gomocup engine that sleeps 3 ms a move, 8 slots on this 2-core machine,
// had 4 or 5 of 21 guesses right, and its slots were 90% busy with the trial's guesses
// played, 92–93% with them judged only. Where each slot has a processor, a wrong guess
// costs only slots that would wait, and the trial's guesses are played (64 replayed
// gomoku slots: 78% busy with them played, 77% judged only).
func (m *Generational) aheadPays() bool {
	switch {
	case m.opts.KeepGuessing:
		return true
	case m.tried < aheadTrial:
		return !m.a.SlotsOverCores
	}
	return m.used*aheadShare >= m.tried
}

// aheadTrial and aheadShare: see aheadPays.
const (
	aheadTrial = 6
	aheadShare = 2
)
