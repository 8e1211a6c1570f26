package arena

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/engine/swap"
)

// GameTask is one game to play: Black's and White's weights (or external engines) from an
// opening.
type GameTask struct {
	Black, White engine.Weights
	// BlackExt and WhiteExt, when set, replace the weights by an external program.
	BlackExt, WhiteExt *protocol.ExternalSpec
	Opening            []string
	// Depth, if > 0, replaces the setup's search depth for both players (mixed-depth
	// tuning, Config.Depths).
	Depth int
	// Name names the game in engine log files (GameSetup.EngineLogDir), e.g. "pair0003-game1".
	Name string
}

// GameSetup is what every game of a batch shares.
type GameSetup struct {
	Game     engine.Game
	Board    int
	Limits   engine.Limits
	MaxPlies int
	// Forfeit scores a player's failure as a loss (set when external engines play).
	Forfeit bool
	// OpeningRule, if set (swap.Swap2 or swap.Swap3, Gomoku), opens every game with
	// a swap opening laid by the players instead of the task's opening: the task's Black is
	// the first player, and the record's Swapped says whether it ended as White. A player
	// that fails in the opening loses by forfeit.
	OpeningRule string
	// EngineLogDir, if set, keeps each external engine's full transcript of each game in
	// DIR/NAME-COLOUR.log (NAME from the task, COLOUR the engine's colour in the task); each
	// game then starts its engines anew.
	EngineLogDir string
	// Restart starts each external engine anew for every game (fastchess's and
	// cutechess-cli's restart=on) instead of keeping its process from game to game.
	Restart bool
	// Runner, if set, plays the batches instead of the in-process worker pool (cluster
	// mode, package tuner/cluster). It must return the same records, in task order.
	Runner BatchRunner
	// TimeControl, if set, is every game's chess clock (engine.RefereeOptions.TimeControl).
	TimeControl *engine.TimeControl
	// Adjudicate ends games early from the players' scores (engine.Adjudication).
	Adjudicate engine.Adjudication
	// MoveStats keeps each move's score, depth, nodes and time in the records (PGN).
	MoveStats bool
}

// BatchRunner plays a batch somewhere else than this process's worker pool: the records in
// task order, done called once per finished game.
type BatchRunner interface {
	PlayBatch(ctx context.Context, setup GameSetup, tasks []GameTask, done func()) ([]engine.GameRecord, error)
}

// BatchStarter is a BatchRunner that queues a batch before its caller waits for it:
// StartBatch queues the tasks behind the batches queued before it (on the cluster:
// publishes them, one task after another) and returns the wait for their records, which
// returns what PlayBatch would. The tuner queues each batch it keeps in play this way, in
// the order it makes them, whatever order the goroutines that wait for them run in: the
// oldest batch is played first, and a batch's games lie together in the queue (a cluster
// worker then keeps its engine processes for the next game, of the same players).
type BatchStarter interface {
	StartBatch(ctx context.Context, setup GameSetup, tasks []GameTask, done func()) (wait func() ([]engine.GameRecord, error), err error)
}

// StartBatch queues tasks now on setup's runner when it is a BatchStarter and returns the
// wait for their records; otherwise the wait plays the batch (PlayBatch) when called.
func StartBatch(ctx context.Context, setup GameSetup, tasks []GameTask, workers int, done func()) (func() ([]engine.GameRecord, error), error) {
	if s, ok := setup.Runner.(BatchStarter); ok {
		return s.StartBatch(ctx, setup, tasks, done)
	}
	return func() ([]engine.GameRecord, error) { return PlayBatch(ctx, setup, tasks, workers, done) }, nil
}

