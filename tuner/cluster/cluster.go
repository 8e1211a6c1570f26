// Package cluster plays tuning and match games on other machines through NATS JetStream
// (github.com/nats-io/nats.go; an embedded github.com/nats-io/nats-server/v2 for a
// single-command broker). The tune process publishes each batch's games as tasks on a
// work-queue stream, several games to a task when games are short (about TaskTarget of
// play each); workers anywhere pull them, play a task's games on their goroutines with their
// own built-in engines and publish the records on a results stream, each keyed by its
// game's index in the batch; the tune process collects them in game order, so its database
// is the same as with the local pool.
//
// Streams (created by whoever connects first, file storage):
//
//	EVOTUNE_TASKS   evotune.task.BATCH     work queue; consumer "workers" (explicit ack,
//	                                        AckWait, MaxDeliver)
//	EVOTUNE_RESULTS evotune.result.BATCH   results, kept 24 h, deduplicated by message ID
//
// and, not stored, the workers' heartbeats (WorkerStatus) on evotune.worker.heartbeat,
// which a ping on evotune.worker.ping asks for at once.
//
// BATCH is a hash of the batch's content (setup and games, not how they are grouped into
// tasks), so a tune that is killed and resumed publishes the same batch again: JetStream
// drops the duplicate tasks still queued and the results already played (kept 24 h) are
// read back, so nothing is played or counted twice. Batches that are not deterministic
// (external engines, a clock) get a nonce.
package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/tuner/arena"
)

// Stream, consumer and subject names.
const (
	TaskStream    = "EVOTUNE_TASKS"
	ResultStream  = "EVOTUNE_RESULTS"
	WorkerGroup   = "workers"
	taskPrefix    = "evotune.task."
	resultPrefix  = "evotune.result."
	dedupWindow   = 24 * time.Hour
	resultsMaxAge = 24 * time.Hour
)

// Options are the connection and delivery settings shared by tune and workers.
type Options struct {
	// URL is the broker, e.g. nats://127.0.0.1:4222 (a token may ride in it:
	// nats://TOKEN@host:4222).
	URL string
	// Token is the broker's token (Broker makes one by default; see TokenFile); Creds a
	// NATS credentials file; TLSCA a CA certificate for TLS; all optional. A token is never
	// taken from the URL (visible to every user in ps): Connect refuses nats://TOKEN@host.
	Token, Creds, TLSCA string
	// AckWait is how long a worker may hold a task without acknowledging it before it is
	// redelivered to another (a killed worker's tasks come back after it); MaxDeliver is
	// how many deliveries a task gets before it is reported as failed. Defaults 30 s and 5.
	AckWait    time.Duration
	MaxDeliver int
	// Version is the program version; workers refuse tasks of another version.
	Version string
	// StatusEvery is how often a batch without a finished game says why (no worker
	// connected, the broker unreachable, tasks refused), default 10 s; StallTimeout ends
	// the batch with an error after that long without a finished game (default 10 min).
	StatusEvery, StallTimeout time.Duration
	// TaskGames, if > 0, is how many games one task carries (1: a task per game, as for long
	// games); 0 sizes tasks automatically (Client.PlayBatch, TaskTarget).
	TaskGames int
	// Log receives progress, waiting status and workers' refusals (nil: none).
	Log io.Writer
}

func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

// TokenEnv is the environment variable clients read the broker's token from when no
// --token-file is given.
const TokenEnv = "EVOTUNE_BROKER_TOKEN"

// redact hides a URL's user information.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = url.User("REDACTED")
	return u.String()
}

// Connect opens a connection that reconnects for ever (a restarted broker is waited for)
// and makes sure the streams and the workers' consumer exist. The tune side (own) sets the
// consumer's AckWait and MaxDeliver; a worker only creates the consumer when it is missing.
func Connect(ctx context.Context, o Options, own bool) (*nats.Conn, jetstream.JetStream, error) {
	if o.AckWait <= 0 {
		o.AckWait = 30 * time.Second
	}
	if o.MaxDeliver <= 0 {
		o.MaxDeliver = 5
	}
	if u, err := url.Parse(o.URL); err == nil && u.User != nil {
		return nil, nil, fmt.Errorf("broker %s: a token or password in the URL is visible to every user of this machine (ps); give it with --token-file FILE or $%s", redact(o.URL), TokenEnv)
	}
	opts := []nats.Option{nats.Name("evotune " + o.Version), nats.MaxReconnects(-1), nats.ReconnectWait(500 * time.Millisecond),
		nats.RetryOnFailedConnect(false)}
	if o.Token != "" {
		opts = append(opts, nats.Token(o.Token))
	}
	if o.Creds != "" {
		opts = append(opts, nats.UserCredentials(o.Creds))
	}
	if o.TLSCA != "" {
		opts = append(opts, nats.RootCAs(o.TLSCA))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		if errors.Is(err, nats.ErrAuthorization) || strings.Contains(err.Error(), "Authorization") {
			return nil, nil, fmt.Errorf("broker %s: %w: give the broker's token with --token-file FILE or $%s (the broker prints where it keeps it)", o.URL, err, TokenEnv)
		}
		return nil, nil, fmt.Errorf("broker %s: %w", o.URL, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	if err := ensureStream(ctx, js, jetstream.StreamConfig{Name: TaskStream, Subjects: []string{taskPrefix + ">"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: dedupWindow}); err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("broker %s: stream %s (is JetStream enabled?): %w", o.URL, TaskStream, err)
	}
	if err := ensureStream(ctx, js, jetstream.StreamConfig{Name: ResultStream, Subjects: []string{resultPrefix + ">"},
		Storage: jetstream.FileStorage, Duplicates: dedupWindow, MaxAge: resultsMaxAge}); err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("broker %s: stream %s: %w", o.URL, ResultStream, err)
	}
	cfg := jetstream.ConsumerConfig{Durable: WorkerGroup, AckPolicy: jetstream.AckExplicitPolicy, AckWait: o.AckWait, MaxDeliver: o.MaxDeliver}
	if own {
		_, err = js.CreateOrUpdateConsumer(ctx, TaskStream, cfg)
	} else if _, err = js.Consumer(ctx, TaskStream, WorkerGroup); errors.Is(err, jetstream.ErrConsumerNotFound) {
		_, err = js.CreateConsumer(ctx, TaskStream, cfg)
		if errors.Is(err, jetstream.ErrConsumerExists) {
			err = nil
		}
	}
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("broker %s: consumer %s: %w", o.URL, WorkerGroup, err)
	}
	return nc, js, nil
}

