package tuner

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	randv2 "math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/MaxHalford/eaopt"
	"gonum.org/v1/gonum/stat"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner/stats"
)

// Store saves a run. The command line wires the db package in; the tuner declares only
// what it needs.
type Store interface {
	// CreateRun inserts a running run and returns its ID.
	CreateRun(ctx context.Context, r RunRecord) (int64, error)
	// SaveGeneration writes one generation atomically: all of it or nothing.
	SaveGeneration(ctx context.Context, g GenerationRecord) error
	// SetRunStatus records "finished", "stopped" or "failed" (with the error's text).
	SetRunStatus(ctx context.Context, runID int64, status, errText string) error
	// SaveVerification stores the champion's verification match with the run.
	SaveVerification(ctx context.Context, runID int64, v Verification) error
}

// RunRecord is a new run.
type RunRecord struct {
	Name, Game     string
	Seed           int64
	Config         string // Config as JSON
	ProgramVersion string
	PID            int
}

// GenomeRecord is an individual born in a generation.
type GenomeRecord struct {
	ID       string
	Born     int
	Operator string
	Parents  []string
	Genes    map[string]float64
}

// IndividualRecord is an individual's standing in a generation (results accumulated over
// all generations it lived in).
type IndividualRecord struct {
	ID      string
	Rank    int
	Fitness float64 // 1 − score
	Stats   genomes.Stats
}

// GameResult is one game of an individual in a generation.
type GameResult struct {
	Individual string
	Opponent   string
	Opening    int
	Colour     engine.Color // the individual's colour
	Score      float64      // the individual's score
	Record     engine.GameRecord
}

// GenerationRecord is everything a generation saves.
type GenerationRecord struct {
	RunID       int64
	Generation  int
	FitMin      float64
	FitMean     float64
	FitMax      float64
	FitStd      float64
	Diversity   float64
	Games       int
	Duration    time.Duration // wall time of the generation up to saving
	GamesTime   time.Duration // wall time of its game batch
	Best        string
	Opponents   []string
	Openings    [][]string
	NewGenomes  []GenomeRecord
	Individuals []IndividualRecord
	GameResults []GameResult
}

// Event reports progress: after every game and at the end of every generation.
type Event struct {
	RunID       int64
	Generation  int // 0 = the initial population
	Generations int // the last generation's number
	GamesDone   int // games of this generation finished
	GamesTotal  int
	GenDone     bool // the generation is saved
	Verifying   bool // the final verification match is running
	Elapsed     time.Duration
	BestScore   float64 // best and mean score of the last saved generation
	MeanScore   float64
	Best        string
}

// Summary is the outcome of a run.
type Summary struct {
	RunID       int64
	Status      string
	Generations int // generations saved
	Best        string
	BestScore   float64
	BestGenes   []float64
	Games       int
	Wall        time.Duration // wall time of the generations
	GamesTime   time.Duration // time spent playing their games
	VerifyTime  time.Duration // wall time of the final verification match
	// Verification is the final match against the baseline, if one was played.
	Verification *Verification
}

// Tuner runs one tuning run; make it with New.
type Tuner struct {
	cfg      Config
	game     engine.Game
	layout   *genomes.Layout
	store    Store
	progress func(Event)
	version  string

	ctx       context.Context
	runID     int64
	gen       int
	slot      int
	current   []*genomes.Genome
	born      []*genomes.Genome
	evaluated bool
	champions []*genomes.Genome
	baseline  engine.Weights
	setup     GameSetup
	initRNG   *randv2.Rand

	genStart       time.Time
	tuningOpenings map[string]bool // every opening used in tuning, excluded from verification
	gamesTime      time.Duration
	gameResults    []GameResult
	openings       [][]string
	opponents      []string
	err            error
	skipSave       bool              // the first Callback of a resumed run re-reports a saved generation
	resume         []*genomes.Genome // the population of the last saved generation, in rank order

	progMu    sync.Mutex
	gamesDone atomic.Int64
	start     time.Time
	last      Event
	summary   Summary
}

