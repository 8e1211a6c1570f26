package ga

import (
	"cmp"
	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/search"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"

	"github.com/MaxHalford/eaopt"
)

// The GA's next generation played ahead (peers, on this process's game slots).
//
// A generation is bred once every game of its pairings has ended, so in the generation's
// last games the slots those games do not hold wait (64 slots: a fifth to a third of the
// run). Once the pairings have no more games than slots left to finish, the GA guesses
// after each game that ends: it weighs the ways the games still in play may end (every
// way of the last ScenarioEnum, a sample of aheadSamples ways of more: arena.Finished),
// ranks the individuals as each way leaves them, breeds the next generation from each
// ranking (breed: the generation's own random stream, as the real breeding) and plans its
// pairings (PlanPeers: their own streams and the same draws of openings). A game of the
// next pairings is then as likely as the ways whose pairings hold it; the games at least
// aheadKeep likely play ahead, likeliest first, each a batch of its own on slots no other
// batch wants (AheadStarter), and a game ahead no longer aheadDrop likely is stopped. When
// the generation is really bred, each of its pairings' games that was played ahead is
// taken as it stands (promoted where still in play), since a game's record depends on its
// task alone (players' weights, opening, depth, colours); the other games ahead are
// stopped, and the pairings' other games are queued behind. So nothing the run computes or
// stores changes; only the slots' idle time does. The slot time of games ahead not taken
// is not counted busy (BusyMeter.Waste). With a surrogate model, the next generation's
// last child is the model's fit to every game of the generation (model.Apply), which no
// guess gets right: its pairing's games are never played ahead.

// aheadSamples is how many ways of ending the games in play a guess draws where there
// are more than arena.ScenarioEnum of them; aheadWays the most distinct rankings bred per
// guess (the likeliest); aheadKeep and aheadDrop the likelihoods at which a game is
// played ahead and at which a game ahead is stopped.
const (
	aheadSamples = 16
	aheadWays    = 8
	aheadKeep    = 0.3
	aheadDrop    = 0.15
)