// ensureStream creates the stream cfg names, or updates it where it exists with other
// settings; a stream that already has them is left alone. Workers and tune processes
// connect at once, and an update the server applies while another connection creates a
// consumer on the same stream races inside nats-server (fileStore.UpdateConfig against
// ConsumerStore, seen by the race detector), so no connection updates a stream that needs
// none.
func ensureStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) error {
	st, err := js.Stream(ctx, cfg.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		if _, err = js.CreateStream(ctx, cfg); !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return err
		}
		st, err = js.Stream(ctx, cfg.Name) // created by another connection meanwhile
	}
	if err != nil {
		return err
	}
	have := st.CachedInfo().Config
	if slices.Equal(have.Subjects, cfg.Subjects) && have.Retention == cfg.Retention && have.Storage == cfg.Storage &&
		have.Duplicates == cfg.Duplicates && have.MaxAge == cfg.MaxAge {
		return nil
	}
	_, err = js.UpdateStream(ctx, cfg)
	return err
}

// task is a batch's games on the wire: the batch's setup (by names, not Go values) and a
// run of its games, each keyed by its index in the batch (Games[i].Index).
type task struct {
	Version     string        `json:"version"`
	Batch       string        `json:"batch"`
	Game        string        `json:"game"`
	Rule        string        `json:"rule,omitempty"`
	Board       int           `json:"board"`
	Limits      engine.Limits `json:"limits"`
	MaxPlies    int           `json:"max_plies"`
	Forfeit     bool          `json:"forfeit"`
	OpeningRule string        `json:"opening_rule,omitempty"`
	// TimeControl, Adjudicate, MoveStats and Restart are the setup's (arena.GameSetup);
	// absent from the JSON when unset, so batches without them keep their IDs.
	TimeControl *engine.TimeControl  `json:"tc,omitempty"`
	Adjudicate  *engine.Adjudication `json:"adjudicate,omitempty"`
	MoveStats   bool                 `json:"move_stats,omitempty"`
	Restart     bool                 `json:"restart,omitempty"`
	// Run names the run and the tune process the games are for ("run 3 (gomoku) of
	// HOST/PID"), shown by the worker while it plays them; not part of the batch ID.
	Run   string     `json:"run,omitempty"`
	Games []wireGame `json:"games"`
}

// wireGame is one game of a task.
type wireGame struct {
	Index    int                    `json:"index"`
	Black    json.RawMessage        `json:"black"`
	White    json.RawMessage        `json:"white"`
	BlackExt *protocol.ExternalSpec `json:"black_ext,omitempty"`
	WhiteExt *protocol.ExternalSpec `json:"white_ext,omitempty"`
	Opening  []string               `json:"opening"`
	Depth    int                    `json:"depth,omitempty"`
	Name     string                 `json:"name,omitempty"`
}

// result is played games on the wire, each record keyed by its game's index in the batch
// (a task's records may come in several results when they would not fit one message), or
// a worker's refusal of a task (Refused says why: another build, an engine its owner did
// not allow, a task it cannot decode, a game that failed; Indices are the task's games);
// a refusal is not a game and the games go out again for another worker.
type result struct {
	Batch   string       `json:"batch"`
	Games   []playedGame `json:"games,omitempty"`
	Worker  string       `json:"worker"`
	Refused string       `json:"refused,omitempty"`
	Indices []int        `json:"indices,omitempty"`
}

// playedGame is one game's record and its index in the batch.
type playedGame struct {
	Index  int               `json:"index"`
	Record engine.GameRecord `json:"record"`
}