// New prepares a run of cfg (validated here; the error names the field). progress may be
// nil; it is called from several goroutines, one call at a time.
func New(cfg Config, store Store, progress func(Event), version string) (*Tuner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e, _ := genomes.Lookup(cfg.Game)
	layout, _ := e.Layout.Free(cfg.Free...)
	g := e.Game
	if cfg.Rule != "" {
		r, ok := g.(engine.Ruled)
		if !ok {
			return nil, fmt.Errorf("rule: %s has no rule variants", cfg.Game)
		}
		var err error
		if g, err = r.WithRule(cfg.Rule); err != nil {
			return nil, fmt.Errorf("rule: %w", err)
		}
	}
	if _, err := g.NewBoard(cfg.Board); err != nil {
		return nil, fmt.Errorf("board: %w", err)
	}
	if _, ok := g.(engine.Opener); !ok {
		return nil, fmt.Errorf("game: %s cannot make openings", cfg.Game)
	}
	if cfg.Name == "" {
		cfg.Name = fmt.Sprintf("%s-seed%d", cfg.Game, cfg.Seed)
	}
	lim := g.DefaultLimits()
	if cfg.Depth > 0 {
		lim.Depth = cfg.Depth
	}
	if cfg.Width > 0 {
		lim.Width = cfg.Width
	}
	maxPlies := cfg.MaxPlies
	if maxPlies == 0 {
		maxPlies = 400
	}
	forfeit := len(cfg.Opponents) > 0
	if progress == nil {
		progress = func(Event) {}
	}
	return &Tuner{cfg: cfg, game: g, layout: layout, store: store, progress: progress, version: version,
		baseline: g.DefaultWeights(),
		setup:    GameSetup{Game: g, Board: cfg.Board, Limits: lim, MaxPlies: maxPlies, Forfeit: forfeit}}, nil
}

// Config returns the run's configuration with defaults filled in.
func (t *Tuner) Config() Config { return t.cfg }

// Limits returns the search limits every game uses.
func (t *Tuner) Limits() engine.Limits { return t.setup.Limits }

// Setup returns what every game of the run shares (game, board, limits, ply limit).
func (t *Tuner) Setup() GameSetup { return t.setup }

// Streams of derived random numbers: each generation's openings, selection and variation
// come from their own stream, so any generation can be replayed from the seed alone.
const (
	streamInit     = 1
	streamOpenings = 2
	streamGA       = 3
)

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func (t *Tuner) rngV2(gen int, stream uint64) *randv2.Rand {
	return randv2.New(randv2.NewPCG(uint64(t.cfg.Seed), mix(uint64(gen)<<8|stream)))
}

func (t *Tuner) rngV1(gen int, stream uint64) *rand.Rand {
	return rand.New(rand.NewSource(int64(mix(uint64(t.cfg.Seed)^mix(uint64(gen)<<8|stream)) >> 1)))
}

// Run creates the run in the store and evolves it: generation 0 (the baseline and its
// perturbations), then cfg.Generations more, each saved when complete, then the
// verification match. Cancelling ctx stops the run (status "stopped"); the generation in
// progress is not saved.
func (t *Tuner) Run(ctx context.Context, pid int) (Summary, error) {
	t.ctx = ctx
	cj, _ := json.Marshal(t.cfg)
	id, err := t.store.CreateRun(ctx, RunRecord{Name: t.cfg.Name, Game: t.cfg.Game, Seed: t.cfg.Seed, Config: string(cj), ProgramVersion: t.version, PID: pid})
	if err != nil {
		return Summary{}, err
	}
	return t.evolve(ctx, id, nil)
}

// ResumeIndividual is one individual of the last saved generation, as stored.
type ResumeIndividual struct {
	ID      string
	Genes   map[string]float64
	Op      string
	Parents []string
	Born    int
	Stats   genomes.Stats
}

// ResumeState is what a run needs to continue after its last saved generation: read
// back from the store by the command line.
type ResumeState struct {
	RunID int64
	// LastGeneration is the number of the last saved generation (−1: none saved).
	LastGeneration int
	// Population is that generation's individuals in rank order (best first).
	Population []ResumeIndividual
	// Bests are the best individuals of every saved generation, in order (for the
	// opponent pool).
	Bests []ResumeIndividual
	// Openings are every opening used in tuning so far (kept out of verification).
	Openings [][]string
}

