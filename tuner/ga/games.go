package ga

import (
	"context"
	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/record"
	"evotune/tuner/schedule"
	"evotune/tuner/search"
	"evotune/tuner/stats"
	"fmt"
	"sort"
	"sync/atomic"
	"time"
)

// drawOpenings appends n new openings of the tuning half (stream: a per-generation random
// stream number) to the generation's openings and returns the index of the first.
func (m *Generational) drawOpenings(n int, stream uint64) (int, error) {
	os, err := m.drawOf(m.g.gen, m.g.openings, n, stream)
	if err != nil {
		return 0, err
	}
	first := len(m.g.openings)
	for _, o := range os {
		m.g.openings = append(m.g.openings, o)
		m.h.Tuning(o)
	}
	m.drawNext(stream, n)
	return first, nil
}

// drawOf is the draw of n openings of stream that generation gen makes after drawing
// openings `have` (drawOpenings), taken from the draws made ahead where one is, without
// keeping it: the same openings whenever it is made. The error names too few openings.
func (m *Generational) drawOf(gen int, have [][]string, n int, stream uint64) (arena.Openings, error) {
	os, err := m.drawsAhead().Take(arena.DrawKey{Gen: gen, Stream: stream, N: n, After: len(have)}, keysOf(have))
	if err != nil {
		return nil, err
	}
	if len(os) < n {
		return nil, fmt.Errorf("openings: only %d distinct tuning openings found of %d wanted", len(os), n)
	}
	return os, nil
}

// drawnKeys is the set of the generation's openings so far (what a new draw excludes).
func (m *Generational) drawnKeys() map[string]bool { return keysOf(m.g.openings) }

// keysOf is the set of openings os's keys.
func keysOf(os [][]string) map[string]bool {
	out := make(map[string]bool, len(os))
	for _, o := range os {
		out[arena.Key(o)] = true
	}
	return out
}

// drawNext starts, in the background, the draws that come after the draw of n openings of
// stream just made, while this draw's games are played (a draw costs a search per
// candidate opening: up to a tenth of a short run's time when made between batches). A
// draw depends only on the generation, the stream and the openings drawn before it, never
// on results, so a draw made ahead is the one drawOpenings would make; one that is not
// asked for (a race that ends early, an admission not held) is dropped. After racing round
// 0: the next generation's draws (drawGenerationAhead; a run stored before its method was
// named, only the next round 0); after round r < RaceRounds: round r+1; after the last
// round: the admission test's openings (each a no-op when the chain has started it).
func (m *Generational) drawNext(stream uint64, n int) {
	if m.opts.InTurn {
		return
	}
	d := m.drawsAhead()
	d.Drop(func(k arena.DrawKey) bool { return k.Gen+testLag < m.g.gen }) // a GA generation's test is planned up to testLag later
	if stream == search.StreamOpenings && n > 0 && len(m.g.openings) == n {
		if m.cfg.Method == config.MethodGA {
			m.drawGenerationAhead(n)
		} else {
			d.Start(arena.DrawKey{Gen: m.g.gen + 1, Stream: search.StreamOpenings, N: n}, map[string]bool{})
		}
	}
	if stream < search.StreamOpenings || (stream-search.StreamOpenings)&0xf != 0 {
		return // the draws below are the racing rounds' and the admission test's
	}
	switch r := int((stream - search.StreamOpenings) >> 4); {
	case r < m.cfg.RaceRounds:
		d.Start(arena.DrawKey{Gen: m.g.gen, Stream: search.StreamOpenings + uint64(r+1)<<4, N: n, After: len(m.g.openings)}, m.drawnKeys())
	case r == m.cfg.RaceRounds && m.cfg.AdmitGames > 0:
		d.Start(arena.DrawKey{Gen: m.g.gen, Stream: search.StreamAdmit, N: m.cfg.AdmitGames / 2, After: len(m.g.openings)}, m.drawnKeys())
	}
}

// drawsAhead is the run's draws of openings made ahead of their turn (drawNext), made
// by drawer on first use.
func (m *Generational) drawsAhead() *arena.Draws {
	if m.made == nil {
		m.made = arena.NewDraws(m.h.Drawer, 0)
	}
	return m.made
}

