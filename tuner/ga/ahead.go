package ga

import (
	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/search"
	"slices"

	"github.com/MaxHalford/eaopt"
)

// The GA's next generation played ahead (peers, on this process's game slots).
//
// A generation is bred once every game of its pairings has ended, so in the generation's
// last games the slots those games do not hold wait (64 slots: a fifth to a third of the
// run). Once the pairings have no more games than slots left to finish, the GA guesses:
// it takes every game still in play as a draw, ranks the individuals by the scores that
// gives, breeds the next generation from that ranking (breed: the generation's own random
// stream, as the real breeding) and plans its pairings (PlanPeers: their own streams and
// the same draws of openings). Those games play ahead, on slots no other batch wants
// (AheadStarter). After each further game the guess is made again, and when it plans
// other games the games ahead are stopped and the new ones started. When the generation
// is really bred, its pairings are compared with the games ahead: the same games (players'
// weights, openings, depths, colours, in the same order) are adopted as they stand, their
// games already played kept, since a game's record depends on its task alone; any other
// are stopped and the pairings played as planned. So nothing the run computes or stores
// changes; only the slots' idle time does. The slot time of games stopped is not counted
// busy (BusyMeter.Waste). With a surrogate model, the next generation's last child is the
// model's fit to every game of the generation (model.Apply), which a guess would get right
// only if every game in play ended as guessed: the games of that child's pairing are left
// out of the games ahead and queued behind them once the generation is bred, so the rest
// are adopted as often as without the model.

// pairingsInPlay is a generation's pairings in play on an AheadStarter: their games, the
// batch, its promotion (ahead: made an ordinary batch) and the games finished so far.
type pairingsInPlay struct {
	tasks   []arena.GameTask
	p       *playing
	promote func()
	fin     *arena.Finished
}

// startPairings queues a generation's pairings (ahead: as games played ahead) and keeps
// their games as they finish; it returns nil where the runner cannot tell them so.
func (m *Generational) startPairings(tasks []arena.GameTask, label string, ahead bool) *pairingsInPlay {
	if _, ok := m.h.Setup().Runner.(arena.AheadStarter); !ok {
		return nil
	}
	pl := &pairingsInPlay{tasks: tasks, fin: arena.NewFinished(len(tasks))}
	pl.p, pl.promote = m.startPlaying(tasks, label, pl.fin.Add, ahead)
	return pl
}

// canPlayAhead reports whether the GA plays its next generation's pairings ahead: peers,
// on a runner that keeps games ahead and tells them as they end, with no outside
// opponents.
func (m *Generational) canPlayAhead() bool {
	_, ok := m.h.Setup().Runner.(arena.AheadStarter)
	return ok && !m.opts.NoAhead && m.cfg.Selection == config.SelectionPeers && len(m.cfg.Opponents) == 0
}

// aheadPays reports whether guessing the next generation still pays in this run: after
// aheadTrial generations that had games ahead, at least one in aheadShare of them adopted
// its games. A guess is right when the generation's last results hardly move its ranking;
// where each result does (a noisy engine, small generations), nearly every guess is
// stopped, and its games, though on slots that would wait, start engine processes and
// take processor time for nothing (with a Gomocup engine that sleeps 3 ms a move, 8 slots
// on this 2-core machine: 5 to 7 of 22 generations adopted, the run 3% slower).
func (m *Generational) aheadPays() bool {
	return m.opts.KeepGuessing || m.aheadTried < aheadTrial || m.aheadUsed*aheadShare >= m.aheadTried
}

// aheadTrial and aheadShare: see aheadPays.
const (
	aheadTrial = 6
	aheadShare = 2
)

// surrogateSlot is the index of the individual of a generation of n that the surrogate
// model may breed (the last child: model.Apply), −1 where none is. Its genes are fitted to
// every game of the generation before, so a guess would plan its games right only when
// every game in play ended exactly as guessed: its pairing's games are not played ahead
// but with the generation, once it is bred.
func (m *Generational) surrogateSlot(n int) int {
	if m.cfg.Surrogate != config.SurrogateOn || n-1 < m.cfg.Elite || n < 2 {
		return -1
	}
	return n - 1
}

// splitTasks parts the tasks of pairings pl of population pop into those that individual
// k plays (child) and the rest (rest), by index, each in order; k < 0: all are the rest.
func splitTasks(pl *PeerPlan, pop []*genomes.Genome, k int) (rest, child []int) {
	mine := make([]bool, len(pl.B.Tasks))
	if k >= 0 {
		for _, e := range pl.B.Refs {
			if e.Task >= 0 && (e.Ind == k || e.Opp == pop[k].ID) {
				mine[e.Task] = true
			}
		}
	}
	for i, c := range mine {
		if c {
			child = append(child, i)
		} else {
			rest = append(rest, i)
		}
	}
	return rest, child
}

// pickTasks returns tasks idx of tasks, in order.
func pickTasks(tasks []arena.GameTask, idx []int) []arena.GameTask {
	out := make([]arena.GameTask, len(idx))
	for k, i := range idx {
		out[k] = tasks[i]
	}
	return out
}

