package tuner

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	randv2 "math/rand/v2"
	"sync/atomic"
	"time"

	"evotune/engine"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/outside"
	"evotune/tuner/record"
	"evotune/tuner/report"
	"evotune/tuner/search"
	"evotune/tuner/stats"
)

// Tuner runs one tuning run; make it with New. Its state is grouped by who owns it
// (state.go): the generation being filled (gen: the method's), the openings tuned on
// (draws), what has been saved (saving: the store's side) and what is reported (rep:
// progress and the summary); the method, on the run loop (search.Loop), keeps its own.
type Tuner struct {
	plan        *config.Plan     // the run resolved: its game, layout and limits
	cfg         config.Config    // plan.Config, with SPSA's budget once calibrated from a time budget
	calibration *Calibration     // SPSA's, when its game budget came from a time budget
	outside     *outside.Outside // nil: the built-in engine is tuned
	weights     weightsMemo      // the built-in engine's weights of the genomes scheduled lately
	setup       arena.GameSetup
	store       record.Store
	progress    func(record.Event)
	version     string
	fullVerify  bool              // SetFullVerification: no SPRT stop
	onCreate    func(int64) error // OnCreate's: told the run's ID once it exists
	method      searchMethod      // the search (Config.Method), a method on the run loop (search.Loop)
	sw          switches          // the Options New was given

	// ctx is the run's context; Run, Resume and Verify set it.
	ctx context.Context

	// gen is the generation being filled, which events and checkpoints name
	// (search.Host.SetGeneration).
	gen    int
	draws  openingDraws
	saving saving
	rep    reporting
	proof  proof
}

// proof follows the checkpoints for Config.StopWhenProven: the Elo of every measured one
// (restored on resume) and, once set, the checkpoint that proved the champion.
type proof struct {
	elos   []float64
	proven atomic.Pointer[ladder.Verification]
}

// Option changes how a run keeps its game slots busy, never what it finds: the tests and
// replay benchmarks compare runs with and without playing ahead, lagged admission tests or
// openings drawn ahead. A run made without options plays as tune does.
type Option func(*switches)

// switches are the Options a run was made with; the zero value is tune's run.
type switches struct {
	noAhead      bool // no generation or round played ahead of the one asked
	keepGuessing bool // the GA guesses ahead however few of its guesses are adopted
	testsInTurn  bool // the GA plays every admission test in a batch of its own
	inTurn       bool // every opening draw in its turn, none ahead
	// oracle gives a game's real record before it ends (replay benchmarks: the most that
	// guessing a round ahead can fill); nil: none.
	oracle func(arena.GameTask) (engine.GameRecord, bool)
}

// withoutAhead plays no generation or round ahead (the GA's and the loop's).
func withoutAhead() Option { return func(s *switches) { s.noAhead = true } }

// guessAlways makes the GA guess ahead however few of its guesses are adopted.
func guessAlways() Option { return func(s *switches) { s.keepGuessing = true } }

// testsInTurn plays each of the GA's admission tests in a batch of its own, as the GA
// did before its tests were played behind the next generations' pairings.
func testsInTurn() Option { return func(s *switches) { s.testsInTurn = true } }

// drawInTurn makes every opening draw in its turn, none ahead.
func drawInTurn() Option { return func(s *switches) { s.inTurn = true } }

// withOracle gives the loop each game's real record before it ends (replay benchmarks).
func withOracle(f func(arena.GameTask) (engine.GameRecord, bool)) Option {
	return func(s *switches) { s.oracle = f }
}

