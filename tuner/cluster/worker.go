package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/engine/protocol/wire"
	"evotune/genomes"
	"evotune/tuner/arena"
)

// WorkerOptions configure a worker.
type WorkerOptions struct {
	Options
	// Workers is how many games it plays at once (one engine pair per goroutine).
	Workers int
	// Allow lists the external engine command lines this worker may run; a task naming any
	// other is refused (a task never makes a worker run a command it was not told to trust).
	Allow []string
	// Allowed decides whether a task's engine command line (its argv, with {NAME} and
	// {weights} placeholders as written) is one of Allow, compared whole.
	Allowed func(argv []string, allow []string) bool
	// MaxDepth and MaxWidth bound the built-in engine's search a task may ask for (its
	// limits and any game's depth; an outside engine's go depth), 0 = DefaultMaxDepth and
	// DefaultMaxWidth: a task at depth 20 and width 1000 would hold the worker for hours.
	MaxDepth, MaxWidth int
	// MaxTaskTime bounds the wall time of one task (0 = DefaultMaxTaskTime): its games are
	// stopped and the task refused with that reason (not handed to the next worker).
	MaxTaskTime time.Duration
	// AllowOptions lists engine option names a task may set although the worker guards
	// them (guardedOption: the engine's memory and threads, names of files and folders),
	// compared ignoring case, e.g. "Hash".
	AllowOptions []string
}

// Worker limits' defaults: deeper than any game's default search and the runs' verify
// depths, far below what would hold a worker for hours.
const (
	DefaultMaxDepth    = 12
	DefaultMaxWidth    = 100
	DefaultMaxTaskTime = 30 * time.Minute
)

// limits returns the options' MaxDepth, MaxWidth and MaxTaskTime with defaults for zeros.
func (o WorkerOptions) limits() (depth, width int, taskTime time.Duration) {
	depth, width, taskTime = o.MaxDepth, o.MaxWidth, o.MaxTaskTime
	if depth <= 0 {
		depth = DefaultMaxDepth
	}
	if width <= 0 {
		width = DefaultMaxWidth
	}
	if taskTime <= 0 {
		taskTime = DefaultMaxTaskTime
	}
	return depth, width, taskTime
}

// job is one game of a task in hand.
type job struct {
	t *held
	k int // the game's place in t.task.Games
}

// held is a task a worker has pulled and not yet answered.
type held struct {
	m     jetstream.Msg
	task  task
	setup arena.GameSetup
	games []arena.GameTask
	stop  chan struct{} // ends the in-progress signals
	// ctx bounds the task's games by the worker's MaxTaskTime; cancel releases it.
	ctx    context.Context
	cancel context.CancelFunc

	// since is when the worker took the task.
	since time.Time

	mu   sync.Mutex
	recs []engine.GameRecord
	err  error
	left int
	// dropped is set when its tune stopped the task (dropNote): its games end at once and
	// it is terminated, no result sent.
	dropped bool
}

// dropNote is a tune's message on stopSubject: the task message IDs (Nats-Msg-Id) of a
// stopped batch's tasks.
type dropNote struct {
	IDs []string `json:"ids"`
}

// errDropped ends the games of a task its tune stopped.
var errDropped = errors.New("the task was stopped by its tune")

// counters are a worker's numbers for its heartbeat and log.
type counters struct {
	mu                              sync.Mutex
	played, tasks, refused, dropped int
	playing                         map[string]int // game names being played
	held                            map[*held]bool // tasks taken and not yet answered
	recent                          []time.Time    // when the games of the last minute ended
}

func (c *counters) begin(name string) {
	c.mu.Lock()
	c.playing[name]++
	c.mu.Unlock()
}

// hold and release keep the tasks in hand for the heartbeat's Busy.
func (c *counters) hold(h *held) {
	c.mu.Lock()
	c.held[h] = true
	c.mu.Unlock()
}

func (c *counters) release(h *held) {
	c.mu.Lock()
	delete(c.held, h)
	c.mu.Unlock()
}