// encodeBatch builds the batch's task header (setup, no games), its wire games and its
// content hash (the batch ID), which does not depend on how the games are grouped into
// tasks: a resumed tune that groups them otherwise still reads back the results stored.
func encodeBatch(version string, setup arena.GameSetup, tasks []arena.GameTask) (task, []wireGame, string, error) {
	head := task{Version: version, Game: setup.Game.Name(), Rule: engine.RuleOf(setup.Game), Board: setup.Board,
		Limits: setup.Limits, MaxPlies: setup.MaxPlies, Forfeit: setup.Forfeit, OpeningRule: setup.OpeningRule,
		TimeControl: setup.TimeControl, MoveStats: setup.MoveStats, Restart: setup.Restart}
	if setup.Adjudicate.Active() {
		head.Adjudicate = &setup.Adjudicate
	}
	h := sha256.New()
	data, err := json.Marshal(head)
	if err != nil {
		return task{}, nil, "", err
	}
	h.Write(data)
	// A player's weights are the same in each of its games (a generation's candidate plays
	// 16): each distinct weights value is encoded and digested once, and a game's part of
	// the hash is its fields with the weights' digests (encoding the weights of every game
	// took half the tune process's processor time through a cluster, on the path from a
	// generation's last result to its next generation's first task).
	type encoded struct {
		raw    json.RawMessage
		digest string
	}
	memo := map[engine.Weights]encoded{}
	encode := func(w engine.Weights) (encoded, error) {
		// Only a pointer is surely comparable: a map key (a value of a type with a slice
		// would make the map lookup panic).
		key := w != nil && reflect.ValueOf(w).Kind() == reflect.Pointer
		if key {
			if e, ok := memo[w]; ok {
				return e, nil
			}
		}
		raw, err := json.Marshal(w)
		if err != nil {
			return encoded{}, err
		}
		sum := sha256.Sum256(raw)
		e := encoded{raw: raw, digest: hex.EncodeToString(sum[:])}
		if key {
			memo[w] = e
		}
		return e, nil
	}
	games := make([]wireGame, len(tasks))
	for i, t := range tasks {
		bw, err := encode(t.Black)
		if err != nil {
			return task{}, nil, "", err
		}
		ww, err := encode(t.White)
		if err != nil {
			return task{}, nil, "", err
		}
		games[i] = wireGame{Index: i, Black: bw.raw, White: ww.raw, BlackExt: t.BlackExt, WhiteExt: t.WhiteExt, Opening: t.Opening, Depth: t.Depth, Name: t.Name}
		hashed := games[i]
		hashed.Black, hashed.White = json.RawMessage(strconv.Quote(bw.digest)), json.RawMessage(strconv.Quote(ww.digest))
		data, _ := json.Marshal(hashed)
		h.Write(data)
	}
	// Deterministic games (built-in engines at fixed depth) are named by content alone: the
	// same batch gives the same records, so a resumed tune reuses them. Others (external
	// engines, a clock) get a nonce: they are played again every time.
	if setup.Limits.Time > 0 || setup.Limits.SoftTime > 0 || hasExternal(tasks) {
		fmt.Fprintf(h, "nonce %d %d", time.Now().UnixNano(), os.Getpid())
	}
	head.Batch = hex.EncodeToString(h.Sum(nil))[:24]
	return head, games, head.Batch, nil
}

func hasExternal(tasks []arena.GameTask) bool {
	for _, t := range tasks {
		if t.BlackExt != nil || t.WhiteExt != nil {
			return true
		}
	}
	return false
}

// TaskTarget is the game time one task carries when Options.TaskGames is 0: tasks of fast
// games hold several (a task costs the tune a publish and the worker a fetch, a result
// and an acknowledgement, ≈ 1–3 ms on a LAN), slow games go one per task.
const TaskTarget = time.Second

// maxTaskGames bounds the games of one task (and so one result message's size).
const maxTaskGames = 256

// Client plays batches on the cluster; it implements arena.BatchRunner.
type Client struct {
	o       Options
	nc      *nats.Conn
	js      jetstream.JetStream
	workers *roster

	mu       sync.Mutex
	run      string                   // the run the batches are for (NameRun)
	gameTime map[string]time.Duration // measured wall time per game, by setup (setupKey)
	lastGame time.Time                // the last game of any batch finished
	batches  map[string][]*follower   // the waits following each batch's results
	live     jetstream.ConsumeContext // every new result, handed to batches[its batch]
	// out is how many games this client's batches have published and not yet seen
	// finished; held the tasks of batches played ahead not yet published, oldest batch
	// first, which go out one by one while out is below the workers' game slots (pump,
	// woken through kick).
	out  int
	held []*heldBatch
	// busy is the slot time of the games told so far, less the stopped batches' (ns:
	// BusySlotTime).
	busy atomic.Int64
	kick chan struct{}
	quit chan struct{} // closed by Close: the pump ends
	once sync.Once
}

// heldBatch is a batch played ahead (StartEach): its tasks (games by index) not yet
// published, and the publication of one of them (an error ends the batch's wait).
type heldBatch struct {
	ctx   context.Context
	parts [][]int
	send  func(part []int)
}

