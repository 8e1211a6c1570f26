package compare

import (
	"context"
	"errors"
	"evotune/tuner"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/record"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// A comparison of methods (`evotune compare`): every method runs once per seed
// with the same game, limits, free genes and budget of distinct tuning games, and each
// result plays the paper's weights on held-out openings drawn from the seed (the same
// openings for every method of a seed: paired), with every game played (no SPRT stop).

// Config describes a comparison.
type Config struct {
	// Base is every run's configuration; Method, Seed, BudgetGames, Generations (0: until
	// the budget), Name and the verification fields are set per run from the fields below.
	Base    config.Config
	Methods []string
	Seeds   []int64
	// BudgetGames is each run's budget of distinct tuning games (> 0).
	BudgetGames int
	// VerifyGames is the held-out match at the tuning depth; VerifyDepth (0 = none) and
	// VerifyDepthGames the deeper one.
	VerifyGames, VerifyDepth, VerifyDepthGames int
	// NamePrefix names the runs PREFIX-METHOD-seedS.
	NamePrefix string
}

// Validate checks the comparison; the error names the field.
func (cc Config) Validate() error {
	switch {
	case len(cc.Methods) == 0:
		return errors.New("methods: none given")
	case len(cc.Seeds) == 0:
		return errors.New("seeds: none given")
	case cc.BudgetGames < 2:
		return fmt.Errorf("budget_games: %d, want at least 2", cc.BudgetGames)
	case cc.VerifyGames < 2 || cc.VerifyGames%2 != 0:
		return fmt.Errorf("verify_games: %d, want a positive even number", cc.VerifyGames)
	}
	for i, m := range cc.Methods {
		if _, ok := config.LookupMethod(m); !ok {
			return fmt.Errorf("methods[%d]: %q, want one of %s", i, m, config.MethodNames())
		}
		if slices.Index(cc.Methods, m) != i {
			return fmt.Errorf("methods[%d]: %s is listed twice", i, m)
		}
	}
	for i, s := range cc.Seeds {
		if slices.Index(cc.Seeds, s) != i {
			return fmt.Errorf("seeds[%d]: %d is listed twice", i, s)
		}
	}
	for _, m := range cc.Methods {
		c := cc.config(m, cc.Seeds[0])
		if err := c.Check(); err != nil {
			return fmt.Errorf("method %s: %w", m, err)
		}
	}
	return nil
}

// config returns the configuration of one run of the comparison.
func (cc Config) config(method string, seed int64) config.Config {
	c := cc.Base
	c.Method, c.Seed, c.BudgetGames, c.Generations, c.TimeBudget = method, seed, cc.BudgetGames, 0, ""
	c.VerifyGames, c.VerifyDepth, c.VerifyDepthGames, c.VerifyEvery = cc.VerifyGames, cc.VerifyDepth, cc.VerifyDepthGames, 0
	c.Name = fmt.Sprintf("%s-%s-seed%d", cc.NamePrefix, method, seed)
	if c.SPSA != nil {
		s := *c.SPSA // the base's section is shared by every method's run
		c.SPSA = &s
	}
	c.NewRunDefaults(false)
	c.NewRunGALag(false)
	return c
}

// Cell is one run of a comparison: a method on a seed, its run and its measured
// results (nil until verified).
type Cell struct {
	Method string `json:"method"`
	Seed   int64  `json:"seed"`
	RunID  int64  `json:"run_id"`
	// Games is the run's distinct tuning games (the budget, up to the last generation's).
	Games    int                  `json:"games"`
	Champion string               `json:"champion"`
	V        *ladder.Verification `json:"verification"`
	Deep     *ladder.Verification `json:"deep,omitempty"`
}

// Run runs every method on every seed (seed by seed, methods in order) through
// store, calling started when a run is created and done when it is verified. A cancelled
// ctx stops it; the cells finished so far are returned with the error.
func Run(ctx context.Context, cc Config, store record.Store, progress func(record.Event), version string, pid int,
	started, done func(Cell) error) ([]Cell, error) {
	if err := cc.Validate(); err != nil {
		return nil, err
	}
	var cells []Cell
	for _, seed := range cc.Seeds {
		for _, m := range cc.Methods {
			t, err := tuner.New(cc.config(m, seed), store, progress, version)
			if err != nil {
				return cells, fmt.Errorf("%s seed %d: %w", m, seed, err)
			}
			t.SetFullVerification()
			cell := Cell{Method: m, Seed: seed}
			t.OnCreate(func(id int64) error {
				cell.RunID = id
				if started != nil {
					return started(cell)
				}
				return nil
			})
			sum, err := t.Run(ctx, pid)
			if err != nil {
				return cells, fmt.Errorf("%s seed %d (run %d): %w", m, seed, sum.RunID, err)
			}
			cell.RunID, cell.Games, cell.Champion, cell.V, cell.Deep = sum.RunID, sum.Games, sum.Best, sum.Verification, sum.Verification.RungOf(ladder.RungDepth)
			cells = append(cells, cell)
			if done != nil {
				if err := done(cell); err != nil {
					return cells, err
				}
			}
		}
	}
	return cells, nil
}

// MethodRow summarises one method of a comparison: its Elo per seed (in the order of the
// seeds), their mean and minimum, and the same at the deeper depth (NaN where not measured).
// A seed whose result is the paper's weights (Baseline) counts as Elo 0, CI 0: identical
// players, known without a game.
type MethodRow struct {
	Method   string
	Elo, CI  []float64
	Baseline []bool
	Deep     []float64
	Mean     float64
	Worst    float64
	DeepMean float64
}

// Table turns a comparison's cells into one row per method (methods and seeds in
// the order given).
func Table(cells []Cell, methods []string, seeds []int64) []MethodRow {
	var rows []MethodRow
	for _, m := range methods {
		r := MethodRow{Method: m, Mean: math.NaN(), Worst: math.NaN(), DeepMean: math.NaN()}
		var got, deep []float64
		for _, s := range seeds {
			e, ci, d := math.NaN(), math.NaN(), math.NaN()
			base := false
			for _, c := range cells {
				if c.Method != m || c.Seed != s {
					continue
				}
				if c.V != nil && c.V.Baseline {
					base, e, ci, d = true, 0, 0, 0
					got, deep = append(got, 0), append(deep, 0)
				}
				if c.V != nil && c.V.Games > 0 {
					e, ci = c.V.Elo, c.V.EloCI95
					got = append(got, e)
				}
				if c.Deep != nil && c.Deep.Games > 0 {
					d = c.Deep.Elo
					deep = append(deep, d)
				}
			}
			r.Elo, r.CI, r.Deep, r.Baseline = append(r.Elo, e), append(r.CI, ci), append(r.Deep, d), append(r.Baseline, base)
		}
		if len(got) > 0 {
			r.Mean, r.Worst = stat.Mean(got, nil), slices.Min(got)
		}
		if len(deep) > 0 {
			r.DeepMean = stat.Mean(deep, nil)
		}
		rows = append(rows, r)
	}
	return rows
}
