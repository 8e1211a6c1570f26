package tuner

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync/atomic"
	"time"

	"gonum.org/v1/gonum/stat"

	"evotune/engine"
	"evotune/genomes"
)

// The steady-state GA (Config.Method "steady"): no generation barrier. The population of
// Population members changes one birth at a time, and births are played while earlier ones
// are still being decided, so the workers (local or cluster) always have games to play:
// none waits for the slowest game of a generation.
//
//   - Birth b < Population is the initial population's b-th member (the paper's weights,
//     then perturbations of them, as the GA's generation 0). Birth b ≥ Population is bred
//     from the population as it stood when birth max(b − steadyWindow, Population − 1)
//     was decided: two tournaments (Tournament) by score, uniform crossover
//     (CrossoverRate), mutation (MutationRate; always when the child would be its first
//     parent's copy).
//   - Each birth plays Games/2 fresh colour-swapped opening pairs against the paper's
//     weights, and its first parent (the rival) plays the same openings (common random
//     numbers: the two scores share the openings' noise). The rival's games add to its
//     record, so a member picked often because it looked good is measured again and
//     again (the winner's curse wears off).
//   - Births are decided in birth order, whatever order their games finish in, so a run
//     is the same for any number of workers or cluster machines: the child replaces its
//     rival when its score on their common games is higher; when the rival was replaced
//     in the meantime, it replaces the worst member if its score is higher than that
//     member's record.
//   - Every Population births are saved as a generation: the population ranked by its
//     records, the births and their games, and in the method state the births already
//     bred and in play, so a resumed run plays those same births.
//   - The champion is the centre of the better half of the population (the (μ/μ_w, λ)
//     recombination of evolution strategies: centreWeights by rank, the best weighing
//     most, log genes in log space), a new genome of each generation (slot Population).

// MethodSteady is the steady-state GA (steady.go).
const MethodSteady = "steady"

// steadyWindow is how many births are in play at once: birth b is bred when birth
// b − steadyWindow is decided (and the initial population is). A constant, not a setting
// of the machine: results never depend on the number of workers. Four births of 32 games
// keep 2 local workers or a small cluster busy while the oldest birth's last games finish.
const steadyWindow = 4

// streamSteady is the random stream of birth b: its breeding (or initial perturbation)
// and its openings.
const streamSteady = 9

// OpSteadyCentre is the operator of the steady-state GA's champion, the centre of the
// better half of the population (parents: the best member and the last of the half).
const OpSteadyCentre = "steady-centre"

// steadyBirth is a birth bred but not decided, as stored in the method state.
type steadyBirth struct {
	ID         string             `json:"id"`
	Op         string             `json:"op"`
	Parents    []string           `json:"parents"`
	Genes      map[string]float64 `json:"genes"`
	Rival      string             `json:"rival,omitempty"` // the first parent ("": an initial member)
	RivalGenes map[string]float64 `json:"rival_genes,omitempty"`
}

// steadyState is the method state of a saved generation: how many births were decided,
// the members by slot (a child takes its rival's slot), and the births bred after them
// (in birth order), to be played again on resume.
type steadyState struct {
	Births  int           `json:"births"`
	Members []string      `json:"members"`
	Pending []steadyBirth `json:"pending"`
}

// birth is one birth in play.
type birth struct {
	n        int // birth number, from 0
	child    *genomes.Genome
	rival    *genomes.Genome // nil for an initial member
	openings Openings
	b        batch
	done     chan struct{} // closed when recs or err is set
	recs     []engine.GameRecord
	err      error
}