// Resume continues a run from its last saved generation with the same configuration,
// population, opponent pool and random streams, so it ends exactly as an uninterrupted
// run with the same seed would. A run with no saved generation starts over under its ID.
func (t *Tuner) Resume(ctx context.Context, st ResumeState) (Summary, error) {
	t.ctx = ctx
	if st.LastGeneration < 0 {
		return t.evolve(ctx, st.RunID, nil)
	}
	if len(st.Population) != t.cfg.Population {
		return Summary{}, fmt.Errorf("resume: generation %d has %d individuals, the config says %d", st.LastGeneration, len(st.Population), t.cfg.Population)
	}
	toGenome := func(r ResumeIndividual) (*genomes.Genome, error) {
		x, err := t.layout.FromNamed(r.Genes)
		if err != nil {
			return nil, fmt.Errorf("resume: individual %s: %w", r.ID, err)
		}
		return &genomes.Genome{Layout: t.layout, X: x, ID: r.ID, Op: r.Op, Parents: r.Parents, Born: r.Born,
			Stats: r.Stats, Mutation: t.cfg.Mutation, Evaluator: t.evaluate}, nil
	}
	var pop []*genomes.Genome
	for _, r := range st.Population {
		g, err := toGenome(r)
		if err != nil {
			return Summary{}, err
		}
		pop = append(pop, g)
	}
	// Replay the opponent-pool rule over the saved generations' bests.
	for _, r := range st.Bests {
		g, err := toGenome(r)
		if err != nil {
			return Summary{}, err
		}
		t.addChampion(g)
	}
	t.tuningOpenings = map[string]bool{}
	for _, o := range st.Openings {
		t.tuningOpenings[Key(o)] = true
	}
	t.gen = st.LastGeneration
	t.resume = pop
	t.skipSave = true
	best := pop[0]
	t.summary.Generations = st.LastGeneration + 1
	t.summary.Best, t.summary.BestScore, t.summary.BestGenes = best.ID, best.Stats.Score(), append([]float64(nil), best.X...)
	remaining := t.cfg.Generations - st.LastGeneration
	if remaining <= 0 {
		// Every generation is saved: only the verification may be missing.
		t.runID, t.summary.RunID, t.start = st.RunID, st.RunID, time.Now()
		var err error
		if t.cfg.VerifyGames > 0 {
			err = t.verify()
		}
		return t.finish(err)
	}
	return t.evolve(ctx, st.RunID, &remaining)
}

// evolve runs eaopt for the run's remaining generations (all of them when remaining is
// nil), then the verification, and records the final status.
func (t *Tuner) evolve(ctx context.Context, runID int64, remaining *int) (Summary, error) {
	t.start = time.Now()
	t.runID = runID
	t.summary.RunID = runID
	t.initRNG = t.rngV2(0, streamInit)
	t.genStart = time.Now()
	n := t.cfg.Generations
	if remaining != nil {
		n = *remaining
	}
	ga, err := eaopt.GAConfig{
		NPops: 1, PopSize: uint(t.cfg.Population), NGenerations: uint(n), HofSize: 1,
		Model:     model{t},
		RNG:       t.rngV1(0, streamGA),
		Callback:  t.onGeneration,
		EarlyStop: func(*eaopt.GA) bool { return t.err != nil || ctx.Err() != nil },
	}.NewGA()
	if err != nil {
		return t.finish(fmt.Errorf("eaopt: %w", err))
	}
	err = ga.Minimize(t.newGenome)
	if err == nil {
		err = t.err
	}
	if err == nil {
		err = ctx.Err()
	}
	t.summary.Wall = time.Since(t.start) // the generations only; verification is timed apart
	if err == nil && t.cfg.VerifyGames > 0 {
		vstart := time.Now()
		err = t.verify()
		t.summary.VerifyTime = time.Since(vstart)
	}
	return t.finish(err)
}

// verify plays the run's best individual against the baseline on openings never used in
// tuning, and saves the result with the run.
func (t *Tuner) verify() error {
	champ, err := t.layout.Weights(t.summary.BestGenes)
	if err != nil {
		return err
	}
	t.report(Event{Verifying: true, GamesTotal: t.cfg.VerifyGames})
	sprt := stats.DefaultSPRT
	v, err := Verify(t.ctx, VerifyConfig{Setup: t.setup, Champion: champ, ChampionID: t.summary.Best, Games: t.cfg.VerifyGames,
		OpeningSpec: t.cfg.VerifyOpenings, Exclude: t.tuningOpenings, Seed: t.cfg.Seed, SPRT: &sprt, Workers: t.cfg.Workers},
		func(done, total int, _ stats.Result) {
			t.report(Event{Verifying: true, GamesDone: done, GamesTotal: total})
		})
	if err != nil {
		return err
	}
	t.summary.Verification = &v
	return t.store.SaveVerification(t.ctx, t.runID, v)
}

