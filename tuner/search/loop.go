package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/record"
	"evotune/tuner/report"
	"evotune/tuner/schedule"
)

// The run loop: it drives a Method on the ask-and-tell interface of this package, playing
// the rounds the method asks on the arena of the run it is given (Host) and storing what it
// tells. The loop knows nothing of the run but Host: a run (package tuner's Tuner) and a
// test's fake are both one.

// Host is the run a Loop plays for: its arena (game setup, sides, openings, slots), its
// budget and clock, its summary and events, and the storage of its generations. The loop
// calls it from its own goroutine, except Config, Elapsed and Emit, which the workers'
// progress events call too.
type Host interface {
	// Sides gives a genome's side, a pair's depth and the game (package schedule).
	schedule.Sides
	// Config is the run's configuration now (a calibration may have set its game budget).
	Config() config.Config
	// Setup is the arena's game setup now: its Runner is the slots ShareSlots made while
	// the search runs.
	Setup() arena.GameSetup
	// Drawer draws the openings of draw k (fresh tuning openings, the same whatever was
	// drawn before), none of exclude: arena.Draws fills ahead with it.
	Drawer(k arena.DrawKey, exclude map[string]bool) (arena.Openings, error)
	// Tuning marks an opening (its moves) as one the run tuned on: the held-out checks
	// never play it.
	Tuning(opening []string)
	// Summary is the run's summary, which the loop keeps up to date: champion, games,
	// generations and time.
	Summary() *report.Summary
	// ChampionIsBaseline reports whether the summary's champion is the layout's defaults.
	ChampionIsBaseline() bool
	// SetGeneration sets the generation being filled, which the run's events and
	// checkpoints name.
	SetGeneration(gen int)
	// OverBudget reports whether the run's budget is spent, counting inPlay more distinct
	// games.
	OverBudget(inPlay int) bool
	// Proven reports whether the run proved its champion and wants no more games
	// (config.Config.StopWhenProven).
	Proven() bool
	// Elapsed is the run's time so far, resumed runs' included.
	Elapsed() time.Duration
	// Event fills e with the run's state (run, generation, budget, time); Emit sends a
	// filled event to the run's progress listener.
	Event(e record.Event) record.Event
	Emit(e record.Event)
	// Checkpoint plays the held-out check of the current champion and returns it and the
	// busy slot time its games took.
	Checkpoint() (*ladder.Verification, time.Duration, error)
	// CountGeneration counts a generation's games in the run's summary (its records).
	CountGeneration(rec record.GenerationRecord)
	// SaveBehind stores a generation's row while the next games play, then emits ev; the
	// error is a save before it that failed.
	SaveBehind(rec record.GenerationRecord, ev record.Event) error
	// ShareSlots makes the run's local workers slots the rounds in play share, and returns
	// their busy meter (nil where the run's games are played elsewhere: a cluster) and the
	// function that ends them.
	ShareSlots() (*arena.BusyMeter, func())
	// GameSlots is how many games the run plays at once (0: a runner that does not count
	// them); GuessSlots the same, else the run's workers.
	GameSlots() int
	GuessSlots() int
}

// LoopOptions are a Loop's switches, for tests: NoAhead plays no round ahead of its turn;
// InTurn draws every opening in its turn, none ahead (Round.DrawAhead);
// Oracle, where it returns true, is how a game in play will end, used in place of a guess.
type LoopOptions struct {
	NoAhead, InTurn bool
	Oracle          func(arena.GameTask) (engine.GameRecord, bool)
}

// NewLoop makes the run loop that plays method m, made with environment a, for run h.
func NewLoop(h Host, a *MethodEnv, m Method, opts LoopOptions) *Loop {
	a.OverBudget = h.OverBudget
	return &Loop{h: h, a: a, m: m, opts: opts}
}

// Method is the method the loop plays.
func (l *Loop) Method() Method { return l.m }

// Ahead counts the rounds the loop played ahead of their turn: adopted (the method asked
// the same games), stopped (it asked others, or the run ended) and still in play.
func (l *Loop) Ahead() (adopted, stopped, inPlay int) {
	return l.nextUsed, l.nextStopped, len(l.nexts)
}

// Loop is the run loop: it plays the rounds a Method asks on its Host's arena, tells the
// method their games and saves the generations the method completes. Made by NewLoop; one
// Loop a run.
type Loop struct {
	h    Host
	a    *MethodEnv
	m    Method
	opts LoopOptions

	// gen is the generation of the round told last; told holds what the told rounds of
	// each generation not yet stored gave (a method may tell rounds of several generations
	// before it stores the oldest: the GA's admission tests); drawn is each such
	// generation's openings of its Exclusive rounds, in the order asked. genStart is when
	// the generation stored last was stored (or the search began).
	gen      int
	told     map[int]*genTold
	drawn    map[int][][]string
	genStart time.Time

	// meter, when the run's games share this process's slots, measures their busy time;
	// genMark is its reading at genStart.
	meter   *arena.BusyMeter
	genMark time.Duration
	// genElsewhere is the runner's SlotMeter reading at genStart (games played elsewhere),
	// and carry gives each generation the slot time they took that fits in it.
	genElsewhere time.Duration
	carry        arena.SlotCarry

	// draws holds the draws of openings made for the next rounds while this one plays, as
	// many as the method may have rounds in play, made on at most half the processors (the
	// rest play games and run the loop); the nearest draws are started first (nil until
	// the first draw).
	draws *arena.Draws
	// nexts are the rounds played ahead (Guesser), likeliest first as they were launched,
	// and nextUsed and nextStopped count the rounds played ahead that were adopted and
	// stopped.
	nexts                 []*loopRound
	nextUsed, nextStopped int
	shownGen              atomic.Int64 // the generation the progress events name
	shownRun              atomic.Int64 // the run's saved games, for the progress events
	shownSlot             atomic.Uint64
	// unsaved counts the games of shown rounds ended, by generation, until the generation
	// is saved: with several rounds in play (generations in play, tests behind the
	// pairings) the games ended beside a round count in each event's ETA (GenGames).
	unsavedMu sync.Mutex
	unsaved   map[int]int
}

