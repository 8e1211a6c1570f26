// Package sensitivity is one-at-a-time sensitivity analysis (where the paper's weights
// leave headroom): each gene is moved alone, up and down, and the variant plays the unchanged weights
// in colour-swapped pairs on the same openings. A gene whose moves leave every game of the
// base's self-play unchanged cannot change play at that depth (the Connect6 threat_4/5
// note of the layout came from such a probe); a gene whose move gains Elo with its interval
// above 0 shows headroom a tuning run can use. This is the screening design of
// Morris (1991) and the "one-factor-at-a-time" probes of Saltelli et al., Global
// Sensitivity Analysis (2008) §2.3, with common random numbers: every variant meets the
// base on the same openings.
package sensitivity

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/match"
	"evotune/tuner/stats"
)

// Config is a sensitivity analysis around one gene vector.
type Config struct {
	// Setup is the game, board and search limits of every game.
	Setup arena.GameSetup
	// Layout maps gene vectors to weights; Base is the vector probed around.
	Layout *genomes.Layout
	Base   []float64
	// Genes names the genes to probe; empty means every gene the layout tunes.
	Genes []string
	// Factor (> 1) moves a log-scale gene to Base×Factor and Base÷Factor.
	Factor float64
	// Step (> 0) moves a linear gene by ±Step×(Max−Min).
	Step float64
	// Games per variant (even: Games/2 openings, each with colours swapped).
	Games int
	// Openings are the pairs' openings (at least Games/2 distinct ones).
	Openings arena.Openings
	// Workers is how many games are played at once (never changes results).
	Workers int
}

// Probe is one variant of a sensitivity analysis: one gene moved, the others at Base.
type Probe struct {
	Gene string `json:"gene"`
	// Direction is "up" or "down".
	Direction string  `json:"direction"`
	From      float64 `json:"from"`
	To        float64 `json:"to"`
	// Result is the variant's record against the base weights; Estimate its score and Elo
	// (nil if it could not be estimated).
	Result   stats.Result    `json:"result"`
	Estimate *stats.Estimate `json:"estimate"`
	// Unchanged counts the pairs whose two games both repeat, move for move, the base
	// weights' game against themselves from the same opening: the move did not change play
	// there. Pairs is the number of pairs played.
	Unchanged int `json:"unchanged_pairs"`
	Pairs     int `json:"pairs"`
}

// Validate checks the configuration; the error names the field.
func (c Config) Validate() error {
	switch {
	case c.Layout == nil:
		return errors.New("sensitivity: no layout")
	case len(c.Base) != len(c.Layout.Genes):
		return fmt.Errorf("sensitivity: base has %d genes, the %s layout %d", len(c.Base), c.Layout.Game, len(c.Layout.Genes))
	case !(c.Factor > 1) || math.IsInf(c.Factor, 0):
		return fmt.Errorf("factor %v: want a finite number above 1", c.Factor)
	case !(c.Step > 0 && c.Step <= 1):
		return fmt.Errorf("step %v: want a fraction of the gene's range in (0, 1]", c.Step)
	case c.Games < 2 || c.Games%2 != 0:
		return fmt.Errorf("games %d: want a positive even number", c.Games)
	case c.Setup.OpeningRule != "":
		return errors.New("sensitivity: swap opening rules lay openings by play; give openings instead")
	case c.Setup.Limits.Time != 0 || c.Setup.Limits.SoftTime != 0:
		return errors.New("sensitivity: a time limit makes games depend on the machine's speed; use depth (and width) limits")
	}
	if n := len(c.Openings.Distinct()); n < c.Games/2 {
		return fmt.Errorf("openings: %d distinct, %d games need %d", n, c.Games, c.Games/2)
	}
	for _, name := range c.Genes {
		if !slices.ContainsFunc(c.Layout.Genes, func(g genomes.Gene) bool { return g.Name == name }) {
			return fmt.Errorf("gene %q: not a %s gene (see 'evotune weights layout --game %s')", name, c.Layout.Game, c.Layout.Game)
		}
	}
	return nil
}

// variants returns the values gene i is probed at, "up" first; a move that a bound cancels
// (the gene already at it) is left out.
func (c Config) variants(i int) (dirs []string, values []float64) {
	g, x := c.Layout.Genes[i], c.Base[i]
	var up, down float64
	if g.Scale == genomes.Log {
		up, down = x*c.Factor, x/c.Factor
	} else {
		d := c.Step * (g.Max - g.Min)
		up, down = x+d, x-d
	}
	for k, v := range []float64{up, down} {
		v = math.Max(g.Min, math.Min(g.Max, v))
		if g.Integer {
			v = math.Round(v)
		}
		if v != x {
			dirs, values = append(dirs, [2]string{"up", "down"}[k]), append(values, v)
		}
	}
	return dirs, values
}

// Run plays every variant against the base weights and returns the probes in
// gene order, up before down. progress (may be nil) gets the gene, the direction and the
// match's progress.
func Run(ctx context.Context, c Config, progress func(gene, dir string, done, total int)) ([]Probe, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	base, err := c.Layout.Weights(c.Base)
	if err != nil {
		return nil, fmt.Errorf("base weights: %w", err)
	}
	pairs := c.Games / 2
	openings := c.Openings.Distinct()[:pairs]
	// The base weights against themselves: one game per opening (colours do not matter).
	tasks := make([]arena.GameTask, pairs)
	for k, o := range openings {
		tasks[k] = arena.GameTask{Black: base, White: base, Opening: o, Name: fmt.Sprintf("base%04d", k)}
	}
	self, err := arena.PlayBatch(ctx, c.Setup, tasks, c.Workers, nil)
	if err != nil {
		return nil, fmt.Errorf("base self-play: %w", err)
	}
	var probes []Probe
	for i, g := range c.Layout.Genes {
		if len(c.Genes) == 0 && g.Fixed || len(c.Genes) > 0 && !slices.Contains(c.Genes, g.Name) {
			continue
		}
		dirs, values := c.variants(i)
		for k, v := range values {
			x := slices.Clone(c.Base)
			x[i] = v
			w, err := c.Layout.Weights(x)
			if err != nil {
				return probes, fmt.Errorf("%s %s: %w", g.Name, dirs[k], err)
			}
			var prog func(done, total int, _ stats.Result)
			if progress != nil {
				prog = func(done, total int, _ stats.Result) { progress(g.Name, dirs[k], done, total) }
			}
			res, err := match.Play(ctx, match.Config{Setup: c.Setup, A: w, B: base, Games: c.Games, Openings: openings, Workers: c.Workers}, prog)
			if err != nil {
				return probes, fmt.Errorf("%s %s: %w", g.Name, dirs[k], err)
			}
			p := Probe{Gene: g.Name, Direction: dirs[k], From: c.Base[i], To: v, Result: res.Result, Estimate: res.Estimate, Pairs: res.Result.Pairs()}
			same := make([]int, pairs)
			for _, mg := range res.Games {
				if slices.Equal(mg.Record.Moves, self[mg.Pair].Moves) {
					same[mg.Pair]++
				}
			}
			for _, n := range same {
				if n == 2 {
					p.Unchanged++
				}
			}
			probes = append(probes, p)
		}
	}
	return probes, nil
}