// adoptAhead returns the pairings played ahead when they are the games tasks (generation
// m.g's pairings, m.g.peers) but the surrogate child's (surrogateSlot), promoted, with the
// child's games queued behind them, and stops them otherwise (nil).
func (m *Generational) adoptAhead(tasks []arena.GameTask, label string) *pairingsInPlay {
	a := m.next
	m.next = nil
	if a == nil {
		return nil
	}
	m.aheadTried++
	k := m.surrogateSlot(len(m.g.current))
	var rest, child []int
	if m.g.peers != nil {
		rest, child = splitTasks(m.g.peers, m.g.current, k)
	}
	if m.g.peers == nil || !sameTasks(a.tasks, pickTasks(tasks, rest)) {
		a.p.stop()
		m.aheadStopped++
		return nil
	}
	a.promote()
	m.aheadUsed++
	if k >= 0 && m.g.current[k].Op == OpSurrogate {
		m.aheadFitted++
	}
	if len(child) == 0 {
		return a
	}
	pl := &pairingsInPlay{tasks: tasks, fin: arena.NewFinished(len(tasks)), promote: func() {}}
	a.fin.Forward(pl.fin, rest)
	c, _ := m.startPlaying(pickTasks(tasks, child), label, func(i int, rec engine.GameRecord) { pl.fin.Add(child[i], rec) }, false)
	pl.p = joinPlaying(len(tasks), []*playing{a.p, c}, [][]int{rest, child})
	return pl
}

// joinPlaying is one batch of n games made of batches parts in play, whose games are the
// batch's games at[k] (by index, in order): its records are theirs in its order, its wall
// time the longest of theirs, its error the first part's that failed; stop stops them all.
func joinPlaying(n int, parts []*playing, at [][]int) *playing {
	p := &playing{done: make(chan struct{})}
	p.stop = func() {
		for _, q := range parts {
			q.stop()
		}
	}
	go func() {
		defer close(p.done)
		recs := make([]engine.GameRecord, n)
		for k, q := range parts {
			<-q.done
			p.wall = max(p.wall, q.wall)
			if q.err != nil {
				if p.err == nil {
					p.err = q.err
					p.stop()
				}
				continue
			}
			for i, j := range at[k] {
				recs[j] = q.recs[i]
			}
		}
		if p.err == nil {
			p.recs = recs
		}
	}()
	return p
}

// dropAhead stops the games played ahead, if any (the run ends).
func (m *Generational) dropAhead() {
	if m.next != nil {
		m.next.p.stop()
		m.next = nil
		m.aheadStopped++
	}
}

// lookAhead guesses the next generation from the pairings pl of generation m.g as they
// stand (every game in play a draw) once no more games than slots are left to finish, and
// plays that generation's pairings ahead where they are not the games already ahead.
func (m *Generational) lookAhead(pl *pairingsInPlay) {
	if !m.aheadPays() {
		return
	}
	recs, ok := pl.fin.Guess(m.h.GuessSlots())
	if !ok || m.g.peers == nil {
		return
	}
	pop := make([]*genomes.Genome, len(m.g.current))
	indis := make(eaopt.Individuals, len(pop))
	for i, g := range m.g.current {
		c := g.Clone().(*genomes.Genome)
		c.Stats, c.Round = genomes.Stats{}, 0
		pop[i] = c
	}
	m.g.peers.Credit(recs, pop, nil)
	for i, g := range pop {
		indis[i] = eaopt.Individual{Genome: g, Fitness: 1 - g.Stats.Score(), ID: g.ID}
	}
	SortIndividuals(indis)
	ranked := make([]*genomes.Genome, len(indis))
	order := make([]string, len(indis))
	for i, in := range indis {
		ranked[i], order[i] = in.Genome.(*genomes.Genome), in.ID
	}
	if m.next != nil && slices.Equal(order, m.nextOrder) {
		return // the same ranking breeds the same generation: the games ahead stand
	}
	gen := m.g.gen + 1
	next, _ := m.breed(ranked, gen, m.a.RandV1(gen, search.StreamGA))
	for _, g := range next {
		g.Stats, g.Round = genomes.Stats{}, 0
	}
	np, err := PlanPeers(m.cfg, m.h, m.a.RandV1(gen, search.StreamPairing), next, func(n int, stream uint64, have [][]string) ([][]string, error) {
		return m.drawOf(gen, have, n, stream)
	})
	if err != nil {
		return // the real breeding meets it, if it is one
	}
	rest, _ := splitTasks(np, next, m.surrogateSlot(len(next)))
	tasks := pickTasks(np.B.Tasks, rest)
	if m.next != nil {
		if sameTasks(m.next.tasks, tasks) {
			m.nextOrder = order
			return
		}
		m.next.p.stop()
		m.aheadStopped++
		m.next = nil
	}
	if len(tasks) > 0 {
		m.next, m.nextOrder = m.startPairings(tasks, "pairings", true), order
	}
}