// New prepares a run of cfg (validated here; the error names the field). progress may be
// nil; it is called from several goroutines, one call at a time. opts are the tests' and
// benchmarks' (Option).
func New(cfg config.Config, store record.Store, progress func(record.Event), version string, opts ...Option) (*Tuner, error) {
	cfg.Resolve()
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	plan, setup, ext, err := Setup(cfg)
	if err != nil {
		return nil, err
	}
	cfg = plan.Config
	if cfg.Name == "" {
		cfg.Name = fmt.Sprintf("%s-seed%d", cfg.Game, cfg.Seed)
	}
	plan.Config = cfg
	if progress == nil {
		progress = func(record.Event) {}
	}
	baseline := "the paper's weights"
	if ext != nil {
		baseline = "the layout's defaults"
	}
	spec, ok := specOf(cfg.Method) // "": a GA run stored before the configuration named its method
	if !ok {
		return nil, fmt.Errorf("method: %q, want one of %s", cfg.Method, config.MethodNames())
	}
	t := &Tuner{plan: plan, rep: reporting{summary: report.Summary{Baseline: baseline, Method: cfg.Method, Lag: spec.LagOf(cfg), ChampionRule: cfg.Champion, Summarise: spec.Summarise}}, cfg: cfg, outside: ext, store: store, progress: progress, version: version,
		setup: setup}
	for _, o := range opts {
		o(&t.sw)
	}
	if t.method, err = spec.make(t); err != nil {
		return nil, err
	}
	return t, nil
}

// Setup resolves the configuration (resolved and validated by the caller) into its plan,
// what every game of a run shares (game, board, limits, ply cap, adjudication, an outside
// engine's clock; forfeits counted when an external engine plays) and its outside engine
// (nil: the built-in engine is tuned). Tuner runs, verification and matches of a stored
// run all play with it; the error names the field.
func Setup(c config.Config) (*config.Plan, arena.GameSetup, *outside.Outside, error) {
	plan, err := c.Plan()
	if err != nil {
		return nil, arena.GameSetup{}, nil, err
	}
	cfg, g := plan.Config, plan.Game
	var ext *outside.Outside
	if cfg.Engine != "" {
		if ext, err = outside.NewOutside(cfg, plan.Layout); err != nil {
			return nil, arena.GameSetup{}, nil, err
		}
	}
	if _, err := g.NewBoard(cfg.Board); err != nil {
		return nil, arena.GameSetup{}, nil, fmt.Errorf("board: %w", err)
	}
	if _, ok := g.(engine.Opener); !ok {
		return nil, arena.GameSetup{}, nil, fmt.Errorf("game: %s cannot make openings", cfg.Game)
	}
	setup := arena.GameSetup{Game: g, Board: cfg.Board, Limits: plan.Limits, MaxPlies: plan.MaxPlies, Forfeit: len(cfg.Opponents) > 0 || ext != nil}
	if setup.Adjudicate, err = cfg.Adjudication(); err != nil {
		return nil, arena.GameSetup{}, nil, err
	}
	if ext != nil {
		setup.TimeControl = ext.TimeControl()
	}
	return plan, setup, ext, nil
}

// Config returns the run's configuration with defaults filled in.
func (t *Tuner) Config() config.Config { return t.cfg }

// Limits returns the search limits every game uses.
func (t *Tuner) Limits() engine.Limits { return t.setup.Limits }

// Setup returns what every game of the run shares (game, board, limits, ply limit).
func (t *Tuner) Setup() arena.GameSetup { return t.setup }

func (t *Tuner) rngV2(gen int, stream uint64) *randv2.Rand {
	return search.Stream(t.cfg.Seed, gen, stream)
}

func (t *Tuner) rngV1(gen int, stream uint64) *rand.Rand {
	return search.StreamV1(t.cfg.Seed, gen, stream)
}

// Run creates the run in the store and evolves it: generation 0 (the baseline and its
// perturbations), then cfg.Generations more, each saved when complete, then the
// verification match. Cancelling ctx stops the run (status "stopped"); the generation in
// progress is not saved.
func (t *Tuner) Run(ctx context.Context, pid int) (report.Summary, error) {
	t.ctx = ctx
	if t.NeedsCalibration() {
		if _, err := t.Calibrate(ctx); err != nil {
			return report.Summary{}, err
		}
	}
	cj, _ := json.Marshal(t.cfg)
	id, err := t.store.CreateRun(ctx, record.RunRecord{Name: t.cfg.Name, Game: t.cfg.Game, Seed: t.cfg.Seed, Config: string(cj), ProgramVersion: t.version, PID: pid})
	if err != nil {
		return report.Summary{}, err
	}
	if t.onCreate != nil {
		if err := t.onCreate(id); err != nil {
			t.ctx, t.saving.runID, t.rep.summary.RunID = ctx, id, id
			return t.finish(err)
		}
	}
	t.begin(id)
	return t.searchAndVerify(ctx, 0)
}

