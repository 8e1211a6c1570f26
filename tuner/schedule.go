package tuner

import (
	"context"
	"fmt"
	randv2 "math/rand/v2"
	"sort"
	"sync/atomic"
	"time"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/ga"
	"evotune/tuner/record"
	"evotune/tuner/schedule"
	"evotune/tuner/search"
	"evotune/tuner/stats"
)

// sides is the run as schedule.Sides: its genomes' sides (side), each opening pair's depth
// (Plan.DepthOf: 0, the setup's) and its game.
func (t *Tuner) sides() schedule.Sides { return runSides{t} }

// runSides is a run's schedule.Sides.
type runSides struct{ t *Tuner }

func (s runSides) Side(x []float64) (engine.Weights, *protocol.ExternalSpec, error) {
	return s.t.side(x)
}
func (s runSides) DepthOf(k int) int { return s.t.plan.DepthOf(k) }
func (s runSides) Game() engine.Game { return s.t.plan.Game }

// drawOpenings appends n new openings of the tuning half (stream: a per-generation random
// stream number) to the generation's openings and returns the index of the first.
func (t *Tuner) drawOpenings(n int, stream uint64) (int, error) {
	os, err := t.drawOf(t.g.gen, t.g.openings, n, stream)
	if err != nil {
		return 0, err
	}
	first := len(t.g.openings)
	for _, o := range os {
		t.g.openings = append(t.g.openings, o)
		t.draws.tuningOpenings[arena.Key(o)] = true
	}
	t.drawNext(stream, n)
	return first, nil
}

// drawOf is the draw of n openings of stream that generation gen makes after drawing
// openings `have` (drawOpenings), taken from the draws made ahead where one is, without
// keeping it: the same openings whenever it is made. The error names too few openings.
func (t *Tuner) drawOf(gen int, have [][]string, n int, stream uint64) (arena.Openings, error) {
	os, err := t.drawsAhead().Take(arena.DrawKey{Gen: gen, Stream: stream, N: n, After: len(have)}, keysOf(have))
	if err != nil {
		return nil, err
	}
	if len(os) < n {
		return nil, fmt.Errorf("openings: only %d distinct tuning openings found of %d wanted", len(os), n)
	}
	return os, nil
}

// tuningOpenings draws n tuning-half openings not in exclude: from the run's book
// (Config.BookList) when it has one, else from the game's random opening generator.
func (t *Tuner) tuningOpenings(n int, rng *randv2.Rand, exclude map[string]bool) (arena.Openings, error) {
	if len(t.cfg.BookList) > 0 {
		return arena.BookOpenings(t.cfg.BookList, n, rng, arena.TuningHalf, exclude), nil
	}
	return arena.RandomOpenings(t.plan.Game, t.cfg.Board, n, rng, arena.TuningHalf, exclude)
}

// drawnKeys is the set of the generation's openings so far (what a new draw excludes).
func (t *Tuner) drawnKeys() map[string]bool { return keysOf(t.g.openings) }

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
// 0: the next GA generation's draws (drawGenerationAhead), or another method's next round
// 0; after GA round r < RaceRounds: round r+1; after the last round: the admission test's
// openings (each a no-op when the chain has started it).
func (t *Tuner) drawNext(stream uint64, n int) {
	if t.sw.inTurn {
		return
	}
	d := t.drawsAhead()
	d.Drop(func(k arena.DrawKey) bool { return k.Gen+gaLag < t.g.gen }) // a GA generation's test is planned up to gaLag later
	if stream == search.StreamOpenings && n > 0 && len(t.g.openings) == n {
		if t.cfg.Method == config.MethodGA {
			t.drawGenerationAhead(n)
		} else {
			d.Start(arena.DrawKey{Gen: t.g.gen + 1, Stream: search.StreamOpenings, N: n}, map[string]bool{})
		}
	}
	if t.cfg.Method == config.MethodSPSA || stream < search.StreamOpenings || (stream-search.StreamOpenings)&0xf != 0 {
		return // the draws below are the GA's racing rounds and admission
	}
	switch r := int((stream - search.StreamOpenings) >> 4); {
	case r < t.cfg.RaceRounds:
		d.Start(arena.DrawKey{Gen: t.g.gen, Stream: search.StreamOpenings + uint64(r+1)<<4, N: n, After: len(t.g.openings)}, t.drawnKeys())
	case r == t.cfg.RaceRounds && t.cfg.AdmitGames > 0:
		d.Start(arena.DrawKey{Gen: t.g.gen, Stream: search.StreamAdmit, N: t.cfg.AdmitGames / 2, After: len(t.g.openings)}, t.drawnKeys())
	}
}