// busy lists the tasks in hand, the longest held first.
func (c *counters) busy() []Busy {
	var out []Busy
	for h := range c.held {
		out = append(out, Busy{Run: runLabel(h.task.Run), Batch: h.task.Batch, Games: len(h.games), Seconds: time.Since(h.since).Seconds()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seconds > out[j].Seconds })
	return out
}

// runLabel is a task's run name as a worker shows it: at most 200 bytes of printable
// text (it comes from whoever published the task), "an unnamed run" otherwise.
func runLabel(s string) string {
	if s == "" || len(s) > 200 || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return "an unnamed run"
	}
	return s
}

func (c *counters) end(name string) {
	c.mu.Lock()
	if c.playing[name]--; c.playing[name] <= 0 {
		delete(c.playing, name)
	}
	c.mu.Unlock()
}

// Work pulls tasks and plays them until ctx ends. A task's games go to the worker's game
// goroutines (o.Workers), each keeping its players between games (arena.LocalWorker:
// reset to exactly fresh, so a record never depends on what it played before); the next
// task is pulled when the last game of the current one has started. When all of a task's
// games are played their records are published on the results stream, keyed by the
// games' indices in their batch, and the task is acknowledged; while they play the task
// is kept with in-progress signals. A task is data: one this worker will not or cannot play
// (another build, an external engine whose command line its owner did not list, an
// undecodable task, a game that fails) is answered with a refusal on the results stream
// and terminated (JetStream Term, never redelivered to it), and the worker keeps serving;
// the tune process publishes its games again for another worker and reports the refusal.
// Every HeartbeatEvery, and when pinged, the worker publishes its WorkerStatus.
func Work(ctx context.Context, o WorkerOptions) error {
	nc, js, err := Connect(ctx, o.Options, false)
	if err != nil {
		return err
	}
	defer nc.Close()
	cons, err := js.Consumer(ctx, TaskStream, WorkerGroup)
	if err != nil {
		return err
	}
	// The tune's ack wait (it sets the consumer's, maybe after this worker started): tasks
	// in hand are kept with signals well within it; read again at every heartbeat.
	var ackWait atomic.Int64
	ackWait.Store(int64(orDefault(o.AckWait, 30*time.Second)))
	readAckWait := func() {
		if info, err := cons.Info(ctx); err == nil && info.Config.AckWait > 0 {
			ackWait.Store(int64(info.Config.AckWait))
		}
	}
	readAckWait()
	slots := max(1, o.Workers)
	o.logf("worker %d×, broker %s, ack wait %v, build %s", slots, o.URL, time.Duration(ackWait.Load()), o.Version)
	host, _ := os.Hostname()
	me := fmt.Sprintf("%s/%d", host, os.Getpid())
	start := time.Now()
	n := &counters{playing: map[string]int{}, held: map[*held]bool{}}
	beat := func(stopping bool) {
		n.mu.Lock()
		st := WorkerStatus{ID: me, Host: host, PID: os.Getpid(), Version: o.Version, Slots: slots, Started: start.UTC(), UpSeconds: time.Since(start).Seconds(),
			Played: n.played, Tasks: n.tasks, Refused: n.refused, Dropped: n.dropped, CPUSeconds: cpuSeconds(), Stopping: stopping, Busy: n.busy()}
		for name, k := range n.playing {
			for ; k > 0; k-- {
				st.Playing = append(st.Playing, name)
			}
		}
		cut := time.Now().Add(-time.Minute)
		for len(n.recent) > 0 && n.recent[0].Before(cut) {
			n.recent = n.recent[1:]
		}
		if span := min(time.Minute, time.Since(start)); span > 0 {
			st.Recent = float64(len(n.recent)) / span.Seconds()
		}
		n.mu.Unlock()
		data, _ := json.Marshal(st)
		nc.Publish(heartbeatSubject, data)
	}
	ping, err := nc.Subscribe(pingSubject, func(*nats.Msg) { beat(false) })
	if err != nil {
		return err
	}
	defer ping.Unsubscribe()
	// Tasks their tune stopped: the games in play end at once (their context), the rest
	// are not begun.
	drop, err := nc.Subscribe(stopSubject, func(msg *nats.Msg) {
		var d dropNote
		if json.Unmarshal(msg.Data, &d) != nil {
			return
		}
		ids := map[string]bool{}
		for _, id := range d.IDs {
			ids[id] = true
		}
		n.mu.Lock()
		defer n.mu.Unlock()
		for h := range n.held {
			if !ids[h.m.Headers().Get(nats.MsgIdHdr)] {
				continue
			}
			h.mu.Lock()
			if !h.dropped {
				h.dropped = true
				if h.err == nil {
					h.err = errDropped
				}
			}
			h.mu.Unlock()
			h.cancel()
		}
	})
	if err != nil {
		return err
	}
	defer drop.Unsubscribe()
	beat(false)
	go func() {
		tick := time.NewTicker(HeartbeatEvery)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				beat(false)
				readAckWait()
			case <-ctx.Done():
				return
			}
		}
	}()

	refuse := func(m jetstream.Msg, t task, indices []int, why string) {
		o.logf("refused task %s of batch %s: %s", taskName(indices), t.Batch, why)
		data, _ := json.Marshal(result{Batch: t.Batch, Worker: me, Refused: why, Indices: indices})
		if batchID.MatchString(t.Batch) {
			js.Publish(ctx, resultPrefix+t.Batch, data, jetstream.WithMsgID(fmt.Sprintf("%s/%s/refused/%s", t.Batch, m.Headers().Get(nats.MsgIdHdr), me)))
		}
		m.Term()
		n.mu.Lock()
		n.refused++
		n.mu.Unlock()
	}
	// answer publishes a finished task's records (as many messages as the broker's maximum
	// payload needs) and acknowledges it, or refuses it when a game failed.
	answer := func(h *held) {
		n.release(h)
		close(h.stop)
		timedOut := errors.Is(h.ctx.Err(), context.DeadlineExceeded)
		h.cancel()
		h.mu.Lock()
		dropped := h.dropped
		h.mu.Unlock()
		if dropped {
			h.m.Term() // its tune wants it no more: never delivered again
			n.mu.Lock()
			n.dropped++
			n.mu.Unlock()
			o.logf("dropped task %s of batch %s: stopped by its tune", taskName(indicesOf(h.task)), h.task.Batch)
			return
		}
		if h.err != nil {
			if timedOut && ctx.Err() == nil {
				_, _, limit := o.limits()
				refuse(h.m, h.task, indicesOf(h.task), fmt.Sprintf("the task ran longer than this worker's --max-task-time %v", limit))
				return
			}
			if errors.Is(h.err, context.Canceled) || ctx.Err() != nil {
				h.m.Nak()
				return
			}
			refuse(h.m, h.task, indicesOf(h.task), "the game failed: "+h.err.Error())
			return
		}
		for _, part := range splitResults(h.task.Games, h.recs, int(nc.MaxPayload())-1024) {
			data, _ := json.Marshal(result{Batch: h.task.Batch, Games: part, Worker: me})
			id := fmt.Sprintf("%s/%d+%d", h.task.Batch, part[0].Index, len(part))
			if _, err := js.Publish(ctx, resultPrefix+h.task.Batch, data, jetstream.WithMsgID(id)); err != nil {
				h.m.Nak()
				return
			}
		}
		h.m.Ack()
		n.mu.Lock()
		n.tasks++
		n.played += len(h.recs)
		now := time.Now()
		for range h.recs {
			n.recent = append(n.recent, now)
		}
		played, tasks := n.played, n.tasks
		n.mu.Unlock()
		plies, secs := 0, 0.0
		for _, r := range h.recs {
			plies += r.Plies
			secs += r.Duration.Seconds()
		}
		o.logf("played task %s of batch %s (%s, %d plies, %.2fs of play); %d tasks, %d games, %.2f games/s",
			taskName(indicesOf(h.task)), h.task.Batch, h.task.Game, plies, secs, tasks, played, float64(played)/time.Since(start).Seconds())
	}

	jobs := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < slots; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lw arena.LocalWorker // players kept between games, reset to fresh
			defer lw.Close()
			for j := range jobs {
				h := j.t
				name := h.games[j.k].Name
				if name == "" {
					name = fmt.Sprintf("game %d of batch %.8s", h.task.Games[j.k].Index, h.task.Batch)
				}
				n.begin(name)
				h.mu.Lock()
				failed := h.err != nil
				h.mu.Unlock()
				var rec engine.GameRecord
				var err error
				if !failed {
					begin := time.Now()
					rec, err = lw.Play(h.ctx, h.setup, h.games[j.k])
					rec.Slot = time.Since(begin) // its engines' starts included, as a local slot counts
				}
				n.end(name)
				h.mu.Lock()
				h.recs[j.k] = rec
				if err != nil && h.err == nil {
					h.err = fmt.Errorf("%s: %w", name, err)
				}
				h.left--
				last := h.left == 0
				h.mu.Unlock()
				if last {
					// The result goes out (a publish and its acknowledgement, a round trip
					// to the broker) while this slot plays its next game.
					wg.Add(1)
					go func() {
						defer wg.Done()
						answer(h)
					}()
				}
			}
		}()
	}

	var backoff time.Duration // after refusals
	for ctx.Err() == nil {
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			if ctx.Err() == nil {
				time.Sleep(500 * time.Millisecond) // the broker is away: wait for it
			}
			continue
		}
		for m := range batch.Messages() {
			h, why := decode(o, m)
			if why != "" {
				refuse(m, h.task, indicesOf(h.task), why)
				// A task sent again after a refusal, lately, means a live tune found no other
				// worker to take it: leave the queue to workers that can play it for a while
				// (twice as long each time, ≤ 30 s), the next tasks are likely of the same
				// run. A first refusal, or an old task (left by a killed run of another build),
				// does not wait: it must not starve the tasks this worker can play.
				md, err := m.Metadata()
				if !strings.Contains(m.Headers().Get(nats.MsgIdHdr), "/retry") || err != nil || time.Since(md.Timestamp) > 30*time.Second {
					continue
				}
				backoff = min(max(2*backoff, time.Second), 30*time.Second)
				select {
				case <-time.After(backoff):
				case <-ctx.Done():
				}
				continue
			}
			backoff = 0
			if ctx.Err() != nil {
				m.Nak()
				break
			}
			_, _, taskTime := o.limits()
			h.ctx, h.cancel = context.WithTimeout(ctx, taskTime)
			h.since = time.Now()
			n.hold(h)
			// Keep the task while its games run (AckWait would hand it to another worker).
			go func() {
				tick := time.NewTicker(max(time.Duration(ackWait.Load())/3, 300*time.Millisecond))
				defer tick.Stop()
				for {
					select {
					case <-tick.C:
						m.InProgress()
					case <-h.stop:
						return
					}
				}
			}()
			for k := range h.games {
				select {
				case jobs <- job{t: h, k: k}:
				case <-ctx.Done():
					// Games not handed out count as failed; the task is given back.
					h.mu.Lock()
					if h.err == nil {
						h.err = ctx.Err()
					}
					h.left -= len(h.games) - k
					last := h.left == 0
					h.mu.Unlock()
					if last {
						answer(h)
					}
				}
				if ctx.Err() != nil {
					break
				}
			}
		}
	}
	close(jobs)
	wg.Wait()
	beat(true)
	n.mu.Lock()
	o.logf("worker stopped: %d games played (%d tasks), %d tasks refused", n.played, n.tasks, n.refused)
	n.mu.Unlock()
	return nil
}