// AheadStarter is a BatchStarter that also tells each finished game as it ends and keeps
// batches played ahead: an ahead batch's games are handed out only to slots that no other
// batch has a game for, until promote makes it an ordinary batch, queued behind those
// queued before the promotion; an ahead batch stopped (its context ends) plays no more
// games than those already in play. The run loop's guessers (its lookAhead: the GA and
// CMA-ES) play their next generation ahead this way, on slots that would otherwise wait
// for a generation's slowest games. The local pool's slots (Slots)
// and a cluster's client (package cluster: its workers' slots) are AheadStarters.
type AheadStarter interface {
	// StartEach queues tasks (ahead: as an ahead batch) and returns the wait for their
	// records and the batch's promotion (a no-op for an ordinary batch); each, when not
	// nil, is told every finished game's task index and record as the game ends (from the
	// slots' goroutines, possibly at once), before the wait can return.
	StartEach(ctx context.Context, setup GameSetup, tasks []GameTask, each func(i int, rec engine.GameRecord), ahead bool) (wait func() ([]engine.GameRecord, error), promote func(), err error)
}

// StopDropper is a BatchStarter whose batches, once their context ends, drop the games
// not yet begun and stop those in play (the local pool's slots do): a batch stopped
// costs at most its games in play. The GA plans its admission tests ahead, to be planned
// again and their stale games stopped, only on such a runner; a cluster's queued tasks
// would still be played.
type StopDropper interface {
	DropsStopped() bool
}

// SlotCounter is a BatchRunner that knows how many games its players play at once (a
// cluster's workers of this build, from their heartbeats): the tuner measures a run's slot
// utilisation against it, as against its workers when it plays the games itself. 0: not
// known now.
type SlotCounter interface {
	GameSlots() int
}

// SlotMeter is a BatchRunner whose games are played elsewhere (a cluster's workers) that
// measures their slots' busy time as results come back: BusySlotTime is the slot time of
// every game told so far (its record's Slot, engine starts included), less that of the
// games of batches stopped since (their records never used), so it may fall. The tuner
// counts a generation the busy time told during its wall time (at most its slots times
// that, the rest carried on: elsewhereSlotTime), as the local meter counts what the slots
// played within it, whichever round's games: a round played in one generation and told in
// the next counts where it was played, not where the method took it.
type SlotMeter interface {
	BusySlotTime() time.Duration
}

// RunNamer is a BatchRunner that tells whoever plays its games which run they are for
// (the cluster's workers show it while they play); the tuner calls NameRun with
// "run ID (game)" once the run exists, before its first batch.
type RunNamer interface {
	NameRun(run string)
}

// LocalWorker plays games one after another in this process, as one goroutine of the
// worker pool does: it keeps its two seats' players (reset between games, exactly as fresh:
// engine.Resetter) and their external engine processes (reused while the spec stays the
// same) from game to game, and starts afresh when a game of another setup (game, rule,
// board) comes. A record never depends on what the worker played before. Not safe for
// concurrent use; the zero value is ready; Close ends its engine processes.
type LocalWorker struct {
	players [2]slot
	key     string // the setup the players were made for
}

// Play plays one task of setup (whose Runner is ignored) and returns its record; an error
// is an illegal move of a built-in player, bad weights or a cancelled ctx.
func (w *LocalWorker) Play(ctx context.Context, setup GameSetup, t GameTask) (engine.GameRecord, error) {
	if key := fmt.Sprintf("%s\x00%s\x00%d", setup.Game.Name(), engine.RuleOf(setup.Game), setup.Board); key != w.key {
		w.Close()
		w.players, w.key = [2]slot{}, key
	}
	setup.Runner = nil
	return playOne(ctx, setup, t, &w.players)
}

// Close ends the worker's external engine processes; the worker stays usable.
func (w *LocalWorker) Close() { closeSlots(&w.players) }

// idle holds the worker pool's LocalWorkers between batches, so that their engine processes
// outlive a batch as a tournament manager keeps its engines for the whole tournament (a
// match or a run is many batches: its SPRT, checkpoints, racing rounds, SPSA steps).
// PlayBatch takes its workers from it and gives them back; CloseIdleWorkers ends them.
var idle struct {
	sync.Mutex
	ws []*LocalWorker
}

// takeWorker returns an idle worker, or a new one.
func takeWorker() *LocalWorker {
	idle.Lock()
	defer idle.Unlock()
	if n := len(idle.ws); n > 0 {
		w := idle.ws[n-1]
		idle.ws = idle.ws[:n-1]
		return w
	}
	return &LocalWorker{}
}