// drawsAhead is the run's draws of openings made ahead of their turn (drawNext), made
// by drawer on first use.
func (t *Tuner) drawsAhead() *arena.Draws {
	if t.draws.made == nil {
		t.draws.made = arena.NewDraws(t.drawer, 0)
	}
	return t.draws.made
}

// drawer is the run's arena.Drawer: draw k's tuning openings (tuningOpenings) from the
// random stream of its generation and stream.
func (t *Tuner) drawer(k arena.DrawKey, exclude map[string]bool) (arena.Openings, error) {
	return t.tuningOpenings(k.N, t.rngV2(k.Gen, k.Stream), exclude)
}

// drawGenerationAhead starts, in one goroutine, the next GA generation's draws in the
// order the generation makes them: racing round 0, rounds 1 to RaceRounds (each excluding
// the rounds before it), then the admission test's and the defence's openings (each
// excluding all before it). Peers plays every round in one batch, so each draw made only
// once the one before it was taken would hold the slots between generations; made ahead,
// a generation starts on openings already drawn. Each entry is the draw drawOpenings makes
// for its key, as drawNext's are; the defence's, drawn only when the hall of fame has a
// defender, is dropped unused otherwise.
func (t *Tuner) drawGenerationAhead(n int) {
	gen := t.g.gen + 1
	var keys []arena.DrawKey
	add := func(stream uint64, n, after int) int {
		keys = append(keys, arena.DrawKey{Gen: gen, Stream: stream, N: n, After: after})
		return after + n
	}
	after := 0
	for r := 0; r <= t.cfg.RaceRounds; r++ {
		after = add(search.StreamOpenings+uint64(r)<<4, n, after)
	}
	if m := t.cfg.AdmitGames / 2; m > 0 {
		add(search.StreamDefence, m, add(search.StreamAdmit, m, after))
	}
	t.drawsAhead().Chain(keys)
}

// schedule adds the games of individuals inds (indices into t.g.current) on opening pairs
// [first, first+n) of the generation's openings against its references to b.
func (t *Tuner) schedule(b *schedule.Batch, inds []int, first, n, round int) error {
	return schedule.On(b, t.sides(), t.g.current, inds, t.g.refs, t.g.openings, first, n, round)
}

// play runs a batch on the worker pool and credits every entry's result to its
// individual's Stats (games and pentanomial pairs), recording each game. It returns the
// pair scores (0 to 2) by (individual, opening index).
func (t *Tuner) play(b *schedule.Batch, label string) (map[[2]int]float64, error) {
	recs, err := t.playTasks(b.Tasks, label)
	if err != nil {
		return nil, err
	}
	return t.credit(b, recs), nil
}

