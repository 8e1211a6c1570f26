package tuner

import (
	"context"

	"evotune/tuner/ga"
	"evotune/tuner/record"
	"evotune/tuner/search"
)

// The GA without a lag (config.Config.Method "ga", GALag 0) is package tuner/ga's
// Generational, which runs its own loop of eaopt's generations over the run as a
// search.Host (runHost); with a lag above 0 the GA is a method on the run loop.

// gaMethod is the generational GA as the run's searchMethod.
type gaMethod struct {
	t *Tuner
	a *search.MethodEnv
	g *ga.Generational
}

// newGA makes the run's generational GA.
func newGA(t *Tuner) (searchMethod, error) {
	a := t.methodEnv()
	opts := ga.Options{NoAhead: t.sw.noAhead, KeepGuessing: t.sw.keepGuessing, Unlagged: t.sw.unlagged, InTurn: t.sw.inTurn}
	return &gaMethod{t: t, a: a, g: ga.NewGenerational(runHost{runSides{t}}, a, opts)}, nil
}

func (m *gaMethod) describe(length string) (string, []string) { return m.g.Describe(length) }

func (m *gaMethod) restore(st record.ResumeState) error {
	m.a.RunID, m.a.Config = st.RunID, m.t.cfg
	return m.g.Restore(st)
}

func (m *gaMethod) search(ctx context.Context, from int) error {
	m.a.RunID, m.a.Config = m.t.saving.runID, m.t.cfg
	return m.g.Search(ctx, from)
}

// newGAOrLagged is the GA's constructor: the generational GA, or with GALag above 0 the GA
// with generations in play on the run loop.
func newGAOrLagged(t *Tuner) (searchMethod, error) {
	if t.cfg.GALag > 0 {
		return askTell(ga.NewLagged)(t)
	}
	return newGA(t)
}