// taskName names a task by its games' indices in their batch: "game 7", "games 8–15" or
// "games 3, 9, 12" (games sent again after a refusal need not be consecutive).
func taskName(idx []int) string {
	switch {
	case len(idx) == 0:
		return "without games"
	case len(idx) == 1:
		return fmt.Sprintf("game %d", idx[0])
	case idx[len(idx)-1]-idx[0] == len(idx)-1:
		return fmt.Sprintf("games %d–%d", idx[0], idx[len(idx)-1])
	}
	parts := make([]string, 0, min(len(idx), 4))
	for k, i := range idx {
		if k == 3 {
			parts = append(parts, fmt.Sprintf("… (%d games)", len(idx)))
			break
		}
		parts = append(parts, strconv.Itoa(i))
	}
	return "games " + strings.Join(parts, ", ")
}

// indicesOf lists a task's games' indices in their batch.
func indicesOf(t task) []int {
	out := make([]int, len(t.Games))
	for k, g := range t.Games {
		out[k] = g.Index
	}
	return out
}

// splitResults groups a task's records, in order, into parts whose JSON fits limit bytes
// (a record larger than limit goes alone; the broker then refuses it and the task is
// given back).
func splitResults(games []wireGame, recs []engine.GameRecord, limit int) [][]playedGame {
	var parts [][]playedGame
	var cur []playedGame
	size := 256 // the result's other fields
	for k, r := range recs {
		g := playedGame{Index: games[k].Index, Record: r}
		data, _ := json.Marshal(g)
		if len(cur) > 0 && size+len(data)+1 > limit {
			parts = append(parts, cur)
			cur, size = nil, 256
		}
		cur = append(cur, g)
		size += len(data) + 1
	}
	if len(cur) > 0 {
		parts = append(parts, cur)
	}
	return parts
}