// steadyMethod is the steady-state GA as a searchMethod.
type steadyMethod struct {
	t       *Tuner
	pop     []*genomes.Genome // the members, by slot
	decided int               // births decided
	pending []*birth          // births in play, oldest first
	resumed []steadyBirth     // births in play at the save a run resumes from
	ref     opponent          // the paper's weights
	games   int               // distinct games of the decided births (the run's, across resumes)
	inPlay  int               // distinct games of the births in play

	// The generation being filled: its games, openings and births.
	genGames    []GameResult
	genOpenings [][]string
	genBorn     []*genomes.Genome
	genDistinct int
	genStart    time.Time

	// shownGen and shownGames are the generation being filled and the saved games, for
	// the progress events the births' games send from the workers.
	shownGen, shownGames atomic.Int64
}

func newSteady(t *Tuner) (searchMethod, error) {
	if t.cfg.Games < 2 || t.cfg.Games%2 != 0 {
		return nil, settingErr("games", "", "%d, want an even number ≥ 2 (each birth's game pairs)", t.cfg.Games)
	}
	return &steadyMethod{t: t}, nil
}

// restore takes up the population (with its records), the births decided and the births in
// play at the save.
func (m *steadyMethod) restore(st ResumeState) error {
	t := m.t
	if len(st.MethodStates) != st.LastGeneration+1 {
		return fmt.Errorf("resume: %d steady-state generation states for %d saved generations", len(st.MethodStates), st.LastGeneration+1)
	}
	var s steadyState
	if err := decodeState(st.MethodStates[st.LastGeneration], &s); err != nil {
		return fmt.Errorf("resume: steady-state generation %d: %w", st.LastGeneration, err)
	}
	if len(st.Population) != t.cfg.Population {
		return fmt.Errorf("resume: generation %d has %d members, the config says %d", st.LastGeneration, len(st.Population), t.cfg.Population)
	}
	if len(s.Members) != t.cfg.Population {
		return fmt.Errorf("resume: steady-state generation %d names %d members, the config says %d", st.LastGeneration, len(s.Members), t.cfg.Population)
	}
	byID := map[string]ResumeIndividual{}
	for _, r := range st.Population {
		byID[r.ID] = r
	}
	bySlot := make([]*genomes.Genome, t.cfg.Population)
	for k, id := range s.Members {
		r, ok := byID[id]
		if !ok {
			return fmt.Errorf("resume: steady-state generation %d: member %s is not in its population", st.LastGeneration, id)
		}
		x, err := t.plan.Layout.FromNamed(r.Genes)
		if err != nil {
			return fmt.Errorf("resume: member %s: %w", r.ID, err)
		}
		bySlot[k] = &genomes.Genome{Layout: t.plan.Layout, X: x, ID: r.ID, Op: r.Op, Parents: r.Parents, Born: r.Born, Stats: r.Stats, Mutation: t.cfg.Mutation}
	}
	m.pop, m.decided, m.resumed = bySlot, s.Births, s.Pending
	if s.Births%t.cfg.Population != 0 && len(s.Pending) == 0 {
		// The run ended inside a generation (its budget ran out there) and saved that
		// generation as it stood; given more games (resume --budget-games), its births go on
		// in the next generation, the unfilled slots left empty.
		m.decided = (st.LastGeneration + 1) * t.cfg.Population
	}
	m.games = st.Games
	m.setChampion(st.LastGeneration)
	return nil
}

// describe: the population, each birth's games and the window.
func (m *steadyMethod) describe(length string) (string, []string) {
	c := m.t.cfg
	return fmt.Sprintf(" by a steady-state GA: population %d, %s; each birth and its first parent play %d games against %s on the same openings, %d births in play at once (no generation barrier)",
		c.Population, length, c.Games, BaselineName(c), steadyWindow), nil
}

// steadySaved: the generation's games, its best member, the mean score and the champion.
func steadySaved(e Event) string {
	return fmt.Sprintf("%d games, best member %s score %.3f, mean %.3f, champion %s (the centre of the better half), %s", e.GamesTotal, e.Best, e.BestScore, e.MeanScore, e.Champion, e.GamesText())
}

// steadySummary: the centre of the better half after the last birth.
func steadySummary(s Summary) string {
	return fmt.Sprintf("champion %s: the centre of the better half of the population after %d steady-state generations (a recombination of the best members, not a pick among noisy scores; it has played no game of its own: the verification below measures it)", s.Best, s.Generations)
}

