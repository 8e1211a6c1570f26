package tuner

import (
	"bufio"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	randv2 "math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/ga"
	"evotune/tuner/record"
)

// replayRunner plays a run's games as sleeps on a fixed number of virtual game slots:
// each game lasts a recorded game's wall time (the record picked by a hash of the game's
// players and opening, so the same game always lasts the same) and its result is a hash
// of the same (so a seeded run is the same whatever the slots). The slots take games
// oldest batch first, as the local pool does, and count their busy time (a game's whole
// turn on its slot, the sleep as long as it really took: a sleep of a few milliseconds
// overshoots by a tenth of a millisecond or more, time the slot gave that game): measured
// on 16 or 64 slots, the idle time is the run loop's, on any machine.
type replayRunner struct {
	slots int
	durs  []time.Duration
	mu    sync.Mutex
	wake  *sync.Cond
	queue []replayGame
	ahead []replayGame // games played ahead (AheadStarter), taken only when queue is empty
	busy  time.Duration
	quit  bool
	// stopped is the part of busy that games of stopped batches took (their records never
	// used: the GA's admission tests planned again).
	stopped time.Duration
	// batches counts PlayBatch calls: the run loop's barriers; inPlay is the batches in
	// play now, mostInPlay the most at once.
	batches, inPlay, mostInPlay int
	// played, when set, gives each game the record a real run of the same seeded
	// configuration played (playedGames): its result, and a duration of perNode a node
	// (the played run's speed, scaled); missing counts games that run never played, and
	// missingIn those of each batch.
	played    *playedGames
	perNode   time.Duration
	missing   int
	missingIn map[*replayBatch]int
}

// replayKey identifies a game of a run: its players, opening and depth, the hash of
// fmt.Fprint(t.Black, t.White, t.Opening, t.BlackExt, t.WhiteExt, t.Depth) (the keys of the
// played runs kept), each player's text made once (weightsText).
func replayKey(t arena.GameTask) uint64 {
	h := fnv.New64a()
	io.WriteString(h, weightsText(t.Black))
	h.Write([]byte{' '})
	io.WriteString(h, weightsText(t.White))
	fmt.Fprint(h, " ", t.Opening, " ", t.BlackExt, " ", t.WhiteExt, " ", t.Depth)
	return h.Sum64()
}

// replayTexts holds weightsText's texts by weights (a run plans the same weights for
// every game of a player: Tuner.side).
var replayTexts sync.Map

// weightsText is fmt.Sprint(w), made once for each weights.
func weightsText(w engine.Weights) string {
	if w == nil {
		return fmt.Sprint(w)
	}
	if s, ok := replayTexts.Load(w); ok {
		return s.(string)
	}
	s := fmt.Sprint(w)
	replayTexts.Store(w, s)
	return s
}

type replayGame struct {
	task arena.GameTask
	ctx  context.Context
	out  *engine.GameRecord
	wg   *sync.WaitGroup
	done func()
	i    int
	each func(int, engine.GameRecord)
	b    *replayBatch
}

// replayBatch is a batch's busy time so far, whether its wait saw its context end (its
// games' time is then counted stopped) and whether it is played ahead, not yet promoted.
type replayBatch struct {
	busy    time.Duration
	stopped bool
	ahead   bool
}

func newReplayRunner(slots int, durs []time.Duration) *replayRunner {
	r := &replayRunner{durs: durs, slots: slots}
	r.wake = sync.NewCond(&r.mu)
	for range slots {
		go r.slot()
	}
	return r
}