// maxBatchGames bounds a game's index in its batch (a task's wireGame.Index).
const maxBatchGames = 1 << 24

// reservedOptions are Gomocup INFO keys the manager sends itself (the protocol's own
// settings, the engine's folder for persistent files): a task may not set them.
var reservedOptions = []string{"folder", "timeout_turn", "timeout_match", "time_left", "max_memory", "game_type", "rule", "evaluate"}

// guardedOptions are engine options that belong to the machine's owner, not to a task:
// the memory and threads an engine takes, and the GUI's own settings (UCI_*: Chess960,
// LimitStrength…). A task may set them only when the worker allows them by name
// (WorkerOptions.AllowOptions); so too an option whose name speaks of a file the engine
// reads or writes (guardedFile: EvalFile, SyzygyPath, Debug Log File, BookFile) and any
// option whose value is not a number or true/false (a path, a command).
var guardedOptions = []string{"Hash", "Threads", "Number of Threads", "Ponder", "MultiPV", "Clear Hash", "NalimovCache"}

// guardedFile matches option names of files and folders; an evaluation term's name such
// as RookOpenFile does not match.
var guardedFile = regexp.MustCompile(`(?i)((log|eval|book|syzygy|nalimov|debug|net|nnue|weights?)[ _-]?(file|path|dir)|path$|folder|director)`)