// NewClient connects to the broker (see Connect) and asks the workers for their
// heartbeats (how many games they play at once sizes the tasks), waiting at most a
// quarter of a second for the first.
func NewClient(ctx context.Context, o Options) (*Client, error) {
	w, err := watch(ctx, o, true)
	if err != nil {
		return nil, err
	}
	c := &Client{o: o, nc: w.nc, js: w.js, workers: w.r, gameTime: map[string]time.Duration{}, batches: map[string][]*follower{},
		kick: make(chan struct{}, 1), quit: make(chan struct{})}
	// One consumer of new results for the client's life (an ordered consumer per batch
	// would leave one on the broker per batch for minutes: thousands in a run of short
	// batches, past the broker's limit).
	cons, err := w.js.OrderedConsumer(ctx, ResultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{resultPrefix + ">"},
		DeliverPolicy: jetstream.DeliverNewPolicy})
	if err == nil {
		c.live, err = cons.Consume(func(m jetstream.Msg) {
			c.mu.Lock()
			fs := c.batches[strings.TrimPrefix(m.Subject(), resultPrefix)]
			c.mu.Unlock()
			for _, f := range fs {
				f.h(m)
			}
		})
	}
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("cluster: results stream: %w", err)
	}
	w.r.wait(250 * time.Millisecond)
	go c.pump()
	return c, nil
}

// wakePump asks the pump to look at the held tasks again.
func (c *Client) wakePump() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// pump publishes the held tasks of batches played ahead, oldest first, one at a time while
// this client's games published and not yet finished are fewer than the game slots of the
// live workers of this build: the workers play them only when the batches queued before
// leave them slots free. It ends with the connection (Close).
func (c *Client) pump() {
	for {
		select {
		case <-c.kick:
		case <-c.quit:
			return
		}
		for {
			c.mu.Lock()
			for len(c.held) > 0 && (c.held[0].ctx.Err() != nil || len(c.held[0].parts) == 0) {
				c.held = c.held[1:]
			}
			if len(c.held) == 0 || c.out >= max(1, c.workers.slots(c.o.Version)) {
				c.mu.Unlock()
				break
			}
			h := c.held[0]
			part := h.parts[0]
			h.parts = h.parts[1:]
			c.mu.Unlock()
			h.send(part)
		}
	}
}

// addOut changes by d the games published and not yet finished (out).
func (c *Client) addOut(d int) {
	c.mu.Lock()
	c.out += d
	c.mu.Unlock()
	if d < 0 {
		c.wakePump()
	}
}

// BusySlotTime implements arena.SlotMeter: the slot time of every game this client's
// batches were told (as the workers timed it, engine starts included), less that of the
// games told to batches stopped since (a wait that ended with its context); a record
// without the worker's timing counts its game's wall time (GameRecord.SlotTime).
func (c *Client) BusySlotTime() time.Duration { return time.Duration(c.busy.Load()) }

// GameSlots implements arena.SlotCounter: the games the live workers of this build play at
// once, as their last heartbeats say (they may be playing other runs' games too).
func (c *Client) GameSlots() int { return c.workers.slots(c.o.Version) }

// NameRun implements arena.RunNamer: the tasks published from now on name run and this
// process (HOST/PID), so the workers' status can say whose games they play.
func (c *Client) NameRun(run string) {
	c.mu.Lock()
	c.run = run
	c.mu.Unlock()
}

// owner is how this client's tasks name their run: "run 3 (gomoku) of HOST/PID", or "a
// tune of HOST/PID" before the run is named (a calibration, a match).
func (c *Client) owner() string {
	host, _ := os.Hostname()
	c.mu.Lock()
	run := c.run
	c.mu.Unlock()
	if run == "" {
		run = "a tune"
	}
	return fmt.Sprintf("%s of %s/%d", run, host, os.Getpid())
}

// follower is a wait's handler of its batch's new results.
type follower struct{ h func(jetstream.Msg) }

// follow hands the new results of batch to h until the returned stop is called. The same
// games started again while an earlier wait of them still ends (the tuner stops a batch
// and starts it anew: its ID is its content's) are two followers, each handed every
// result: the earlier one's stop never ends the later one's.
func (c *Client) follow(batch string, h func(jetstream.Msg)) (stop func()) {
	f := &follower{h: h}
	c.mu.Lock()
	c.batches[batch] = append(c.batches[batch], f)
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		fs := slices.DeleteFunc(slices.Clone(c.batches[batch]), func(g *follower) bool { return g == f })
		if len(fs) == 0 {
			delete(c.batches, batch)
		} else {
			c.batches[batch] = fs
		}
	}
}

// Close closes the connection.
func (c *Client) Close() {
	c.live.Stop()
	c.nc.Close()
	c.once.Do(func() { close(c.quit) })
}

// setupKey names what a game's length depends on: the game, rule, board, limits and depth.
func setupKey(head task, depth int) string {
	return fmt.Sprintf("%s/%s/%d/%+v/%d", head.Game, head.Rule, head.Board, head.Limits, depth)
}

// taskSize is how many games one task of the batch carries: Options.TaskGames if set;
// else TaskTarget's worth of the games' measured length (8 before a game of this setup
// was measured), and at most an even share of the batch for twice the game slots of the
// live workers of this build (2 when none has been heard from), so every worker gets
// tasks and the batch's tail is short.
func (c *Client) taskSize(key string, n int) int {
	if c.o.TaskGames > 0 {
		return c.o.TaskGames
	}
	slots := c.workers.slots(c.o.Version)
	if slots < 1 {
		slots = 2
	}
	size := (n + 2*slots - 1) / (2 * slots)
	c.mu.Lock()
	est, ok := c.gameTime[key]
	c.mu.Unlock()
	if ok && est > 0 {
		size = min(size, int(TaskTarget/est))
	} else {
		size = min(size, 8)
	}
	return max(1, min(size, maxTaskGames))
}