func (r *replayRunner) slot() {
	for {
		r.mu.Lock()
		for len(r.queue) == 0 && len(r.ahead) == 0 && !r.quit {
			r.wake.Wait()
		}
		if r.quit {
			r.mu.Unlock()
			return
		}
		var g replayGame
		if len(r.queue) > 0 {
			g, r.queue = r.queue[0], r.queue[1:]
		} else {
			g, r.ahead = r.ahead[0], r.ahead[1:]
		}
		r.mu.Unlock()
		begin := time.Now()
		x := replayKey(g.task)
		var rec engine.GameRecord
		if r.played != nil {
			var ok bool
			if rec, ok = r.played.Recs[x]; ok {
				rec.Duration = time.Duration(rec.Nodes) * r.perNode
			} else {
				r.mu.Lock()
				// A game the played run never played: a draw, at once. Only an admission
				// test planned ahead against a defender a test before it replaces (the GA's
				// ahead mode; its games are stopped and their records never used), or a
				// next generation played ahead on a wrong guess, can be one, as their
				// timing differs from the played run's.
				r.missing++
				if r.missingIn == nil {
					r.missingIn = map[*replayBatch]int{}
				}
				r.missingIn[g.b]++
				r.mu.Unlock()
				rec = engine.GameRecord{Outcome: engine.Draw, Plies: 40}
			}
		} else {
			d := r.durs[x%uint64(len(r.durs))]
			rec = engine.GameRecord{Outcome: []engine.Outcome{engine.BlackWins, engine.WhiteWins, engine.Draw}[(x>>32)%3], Plies: 40, Duration: d}
		}
		// A game of a batch stopped while it plays ends at once, as the local pool's does at
		// its next move (engine.PlayGame reads its context every ply).
		timer := time.NewTimer(rec.Duration)
		select {
		case <-timer.C:
		case <-g.ctx.Done():
			timer.Stop()
		}
		*g.out = rec
		took := time.Since(begin)
		r.mu.Lock()
		r.busy += took // the slot is the game's however long the sleep took
		if g.b.stopped {
			r.stopped += took // a game of a batch stopped while it played
		} else {
			g.b.busy += took
		}
		r.mu.Unlock()
		if g.done != nil {
			g.done()
		}
		if g.each != nil {
			g.each(g.i, rec)
		}
		g.wg.Done()
	}
}

// missingKept counts the games the played run never played in batches neither stopped nor
// played ahead and never promoted: a next generation played ahead on a wrong guess may ask
// for games no run played.
func (r *replayRunner) missingKept() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for b, k := range r.missingIn {
		if !b.stopped && !b.ahead {
			n += k
		}
	}
	return n
}

// DropsStopped: a stopped batch's games not yet begun are dropped, as the local pool's are.
func (r *replayRunner) DropsStopped() bool { return true }

// close ends the slots once they are idle.
func (r *replayRunner) close() {
	r.mu.Lock()
	r.quit = true
	r.wake.Broadcast()
	r.mu.Unlock()
}

// PlayBatch queues the batch's games behind those queued before it and waits for them.
func (r *replayRunner) PlayBatch(ctx context.Context, setup arena.GameSetup, tasks []arena.GameTask, done func()) ([]engine.GameRecord, error) {
	wait, _ := r.StartBatch(ctx, setup, tasks, done)
	return wait()
}

// StartBatch queues the batch's games behind those queued before it, as the local pool's
// slots do (BatchStarter); the wait waits for them.
func (r *replayRunner) StartBatch(ctx context.Context, _ arena.GameSetup, tasks []arena.GameTask, done func()) (func() ([]engine.GameRecord, error), error) {
	wait, _, err := r.start(ctx, tasks, done, nil, false)
	return wait, err
}

// StartEach implements AheadStarter, as the local pool's slots do.
func (r *replayRunner) StartEach(ctx context.Context, _ arena.GameSetup, tasks []arena.GameTask, each func(int, engine.GameRecord), ahead bool) (func() ([]engine.GameRecord, error), func(), error) {
	return r.start(ctx, tasks, nil, each, ahead)
}

func (r *replayRunner) start(ctx context.Context, tasks []arena.GameTask, done func(), each func(int, engine.GameRecord), ahead bool) (func() ([]engine.GameRecord, error), func(), error) {
	recs := make([]engine.GameRecord, len(tasks))
	var wg sync.WaitGroup
	wg.Add(len(tasks))
	b := &replayBatch{ahead: ahead}
	r.mu.Lock()
	r.batches++
	r.inPlay++
	r.mostInPlay = max(r.mostInPlay, r.inPlay)
	for i, t := range tasks {
		g := replayGame{task: t, ctx: ctx, out: &recs[i], wg: &wg, done: done, i: i, each: each, b: b}
		if ahead {
			r.ahead = append(r.ahead, g)
		} else {
			r.queue = append(r.queue, g)
		}
	}
	r.wake.Broadcast()
	r.mu.Unlock()
	promote := func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		b.ahead = false
		kept := r.ahead[:0]
		for _, g := range r.ahead {
			if g.wg == &wg {
				r.queue = append(r.queue, g)
				continue
			}
			kept = append(kept, g)
		}
		r.ahead = kept
	}
	over := make(chan struct{})
	go func() { wg.Wait(); close(over) }()
	return func() ([]engine.GameRecord, error) {
		select {
		case <-over:
		case <-ctx.Done(): // the batch's games not yet begun are dropped
			r.mu.Lock()
			for _, q := range []*[]replayGame{&r.queue, &r.ahead} {
				kept := (*q)[:0]
				for _, g := range *q {
					if g.wg == &wg {
						g.wg.Done()
						continue
					}
					kept = append(kept, g)
				}
				*q = kept
			}
			if !b.stopped {
				b.stopped = true
				r.stopped += b.busy
			}
			r.mu.Unlock()
		}
		r.mu.Lock()
		r.inPlay--
		r.mu.Unlock()
		return recs, ctx.Err()
	}, promote, nil
}