func (t *Tuner) finish(err error) (Summary, error) {
	status, text := "finished", ""
	switch {
	case err != nil && t.ctx.Err() != nil:
		status, text = "stopped", "stopped: "+t.ctx.Err().Error()
	case err != nil:
		status, text = "failed", err.Error()
	}
	t.summary.Status = status
	if t.summary.Wall == 0 {
		t.summary.Wall = time.Since(t.start)
	}
	// The status must be written even though ctx may be cancelled.
	if serr := t.store.SetRunStatus(context.WithoutCancel(t.ctx), t.runID, status, text); serr != nil && err == nil {
		err = serr
	}
	return t.summary, err
}

// newGenome makes generation 0: slot 0 is the paper's weights, the others perturbations of
// them (or random genomes).
func (t *Tuner) newGenome(*rand.Rand) eaopt.Genome {
	i := t.slot
	t.slot++
	if t.resume != nil { // a resumed run starts from the saved population, already scored
		g := t.resume[i]
		t.current = append(t.current, g)
		t.evaluated = true
		return g
	}
	g := &genomes.Genome{Layout: t.layout, ID: genomes.IndividualID(t.runID, 0, i), Born: 0,
		Mutation: t.cfg.Mutation, Evaluator: t.evaluate}
	switch {
	case i == 0:
		g.X, g.Op = t.layout.Defaults(), genomes.OpBaseline
	case t.cfg.Init == "random":
		g.X, g.Op = t.layout.Random(rand.New(rand.NewSource(int64(t.initRNG.Uint64()>>1)))), genomes.OpInitial
	default:
		g.X, g.Op = t.layout.Perturb(t.cfg.Mutation, rand.New(rand.NewSource(int64(t.initRNG.Uint64()>>1)))), genomes.OpInitial
	}
	t.current = append(t.current, g)
	t.born = append(t.born, g)
	return g
}

// evaluate is every genome's Evaluator: the first call of a generation plays the whole
// generation's games as one batch; every call answers 1 − accumulated score.
func (t *Tuner) evaluate(g *genomes.Genome) (float64, error) {
	if !t.evaluated {
		if err := t.playGeneration(); err != nil {
			t.err = err
			return 0, err
		}
		t.evaluated = true
	}
	return 1 - g.Stats.Score(), nil
}

type opponent struct {
	id  string
	w   engine.Weights
	ext *protocol.ExternalSpec
}