// drawGenerationAhead starts, in one goroutine, the next GA generation's draws in the
// order the generation makes them: racing round 0, rounds 1 to RaceRounds (each excluding
// the rounds before it), then the admission test's and the defence's openings (each
// excluding all before it). Peers plays every round in one batch, so each draw made only
// once the one before it was taken would hold the slots between generations; made ahead,
// a generation starts on openings already drawn. Each entry is the draw drawOpenings makes
// for its key, as drawNext's are; the defence's, drawn only when the hall of fame has a
// defender, is dropped unused otherwise.
func (m *Generational) drawGenerationAhead(n int) {
	gen := m.g.gen + 1
	var keys []arena.DrawKey
	add := func(stream uint64, n, after int) int {
		keys = append(keys, arena.DrawKey{Gen: gen, Stream: stream, N: n, After: after})
		return after + n
	}
	after := 0
	for r := 0; r <= m.cfg.RaceRounds; r++ {
		after = add(search.StreamOpenings+uint64(r)<<4, n, after)
	}
	if half := m.cfg.AdmitGames / 2; half > 0 {
		add(search.StreamDefence, half, add(search.StreamAdmit, half, after))
	}
	m.drawsAhead().Chain(keys)
}

// schedule adds the games of individuals inds (indices into m.g.current) on opening pairs
// [first, first+n) of the generation's openings against its references to b.
func (m *Generational) schedule(b *schedule.Batch, inds []int, first, n, round int) error {
	return schedule.On(b, m.h, m.g.current, inds, m.g.refs, m.g.openings, first, n, round)
}

// play runs a batch on the worker pool and credits every entry's result to its
// individual's Stats (games and pentanomial pairs), recording each game. It returns the
// pair scores (0 to 2) by (individual, opening index).
func (m *Generational) play(b *schedule.Batch, label string) (map[[2]int]float64, error) {
	recs, err := m.playTasks(b.Tasks, label)
	if err != nil {
		return nil, err
	}
	return m.credit(b, recs), nil
}

// playTasks plays tasks as one batch on the worker pool, reporting progress as label, and
// adds the batch's wall time to the generation's time in games and its games' slot times
// to the generation's slot time.
func (m *Generational) playTasks(tasks []arena.GameTask, label string) ([]engine.GameRecord, error) {
	return m.account(m.playAsync(tasks, label), label)
}

// playing is a batch of games played in the background (playAsync): done is closed once
// recs (in task order) or err are set; wall is the batch's wall time; stop ends the
// batch's games (its records are then never used).
type playing struct {
	done chan struct{}
	recs []engine.GameRecord
	err  error
	wall time.Duration
	stop context.CancelFunc
}

// playAsync queues tasks as one batch on the worker pool, behind the batches in play (now,
// where the runner queues batches: BatchStarter), and reports each finished game as label.
// The progress events carry the run's state as it is now: the workers read nothing the
// caller goes on changing.
func (m *Generational) playAsync(tasks []arena.GameTask, label string) *playing {
	p, _ := m.startPlaying(tasks, label, nil, false)
	return p
}

// startPlaying is playAsync where the runner is an AheadStarter and each or ahead asks for
// it: each is told every finished game's task index and record as it ends (from the
// slots' goroutines, possibly at once), and an ahead batch plays only on slots no other
// batch wants, with no progress events, until the promotion it returns (a no-op
// otherwise) queues it as an ordinary batch and shows its games from then on.
func (m *Generational) startPlaying(tasks []arena.GameTask, label string, each func(int, engine.GameRecord), ahead bool) (*playing, func()) {
	ctx, stop := context.WithCancel(m.ctx)
	p := &playing{done: make(chan struct{}), stop: stop}
	var base atomic.Pointer[record.Event]
	show := func() {
		e := m.event(record.Event{GamesTotal: len(tasks), GenGames: m.g.distinctGames, Phase: label})
		base.Store(&e)
	}
	if !ahead {
		show()
	}
	var played atomic.Int64
	done := func() {
		n := played.Add(1)
		if b := base.Load(); b != nil {
			e := *b
			e.GamesDone, e.Elapsed = int(n), m.h.Elapsed()
			m.h.Emit(e)
		}
	}
	start := time.Now()
	var wait func() ([]engine.GameRecord, error)
	promote := func() {}
	var err error
	if s, ok := m.h.Setup().Runner.(arena.AheadStarter); ok && (each != nil || ahead) {
		wait, promote, err = s.StartEach(ctx, m.h.Setup(), tasks, func(i int, rec engine.GameRecord) {
			done()
			if each != nil {
				each(i, rec)
			}
		}, ahead)
	} else {
		wait, err = arena.StartBatch(ctx, m.h.Setup(), tasks, m.cfg.Workers, done)
	}
	go func() {
		defer close(p.done)
		defer stop()
		if err != nil {
			p.err = err
			return
		}
		p.recs, p.err = wait()
		p.wall = time.Since(start)
	}()
	if !ahead {
		return p, func() {}
	}
	return p, func() { promote(); show() }
}