// recordedDurations reads testdata/durations/GAME.txt: the wall times (ms) of a real run's
// games on this 2-core machine (gomoku depth 3, connect6 depth 3 width 10, amazons depth 2),
// multiplied by scale.
func recordedDurations(tb testing.TB, game string, scale float64) []time.Duration {
	f, err := os.Open("testdata/durations/" + game + ".txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []time.Duration
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		ms, err := strconv.ParseFloat(sc.Text(), 64)
		if err != nil {
			tb.Fatalf("durations of %s: %q: %v", game, sc.Text(), err)
		}
		out = append(out, time.Duration(ms*scale*float64(time.Millisecond)))
	}
	if len(out) == 0 {
		tb.Fatalf("durations of %s: none", game)
	}
	return out
}

// replayUtilisation runs method on game through the run loop with its games replayed on
// slots virtual slots (replayRunner) until budget games, and returns the slots' busy time
// over the run's wall time times the slots, and the run's fingerprint.
func replayUtilisation(tb testing.TB, game, method string, slots, budget int, durs []time.Duration) (float64, string) {
	u, _, fp := replayRun(tb, game, method, slots, budget, durs)
	return u, fp
}

// replayRun is replayUtilisation that also returns the share of the slot time that games
// of stopped batches took (their records never used), which the utilisation leaves out.
func replayRun(tb testing.TB, game, method string, slots, budget int, durs []time.Duration) (used, stopped float64, fp string) {
	cfg := replayConfig(game, method, slots, budget)
	r := newReplayRunner(slots, durs)
	if os.Getenv("EVOTUNE_REPLAY_PLAYED") != "" {
		r.played = playedRun(tb, cfg)
		r.perNode = time.Duration(float64(r.played.PerNode) * replayScale())
	}
	defer r.close()
	used, stopped, fp = replayOn(tb, cfg, r)
	if r.played != nil {
		checkPlayedReplay(tb, r, fp)
	}
	return used, stopped, fp
}

// checkPlayedReplay fails tb unless run r replayed (fingerprint fp) is the run r.played
// played: the same generations, games and genomes.
func checkPlayedReplay(tb testing.TB, r *replayRunner, fp string) {
	tb.Helper()
	stale := ""
	if r.played.path != "" {
		stale = " (a build since whose games differ? remove " + r.played.path + ")"
	}
	if fp != r.played.FP {
		tb.Fatalf("the replay on %d slots is not the run that was played (%d games it never played)%s", r.slots, r.missing, stale)
	}
}