// pairOf is the number of player i's k-th opening pair of round lr in the numbering its
// games are scheduled and credited with: k, or for an Exclusive round the pair's number
// in its generation's openings.
func (lr *loopRound) pairOf(i, k int) int {
	if !lr.r.Exclusive {
		return k
	}
	if lr.per > 0 {
		return lr.first + i/lr.per*lr.r.Pairs + k
	}
	return lr.first + k
}

// pairScores is each of round lr's players' points (0 to 2) on each of its opening pairs
// ([player][pair]: Round.PairScores) from pairScore (schedule.Credit's).
func (lr *loopRound) pairScores(pairScore map[[2]int]float64) [][]float64 {
	out := make([][]float64, len(lr.r.Players))
	for i := range out {
		out[i] = make([]float64, lr.r.Pairs)
		for k := range lr.r.Pairs {
			out[i][k] = pairScore[[2]int{i, lr.pairOf(i, k)}]
		}
	}
	return out
}

// genTold is what the told rounds of a generation not yet stored gave: its openings, in
// the order their draws were told, its draws (1 + where their openings start in
// openings), its games, its distinct games, their busy slot time and its rounds' time in
// game batches.
type genTold struct {
	openings [][]string
	draws    map[arena.DrawKey]int
	games    []record.GameResult
	distinct int
	slot     time.Duration
	batches  time.Duration
}

// toldOf is generation gen's told rounds so far (made empty on first use).
func (l *Loop) toldOf(gen int) *genTold {
	if l.told == nil {
		l.told = map[int]*genTold{}
	}
	t := l.told[gen]
	if t == nil {
		t = &genTold{draws: map[arena.DrawKey]int{}}
		l.told[gen] = t
	}
	return t
}

// toldGames is the distinct games of the told rounds not yet stored, every generation's.
func (l *Loop) toldGames() int {
	n := 0
	for _, t := range l.told {
		n += t.distinct
	}
	return n
}

// loopRound is a round in play.
type loopRound struct {
	r        *Round
	openings arena.Openings
	key      arena.DrawKey // the draw of its openings (Exclusive: the first)
	// only, for a round played ahead without its held games (Round.Held), is the indices
	// of the games of b it plays (nil: all); its records and fin are those games'.
	only []int
	// An Exclusive round's opening pairs are numbered in its generation's openings: first
	// is its first pair's number, per its players in each pairing (Streams; else all).
	first, per int
	b          schedule.Batch
	done       chan struct{} // closed when recs, wall and err are set
	recs       []engine.GameRecord
	wall       time.Duration
	err        error
	// Where the runner tells games as they end (AheadStarter): the games finished so far
	// (nil elsewhere); stop ends a round played ahead, promote makes it an ordinary batch,
	// and shown is set while its games' progress events are shown (always, but for a round
	// played ahead until it is promoted).
	fin     *arena.Finished
	stop    context.CancelFunc
	promote func()
	shown   atomic.Bool
	// drawnAt is how many games were left to finish when the round's next round was last
	// guessed with its games in play drawn (0: never). While too many are left to weigh
	// their ways, such a guess changes with almost every game that ends, and one made
	// again stops the games the last one played ahead: it is made again only once half
	// as many are left (Loop.guesses).
	drawnAt int
}

// Restore takes up a stored run after its saved generation st.LastGeneration: the method
// rebuilds its state from st, and the run's summary gets its champion. The error is the
// method's: what of st does not fit the configuration.
func (l *Loop) Restore(st record.ResumeState) error {
	c, err := l.m.Restore(st)
	if err != nil {
		return err
	}
	l.setChampion(c)
	return nil
}

// setChampion makes leader c the summary's champion.
func (l *Loop) setChampion(c Leader) {
	s := l.h.Summary()
	s.Best, s.BestGenes, s.BestScore = c.ID, append([]float64(nil), c.Genes...), c.Score
	if h := c.Hall; h != nil {
		s.HallOfFame, s.Champion, s.CentreOf, s.Tests, s.Closest = h.HallOfFame, h.Champion, h.CentreOf, h.Tests, h.Closest
		s.BaselineChampion = l.h.ChampionIsBaseline()
	}
}