// account waits for p and adds its wall time to the generation's time in games and its
// games' slot times (engine.GameRecord.SlotTime) to the generation's slot time; it
// returns p's records, or its error named by label.
func (m *Generational) account(p *playing, label string) ([]engine.GameRecord, error) {
	<-p.done
	m.g.gamesTime += p.wall
	if p.err != nil {
		return nil, fmt.Errorf("%s: %w", label, p.err)
	}
	for _, r := range p.recs {
		m.g.slotTime += r.SlotTime()
	}
	return p.recs, nil
}

// credit credits every entry of b with its game of recs (b.tasks' records, in order) as
// play does, and adds the games to the generation's distinct games.
func (m *Generational) credit(b *schedule.Batch, recs []engine.GameRecord) map[[2]int]float64 {
	var pairScore map[[2]int]float64
	m.g.gameResults, pairScore = schedule.Credit(b, recs, m.g.current, 0, m.g.gameResults)
	m.g.distinctGames += len(b.Tasks)
	return pairScore
}

// playGeneration plays the generation's race: a screening round of Games games for every
// individual, then RaceRounds rounds in which the better half (by score over all its games
// of this generation) plays Games more on new openings. It sets each genome's Stats and
// Round; fitness is 1 − score.
func (m *Generational) playGeneration() error {
	m.g.openings, m.g.gameResults, m.g.gamesTime, m.g.slotTime, m.g.distinctGames = nil, nil, 0, 0, 0
	refs, err := m.references()
	if err != nil {
		return err
	}
	for _, o := range m.cfg.Opponents {
		argv, _, _ := protocol.ParseCommand(o)
		spec := m.cfg.OpponentSpec(argv)
		refs = append(refs, schedule.Opponent{ID: spec.Name(), Ext: spec})
	}
	m.g.refs = refs
	m.g.opponents = nil
	for _, o := range refs {
		m.g.opponents = append(m.g.opponents, o.ID)
	}
	players := make([]int, len(m.g.current))
	for i := range players {
		players[i] = i
		m.g.current[i].Stats, m.g.current[i].Round = genomes.Stats{}, 0
	}
	if m.cfg.Selection == config.SelectionPeers {
		return m.playPeers()
	}
	pairs := m.cfg.Games / 2
	for round := 0; ; round++ {
		first, err := m.drawOpenings(pairs, search.StreamOpenings+uint64(round)<<4)
		if err != nil {
			return err
		}
		var b schedule.Batch
		if err := m.schedule(&b, players, first, pairs, round); err != nil {
			return err
		}
		if _, err := m.play(&b, fmt.Sprintf("round %d", round)); err != nil {
			return err
		}
		for _, i := range players {
			m.g.current[i].Round = round
		}
		if round == m.cfg.RaceRounds || len(players) <= 1 {
			break
		}
		// The better half goes on: by score, then ID (a total order).
		sort.SliceStable(players, func(a, b int) bool {
			pa, pb := m.g.current[players[a]], m.g.current[players[b]]
			if sa, sb := pa.Stats.Score(), pb.Stats.Score(); sa != sb {
				return sa > sb
			}
			return pa.ID < pb.ID
		})
		players = players[:(len(players)+1)/2]
		sort.Ints(players)
	}
	return nil
}