// pairingsInPlay is a generation's pairings in play on an AheadStarter: their games, the
// batch, its promotion (ahead: made an ordinary batch) and the games finished so far.
type pairingsInPlay struct {
	tasks   []arena.GameTask
	game    keyedTask // a game played ahead: its one task
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
// aheadTrial generations that had games ahead, at least one in aheadShare of the games
// played ahead were games of the pairings really planned. A guess is right when the
// generation's last results hardly move its ranking; where each result does (a noisy
// engine, small generations), the games ahead, though on slots that would wait, start
// engine processes and take processor time for nothing (with a Gomocup engine that sleeps
// 3 ms a move, 8 slots on this 2-core machine, whole generations guessed: 5 to 7 of 22
// adopted, the run 3% slower).
func (m *Generational) aheadPays() bool {
	return m.opts.KeepGuessing || m.aheadTried < aheadTrial || m.aheadReused*aheadShare >= m.aheadGames
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

// adoptAhead returns generation m.g's pairings, tasks, made of the games played ahead that
// are among them (promoted where still in play) and the rest queued behind, and stops the
// other games ahead; nil where no game ahead is among them.
func (m *Generational) adoptAhead(tasks []arena.GameTask, label string) *pairingsInPlay {
	games := m.aheadPlay
	m.aheadPlay = nil
	if len(games) == 0 {
		return nil
	}
	m.aheadTried++
	ix := newTaskIndex(tasks)
	pl := &pairingsInPlay{tasks: tasks, fin: arena.NewFinished(len(tasks)), promote: func() {}}
	var parts []*playing
	var places [][]int
	for _, a := range games {
		if i := ix.take(a.game); i >= 0 {
			a.promote()
			a.fin.Forward(pl.fin, []int{i})
			parts, places = append(parts, a.p), append(places, []int{i})
			continue
		}
		m.stopAhead(a)
	}
	m.aheadGames += len(games)
	m.aheadReused += len(parts)
	if len(parts) == 0 {
		m.aheadStopped++
		return nil
	}
	m.aheadUsed++
	if k := m.surrogateSlot(len(m.g.current)); k >= 0 && m.g.current[k].Op == OpSurrogate {
		m.aheadFitted++
	}
	if rest := ix.left(); len(rest) > 0 {
		c, _ := m.startPlaying(pickTasks(tasks, rest), label, func(i int, rec engine.GameRecord) { pl.fin.Add(rest[i], rec) }, false)
		parts, places = append(parts, c), append(places, rest)
	}
	pl.p = joinPlaying(len(tasks), parts, places)
	return pl
}

// stopAhead stops game ahead a and reports whether it had ended before (its slot time is
// then taken off the busy time here; a game stopped in play has its taken off by the
// runner).
func (m *Generational) stopAhead(a *pairingsInPlay) bool {
	a.p.stop()
	<-a.p.done // at once: its wait ends with the batch's context
	if a.p.err != nil {
		return false
	}
	if m.meter != nil {
		m.meter.Waste(a.p.recs[0].SlotTime())
	}
	return true
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
	for _, a := range m.aheadPlay {
		m.stopAhead(a)
	}
	if len(m.aheadPlay) > 0 {
		m.aheadStopped++
	}
	m.aheadPlay = nil
}

// lookAhead guesses the next generation's pairings from generation m.g's, pl, as they
// stand, once no more games than slots are left to finish: it plays ahead the games at
// least aheadKeep likely that are not ahead already, likeliest first, and stops the games
// ahead less than aheadDrop likely.
func (m *Generational) lookAhead(pl *pairingsInPlay) {
	slots := m.h.GuessSlots()
	left := pl.fin.Left()
	if !m.aheadPays() || m.g.peers == nil || left == 0 || left > slots {
		return
	}
	ways := pl.fin.Scenarios(slots)
	if ways == nil {
		ways = pl.fin.Sample(slots, aheadSamples, rand.New(rand.NewPCG(uint64(m.g.gen), uint64(left))))
	}
	if ways == nil {
		return
	}
	likely, err := m.nextGames(ways)
	if err != nil {
		return // the real breeding meets it, if it is one
	}
	ix := newTaskIndex(nil)
	p := map[int]float64{} // likelihood of likely[k].task by k
	for k, g := range likely {
		ix.add(g.game)
		p[k] = g.p
	}
	keep := m.aheadPlay[:0]
	for _, a := range m.aheadPlay {
		if k := ix.take(a.game); k >= 0 && p[k] >= aheadDrop {
			keep = append(keep, a)
			continue
		}
		if m.stopAhead(a) {
			m.aheadGames++ // a game ahead played for nothing
		}
	}
	m.aheadPlay = keep
	for _, k := range ix.left() {
		if p[k] < aheadKeep {
			break // likeliest first
		}
		a := m.startPairings([]arena.GameTask{likely[k].game.task}, "pairings", true)
		if a == nil {
			return
		}
		a.game = likely[k].game
		m.aheadPlay = append(m.aheadPlay, a)
	}
}

// likelyGame is a game of the next generation's pairings and its likelihood.
type likelyGame struct {
	game keyedTask
	p    float64
}

// nextGames returns the games of the next generation's pairings were generation m.g's
// games to end as ways weighs them, likeliest first (the surrogate child's left out): the
// rankings of the aheadWays likeliest are bred, and a game's likelihood is the sum of the
// ways whose pairings hold it.
func (m *Generational) nextGames(ways *arena.OutcomeWays) ([]likelyGame, error) {
	type ranking struct {
		p      float64
		ranked []*genomes.Genome
	}
	byOrder := map[string]*ranking{}
	var orders []string
	for w := range ways.P {
		recs := ways.With(w)
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
		ids := make([]string, len(indis))
		for i, in := range indis {
			ranked[i], ids[i] = in.Genome.(*genomes.Genome), in.ID
		}
		key := strings.Join(ids, " ")
		r := byOrder[key]
		if r == nil {
			r = &ranking{ranked: ranked}
			byOrder[key] = r
			orders = append(orders, key)
		}
		r.p += ways.P[w]
	}
	slices.SortStableFunc(orders, func(a, b string) int { return cmp.Compare(byOrder[b].p, byOrder[a].p) })
	gen := m.g.gen + 1
	if m.aheadBred == nil || m.aheadBredGen != gen {
		m.aheadBred, m.aheadBredGen = map[string][]keyedTask{}, gen
	}
	ix := newTaskIndex(nil)
	var out []likelyGame
	for _, key := range orders[:min(len(orders), aheadWays)] {
		r := byOrder[key]
		tasks, ok := m.aheadBred[key]
		if !ok {
			var err error
			if tasks, err = m.nextPairings(r.ranked, gen); err != nil {
				return nil, err
			}
			m.aheadBred[key] = tasks
		}
		for _, t := range tasks {
			if k := ix.find(t); k >= 0 {
				out[k].p += r.p
				continue
			}
			ix.add(t)
			out = append(out, likelyGame{game: t, p: r.p})
		}
	}
	slices.SortStableFunc(out, func(a, b likelyGame) int { return cmp.Compare(b.p, a.p) })
	return out, nil
}

// nextPairings breeds generation gen from ranked (best first) and plans its pairings: their
// games, a game twice counted once, the surrogate child's left out.
func (m *Generational) nextPairings(ranked []*genomes.Genome, gen int) ([]keyedTask, error) {
	next, _ := m.breed(ranked, gen, m.a.RandV1(gen, search.StreamGA))
	for _, g := range next {
		g.Stats, g.Round = genomes.Stats{}, 0
	}
	np, err := PlanPeers(m.cfg, m.h, m.a.RandV1(gen, search.StreamPairing), next, func(n int, stream uint64, have [][]string) ([][]string, error) {
		return m.drawOf(gen, have, n, stream)
	})
	if err != nil {
		return nil, err
	}
	rest, _ := splitTasks(np, next, m.surrogateSlot(len(next)))
	seen := newTaskIndex(nil)
	var out []keyedTask
	for _, i := range rest {
		if t := keyOf(np.B.Tasks[i]); seen.find(t) < 0 {
			seen.add(t)
			out = append(out, t)
		}
	}
	return out, nil
}

// taskIndex finds games among tasks by value (the players' weights, openings, depths,
// colours and names: sameTasks), each task found once.
type taskIndex struct {
	tasks []arena.GameTask
	at    map[string][]int // the tasks not yet taken, by key
	taken []bool
}

// keyedTask is a task and its key (taskKey).
type keyedTask struct {
	task arena.GameTask
	key  string
}

// keyOf is task t with its key.
func keyOf(t arena.GameTask) keyedTask { return keyedTask{task: t, key: taskKey(t)} }

// newTaskIndex indexes tasks (none: add them).
func newTaskIndex(tasks []arena.GameTask) *taskIndex {
	x := &taskIndex{at: map[string][]int{}}
	for _, t := range tasks {
		x.add(keyOf(t))
	}
	return x
}

// add indexes task t as the next.
func (x *taskIndex) add(t keyedTask) {
	x.at[t.key] = append(x.at[t.key], len(x.tasks))
	x.tasks, x.taken = append(x.tasks, t.task), append(x.taken, false)
}

// taskKey narrows the search for a task: its name, depth, opening and its players' values
// (an outside engine's, else the built-in engine's weights).
func taskKey(t arena.GameTask) string {
	var b strings.Builder
	fmt.Fprint(&b, t.Name, t.Depth, t.Opening)
	for _, ext := range []*protocol.ExternalSpec{t.BlackExt, t.WhiteExt} {
		if ext != nil {
			b.WriteString("|" + ext.Values)
		}
	}
	if t.BlackExt == nil || t.WhiteExt == nil {
		fmt.Fprint(&b, "|", t.Black, "|", t.White)
	}
	return b.String()
}

// find returns the index of a task not yet taken that is t, −1 where there is none.
func (x *taskIndex) find(t keyedTask) int {
	for _, i := range x.at[t.key] {
		if reflect.DeepEqual(x.tasks[i], t.task) {
			return i
		}
	}
	return -1
}

// take is find, and marks the task found taken.
func (x *taskIndex) take(t keyedTask) int {
	i := x.find(t)
	if i >= 0 {
		x.at[t.key] = slices.DeleteFunc(x.at[t.key], func(j int) bool { return j == i })
		x.taken[i] = true
	}
	return i
}

// left returns the indices of the tasks not taken, in order.
func (x *taskIndex) left() []int {
	var out []int
	for i, f := range x.taken {
		if !f {
			out = append(out, i)
		}
	}
	return out
}