// Search asks, plays and tells rounds from generation `from` on until the method has none,
// a budget is reached, an error or ctx; a generation whose games are in play when ctx
// ends is not saved.
func (l *Loop) Search(ctx context.Context, from int) error {
	h := l.h
	method := h.Config().Method
	w := l.m.Window()
	if w < 1 {
		return fmt.Errorf("method %s: window %d, want at least 1", method, w)
	}
	meter, end := h.ShareSlots() // rounds in play share the local workers
	l.meter = meter
	d, ok := h.Setup().Runner.(arena.StopDropper)
	l.a.DropsStopped = ok && d.DropsStopped()
	l.a.SlotsOverCores = meter != nil && h.Config().Workers > runtime.NumCPU()
	defer func() { l.meter = nil; end() }()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the rounds in play when the search stops
	defer l.dropNext()
	h.SetGeneration(from)
	l.mark()
	l.shown(from)
	var inPlay []*loopRound
	games := 0 // distinct games of the rounds in play
	asking := true
	_, ownBudget := l.m.(Budgeter)
	mustPlay := func() bool { c, ok := l.m.(Committer); return ownBudget || ok && c.Committed() }
	var done *Told // a generation told complete, stored once the next rounds are asked
	for {
		for asking && len(inPlay) < w {
			// Told rounds of a generation not yet stored count as played.
			if h.OverBudget(games+l.toldGames()) && !mustPlay() {
				asking = false
				break
			}
			if ctx.Err() != nil {
				break // a generation told complete is still stored (below)
			}
			r, err := l.m.Ask()
			if errors.Is(err, ErrAskLater) {
				if len(inPlay) == 0 {
					return fmt.Errorf("method %s waits for a round to be told with none in play", method)
				}
				break
			}
			if err != nil {
				return err
			}
			if r == nil {
				asking = false
				break
			}
			lr, err := l.start(ctx, r)
			if err != nil {
				return err
			}
			inPlay = append(inPlay, lr)
			games += len(lr.b.Tasks)
		}
		if done != nil {
			if err := l.save(done); err != nil {
				return err
			}
			done = nil
			if err := l.backlog(); err != nil {
				return err
			}
			if h.Proven() {
				return nil // proven (Config.StopWhenProven): the rounds in play are not wanted
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(inPlay) == 0 {
			if f, ok := l.m.(Flusher); ok && l.toldGames() > 0 {
				out, err := f.Flush()
				if err != nil || out == nil {
					return err
				}
				return l.save(out)
			}
			return nil
		}
		lr := inPlay[0]
		// The round whose last games the next ask waits for, guessed from as they end: the
		// one in play, or the newest marked GuessNext (older rounds, told first, may be
		// in play before it: the GA's admission tests).
		gr := lr
		if len(inPlay) > 1 {
			gr = nil
			for _, r := range inPlay {
				if r.r.GuessNext {
					gr = r
				}
			}
		}
		var ticks chan struct{} // nil: none, never ready
		if gr != nil {
			ticks = gr.fin.Ticks()
		}
	wait:
		for {
			select {
			case <-lr.done:
				break wait
			case <-ctx.Done():
				return ctx.Err()
			case <-ticks:
				if asking {
					l.lookAhead(ctx, gr)
				}
			}
		}
		if lr.err != nil {
			return fmt.Errorf("%s: %w", lr.r.Label, lr.err)
		}
		inPlay = inPlay[1:]
		games -= len(lr.b.Tasks)
		var err error
		if done, err = l.tell(lr); err != nil {
			return err
		}
		if inPlay, err = l.drop(inPlay); err != nil {
			return err
		}
		games = 0
		for _, lr := range inPlay {
			games += len(lr.b.Tasks)
		}
	}
}

// drop stops the rounds in play the method Dropped and returns the others, in order; an
// Exclusive round's openings are taken off its generation's drawn ones (the error: a
// dropped round whose openings are not its generation's last drawn).
func (l *Loop) drop(inPlay []*loopRound) ([]*loopRound, error) {
	var keep []*loopRound
	for i := len(inPlay) - 1; i >= 0; i-- {
		lr := inPlay[i]
		if !lr.r.Dropped {
			keep = append(keep, lr)
			continue
		}
		lr.stop()
		if lr.r.Exclusive {
			drawn, n := l.drawn[lr.r.Gen], len(lr.openings)
			if len(drawn) < n || !reflect.DeepEqual(drawn[len(drawn)-n:], [][]string(lr.openings)) {
				return nil, fmt.Errorf("%s: dropped, its openings not its generation's last drawn", lr.r.Label)
			}
			l.drawn[lr.r.Gen] = drawn[:len(drawn)-n]
		}
	}
	slices.Reverse(keep)
	return keep, nil
}

// backlog stores the generations the last tell completed after the one stored
// (Backlogger), in order.
func (l *Loop) backlog() error {
	b, ok := l.m.(Backlogger)
	if !ok {
		return nil
	}
	for {
		gen, out, err := b.Backlog()
		if err != nil || out == nil {
			return err
		}
		l.gen = gen
		if err := l.save(out); err != nil {
			return err
		}
	}
}

// mark starts the generation's wall time, and its busy slot time where the meter measures
// it, now.
func (l *Loop) mark() {
	l.genStart, l.genMark = arena.MarkNow(l.meter)
	l.genElsewhere = arena.BusyElsewhere(l.h.Setup().Runner)
}

// endedBeside counts a game of generation gen ended and returns the unsaved games ended
// beside the n of its round so far.
func (l *Loop) endedBeside(gen, n int) int {
	l.unsavedMu.Lock()
	defer l.unsavedMu.Unlock()
	if l.unsaved == nil {
		l.unsaved = map[int]int{}
	}
	l.unsaved[gen]++
	all := 0
	for _, k := range l.unsaved {
		all += k
	}
	return max(0, all-n)
}

// savedBefore forgets the ended games of generations before gen, saved (endedBeside).
func (l *Loop) savedBefore(gen int) {
	l.unsavedMu.Lock()
	defer l.unsavedMu.Unlock()
	for g := range l.unsaved {
		if g < gen {
			delete(l.unsaved, g)
		}
	}
}

// shown publishes what the progress events of the rounds' games read from the workers:
// the generation being filled, the run's saved games and its slot utilisation.
func (l *Loop) shown(gen int) {
	l.savedBefore(gen)
	l.shownGen.Store(int64(gen))
	l.shownRun.Store(int64(l.h.Summary().Games))
	l.shownSlot.Store(math.Float64bits(l.h.Summary().SlotUtilisation()))
}

// draw draws round r's openings: fresh ones of the tuning half, draw r.Draw of the stream
// (the same whatever was drawn before), keeps it for the next rounds of the same draw, and
// starts draws r.Draw+1 to r.Draw+Window (SharedDraws: +DrawsInPlay) of the same size,
// which a method asking rounds of one size takes next: a draw as slow as a game
// (connect6's balanced openings are searched) keeps no slot waiting however many. It
// returns the openings and the draw's key; an Exclusive round's draw is drawAfter's.
func (l *Loop) draw(r *Round, stream uint64) (arena.Openings, arena.DrawKey, error) {
	h := l.h
	if l.draws == nil {
		l.draws = arena.NewDraws(h.Drawer, max(1, runtime.GOMAXPROCS(0)/2))
	}
	key := arena.DrawKey{Gen: r.Draw, Stream: stream, N: r.Pairs}
	os, err := l.draws.Take(key, nil)
	// Taken, or of a size no longer asked (another stream's are kept: the GA's tests and pairings).
	l.draws.Drop(func(k arena.DrawKey) bool { return k.Stream == stream && (k.Gen < r.Draw || k.N != r.Pairs) })
	if err != nil {
		return nil, key, err
	}
	l.draws.Keep(key, os) // kept for the next rounds of the same draw (the GA's pairs of a pairing)
	if len(os) < r.Pairs {
		return nil, key, fmt.Errorf("openings: only %d distinct tuning openings found of %d wanted", len(os), r.Pairs)
	}
	ahead := l.m.Window()
	if sd, ok := l.m.(SharedDraws); ok {
		ahead = sd.DrawsInPlay()
	}
	for d := 1; d <= max(1, ahead) && !l.opts.InTurn; d++ {
		l.draws.Start(arena.DrawKey{Gen: r.Draw + d, Stream: stream, N: r.Pairs}, nil)
	}
	return os, key, nil
}

// drawAfter draws Exclusive round r's openings: r.Pairs fresh ones of each of its streams
// (Streams, else stream), each draw after the openings drawn before it in its generation
// (key After: its Exclusive rounds asked before r, then r's earlier draws), none of them;
// the same whatever else was drawn before. A draw made ahead under the same key (the same
// exclusions) is taken. It returns r's openings and its first draw's key.
func (l *Loop) drawAfter(r *Round, stream uint64) (arena.Openings, arena.DrawKey, error) {
	if l.draws == nil {
		l.draws = arena.NewDraws(l.h.Drawer, max(1, runtime.GOMAXPROCS(0)/2))
	}
	streams := r.Streams
	if len(streams) == 0 {
		streams = []uint64{stream}
	}
	have := slices.Clone(l.drawn[r.Gen])
	first := arena.DrawKey{Gen: r.Gen, Stream: streams[0], N: r.Pairs, After: len(have)}
	var out arena.Openings
	for _, st := range streams {
		key := arena.DrawKey{Gen: r.Gen, Stream: st, N: r.Pairs, After: len(have)}
		exclude := make(map[string]bool, len(have))
		for _, o := range have {
			exclude[arena.Key(o)] = true
		}
		os, err := l.draws.Take(key, exclude)
		if err != nil {
			return nil, first, err
		}
		if len(os) < r.Pairs {
			return nil, first, fmt.Errorf("openings: only %d distinct tuning openings found of %d wanted", len(os), r.Pairs)
		}
		os = os[:r.Pairs]
		have = append(have, os...)
		out = append(out, os...)
	}
	return out, first, nil
}

// start draws round r's openings, schedules its games and plays them in the background;
// where the round played ahead is the same games, it is that round, promoted.
func (l *Loop) start(ctx context.Context, r *Round) (*loopRound, error) {
	lr, err := l.plan(r)
	if err != nil {
		return nil, err
	}
	l.drew(lr)
	l.drawAhead(r)
	var adopted, kept []*loopRound
	for _, a := range l.nexts {
		switch {
		case a.r.Gen > r.Gen:
			kept = append(kept, a) // a guess of a later generation's round: still one
		case len(adopted) == 0 && sameAhead(a, lr):
			adopted = append(adopted, a)
		default:
			a.stop()
			l.nextStopped++
		}
	}
	l.nexts = kept
	if len(adopted) > 0 {
		a := adopted[0]
		l.nextUsed++
		if a.only == nil {
			a.r = r // the method's round: its players are credited and told
			a.promote()
			a.shown.Store(true)
			return a, nil
		}
		return lr, l.join(ctx, lr, a)
	}
	if err := l.launch(ctx, lr, false); err != nil {
		return nil, err
	}
	return lr, nil
}

// rest is the indices of round lr's games that involve none of its Held genomes, in order
// (nil: it holds none).
func (lr *loopRound) rest() []int {
	if len(lr.r.Held) == 0 {
		return nil
	}
	held := make([]bool, len(lr.b.Tasks))
	for _, e := range lr.b.Refs {
		if e.Task >= 0 && (slices.Contains(lr.r.Held, lr.r.Players[e.Ind].ID) || slices.Contains(lr.r.Held, e.Opp)) {
			held[e.Task] = true
		}
	}
	out := []int{}
	for i, h := range held {
		if !h {
			out = append(out, i)
		}
	}
	return out
}

// played is the games round lr plays: its own, or those of only.
func (lr *loopRound) played() []arena.GameTask {
	if lr.only == nil {
		return lr.b.Tasks
	}
	out := make([]arena.GameTask, len(lr.only))
	for k, i := range lr.only {
		out[k] = lr.b.Tasks[i]
	}
	return out
}

// sameAhead reports whether round a, played ahead, plays the games round lr (asked, or
// guessed) would play but for its held ones, on the same openings: a game's record
// depends on its task alone, so they can be adopted.
func sameAhead(a, lr *loopRound) bool {
	if !reflect.DeepEqual(a.openings, lr.openings) {
		return false
	}
	want := &loopRound{r: lr.r, b: lr.b, only: lr.only}
	if want.only == nil {
		want.only = lr.rest()
	}
	return reflect.DeepEqual(a.played(), want.played())
}

// join makes round lr, asked, the games of round a, played ahead without lr's held games,
// and those held games, queued behind them: its records are theirs in lr's order, its
// wall time the longer, its error the first.
func (l *Loop) join(ctx context.Context, lr, a *loopRound) error {
	rest := lr.rest() // a's games, in lr's numbering
	inRest := make([]bool, len(lr.b.Tasks))
	for _, i := range rest {
		inRest[i] = true
	}
	var held []int
	for i, in := range inRest {
		if !in {
			held = append(held, i)
		}
	}
	a.promote()
	a.shown.Store(true)
	hr := &loopRound{r: lr.r, b: lr.b, only: held, done: make(chan struct{})}
	if len(held) > 0 {
		if err := l.launch(ctx, hr, false); err != nil {
			a.stop()
			return err
		}
	} else {
		close(hr.done)
		hr.stop = func() {}
	}
	if a.fin != nil {
		lr.fin = arena.NewFinished(len(lr.b.Tasks))
		a.fin.Forward(lr.fin, rest)
		if hr.fin != nil {
			hr.fin.Forward(lr.fin, held)
		}
	}
	lr.stop = func() { a.stop(); hr.stop() }
	lr.promote = func() {}
	lr.shown.Store(true)
	go func() {
		defer close(lr.done)
		recs := make([]engine.GameRecord, len(lr.b.Tasks))
		for n, part := range []*loopRound{a, hr} {
			<-part.done
			lr.wall = max(lr.wall, part.wall)
			if part.err != nil {
				if lr.err == nil {
					lr.err = part.err
					lr.stop()
				}
				continue
			}
			at := [][]int{rest, held}[n]
			if len(part.recs) != len(at) {
				lr.err = fmt.Errorf("%s: %d games back of %d", lr.r.Label, len(part.recs), len(at))
				continue
			}
			for k, i := range at {
				recs[i] = part.recs[k]
			}
		}
		if lr.err == nil {
			lr.recs = recs
		}
	}()
	return nil
}

// drawAhead starts round r's DrawAhead, asked, generation by generation: its own
// generation's after the openings it has drawn, a later one's from its first.
func (l *Loop) drawAhead(r *Round) {
	if l.opts.InTurn || len(r.DrawAhead) == 0 {
		return
	}
	l.draws.Drop(func(k arena.DrawKey) bool { return k.Gen < r.Gen-drawsKept })
	for i := 0; i < len(r.DrawAhead); {
		gen := r.DrawAhead[i].Gen
		j := i
		for j < len(r.DrawAhead) && r.DrawAhead[j].Gen == gen {
			j++
		}
		exclude := map[string]bool{}
		if gen == r.Gen {
			for _, o := range l.drawn[gen] {
				exclude[arena.Key(o)] = true
			}
		}
		l.draws.ChainAfter(r.DrawAhead[i:j], exclude)
		i = j
	}
}

// drawsKept is how many generations before a round's the draws made ahead are kept for
// (the GA's admission tests are asked up to three generations late).
const drawsKept = 4

// drew records that round lr, asked, drew its openings: its generation's next Exclusive
// round draws after them, and they are the run's tuning openings from now on (the
// held-out checks never play them), whether or not the round is played to its end (a
// round Dropped is asked again on the same openings, or not at all).
func (l *Loop) drew(lr *loopRound) {
	if !lr.r.Exclusive {
		return
	}
	if l.drawn == nil {
		l.drawn = map[int][][]string{}
	}
	l.drawn[lr.r.Gen] = append(l.drawn[lr.r.Gen], lr.openings...)
	for _, o := range lr.openings {
		l.h.Tuning(o)
	}
}

// plan draws round r's openings and schedules its games.
func (l *Loop) plan(r *Round) (*loopRound, error) {
	h := l.h
	stream := r.Stream
	if stream == 0 {
		stream = StreamOpenings
	}
	if r.Pairs < 1 || len(r.Players) == 0 || len(r.Opponents)+len(r.Outside) == 0 {
		return nil, fmt.Errorf("%s: %d players, %d opponents, %d pairs: nothing to play", r.Label, len(r.Players), len(r.Opponents)+len(r.Outside), r.Pairs)
	}
	if r.OneEach && len(r.Opponents) != len(r.Players) {
		return nil, fmt.Errorf("%s: %d players, %d opponents: one each needs as many of both", r.Label, len(r.Players), len(r.Opponents))
	}
	if n := len(r.Streams); n > 0 && (!r.Exclusive || !r.OneEach || len(r.Players)%n != 0) {
		return nil, fmt.Errorf("%s: %d players in %d pairings: pairings need an Exclusive round of one each, as many players in each", r.Label, len(r.Players), n)
	}
	var os arena.Openings
	var key arena.DrawKey
	var err error
	if r.Exclusive {
		os, key, err = l.drawAfter(r, stream)
	} else {
		os, key, err = l.draw(r, stream)
	}
	if err != nil {
		return nil, err
	}
	refs, err := l.refs(r)
	if err != nil {
		return nil, err
	}
	lr := &loopRound{r: r, openings: os, key: key, done: make(chan struct{})}
	// An Exclusive round's opening pairs are numbered in its generation's openings (each
	// pair's depth and reference are that pair's: config.Plan.DepthOf, Opponents[k mod
	// n]); a round of pairings (Streams) schedules pairing d's players on its own draw,
	// game round GameRound+d.
	all, first, per := [][]string(os), 0, len(r.Players)
	if r.Exclusive {
		all, first = append(slices.Clone(l.drawn[r.Gen]), os...), key.After
		if n := len(r.Streams); n > 0 {
			per = len(r.Players) / n
		}
		lr.first, lr.per = first, per
	}
	if !r.OneEach {
		inds := make([]int, len(r.Players))
		for i := range inds {
			inds[i] = i
		}
		return lr, schedule.On(&lr.b, h, r.Players, inds, refs, all, first, r.Pairs, r.GameRound)
	}
	for i := range r.Players { // player after player, each against its own opponent
		d := i / per
		if err := schedule.On(&lr.b, h, r.Players, []int{i}, refs[i:i+1], all, first+d*r.Pairs, r.Pairs, r.GameRound+d); err != nil {
			return nil, err
		}
	}
	return lr, nil
}

// refs is round r's opponents as references to schedule (their sides); the error names an
// opponent whose genes make none.
func (l *Loop) refs(r *Round) ([]schedule.Opponent, error) {
	refs := make([]schedule.Opponent, len(r.Opponents))
	for j, o := range r.Opponents {
		w, ext, err := l.h.Side(o.X)
		if err != nil {
			return nil, fmt.Errorf("%s: schedule.Opponent %s: %w", r.Label, o.ID, err)
		}
		refs[j] = schedule.Opponent{ID: o.ID, W: w, X: o.X, Ext: ext}
	}
	return append(refs, r.Outside...), nil
}

// launch plays round lr's games in the background (ahead: as a round played ahead, on the
// slots no other batch wants, with no progress events until it is promoted). Where the
// runner tells games as they end, lr keeps them as they do.
func (l *Loop) launch(ctx context.Context, lr *loopRound, ahead bool) error {
	h := l.h
	r := lr.r
	tasks := lr.played()
	total := len(tasks)
	var played atomic.Int64
	lr.shown.Store(!ahead)
	label := r.Label // a round adopted from ahead is the same round: its label too
	progress := func() {
		n := int(played.Add(1))
		if lr.shown.Load() {
			e := l.progress(record.Event{GamesDone: n, GamesTotal: total, Phase: label})
			e.GenGames = l.endedBeside(r.Gen, n)
			if r.Exclusive { // a generation's own round, other generations' in play beside it
				e.Generation = r.Gen
			}
			h.Emit(e)
		}
	}
	ctx, lr.stop = context.WithCancel(ctx)
	lr.promote = func() {}
	begin := time.Now()
	var wait func() ([]engine.GameRecord, error)
	var err error
	// Queued now, in the order asked: the oldest round in play is played first.
	if s, ok := h.Setup().Runner.(arena.AheadStarter); ok {
		lr.fin = arena.NewFinished(total)
		wait, lr.promote, err = s.StartEach(ctx, h.Setup(), tasks, func(i int, rec engine.GameRecord) {
			progress()
			lr.fin.Add(i, rec)
		}, ahead)
	} else {
		wait, err = arena.StartBatch(ctx, h.Setup(), tasks, h.Config().Workers, progress)
	}
	if err != nil {
		lr.stop()
		return fmt.Errorf("%s: %w", r.Label, err)
	}
	stop := lr.stop
	go func() {
		defer close(lr.done)
		defer stop() // the batch's context, once its games are back
		lr.recs, lr.err = wait()
		lr.wall = time.Since(begin)
	}()
	return nil
}

// dropNext stops the rounds played ahead, if any.
func (l *Loop) dropNext() {
	for _, a := range l.nexts {
		a.stop()
		l.nextStopped++
	}
	l.nexts = nil
}

// lookAhead, for a method that guesses (Guesser) and has lr alone in play, once lr has no
// more games left to finish than the run has slots: it asks the method which round it
// would ask next were lr's games in play to end as guessed, and plays those rounds ahead,
// keeping the rounds already ahead that are among them and stopping the rest. A
// BranchGuesser is asked for the rounds of its likeliest keys over the ways the games in
// play may end (branches.go), most likely first; any other Guesser for one round, the
// games in play taken as draws. The method's state is untouched, and the round it really
// asks next adopts a round ahead only when they are the same games (start), so nothing the
// run computes changes.
func (l *Loop) lookAhead(ctx context.Context, lr *loopRound) {
	g, ok := l.m.(Guesser)
	if !ok || lr.fin == nil || (l.m.Window() != 1 && !lr.r.GuessNext) || l.opts.NoAhead {
		return
	}
	guesses := l.guesses(lr, g)
	if guesses == nil {
		return
	}
	var keep []*loopRound
	kept := func(a *loopRound) bool { return slices.Contains(keep, a) }
	for _, r := range guesses {
		if i := slices.IndexFunc(l.nexts, func(a *loopRound) bool { return a.r == r }); i >= 0 {
			if !kept(l.nexts[i]) {
				keep = append(keep, l.nexts[i]) // the guess already played ahead
			}
			continue
		}
		next, err := l.plan(r)
		if err != nil {
			continue // the round, asked, meets it
		}
		if next.only = next.rest(); next.only != nil && len(next.only) == 0 {
			continue // every game held
		}
		if i := slices.IndexFunc(l.nexts, func(a *loopRound) bool { return sameAhead(a, next) }); i >= 0 {
			if !kept(l.nexts[i]) {
				keep = append(keep, l.nexts[i])
			}
			continue
		}
		if err := l.launch(ctx, next, true); err != nil {
			continue
		}
		keep = append(keep, next)
	}
	for _, a := range l.nexts {
		if !kept(a) {
			a.stop()
			l.nextStopped++
		}
	}
	l.nexts = keep
}

// guesses returns the rounds method g would ask next were lr's games in play to end as
// guessed, likeliest first (nil: no guess now, the rounds ahead left as they are).
func (l *Loop) guesses(lr *loopRound, g Guesser) []*Round {
	slots := l.h.GuessSlots()
	drawn := func() []*Round { // the one round of the games in play drawn
		recs, ok := lr.fin.Guess(slots)
		if !ok {
			return nil
		}
		if l.opts.Oracle != nil {
			for i, task := range lr.b.Tasks {
				if rec, ok := l.opts.Oracle(task); ok {
					recs[i] = rec
				}
			}
		}
		r, err := g.Guess(l.guessed(lr, recs))
		if err != nil || r == nil {
			return nil // the method meets it when it is told, if it is an error
		}
		return []*Round{r}
	}
	bg, ok := g.(BranchGuesser)
	if !ok || l.opts.Oracle != nil {
		return drawn()
	}
	ways := lr.fin.Scenarios(slots)
	if ways == nil {
		left := lr.fin.Left()
		if lr.drawnAt > 0 && 2*left > lr.drawnAt {
			return nil // the rounds ahead left as they are
		}
		lr.drawnAt = left
		return drawn() // more games left than their ways a guess weighs
	}
	type branch struct {
		p   float64
		way int // the first way of the key
	}
	var keys []string
	byKey := map[string]*branch{}
	credit := newWayCredit(lr, ways)
	for w := range ways.P {
		k := bg.GuessKey(credit.round(ways.With(w)))
		b := byKey[k]
		if b == nil {
			b = &branch{way: w}
			byKey[k] = b
			keys = append(keys, k)
		}
		b.p += ways.P[w]
	}
	slices.SortStableFunc(keys, func(a, b string) int { return cmp.Compare(byKey[b].p, byKey[a].p) })
	// The games left drawn first, the guess made while more were left (drawn): it is
	// right as often as its games ahead, played longest, are worth keeping.
	drawnWay := len(ways.P) - 1
	drawnKey := bg.GuessKey(credit.round(ways.With(drawnWay)))
	keys = append([]string{drawnKey}, slices.DeleteFunc(keys, func(k string) bool { return k == drawnKey })...)
	var out []*Round
	for n, k := range keys {
		if len(out) == maxBranches || (n > 0 && byKey[k].p < minBranchP) {
			break
		}
		r, err := g.Guess(l.guessed(lr, ways.With(byKey[k].way)))
		if err != nil {
			return nil
		}
		if r != nil {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil // the method guesses no more of this round
	}
	return out
}

// guessed is round lr as the loop would tell it were its games to end as recs: its
// players cloned, their Stats and PairScores credited with recs.
func (l *Loop) guessed(lr *loopRound, recs []engine.GameRecord) *Round {
	guess := *lr.r
	guess.Players = make([]*genomes.Genome, len(lr.r.Players))
	for i, p := range lr.r.Players {
		guess.Players[i] = p.Clone().(*genomes.Genome)
	}
	_, pairScore := schedule.Credit(&lr.b, recs, guess.Players, 0, nil)
	guess.PairScores = lr.pairScores(pairScore)
	return &guess
}

// progress fills a round's game event as Host.Event does, from what the workers may
// read while the loop goes on.
func (l *Loop) progress(e record.Event) record.Event {
	h := l.h
	c := h.Config()
	e.RunID, e.Generation, e.Generations = l.a.RunID, int(l.shownGen.Load()), c.Generations
	e.Method, e.Selection, e.RunGames, e.BudgetGames = c.Method, c.Selection, int(l.shownRun.Load()), c.BudgetGames
	e.Elapsed, e.Budget = h.Elapsed(), c.Budget()
	e.SlotUtilisation = math.Float64frombits(l.shownSlot.Load())
	return e
}

// tell credits a played round's games to its players and tells the method; it returns the
// generation the round completes, if it does.
func (l *Loop) tell(lr *loopRound) (*Told, error) {
	h := l.h
	r := lr.r
	l.gen = r.Gen
	t := l.toldOf(r.Gen)
	base := len(t.openings)
	if r.Exclusive { // its pairs are numbered in its generation's openings, all told before it
		if base != lr.first {
			return nil, fmt.Errorf("%s: told after %d of its generation's openings, drawn after %d", r.Label, base, lr.first)
		}
		base = 0
		for _, o := range lr.openings {
			t.openings = append(t.openings, o)
			h.Tuning(o)
		}
	} else if d := lr.key; t.draws[d] > 0 {
		base = t.draws[d] - 1 // a draw the generation holds already (the GA's pairs of a pairing): stored once
	} else {
		t.draws[d] = base + 1
		for _, o := range lr.openings {
			t.openings = append(t.openings, o)
			h.Tuning(o)
		}
	}
	var pairScore map[[2]int]float64
	from := len(t.games)
	t.games, pairScore = schedule.Credit(&lr.b, lr.recs, r.Players, base, t.games)
	r.PairScores, r.Games, r.Distinct = lr.pairScores(pairScore), t.games[from:len(t.games):len(t.games)], len(lr.b.Tasks)
	t.distinct += len(lr.b.Tasks)
	t.batches += lr.wall
	for _, rec := range lr.recs {
		t.slot += rec.SlotTime()
	}
	return l.m.Tell(r)
}

// save stores generation l.gen, which out completes: its checkpoint when one is due, then
// the row, written behind the next rounds' games.
func (l *Loop) save(out *Told) error {
	h := l.h
	var state []byte
	var err error
	if out.State != nil {
		if state, err = EncodeState(out.State()); err != nil {
			return err
		}
	}
	gen := l.gen
	t := l.toldOf(gen)
	delete(l.told, gen)
	delete(l.drawn, gen)
	h.SetGeneration(gen)
	l.setChampion(out.Champion)
	rec := out.Record
	var checked time.Duration // the checkpoint's slot time
	if every := h.Config().VerifyEvery; every > 0 && gen%every == 0 {
		if rec.Checkpoint, checked, err = h.Checkpoint(); err != nil {
			return err
		}
	}
	rec.RunID, rec.Generation, rec.MethodState = l.a.RunID, gen, state
	start, mark, elsewhere := l.genStart, l.genMark, l.genElsewhere
	l.mark()
	rec.Duration, rec.Elapsed, rec.Slots = l.genStart.Sub(start), h.Elapsed(), h.GameSlots()
	// Rounds in play overlap: their batches' wall times add up to more than the generation's,
	// and a round's games may start in the generation before (the next rounds are asked
	// before a generation is saved). So the slot time is what the slots played within the
	// generation's wall time, whichever round's games; played elsewhere, the games' slot
	// time told during it (SlotMeter; else the told games' own), what does not fit carried
	// on (elsewhereSlotTime).
	rec.Games, rec.GamesTime = t.distinct, min(t.batches, rec.Duration)
	if l.meter != nil {
		rec.SlotTime = max(0, l.genMark-mark) // less a stopped batch's games, known late (BusyMeter.Read)
	} else {
		rec.SlotTime = l.carry.Take(arena.PlayedElsewhere(h.Setup().Runner, elsewhere, t.slot+checked), rec.Duration, rec.Slots)
	}
	rec.Openings, rec.GameResults = t.openings, t.games
	h.Summary().Generations = gen + 1
	h.Summary().Games += t.distinct
	h.CountGeneration(rec)
	h.Summary().GamesTime += rec.GamesTime
	ev := h.Event(record.Event{GenDone: true, GamesDone: t.distinct, GamesTotal: t.distinct, BestScore: out.BestScore, MeanScore: out.MeanScore,
		Best: out.BestPlayer, Champion: rec.Champion, CentreOf: out.CentreOf, ChampionElo: out.ChampionElo})
	h.SetGeneration(gen + 1)
	l.shown(gen + 1)
	return h.SaveBehind(rec, ev)
}
