// Package cluster plays tuning and match games on other machines through NATS JetStream
// (github.com/nats-io/nats.go; an embedded github.com/nats-io/nats-server/v2 for a
// single-command broker). The tune process publishes each batch's games as tasks on a
// work-queue stream; workers anywhere pull them, play them with their own built-in
// engines and publish the records on a results stream, keyed by task; the tune process
// collects them in task order, so its database is the same as with the local pool.
//
// Streams (created by whoever connects first, file storage):
//
//	EVOTUNE_TASKS   evotune.task.BATCH     work queue; consumer "workers" (explicit ack,
//	                                        AckWait, MaxDeliver)
//	EVOTUNE_RESULTS evotune.result.BATCH   results, kept 24 h, deduplicated by task
//
// BATCH is a hash of the batch's content (setup and tasks), so a tune that is killed and
// resumed publishes the same tasks again: JetStream drops the duplicates still queued and
// the results already played (kept 24 h) are read back, so nothing is played or counted
// twice. Batches that are not deterministic (external engines, a clock) get a nonce.
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
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner"
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
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: TaskStream, Subjects: []string{taskPrefix + ">"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: dedupWindow}); err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("broker %s: stream %s (is JetStream enabled?): %w", o.URL, TaskStream, err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: ResultStream, Subjects: []string{resultPrefix + ">"},
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

// task is one game on the wire: the batch's setup (by names, not Go values) and the task.
type task struct {
	Version     string                 `json:"version"`
	Batch       string                 `json:"batch"`
	Index       int                    `json:"index"`
	Game        string                 `json:"game"`
	Rule        string                 `json:"rule,omitempty"`
	Board       int                    `json:"board"`
	Limits      engine.Limits          `json:"limits"`
	MaxPlies    int                    `json:"max_plies"`
	Forfeit     bool                   `json:"forfeit"`
	OpeningRule string                 `json:"opening_rule,omitempty"`
	Black       json.RawMessage        `json:"black"`
	White       json.RawMessage        `json:"white"`
	BlackExt    *protocol.ExternalSpec `json:"black_ext,omitempty"`
	WhiteExt    *protocol.ExternalSpec `json:"white_ext,omitempty"`
	Opening     []string               `json:"opening"`
	Depth       int                    `json:"depth,omitempty"`
	Name        string                 `json:"name,omitempty"`
}

// result is a played task on the wire, or a worker's refusal of it (Refused says why:
// another build, an engine its owner did not allow, a task it cannot decode); a refusal
// is not a game and the task goes out again for another worker.
type result struct {
	Batch   string            `json:"batch"`
	Index   int               `json:"index"`
	Record  engine.GameRecord `json:"record"`
	Worker  string            `json:"worker"`
	Refused string            `json:"refused,omitempty"`
}

func ruleOf(g engine.Game) string {
	if r, ok := g.(engine.Ruled); ok {
		return r.RuleName()
	}
	return ""
}

// encodeBatch builds the wire tasks of a batch and its content hash (the batch ID).
func encodeBatch(version string, setup tuner.GameSetup, tasks []tuner.GameTask) ([]task, string, error) {
	out := make([]task, len(tasks))
	h := sha256.New()
	for i, t := range tasks {
		bw, err := json.Marshal(t.Black)
		if err != nil {
			return nil, "", err
		}
		ww, err := json.Marshal(t.White)
		if err != nil {
			return nil, "", err
		}
		out[i] = task{Version: version, Index: i, Game: setup.Game.Name(), Rule: ruleOf(setup.Game), Board: setup.Board,
			Limits: setup.Limits, MaxPlies: setup.MaxPlies, Forfeit: setup.Forfeit, OpeningRule: setup.OpeningRule,
			Black: bw, White: ww, BlackExt: t.BlackExt, WhiteExt: t.WhiteExt, Opening: t.Opening, Depth: t.Depth, Name: t.Name}
		data, _ := json.Marshal(out[i])
		h.Write(data)
	}
	// Deterministic games (built-in engines at fixed depth) are named by content alone: the
	// same batch gives the same records, so a resumed tune reuses them. Others (external
	// engines, a clock) get a nonce: they are played again every time.
	if setup.Limits.Time > 0 || setup.Limits.SoftTime > 0 || hasExternal(tasks) {
		fmt.Fprintf(h, "nonce %d %d", time.Now().UnixNano(), os.Getpid())
	}
	id := hex.EncodeToString(h.Sum(nil))[:24]
	for i := range out {
		out[i].Batch = id
	}
	return out, id, nil
}

func hasExternal(tasks []tuner.GameTask) bool {
	for _, t := range tasks {
		if t.BlackExt != nil || t.WhiteExt != nil {
			return true
		}
	}
	return false
}

// Client plays batches on the cluster; it implements tuner.BatchRunner.
type Client struct {
	o  Options
	nc *nats.Conn
	js jetstream.JetStream
}

// NewClient connects to the broker (see Connect).
func NewClient(ctx context.Context, o Options) (*Client, error) {
	nc, js, err := Connect(ctx, o, true)
	if err != nil {
		return nil, err
	}
	return &Client{o: o, nc: nc, js: js}, nil
}

// Close closes the connection.
func (c *Client) Close() { c.nc.Close() }

// PlayBatch implements tuner.BatchRunner: it publishes the batch's tasks (each once: the
// message ID is BATCH/INDEX), reads the results of the batch in any order, counts each
// task once and returns the records in task order. A task that reaches MaxDeliver
// deliveries without a result fails the batch, naming it. It waits through broker
// restarts; only ctx ends the wait.
func (c *Client) PlayBatch(ctx context.Context, setup tuner.GameSetup, tasks []tuner.GameTask, done func()) ([]engine.GameRecord, error) {
	wire, batch, err := encodeBatch(c.o.Version, setup, tasks)
	if err != nil {
		return nil, err
	}
	recs := make([]engine.GameRecord, len(tasks))
	got := make([]bool, len(tasks))
	var mu sync.Mutex
	left := len(tasks)
	finished := make(chan struct{})
	failed := make(chan error, 1)
	lastGame := time.Now()             // the last finished game (or the batch's start)
	refusals, lastRefusal := 0, ""     // refusals since the last finished game
	retries := make([]int, len(tasks)) // a refused task is published again, under a new ID
	var again []int                    // refused tasks to publish again at the next tick
	told := map[string]bool{}          // refusal reasons printed, by worker
	// Results first (the stream keeps them: results of a resumed batch are read back).
	cons, err := c.js.OrderedConsumer(ctx, ResultStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{resultPrefix + batch}})
	if err != nil {
		return nil, fmt.Errorf("cluster: results of batch %s: %w", batch, err)
	}
	cc, err := cons.Consume(func(m jetstream.Msg) {
		var r result
		if err := json.Unmarshal(m.Data(), &r); err != nil || r.Batch != batch || r.Index < 0 || r.Index >= len(tasks) {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if got[r.Index] {
			return // a redelivered task played twice: counted once
		}
		if r.Refused != "" {
			refusals++
			lastRefusal = fmt.Sprintf("worker %s refused task %d: %s", r.Worker, r.Index, r.Refused)
			if key := r.Worker + "\x00" + r.Refused; !told[key] { // each worker's reason once
				told[key] = true
				c.o.logf("cluster: %s (it goes out again for another worker)", lastRefusal)
			}
			again = append(again, r.Index)
			return
		}
		got[r.Index], recs[r.Index] = true, r.Record
		lastGame, refusals, lastRefusal = time.Now(), 0, ""
		left--
		if done != nil {
			done()
		}
		if left == 0 {
			close(finished)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: results of batch %s: %w", batch, err)
	}
	defer cc.Stop()
	// Tasks that ran out of deliveries.
	seqs := map[uint64]int{}
	adv, err := c.nc.Subscribe("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+TaskStream+"."+WorkerGroup, func(m *nats.Msg) {
		var a struct {
			StreamSeq  uint64 `json:"stream_seq"`
			Deliveries int    `json:"deliveries"`
		}
		if json.Unmarshal(m.Data, &a) != nil {
			return
		}
		mu.Lock()
		i, ok := seqs[a.StreamSeq]
		mine := ok && !got[i]
		mu.Unlock()
		if mine {
			select {
			case failed <- fmt.Errorf("cluster: task %d of batch %s (%s) was delivered %d times without a result; see the workers' output", i, batch, tasks[i].Name, a.Deliveries):
			default:
			}
		}
	})
	if err != nil {
		return nil, err
	}
	defer adv.Unsubscribe()
	send := func(i int) error {
		data, _ := json.Marshal(wire[i])
		id := fmt.Sprintf("%s/%d", batch, i)
		mu.Lock()
		if retries[i] > 0 {
			id += fmt.Sprintf("/retry%d", retries[i])
		}
		mu.Unlock()
		ack, err := c.publish(ctx, taskPrefix+batch, data, id)
		if err != nil {
			return fmt.Errorf("cluster: publish task %d of batch %s: %w", i, batch, err)
		}
		// A duplicate (a task still queued from a killed run) acks with the original's
		// sequence: watch that one.
		mu.Lock()
		seqs[ack.Sequence] = i
		mu.Unlock()
		return nil
	}
	for i := range wire {
		mu.Lock()
		have := got[i]
		mu.Unlock()
		if have {
			continue
		}
		if err := send(i); err != nil {
			return nil, err
		}
	}
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
			return nil, ctx.Err()
		case <-tick.C:
			// Refused tasks go out again (another worker may take them; a pool that only
			// refuses ends at the stall time), at most once a tick.
			mu.Lock()
			resend := again
			again = nil
			for _, i := range resend {
				retries[i]++
			}
			mu.Unlock()
			for _, i := range resend {
				mu.Lock()
				have := got[i]
				mu.Unlock()
				if !have {
					if err := send(i); err != nil {
						return nil, err
					}
				}
			}
			mu.Lock()
			idle, why := time.Since(lastGame), lastRefusal
			n := refusals
			mu.Unlock()
			if idle < every || time.Since(lastStatus) < every {
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
}

// status describes the broker and its work queue for a batch that waits: unreachable, or
// how many workers wait for tasks, how many tasks are queued and how many are being played.
func (c *Client) status(ctx context.Context) string {
	if !c.nc.IsConnected() {
		return fmt.Sprintf("the broker %s is unreachable (%s), reconnecting", c.o.URL, strings.ToLower(c.nc.Status().String()))
	}
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	cons, err := c.js.Consumer(qctx, TaskStream, WorkerGroup)
	if err != nil {
		return fmt.Sprintf("the broker does not answer: %v", err)
	}
	info, err := cons.Info(qctx)
	if err != nil {
		return fmt.Sprintf("the broker does not answer: %v", err)
	}
	workers := "no worker is asking for tasks"
	if info.NumWaiting > 0 {
		workers = fmt.Sprintf("%d worker requests waiting for tasks", info.NumWaiting)
	}
	return fmt.Sprintf("broker connected, %s, %d tasks queued, %d being played", workers, info.NumPending, info.NumAckPending)
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
}

// Work pulls tasks and plays them until ctx ends: each task's game is played in this
// process (tuner.PlayLocal, fresh players), its record published on the results stream
// with the task's ID, then the task is acknowledged; a long game keeps its task with
// in-progress signals. A task is data: one this worker will not or cannot play (another
// build, an external engine whose command line its owner did not list, an undecodable
// task) is answered with a refusal on the results stream and terminated (JetStream Term,
// never redelivered to it), and the worker keeps serving; the tune process publishes it
// again for another worker and reports the refusal.
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
	if info, err := cons.Info(ctx); err == nil {
		o.AckWait = info.Config.AckWait // the tune's setting: keep tasks with signals well within it
	}
	o.logf("worker %d×, broker %s, ack wait %v, build %s", max(1, o.Workers), o.URL, o.AckWait, o.Version)
	host, _ := os.Hostname()
	me := fmt.Sprintf("%s/%d", host, os.Getpid())
	var played, refused, mu = 0, 0, sync.Mutex{}
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < max(1, o.Workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
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
					rec, t, refuse := play(ctx, o, m, js)
					if refuse != "" {
						// The task is data this worker will not or cannot play: say why in its
						// result, end this delivery for good (Term: no redelivery uses up the
						// task here) and keep serving. The tune process sends it out again for
						// another worker and says so.
						o.logf("refused task %d of batch %s: %s", t.Index, t.Batch, refuse)
						data, _ := json.Marshal(result{Batch: t.Batch, Index: t.Index, Worker: me, Refused: refuse})
						if t.Batch != "" {
							js.Publish(ctx, resultPrefix+t.Batch, data, jetstream.WithMsgID(fmt.Sprintf("%s/%d/%s/refused/%s", t.Batch, t.Index, m.Headers().Get(nats.MsgIdHdr), me)))
						}
						m.Term()
						mu.Lock()
						refused++
						mu.Unlock()
						// Leave the queue to workers that can play it for a while: the next
						// tasks are likely of the same run (twice as long each time, ≤ 30 s).
						backoff = min(max(2*backoff, time.Second), 30*time.Second)
						select {
						case <-time.After(backoff):
						case <-ctx.Done():
						}
						continue
					}
					if ctx.Err() != nil {
						m.Nak()
						return
					}
					data, _ := json.Marshal(result{Batch: t.Batch, Index: t.Index, Record: rec, Worker: me})
					if _, err := js.Publish(ctx, resultPrefix+t.Batch, data, jetstream.WithMsgID(fmt.Sprintf("%s/%d", t.Batch, t.Index))); err != nil {
						m.Nak()
						continue
					}
					m.Ack()
					backoff = 0
					mu.Lock()
					played++
					n := played
					mu.Unlock()
					o.logf("played %s game %d of batch %s (%s, %d plies, %s) in %.2fs; %d games, %.2f games/s",
						t.Game, t.Index, t.Batch, t.Name, rec.Plies, rec.Outcome, rec.Duration.Seconds(), n, float64(n)/time.Since(start).Seconds())
				}
			}
		}()
	}
	wg.Wait()
	o.logf("worker stopped: %d games played, %d tasks refused", played, refused)
	return nil
}

