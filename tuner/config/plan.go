package config

import (
	"encoding/json"
	"fmt"

	"evotune/engine"
	"evotune/genomes"
)

// Plan is a run resolved once from its Config, once: the
// registered game under the run's rule, the gene layout as tuned, the search limits of the
// run's verification and of its exported weights, and the ply cap. New (tune and resume),
// export, the dashboard's replay and the checks before a run all take these from here, so
// they cannot drift apart.
type Plan struct {
	// Config is the run's configuration with defaults filled in (Config.Resolve).
	Config Config
	// Entry is the game's registry entry.
	Entry genomes.Entry
	// Game is the referee's game: Entry.Game under Config.Rule.
	Game engine.Game
	// Layout is the genes as tuned: the layout file's (an outside engine) or the built-in
	// engine's, with the genes Config.Free freed and Config.Fix fixed.
	Layout *genomes.Layout
	// Limits are the search limits of the verification and of exported weights: the game's
	// defaults with Config.Depth (or, mixing depths, the first of Config.Depths) and
	// Config.Width over them. Tuning games at mixed depths set their own (DepthOf).
	Limits engine.Limits
	// MaxPlies is the ply cap of every game (Config.MaxPlies, else DefaultMaxPlies).
	MaxPlies int
}

// DefaultMaxPlies is the ply cap of a game when the configuration gives none: far beyond
// any decided game of the three (a full 15×15 board is 225 plies, Connect6's 361 points
// 181 moves, the Amazons at most 92 moves).
const DefaultMaxPlies = 400

// Plan resolves c (a copy; Resolve fills its defaults): the game and rule, the layout with
// its fixed genes, the limits. The error names the field: an unknown game, a rule the
// game does not have, an unknown gene in free or fix. It checks nothing else: Validate
// checks a whole configuration.
func (c Config) Plan() (*Plan, error) {
	c.Resolve()
	e, err := genomes.Lookup(c.Game)
	if err != nil {
		return nil, Errorf("game", "", "%w", err)
	}
	g, err := engine.WithRule(e.Game, c.Rule)
	if err != nil {
		return nil, Errorf("rule", "", "%w", err)
	}
	base := e.Layout
	if c.Layout != nil {
		base = c.Layout.Layout()
	}
	layout, err := base.WithFixed(c.Free, c.Fix)
	if err != nil {
		return nil, err
	}
	if len(c.Hold) > 0 {
		if layout, err = layout.Hold(c.Hold); err != nil {
			return nil, err
		}
	}
	lim := g.DefaultLimits()
	if c.Depth > 0 {
		lim.Depth = c.Depth
	}
	if len(c.Depths) > 0 {
		lim.Depth = c.Depths[0]
	}
	if c.Width > 0 {
		lim.Width = c.Width
	}
	maxPlies := c.MaxPlies
	if maxPlies == 0 {
		maxPlies = DefaultMaxPlies
	}
	return &Plan{Config: c, Entry: e, Game: g, Layout: layout, Limits: lim, MaxPlies: maxPlies}, nil
}

// DepthOf is the search depth of the games of opening pair k of a generation: with mixed
// depths Config.Depths[k mod len], else 0 (the games use Limits).
func (p *Plan) DepthOf(k int) int {
	if d := p.Config.Depths; len(d) > 0 {
		return d[k%len(d)]
	}
	return 0
}

// Weights turns an individual's genes (gene name → value, as stored) into the built-in
// engine's weights through the plan's layout. The error names a missing or unknown gene, or
// says that an outside engine's layout has no built-in weights.
func (p *Plan) Weights(genes map[string]float64) (engine.Weights, error) {
	x, err := p.Layout.FromNamed(genes)
	if err != nil {
		return nil, err
	}
	return p.Layout.Weights(x)
}

// DecodeConfig reads a configuration stored with a run (the runs table's config column,
// JSON); the error is the decoder's. Stored configurations are resolved (Config.Resolve)
// and were validated when the run was created.
func DecodeConfig(stored string) (Config, error) {
	var c Config
	if err := json.Unmarshal([]byte(stored), &c); err != nil {
		return c, fmt.Errorf("stored config: %w", err)
	}
	return c, nil
}