// putWorker keeps w for the next batch.
func putWorker(w *LocalWorker) {
	idle.Lock()
	idle.ws = append(idle.ws, w)
	idle.Unlock()
}

// CloseIdleWorkers ends the engine processes the worker pool keeps between batches
// (external engines of a match or run). Call it when the games are over; the pool stays
// usable (its next batch starts new processes).
func CloseIdleWorkers() {
	idle.Lock()
	ws := idle.ws
	idle.ws = nil
	idle.Unlock()
	for _, w := range ws {
		w.Close()
	}
}

// PlayLocal plays one task in this process with fresh players; it is PlayBatch of one
// task without a Runner.
func PlayLocal(ctx context.Context, setup GameSetup, t GameTask) (engine.GameRecord, error) {
	var w LocalWorker
	defer w.Close()
	return w.Play(ctx, setup, t)
}

// PlayBatch plays every task on `workers` goroutines and returns the records in task
// order. Each game starts with players in a fresh state (new, or reset: fresh
// transposition tables), so a record never depends on which worker played it or what it
// played before. External engine processes are kept from batch to batch (see
// CloseIdleWorkers). done is called after each
// game (from worker goroutines). The first error (an illegal move, a cancelled context)
// stops the batch and is returned.
func PlayBatch(parent context.Context, setup GameSetup, tasks []GameTask, workers int, done func()) ([]engine.GameRecord, error) {
	if setup.Runner != nil {
		return setup.Runner.PlayBatch(parent, setup, tasks, done)
	}
	var each func(int, engine.GameRecord)
	if done != nil {
		each = func(int, engine.GameRecord) { done() }
	}
	return PlayBatchEach(parent, setup, tasks, workers, each)
}

