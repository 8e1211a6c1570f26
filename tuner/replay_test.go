package tuner

import (
	"bufio"
	"context"
	"fmt"
	"hash/fnv"
	randv2 "math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"evotune/engine"
	"evotune/genomes"
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
	durs  []time.Duration
	mu    sync.Mutex
	wake  *sync.Cond
	queue []replayGame
	busy  time.Duration
	quit  bool
	// stopped is the part of busy that games of stopped batches took (their records never
	// used: the GA's admission tests planned again).
	stopped time.Duration
	// batches counts PlayBatch calls: the run loop's barriers; inPlay is the batches in
	// play now, mostInPlay the most at once.
	batches, inPlay, mostInPlay int
}

type replayGame struct {
	task GameTask
	ctx  context.Context
	out  *engine.GameRecord
	wg   *sync.WaitGroup
	done func()
}

func newReplayRunner(slots int, durs []time.Duration) *replayRunner {
	r := &replayRunner{durs: durs}
	r.wake = sync.NewCond(&r.mu)
	for range slots {
		go r.slot()
	}
	return r
}

func (r *replayRunner) slot() {
	for {
		r.mu.Lock()
		for len(r.queue) == 0 && !r.quit {
			r.wake.Wait()
		}
		if r.quit {
			r.mu.Unlock()
			return
		}
		g := r.queue[0]
		r.queue = r.queue[1:]
		r.mu.Unlock()
		begin := time.Now()
		h := fnv.New64a()
		fmt.Fprint(h, g.task.Black, g.task.White, g.task.Opening, g.task.BlackExt, g.task.WhiteExt, g.task.Depth)
		x := h.Sum64()
		d := r.durs[x%uint64(len(r.durs))]
		time.Sleep(d)
		*g.out = engine.GameRecord{Outcome: []engine.Outcome{engine.BlackWins, engine.WhiteWins, engine.Draw}[(x>>32)%3], Plies: 40, Duration: d}
		r.mu.Lock()
		r.busy += time.Since(begin) // the slot is the game's however long the sleep took
		if g.ctx.Err() != nil {
			r.stopped += time.Since(begin) // a game of a batch stopped while it played
		}
		r.mu.Unlock()
		if g.done != nil {
			g.done()
		}
		g.wg.Done()
	}
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
func (r *replayRunner) PlayBatch(ctx context.Context, setup GameSetup, tasks []GameTask, done func()) ([]engine.GameRecord, error) {
	wait, _ := r.StartBatch(ctx, setup, tasks, done)
	return wait()
}

// StartBatch queues the batch's games behind those queued before it, as the local pool's
// slots do (BatchStarter); the wait waits for them.
func (r *replayRunner) StartBatch(ctx context.Context, _ GameSetup, tasks []GameTask, done func()) (func() ([]engine.GameRecord, error), error) {
	recs := make([]engine.GameRecord, len(tasks))
	var wg sync.WaitGroup
	wg.Add(len(tasks))
	r.mu.Lock()
	r.batches++
	r.inPlay++
	r.mostInPlay = max(r.mostInPlay, r.inPlay)
	for i, t := range tasks {
		r.queue = append(r.queue, replayGame{task: t, ctx: ctx, out: &recs[i], wg: &wg, done: done})
	}
	r.wake.Broadcast()
	r.mu.Unlock()
	over := make(chan struct{})
	go func() { wg.Wait(); close(over) }()
	return func() ([]engine.GameRecord, error) {
		select {
		case <-over:
		case <-ctx.Done(): // the batch's games not yet begun are dropped
			r.mu.Lock()
			kept := r.queue[:0]
			for _, g := range r.queue {
				if g.wg == &wg {
					g.wg.Done()
					continue
				}
				kept = append(kept, g)
			}
			r.queue = kept
			r.mu.Unlock()
		}
		r.mu.Lock()
		r.inPlay--
		r.mu.Unlock()
		return recs, ctx.Err()
	}, nil
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
	cfg := DefaultConfig(game)
	cfg.Method, cfg.Workers, cfg.BudgetGames, cfg.Generations, cfg.VerifyGames = method, slots, budget, 0, 0
	if game == "amazons" {
		cfg.Board = 8
	}
	cfg.NewRunDefaults(false)
	if v, err := strconv.Atoi(os.Getenv("EVOTUNE_REPLAY_LAG")); err == nil && method == MethodSPSA {
		cfg.SPSA.Lag = v // BenchmarkSlotReplay with another lag
	}
	if method == MethodCMAES {
		var c CMAESConfig // zero fields: DefaultCMAES's
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
	if v, err := strconv.Atoi(os.Getenv("EVOTUNE_REPLAY_GA_LAG")); err == nil && method == MethodGA {
		cfg.GALag = v // the GA with generations in play (--ga-lag N; its champion is the population's)
	}
	if v, err := strconv.Atoi(os.Getenv("EVOTUNE_REPLAY_POP")); err == nil && method == MethodGA {
		cfg.Population = v // a GA of v individuals (--pop v)
	}
	if v := os.Getenv("EVOTUNE_REPLAY_CHAMPION"); v != "" && method == MethodGA {
		cfg.Champion = v // e.g. centre: a lagged GA with a hall of fame, its tests rounds of the loop
	}
	cfg.Resolve()
	st := &memStore{}
	tu, err := New(cfg, st, nil, "test")
	if err != nil {
		tb.Fatal(err)
	}
	r := newReplayRunner(slots, durs)
	defer r.close()
	tu.SetRunner(r)
	start := time.Now()
	if _, err := tu.Run(context.Background(), 0); err != nil {
		tb.Fatal(err)
	}
	wall := time.Since(start)
	r.mu.Lock()
	defer r.mu.Unlock()
	all := wall.Seconds() * float64(slots)
	return (r.busy - r.stopped).Seconds() / all, r.stopped.Seconds() / all, fingerprint(st.gens)
}

// TestReplayRunnerSameRunWhateverSlots: the replay is a faithful stand-in for the games
// of a seeded run: every method's run is the same on 2 and 16 virtual slots, and every
// slot-second it reports lies within the run.
func TestReplayRunnerSameRunWhateverSlots(t *testing.T) {
	durs := recordedDurations(t, "gomoku", 0.2)
	for _, m := range []string{MethodGA, MethodSPSA, MethodCMAES, MethodSteady} {
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

// TestGAGenerationBatches: a GA generation (peers, the default) waits for its games once:
// every pairing of all its rounds is one batch (no round depends on another's results),
// and the admission tests (the candidate's games, and the defender's: its test on the same
// openings and its own games) play behind the next generations' pairings (queued after
// them), in play with them and with each other: a test is planned against the hall of
// fame as it stands, and planned again when a test in play before it admits its
// candidate. Unlagged, each test was a batch of its own, played alone; the run is the
// same, hall of fame included.
func TestGAGenerationBatches(t *testing.T) {
	cfg := DefaultConfig("gomoku")
	cfg.Population, cfg.Games, cfg.RaceRounds, cfg.AdmitGames, cfg.Generations, cfg.VerifyGames, cfg.Workers = 6, 2, 2, 8, 6, 0, 4
	cfg.AdmitZ = 0.01 // admit any winner ahead: the later tests have a defender
	cfg.Resolve()
	var mu sync.Mutex
	var firsts []string // the phase of each batch, in the order their first games ended
	run := func(unlagged, queuedPlay bool) (st *memStore, batches, most, replans int) {
		st = &memStore{}
		mu.Lock()
		firsts = nil
		mu.Unlock()
		tu, err := New(cfg, st, func(e Event) {
			if e.GamesDone == 1 {
				mu.Lock()
				firsts = append(firsts, e.Phase)
				mu.Unlock()
			}
		}, "test")
		if err != nil {
			t.Fatal(err)
		}
		ga := tu.method.(*gaMethod)
		ga.unlagged = unlagged
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
		return st, r.batches, r.mostInPlay, ga.replans
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
	if len(st.gens) != 7 || defended == 0 || batches < len(st.gens)+tests || most < 3 || replans == 0 {
		t.Fatalf("%d generations, %d admission tests (%d with a defender): %d batches, at most %d in play at once, %d tests planned again; want a batch per generation and one or two per test, several in play together, some planned again",
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
	if unBatches != len(un.gens)+tests || unMost != 1 {
		t.Fatalf("unlagged: %d batches, at most %d in play at once; want %d generations + %d tests, one at a time", unBatches, unMost, len(un.gens), tests)
	}
	if got, want := fingerprint(st.gens), fingerprint(un.gens); got != want {
		t.Fatalf("lagged and unlagged admission tests give different runs:\n%s\n----\n%s", got, want)
	}
	for i := range st.gens {
		if a, b := fmt.Sprint(st.gens[i].HallOfFame), fmt.Sprint(un.gens[i].HallOfFame); a != b {
			t.Fatalf("generation %d: hall of fame %s lagged, %s unlagged", i, a, b)
		}
	}
	// On a runner whose stopped batches' queued games would still be played (a cluster),
	// no test is planned ahead, so none is planned again; the run is the same.
	cl, _, _, clReplans := run(false, true)
	if clReplans != 0 {
		t.Fatalf("a runner that plays stopped batches' games: %d tests planned again, want 0", clReplans)
	}
	if got, want := fingerprint(cl.gens), fingerprint(un.gens); got != want {
		t.Fatalf("tests planned in turn (a cluster) and unlagged give different runs:\n%s\n----\n%s", got, want)
	}
}

// clusterLike is a replayRunner seen as a runner that cannot drop a stopped batch's
// queued games (a cluster's broker queue): it is no StopDropper.
type clusterLike struct{ r *replayRunner }

func (c clusterLike) PlayBatch(ctx context.Context, setup GameSetup, tasks []GameTask, done func()) ([]engine.GameRecord, error) {
	return c.r.PlayBatch(ctx, setup, tasks, done)
}

func (c clusterLike) StartBatch(ctx context.Context, setup GameSetup, tasks []GameTask, done func()) (func() ([]engine.GameRecord, error), error) {
	return c.r.StartBatch(ctx, setup, tasks, done)
}

// BenchmarkSlotReplay measures the run loop's slot utilisation on 16 and 64 virtual game
// slots for each method and game, its games replayed from recorded wall times (scaled so a
// game lasts a few milliseconds): the share of slot time no game used is time a method
// kept slots waiting. %busy counts the games whose records the run used; %stopped the
// slot time of games stopped half-played (the GA's admission tests planned again), which
// a method spent without waiting. go test ./tuner -run '^$' -bench SlotReplay -benchtime 1x
// (EVOTUNE_REPLAY_SCALE=10 makes every game ten times longer: the games of a deeper search
// or a longer clock; EVOTUNE_REPLAY_LAG=N plays SPSA with --spsa-lag N,
// EVOTUNE_REPLAY_CMAES_LAG=N CMA-ES with --cmaes-lag N (and _LAMBDA, _PAIRS its λ and
// pairs), EVOTUNE_REPLAY_GA_LAG=N the GA with --ga-lag N, EVOTUNE_REPLAY_POP=N the GA with
// --pop N, EVOTUNE_REPLAY_CHAMPION=C the GA with --champion C). A run is 200 games a slot,
// or with EVOTUNE_REPLAY_BUDGET=game the game's documented budget (genomes.Entry.BudgetGames:
// gomoku 44 000, connect6 20 000, amazons 4 000), which sizes a GA generation as a user's
// run at that budget does (peersGames): 3½ minutes here for every method and game.
func BenchmarkSlotReplay(b *testing.B) {
	k := 1.0
	if v, err := strconv.ParseFloat(os.Getenv("EVOTUNE_REPLAY_SCALE"), 64); err == nil && v > 0 {
		k = v
	}
	atBudget := os.Getenv("EVOTUNE_REPLAY_BUDGET") == "game"
	for _, g := range []struct {
		game  string
		scale float64
	}{{"gomoku", 1}, {"connect6", 0.5}, {"amazons", 0.02}} {
		durs := recordedDurations(b, g.game, g.scale*k)
		for _, m := range []string{MethodGA, MethodSPSA, MethodCMAES, MethodSteady} {
			for _, slots := range []int{16, 64} {
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
				if _, err := RandomOpenings(e.Game, g.board, 16, randv2.New(randv2.NewPCG(uint64(i), 7)), TuningHalf, nil); err != nil {
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
	for _, sel := range []string{SelectionPeers, SelectionRace} {
		cfg := DefaultConfig("gomoku")
		cfg.Population, cfg.Games, cfg.RaceRounds, cfg.AdmitGames, cfg.Generations, cfg.VerifyGames, cfg.Workers = 6, 2, 2, 8, 6, 0, 4
		cfg.AdmitZ, cfg.Selection = 0.01, sel // admit any winner ahead: the later tests have a defender
		cfg.Resolve()
		run := func(inTurn bool) *memStore {
			st := &memStore{}
			tu, err := New(cfg, st, nil, "test")
			if err != nil {
				t.Fatal(err)
			}
			tu.draws.inTurn = inTurn
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
