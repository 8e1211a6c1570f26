package arena

import (
	"fmt"
	"maps"
)

// DrawKey names a draw of openings: a generation (or a method's draw number), a random
// stream, how many openings, and how many of the generation's openings were drawn before
// it (and so are excluded from it).
type DrawKey struct {
	Gen    int
	Stream uint64
	N      int
	After  int
}

// Drawer draws key k's openings, none in exclude (nil: none excluded). It must give the
// same openings whenever it is called with the same key and exclusions, so that a draw
// made ahead of its turn is the one made in its turn.
type Drawer func(k DrawKey, exclude map[string]bool) (Openings, error)

// Draws holds draws of openings made ahead of their turn, while earlier games play: a draw
// costs a search per candidate opening (connect6's balanced openings), time every slot
// would wait for between batches. Each entry is the draw its Drawer makes for its key, so
// taking one changes nothing a run computes. Its methods are called from one goroutine
// (the run's); the draws themselves run in goroutines of their own.
type Draws struct {
	draw  Drawer
	ahead map[DrawKey]*madeDraw
	sem   chan struct{} // a token per draw being made (nil: no bound)
}

// madeDraw is a draw in the making: done is closed once os and err are set.
type madeDraw struct {
	done chan struct{}
	os   Openings
	err  error
}

// NewDraws makes an empty set of draws made ahead by draw; at most `concurrent` of them are
// made at once (≤ 0: no bound).
func NewDraws(draw Drawer, concurrent int) *Draws {
	d := &Draws{draw: draw, ahead: map[DrawKey]*madeDraw{}}
	if concurrent > 0 {
		d.sem = make(chan struct{}, concurrent)
	}
	return d
}

// Take returns draw k: the one made ahead, waiting for it to end, where there is one (it is
// kept), else the Drawer's draw of k without exclude, made now and not kept.
func (d *Draws) Take(k DrawKey, exclude map[string]bool) (Openings, error) {
	if a, ok := d.ahead[k]; ok {
		<-a.done
		return a.os, a.err
	}
	return d.draw(k, exclude)
}

// Has reports whether draw k is made or in the making.
func (d *Draws) Has(k DrawKey) bool {
	_, ok := d.ahead[k]
	return ok
}

// Keys returns the keys of the draws held, in no order.
func (d *Draws) Keys() []DrawKey {
	out := make([]DrawKey, 0, len(d.ahead))
	for k := range d.ahead {
		out = append(out, k)
	}
	return out
}

// Keep holds os as draw k, made (a draw taken in its turn, for the next rounds that take the
// same draw); one already held is kept as it is.
func (d *Draws) Keep(k DrawKey, os Openings) {
	if _, ok := d.ahead[k]; !ok {
		done := make(chan struct{})
		close(done)
		d.ahead[k] = &madeDraw{done: done, os: os}
	}
}

// Drop forgets every draw whose key drop reports (a draw in the making ends unread).
func (d *Draws) Drop(drop func(k DrawKey) bool) {
	maps.DeleteFunc(d.ahead, func(k DrawKey, _ *madeDraw) bool { return drop(k) })
}

// Start starts draw k (openings not in exclude) in a goroutine, after a token where the
// draws made at once are bounded; a no-op where draw k is held already.
func (d *Draws) Start(k DrawKey, exclude map[string]bool) {
	if d.Has(k) {
		return
	}
	a := &madeDraw{done: make(chan struct{})}
	d.ahead[k] = a
	go func() {
		defer close(a.done)
		if d.sem != nil {
			d.sem <- struct{}{}
			defer func() { <-d.sem }()
		}
		a.os, a.err = d.draw(k, exclude)
	}()
}

// Chain starts, in one goroutine, draws keys in their order, each excluding the openings of
// every draw before it in the chain: a generation's draws, each of which excludes the
// generation's openings drawn before it. A key held already is waited for, not drawn
// again, and its openings are excluded after it. Once a draw fails or finds fewer openings
// than its N, the draws after it fail too, naming the generation of the first key.
func (d *Draws) Chain(keys []DrawKey) { d.ChainAfter(keys, nil) }

// ChainAfter is Chain whose every draw also excludes the openings of exclude (its
// generation's drawn before the chain).
func (d *Draws) ChainAfter(keys []DrawKey, exclude map[string]bool) {
	base := maps.Clone(exclude)
	type step struct {
		k    DrawKey
		a    *madeDraw
		made bool // held already: only waited for
	}
	steps := make([]step, 0, len(keys))
	for _, k := range keys {
		a, made := d.ahead[k]
		if !made {
			a = &madeDraw{done: make(chan struct{})}
			d.ahead[k] = a
		}
		steps = append(steps, step{k, a, made})
	}
	if len(steps) == 0 {
		return
	}
	gen := keys[0].Gen
	go func() {
		exclude := base
		if exclude == nil {
			exclude = map[string]bool{}
		}
		failed := false
		for _, s := range steps {
			switch {
			case s.made:
				<-s.a.done
			case failed:
				s.a.err = fmt.Errorf("openings: an earlier draw of generation %d failed", gen)
			default:
				s.a.os, s.a.err = d.draw(s.k, maps.Clone(exclude))
			}
			failed = failed || s.a.err != nil || len(s.a.os) < s.k.N
			for _, o := range s.a.os {
				exclude[Key(o)] = true
			}
			if !s.made {
				close(s.a.done)
			}
		}
	}()
}