// playTasks plays tasks as one batch on the worker pool, reporting progress as label, and
// adds the batch's wall time to the generation's time in games and its games' slot times
// to the generation's slot time.
func (t *Tuner) playTasks(tasks []arena.GameTask, label string) ([]engine.GameRecord, error) {
	return t.account(t.playAsync(tasks, label), label)
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
func (t *Tuner) playAsync(tasks []arena.GameTask, label string) *playing {
	p, _ := t.startPlaying(tasks, label, nil, false)
	return p
}

// startPlaying is playAsync where the runner is an AheadStarter and each or ahead asks for
// it: each is told every finished game's task index and record as it ends (from the
// slots' goroutines, possibly at once), and an ahead batch plays only on slots no other
// batch wants, with no progress events, until the promotion it returns (a no-op
// otherwise) queues it as an ordinary batch and shows its games from then on.
func (t *Tuner) startPlaying(tasks []arena.GameTask, label string, each func(int, engine.GameRecord), ahead bool) (*playing, func()) {
	ctx, stop := context.WithCancel(t.ctx)
	p := &playing{done: make(chan struct{}), stop: stop}
	var base atomic.Pointer[record.Event]
	show := func() {
		e := t.event(record.Event{GamesTotal: len(tasks), GenGames: t.g.distinctGames, Phase: label})
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
			e.GamesDone, e.Elapsed = int(n), t.elapsed()
			t.emit(e)
		}
	}
	start := time.Now()
	var wait func() ([]engine.GameRecord, error)
	promote := func() {}
	var err error
	if s, ok := t.setup.Runner.(arena.AheadStarter); ok && (each != nil || ahead) {
		wait, promote, err = s.StartEach(ctx, t.setup, tasks, func(i int, rec engine.GameRecord) {
			done()
			if each != nil {
				each(i, rec)
			}
		}, ahead)
	} else {
		wait, err = arena.StartBatch(ctx, t.setup, tasks, t.cfg.Workers, done)
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
func (t *Tuner) account(p *playing, label string) ([]engine.GameRecord, error) {
	<-p.done
	t.g.gamesTime += p.wall
	if p.err != nil {
		return nil, fmt.Errorf("%s: %w", label, p.err)
	}
	for _, r := range p.recs {
		t.g.slotTime += r.SlotTime()
	}
	return p.recs, nil
}

// credit credits every entry of b with its game of recs (b.tasks' records, in order) as
// play does, and adds the games to the generation's distinct games.
func (t *Tuner) credit(b *schedule.Batch, recs []engine.GameRecord) map[[2]int]float64 {
	var pairScore map[[2]int]float64
	t.g.gameResults, pairScore = schedule.Credit(b, recs, t.g.current, 0, t.g.gameResults)
	t.g.distinctGames += len(b.Tasks)
	return pairScore
}

// playGeneration plays the generation's race: a screening round of Games games for every
// individual, then RaceRounds rounds in which the better half (by score over all its games
// of this generation) plays Games more on new openings. It sets each genome's Stats and
// Round; fitness is 1 − score.
func (t *Tuner) playGeneration() error {
	t.g.openings, t.g.gameResults, t.g.gamesTime, t.g.slotTime, t.g.distinctGames = nil, nil, 0, 0, 0
	if t.draws.tuningOpenings == nil {
		t.draws.tuningOpenings = map[string]bool{}
	}
	refs, err := t.references()
	if err != nil {
		return err
	}
	for _, o := range t.cfg.Opponents {
		argv, _, _ := protocol.ParseCommand(o)
		spec := t.cfg.OpponentSpec(argv)
		refs = append(refs, schedule.Opponent{ID: spec.Name(), Ext: spec})
	}
	t.g.refs = refs
	t.g.opponents = nil
	for _, o := range refs {
		t.g.opponents = append(t.g.opponents, o.ID)
	}
	players := make([]int, len(t.g.current))
	for i := range players {
		players[i] = i
		t.g.current[i].Stats, t.g.current[i].Round = genomes.Stats{}, 0
	}
	if t.cfg.Selection == config.SelectionPeers {
		return t.playPeers()
	}
	pairs := t.cfg.Games / 2
	for round := 0; ; round++ {
		first, err := t.drawOpenings(pairs, search.StreamOpenings+uint64(round)<<4)
		if err != nil {
			return err
		}
		var b schedule.Batch
		if err := t.schedule(&b, players, first, pairs, round); err != nil {
			return err
		}
		if _, err := t.play(&b, fmt.Sprintf("round %d", round)); err != nil {
			return err
		}
		for _, i := range players {
			t.g.current[i].Round = round
		}
		if round == t.cfg.RaceRounds || len(players) <= 1 {
			break
		}
		// The better half goes on: by score, then ID (a total order).
		sort.SliceStable(players, func(a, b int) bool {
			ga, gb := t.g.current[players[a]], t.g.current[players[b]]
			if sa, sb := ga.Stats.Score(), gb.Stats.Score(); sa != sb {
				return sa > sb
			}
			return ga.ID < gb.ID
		})
		players = players[:(len(players)+1)/2]
		sort.Ints(players)
	}
	return nil
}

// playAgainst plays the individual g against the reference opp on the generation's opening
// pairs [first, first+n) and returns g's record and its pair scores (each in [0, 2], in
// opening order); g's own Stats are left as they were. The games are recorded with the
// generation as games of round (AdmissionRound or DefenceRound).
func (t *Tuner) playAgainst(g *genomes.Genome, opp schedule.Opponent, first, n, round int, label string) (stats.Result, []float64, error) {
	res, pairs, err := t.playMatchups(opp, label, matchup{g: g, first: first, n: n, round: round})
	if err != nil {
		return stats.Result{}, nil, err
	}
	return res[0], pairs[0], nil
}

// matchup is an individual's games against a reference: opening pairs [first, first+n),
// recorded as games of round; opp, when set, replaces the batch's reference for it.
type matchup struct {
	g               *genomes.Genome
	first, n, round int
	opp             *schedule.Opponent
}

// playMatchups plays every matchup against the reference opp (or its own) as one batch
// (none depends on another's result, so no game slot waits for one matchup's slowest game
// while another has games to play) and returns, per matchup, its individual's record and
// pair scores, as playAgainst does for one. The games are recorded in matchup order.
func (t *Tuner) playMatchups(opp schedule.Opponent, label string, ms ...matchup) ([]stats.Result, [][]float64, error) {
	mp, err := t.planMatchups(opp, ms...)
	if err != nil {
		return nil, nil, err
	}
	recs, err := t.playTasks(mp.b.Tasks, label)
	if err != nil {
		return nil, nil, err
	}
	res, pairs := t.creditMatchups(mp, recs)
	return res, pairs, nil
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
func (t *Tuner) planMatchups(opp schedule.Opponent, ms ...matchup) (*matchPlan, error) {
	mp := &matchPlan{ms: ms, cands: make([]*genomes.Genome, len(ms))}
	for i, m := range ms {
		mp.cands[i] = &genomes.Genome{Layout: t.plan.Layout, X: m.g.X, ID: m.g.ID}
	}
	savedCur, savedRefs := t.g.current, t.g.refs
	t.g.current = mp.cands
	defer func() { t.g.current, t.g.refs = savedCur, savedRefs }()
	for i, m := range ms {
		t.g.refs = []schedule.Opponent{opp}
		if m.opp != nil {
			t.g.refs = []schedule.Opponent{*m.opp}
		}
		if err := t.schedule(&mp.b, []int{i}, m.first, m.n, m.round); err != nil {
			return nil, err
		}
		mp.ends = append(mp.ends, len(mp.b.Tasks))
	}
	return mp, nil
}

// creditMatchups credits mp's games (recs, its batch's records in order) to the
// generation and returns, per matchup, its individual's record and pair scores.
func (t *Tuner) creditMatchups(mp *matchPlan, recs []engine.GameRecord) ([]stats.Result, [][]float64) {
	savedCur := t.g.current
	t.g.current = mp.cands
	scores := t.credit(&mp.b, recs)
	t.g.current = savedCur
	res := make([]stats.Result, len(mp.ms))
	pairs := make([][]float64, len(mp.ms))
	for i, m := range mp.ms {
		res[i] = record.ResultOf(mp.cands[i].Stats)
		pairs[i] = make([]float64, m.n)
		for k := range pairs[i] {
			pairs[i][k] = scores[[2]int{i, m.first + k}]
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
func (t *Tuner) playPeers() error {
	t.g.opponents = nil
	for _, g := range t.g.current {
		t.g.opponents = append(t.g.opponents, g.ID)
	}
	pl, err := ga.PlanPeers(t.cfg, t.sides(), t.rngV1(t.g.gen, search.StreamPairing), t.g.current, func(n int, stream uint64, _ [][]string) ([][]string, error) {
		first, err := t.drawOpenings(n, stream)
		if err != nil {
			return nil, err
		}
		return t.g.openings[first:], nil
	})
	if err != nil {
		return err
	}
	play := t.playTasks
	if t.pairings != nil {
		play = t.pairings // the GA's, judging earlier generations' tests meanwhile
	}
	t.g.peers = pl
	recs, err := play(pl.B.Tasks, "pairings")
	if err != nil {
		return err
	}
	t.g.gameResults = pl.Credit(recs, t.g.current, t.g.gameResults)
	t.g.distinctGames += len(pl.B.Tasks)
	return nil
}
