package config

import (
	"errors"
	"strings"
	"testing"

	"evotune/genomes"
)

// TestTakeEngineDepth: an outside engine's --depth is its go depth (engine_depth), the
// earlier engine_depth alone or equal is kept, a depth list or two different depths are
// refused naming depth, and a built-in game's depths are left as they are.
func TestTakeEngineDepth(t *testing.T) {
	outside := func(depth int, depths []int, engineDepth int) Config {
		c := DefaultConfig("chess")
		c.Engine, c.Layout = "cmd:x", &genomes.LayoutFile{Game: "chess"}
		c.Depth, c.Depths, c.EngineDepth = depth, depths, engineDepth
		return c
	}
	for _, tc := range []struct {
		c          Config
		want       int
		wantDepth  int
		errContain string
	}{
		{c: outside(6, nil, 0), want: 6},
		{c: outside(30, nil, 0), want: 30},
		{c: outside(0, nil, 4), want: 4},
		{c: outside(4, nil, 4), want: 4},
		{c: outside(0, []int{3, 4}, 0), errContain: "one depth"},
		{c: outside(5, nil, 4), errContain: "engine_depth is 4"},
	} {
		c := tc.c
		err := c.TakeEngineDepth()
		switch {
		case tc.errContain != "":
			var se *SettingError
			if err == nil || !strings.Contains(err.Error(), tc.errContain) || !errors.As(err, &se) || se.Key != "depth" {
				t.Errorf("depth %d depths %v engine_depth %d: %v, want an error of depth saying %q", tc.c.Depth, tc.c.Depths, tc.c.EngineDepth, err, tc.errContain)
			}
		case err != nil || c.EngineDepth != tc.want || c.Depth != 0:
			t.Errorf("depth %d engine_depth %d: now %d and %d, %v; want go depth %d", tc.c.Depth, tc.c.EngineDepth, c.Depth, c.EngineDepth, err, tc.want)
		}
	}
	b := DefaultConfig("gomoku")
	b.Depth = 5
	if err := b.TakeEngineDepth(); err != nil || b.Depth != 5 || b.EngineDepth != 0 {
		t.Errorf("a built-in game's depth 5: depth %d engine_depth %d, %v", b.Depth, b.EngineDepth, err)
	}
}
