package tuner

import (
	"sync"

	"github.com/MaxHalford/eaopt"

	"evotune/engine"
	"evotune/genomes"
)

// The GA's next generation played ahead (peers, on this process's game slots).
//
// A generation is bred once every game of its pairings has ended, so in the generation's
// last games the slots those games do not hold wait (64 slots: a fifth to a third of the
// run). Once the pairings have no more games than slots left to finish, the GA guesses:
// it takes every game still in play as a draw, ranks the individuals by the scores that
// gives, breeds the next generation from that ranking (breed: the generation's own random
// stream, as the real breeding) and plans its pairings (planPeers: their own streams and
// the same draws of openings). Those games play ahead, on slots no other batch wants
// (aheadStarter). After each further game the guess is made again, and when it plans
// other games the games ahead are stopped and the new ones started. When the generation
// is really bred, its pairings are compared with the games ahead: the same games (players'
// weights, openings, depths, colours, in the same order) are adopted as they stand, their
// games already played kept, since a game's record depends on its task alone; any other
// are stopped and the pairings played as planned. So nothing the run computes or stores
// changes; only the slots' idle time does. The slot time of games stopped is not counted
// busy (busyMeter.waste).

// pairingsInPlay is a generation's pairings in play on an aheadStarter: their games, the
// batch, its promotion (ahead: made an ordinary batch) and the games finished so far.
type pairingsInPlay struct {
	tasks   []GameTask
	p       *playing
	promote func()
	fin     *finishedGames
}

// finishedGames are a batch's games finished so far, as the runner tells them (each game
// once), and tick, which holds a note that one finished.
type finishedGames struct {
	mu   sync.Mutex
	got  []bool
	recs []engine.GameRecord
	n    int
	tick chan struct{}
}

func newFinishedGames(n int) *finishedGames {
	return &finishedGames{got: make([]bool, n), recs: make([]engine.GameRecord, n), tick: make(chan struct{}, 1)}
}

// add keeps game i's record and notes it (the runner's each).
func (f *finishedGames) add(i int, rec engine.GameRecord) {
	f.mu.Lock()
	if !f.got[i] {
		f.got[i], f.recs[i] = true, rec
		f.n++
	}
	f.mu.Unlock()
	select {
	case f.tick <- struct{}{}:
	default:
	}
}

// ticks is the channel noting finished games (nil, never ready, for a nil f: a runner that
// does not tell games as they end).
func (f *finishedGames) ticks() chan struct{} {
	if f == nil {
		return nil
	}
	return f.tick
}

// guess returns the batch's records with every game not yet finished a draw, once no more
// than slots games are left to finish (ok false before, and once all are).
func (f *finishedGames) guess(slots int) (recs []engine.GameRecord, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if left := len(f.got) - f.n; left == 0 || left > slots {
		return nil, false
	}
	recs = make([]engine.GameRecord, len(f.recs))
	for i, rec := range f.recs {
		if !f.got[i] {
			rec = engine.GameRecord{Outcome: engine.Draw}
		}
		recs[i] = rec
	}
	return recs, true
}

// guessSlots is how many games a guess allows left to finish: the run's game slots.
func (t *Tuner) guessSlots() int {
	if slots := t.gameSlots(); slots > 0 {
		return slots
	}
	return t.cfg.Workers // a runner that does not count its slots
}

// startPairings queues a generation's pairings (ahead: as games played ahead) and keeps
// their games as they finish; it returns nil where the runner cannot tell them so.
func (m *gaMethod) startPairings(tasks []GameTask, label string, ahead bool) *pairingsInPlay {
	if _, ok := m.t.setup.Runner.(aheadStarter); !ok {
		return nil
	}
	pl := &pairingsInPlay{tasks: tasks, fin: newFinishedGames(len(tasks))}
	pl.p, pl.promote = m.t.startPlaying(tasks, label, pl.fin.add, ahead)
	return pl
}

// canPlayAhead reports whether the GA plays its next generation's pairings ahead: peers,
// no surrogate child, on a runner that keeps games ahead and tells them as they end. The
// surrogate child's genes are fitted to every game of the generation, so a guess plans its
// games only when every game in play ends as guessed: with an outside engine (the
// surrogate's default) 4 of 147 guesses were (22 generations of 48 games on 8 slots), and
// each wrong one started engine processes for nothing (8 slots 91.8% busy fell to 87.0%).
func (m *gaMethod) canPlayAhead() bool {
	t := m.t
	_, ok := t.setup.Runner.(aheadStarter)
	return ok && !m.noAhead && t.cfg.Selection == SelectionPeers && t.cfg.Surrogate != SurrogateOn && len(t.cfg.Opponents) == 0
}

// adoptAhead returns the pairings played ahead when they are the games tasks, promoted,
// and stops them otherwise (nil).
func (m *gaMethod) adoptAhead(tasks []GameTask) *pairingsInPlay {
	a := m.next
	m.next = nil
	if a == nil {
		return nil
	}
	if !sameTasks(a.tasks, tasks) {
		a.p.stop()
		m.aheadStopped++
		return nil
	}
	a.promote()
	m.aheadUsed++
	return a
}

// dropAhead stops the games played ahead, if any (the run ends).
func (m *gaMethod) dropAhead() {
	if m.next != nil {
		m.next.p.stop()
		m.next = nil
		m.aheadStopped++
	}
}

// lookAhead guesses the next generation from the pairings pl of generation t.g as they
// stand (every game in play a draw) once no more games than slots are left to finish, and
// plays that generation's pairings ahead where they are not the games already ahead.
func (m *gaMethod) lookAhead(pl *pairingsInPlay) {
	t := m.t
	recs, ok := pl.fin.guess(t.guessSlots())
	if !ok || t.g.peers == nil {
		return
	}
	pop := make([]*genomes.Genome, len(t.g.current))
	indis := make(eaopt.Individuals, len(pop))
	for i, g := range t.g.current {
		c := g.Clone().(*genomes.Genome)
		c.Stats, c.Round = genomes.Stats{}, 0
		pop[i] = c
	}
	t.g.peers.credit(recs, pop, nil)
	for i, g := range pop {
		indis[i] = eaopt.Individual{Genome: g, Fitness: 1 - g.Stats.Score(), ID: g.ID}
	}
	sortIndividuals(indis)
	ranked := make([]*genomes.Genome, len(indis))
	for i, in := range indis {
		ranked[i] = in.Genome.(*genomes.Genome)
	}
	gen := t.g.gen + 1
	next, _ := t.breed(ranked, gen, t.rngV1(gen, streamGA))
	for _, g := range next {
		g.Stats, g.Round = genomes.Stats{}, 0
	}
	np, err := t.planPeers(gen, next, func(n int, stream uint64, have [][]string) ([][]string, error) {
		return t.drawOf(gen, have, n, stream)
	})
	if err != nil {
		return // the real breeding meets it, if it is one
	}
	if m.next != nil {
		if sameTasks(m.next.tasks, np.b.tasks) {
			return
		}
		m.next.p.stop()
		m.aheadStopped++
	}
	m.next = m.startPairings(np.b.tasks, "pairings", true)
}