// guidedParts groups the games idx (in order) into tasks by guided self-scheduling
// (Polychronopoulos and Kuck, IEEE Trans. Computers 36(12), 1987): each task takes an even
// share of the games left for twice the game slots, at most size(d) games of depth d
// (taskSize: about TaskTarget of play) and at least one; a task holds games of one depth
// (depth(i) is game i's). Along a run of games of one depth the tasks never grow, and the
// last 2·slots are a game each. The workers take the tasks in order, so the first ones
// carry long stretches of play for a task's fixed cost (a publish, a fetch and a result),
// and a batch ends with each worker on its last game or two instead of one worker on its
// last large task while the others wait for the next batch. With slots below 1 every task
// takes size(d) games (Options.TaskGames: the size the user fixed).
func guidedParts(idx []int, depth func(i int) int, size func(d int) int, slots int) [][]int {
	var parts [][]int
	for len(idx) > 0 {
		d := depth(idx[0])
		limit := size(d)
		if slots > 0 {
			limit = min(limit, (len(idx)+2*slots-1)/(2*slots))
		}
		n := 1
		for ; n < len(idx) && n < max(limit, 1) && depth(idx[n]) == d; n++ {
		}
		parts = append(parts, idx[:n])
		idx = idx[n:]
	}
	return parts
}

// measured notes that a game of one of the client's batches finished, and folds its wall
// time into the setup's estimate (a moving average over about 32 games).
func (c *Client) measured(key string, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastGame = time.Now()
	if d <= 0 {
		return
	}
	if est, ok := c.gameTime[key]; ok {
		c.gameTime[key] = est + (d-est)/32
	} else {
		c.gameTime[key] = d
	}
}

// PlayBatch implements arena.BatchRunner: it publishes the batch's games grouped into
// tasks (taskSize; the message ID names the batch and the task's games, so a task is
// queued once), reads the results of the batch in any order (new ones through the client's
// live consumer; results a killed or earlier run left on the broker first, and their games
// are not sent again), counts each game once (a redelivered task played twice) and returns
// the records in task order. A task that reaches MaxDeliver deliveries without a result
// fails the batch, naming its first game. It waits through broker restarts; only ctx and
// the stall timeout end the wait.
func (c *Client) PlayBatch(ctx context.Context, setup arena.GameSetup, tasks []arena.GameTask, done func()) ([]engine.GameRecord, error) {
	wait, err := c.StartBatch(ctx, setup, tasks, done)
	if err != nil {
		return nil, err
	}
	return wait()
}

// StartBatch implements arena.BatchStarter: it publishes the batch's tasks as PlayBatch
// does, one after another before it returns (so the tasks of batches started in turn are
// queued in turn, each batch's together), and returns the wait for their results, which
// returns what PlayBatch does. Whatever StartBatch set up for the batch (its consumers)
// ends when the wait returns, or at once when StartBatch fails.
func (c *Client) StartBatch(ctx context.Context, setup arena.GameSetup, tasks []arena.GameTask, done func()) (func() ([]engine.GameRecord, error), error) {
	wait, _, err := c.start(ctx, setup, tasks, done, nil, false)
	return wait, err
}

// StartEach is StartBatch that also tells each finished game's index and record to each
// (when not nil; before the wait can return) and, when ahead, plays the batch ahead (the
// tuner's next generation guessed while the last games of one end): its tasks are held
// here and published one by one only while this client's games published and not yet
// finished are fewer than the live workers' game slots, until promote publishes the rest
// behind the tasks queued before. An ahead batch stopped (its context ends) publishes no
// more, its tasks still queued on the broker are deleted, and the workers holding one are
// told to drop it (dropHeld: its games end at once, no result sent). Its tasks' message
// IDs carry a nonce, so the same games held again after a deletion go out again.
func (c *Client) StartEach(ctx context.Context, setup arena.GameSetup, tasks []arena.GameTask, each func(int, engine.GameRecord), ahead bool) (func() ([]engine.GameRecord, error), func(), error) {
	return c.start(ctx, setup, tasks, nil, each, ahead)
}

