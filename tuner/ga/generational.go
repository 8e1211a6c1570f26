package ga

import (
	"context"
	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/population"
	"evotune/tuner/record"
	"evotune/tuner/schedule"
	"evotune/tuner/search"
	"fmt"
	"math"
	"math/rand"
	randv2 "math/rand/v2"
	"reflect"
	"time"

	"github.com/MaxHalford/eaopt"
)

// The generational GA (config.Config.Method "ga" without a lag), on eaopt's population
// and model, its generations stepped by Search (step):
// generation 0 is the paper's weights and perturbations of them; every generation races
// its individuals against the reference opponents (games.go: playGeneration), eaopt's
// model (selection.go: model) keeps the elites and breeds the rest by tournament,
// crossover and mutation, the race's winner is tested for the hall of fame (selection.go:
// admit; with peers, behind the next generations' pairings: Generational.testsBehind), and the
// run's champion is the hall of fame's best member or its centre (config.Config.Champion).
// Its state between generations is the population and the hall of fame, both stored in
// their own tables.

// Options are the generational GA's switches, for tests and replay benchmarks: NoAhead
// plays no generation ahead (ahead.go), KeepGuessing guesses the next generation however
// few guesses were adopted (aheadPays), Unlagged plays each admission test before the next
// generation (testsBehind), InTurn draws each opening when it is asked, none ahead (drawNext).
type Options struct {
	NoAhead, KeepGuessing, Unlagged, InTurn bool
}

// Generational is the generational GA of a run, which it sees as a search.Host (the arena,
// budget, summary, events and storage) and a search.MethodEnv (layout, configuration, run
// ID and random streams); made by NewGenerational, one a run. Unlike a search.Method it
// runs its own loop of generations (Search, step).
type Generational struct {
	h    search.Host
	a    *search.MethodEnv
	cfg  config.Config // a.Config when the search or the restore began
	opts Options
	// g is the generation being filled, and hall the hall of fame (selection.go).
	g    generation
	hall hallOfFame
	// ctx is the search's; err the first error of a generation's step or save, which ends the
	// search; skipSave is true until the first callback of a resumed run, which re-reports
	// the saved generation.
	ctx      context.Context
	err      error
	skipSave bool
	// pairings, when set, plays a generation's pairings (playPairings: the admission
	// tests in play go on meanwhile).
	pairings func(tasks []arena.GameTask, label string) ([]engine.GameRecord, error)
	// made is the openings drawn ahead of their turn (drawNext; nil until the first), and
	// initRNG generation 0's random stream.
	made    *arena.Draws
	initRNG *randv2.Rand
	// slotCarry carries the slot time of games played elsewhere (a cluster) that did not
	// fit in the generation they were told in.
	slotCarry arena.SlotCarry
	// resumed is the population of the last saved generation, in rank order (nil: a new run).
	resumed []*genomes.Genome
	// pending are the generations whose pairings are played and that are not yet saved,
	// oldest first (testsBehind): the oldest's admission test is the one planned and in play.
	pending []*laggedGeneration
	// pairing is true while pairings are in play (a test planned then is queued behind
	// them at once; one planned between pairings is held until the next: settle).
	pairing bool
	// replans counts the admission tests planned again (replan).
	replans int
	// For the budget (inPlay): newest is the newest pending generation; saved the last
	// testLag saved generations' race winners and the games of their admission tests;
	// hofAfter the hall of fame's size after each of them; hofFrom its size when the run
	// was resumed (0: a new run); winners the generation each race winner first won.
	newest   int
	saved    map[int]savedTest
	hofAfter map[int]int
	hofFrom  int
	winners  map[string]int
	// meter, when the run's games share this process's game slots, measures their busy
	// time; mark and busy are the time and its reading when the last generation was saved.
	meter *arena.BusyMeter
	mark  time.Time
	busy  time.Duration
	// elsewhere is the runner's SlotMeter reading at mark (games played elsewhere).
	elsewhere time.Duration
	// next is the next generation's pairings played ahead (ahead.go; nil: none);
	// aheadUsed and aheadStopped count those adopted and those stopped, aheadFitted those
	// adopted beside a surrogate model's child, aheadTried the generations that had games
	// ahead (aheadPays); Options.NoAhead plays none.
	next         *pairingsInPlay
	nextOrder    []string // the guessed ranking (IDs, best first) that bred next
	aheadUsed    int
	aheadStopped int
	aheadFitted  int
	aheadTried   int
	// window is the surrogate model's observations (GASettings.Surrogate): the peer games
	// of the newest SurrogateWindow generations whose pairings are played, oldest first.
	window []SurrogateObservation
}