// begin starts the run's session under runID: its clock, its name for cluster workers and
// the set of tuning openings (kept out of verification).
func (t *Tuner) begin(runID int64) {
	t.rep.start = time.Now()
	t.saving.runID, t.rep.summary.RunID = runID, runID
	t.nameRun(runID)
	if t.draws.tuningOpenings == nil {
		t.draws.tuningOpenings = map[string]bool{}
	}
}

// searchAndVerify lets the run's method search from generation `from` to its end, waits
// for its last save, then plays the verification and records the final status.
func (t *Tuner) searchAndVerify(ctx context.Context, from int) (report.Summary, error) {
	err := t.method.search(ctx, from)
	if serr := t.waitSave(); err == nil {
		err = serr
	}
	if err == nil {
		err = ctx.Err()
	}
	t.rep.summary.Wall = t.elapsed() // the generations only (all of them, across resumes); verification is timed apart
	t.rep.summary.Proven, t.rep.summary.ProvenAfter = t.proof.proven.Load(), t.cfg.StopWhenProven
	t.rep.summary.Movement = report.MovementOf(t.plan.Layout, t.plan.Layout.Defaults(), t.rep.path, t.rep.pathFrom)
	if err == nil {
		err = t.verifyAll()
	}
	return t.finish(err)
}

// SetFullVerification makes the final verification play all its games (no SPRT stop), as
// a comparison of methods needs: every result measured on the same held-out openings.
func (t *Tuner) SetFullVerification() { t.fullVerify = true }

// OnCreate has f told the run's ID once Run has stored the run, before its first game
// (a comparison records which run is which); an error from f fails the run.
func (t *Tuner) OnCreate(f func(runID int64) error) { t.onCreate = f }

// SetRunner makes the tuner play its batches through r (cluster mode, package
// tuner/cluster) instead of the in-process pool; nil restores the pool. Results do not
// change: games are keyed by task and played with fresh players either way.
func (t *Tuner) SetRunner(r arena.BatchRunner) { t.setup.Runner = r }

// nameRun tells a RunNamer runner the run its batches belong to.
func (t *Tuner) nameRun(runID int64) {
	if n, ok := t.setup.Runner.(arena.RunNamer); ok {
		n.NameRun(fmt.Sprintf("run %d (%s)", runID, t.cfg.Game))
	}
}

// Resume continues a run from its last saved generation with the same configuration,
// population, opponent pool and random streams, so it ends exactly as an uninterrupted
// run with the same seed would. A run with no saved generation starts over under its ID.
func (t *Tuner) Resume(ctx context.Context, st record.ResumeState) (report.Summary, error) {
	t.ctx = ctx
	t.saving.runID, t.rep.summary.RunID = st.RunID, st.RunID
	if st.LastGeneration >= 0 {
		t.draws.tuningOpenings = map[string]bool{}
		for _, o := range st.Openings {
			t.draws.tuningOpenings[arena.Key(o)] = true
		}
		t.rep.elapsedBefore = st.Elapsed
		t.rep.summary.Generations = st.LastGeneration + 1
		t.rep.summary.Games, t.rep.summary.GameRecords, t.rep.summary.GamesTime = st.Games, st.GameRecords, st.GamesTime
		t.rep.summary.SlotTime, t.rep.summary.SlotCapacity = st.SlotTime, st.SlotCapacity
		t.proof.elos = append([]float64(nil), st.CheckElos...)
		if err := t.method.restore(st); err != nil {
			return report.Summary{}, err
		}
	}
	t.begin(st.RunID)
	return t.searchAndVerify(ctx, st.LastGeneration+1)
}

// elapsed is the run's wall time over all its sessions.
func (t *Tuner) elapsed() time.Duration { return t.rep.elapsedBefore + time.Since(t.rep.start) }

// overBudget reports whether the time budget or the game budget is used up (checked
// between generations).
func (t *Tuner) overBudget() bool { return t.overBudgetWith(0) }

// overBudgetWith is overBudget counting inPlay games of generations in play as played: a
// method with several generations in play (SPSA's steps) starts no generation the game
// budget would not reach, the same ones whatever the workers.
func (t *Tuner) overBudgetWith(inPlay int) bool {
	if t.proof.proven.Load() != nil {
		return true
	}
	if t.cfg.BudgetGames > 0 && t.rep.summary.Games+inPlay >= t.cfg.BudgetGames {
		return true
	}
	b := t.cfg.Budget()
	return b > 0 && t.elapsed() >= b
}