// batchID is what encodeBatch names a batch: 24 hexadecimal digits.
var batchID = regexp.MustCompile(`^[0-9a-f]{24}$`)

// play decodes and plays one task; refuse says why the worker will not.
func play(ctx context.Context, o WorkerOptions, m jetstream.Msg, js jetstream.JetStream) (engine.GameRecord, task, string) {
	var t task
	if err := json.Unmarshal(m.Data(), &t); err != nil {
		return engine.GameRecord{}, task{}, "undecodable task: " + err.Error()
	}
	if !batchID.MatchString(t.Batch) {
		return engine.GameRecord{}, task{Index: t.Index}, "the task's batch is not a batch ID"
	}
	if t.Version != o.Version {
		return engine.GameRecord{}, t, "the task is for another build of evotune than this worker's: results of different engines must not mix; run workers of the tune's build"
	}
	for _, ext := range []*protocol.ExternalSpec{t.BlackExt, t.WhiteExt} {
		if ext != nil && (len(ext.Argv) == 0 || o.Allowed == nil || !o.Allowed(ext.Argv, o.Allow)) {
			return engine.GameRecord{}, t, fmt.Sprintf("the task runs the external engine %s, a command line this worker's owner did not list with --allow-engine", ext.Name())
		}
	}
	entry, err := genomes.Lookup(t.Game)
	if err != nil {
		return engine.GameRecord{}, t, err.Error()
	}
	g := entry.Game
	if t.Rule != "" {
		if r, ok := g.(engine.Ruled); ok {
			if g, err = r.WithRule(t.Rule); err != nil {
				return engine.GameRecord{}, t, err.Error()
			}
		}
	}
	black, err := g.DecodeWeights(t.Black)
	if err != nil {
		return engine.GameRecord{}, t, "black weights: " + err.Error()
	}
	white, err := g.DecodeWeights(t.White)
	if err != nil {
		return engine.GameRecord{}, t, "white weights: " + err.Error()
	}
	setup := tuner.GameSetup{Game: g, Board: t.Board, Limits: t.Limits, MaxPlies: t.MaxPlies, Forfeit: t.Forfeit, OpeningRule: t.OpeningRule}
	gt := tuner.GameTask{Black: black, White: white, BlackExt: t.BlackExt, WhiteExt: t.WhiteExt, Opening: t.Opening, Depth: t.Depth, Name: t.Name}
	// Keep the task while the game runs (AckWait would hand it to another worker).
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(max(o.AckWait/3, time.Second))
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				m.InProgress()
			case <-stop:
				return
			}
		}
	}()
	rec, err := tuner.PlayLocal(ctx, setup, gt)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return rec, t, ""
		}
		return rec, t, "the game failed: " + err.Error()
	}
	return rec, t, ""
}