// NewGenerational makes the generational GA of the run h, whose method environment is a
// (its Config and RunID set again by the caller before Restore and Search).
func NewGenerational(h search.Host, a *search.MethodEnv, opts Options) *Generational {
	return &Generational{h: h, a: a, cfg: a.Config, opts: opts, hall: hallOfFame{tested: map[string]bool{}},
		saved: map[int]savedTest{}, hofAfter: map[int]int{}, winners: map[string]int{}}
}

// AheadStats counts a GA's generations whose pairings were played ahead (ahead.go):
// Adopted (the games really planned), Fitted (adopted beside a surrogate model's child),
// Stopped (others planned), Tried (the generations that had games ahead); InPlay is true
// while games ahead are in play.
type AheadStats struct {
	Adopted, Fitted, Stopped, Tried int
	InPlay                          bool
}

// Ahead counts the generations whose pairings were played ahead so far.
func (m *Generational) Ahead() AheadStats {
	return AheadStats{Adopted: m.aheadUsed, Fitted: m.aheadFitted, Stopped: m.aheadStopped, Tried: m.aheadTried, InPlay: m.next != nil}
}

// Replans counts the admission tests planned again because a test before them admitted
// its candidate.
func (m *Generational) Replans() int { return m.replans }

// Tested is how many race winners were tested for the hall of fame (or marked tested by a
// test in play).
func (m *Generational) Tested() int { return len(m.hall.tested) }

// event fills e with the run's state as the host does, for generation m.g.gen.
func (m *Generational) event(e record.Event) record.Event {
	m.h.SetGeneration(m.g.gen)
	return m.h.Event(e)
}

// checkpoint plays the held-out check of the champion after generation m.g.gen and
// counts its slot time in the generation's.
func (m *Generational) checkpoint() (*ladder.Verification, error) {
	m.h.SetGeneration(m.g.gen)
	v, slot, err := m.h.Checkpoint()
	m.g.slotTime += slot
	return v, err
}

// savedTest is a saved generation's race winner and the games of its admission test.
type savedTest struct {
	winner *genomes.Genome
	tested int
}

// Restore takes up the population, the hall of fame and the admission tests of the last
// saved generation; the search starts from that population, already scored, and its first
// step does not save it again. The error names what of st does not fit the
// configuration.
func (m *Generational) Restore(st record.ResumeState) error {
	m.cfg = m.a.Config
	if len(st.Population) != m.cfg.Population {
		return fmt.Errorf("resume: generation %d has %d individuals, the config says %d", st.LastGeneration, len(st.Population), m.cfg.Population)
	}
	for _, r := range st.Population {
		x, err := m.a.Layout.FromNamed(r.Genes)
		if err != nil {
			return fmt.Errorf("resume: individual %s: %w", r.ID, err)
		}
		m.resumed = append(m.resumed, &genomes.Genome{Layout: m.a.Layout, X: x, ID: r.ID, Op: r.Op, Parents: r.Parents, Born: r.Born,
			Stats: r.Stats, Round: r.Round, Mutation: m.cfg.Mutation, Evaluator: m.evaluate})
	}
	for _, h := range st.HallOfFame {
		x, err := m.a.Layout.FromNamed(h.Genes)
		if err != nil {
			return fmt.Errorf("resume: hall of fame %s: %w", h.ID, err)
		}
		m.hall.hof = append(m.hall.hof, record.HallOfFamer{ID: h.ID, Generation: h.Generation, Genes: x, Stats: h.Stats})
	}
	for _, id := range st.Tested {
		m.hall.tested[id] = true
		m.winners[id] = -1
	}
	m.hofFrom = len(m.hall.hof)
	if m.cfg.Surrogate == config.SurrogateOn {
		for _, raw := range st.MethodStates[max(0, len(st.MethodStates)-SurrogateWindow):] {
			var o SurrogateObservation
			if err := search.DecodeState(raw, &o); err != nil {
				return fmt.Errorf("resume: the surrogate model's games: %w", err)
			}
			m.window = append(m.window, o)
		}
	}
	m.h.Summary().Tests, m.h.Summary().Closest = len(st.Tested), st.Closest
	m.g.gen = st.LastGeneration
	m.h.SetGeneration(m.g.gen)
	m.skipSave = true
	m.setChampion(m.resumed) // the run's ID is set: the default champion names its 0-g0-00
	return nil
}

