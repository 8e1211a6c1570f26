package tuner

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	randv2 "math/rand/v2"
	"time"

	"github.com/MaxHalford/eaopt"

	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/stats"
)

// Tuner runs one tuning run; make it with New. Its state is grouped by who owns it
// (state.go): the generation in progress (g: scheduling and the GA's callbacks), the hall
// of fame (hall: selection), the openings drawn (draws: scheduling), what has been saved
// (saving: the store's side) and what is reported (rep: progress and the summary).
type Tuner struct {
	plan        *Plan        // the run resolved: its game, layout and limits
	cfg         Config       // plan.Config, with SPSA's budget once calibrated from a time budget
	calibration *Calibration // SPSA's, when its game budget came from a time budget
	outside     *Outside     // nil: the built-in engine is tuned
	setup       GameSetup
	store       Store
	progress    func(Event)
	version     string
	fullVerify  bool              // SetFullVerification: no SPRT stop
	onCreate    func(int64) error // Compare: told the run's ID once it exists
	resume      []*genomes.Genome // the population of the last saved generation, in rank order

	// ctx is the run's context, kept for eaopt's callbacks (Evaluate, Callback), which
	// take none; Run, Resume and Verify set it.
	ctx context.Context

	g      generation
	hall   hallOfFame
	draws  openingDraws
	saving saving
	rep    report
}

