package tuner

import (
	"context"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/schedule"
	"evotune/tuner/search"
	"evotune/tuner/spsa"
	"fmt"
	"time"
)

// WidenedIntegerGenes names the free integer genes of an SPSA run whose perturbation at
// the run's last step, c_end, is below half a unit at their defaults: they are perturbed by
// one unit instead (the run's header says so); nil for other methods.
func (t *Tuner) WidenedIntegerGenes() []string {
	return spsa.Env{MethodEnv: t.methodEnv()}.WidenedIntegerGenes()
}

// Calibration is how SPSA turned a time budget into its game budget (fishtest's num_iter
// must be known before the first step): Games distinct games of the paper's weights moved
// by +c_end·Δ_0 against them moved by −c_end·Δ_0 (like a first step) on calibration
// openings (tuning half, a stream of their own, stored nowhere) took Time; BudgetGames =
// Games/Time × (time budget − Time), at least one step. Source:
// fishtest's num_iter in spsa_handler.py.
type Calibration struct {
	Games       int
	Time        time.Duration
	BudgetGames int
}

// Calibration bounds: at least calibrationTime of play or calibrationBatches steps' worth
// of games, whichever comes first (gomoku at depth 3: about 600 games in 2 s; amazons:
// one step of 32 games in 3 s).
const (
	calibrationTime    = 2 * time.Second
	calibrationBatches = 16
)

// NeedsCalibration reports whether the run is SPSA with a time budget and neither a game
// budget nor generations: its game budget must be measured first (Calibrate).
func (t *Tuner) NeedsCalibration() bool {
	return t.cfg.Method == config.MethodSPSA && t.cfg.TimeBudget != "" && t.cfg.BudgetGames == 0 && t.cfg.Generations == 0 && t.calibration == nil
}

// Calibrate measures this machine's rate of distinct games (batches of one SPSA step:
// Pairs colour-swapped pairs of the paper's weights moved by ±c_end·Δ_0, on calibration
// openings of the tuning half) and sets the run's game budget to what fits in the rest of
// the time budget. The run stores that budget with its configuration, so a resumed run
// keeps the same gains; the time budget still ends the run if the machine slows down.
// Idempotent; an error if the games fail or ctx ends.
func (t *Tuner) Calibrate(ctx context.Context) (Calibration, error) {
	if t.calibration != nil {
		return *t.calibration, nil
	}
	if t.cfg.Method != config.MethodSPSA || t.cfg.TimeBudget == "" {
		return Calibration{}, fmt.Errorf("calibrate: only an SPSA run with a time budget is calibrated")
	}
	p := t.cfg.SPSAParams()
	x, xm := spsa.Env{MethodEnv: t.methodEnv()}.CalibrationPair()
	w, ext, err := t.side(xm)
	if err != nil {
		return Calibration{}, fmt.Errorf("calibrate: %w", err)
	}
	g := &genomes.Genome{Layout: t.plan.Layout, X: x, ID: "calibration"}
	opp := []schedule.Opponent{{ID: "calibration-opponent", W: w, X: xm, Ext: ext}}
	// Each batch on openings of its own stream, none drawn before (stored nowhere, and
	// never marked as tuned on: the held-out checks may still play them).
	drawn := map[string]bool{}
	games, start := 0, time.Now()
	for i := 0; i < calibrationBatches && (i == 0 || time.Since(start) < calibrationTime); i++ {
		os, err := t.tuningOpenings(p.Pairs, t.rngV2(0, search.StreamCalibration+uint64(i)<<4), drawn)
		if err != nil {
			return Calibration{}, fmt.Errorf("calibrate: %w", err)
		}
		if len(os) < p.Pairs {
			return Calibration{}, fmt.Errorf("calibrate: openings: only %d distinct tuning openings found of %d wanted", len(os), p.Pairs)
		}
		for _, o := range os {
			drawn[arena.Key(o)] = true
		}
		var b schedule.Batch
		if err := schedule.On(&b, t.sides(), []*genomes.Genome{g}, []int{0}, opp, os, 0, p.Pairs, 0); err != nil {
			return Calibration{}, fmt.Errorf("calibrate: %w", err)
		}
		wait, err := arena.StartBatch(ctx, t.setup, b.Tasks, t.cfg.Workers, nil)
		if err == nil {
			_, err = wait()
		}
		if err != nil {
			return Calibration{}, fmt.Errorf("calibration: %w", err)
		}
		games += len(b.Tasks)
	}
	c := Calibration{Games: games, Time: time.Since(start)}
	rest := t.cfg.Budget() - c.Time
	c.BudgetGames = max(2*p.Pairs, int(float64(c.Games)/c.Time.Seconds()*rest.Seconds()))
	t.calibration = &c
	t.cfg.BudgetGames = c.BudgetGames
	return c, nil
}