// matchup is an individual's games against a reference: opening pairs [first, first+n),
// recorded as games of round; opp, when set, replaces the batch's reference for it.
type matchup struct {
	g               *genomes.Genome
	first, n, round int
	opp             *schedule.Opponent
}

// matchPlan is the batch of games of matchups (planMatchups), to be played by itself or
// with another batch, then credited (creditMatchups).
type matchPlan struct {
	ms    []matchup
	cands []*genomes.Genome // each matchup's individual, with its own Stats
	b     schedule.Batch
	ends  []int               // each matchup's end in b.tasks: its games are the tasks before it not of an earlier one
	recs  []engine.GameRecord // its games' records, once played with another batch
}

// planMatchups schedules every matchup against the reference opp (or its own) into one
// batch.
func (m *Generational) planMatchups(opp schedule.Opponent, ms ...matchup) (*matchPlan, error) {
	mp := &matchPlan{ms: ms, cands: make([]*genomes.Genome, len(ms))}
	for i, mu := range ms {
		mp.cands[i] = &genomes.Genome{Layout: m.a.Layout, X: mu.g.X, ID: mu.g.ID}
	}
	savedCur, savedRefs := m.g.current, m.g.refs
	m.g.current = mp.cands
	defer func() { m.g.current, m.g.refs = savedCur, savedRefs }()
	for i, mu := range ms {
		m.g.refs = []schedule.Opponent{opp}
		if mu.opp != nil {
			m.g.refs = []schedule.Opponent{*mu.opp}
		}
		if err := m.schedule(&mp.b, []int{i}, mu.first, mu.n, mu.round); err != nil {
			return nil, err
		}
		mp.ends = append(mp.ends, len(mp.b.Tasks))
	}
	return mp, nil
}

// creditMatchups credits mp's games (recs, its batch's records in order) to the
// generation and returns, per matchup, its individual's record and pair scores.
func (m *Generational) creditMatchups(mp *matchPlan, recs []engine.GameRecord) ([]stats.Result, [][]float64) {
	savedCur := m.g.current
	m.g.current = mp.cands
	scores := m.credit(&mp.b, recs)
	m.g.current = savedCur
	res := make([]stats.Result, len(mp.ms))
	pairs := make([][]float64, len(mp.ms))
	for i, mu := range mp.ms {
		res[i] = record.ResultOf(mp.cands[i].Stats)
		pairs[i] = make([]float64, mu.n)
		for k := range pairs[i] {
			pairs[i][k] = scores[[2]int{i, mu.first + k}]
		}
	}
	return res, pairs
}

// playPeers plays the generation's individuals against each other: RaceRounds+1 rounds,
// each a random pairing of the population (from the generation's own stream; with an odd
// population one sits the round out), each pair playing Games games on the round's
// Games/2 fresh opening pairs, colours swapped. An individual's Stats are its games of
// every round; its fitness is 1 − its score. The games are stored once, under the first
// of the pair. No round depends on another's results (the pairings and openings come from
// their own streams), so every round is one batch: the game slots a round's slowest game
// would leave idle play the next round's games.
func (m *Generational) playPeers() error {
	m.g.opponents = nil
	for _, g := range m.g.current {
		m.g.opponents = append(m.g.opponents, g.ID)
	}
	pl, err := PlanPeers(m.cfg, m.h, m.a.RandV1(m.g.gen, search.StreamPairing), m.g.current, func(n int, stream uint64, _ [][]string) ([][]string, error) {
		first, err := m.drawOpenings(n, stream)
		if err != nil {
			return nil, err
		}
		return m.g.openings[first:], nil
	})
	if err != nil {
		return err
	}
	play := m.playTasks
	if m.pairings != nil {
		play = m.pairings // the GA's, judging earlier generations' tests meanwhile
	}
	m.g.peers = pl
	recs, err := play(pl.B.Tasks, "pairings")
	if err != nil {
		return err
	}
	m.g.gameResults = pl.Credit(recs, m.g.current, m.g.gameResults)
	m.g.distinctGames += len(pl.B.Tasks)
	return nil
}