// replayOn runs configuration cfg on replay runner r and returns its busy share, the share
// of stopped games and its fingerprint.
func replayOn(tb testing.TB, cfg config.Config, r *replayRunner) (used, stopped float64, fp string) {
	st := &memStore{}
	var opts []Option
	if os.Getenv("EVOTUNE_REPLAY_NO_AHEAD") != "" { // the GA and CMA-ES waiting for each generation's last games
		opts = append(opts, withoutAhead())
	}
	if r.played != nil && os.Getenv("EVOTUNE_REPLAY_ORACLE") != "" {
		opts = append(opts, withOracle(func(task arena.GameTask) (engine.GameRecord, bool) { // guesses that read the games' real results
			rec, ok := r.played.Recs[replayKey(task)]
			return rec, ok
		}))
	}
	tu, err := New(cfg, st, nil, "test", opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tu.SetRunner(r)
	start := time.Now()
	if _, err := tu.Run(context.Background(), 0); err != nil {
		tb.Fatal(err)
	}
	wall := time.Since(start)
	r.mu.Lock()
	defer r.mu.Unlock()
	all := wall.Seconds() * float64(r.slots)
	return (r.busy - r.stopped).Seconds() / all, r.stopped.Seconds() / all, fingerprint(st.gens)
}

// replayConfig is the configuration a replayed run of method on game plays: the game's
// defaults for a new run of budget games on slots workers, no verification, and the
// BenchmarkSlotReplay knobs.
func replayConfig(game, method string, slots, budget int) config.Config {
	cfg := config.DefaultConfig(game)
	cfg.Method, cfg.Workers, cfg.BudgetGames, cfg.Generations, cfg.VerifyGames = method, slots, budget, 0, 0
	if game == "amazons" {
		cfg.Board = 8
	}
	cfg.NewRunDefaults(false)
	if v, err := strconv.Atoi(os.Getenv("EVOTUNE_REPLAY_LAG")); err == nil && method == config.MethodSPSA {
		cfg.SPSA.Lag = v // BenchmarkSlotReplay with another lag
	}
	if method == config.MethodCMAES {
		var c config.CMAESConfig // zero fields: DefaultCMAES's
		if cfg.CMAES != nil {
			c = *cfg.CMAES // the new run's λ from its budget
		}
		for k, f := range map[string]*int{"LAG": &c.Lag, "LAMBDA": &c.Lambda, "PAIRS": &c.Pairs} {
			if v, err := strconv.Atoi(os.Getenv("EVOTUNE_REPLAY_CMAES_" + k)); err == nil {
				*f = v
			}
		}
		cfg.CMAES = &c
	}
	if v, err := strconv.Atoi(os.Getenv("EVOTUNE_REPLAY_GA_LAG")); err == nil && method == config.MethodGA {
		cfg.GALag = v // the GA with generations in play (--ga-lag N; its champion is the population's)
	}
	if v, err := strconv.Atoi(os.Getenv("EVOTUNE_REPLAY_POP")); err == nil && method == config.MethodGA {
		cfg.Population = v // a GA of v individuals (--pop v)
	}
	if v := os.Getenv("EVOTUNE_REPLAY_CHAMPION"); v != "" && method == config.MethodGA {
		cfg.Champion = v // e.g. centre: a lagged GA with a hall of fame, its tests rounds of the loop
	}
	if v := os.Getenv("EVOTUNE_REPLAY_SURROGATE"); v != "" && method == config.MethodGA {
		cfg.Surrogate = v // on: a surrogate model's child each generation, an outside engine's default
	}
	cfg.Resolve()
	return cfg
}

// playedGames is a seeded run played for real on this machine's processors: every game's
// record by its replayKey, the mean wall time of a node on one game slot, and the run's
// fingerprint. Replayed (replayRunner.played), the same configuration on any number of
// slots plays the same games (a seeded run is the same whatever the workers), each with
// its real result and a duration proportional to its real nodes: a game's length as it
// was, with every correlation the played run had (an opening's games long or short
// together, a generation's longer or shorter with its players), which
// recordedDurations' draws drop.
type playedGames struct {
	Recs    map[uint64]engine.GameRecord
	PerNode time.Duration
	FP      string
	path    string // where it is kept ("": nowhere)
}

// recordingRunner plays batches on real game slots and keeps every finished game's record.
type recordingRunner struct {
	in   *arena.Slots
	mu   sync.Mutex
	recs map[uint64]engine.GameRecord
}

func (r *recordingRunner) keep(tasks []arena.GameTask, recs []engine.GameRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, rec := range recs {
		if rec.Plies > 0 { // a stopped batch's games not played are empty
			r.recs[replayKey(tasks[i])] = rec
		}
	}
}

func (r *recordingRunner) PlayBatch(ctx context.Context, setup arena.GameSetup, tasks []arena.GameTask, done func()) ([]engine.GameRecord, error) {
	recs, err := r.in.PlayBatch(ctx, setup, tasks, done)
	r.keep(tasks, recs)
	return recs, err
}

func (r *recordingRunner) StartBatch(ctx context.Context, setup arena.GameSetup, tasks []arena.GameTask, done func()) (func() ([]engine.GameRecord, error), error) {
	wait, err := r.in.StartBatch(ctx, setup, tasks, done)
	if err != nil {
		return nil, err
	}
	return func() ([]engine.GameRecord, error) {
		recs, err := wait()
		r.keep(tasks, recs)
		return recs, err
	}, nil
}

func (r *recordingRunner) DropsStopped() bool { return true }

// playedRun plays configuration cfg for real on this machine's processors (one game slot a
// processor), or reads the games of an earlier such run of the same configuration from the
// temporary directory, where it keeps them (gob; a gomoku run at its budget takes a few
// minutes here).
func playedRun(tb testing.TB, cfg config.Config) *playedGames {
	key := cfg
	key.Workers = 0 // the same run on any number
	js, err := json.Marshal(key)
	if err != nil {
		tb.Fatal(err)
	}
	h := fnv.New64a()
	h.Write(js)
	path := filepath.Join(os.TempDir(), fmt.Sprintf("evotune-played-%s-%s-%x.gob", cfg.Game, cfg.Method, h.Sum64()))
	p := &playedGames{}
	if f, err := os.Open(path); err == nil {
		err = gob.NewDecoder(f).Decode(p)
		f.Close()
		if err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
	} else {
		p = playRecorded(tb, cfg)
		tmp := path + ".tmp"
		f, err := os.Create(tmp)
		if err != nil {
			tb.Fatal(err)
		}
		if err := gob.NewEncoder(f).Encode(p); err != nil {
			f.Close()
			tb.Fatal(err)
		}
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			tb.Fatal(err)
		}
	}
	p.path = path
	return p
}

