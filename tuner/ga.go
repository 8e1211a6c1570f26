package tuner

import (
	"evotune/tuner/ga"
	"evotune/tuner/search"
)

// The GA (config.Config.Method "ga") is a method on the run loop: package tuner/ga's
// Generational without a lag, its GA with generations in play (NewLagged) with one.

// newGA is the GA's constructor: the generational GA, or with GALag above 0 the GA with
// generations in play.
func newGA(t *Tuner) (searchMethod, error) {
	if t.cfg.GALag > 0 {
		return askTell(ga.NewLagged)(t)
	}
	opts := ga.Options{KeepGuessing: t.sw.keepGuessing, TestsInTurn: t.sw.testsInTurn}
	return askTell(func(a *search.MethodEnv) (search.Method, error) { return ga.NewGenerational(a, opts), nil })(t)
}