// guardedOption says whether a task may set option name to value only with the worker's
// leave.
func guardedOption(name, value string) bool {
	if strings.HasPrefix(strings.ToLower(name), "uci_") || guardedFile.MatchString(name) ||
		slices.ContainsFunc(guardedOptions, func(g string) bool { return strings.EqualFold(g, name) }) {
		return true
	}
	if _, err := strconv.ParseFloat(value, 64); err == nil {
		return false
	}
	return value != "true" && value != "false"
}

// optionName is what a task's option name may hold: letters, digits, space, _ . - and at
// most 128 bytes (every UCI engine's and Gomocup manager's option name we know fits).
var optionName = regexp.MustCompile(`^[A-Za-z0-9_ .-]{1,128}$`)

// maxOptionValue bounds a task's option value in bytes.
const maxOptionValue = 256

// checkGames checks a task's games as data against the worker's policy and returns why
// the worker will not play them ("" = it will): 1 to maxTaskGames games, each index in
// 0…maxBatchGames−1 and unique, every outside engine's command line on the worker's
// allow-list, every option a name and value without control characters, no key the
// protocol reserves for the manager, a name of optionName's letters, a value of at most
// maxOptionValue bytes, and no guarded option the worker's owner did not allow.
func checkGames(o WorkerOptions, games []wireGame) string {
	if len(games) == 0 || len(games) > maxTaskGames {
		return fmt.Sprintf("a task holds 1 to %d games, this one %d", maxTaskGames, len(games))
	}
	seen := make(map[int]bool, len(games))
	maxDepth, _, _ := o.limits()
	for _, g := range games {
		switch {
		case g.Depth > maxDepth:
			return fmt.Sprintf("game %d: depth %d, above this worker's --max-depth %d", g.Index, g.Depth, maxDepth)
		case g.Index < 0 || g.Index >= maxBatchGames:
			return fmt.Sprintf("game index %d: want 0 to %d", g.Index, maxBatchGames-1)
		case seen[g.Index]:
			return fmt.Sprintf("game index %d appears twice in the task", g.Index)
		}
		seen[g.Index] = true
		if g.Depth < 0 {
			return fmt.Sprintf("game %d: depth %d is negative", g.Index, g.Depth)
		}
		for _, ext := range []*protocol.ExternalSpec{g.BlackExt, g.WhiteExt} {
			if ext == nil {
				continue
			}
			if ext.Depth > maxDepth {
				return fmt.Sprintf("game %d: the outside engine's go depth %d, above this worker's --max-depth %d", g.Index, ext.Depth, maxDepth)
			}
			if ext.Depth < 0 || ext.Nodes < 0 {
				return fmt.Sprintf("game %d: the outside engine's go depth %d or nodes %d is negative", g.Index, ext.Depth, ext.Nodes)
			}
			for _, d := range []struct {
				name string
				d    time.Duration
			}{{"move time", ext.MoveTime}, {"game time", ext.GameTime}, {"overhead", ext.Overhead}, {"start-up time", ext.StartupTime}} {
				if why := checkDuration(d.name, d.d); why != "" {
					return fmt.Sprintf("game %d: the outside engine's %s", g.Index, why)
				}
			}
			if len(ext.Argv) == 0 || o.Allowed == nil || !o.Allowed(ext.Argv, o.Allow) {
				return fmt.Sprintf("the task runs the external engine %s, a command line this worker's owner did not list with --allow-engine", ext.Name())
			}
			for _, op := range ext.Options {
				if err := wire.CheckLine(op.Name, op.Value); err != nil {
					return fmt.Sprintf("game %d: %v", g.Index, err)
				}
				if slices.ContainsFunc(reservedOptions, func(r string) bool { return strings.EqualFold(r, op.Name) }) {
					return fmt.Sprintf("game %d: option %q is the manager's to set, not a task's", g.Index, op.Name)
				}
				if !optionName.MatchString(op.Name) {
					return fmt.Sprintf("game %d: option name %q: want 1 to 128 letters, digits, spaces, _ . -", g.Index, op.Name)
				}
				if len(op.Value) > maxOptionValue {
					return fmt.Sprintf("game %d: option %q: a value of %d bytes, at most %d", g.Index, op.Name, len(op.Value), maxOptionValue)
				}
				if guardedOption(op.Name, op.Value) && !slices.ContainsFunc(o.AllowOptions, func(a string) bool { return strings.EqualFold(a, op.Name) }) {
					return fmt.Sprintf("game %d: option %q is this worker's owner's to allow (evotune worker --allow-option %q), not a task's to set", g.Index, op.Name, op.Name)
				}
			}
		}
	}
	return ""
}