// search plays births from generation `from` until the generations, the budget, an error
// or ctx end; the generation in progress when ctx ends is not saved.
func (m *steadyMethod) search(ctx context.Context, from int) error {
	t := m.t
	t.ctx = ctx
	t.rep.summary.BudgetGames = t.cfg.BudgetGames
	if m.pop == nil {
		m.pop = make([]*genomes.Genome, t.cfg.Population)
	}
	ref, err := t.baselineRef()
	if err != nil {
		return err
	}
	m.ref = ref
	if t.setup.Runner == nil { // the births in play share the local workers
		r := newSlotRunner(t.cfg.Workers)
		t.setup.Runner = r
		defer func() { t.setup.Runner = nil; r.Close() }()
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the births in play when the search stops
	t.g.gen = from
	m.genStart = time.Now()
	m.shownGen.Store(int64(from))
	m.shownGames.Store(int64(t.rep.summary.Games))
	for _, sb := range m.resumed {
		bt, err := m.restoreBirth(sb)
		if err != nil {
			return err
		}
		if err := m.start(ctx, bt); err != nil {
			return err
		}
	}
	m.resumed = nil
	for len(m.pending) < steadyWindow && m.breedMore() {
		if err := m.breed(ctx); err != nil {
			return err
		}
	}
	for len(m.pending) > 0 {
		bt := m.pending[0]
		select {
		case <-bt.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if bt.err != nil {
			return fmt.Errorf("birth %s: %w", bt.child.ID, bt.err)
		}
		m.pending = m.pending[1:]
		m.inPlay -= len(bt.b.tasks)
		m.decide(bt)
		for len(m.pending) < steadyWindow && m.breedMore() {
			if err := m.breed(ctx); err != nil {
				return err
			}
		}
		if m.decided%t.cfg.Population == 0 || len(m.pending) == 0 {
			if err := m.save(); err != nil {
				return err
			}
		}
	}
	return nil
}

// breedMore reports whether another birth is bred: every member of the initial
// population (whatever the budgets: the first generation needs them all, and Validate
// refuses a game budget below it), then within Generations (generation 0 and Generations
// more), and while the decided and in-play games are below the game budget and the time
// budget has not passed.
func (m *steadyMethod) breedMore() bool {
	t := m.t
	next := m.decided + len(m.pending)
	if next < t.cfg.Population {
		return true // the initial population is always completed: a generation needs every member
	}
	if m.decided < t.cfg.Population {
		return false // a child is bred from the whole initial population
	}
	if t.proof.proven.Load() != nil {
		return false
	}
	if t.cfg.Generations > 0 && next >= (t.cfg.Generations+1)*t.cfg.Population {
		return false
	}
	if t.cfg.BudgetGames > 0 && m.games+m.inPlay >= t.cfg.BudgetGames {
		return false
	}
	b := t.cfg.Budget()
	return b == 0 || t.elapsed() < b
}

// breed makes the next birth: an initial member, or a child of the population as it
// stands, and starts its games.
func (m *steadyMethod) breed(ctx context.Context) error {
	t := m.t
	n := m.decided + len(m.pending)
	pop := t.cfg.Population
	rng := t.rngV1(n, streamSteady)
	child := &genomes.Genome{Layout: t.plan.Layout, ID: genomes.IndividualID(t.saving.runID, n/pop, n%pop), Born: n / pop, Mutation: t.cfg.Mutation}
	bt := &birth{n: n, child: child}
	switch {
	case n == 0:
		child.X, child.Op = t.plan.Layout.Defaults(), genomes.OpBaseline
	case n < pop && t.cfg.Init == "random":
		child.X, child.Op = t.plan.Layout.Random(rng), genomes.OpInitial
	case n < pop:
		child.X, child.Op = t.plan.Layout.Perturb(t.cfg.Mutation, rng), genomes.OpInitial
	default:
		ranked := m.ranked()
		k := max(1, min(t.cfg.Tournament, pop-1))
		a, c := ranked[tournament(rng, pop, k)], ranked[tournament(rng, pop, k)]
		child.X, child.Parents, child.Op = append([]float64(nil), a.X...), []string{a.ID}, genomes.OpClone
		if rng.Float64() < t.cfg.CrossoverRate && c != a {
			mate := c.Clone().(*genomes.Genome)
			child.ID, child.Op = a.ID, ""
			child.Crossover(mate, rng)
			child.ID = genomes.IndividualID(t.saving.runID, n/pop, n%pop)
		}
		if rng.Float64() < t.cfg.MutationRate || fmt.Sprint(child.X) == fmt.Sprint(a.X) {
			child.Mutate(rng)
		}
		// A crossover's child holds fixed genes at their values too (a gene frozen while
		// the run went on, whose parents may predate the freeze).
		t.plan.Layout.Clamp(child.X)
		bt.rival = &genomes.Genome{Layout: t.plan.Layout, X: append([]float64(nil), a.X...), ID: a.ID}
	}
	return m.start(ctx, bt)
}

// restoreBirth rebuilds a birth in play from the method state.
func (m *steadyMethod) restoreBirth(sb steadyBirth) (*birth, error) {
	t := m.t
	x, err := t.plan.Layout.FromNamed(sb.Genes)
	if err != nil {
		return nil, fmt.Errorf("resume: birth %s: %w", sb.ID, err)
	}
	n := m.decided + len(m.pending)
	bt := &birth{n: n, child: &genomes.Genome{Layout: t.plan.Layout, X: x, ID: sb.ID, Op: sb.Op, Parents: sb.Parents, Born: n / t.cfg.Population, Mutation: t.cfg.Mutation}}
	if sb.ID != genomes.IndividualID(t.saving.runID, n/t.cfg.Population, n%t.cfg.Population) {
		return nil, fmt.Errorf("resume: birth %s is not birth %d of the run", sb.ID, n)
	}
	if sb.Rival != "" {
		rx, err := t.plan.Layout.FromNamed(sb.RivalGenes)
		if err != nil {
			return nil, fmt.Errorf("resume: birth %s: rival %s: %w", sb.ID, sb.Rival, err)
		}
		bt.rival = &genomes.Genome{Layout: t.plan.Layout, X: rx, ID: sb.Rival}
	}
	return bt, nil
}

// start draws the birth's openings, schedules its games (the child's, and its rival's on
// the same openings) and plays them in the background.
func (m *steadyMethod) start(ctx context.Context, bt *birth) error {
	t := m.t
	pairs := t.cfg.Games / 2
	os, err := t.tuningOpenings(pairs, t.rngV2(bt.n, streamSteady), nil)
	if err != nil {
		return err
	}
	if len(os) < pairs {
		return fmt.Errorf("openings: only %d distinct tuning openings found of %d wanted", len(os), pairs)
	}
	bt.openings = os
	inds := []*genomes.Genome{bt.child}
	if bt.rival != nil {
		inds = append(inds, bt.rival)
	}
	idx := make([]int, len(inds))
	for i := range idx {
		idx[i] = i
	}
	if err := t.scheduleOn(&bt.b, inds, idx, []opponent{m.ref}, os, 0, pairs, 0); err != nil {
		return err
	}
	bt.done = make(chan struct{})
	m.pending = append(m.pending, bt)
	m.inPlay += len(bt.b.tasks)
	setup, label := t.setup, fmt.Sprintf("birth %s", bt.child.ID)
	var played atomic.Int64
	go func() {
		defer close(bt.done)
		bt.recs, bt.err = PlayBatch(ctx, setup, bt.b.tasks, t.cfg.Workers, func() {
			t.emit(m.progress(Event{GamesDone: int(played.Add(1)), GamesTotal: len(bt.b.tasks), Phase: label}))
		})
	}()
	return nil
}

// progress fills a birth's game event as Tuner.event does, from what the workers may read
// while the search goes on.
func (m *steadyMethod) progress(e Event) Event {
	t := m.t
	e.RunID, e.Generation, e.Generations = t.saving.runID, int(m.shownGen.Load()), t.cfg.Generations
	e.Method, e.RunGames, e.BudgetGames = t.cfg.Method, int(m.shownGames.Load()), t.cfg.BudgetGames
	e.Elapsed, e.Budget = t.elapsed(), t.cfg.Budget()
	return e
}

// decide credits the birth's games to the child and its rival and lets the child into the
// population (see the method's comment).
func (m *steadyMethod) decide(bt *birth) {
	t := m.t
	base := len(m.genOpenings)
	for _, o := range bt.openings {
		m.genOpenings = append(m.genOpenings, o)
		t.draws.tuningOpenings[Key(o)] = true
	}
	for _, r := range bt.recs {
		t.g.slotTime += r.Duration
	}
	inds := []*genomes.Genome{bt.child, bt.rival}
	var got [2]genomes.Stats
	var sum [2]float64
	pairScore := map[[2]int]float64{}
	for _, r := range bt.b.refs {
		s := 0.5
		if r.task >= 0 {
			rec := bt.recs[r.task]
			s = rec.Outcome.Score(r.c)
			m.genGames = append(m.genGames, GameResult{Individual: inds[r.ind].ID, Opponent: r.opp, Opening: base + r.pair,
				Colour: r.c, Score: s, Depth: r.depth, Record: rec})
		}
		switch s {
		case 1:
			got[r.ind].Wins++
		case 0:
			got[r.ind].Losses++
		default:
			got[r.ind].Draws++
		}
		sum[r.ind] += s
		pairScore[[2]int{r.ind, r.pair}] += s
	}
	for k, ps := range pairScore {
		got[k[0]].Penta[int(math.Round(ps*2))]++
	}
	m.games += len(bt.b.tasks)
	m.genDistinct += len(bt.b.tasks)
	bt.child.Stats = got[0]
	m.genBorn = append(m.genBorn, bt.child)
	m.decided++
	if bt.rival == nil {
		m.pop[bt.n] = bt.child
		return
	}
	slot := -1
	for i, g := range m.pop {
		if g.ID == bt.rival.ID {
			slot = i
			g.Stats = g.Stats.Add(got[1])
		}
	}
	switch {
	case slot >= 0 && sum[0] > sum[1]:
		m.pop[slot] = bt.child
	case slot < 0:
		worst := m.ranked()[len(m.pop)-1]
		if bt.child.Stats.Score() > worst.Stats.Score() {
			for i, g := range m.pop {
				if g == worst {
					m.pop[i] = bt.child
				}
			}
		}
	}
}

// ranked returns the members best first: by score, then more games, then ID.
func (m *steadyMethod) ranked() []*genomes.Genome {
	r := append([]*genomes.Genome(nil), m.pop...)
	sort.SliceStable(r, func(i, j int) bool {
		a, b := r[i], r[j]
		if sa, sb := a.Stats.Score(), b.Stats.Score(); sa != sb {
			return sa > sb
		}
		if a.Stats.Games() != b.Stats.Games() {
			return a.Stats.Games() > b.Stats.Games()
		}
		return a.ID < b.ID
	})
	return r
}

// centre is the champion after generation gen: the centre of the better half of the
// population, best weighing most (centreWeights in rank order), its genome record and
// genes.
func (m *steadyMethod) centre(gen int) (GenomeRecord, []float64) {
	t := m.t
	ranked := m.ranked()
	x, last := betterHalfCentre(t.plan.Layout, ranked)
	rec := GenomeRecord{ID: genomes.IndividualID(t.saving.runID, gen, t.cfg.Population), Born: gen, Operator: OpSteadyCentre,
		Parents: []string{ranked[0].ID, last}, Genes: t.plan.Layout.Named(x)}
	return rec, x
}

// setChampion makes the centre after generation gen the run's champion.
func (m *steadyMethod) setChampion(gen int) GenomeRecord {
	rec, x := m.centre(gen)
	s := &m.t.rep.summary
	s.Best, s.BestGenes, s.BestScore = rec.ID, x, math.NaN()
	s.Champion, s.CentreOf = nil, nil
	return rec
}

// save stores the generation of the births decided since the last save.
func (m *steadyMethod) save() error {
	t := m.t
	gen := (m.decided - 1) / t.cfg.Population
	t.g.gen = gen
	champ := m.setChampion(gen)
	var check *Verification
	var err error
	if t.cfg.VerifyEvery > 0 && gen%t.cfg.VerifyEvery == 0 {
		if check, err = t.checkpoint(); err != nil {
			return err
		}
	}
	st := steadyState{Births: m.decided, Pending: []steadyBirth{}}
	for _, g := range m.pop {
		st.Members = append(st.Members, g.ID)
	}
	for _, bt := range m.pending {
		sb := steadyBirth{ID: bt.child.ID, Op: bt.child.Op, Parents: bt.child.Parents, Genes: t.plan.Layout.Named(bt.child.X)}
		if bt.rival != nil {
			sb.Rival, sb.RivalGenes = bt.rival.ID, t.plan.Layout.Named(bt.rival.X)
		}
		st.Pending = append(st.Pending, sb)
	}
	state, err := encodeState(st)
	if err != nil {
		return err
	}
	ranked := m.ranked()
	rec := GenerationRecord{RunID: t.saving.runID, Generation: gen, Games: m.genDistinct, GamesTime: time.Since(m.genStart), SlotTime: t.g.slotTime, Slots: t.gameSlots(),
		Opponents: []string{m.ref.id}, Openings: m.genOpenings, GameResults: m.genGames, Best: ranked[0].ID, Champion: champ.ID,
		Checkpoint: check, MethodState: state}
	for _, g := range m.genBorn {
		rec.NewGenomes = append(rec.NewGenomes, GenomeRecord{ID: g.ID, Born: g.Born, Operator: g.Op, Parents: g.Parents, Genes: t.plan.Layout.Named(g.X)})
	}
	rec.NewGenomes = append(rec.NewGenomes, champ)
	fits := make([]float64, len(ranked))
	for i, g := range ranked {
		fits[i] = 1 - g.Stats.Score()
		rec.Individuals = append(rec.Individuals, IndividualRecord{ID: g.ID, Rank: i + 1, Fitness: fits[i], Stats: g.Stats})
	}
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
	for i := range ranked {
		for j := i + 1; j < len(ranked); j++ {
			dsum += t.plan.Layout.Distance(ranked[i].X, ranked[j].X)
			npairs++
		}
	}
	if npairs > 0 {
		rec.Diversity = dsum / float64(npairs)
	}
	rec.Duration, rec.Elapsed = time.Since(m.genStart), t.elapsed()
	t.rep.summary.Generations = gen + 1
	t.rep.summary.Games += m.genDistinct
	t.countGeneration(rec)
	t.rep.summary.GamesTime += rec.GamesTime
	ev := t.event(Event{GenDone: true, GamesDone: m.genDistinct, GamesTotal: m.genDistinct, BestScore: ranked[0].Stats.Score(), MeanScore: 1 - rec.FitMean,
		Best: ranked[0].ID, Champion: champ.ID})
	m.genGames, m.genOpenings, m.genBorn, m.genDistinct, m.genStart, t.g.slotTime = nil, nil, nil, 0, time.Now(), 0
	t.g.gen = gen + 1
	m.shownGen.Store(int64(gen + 1))
	m.shownGames.Store(int64(t.rep.summary.Games))
	return t.saveBehind(rec, ev)
}