// verifyAll plays the final verification ladder (Config.Rungs): the tuning condition,
// then each further rung, each stored as it ends when the store keeps rungs (a resumed run
// continues the ladder from them). A champion that is the baseline plays none and stores an
// unmeasured verification (Games 0).
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
	champ, champExt, err := t.side(t.rep.summary.BestGenes)
	if err != nil {
		return err
	}
	base, err := t.baselineRef()
	if err != nil {
		return err
	}
	rungs := t.cfg.Rungs()
	l := ladder.Ladder{Base: ladder.VerifyConfig{Setup: t.setup, Champion: champ, ChampionID: t.rep.summary.Best, Games: t.cfg.VerifyGames,
		ChampionExt: champExt, BaselineExt: base.Ext,
		OpeningSpec: t.cfg.VerifyOpenings, OpeningList: t.cfg.VerifyOpeningList, Book: t.cfg.BookList, BookLabel: t.cfg.Book,
		Exclude: t.draws.tuningOpenings, Seed: t.cfg.Seed, SPRT: sprt, Workers: t.cfg.Workers},
		Rungs: rungs, RungGames: t.cfg.RungGamesOf(), OpponentSpec: t.cfg.LadderOpponentSpec(champExt),
		Progress: func(r ladder.Rung, i, done, total int, _ stats.Result) {
			t.report(record.Event{Verifying: true, GamesDone: done, GamesTotal: total, Champion: t.rep.summary.Best, VerifyDepth: t.setup.Limits.Depth,
				Rung: i, Rungs: len(rungs), Condition: r.Condition()})
		}}
	key := ladder.Key(t.rep.summary.Best, rungs, t.cfg.VerifyGames, l.RungGames, sprt, t.cfg.VerifyOpenings)
	rs, keeps := t.store.(record.RungStore)
	if keeps {
		if l.Done, err = rs.StoredRungs(t.ctx, t.saving.runID, key); err != nil {
			return err
		}
		l.Save = func(v ladder.Verification) error { return rs.SaveRung(t.ctx, t.saving.runID, key, v) }
	}
	v, err := l.Play(t.ctx)
	if err != nil {
		return err
	}
	t.rep.summary.Verification = &v
	if keeps {
		return rs.SaveLadder(t.ctx, t.saving.runID, key, v)
	}
	return t.store.SaveVerification(t.ctx, t.saving.runID, v)
}

func (t *Tuner) finish(err error) (report.Summary, error) {
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

// report sends a verification's progress event, filled with the run's state.
func (t *Tuner) report(e record.Event) { t.emit(t.event(e)) }

// event fills e's run fields (run, generation, method, games so far, time) from the
// tuner's state now.
func (t *Tuner) event(e record.Event) record.Event {
	e.RunID, e.Generation, e.Generations = t.saving.runID, t.gen, t.cfg.Generations
	e.Method, e.Selection, e.RunGames, e.BudgetGames = t.cfg.Method, t.cfg.Selection, t.rep.summary.Games, t.cfg.BudgetGames
	e.Elapsed, e.Budget = t.elapsed(), t.cfg.Budget()
	e.SlotUtilisation = t.rep.summary.SlotUtilisation()
	if e.GenDone && !t.rep.hinted {
		if e.SlotHint = t.rep.summary.EarlySlotHint(); e.SlotHint != "" {
			t.rep.hinted = true
		}
	}
	return e
}

// gameSlots is the number of games the run plays at once: its workers on this machine, a
// cluster's game slots as its runner counts them now (SlotCounter), or 0 when another
// runner plays them (not measured).
func (t *Tuner) gameSlots() int {
	switch r := t.setup.Runner.(type) {
	case nil, *arena.Slots:
		return t.cfg.Workers
	case arena.SlotCounter:
		return r.GameSlots()
	}
	return 0
}

// emit hands a filled event (event) to the progress function, one at a time; events that
// are not the end of a generation carry the last generation's scores.
func (t *Tuner) emit(e record.Event) {
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