// playRecorded plays configuration cfg for real on this machine's processors and keeps
// every game it played (playedGames).
func playRecorded(tb testing.TB, cfg config.Config) *playedGames {
	cfg.Workers = runtime.NumCPU()
	rr := &recordingRunner{in: arena.NewSlots(cfg.Workers), recs: map[uint64]engine.GameRecord{}}
	defer rr.in.Close()
	st := &memStore{}
	tu, err := New(cfg, st, nil, "test")
	if err != nil {
		tb.Fatal(err)
	}
	tu.SetRunner(rr)
	if _, err := tu.Run(context.Background(), 0); err != nil {
		tb.Fatal(err)
	}
	var nodes int64
	var wall time.Duration
	for _, rec := range rr.recs {
		nodes += rec.Nodes
		wall += rec.Duration
	}
	if nodes == 0 {
		tb.Fatalf("%s %s: the played games searched no nodes", cfg.Game, cfg.Method)
	}
	return &playedGames{Recs: rr.recs, PerNode: wall / time.Duration(nodes), FP: fingerprint(st.gens)}
}

// TestReplayRunnerSameRunWhateverSlots: the replay is a faithful stand-in for the games
// of a seeded run: every method's run is the same on 2 and 16 virtual slots, and every
// slot-second it reports lies within the run.
func TestReplayRunnerSameRunWhateverSlots(t *testing.T) {
	durs := recordedDurations(t, "gomoku", 0.2)
	for _, m := range []string{config.MethodGA, config.MethodSPSA, config.MethodCMAES, config.MethodSteady} {
		u2, a := replayUtilisation(t, "gomoku", m, 2, 800, durs)
		u16, b := replayUtilisation(t, "gomoku", m, 16, 800, durs)
		if a != b {
			t.Fatalf("%s: 2 and 16 slots gave different runs", m)
		}
		if u2 <= 0 || u2 > 1 || u16 <= 0 || u16 > 1 {
			t.Fatalf("%s: utilisation %.3f on 2 slots, %.3f on 16: want (0, 1]", m, u2, u16)
		}
	}
}

// TestPlayedReplaySameRun: a seeded run played for real and kept game by game
// (playRecorded), then replayed on 5 virtual slots from those records, is the same run
// (its generations, games and genomes), and its slots were busy a share in (0, 1], for
// each method. The methods on the run loop ask for the same games whatever their speed, so
// every game they ask for was played.
func TestPlayedReplaySameRun(t *testing.T) {
	for _, m := range []string{config.MethodGA, config.MethodSPSA, config.MethodCMAES, config.MethodSteady} {
		t.Run(m, func(t *testing.T) {
			cfg := replayConfig("gomoku", m, 5, 480)
			cfg.Depth = 1
			cfg.Resolve()
			p := playRecorded(t, cfg)
			r := newReplayRunner(5, nil)
			defer r.close()
			r.played, r.perNode = p, p.PerNode
			u, _, fp := replayOn(t, cfg, r)
			checkPlayedReplay(t, r, fp)
			if n := r.missingKept(); n > 0 {
				t.Fatalf("%d games the played run never played in batches the run kept", n)
			}
			if u <= 0 || u > 1 {
				t.Fatalf("busy share %.3f, want (0, 1]", u)
			}
		})
	}
}

