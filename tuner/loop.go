package tuner

import (
	"context"
	"time"

	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/record"
	"evotune/tuner/report"
	"evotune/tuner/search"
)

// A method on the ask-and-tell interface of package tuner/search is played by that
// package's run loop (search.Loop), to which the run is a search.Host (runHost).

// askTell makes a method's constructor, given the run's method environment, into the
// constructor of a searchMethod played by the run loop.
func askTell(newMethod func(a *search.MethodEnv) (search.Method, error)) func(t *Tuner) (searchMethod, error) {
	return func(t *Tuner) (searchMethod, error) {
		a := t.methodEnv()
		m, err := newMethod(a)
		if err != nil {
			return nil, err
		}
		opts := search.LoopOptions{NoAhead: t.sw.noAhead, InTurn: t.sw.inTurn, Oracle: t.sw.oracle}
		return &loopMethod{t: t, a: a, l: search.NewLoop(runHost{runSides{t}}, a, m, opts)}, nil
	}
}

// methodEnv is the run's method environment now: its layout (nil before a plan),
// configuration and ID.
func (t *Tuner) methodEnv() *search.MethodEnv {
	a := &search.MethodEnv{Config: t.cfg, RunID: t.saving.runID}
	if t.plan != nil {
		a.Layout = t.plan.Layout
	}
	return a
}

// loopMethod is a method played by the run loop, as the run's searchMethod.
type loopMethod struct {
	t *Tuner
	a *search.MethodEnv
	l *search.Loop
}

func (l *loopMethod) describe(length string) (string, []string) {
	return l.l.Method().Describe(length)
}

func (l *loopMethod) restore(st record.ResumeState) error {
	l.a.RunID, l.a.Config = st.RunID, l.t.cfg
	return l.l.Restore(st)
}

func (l *loopMethod) search(ctx context.Context, from int) error {
	t := l.t
	t.rep.summary.BudgetGames = t.cfg.BudgetGames
	l.a.RunID, l.a.Config = t.saving.runID, t.cfg // a calibration may have set the game budget since New
	return l.l.Search(ctx, from)
}

// runHost is the run as the run loop's search.Host (search.Loop).
type runHost struct{ runSides }

func (h runHost) Config() config.Config  { return h.t.cfg }
func (h runHost) Setup() arena.GameSetup { return h.t.setup }
func (h runHost) Drawer(k arena.DrawKey, exclude map[string]bool) (arena.Openings, error) {
	return h.t.drawer(k, exclude)
}
func (h runHost) Tuning(o []string) {
	if h.t.draws.tuningOpenings == nil {
		h.t.draws.tuningOpenings = map[string]bool{}
	}
	h.t.draws.tuningOpenings[arena.Key(o)] = true
}
func (h runHost) Summary() *report.Summary                  { return &h.t.rep.summary }
func (h runHost) ChampionIsBaseline() bool                  { return h.t.championIsBaseline() }
func (h runHost) SetGeneration(gen int)                     { h.t.gen = gen }
func (h runHost) OverBudget(inPlay int) bool                { return h.t.overBudgetWith(inPlay) }
func (h runHost) Proven() bool                              { return h.t.proof.proven.Load() != nil }
func (h runHost) Elapsed() time.Duration                    { return h.t.elapsed() }
func (h runHost) Event(e record.Event) record.Event         { return h.t.event(e) }
func (h runHost) Emit(e record.Event)                       { h.t.emit(e) }
func (h runHost) CountGeneration(r record.GenerationRecord) { h.t.countGeneration(r) }
func (h runHost) SaveBehind(r record.GenerationRecord, ev record.Event) error {
	return h.t.saveBehind(r, ev)
}
func (h runHost) ShareSlots() (*arena.BusyMeter, func()) { return h.t.shareSlots() }
func (h runHost) GameSlots() int                         { return h.t.gameSlots() }
func (h runHost) GuessSlots() int                        { return h.t.guessSlots() }

// Checkpoint plays the held-out check of the champion now; the slot time is its games'.
func (h runHost) Checkpoint() (*ladder.Verification, time.Duration, error) {
	v, err := h.t.checkpoint()
	if err != nil {
		return nil, 0, err
	}
	return v, v.SlotTime, nil
}