// playGeneration plays every individual of the generation on the same openings, each
// twice with colours swapped, against the opponent pool, and adds the results to each
// individual's accumulated Stats.
func (t *Tuner) playGeneration() error {
	rng := t.rngV2(t.gen, streamOpenings)
	opener := t.game.(engine.Opener)
	pairs := t.cfg.Games / 2
	t.openings = make([][]string, pairs)
	if t.tuningOpenings == nil {
		t.tuningOpenings = map[string]bool{}
	}
	for k := range t.openings {
		b, _ := t.game.NewBoard(t.cfg.Board)
		t.openings[k] = opener.RandomOpening(b, rng)
		t.tuningOpenings[Key(t.openings[k])] = true
	}
	pool := []opponent{{id: "baseline", w: t.baseline}}
	for _, c := range t.champions {
		w, err := t.layout.Weights(c.X)
		if err != nil {
			return err
		}
		pool = append(pool, opponent{id: c.ID, w: w})
	}
	for _, o := range t.cfg.Opponents {
		argv, _, _ := protocol.ParseCommand(o)
		spec := &protocol.ExternalSpec{Argv: argv, MoveTime: time.Duration(t.cfg.OpponentMoveTime * float64(time.Second))}
		pool = append(pool, opponent{id: spec.Name(), ext: spec})
	}
	t.opponents = nil
	for _, o := range pool {
		t.opponents = append(t.opponents, o.id)
	}

	// One task per distinct (genes, opponent, opening, colour): identical genomes (clones,
	// elites and their copies) play each game once.
	type key struct {
		genes string
		opp   string
		k     int
		c     engine.Color
	}
	type ref struct {
		ind, k, task int
		c            engine.Color
		opp          string
	}
	index := map[key]int{}
	var tasks []GameTask
	var refs []ref
	for i, g := range t.current {
		w, err := t.layout.Weights(g.X)
		if err != nil {
			return fmt.Errorf("individual %s: %w", g.ID, err)
		}
		gk := fmt.Sprint(g.X)
		for k := 0; k < pairs; k++ {
			o := pool[k%len(pool)]
			for _, c := range []engine.Color{engine.Black, engine.White} {
				kk := key{gk, o.id, k, c}
				ti, ok := index[kk]
				if !ok {
					ti = len(tasks)
					index[kk] = ti
					opening := t.openings[k]
					if o.ext != nil && !protocol.AcceptsOpenings(t.game.Name()) {
						opening = nil // e.g. SAU engines cannot be given their own opening moves
					}
					task := GameTask{Black: w, White: o.w, WhiteExt: o.ext, Opening: opening}
					if c == engine.White {
						task = GameTask{Black: o.w, BlackExt: o.ext, White: w, Opening: opening}
					}
					tasks = append(tasks, task)
				}
				refs = append(refs, ref{i, k, ti, c, o.id})
			}
		}
	}
	total := len(refs)
	t.gamesDone.Store(0)
	perTask := make([]int, len(tasks))
	for _, r := range refs {
		perTask[r.task]++
	}
	// Progress counts games per individual (a shared game counts for each individual).
	var doneTasks atomic.Int64
	start := time.Now()
	recs, err := PlayBatch(t.ctx, t.setup, tasks, t.cfg.Workers, func() {
		n := doneTasks.Add(1)
		t.report(Event{GamesDone: int(float64(n) / float64(len(tasks)) * float64(total)), GamesTotal: total})
	})
	t.gamesTime = time.Since(start)
	t.summary.GamesTime += t.gamesTime
	if err != nil {
		return err
	}
	t.gameResults = nil // a fresh slice: the saved record keeps the old one
	gen := make([]genomes.Stats, len(t.current))
	pairScore := make(map[[2]int]float64)
	for _, r := range refs {
		rec := recs[r.task]
		s := rec.Outcome.Score(r.c)
		switch s {
		case 1:
			gen[r.ind].Wins++
		case 0:
			gen[r.ind].Losses++
		default:
			gen[r.ind].Draws++
		}
		pairScore[[2]int{r.ind, r.k}] += s
		t.gameResults = append(t.gameResults, GameResult{Individual: t.current[r.ind].ID, Opponent: r.opp, Opening: r.k, Colour: r.c, Score: s, Record: rec})
	}
	for i := range t.current {
		for k := 0; k < pairs; k++ {
			gen[i].Penta[int(math.Round(pairScore[[2]int{i, k}]*2))]++
		}
		t.current[i].Stats = t.current[i].Stats.Add(gen[i])
	}
	t.summary.Games += len(tasks)
	return nil
}

func (t *Tuner) report(e Event) {
	t.progMu.Lock()
	defer t.progMu.Unlock()
	e.RunID, e.Generation, e.Generations = t.runID, t.gen, t.cfg.Generations
	e.Elapsed = time.Since(t.start)
	if e.GenDone {
		t.last = e
	} else {
		e.BestScore, e.MeanScore, e.Best = t.last.BestScore, t.last.MeanScore, t.last.Best
	}
	t.progress(e)
}

// onGeneration runs after eaopt has evaluated and sorted a generation: it saves it in one
// transaction and updates the opponent pool.
func (t *Tuner) onGeneration(ga *eaopt.GA) {
	if t.err != nil || t.ctx.Err() != nil {
		return
	}
	if t.skipSave { // the resumed generation is already in the store
		t.skipSave = false
		t.gen++
		t.born = nil
		return
	}
	indis := append(eaopt.Individuals(nil), ga.Populations[0].Individuals...)
	sortIndividuals(indis)
	rec := GenerationRecord{RunID: t.runID, Generation: t.gen, Games: len(t.gameResults), GamesTime: t.gamesTime,
		Opponents: append([]string(nil), t.opponents...), Openings: t.openings, GameResults: t.gameResults}
	fits := make([]float64, len(indis))
	xs := make([][]float64, len(indis))
	for i, in := range indis {
		g := in.Genome.(*genomes.Genome)
		fits[i] = in.Fitness
		xs[i] = g.X
		rec.Individuals = append(rec.Individuals, IndividualRecord{ID: g.ID, Rank: i + 1, Fitness: in.Fitness, Stats: g.Stats})
	}
	for _, g := range t.born {
		rec.NewGenomes = append(rec.NewGenomes, GenomeRecord{ID: g.ID, Born: g.Born, Operator: g.Op, Parents: g.Parents, Genes: t.layout.Named(g.X)})
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
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			dsum += t.layout.Distance(xs[i], xs[j])
			npairs++
		}
	}
	if npairs > 0 {
		rec.Diversity = dsum / float64(npairs)
	}
	best := indis[0].Genome.(*genomes.Genome)
	rec.Best = best.ID
	rec.Duration = time.Since(t.genStart)
	if err := t.store.SaveGeneration(t.ctx, rec); err != nil {
		t.err = err
		return
	}
	t.summary.Generations = t.gen + 1
	t.summary.Best, t.summary.BestScore, t.summary.BestGenes = best.ID, best.Stats.Score(), append([]float64(nil), best.X...)
	t.addChampion(best)
	t.report(Event{GenDone: true, GamesDone: len(t.gameResults), GamesTotal: len(t.gameResults),
		BestScore: 1 - rec.FitMin, MeanScore: 1 - rec.FitMean, Best: best.ID})
	t.gen++
	t.born = nil
}