// New prepares a run of cfg (validated here; the error names the field). progress may be
// nil; it is called from several goroutines, one call at a time.
func New(cfg Config, store Store, progress func(Event), version string) (*Tuner, error) {
	cfg.Resolve()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	plan, err := cfg.Plan()
	if err != nil {
		return nil, err
	}
	cfg, g, layout := plan.Config, plan.Game, plan.Layout
	var outside *Outside
	if cfg.Engine != "" {
		if outside, err = NewOutside(cfg, layout); err != nil {
			return nil, err
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
	forfeit := len(cfg.Opponents) > 0 || outside != nil
	if progress == nil {
		progress = func(Event) {}
	}
	baseline := "the paper's weights"
	if outside != nil {
		baseline = "the layout's defaults"
	}
	plan.Config = cfg
	setup := GameSetup{Game: g, Board: cfg.Board, Limits: plan.Limits, MaxPlies: plan.MaxPlies, Forfeit: forfeit}
	if setup.Adjudicate, err = cfg.Adjudication(); err != nil {
		return nil, err
	}
	if outside != nil {
		setup.TimeControl = outside.TimeControl()
	}
	return &Tuner{plan: plan, rep: report{summary: Summary{Baseline: baseline, Method: cfg.Method}}, cfg: cfg, outside: outside, store: store, progress: progress, version: version,
		hall:  hallOfFame{tested: map[string]bool{}},
		setup: setup}, nil
}

// Config returns the run's configuration with defaults filled in.
func (t *Tuner) Config() Config { return t.cfg }

// Limits returns the search limits every game uses.
func (t *Tuner) Limits() engine.Limits { return t.setup.Limits }

// Setup returns what every game of the run shares (game, board, limits, ply limit).
func (t *Tuner) Setup() GameSetup { return t.setup }

// Streams of derived random numbers: each generation's openings, selection and variation
// come from their own stream, so any generation can be replayed from the seed alone.
// Racing round r draws its openings from stream streamOpenings + r<<4.
const (
	streamInit     = 1
	streamOpenings = 2
	streamGA       = 3
	streamAdmit    = 4
	streamCheck    = 5
	streamDefence  = 6
	// streamCalibration draws SPSA's calibration openings (spsa.go): never tuned on.
	streamCalibration = 7
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
	if t.NeedsCalibration() {
		if _, err := t.Calibrate(ctx); err != nil {
			return Summary{}, err
		}
	}
	cj, _ := json.Marshal(t.cfg)
	id, err := t.store.CreateRun(ctx, RunRecord{Name: t.cfg.Name, Game: t.cfg.Game, Seed: t.cfg.Seed, Config: string(cj), ProgramVersion: t.version, PID: pid})
	if err != nil {
		return Summary{}, err
	}
	if t.onCreate != nil {
		if err := t.onCreate(id); err != nil {
			t.ctx, t.saving.runID, t.rep.summary.RunID = ctx, id, id
			return t.finish(err)
		}
	}
	if t.cfg.Method == MethodSPSA {
		return t.runSPSA(ctx, id, 0, t.toTheta(t.plan.Layout.Defaults()))
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
	Round   int
	Stats   genomes.Stats
}

// ResumeFamer is a hall-of-fame member as stored: its ID, the generation it was admitted
// in, its genes by name and its games against the paper's weights since then.
type ResumeFamer struct {
	ID         string
	Generation int
	Genes      map[string]float64
	Stats      genomes.Stats
}

// SetFullVerification makes the final verification play all its games (no SPRT stop), as
// a comparison of methods needs: every result measured on the same held-out openings.
func (t *Tuner) SetFullVerification() { t.fullVerify = true }

// SetRunner makes the tuner play its batches through r (cluster mode, package
// tuner/cluster) instead of the in-process pool; nil restores the pool. Results do not
// change: games are keyed by task and played with fresh players either way.
func (t *Tuner) SetRunner(r BatchRunner) { t.setup.Runner = r }

// nameRun tells a RunNamer runner the run its batches belong to.
func (t *Tuner) nameRun(runID int64) {
	if n, ok := t.setup.Runner.(RunNamer); ok {
		n.NameRun(fmt.Sprintf("run %d (%s)", runID, t.cfg.Game))
	}
}

// ResumeState is what a run needs to continue after its last saved generation: read
// back from the store by the command line.
type ResumeState struct {
	RunID int64
	// LastGeneration is the number of the last saved generation (−1: none saved).
	LastGeneration int
	// Population is that generation's individuals in rank order (best first).
	Population []ResumeIndividual
	// HallOfFame is every admitted individual in order of admission; Tested every
	// individual that had an admission test.
	HallOfFame []ResumeFamer
	Tested     []string
	// Closest is the saved test with the highest lower bound of its paired difference (nil:
	// none), for the summary (Summary.Closest).
	Closest *Admission
	// Openings are every opening used in tuning so far (kept out of verification).
	Openings [][]string
	// Elapsed is the wall time of the saved generations (for the time budget).
	Elapsed time.Duration
	// Games and GamesTime are the saved generations' distinct games and the time spent
	// playing them, so that a resumed run's summary counts the whole run.
	Games       int
	GameRecords int
	GamesTime   time.Duration
	// StepResults are an SPSA run's saved steps' results, W − L of θ+ against θ− in
	// generation k (nil for the GA).
	StepResults []int
}

// Resume continues a run from its last saved generation with the same configuration,
// population, opponent pool and random streams, so it ends exactly as an uninterrupted
// run with the same seed would. A run with no saved generation starts over under its ID.
func (t *Tuner) Resume(ctx context.Context, st ResumeState) (Summary, error) {
	t.ctx = ctx
	if t.cfg.Method == MethodSPSA {
		return t.resumeSPSA(ctx, st)
	}
	if st.LastGeneration < 0 {
		return t.evolve(ctx, st.RunID, nil)
	}
	if len(st.Population) != t.cfg.Population {
		return Summary{}, fmt.Errorf("resume: generation %d has %d individuals, the config says %d", st.LastGeneration, len(st.Population), t.cfg.Population)
	}
	toGenome := func(r ResumeIndividual) (*genomes.Genome, error) {
		x, err := t.plan.Layout.FromNamed(r.Genes)
		if err != nil {
			return nil, fmt.Errorf("resume: individual %s: %w", r.ID, err)
		}
		return &genomes.Genome{Layout: t.plan.Layout, X: x, ID: r.ID, Op: r.Op, Parents: r.Parents, Born: r.Born,
			Stats: r.Stats, Round: r.Round, Mutation: t.cfg.Mutation, Evaluator: t.evaluate}, nil
	}
	var pop []*genomes.Genome
	for _, r := range st.Population {
		g, err := toGenome(r)
		if err != nil {
			return Summary{}, err
		}
		pop = append(pop, g)
	}
	for _, h := range st.HallOfFame {
		x, err := t.plan.Layout.FromNamed(h.Genes)
		if err != nil {
			return Summary{}, fmt.Errorf("resume: hall of fame %s: %w", h.ID, err)
		}
		t.hall.hof = append(t.hall.hof, HallOfFamer{ID: h.ID, Generation: h.Generation, Genes: x, Stats: h.Stats})
	}
	for _, id := range st.Tested {
		t.hall.tested[id] = true
	}
	t.rep.summary.Tests, t.rep.summary.Closest = len(st.Tested), st.Closest
	t.rep.elapsedBefore, t.rep.start = st.Elapsed, time.Now()
	t.draws.tuningOpenings = map[string]bool{}
	for _, o := range st.Openings {
		t.draws.tuningOpenings[Key(o)] = true
	}
	t.g.gen = st.LastGeneration
	t.saving.runID, t.rep.summary.RunID = st.RunID, st.RunID // before setChampion, whose default names the run's 0-g0-00
	t.resume = pop
	t.saving.skipSave = true
	t.rep.summary.Generations = st.LastGeneration + 1
	t.rep.summary.Games, t.rep.summary.GameRecords, t.rep.summary.GamesTime = st.Games, st.GameRecords, st.GamesTime
	t.setChampion(pop)
	remaining := t.cfg.Generations - st.LastGeneration
	if t.cfg.Generations == 0 {
		remaining = math.MaxInt32
	}
	if remaining <= 0 || t.overBudget() {
		// Every generation is saved: only the verification may be missing.
		t.rep.start = time.Now()
		return t.finish(t.verifyAll())
	}
	return t.evolve(ctx, st.RunID, &remaining)
}

// evolve runs eaopt for the run's remaining generations (all of them when remaining is
// nil), then the verification, and records the final status.
func (t *Tuner) evolve(ctx context.Context, runID int64, remaining *int) (Summary, error) {
	t.rep.start = time.Now()
	t.saving.runID = runID
	t.rep.summary.RunID = runID
	t.nameRun(runID)
	t.draws.initRNG = t.rngV2(0, streamInit)
	t.g.genStart = time.Now()
	n := t.cfg.Generations
	if n == 0 {
		n = math.MaxInt32 // until the time budget
	}
	if remaining != nil {
		n = *remaining
	}
	ga, err := eaopt.GAConfig{
		NPops: 1, PopSize: uint(t.cfg.Population), NGenerations: uint(n), HofSize: 1,
		Model:     model{t},
		RNG:       t.rngV1(0, streamGA),
		Callback:  t.onGeneration,
		EarlyStop: func(*eaopt.GA) bool { return t.saving.err != nil || ctx.Err() != nil || t.overBudget() },
	}.NewGA()
	if err != nil {
		return t.finish(fmt.Errorf("eaopt: %w", err))
	}
	err = ga.Minimize(t.newGenome)
	if err == nil {
		err = t.saving.err
	}
	if err == nil {
		err = ctx.Err()
	}
	t.rep.summary.Wall = t.elapsed() // the generations only (all of them, across resumes); verification is timed apart
	if err == nil {
		err = t.verifyAll()
	}
	return t.finish(err)
}

// elapsed is the run's wall time over all its sessions.
func (t *Tuner) elapsed() time.Duration { return t.rep.elapsedBefore + time.Since(t.rep.start) }

// overBudget reports whether the time budget or the game budget is used up (checked
// between generations).
func (t *Tuner) overBudget() bool {
	if t.cfg.BudgetGames > 0 && t.rep.summary.Games >= t.cfg.BudgetGames {
		return true
	}
	b := t.cfg.Budget()
	return b > 0 && t.elapsed() >= b
}

// verifyAll plays the final verification matches: at the tuning depth, then at
// VerifyDepth if set. A champion that is the baseline plays none and stores an unmeasured
// verification (Games 0).
func (t *Tuner) verifyAll() error {
	if t.cfg.VerifyGames == 0 {
		return nil
	}
	vstart := time.Now()
	defer func() { t.rep.summary.VerifyTime = time.Since(vstart) }()
	if t.championIsBaseline() {
		// Never the paper's weights against themselves: nothing to measure.
		v := t.unmeasured(t.setup.Limits)
		t.rep.summary.Verification = &v
		return t.store.SaveVerification(t.ctx, t.saving.runID, v)
	}
	def := stats.DefaultSPRT // a copy: the match fills in its own
	sprt := &def
	if t.fullVerify {
		sprt = nil
	}
	v, err := t.verifyChampion(t.setup, t.cfg.Seed, t.cfg.VerifyGames, sprt)
	if err != nil {
		return err
	}
	t.rep.summary.Verification = &v
	if t.cfg.VerifyDepth > 0 {
		deep := t.setup
		deep.Limits.Depth = t.cfg.VerifyDepth
		n := t.cfg.VerifyDepthGames
		if n == 0 {
			n = t.cfg.VerifyGames
		}
		d, err := t.verifyChampion(deep, t.cfg.Seed, n, sprt)
		if err != nil {
			return err
		}
		t.rep.summary.Deep = &d
		v.Deep = &d
	}
	return t.store.SaveVerification(t.ctx, t.saving.runID, v)
}

func (t *Tuner) finish(err error) (Summary, error) {
	status, text := "finished", ""
	switch {
	case err != nil && t.ctx.Err() != nil:
		status, text = "stopped", "stopped: "+t.ctx.Err().Error()
	case err != nil:
		status, text = "failed", err.Error()
	}
	t.rep.summary.Status = status
	if t.rep.summary.Wall == 0 {
		t.rep.summary.Wall = t.elapsed()
	}
	// The status must be written even though ctx may be cancelled.
	if serr := t.store.SetRunStatus(context.WithoutCancel(t.ctx), t.saving.runID, status, text); serr != nil && err == nil {
		err = serr
	}
	return t.rep.summary, err
}

// newGenome makes generation 0: slot 0 is the paper's weights, the others perturbations of
// them (or random genomes).
func (t *Tuner) newGenome(*rand.Rand) eaopt.Genome {
	i := t.g.slot
	t.g.slot++
	if t.resume != nil { // a resumed run starts from the saved population, already scored
		g := t.resume[i]
		t.g.current = append(t.g.current, g)
		t.g.evaluated = true
		return g
	}
	g := &genomes.Genome{Layout: t.plan.Layout, ID: genomes.IndividualID(t.saving.runID, 0, i), Born: 0,
		Mutation: t.cfg.Mutation, Evaluator: t.evaluate}
	switch {
	case i == 0:
		g.X, g.Op = t.plan.Layout.Defaults(), genomes.OpBaseline
	case t.cfg.Init == "random":
		g.X, g.Op = t.plan.Layout.Random(rand.New(rand.NewSource(int64(t.draws.initRNG.Uint64()>>1)))), genomes.OpInitial
	default:
		g.X, g.Op = t.plan.Layout.Perturb(t.cfg.Mutation, rand.New(rand.NewSource(int64(t.draws.initRNG.Uint64()>>1)))), genomes.OpInitial
	}
	t.g.current = append(t.g.current, g)
	t.g.born = append(t.g.born, g)
	return g
}

// evaluate is every genome's Evaluator: the first call of a generation plays the whole
// generation's race as batches on the worker pool; every call answers 1 − the genome's
// score over its games of this generation.
func (t *Tuner) evaluate(g *genomes.Genome) (float64, error) {
	if !t.g.evaluated {
		if err := t.playGeneration(); err != nil {
			t.saving.err = err
			return 0, err
		}
		t.g.evaluated = true
	}
	return 1 - g.Stats.Score(), nil
}

func (t *Tuner) report(e Event) {
	if t.saving.runID == 0 && t.NeedsCalibration() {
		return // Calibrate's games belong to no generation
	}
	t.emit(t.event(e))
}

// event fills e's run fields (run, generation, method, games so far, time) from the
// tuner's state now.
func (t *Tuner) event(e Event) Event {
	e.RunID, e.Generation, e.Generations = t.saving.runID, t.g.gen, t.cfg.Generations
	e.Method, e.RunGames, e.BudgetGames = t.cfg.Method, t.rep.summary.Games, t.cfg.BudgetGames
	e.Elapsed, e.Budget = t.elapsed(), t.cfg.Budget()
	return e
}

// emit hands a filled event (event) to the progress function, one at a time; events that
// are not the end of a generation carry the last generation's scores.
func (t *Tuner) emit(e Event) {
	t.rep.progMu.Lock()
	defer t.rep.progMu.Unlock()
	if e.GenDone {
		t.rep.last = e
	} else {
		e.BestScore, e.MeanScore, e.Best = t.rep.last.BestScore, t.rep.last.MeanScore, t.rep.last.Best
		e.Champion, e.ChampionElo, e.CentreOf = t.rep.last.Champion, t.rep.last.ChampionElo, t.rep.last.CentreOf
	}
	t.progress(e)
}