// maxTaskDuration bounds every time a task sets (a move, a game's clock, an engine's
// start-up and overhead): a day is far beyond any game, and a sum of such times cannot
// overflow time.Duration (an int64 of nanoseconds) into a negative time.
const maxTaskDuration = 24 * time.Hour

// checkDuration says why d is no time a task may set ("" = it may): negative or above
// maxTaskDuration.
func checkDuration(name string, d time.Duration) string {
	if d < 0 || d > maxTaskDuration {
		return fmt.Sprintf("%s %v: want 0 to %v", name, d, maxTaskDuration)
	}
	return ""
}

// checkSetup checks a task's setup as data and returns why the worker will not play it
// ("" = it will): search limits within engine.Limits' ranges, a ply cap, adjudication
// counts and scores that are not negative, and times within checkDuration's.
func checkSetup(t task) string {
	if err := t.Limits.Validate(); err != nil {
		return "search limits: " + err.Error()
	}
	if why := checkDuration("search time", t.Limits.Time); why != "" {
		return why
	}
	if why := checkDuration("soft search time", t.Limits.SoftTime); why != "" {
		return why
	}
	if t.MaxPlies < 0 {
		return fmt.Sprintf("max plies %d is negative", t.MaxPlies)
	}
	if a := t.Adjudicate; a != nil {
		for _, v := range []struct {
			name string
			x    int64
		}{{"resign moves", int64(a.ResignMoves)}, {"resign score", a.ResignScore}, {"draw move number", int64(a.DrawMoveNumber)},
			{"draw moves", int64(a.DrawMoves)}, {"draw score", a.DrawScore}, {"max moves", int64(a.MaxMoves)}} {
			if v.x < 0 {
				return fmt.Sprintf("adjudication: %s %d is negative", v.name, v.x)
			}
		}
	}
	if tc := t.TimeControl; tc != nil {
		if tc.Moves < 0 {
			return fmt.Sprintf("time control: %d moves is negative", tc.Moves)
		}
		for _, d := range []struct {
			name string
			d    time.Duration
		}{{"base", tc.Base}, {"increment", tc.Inc}, {"margin", tc.Margin}} {
			if why := checkDuration(d.name, d.d); why != "" {
				return "time control: " + why
			}
		}
	}
	return ""
}