// sortIndividuals orders by fitness, then by ID: a total order, so ranks, elites and
// selection never depend on how eaopt's unstable sort left equal fitnesses, and a resumed
// run continues exactly as an uninterrupted one.
func sortIndividuals(indis eaopt.Individuals) {
	sort.SliceStable(indis, func(i, j int) bool {
		a, b := indis[i], indis[j]
		if a.Fitness != b.Fitness {
			return a.Fitness < b.Fitness
		}
		return a.Genome.(*genomes.Genome).ID < b.Genome.(*genomes.Genome).ID
	})
}

// addChampion applies the opponent-pool rule after a generation whose best is g: the pool
// is the baseline plus the best individual of each of the last `Champions` generations
// (distinct, not the baseline, frozen as they were).
func (t *Tuner) addChampion(g *genomes.Genome) {
	if t.cfg.Champions == 0 || g.Op == genomes.OpBaseline {
		return
	}
	for _, c := range t.champions {
		if c.ID == g.ID {
			return
		}
	}
	t.champions = append(t.champions, g.Clone().(*genomes.Genome))
	if len(t.champions) > t.cfg.Champions {
		t.champions = t.champions[1:]
	}
}

// model is the generational model with elitism: the best Elite individuals survive
// unchanged (keeping their IDs and accumulated games); the rest are bred by tournament
// selection, uniform crossover and mutation. It implements eaopt.Model.
type model struct{ t *Tuner }

// Validate implements eaopt.Model.
func (model) Validate() error { return nil }

// Apply implements eaopt.Model: it replaces pop by the next generation. Randomness comes
// from the generation's own stream.
func (m model) Apply(pop *eaopt.Population) error {
	t := m.t
	t.genStart = time.Now()
	rng := t.rngV1(t.gen, streamGA)
	pop.RNG = rng
	old := pop.Individuals
	sortIndividuals(old)
	n := len(old)
	next := make([]*genomes.Genome, 0, n)
	for i := 0; i < t.cfg.Elite && i < n; i++ {
		next = append(next, old[i].Genome.Clone().(*genomes.Genome))
	}
	t.born = nil
	sel := eaopt.SelTournament{NContestants: uint(max(1, min(t.cfg.Tournament, n-1)))}
	slot := len(next)
	for len(next) < n {
		selected, _, err := sel.Apply(2, old, rng)
		if err != nil {
			return fmt.Errorf("selection: %w", err)
		}
		kids := []*genomes.Genome{selected[0].Genome.(*genomes.Genome), selected[1].Genome.(*genomes.Genome)}
		for _, k := range kids {
			k.Parents, k.Op = []string{k.ID}, genomes.OpClone
		}
		if rng.Float64() < t.cfg.CrossoverRate {
			kids[0].Crossover(kids[1], rng)
			kids[0].Stats, kids[1].Stats = genomes.Stats{}, genomes.Stats{}
		}
		for _, k := range kids {
			if len(next) == n {
				break
			}
			if rng.Float64() < t.cfg.MutationRate {
				k.Mutate(rng)
				k.Stats = genomes.Stats{}
			}
			// A clone keeps its parent's accumulated games: same genes, same evidence.
			k.ID, k.Born = genomes.IndividualID(t.runID, t.gen, slot), t.gen
			slot++
			next = append(next, k)
			t.born = append(t.born, k)
		}
	}
	pop.Individuals = make(eaopt.Individuals, n)
	for i, g := range next {
		pop.Individuals[i] = eaopt.Individual{Genome: g, Fitness: math.Inf(1), ID: g.ID}
	}
	t.current = next
	t.evaluated = false
	return nil
}
