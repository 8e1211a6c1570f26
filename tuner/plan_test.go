package tuner

import (
	"strings"
	"testing"

	"evotune/engine"
	"evotune/tuner/config"
)

// TestPlan checks that a configuration resolves once into the game under its rule, the
// layout with its fixed genes and the limits verification and export use: with mixed
// depths the first (the depth the verification plays, which export now writes too).
func TestPlan(t *testing.T) {
	c := config.DefaultConfig("gomoku")
	c.Rule, c.Depths, c.Fix = "renju", []int{2, 3}, []string{"k1"}
	p, err := c.Plan()
	if err != nil {
		t.Fatal(err)
	}
	if engine.RuleOf(p.Game) != "renju" {
		t.Errorf("game rule %q, want renju", engine.RuleOf(p.Game))
	}
	def := p.Entry.Game.DefaultLimits()
	if p.Limits.Depth != 2 || p.Limits.Width != def.Width {
		t.Errorf("limits %+v, want depth 2 (the first of the mixed depths) and width %d", p.Limits, def.Width)
	}
	if got := []int{p.DepthOf(0), p.DepthOf(1), p.DepthOf(2)}; got[0] != 2 || got[1] != 3 || got[2] != 2 {
		t.Errorf("DepthOf(0..2) = %v, want [2 3 2]", got)
	}
	if p.MaxPlies != config.DefaultMaxPlies {
		t.Errorf("max plies %d, want %d", p.MaxPlies, config.DefaultMaxPlies)
	}
	for _, g := range p.Layout.Genes {
		if g.Name == "k1" && !g.Fixed {
			t.Error("k1 is free; fix asked for it")
		}
	}
	c = config.DefaultConfig("connect6")
	c.Depth, c.Width, c.MaxPlies = 5, 7, 90
	if p, err = c.Plan(); err != nil {
		t.Fatal(err)
	}
	if p.Limits.Depth != 5 || p.Limits.Width != 7 || p.DepthOf(3) != 0 || p.MaxPlies != 90 {
		t.Errorf("limits %+v, DepthOf(3) %d, max plies %d; want depth 5, width 7, 0, 90", p.Limits, p.DepthOf(3), p.MaxPlies)
	}
	for _, bad := range []struct {
		cfg  func(*config.Config)
		want string
	}{
		{func(c *config.Config) { c.Game = "shogi" }, `game: unknown game "shogi"`},
		{func(c *config.Config) { c.Game, c.Rule = "amazons", "renju" }, "rule: amazons has no rule variants"},
		{func(c *config.Config) { c.Rule = "caro" }, "rule:"},
		{func(c *config.Config) { c.Fix = []string{"no_such_gene"} }, "no_such_gene"},
	} {
		c := config.DefaultConfig("gomoku")
		bad.cfg(&c)
		if _, err := c.Plan(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("game %s rule %q fix %v: error %v, want one containing %q", c.Game, c.Rule, c.Fix, err, bad.want)
		}
	}
}