// batchID is what encodeBatch names a batch: 24 hexadecimal digits.
var batchID = regexp.MustCompile(`^[0-9a-f]{24}$`)

// decode reads a pulled task into games to play; why says why the worker will not.
func decode(o WorkerOptions, m jetstream.Msg) (*held, string) {
	h := &held{m: m, stop: make(chan struct{})}
	if err := json.Unmarshal(m.Data(), &h.task); err != nil {
		return &held{}, "undecodable task: " + err.Error()
	}
	t := h.task
	if !batchID.MatchString(t.Batch) {
		return &held{task: task{Games: t.Games}}, "the task's batch is not a batch ID"
	}
	if t.Version != o.Version {
		return h, "the task is for another build of evotune than this worker's: results of different engines must not mix; run workers of the tune's build"
	}
	// Under a node limit (Limits.Nodes) the depth is no bound: the nodes end the search.
	if maxDepth, maxWidth, _ := o.limits(); t.Limits.Nodes == 0 && t.Limits.Depth > maxDepth || t.Limits.Width > maxWidth {
		return h, fmt.Sprintf("search depth %d width %d, above this worker's --max-depth %d or --max-width %d", t.Limits.Depth, t.Limits.Width, maxDepth, maxWidth)
	}
	if why := checkSetup(t); why != "" {
		return h, why
	}
	if why := checkGames(o, t.Games); why != "" {
		return h, why
	}
	entry, err := genomes.Lookup(t.Game)
	if err != nil {
		return h, err.Error()
	}
	g, err := engine.WithRule(entry.Game, t.Rule)
	if err != nil {
		return h, err.Error()
	}
	h.setup = arena.GameSetup{Game: g, Board: t.Board, Limits: t.Limits, MaxPlies: t.MaxPlies, Forfeit: t.Forfeit, OpeningRule: t.OpeningRule,
		TimeControl: t.TimeControl, MoveStats: t.MoveStats, Restart: t.Restart}
	if t.Adjudicate != nil {
		h.setup.Adjudicate = *t.Adjudicate
	}
	for _, wg := range t.Games {
		// A side played by an external engine has no built-in weights (its values travel in
		// its ExternalSpec).
		var black, white engine.Weights
		if wg.BlackExt == nil {
			if black, err = g.DecodeWeights(wg.Black); err != nil {
				return h, fmt.Sprintf("game %d: black weights: %v", wg.Index, err)
			}
		}
		if wg.WhiteExt == nil {
			if white, err = g.DecodeWeights(wg.White); err != nil {
				return h, fmt.Sprintf("game %d: white weights: %v", wg.Index, err)
			}
		}
		h.games = append(h.games, arena.GameTask{Black: black, White: white, BlackExt: wg.BlackExt, WhiteExt: wg.WhiteExt, Opening: wg.Opening, Depth: wg.Depth, Name: wg.Name})
	}
	h.recs = make([]engine.GameRecord, len(h.games))
	h.left = len(h.games)
	return h, ""
}