// TestGAGenerationBatches: a GA generation (peers, the default) waits for its games once:
// every pairing of all its rounds is one batch (no round depends on another's results),
// and the admission tests (the candidate's games with the defender's on the same openings,
// and the defender's own games: a batch each) play behind the next generations' pairings
// (queued after them), in play with them and with each other: a test is planned against
// the hall of fame as it stands, and planned again when a test in play before it admits
// its candidate. In turn, each test's batches play before the next generation's; the run
// is the same, hall of fame included, and so on a runner whose stopped batches' queued
// games would still be played (a cluster), where no test is planned ahead.
func TestGAGenerationBatches(t *testing.T) {
	cfg := config.DefaultConfig("gomoku")
	cfg.Population, cfg.Games, cfg.RaceRounds, cfg.AdmitGames, cfg.Generations, cfg.VerifyGames, cfg.Workers = 6, 2, 2, 8, 6, 0, 4
	cfg.AdmitZ = 0.01 // admit any winner ahead: the later tests have a defender
	cfg.Resolve()
	var mu sync.Mutex
	var firsts []string // the phase of each batch, in the order their first games ended
	run := func(inTurn, queuedPlay bool) (st *memStore, batches, most, replans int) {
		st = &memStore{}
		mu.Lock()
		firsts = nil
		mu.Unlock()
		opts := []Option{withoutAhead()} // the admission tests' batches alone (TestGAPlaysAheadSameRun plays ahead)
		if inTurn {
			opts = append(opts, testsInTurn())
		}
		tu, err := New(cfg, st, func(e record.Event) {
			if e.GamesDone == 1 {
				mu.Lock()
				firsts = append(firsts, e.Phase)
				mu.Unlock()
			}
		}, "test", opts...)
		if err != nil {
			t.Fatal(err)
		}
		// Games long enough that a test started before the next pairings is still in
		// play when they start.
		r := newReplayRunner(4, []time.Duration{20 * time.Millisecond})
		defer r.close()
		tu.SetRunner(r)
		if queuedPlay {
			tu.SetRunner(clusterLike{r})
		}
		if _, err := tu.Run(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		return st, r.batches, r.mostInPlay, tu.method.(*loopMethod).l.Method().(*ga.Generational).Replans()
	}
	st, batches, most, replans := run(false, false)
	tests, defended := 0, 0
	for _, g := range st.gens {
		if a := g.Admission; a != nil {
			tests++
			if a.Opponent != "baseline" {
				defended++
			}
		}
	}
	if len(st.gens) != 7 || defended == 0 || batches < len(st.gens)+tests+defended || most < 3 || replans == 0 {
		t.Fatalf("%d generations, %d admission tests (%d with a defender): %d batches, at most %d in play at once, %d tests planned again; want a batch per generation and one or two per test (more for tests planned again), several in play together, some planned again",
			len(st.gens), tests, defended, batches, most, replans)
	}
	// Generation 0's test is queued behind generation 1's pairings (its slots play the
	// pairings the next breeding waits for first): with games of equal length on slots
	// that take the oldest batch first, the batches' first games end in queue order.
	mu.Lock()
	order := append([]string(nil), firsts...)
	mu.Unlock()
	if len(order) < 3 || order[0] != "pairings" || order[1] != "pairings" || order[2] != "admission" {
		t.Fatalf("batches in the order their first games ended: %v; want generation 0's and 1's pairings, then generation 0's test", order)
	}
	un, unBatches, unMost, _ := run(true, false)
	if unBatches != len(un.gens)+tests+defended || unMost > 2 {
		t.Fatalf("tests in turn: %d batches, at most %d in play at once; want %d generations + %d tests (%d with a defender), at most a test's two at once", unBatches, unMost, len(un.gens), tests, defended)
	}
	if got, want := fingerprint(st.gens), fingerprint(un.gens); got != want {
		t.Fatalf("admission tests behind the pairings and in turn give different runs:\n%s\n----\n%s", got, want)
	}
	for i := range st.gens {
		if a, b := fmt.Sprint(st.gens[i].HallOfFame), fmt.Sprint(un.gens[i].HallOfFame); a != b {
			t.Fatalf("generation %d: hall of fame %s with tests behind, %s in turn", i, a, b)
		}
	}
	cl, _, _, clReplans := run(false, true)
	if clReplans != 0 {
		t.Fatalf("a runner that plays stopped batches' games: %d tests planned again, want 0", clReplans)
	}
	if got, want := fingerprint(cl.gens), fingerprint(un.gens); got != want {
		t.Fatalf("tests planned in turn (a cluster) and tests in turn give different runs:\n%s\n----\n%s", got, want)
	}
}

// clusterLike is a replayRunner seen as a runner that cannot drop a stopped batch's
// queued games (a cluster's broker queue): it is no StopDropper.
type clusterLike struct{ r *replayRunner }

func (c clusterLike) PlayBatch(ctx context.Context, setup arena.GameSetup, tasks []arena.GameTask, done func()) ([]engine.GameRecord, error) {
	return c.r.PlayBatch(ctx, setup, tasks, done)
}

func (c clusterLike) StartBatch(ctx context.Context, setup arena.GameSetup, tasks []arena.GameTask, done func()) (func() ([]engine.GameRecord, error), error) {
	return c.r.StartBatch(ctx, setup, tasks, done)
}

// BenchmarkSlotReplay measures the run loop's slot utilisation on 16 and 64 virtual game
// slots for each method and game, its games replayed from recorded wall times (scaled so a
// game lasts a few milliseconds): the share of slot time no game used is time a method
// kept slots waiting. %busy counts the games whose records the run used; %stopped the
// slot time of games whose batch was stopped (the GA's admission tests planned again, a
// next generation played ahead on a wrong guess), which a method spent without waiting. go test ./tuner -run '^$' -bench SlotReplay -benchtime 1x
// (EVOTUNE_REPLAY_SCALE=10 makes every game ten times longer: the games of a deeper search
// or a longer clock; EVOTUNE_REPLAY_LAG=N plays SPSA with --spsa-lag N,
// EVOTUNE_REPLAY_CMAES_LAG=N CMA-ES with --cmaes-lag N (and _LAMBDA, _PAIRS its λ and
// pairs), EVOTUNE_REPLAY_GA_LAG=N the GA with --ga-lag N, EVOTUNE_REPLAY_POP=N the GA with
// --pop N, EVOTUNE_REPLAY_CHAMPION=C the GA with --champion C, EVOTUNE_REPLAY_SURROGATE=on
// the GA with --surrogate on, an outside engine's default; EVOTUNE_REPLAY_SLOTS=8,16 the
// slot counts replayed, instead of 16 and 64). A run is 200 games a slot,
// or with EVOTUNE_REPLAY_BUDGET=game the game's documented budget (genomes.Entry.BudgetGames:
// gomoku 44 000, connect6 20 000, amazons 4 000), which sizes a GA generation as a user's
// run at that budget does (peersGames): 3½ minutes here for every method and game.
// EVOTUNE_REPLAY_NO_AHEAD=1 the GA and CMA-ES as before they played their next generation
// ahead (gaahead.go, search.Loop's lookAhead); with EVOTUNE_REPLAY_PLAYED=1,
// EVOTUNE_REPLAY_ORACLE=1 CMA-ES guessing from the games' real results, not their ways of
// ending (withOracle): the most guessing the next generation can fill.
// EVOTUNE_REPLAY_PLAYED=1 replays instead the games a real run of the same configuration
// played (playedRun: first played on this machine's processors, minutes for each method and
// game at its budget, then kept in the temporary directory), each with its own result and
// a duration of its own nodes at that run's speed (times EVOTUNE_REPLAY_SCALE): the
// lengths of the run's very games, an opening's games long or short together, where the
// recorded durations are drawn for each game independently.
func BenchmarkSlotReplay(b *testing.B) {
	k := replayScale()
	atBudget := os.Getenv("EVOTUNE_REPLAY_BUDGET") == "game"
	for _, g := range []struct {
		game  string
		scale float64
	}{{"gomoku", 1}, {"connect6", 0.5}, {"amazons", 0.02}} {
		durs := recordedDurations(b, g.game, g.scale*k)
		for _, m := range []string{config.MethodGA, config.MethodSPSA, config.MethodCMAES, config.MethodSteady} {
			for _, slots := range replaySlots(b) {
				b.Run(fmt.Sprintf("%s/%s/%d", g.game, m, slots), func(b *testing.B) {
					var u, stopped float64
					budget := 200 * slots
					if atBudget {
						e, err := genomes.Lookup(g.game)
						if err != nil {
							b.Fatal(err)
						}
						budget = e.BudgetGames
					}
					for range b.N {
						u, stopped, _ = replayRun(b, g.game, m, slots, budget, durs)
					}
					b.ReportMetric(100*u, "%busy")
					b.ReportMetric(100*stopped, "%stopped")
				})
			}
		}
	}
}

// replaySlots is EVOTUNE_REPLAY_SLOTS, the slot counts BenchmarkSlotReplay replays (16
// and 64 when unset).
func replaySlots(b *testing.B) []int {
	v := os.Getenv("EVOTUNE_REPLAY_SLOTS")
	if v == "" {
		return []int{16, 64}
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("EVOTUNE_REPLAY_SLOTS=%q: %q is not a number of slots", v, f)
		}
		out = append(out, n)
	}
	return out
}