// start is StartBatch and StartEach: done is called once per finished game, each told
// every finished game, ahead holds the tasks (StartEach).
func (c *Client) start(ctx context.Context, setup arena.GameSetup, tasks []arena.GameTask, done func(), each func(int, engine.GameRecord), ahead bool) (_ func() ([]engine.GameRecord, error), promote func(), err error) {
	promote = func() {}
	if len(tasks) == 0 {
		// nothing to publish, and no result would ever end the wait
		return func() ([]engine.GameRecord, error) { return []engine.GameRecord{}, nil }, promote, nil
	}
	var cleanup []func() // in reverse order, when the wait returns or StartBatch fails
	end := func() {
		for k := len(cleanup) - 1; k >= 0; k-- {
			cleanup[k]()
		}
	}
	defer func() {
		if err != nil {
			end()
		}
	}()
	head, wire, batch, err := encodeBatch(c.o.Version, setup, tasks)
	if err != nil {
		return nil, nil, err
	}
	head.Run = c.owner()
	recs := make([]engine.GameRecord, len(tasks))
	got := make([]bool, len(tasks))
	sent := make([]bool, len(tasks)) // published, counted in c.out until got
	var mu sync.Mutex
	left := len(tasks)
	finished := make(chan struct{})
	failed := make(chan error, 1)
	lastGame := time.Now()         // the last finished game (or the batch's start)
	var counted time.Duration      // the slot time of its games told, in c.busy
	stopped := false               // its wait ended with ctx: its games count no more
	refusals, lastRefusal := 0, "" // refusals since the last finished game
	var again []int                // refused games to publish again at the next tick
	told := map[string]bool{}      // refusal reasons printed, by worker
	handle := func(m jetstream.Msg) {
		mu.Lock()
		defer mu.Unlock()
		var r result
		if err := json.Unmarshal(m.Data(), &r); err != nil || r.Batch != batch {
			return
		}
		if r.Refused != "" {
			refusals++
			lastRefusal = fmt.Sprintf("worker %s refused task %s: %s", r.Worker, taskName(r.Indices), r.Refused)
			if key := r.Worker + "\x00" + r.Refused; !told[key] { // each worker's reason once
				told[key] = true
				c.o.logf("cluster: %s (it goes out again for another worker)", lastRefusal)
			}
			for _, i := range r.Indices {
				if i >= 0 && i < len(tasks) && !got[i] {
					again = append(again, i)
				}
			}
			return
		}
		for _, g := range r.Games {
			if g.Index < 0 || g.Index >= len(tasks) || got[g.Index] {
				continue // a redelivered task played twice: counted once
			}
			got[g.Index], recs[g.Index] = true, g.Record
			if !stopped {
				counted += g.Record.SlotTime()
				c.busy.Add(int64(g.Record.SlotTime()))
			}
			c.measured(setupKey(head, tasks[g.Index].Depth), g.Record.Duration)
			lastGame, refusals, lastRefusal = time.Now(), 0, ""
			left--
			if sent[g.Index] {
				c.addOut(-1)
			}
			if done != nil {
				done()
			}
			if each != nil {
				each(g.Index, g.Record)
			}
			if left == 0 {
				close(finished)
			}
		}
	}
	// New results come through the client's live consumer; results a killed or earlier run
	// left on the broker for this batch are read back first, through a consumer of their own.
	cleanup = append(cleanup, c.follow(batch, handle))
	if stored := c.storedResults(ctx, batch); stored > 0 {
		readBack := make(chan struct{})
		var seen uint64
		cons, err := c.js.OrderedConsumer(ctx, ResultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{resultPrefix + batch},
			InactiveThreshold: 10 * time.Second})
		if err != nil {
			return nil, nil, fmt.Errorf("cluster: results of batch %s: %w", batch, err)
		}
		cc, err := cons.Consume(func(m jetstream.Msg) {
			handle(m)
			if seen++; seen == stored {
				close(readBack)
			}
		})
		if err != nil {
			return nil, nil, fmt.Errorf("cluster: results of batch %s: %w", batch, err)
		}
		cleanup = append(cleanup, cc.Stop)
		// Games whose results are stored are not sent again.
		select {
		case <-readBack:
		case <-time.After(10 * time.Second):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	// Tasks that ran out of deliveries.
	seqs := map[uint64][]int{}
	adv, err := c.nc.Subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+TaskStream+"."+WorkerGroup, func(m *nats.Msg) {
		var a struct {
			StreamSeq  uint64 `json:"stream_seq"`
			Deliveries int    `json:"deliveries"`
		}
		if json.Unmarshal(m.Data, &a) != nil {
			return
		}
		mu.Lock()
		first, mine := -1, false
		for _, i := range seqs[a.StreamSeq] {
			if !got[i] {
				first, mine = i, true
				break
			}
		}
		mu.Unlock()
		if mine {
			select {
			case failed <- fmt.Errorf("cluster: the task holding game %d of batch %s (%s) was delivered %d times without a result; see the workers' output", first, batch, tasks[first].Name, a.Deliveries):
			default:
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	cleanup = append(cleanup, func() { adv.Unsubscribe() })
	// split groups the games idx (in order) into tasks, consecutive games of one depth
	// together, guided (guidedParts): the first at most the depth's taskSize, the last a
	// game or a few, so the workers end a batch together.
	split := func(idx []int) [][]int {
		slots := 0 // a size fixed by Options.TaskGames: no guided shares
		if c.o.TaskGames == 0 {
			if slots = c.workers.slots(c.o.Version); slots < 1 {
				slots = 2 // none heard from yet, as taskSize assumes
			}
		}
		sizes := map[int]int{} // by depth: the largest task of this sending
		return guidedParts(idx, func(i int) int { return tasks[i].Depth }, func(d int) int {
			size, ok := sizes[d]
			if !ok {
				size = c.taskSize(setupKey(head, d), len(idx))
				sizes[d] = size
			}
			return size
		}, slots)
	}
	// publishPart publishes one task of games part; retry marks games sent before (a
	// refusal), whose message IDs must not repeat the first sending's, and a batch played
	// ahead gives each a nonce (StartEach). Once the batch is over (pubMu) it publishes
	// nothing.
	var pubMu sync.Mutex
	over := false
	msgIDs := map[uint64]string{} // each task's message ID, by sequence (under mu)
	publishPart := func(part []int, retry bool) error {
		pubMu.Lock()
		defer pubMu.Unlock()
		if over {
			return nil
		}
		if ahead {
			// A held game may have been played meanwhile (the same games of a batch stopped
			// before, whose results this batch reads too): not sent again.
			mu.Lock()
			part = slices.DeleteFunc(slices.Clone(part), func(i int) bool { return got[i] })
			mu.Unlock()
			if len(part) == 0 {
				return nil
			}
		}
		t := head
		t.Games = make([]wireGame, len(part))
		for k, i := range part {
			t.Games[k] = wire[i]
		}
		data, err := json.Marshal(t)
		if err != nil {
			return err
		}
		id := fmt.Sprintf("%s/%d+%d", batch, part[0], len(part))
		if retry {
			id += fmt.Sprintf("/retry%d", time.Now().UnixNano())
		} else if ahead {
			id += fmt.Sprintf("/ahead%d", time.Now().UnixNano())
		}
		ack, err := c.publish(ctx, taskPrefix+batch, data, id)
		if err != nil {
			return fmt.Errorf("cluster: publish the task holding game %d of batch %s: %w", part[0], batch, err)
		}
		// A duplicate (a task still queued from a killed run) acks with the original's
		// sequence: watch that one.
		mu.Lock()
		seqs[ack.Sequence] = part
		msgIDs[ack.Sequence] = id
		n := 0
		for _, i := range part {
			if !sent[i] && !got[i] {
				sent[i] = true
				n++
			}
		}
		mu.Unlock()
		c.addOut(n)
		return nil
	}
	send := func(idx []int, retry bool) error {
		for _, part := range split(idx) {
			if err := publishPart(part, retry); err != nil {
				return err
			}
		}
		return nil
	}
	// At the batch's end: no more publishing; the games published and not finished leave
	// c.out, and a batch played ahead that stopped deletes its tasks still queued.
	cleanup = append(cleanup, func() {
		pubMu.Lock()
		over = true
		pubMu.Unlock()
		mu.Lock()
		n := 0
		for i := range sent {
			if sent[i] && !got[i] {
				sent[i] = false
				n++
			}
		}
		var stale []uint64
		var staleIDs []string
		for seq, part := range seqs {
			for _, i := range part {
				if !got[i] {
					stale, staleIDs = append(stale, seq), append(staleIDs, msgIDs[seq])
					break
				}
			}
		}
		mu.Unlock()
		c.addOut(-n)
		if ahead && len(stale) > 0 {
			c.deleteTasks(stale)
			c.dropHeld(staleIDs)
		}
	})
	var todo []int
	mu.Lock()
	for i := range wire {
		if !got[i] {
			todo = append(todo, i)
		}
	}
	mu.Unlock()
	fail := func(err error) {
		select {
		case failed <- err:
		default:
		}
	}
	if ahead {
		// A game at a time: the pump fills the slots that free up one by one, and a batch
		// stopped (a guess that was wrong) holds no worker's slot for more than a game.
		parts := make([][]int, len(todo))
		for k, i := range todo {
			parts[k] = []int{i}
		}
		h := &heldBatch{ctx: ctx, parts: parts, send: func(part []int) {
			if err := publishPart(part, false); err != nil {
				fail(err)
			}
		}}
		c.mu.Lock()
		c.held = append(c.held, h)
		c.mu.Unlock()
		cleanup = append(cleanup, func() { c.unhold(h) })
		c.wakePump()
		// Promoted, the games still held go out as an ordinary batch's would (guided
		// tasks), not a game a task: each task costs a publish, a fetch and a result.
		promote = func() {
			var rest []int
			for _, part := range c.unhold(h) {
				rest = append(rest, part...)
			}
			if err := send(rest, false); err != nil {
				fail(err)
			}
		}
	} else if err := send(todo, false); err != nil {
		return nil, nil, err
	}
	// The wait: results as they come, refused games sent again, the stall timeout.
	return func() ([]engine.GameRecord, error) {
		defer end()
		stall := orDefault(c.o.StallTimeout, 10*time.Minute)
		every := min(orDefault(c.o.StatusEvery, 10*time.Second), stall/2)
		tick := time.NewTicker(min(every, time.Second))
		defer tick.Stop()
		lastStatus := time.Now()
		for {
			select {
			case <-finished:
				return recs, nil
			case err := <-failed:
				return nil, err
			case <-ctx.Done():
				// Stopped (an ahead batch whose guess was wrong, a run ended): its games'
				// records are never used, so their slot time is not busy time.
				mu.Lock()
				stopped = true
				c.busy.Add(-int64(counted))
				counted = 0
				mu.Unlock()
				return nil, ctx.Err()
			case <-tick.C:
				// Refused games go out again (another worker may take them; a pool that only
				// refuses ends at the stall time), at most once a tick.
				mu.Lock()
				var resend []int
				for _, i := range again {
					if !got[i] {
						resend = append(resend, i)
					}
				}
				again = nil
				mu.Unlock()
				slices.Sort(resend)
				if err := send(slices.Compact(resend), true); err != nil {
					return nil, err
				}
				mu.Lock()
				idle, why := time.Since(lastGame), lastRefusal
				n := refusals
				mu.Unlock()
				c.mu.Lock()
				if any := time.Since(c.lastGame); any < idle && n == 0 {
					idle = any // batches played at once: the workers are busy with another of this client's batches
				}
				c.mu.Unlock()
				if idle < stall && (idle < every || time.Since(lastStatus) < every) {
					continue
				}
				lastStatus = time.Now()
				status := c.status(ctx)
				if n > 0 {
					status += fmt.Sprintf("; %d refusals, the last: %s", n, why)
				}
				if idle >= stall {
					return nil, fmt.Errorf("cluster: no game of batch %s finished for %v (%s); stopping (--broker-timeout)", batch, idle.Round(time.Second), status)
				}
				c.o.logf("cluster: no game finished for %v: %s; waiting (up to --broker-timeout %v)", idle.Round(time.Second), status, stall)
			}
		}
	}, promote, nil
}

// unhold takes batch h off the held batches and returns its tasks not yet published.
func (c *Client) unhold(h *heldBatch) [][]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	parts := h.parts
	h.parts = nil
	c.held = slices.DeleteFunc(c.held, func(o *heldBatch) bool { return o == h })
	return parts
}

// dropHeld tells the workers that the tasks of message IDs ids are wanted no more: one
// holding such a task ends its games at once and drops it (a worker of an older build
// plays it to its end).
func (c *Client) dropHeld(ids []string) {
	data, err := json.Marshal(dropNote{IDs: ids})
	if err == nil {
		c.nc.Publish(stopSubject, data)
	}
}

// deleteTasks deletes the task messages seqs from the work queue (those a worker holds, or
// that were played meanwhile, are gone or played to their end).
func (c *Client) deleteTasks(seqs []uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := c.js.Stream(ctx, TaskStream)
	if err != nil {
		return
	}
	for _, seq := range seqs {
		st.DeleteMsg(ctx, seq)
	}
}

// storedResults is how many result messages of the batch the results stream holds (0 when
// the broker does not say).
func (c *Client) storedResults(ctx context.Context, batch string) uint64 {
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := c.js.Stream(qctx, ResultStream)
	if err != nil {
		return 0
	}
	info, err := s.Info(qctx, jetstream.WithSubjectFilter(resultPrefix+batch))
	if err != nil {
		return 0
	}
	return info.State.Subjects[resultPrefix+batch]
}

// status describes the broker and its work queue for a batch that waits: unreachable, or
// the workers heard from, how many tasks are queued and how many are being played.
func (c *Client) status(ctx context.Context) string {
	if !c.nc.IsConnected() {
		return fmt.Sprintf("the broker %s is unreachable (%s), reconnecting", c.o.URL, strings.ToLower(c.nc.Status().String()))
	}
	q, err := queueStatus(ctx, c.js)
	if err != nil {
		return fmt.Sprintf("the broker does not answer: %v", err)
	}
	live := c.workers.live()
	workers := "no worker is connected"
	if len(live) > 0 {
		mine, slots := 0, 0
		for _, w := range live {
			if w.Version == c.o.Version {
				mine++
				slots += w.Slots
			}
		}
		workers = fmt.Sprintf("%d workers connected, %d of this build (%d games at once)", len(live), mine, slots)
		if others := busyElsewhere(live, c.owner()); others != "" {
			workers += "; " + others
		}
	}
	return fmt.Sprintf("broker connected, %s, %d tasks queued, %d being played", workers, q.Queued, q.InFlight)
}

// busyElsewhere names the workers busy with another run's tasks than mine ("worker h/12
// busy with run 2 (gomoku) of h/40 for 9m30s"), the longest held task of each; "" when
// none is.
func busyElsewhere(live []WorkerStatus, mine string) string {
	var parts []string
	for _, w := range live {
		for _, b := range w.Busy {
			if b.Run != mine {
				parts = append(parts, fmt.Sprintf("worker %s busy with %s for %v", w.ID, b.Run, (time.Duration(b.Seconds)*time.Second).Round(time.Second)))
				break
			}
		}
	}
	return strings.Join(parts, ", ")
}

// publish retries through a broker restart until ctx ends or the broker stays away for
// the stall timeout, saying so every StatusEvery.
func (c *Client) publish(ctx context.Context, subj string, data []byte, id string) (*jetstream.PubAck, error) {
	start, said := time.Now(), time.Now()
	for {
		ack, err := c.js.Publish(ctx, subj, data, jetstream.WithMsgID(id))
		if err == nil {
			return ack, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if stall := orDefault(c.o.StallTimeout, 10*time.Minute); time.Since(start) >= stall {
			return nil, fmt.Errorf("the broker %s did not take a task for %v: %v; stopping (--broker-timeout)", c.o.URL, time.Since(start).Round(time.Second), err)
		}
		if time.Since(said) >= orDefault(c.o.StatusEvery, 10*time.Second) {
			c.o.logf("cluster: the broker %s does not take tasks for %v (%v); retrying", c.o.URL, time.Since(start).Round(time.Second), err)
			said = time.Now()
		}
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// StartBroker starts an embedded NATS server with JetStream (file storage in store) on
// host:port (port −1: a free one) and waits until it accepts connections; token, if not
// empty, is the token every client must give. The error names a server that would not
// start or was not ready within 15 s (a port in use). Stop it with Shutdown.
func StartBroker(host string, port int, store, token string) (*server.Server, error) {
	s, err := server.NewServer(&server.Options{Host: host, Port: port, JetStream: true, StoreDir: store, NoSigs: true, Authorization: token})
	if err != nil {
		return nil, fmt.Errorf("broker: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(15 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("broker: not ready on %s:%d after 15 s (port in use?)", host, port)
	}
	return s, nil
}