// PlayBatchEach is PlayBatch telling each finished game's task index and record to each
// (called one game at a time, as the games end; with a Runner, once its batch is back, in
// task order): what a match stores and reports while it plays.
func PlayBatchEach(parent context.Context, setup GameSetup, tasks []GameTask, workers int, each func(i int, rec engine.GameRecord)) ([]engine.GameRecord, error) {
	if setup.Runner != nil {
		recs, err := setup.Runner.PlayBatch(parent, setup, tasks, nil)
		if err == nil && each != nil {
			for i, r := range recs {
				each(i, r)
			}
		}
		return recs, err
	}
	var eachMu sync.Mutex
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	recs := make([]engine.GameRecord, len(tasks))
	var next atomic.Int64
	var firstErr error
	var mu sync.Mutex
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	var wg sync.WaitGroup
	for w := 0; w < max(1, workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lw := takeWorker() // its players and engine processes reused across games and batches
			defer putWorker(lw)
			for {
				i := int(next.Add(1) - 1)
				if i >= len(tasks) || ctx.Err() != nil {
					return
				}
				rec, err := lw.Play(ctx, setup, tasks[i])
				if err != nil {
					fail(fmt.Errorf("game %d: %w", i, err))
					return
				}
				recs[i] = rec
				if each != nil {
					eachMu.Lock()
					each(i, rec)
					eachMu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		return nil, err
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return recs, nil
}

// slot is a worker's player for one colour and the limits it was made with, and its
// external engine process, kept between games while the spec stays the same (as
// c-gomoku-cli and cutechess keep engines: one process per seat and worker).
type slot struct {
	p      engine.Player
	lim    engine.Limits
	ext    *protocol.External
	extKey string
}

// closeSlots ends the slots' external engines.
func closeSlots(players *[2]slot) {
	for i := range players {
		if players[i].ext != nil {
			players[i].ext.Close()
			players[i].ext = nil
		}
	}
}

// external returns the slot's engine process for spec, reused (protocol.External.Reuse)
// when the last game's spec was the same and the process did not fail, or given spec's
// options when only they differ and the engine takes new values while running
// (protocol.External.Retune: a new candidate under tuning), else a new one.
func external(spec protocol.ExternalSpec, g engine.Game, sl *slot) *protocol.External {
	key := spec.Key()
	if sl.ext != nil && sl.extKey == key && sl.ext.Reuse() {
		return sl.ext
	}
	if sl.ext != nil && sl.ext.Reuse() && sl.ext.Retune(spec) {
		sl.extKey = key
		return sl.ext
	}
	if sl.ext != nil {
		sl.ext.Close()
	}
	sl.ext, sl.extKey = protocol.NewExternal(spec, g), key
	return sl.ext
}

// player returns a player with weights w and limits lim: the worker's previous one reset
// (exactly as fresh, see engine.Resetter) when its limits are the same, or a new one.
func player(s GameSetup, w engine.Weights, lim engine.Limits, sl *slot) (engine.Player, error) {
	if r, ok := sl.p.(engine.Resetter); ok && sl.lim == lim {
		if err := r.Reset(w); err == nil {
			return sl.p, nil
		}
	}
	p, err := s.Game.NewPlayer(w, lim)
	if err != nil {
		return nil, err
	}
	sl.p, sl.lim = p, lim
	return p, nil
}

func playOne(ctx context.Context, s GameSetup, t GameTask, players *[2]slot) (rec engine.GameRecord, err error) {
	lim := s.Limits
	if t.Depth > 0 {
		lim.Depth = t.Depth
	}
	b, err := s.Game.NewBoard(s.Board)
	if err != nil {
		return engine.GameRecord{}, err
	}
	// A colour-swapped pair gives each engine the other seat in its second game: swap the
	// seats' processes with it, so that each engine keeps its process from game to game as
	// tournament managers keep theirs (without this, every game restarted both engines);
	// so too when one engine of the game ran in the other seat in the last.
	var kb, kw string
	if t.BlackExt != nil {
		kb = t.BlackExt.Key()
	}
	if t.WhiteExt != nil {
		kw = t.WhiteExt.Key()
	}
	if _, swap := seatMatches(kb, kw, players[0].extKey, players[1].extKey); swap {
		players[0], players[1] = players[1], players[0]
	}
	var side [2]engine.Player
	for i, c := range []struct {
		w   engine.Weights
		ext *protocol.ExternalSpec
	}{{t.Black, t.BlackExt}, {t.White, t.WhiteExt}} {
		if c.ext != nil {
			spec := *c.ext
			if s.EngineLogDir != "" || s.Restart { // a process per game (and a transcript file per game)
				if s.EngineLogDir != "" {
					name := t.Name
					if name == "" {
						name = "game"
					}
					spec.LogFile = filepath.Join(s.EngineLogDir, fmt.Sprintf("%s-%s.log", name, []string{"black", "white"}[i]))
				}
				x := protocol.NewExternal(spec, s.Game)
				defer x.Close()
				side[i] = x
				continue
			}
			x := external(spec, s.Game, &players[i])
			side[i] = x
			defer func(sl *slot) { // a forfeit or an error: the next game starts a new process
				if sl.ext == x && (err != nil || rec.Forfeit != "") {
					x.Close()
					sl.ext = nil
				}
			}(&players[i])
			continue
		}
		if side[i], err = player(s, c.w, lim, &players[i]); err != nil {
			return engine.GameRecord{}, err
		}
	}
	opening, swapped := t.Opening, false
	if s.OpeningRule != "" {
		var err error
		if opening, swapped, err = swapOpening(ctx, s, b, side); err != nil {
			var se *swap.Error
			if !errors.As(err, &se) || !s.Forfeit {
				return engine.GameRecord{}, err
			}
			// The player that failed in the opening loses; the first player counts as Black.
			rec := engine.GameRecord{Outcome: engine.BlackWins, Moves: opening, Plies: len(opening),
				Forfeit: "white (second player) forfeits: " + se.Error(), Unplayed: true}
			if se.First {
				rec.Outcome, rec.Forfeit = engine.WhiteWins, "black (first player) forfeits: "+se.Error()
			}
			for i, log := range []*string{&rec.BlackLog, &rec.WhiteLog} {
				if tr, ok := side[i].(engine.Transcriber); ok {
					*log = tr.Transcript()
				}
			}
			return rec, nil
		}
		if b, err = s.Game.NewBoard(s.Board); err != nil {
			return engine.GameRecord{}, err
		}
		if swapped {
			side[0], side[1] = side[1], side[0]
		}
	}
	// An outside engine of a clock of its own (a tournament's tc=) is timed by it.
	var own [2]*engine.TimeControl
	for i, ext := range [2]*protocol.ExternalSpec{t.BlackExt, t.WhiteExt} {
		if ext != nil && ext.TimeControl != nil {
			own[i] = ext.TimeControl
		}
	}
	if swapped {
		own[0], own[1] = own[1], own[0]
	}
	rec, err = engine.PlayGame(ctx, b, side[0], side[1], engine.RefereeOptions{Opening: opening, MaxPlies: s.MaxPlies, Forfeit: s.Forfeit,
		TimeControl: s.TimeControl, SideTimeControl: own, Adjudicate: s.Adjudicate, MoveStats: s.MoveStats})
	rec.Swapped = swapped
	return rec, err
}

// swapOpening runs the setup's swap opening on b between side[0] (the first player) and
// side[1]: external engines answer through the protocol (SWAP2BOARD), built-in players with
// swap.Builtin over the game's opening book.
func swapOpening(ctx context.Context, s GameSetup, b engine.Board, side [2]engine.Player) ([]string, bool, error) {
	var proposals [][]string
	if book, ok := s.Game.(engine.OpeningBook); ok {
		for _, o := range book.BuiltinOpenings(s.Board) {
			proposals = append(proposals, o.Moves)
		}
	}
	var ch [2]swap.Chooser
	for i, p := range side {
		if c, ok := p.(swap.Chooser); ok {
			ch[i] = c
		} else {
			ch[i] = swap.Builtin{Player: p, Proposals: proposals}
		}
	}
	return swap.Opening(ctx, s.OpeningRule, b, ch[0], ch[1])
}

// Slots is a BatchRunner for batches played at the same time in this process (the
// run loop's rounds in play): their games share `workers` game slots, and a free
// slot always takes a game of the oldest batch that has one left (among its next ones,
// one whose engine processes the slot already runs: slotJob.pick), so the oldest batch
// finishes first while the newer ones keep every slot busy. Close ends its goroutines. Its
// meter measures the slots' busy time.
type Slots struct {
	mu      sync.Mutex
	wake    *sync.Cond
	jobs    []*slotJob // batches with games not yet handed out, oldest first
	ahead   []*slotJob // ahead batches (AheadStarter) with games not yet handed out, oldest first
	closed  bool
	workers sync.WaitGroup
	meter   BusyMeter
}

// BusyMeter integrates the number of game slots playing over time: its busy time between
// two readings is the slot time the games filled in between, whichever batches they
// belong to, so never more than the slots times the time between.
type BusyMeter struct {
	mu    sync.Mutex
	busy  int           // slots playing now
	acc   time.Duration // busy slot time up to since
	since time.Time
	// wasted is the slot time of games whose batch was stopped (their records never
	// used: an admission test planned again, pairings played ahead for a generation bred
	// otherwise), taken off the busy time as the batches stop.
	wasted time.Duration
}

// Waste takes slot time d, that games of a stopped batch filled, off the busy time.
func (m *BusyMeter) Waste(d time.Duration) {
	m.mu.Lock()
	m.wasted += d
	m.mu.Unlock()
}

// add changes the number of slots playing by d (+1 as a game starts, -1 as it ends).
func (m *BusyMeter) add(d int) {
	m.mu.Lock()
	m.advance(time.Now())
	m.busy += d
	m.mu.Unlock()
}

// advance adds the busy time up to now (the caller holds m.mu; before the first game no
// slot is busy, so the first call adds nothing).
func (m *BusyMeter) advance(now time.Time) {
	m.acc += time.Duration(m.busy) * now.Sub(m.since)
	m.since = now
}

// Read returns the time now and the busy slot time up to it, less the wasted time known
// by then (so a later reading can be the lower by a stopped batch's games); readings in
// turn are in time order with the games' starts and ends.
func (m *BusyMeter) Read() (time.Time, time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	m.advance(now)
	return now, m.acc - m.wasted
}

// slotJob is one batch of a Slots.
type slotJob struct {
	ctx    context.Context
	setup  GameSetup
	tasks  []GameTask
	next   int         // the first task not yet handed out
	taken  []bool      // the tasks handed out (nil while they go in order: no engine processes)
	handed int         // how many tasks are handed out
	keys   [][2]string // each task's engine specs' keys, black's and white's (nil: no outside engine)
	left   int         // tasks not yet finished
	recs   []engine.GameRecord
	err    error
	done   func()
	each   func(i int, rec engine.GameRecord)
	over   chan struct{} // closed when every task finished or the batch failed
	// busy is the slot time of its games finished so far; stopped is set once its wait saw
	// its context end (its games' time is then wasted: BusyMeter.Waste).
	busy    time.Duration
	stopped bool
}

// affinityWindow is how many of a batch's next tasks a free game slot looks through for
// one whose engine processes it already runs (slotJob.pick).
const affinityWindow = 256

// newSlotJob makes the batch of tasks; where they play outside engines it keeps each
// task's two engine specs' keys (protocol.ExternalSpec.Key), which pick matches against a
// slot's processes.
func newSlotJob(ctx context.Context, setup GameSetup, tasks []GameTask, done func()) *slotJob {
	j := &slotJob{ctx: ctx, setup: setup, tasks: tasks, left: len(tasks), recs: make([]engine.GameRecord, len(tasks)), done: done, over: make(chan struct{})}
	for i, t := range tasks {
		if t.BlackExt == nil && t.WhiteExt == nil {
			continue
		}
		if j.keys == nil {
			j.keys, j.taken = make([][2]string, len(tasks)), make([]bool, len(tasks))
		}
		for s, ext := range [2]*protocol.ExternalSpec{t.BlackExt, t.WhiteExt} {
			if ext != nil {
				j.keys[i][s] = ext.Key()
			}
		}
	}
	return j
}

// pick hands out the next task for a slot whose seats run the engine processes of keys k0
// and k1 ("" where a seat has none): of the next affinityWindow tasks not yet handed out,
// the first that keeps both of them, else the first that keeps one, else the first. An
// engine that takes its values on its command line starts a process for every new player,
// and a GA's pairs are queued pair after pair, so each slot would otherwise start two
// processes a game. Which slot plays a game never changes its record; a batch without
// outside engines is handed out in order. It reports whether the batch has no task left
// to hand out.
func (j *slotJob) pick(k0, k1 string) (i int, emptied bool) {
	i, _, _ = j.match(k0, k1, affinityWindow)
	return i, j.take(i)
}

// match looks through the batch's next `window` tasks not yet handed out for the first
// that keeps the most of a slot's engine processes (keys k0 and k1): its index (the next
// task when none keeps any), how many it keeps (0 to 2) and how many tasks it looked at.
func (j *slotJob) match(k0, k1 string, window int) (i, best, seen int) {
	i = j.next
	if j.keys == nil || (k0 == "" && k1 == "") {
		return i, 0, 0
	}
	for k := j.next; k < len(j.tasks) && seen < window && best < 2; k++ {
		if j.taken[k] {
			continue
		}
		seen++
		if n, _ := seatMatches(j.keys[k][0], j.keys[k][1], k0, k1); n > best {
			i, best = k, n
		}
	}
	return i, best, seen
}

// take hands out task i; it reports whether the batch has no task left to hand out.
func (j *slotJob) take(i int) (emptied bool) {
	j.handed++
	if j.taken != nil {
		j.taken[i] = true
		for j.next < len(j.tasks) && j.taken[j.next] {
			j.next++
		}
	} else {
		j.next++
	}
	return j.handed == len(j.tasks)
}

// pickJob chooses the game a free slot whose seats run engine processes of keys k0 and k1
// plays next from the batches of list (r.jobs, or r.ahead; the caller holds r.mu, and the
// list holds a batch): the oldest batch's first
// game that keeps both processes, else the first that keeps one (slotJob.match); where the
// oldest batch's next affinityWindow games keep neither, the first of the next batches'
// (within affinityWindow games in all) that keeps the most, else the oldest batch's next
// game. A run loop's round can be a pair of genomes and a few games (the GA with
// generations in play), so the games that keep a slot's engines lie in the next rounds;
// the oldest batch still takes every slot that nothing newer suits. It removes a batch
// whose last game it hands out.
func pickJob(list *[]*slotJob, k0, k1 string) (*slotJob, int) {
	jobs := *list
	at, j := 0, jobs[0]
	i, best, seen := j.match(k0, k1, affinityWindow)
	for n := 1; best == 0 && (k0 != "" || k1 != "") && n < len(jobs) && seen < affinityWindow; n++ {
		k, b, s := jobs[n].match(k0, k1, affinityWindow-seen)
		if b > best {
			at, j, i, best = n, jobs[n], k, b
		}
		seen += s
	}
	if j.take(i) {
		*list = append(jobs[:at:at], jobs[at+1:]...)
	}
	return j, i
}

// seatMatches is how many of a game's two engine processes (keys kb and kw, black's and
// white's) a worker whose seats run processes of keys k0 and k1 keeps, and whether it
// keeps more with its seats swapped for the game.
func seatMatches(kb, kw, k0, k1 string) (n int, swap bool) {
	same := func(a, b string) int {
		if a != "" && a == b {
			return 1
		}
		return 0
	}
	direct, swapped := same(kb, k0)+same(kw, k1), same(kb, k1)+same(kw, k0)
	if swapped > direct {
		return swapped, true
	}
	return direct, false
}

// MarkNow is the time now and, where m measures the slots, their busy time up to it.
func MarkNow(m *BusyMeter) (time.Time, time.Duration) {
	if m == nil {
		return time.Now(), 0
	}
	return m.Read()
}

// NewSlots starts `workers` game slots (at least 1).
func NewSlots(workers int) *Slots {
	r := &Slots{}
	r.wake = sync.NewCond(&r.mu)
	for w := 0; w < max(1, workers); w++ {
		r.workers.Add(1)
		go r.slot()
	}
	return r
}

// slot plays games one after another, each from the oldest batch that has one left.
func (r *Slots) slot() {
	defer r.workers.Done()
	lw := takeWorker()
	defer putWorker(lw)
	for {
		r.mu.Lock()
		for len(r.jobs) == 0 && len(r.ahead) == 0 && !r.closed {
			r.wake.Wait()
		}
		if len(r.jobs) == 0 && len(r.ahead) == 0 {
			r.mu.Unlock()
			return
		}
		list := &r.jobs
		if len(r.jobs) == 0 {
			list = &r.ahead // no other batch has a game for this slot
		}
		j, i := pickJob(list, lw.players[0].extKey, lw.players[1].extKey)
		r.mu.Unlock()
		begin := time.Now() // the meter's busy time of the game lies within [begin, begin+took]
		r.meter.add(1)
		rec, err := lw.Play(j.ctx, j.setup, j.tasks[i])
		r.meter.add(-1)
		took := time.Since(begin)
		// The game's callbacks run before the batch can end: PlayBatch returns only after
		// every callback has (a callback after it returned raced with the caller's next
		// step, seen by the race detector in a steady-state run's checkpoint).
		if err == nil && j.done != nil {
			j.done()
		}
		if err == nil && j.each != nil {
			j.each(i, rec)
		}
		r.mu.Lock()
		if j.stopped {
			r.meter.Waste(took)
		} else {
			j.busy += took
		}
		if j.err == nil {
			if err != nil {
				j.err = fmt.Errorf("game %d: %w", i, err)
				r.drop(j)
				close(j.over)
			} else {
				j.recs[i] = rec
				if j.left--; j.left == 0 {
					close(j.over)
				}
			}
		}
		r.mu.Unlock()
	}
}

// drop removes j's games not yet handed out (the caller holds r.mu).
func (r *Slots) drop(j *slotJob) {
	for _, list := range []*[]*slotJob{&r.jobs, &r.ahead} {
		for k, o := range *list {
			if o == j {
				*list = append((*list)[:k:k], (*list)[k+1:]...)
				return
			}
		}
	}
}

// PlayBatch implements BatchRunner: it queues the tasks behind the batches already queued
// and returns their records in task order once all are played (the first error, or ctx's,
// ends the batch).
func (r *Slots) PlayBatch(ctx context.Context, setup GameSetup, tasks []GameTask, done func()) ([]engine.GameRecord, error) {
	wait, err := r.StartBatch(ctx, setup, tasks, done)
	if err != nil {
		return nil, err
	}
	return wait()
}

// StartBatch implements BatchStarter: it queues the tasks behind the batches already
// queued; the wait returns what PlayBatch does.
func (r *Slots) StartBatch(ctx context.Context, setup GameSetup, tasks []GameTask, done func()) (func() ([]engine.GameRecord, error), error) {
	j := newSlotJob(ctx, setup, tasks, done)
	wait, _, err := r.start(j, false)
	return wait, err
}

// StartEach implements AheadStarter.
func (r *Slots) StartEach(ctx context.Context, setup GameSetup, tasks []GameTask, each func(int, engine.GameRecord), ahead bool) (func() ([]engine.GameRecord, error), func(), error) {
	j := newSlotJob(ctx, setup, tasks, nil)
	j.each = each
	return r.start(j, ahead)
}

// start queues batch j (ahead: with the ahead batches) and returns its wait and promotion.
func (r *Slots) start(j *slotJob, ahead bool) (func() ([]engine.GameRecord, error), func(), error) {
	if len(j.tasks) == 0 {
		return func() ([]engine.GameRecord, error) { return []engine.GameRecord{}, nil }, func() {}, nil
	}
	j.setup.Runner = nil
	ctx := j.ctx
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, nil, fmt.Errorf("worker pool closed")
	}
	if ahead {
		r.ahead = append(r.ahead, j)
	} else {
		r.jobs = append(r.jobs, j)
	}
	r.wake.Broadcast()
	r.mu.Unlock()
	promote := func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for k, o := range r.ahead {
			if o == j {
				r.ahead = append(r.ahead[:k:k], r.ahead[k+1:]...)
				r.jobs = append(r.jobs, j)
				return
			}
		}
	}
	return func() ([]engine.GameRecord, error) {
		select {
		case <-j.over:
		case <-ctx.Done():
			r.mu.Lock()
			if j.err == nil {
				j.err = ctx.Err()
				r.drop(j)
			}
			if !j.stopped {
				j.stopped = true
				r.meter.Waste(j.busy)
			}
			r.mu.Unlock()
			return nil, ctx.Err()
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if j.err != nil {
			return nil, j.err
		}
		return j.recs, nil
	}, promote, nil
}

// DropsStopped implements StopDropper: a stopped batch's games not yet handed out are
// dropped (the wait's context ended), those in play see their context end.
func (r *Slots) DropsStopped() bool { return true }

// Meter is the meter of the slots' busy time (BusyMeter).
func (r *Slots) Meter() *BusyMeter { return &r.meter }

// Close ends the slots after the games they are playing.
func (r *Slots) Close() {
	r.mu.Lock()
	r.closed = true
	r.wake.Broadcast()
	r.mu.Unlock()
	r.workers.Wait()
}

// LimitsText says what bounds the games' moves of setup s: the clock, nodes, depth and
// width as they apply ("tc 10+0.1 nodes 2000"). external: an outside engine plays; with
// outside engines on both sides (allExternal) the search limits are theirs: depth only as
// go depth (goDepth), width never.
func (s GameSetup) LimitsText(external, allExternal bool, goDepth int) string {
	var parts []string
	if s.TimeControl != nil {
		parts = append(parts, "tc "+s.TimeControl.String())
	}
	if s.Limits.Nodes > 0 {
		parts = append(parts, fmt.Sprintf("nodes %d", s.Limits.Nodes))
	}
	depth, width := s.Limits.Depth, s.Limits.Width
	if allExternal {
		depth, width = goDepth, 0
	}
	if depth > 0 && depth < engine.MaxDepth {
		parts = append(parts, fmt.Sprintf("depth %d", depth))
	}
	if width > 0 {
		parts = append(parts, fmt.Sprintf("width %d", width))
	}
	if len(parts) == 0 && external {
		return "outside engines' own limits"
	}
	return strings.Join(parts, " ")
}