// replayScale is EVOTUNE_REPLAY_SCALE, how many times longer a replayed game lasts than
// its record (1 when unset).
func replayScale() float64 {
	if v, err := strconv.ParseFloat(os.Getenv("EVOTUNE_REPLAY_SCALE"), 64); err == nil && v > 0 {
		return v
	}
	return 1
}

// BenchmarkOpeningDraw times a round's draw of 16 balanced tuning openings (each checked by
// a shallow search of the paper's weights), which the run loop makes ahead of the round:
// at 64 game slots a draw slower than a round's share of the slots keeps them waiting.
// go test ./tuner -run '^$' -bench OpeningDraw
func BenchmarkOpeningDraw(b *testing.B) {
	for _, g := range []struct {
		name  string
		board int
	}{{"gomoku", 15}, {"connect6", 19}, {"amazons", 8}} {
		b.Run(g.name, func(b *testing.B) {
			e, err := genomes.Lookup(g.name)
			if err != nil {
				b.Fatal(err)
			}
			for i := range b.N {
				if _, err := arena.RandomOpenings(e.Game, g.board, 16, randv2.New(randv2.NewPCG(uint64(i), 7)), arena.TuningHalf, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestGADrawsAhead: a GA run whose draws of openings are made ahead (the next generation's
// rounds, admission test and defence, each excluding the draws before it) stores the same
// generations (openings included), games and hall of fame as one whose every draw is made
// in its turn, with racing rounds and with peers.
func TestGADrawsAhead(t *testing.T) {
	for _, sel := range []string{config.SelectionPeers, config.SelectionRace} {
		cfg := config.DefaultConfig("gomoku")
		cfg.Population, cfg.Games, cfg.RaceRounds, cfg.AdmitGames, cfg.Generations, cfg.VerifyGames, cfg.Workers = 6, 2, 2, 8, 6, 0, 4
		cfg.AdmitZ, cfg.Selection = 0.01, sel // admit any winner ahead: the later tests have a defender
		cfg.Resolve()
		run := func(inTurn bool) *memStore {
			st := &memStore{}
			var opts []Option
			if inTurn {
				opts = append(opts, drawInTurn())
			}
			tu, err := New(cfg, st, nil, "test", opts...)
			if err != nil {
				t.Fatal(err)
			}
			r := newReplayRunner(4, []time.Duration{0})
			defer r.close()
			tu.SetRunner(r)
			if _, err := tu.Run(context.Background(), 0); err != nil {
				t.Fatal(err)
			}
			return st
		}
		ahead, inTurn := run(false), run(true)
		if len(ahead.gens) != 7 {
			t.Fatalf("%s: %d generations, want 7", sel, len(ahead.gens))
		}
		defended := 0
		for i, g := range ahead.gens {
			if a := g.Admission; a != nil && a.Opponent != "baseline" {
				defended++
			}
			if a, b := fmt.Sprint(g.HallOfFame), fmt.Sprint(inTurn.gens[i].HallOfFame); a != b {
				t.Fatalf("%s generation %d: hall of fame %s drawn ahead, %s in turn", sel, i, a, b)
			}
		}
		if defended == 0 {
			t.Fatalf("%s: no admission test had a defender: the defence's draw went untested", sel)
		}
		if a, b := fingerprint(ahead.gens), fingerprint(inTurn.gens); a != b {
			t.Fatalf("%s: draws ahead and in turn give different runs:\n%s\n----\n%s", sel, a, b)
		}
	}
}