// Describe says how the GA searches, after "tuning GAME" in tune's header: the
// population, the run's length, racing (or the pairings of peers) and the hall of fame's
// test.
func (m *Generational) Describe(length string) (string, []string) {
	c := m.cfg
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

// Search steps the run's remaining generations: generation 0 (or, resumed, the saved
// generation, already played), then Generations more (resumed: up to generation
// Generations), each bred by eaopt's model (model.Apply) from the one before; until the
// budget when Generations is 0. A generation in progress
// when ctx ends is not saved; the error is the first of a game, a save or ctx.
func (m *Generational) Search(ctx context.Context, from int) error {
	m.cfg = m.a.Config
	defer func() { m.h.SetGeneration(m.g.gen) }() // the generation the run's last events name
	m.ctx = ctx
	n := m.cfg.Generations
	if from > 0 {
		n = m.cfg.Generations - (from - 1)
	}
	if m.cfg.Generations == 0 {
		n = math.MaxInt32 // until the budget
	}
	if from > 0 && (n <= 0 || m.h.OverBudget(0)) {
		return nil // every generation is saved: only the verification may be missing
	}
	meter, end := m.h.ShareSlots() // the tests and the pairings in play share the local workers
	m.meter = meter
	defer func() { m.meter = nil; end() }()
	run := ctx
	ctx, cancel := context.WithCancel(ctx)
	m.ctx = ctx
	defer func() { cancel(); m.ctx = run }() // ends the tests in play when the search stops early
	if m.testsBehind() || m.canPlayAhead() {
		m.pairings = m.playPairings
		defer func() { m.pairings = nil }()
	}
	defer m.dropAhead()
	m.initRNG = m.a.Rand(0, search.StreamInit)
	m.startMark()
	pop := &eaopt.Population{}
	for range m.cfg.Population {
		g := m.newGenome()
		pop.Individuals = append(pop.Individuals, eaopt.Individual{Genome: g, Fitness: math.Inf(1), ID: g.ID})
	}
	err := m.step(pop)
	for i := 0; err == nil && i < n && !m.stop(); i++ {
		if err = (model{m}).Apply(pop); err == nil {
			err = m.step(pop)
		}
	}
	if err == nil {
		err = m.flush()
	}
	if err == nil {
		err = m.err
	}
	return err
}

// step plays generation m.g's games (unless they are played: a resumed generation),
// scores its individuals (eaopt's Evaluate: fitness 1 − score), ranks them and takes the
// generation (onGeneration); the error is its games'.
func (m *Generational) step(pop *eaopt.Population) error {
	if !m.g.evaluated {
		if err := m.playGeneration(); err != nil {
			m.err = err
			return err
		}
		m.g.evaluated = true
	}
	if err := pop.Individuals.Evaluate(false); err != nil {
		return err
	}
	SortIndividuals(pop.Individuals)
	m.onGeneration(pop.Individuals)
	return nil
}

// stop reports whether the search breeds no more generations: after an error, once ctx
// ends or once the budget is spent (counting the games the pending generations will
// store: inPlay). It first settles the pending generations' admission tests, waiting while
// more than testLag generations are pending.
func (m *Generational) stop() bool {
	if m.err == nil && m.ctx.Err() == nil {
		if err := m.settle(testLag); err != nil && m.err == nil {
			m.err = err
		}
	}
	return m.err != nil || m.ctx.Err() != nil || m.h.OverBudget(m.inPlay())
}

// newGenome makes generation 0: slot 0 is the paper's weights, the others perturbations of
// them (or random genomes).
func (m *Generational) newGenome() *genomes.Genome {
	i := m.g.slot
	m.g.slot++
	if m.resumed != nil { // a resumed run starts from the saved population, already scored
		g := m.resumed[i]
		m.g.current = append(m.g.current, g)
		m.g.evaluated = true
		return g
	}
	g := &genomes.Genome{Layout: m.a.Layout, ID: genomes.IndividualID(m.a.RunID, 0, i), Born: 0,
		Mutation: m.cfg.Mutation, Evaluator: m.evaluate}
	switch {
	case i == 0:
		g.X, g.Op = m.a.Layout.Defaults(), genomes.OpBaseline
	case m.cfg.Init == "random":
		g.X, g.Op = m.a.Layout.Random(rand.New(rand.NewSource(int64(m.initRNG.Uint64()>>1)))), genomes.OpInitial
	default:
		g.X, g.Op = m.a.Layout.Perturb(m.cfg.Mutation, rand.New(rand.NewSource(int64(m.initRNG.Uint64()>>1)))), genomes.OpInitial
	}
	m.g.current = append(m.g.current, g)
	m.g.born = append(m.g.born, g)
	return g
}

// evaluate is every genome's Evaluator, for eaopt: 1 − the genome's score over its games
// of this generation (played by step before eaopt evaluates).
func (m *Generational) evaluate(g *genomes.Genome) (float64, error) {
	return 1 - g.Stats.Score(), nil
}

// onGeneration takes a generation played and ranked (step): it ranks the race, tests the
// winner for the hall of fame, plays the checkpoint if one is due, and saves it all in
// one transaction. With lagged admission tests (testsBehind), the generation joins the pending
// ones: its test is planned once the test before it is judged and plays behind the next
// generations' pairings, and it is saved once its test is judged (settle; the last ones by
// flush).
func (m *Generational) onGeneration(ranked eaopt.Individuals) {
	if m.err != nil || m.ctx.Err() != nil {
		return
	}
	if m.skipSave { // the resumed generation is already in the store
		m.skipSave = false
		m.g.gen++
		m.g.born = nil
		return
	}
	indis := append(eaopt.Individuals(nil), ranked...)
	SortIndividuals(indis)
	pop := make([]*genomes.Genome, len(indis))
	fits := make([]float64, len(indis))
	for i, in := range indis {
		pop[i], fits[i] = in.Genome.(*genomes.Genome), in.Fitness
	}
	if m.cfg.Surrogate == config.SurrogateOn {
		m.window = append(m.window, ObserveGeneration(m.a.Layout, pop, m.g.gameResults))
		m.window = m.window[max(0, len(m.window)-SurrogateWindow):]
	}
	if !m.testsBehind() {
		adm, err := m.admit(pop[0])
		if err != nil {
			m.err = err
			return
		}
		m.save(pop, fits, adm)
		m.g.gen++
		m.g.born = nil
		return
	}
	m.pending = append(m.pending, &laggedGeneration{g: m.g, pop: pop, fits: fits, mark: -1})
	m.newest = m.g.gen
	if _, ok := m.winners[pop[0].ID]; !ok {
		m.winners[pop[0].ID] = m.g.gen
	}
	m.g.gen++
	m.g.born = nil
	if err := m.settle(math.MaxInt); err != nil {
		m.err = err
	}
}

// testLag is the most generations not yet saved when the next is bred (testsBehind): the
// admission tests' lag, which never changes what is bred (Config.GALag, the lag of the GA
// with generations in play, breeds from older generations: galag.go). Generation
// g+1 is bred once generation g's pairings end and generation g−3's admission test is
// judged, so the tests of g−2 to g play on the slots that g+1's pairings leave free, and
// g+1's pairings on the slots a test's slowest games leave free. Replayed, lags of 2, 3
// and 4 keep the same share of the slots busy (gomoku 90–91% of 16, connect6 94%, amazons
// 97–98%); 3 counts the budget as the GA did before tests were planned ahead (inPlay).
const testLag = 3

// testsBehind reports whether the GA plays each generation's admission test behind the next
// generations' pairings, so that no game slot waits for a test, nor for a generation's
// slowest pairing. Only where nothing of the next generations depends on the test: peers
// selection (a race would play the hall of fame), and no checkpoints (which measure the
// champion the test may change, and may end the run). On the local slots the tests in
// play overlap each other too (ahead): each is planned against the hall of fame as it
// stands and planned again when a test before it admits its candidate (replan), so a
// test judged is always the one the unlagged run plays, and the generation is saved once
// its test is judged: tests, hall of fame and records are in generation order, and a
// generation's games, genomes and test are those of the unlagged run. Only the game
// budget's last generation may differ (inPlay).
func (m *Generational) testsBehind() bool {
	c := m.cfg
	return !m.opts.Unlagged && c.Selection == config.SelectionPeers && c.AdmitGames > 0 && c.VerifyEvery == 0
}

// laggedGeneration is a generation whose pairings are played and which is not yet saved
// (Generational.testsBehind): its state as its pairings left it, its individuals best first and their
// fitness, and its admission test (adm nil: no test). Where tests are planned ahead
// (Generational.ahead), the test is planned as soon as the generation joins the pending ones,
// against the hall of fame as it stands then (the tests in play before it taken to fail:
// reigning is the defender it was planned against), and planned again (replan) when one
// of those admits its candidate; elsewhere once it is the oldest pending. mark is
// the generation's openings before the test's draws. The candidate's games (cand) and the
// defender's (def: its test on the same openings and its own games) are two batches, so
// that a new plan keeps the candidate's games where they are the same. held is true
// while the test's games wait to be queued behind the next pairings (startHeld).
type laggedGeneration struct {
	g         generation
	pop       []*genomes.Genome
	fits      []float64
	mark      int
	reigning  int
	adm       *admissionPlan
	cand, def *playing
	held      bool
}

// queued reports whether the test's games are queued (or there are none to play).
func (p *laggedGeneration) queued() bool {
	return p.adm == nil || !p.held
}

// waiting returns a channel closed when the first of the test's batches not yet finished
// is (nil: every queued batch has finished, or none is queued).
func (p *laggedGeneration) waiting() chan struct{} {
	for _, pl := range []*playing{p.cand, p.def} {
		if pl != nil {
			select {
			case <-pl.done:
			default:
				return pl.done
			}
		}
	}
	return nil
}

// inPlay is the games the generations not yet saved will have saved, with the tests of
// the newest testLag−1 generations counted at a size that never depends on the games'
// speed. After the newest generation N is bred, every test up to N−testLag is judged and
// N−testLag+1's plan is final (every test before it is judged): those count as played or
// planned. Whether the later tests, N−1's and N's, were planned against the hall of fame
// the run will leave depends on how fast the tests before them played, so each counts,
// saved or not, as the test it would be against the hall of fame after N−testLag
// (testSize). So the number of generations is the same whatever the workers. (A run
// resumed near its budget's end may stop a generation earlier or later: it counts its
// saved generations' tests as played.)
func (m *Generational) inPlay() int {
	n, final := 0, m.newest-(testLag-1)
	for _, p := range m.pending {
		n += p.g.distinctGames
		switch {
		case p.g.gen > final:
			n += m.testSize(p.pop[0], p.g.gen, final-1)
		case p.adm != nil:
			n += len(p.adm.mp.b.Tasks)
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
// fame as generation `after` left it (planAdmission's matchups: none when the winner is
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

// settle plans the admission tests of the pending generations not yet planned, and saves
// each pending generation, oldest first, whose test is judged (or that has none): waiting
// for the tests' games while more than keep generations are pending, and no longer once
// keep or fewer are (math.MaxInt: never waits). A test planned between pairings is held,
// to be queued behind the next pairings (startHeld): the next breeding waits for those
// pairings and for a test testLag generations older, so the slots play the pairings first
// (queued ahead of them, the tests' up to 192 games each held the next breeding: on
// connect6, 90% of 16 replayed slots busy fell to 81%).
func (m *Generational) settle(keep int) error {
	for i, p := range m.pending {
		if p.mark < 0 && (i == 0 || m.ahead()) {
			if err := m.plan(p); err != nil {
				return err
			}
		}
	}
	for len(m.pending) > 0 {
		if err := m.ctx.Err(); err != nil {
			return err // a generation whose test was cut short is not saved
		}
		p := m.pending[0]
		if !p.queued() {
			if !m.pairing && len(m.pending) <= keep {
				return nil // queued behind the next pairings
			}
			m.start(p)
		}
		if p.waiting() != nil && len(m.pending) <= keep {
			return nil
		}
		if err := m.saveOldest(); err != nil {
			return err
		}
		if len(m.pending) > 0 && m.pending[0].mark < 0 {
			if err := m.plan(m.pending[0]); err != nil {
				return err
			}
		}
	}
	return nil
}

// ahead reports whether the admission tests are planned ahead, each before the tests in
// play before it are judged: only where a stopped batch's games not yet begun are dropped
// (StopDropper: the local pool), as a test planned again stops its defender's games. On a
// cluster, whose queued tasks would all be played, a test is planned once every test
// before it is judged (the tests are then a chain, each batch played whole): gomoku's
// default GA through two workers of one slot played 8% more games than it stored when
// tests were planned ahead there.
func (m *Generational) ahead() bool {
	d, ok := m.h.Setup().Runner.(arena.StopDropper)
	return ok && d.DropsStopped()
}

// plan plans pending generation p's admission test against the hall of fame as it stands
// and queues its games, or holds them behind the next pairings (settle). The candidate's
// games are kept from an earlier plan of the same games.
func (m *Generational) plan(p *laggedGeneration) error {
	old := p.adm
	cur := m.g
	m.g = p.g
	if p.mark < 0 {
		p.mark = len(m.g.openings)
	}
	m.g.openings = m.g.openings[:p.mark] // the same draws as the plan before
	p.reigning = len(m.hall.hof) - 1
	adm, err := m.planAdmission(p.pop[0])
	p.g, m.g = m.g, cur
	if err != nil {
		return err
	}
	p.adm = adm
	if p.def != nil {
		p.def.stop()
		p.def = nil
	}
	if p.cand != nil && (adm == nil || old == nil || !sameTasks(adm.candidateTasks(), old.candidateTasks())) {
		p.cand.stop()
		p.cand = nil
	}
	switch {
	case adm == nil:
		p.held = false
	case m.pairing:
		p.held = true
		m.start(p) // behind the pairings in play
	default:
		p.held = true
	}
	return nil
}

// replan plans p's test again where the hall of fame's last member is no longer the
// defender it was planned against (a test before it admitted its candidate): the same
// openings, the defender's games against the new one, the candidate's kept where they are
// the same games (its test is against the paper's weights: Config.Admission paired).
func (m *Generational) replan(p *laggedGeneration) error {
	if p.mark < 0 || p.reigning == len(m.hall.hof)-1 {
		return nil
	}
	if p.adm != nil {
		delete(m.hall.tested, p.pop[0].ID) // marked by the plan replaced
	}
	m.replans++
	return m.plan(p)
}

// start queues p's test's batches not yet in play.
func (m *Generational) start(p *laggedGeneration) {
	p.held = false
	if p.adm == nil {
		return
	}
	tasks, split := p.adm.mp.b.Tasks, p.adm.mp.ends[0]
	if p.cand == nil && split > 0 {
		p.cand = m.playAsync(tasks[:split], "admission")
	}
	if p.def == nil && split < len(tasks) {
		p.def = m.playAsync(tasks[split:], "admission")
	}
}

// candidateTasks is the candidate's games of the test (its first matchup).
func (p *admissionPlan) candidateTasks() []arena.GameTask { return p.mp.b.Tasks[:p.mp.ends[0]] }

// sameTasks reports whether a and b are the same games in the same order: the same
// players' weights (compared by value: each plan makes its own), openings and depths.
func sameTasks(a, b []arena.GameTask) bool {
	return reflect.DeepEqual(a, b)
}

// startHeld queues the held admission tests' games (settle), oldest first.
func (m *Generational) startHeld() {
	for _, p := range m.pending {
		if !p.queued() {
			m.start(p)
		}
	}
}

// saveOldest judges the oldest pending generation's admission test, once its games are
// played, and saves that generation; when its candidate is admitted, the later tests are
// planned again against it (replan).
func (m *Generational) saveOldest() error {
	p := m.pending[0]
	m.pending = m.pending[1:]
	cur := m.g
	m.g = p.g
	var adm *record.Admission
	tested := 0
	if p.adm != nil {
		var recs []engine.GameRecord
		for _, pl := range []*playing{p.cand, p.def} {
			if pl != nil {
				r, err := m.account(pl, "admission")
				if err != nil {
					m.g = cur
					return err
				}
				recs = append(recs, r...)
			}
		}
		p.adm.mp.recs = recs
		before := m.g.distinctGames
		adm = m.judgeAdmission(p.adm)
		tested = m.g.distinctGames - before
	}
	m.saved[p.g.gen] = savedTest{winner: p.pop[0], tested: tested}
	m.hofAfter[p.g.gen] = len(m.hall.hof)
	delete(m.saved, p.g.gen-testLag)
	delete(m.hofAfter, p.g.gen-testLag)
	m.save(p.pop, p.fits, adm)
	m.g = cur
	if m.err != nil {
		return m.err
	}
	if adm != nil && adm.Admitted {
		for _, q := range m.pending {
			if err := m.replan(q); err != nil {
				return err
			}
		}
	}
	return nil
}

// playPairings plays a generation's pairings (Generational.pairings) while the pending
// generations' admission tests go on: each test judged meanwhile is saved, behind the
// pairings' games.
func (m *Generational) playPairings(tasks []arena.GameTask, label string) ([]engine.GameRecord, error) {
	pl := m.adoptAhead(tasks, label)
	if pl == nil && m.canPlayAhead() {
		pl = m.startPairings(tasks, label, false)
	}
	var p *playing
	var tick chan struct{} // nil: no games played ahead, never ready
	if pl != nil {
		p, tick = pl.p, pl.fin.Ticks()
	} else {
		p = m.playAsync(tasks, label)
	}
	m.startHeld() // behind the pairings
	m.pairing = true
	defer func() { m.pairing = false }()
	for {
		var test chan struct{} // nil: no test in play, never ready
		if len(m.pending) > 0 {
			if test = m.pending[0].waiting(); test == nil && m.pending[0].queued() {
				if err := m.settle(math.MaxInt); err != nil {
					return nil, err
				}
				continue
			}
		}
		select {
		case <-p.done:
			return m.account(p, label)
		case <-test:
			if err := m.settle(math.MaxInt); err != nil {
				return nil, err
			}
		case <-tick:
			m.lookAhead(pl)
		}
	}
}

// flush plays the pending generations' admission tests and saves them (the run has ended
// after their pairings). A run stopped by ctx saves nothing more.
func (m *Generational) flush() error {
	m.dropAhead()
	if m.err != nil || m.ctx.Err() != nil {
		return m.err
	}
	m.startHeld()
	return m.settle(0)
}

// startMark starts the first generation's wall time, and its busy slot time where the
// meter measures it, now.
func (m *Generational) startMark() {
	m.mark, m.busy = arena.MarkNow(m.meter)
	m.elsewhere = arena.BusyElsewhere(m.h.Setup().Runner)
}

// save saves the generation m.g whose individuals are pop (best first, fitness fits) and
// whose admission test was adm: it sets the champion, plays the checkpoint if one is due,
// stores it all in one transaction and reports it. Its wall time is the time since the
// generation before was saved (so the generations' times add up to the run's, however they
// overlap), and its slot time the slots' busy time within it (played elsewhere: the slot
// time of the games told during it, SlotMeter, at most the slots times its wall time, the
// rest carried on: arena.SlotCarry).
func (m *Generational) save(pop []*genomes.Genome, fits []float64, adm *record.Admission) {
	m.setChampion(pop)
	var check *ladder.Verification
	if m.cfg.VerifyEvery > 0 && m.g.gen%m.cfg.VerifyEvery == 0 {
		var err error
		if check, err = m.checkpoint(); err != nil {
			m.err = err
			return
		}
	}
	mark, busy, elsewhere := m.mark, m.busy, m.elsewhere
	m.startMark()
	took, slots := m.mark.Sub(mark), m.h.GameSlots()
	var slotTime time.Duration
	if m.meter != nil {
		slotTime = max(0, m.busy-busy) // less a stopped batch's games, known late (BusyMeter.Read)
	} else {
		slotTime = m.slotCarry.Take(arena.PlayedElsewhere(m.h.Setup().Runner, elsewhere, m.g.slotTime), took, slots)
	}
	rec := record.GenerationRecord{RunID: m.a.RunID, Generation: m.g.gen, Games: m.g.distinctGames, GamesTime: min(m.g.gamesTime, took), SlotTime: slotTime, Slots: slots,
		Opponents: append([]string(nil), m.g.opponents...), Openings: m.g.openings, GameResults: m.g.gameResults,
		Admission: adm, Checkpoint: check, HallOfFame: append([]record.HallOfFamer(nil), m.hall.hof...)}
	for i, g := range pop {
		rec.Individuals = append(rec.Individuals, record.IndividualRecord{ID: g.ID, Rank: i + 1, Round: g.Round, Fitness: fits[i], Stats: g.Stats})
	}
	for _, g := range m.g.born {
		rec.NewGenomes = append(rec.NewGenomes, record.GenomeRecord{ID: g.ID, Born: g.Born, Operator: g.Op, Parents: g.Parents, Genes: m.a.Layout.Named(g.X)})
	}
	if g := m.centreBorn(); g != nil {
		rec.NewGenomes = append(rec.NewGenomes, *g)
	}
	if m.cfg.Champion == config.ChampionPopulation {
		g, _ := m.populationCentre(pop)
		rec.NewGenomes = append(rec.NewGenomes, g)
	}
	if m.cfg.Surrogate == config.SurrogateOn {
		state, err := search.EncodeState(ObserveGeneration(m.a.Layout, pop, m.g.gameResults))
		if err != nil {
			m.err = err
			return
		}
		rec.MethodState = state
	}
	population.FitnessFields(&rec, m.a.Layout, pop, fits)
	rec.Best, rec.Champion = pop[0].ID, m.h.Summary().Best
	rec.Duration, rec.Elapsed = took, m.h.Elapsed()
	m.h.Summary().Generations = m.g.gen + 1
	m.h.Summary().Games += m.g.distinctGames
	m.h.CountGeneration(rec)
	m.h.Summary().GamesTime += m.g.gamesTime
	ev := record.Event{GenDone: true, GamesDone: m.g.distinctGames, GamesTotal: m.g.distinctGames,
		BestScore: pop[0].Stats.Score(), MeanScore: 1 - rec.FitMean, Best: pop[0].ID, Champion: m.h.Summary().Best, CentreOf: len(m.h.Summary().CentreOf)}
	if c := m.h.Summary().Champion; c != nil && len(m.h.Summary().CentreOf) == 0 { // a centre has no record of its own
		if elo, _, ok := c.Estimate(); ok {
			ev.ChampionElo = &elo
		}
	}
	// Written behind the next generation's breeding and games, as the run loop's methods
	// write theirs: nothing after reads the store, and the transaction (a generation's
	// games, genomes and individuals, one fsync) took 6–13 ms of a 0.4 s generation of
	// 48 games on 8 slots, time every slot waited.
	if err := m.h.SaveBehind(rec, m.event(ev)); err != nil {
		m.err = err
	}
}

// generation is the GA's generation in progress: its individuals and the games they
// played. Its games (games.go) fill it, its step (onGeneration) and selection (selection.go)
// read it, saving (Generational.save) writes it out and starts the next.
type generation struct {
	gen       int               // its number, from 0
	slot      int               // the next individual of generation 0 to make (newGenome)
	current   []*genomes.Genome // its individuals, in breeding order
	born      []*genomes.Genome // the individuals born in it (saved with it)
	evaluated bool              // its individuals have played (step plays them once)

	gameResults   []record.GameResult // its games, saved with it
	openings      [][]string          // its opening pairs, in the order drawn
	refs          []schedule.Opponent // the reference opponents its individuals play
	opponents     []string            // their IDs, saved with it
	gamesTime     time.Duration       // its time in games (the pool's wall time)
	slotTime      time.Duration       // its busy game-slot time: the sum of its games' slot times (GameRecord.SlotTime)
	distinctGames int                 // its distinct games (a deterministic pair played once counts once)
	peers         *PeerPlan           // its pairings (peers; nil before they are planned)
}

// hallOfFame is selection's record: the members in order of admission and every individual
// tested for admission (selection.go).
type hallOfFame struct {
	hof    []record.HallOfFamer
	tested map[string]bool
}
