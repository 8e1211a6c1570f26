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
	"os"
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
	noticePrefix  = "evotune.notice."
	dedupWindow   = 24 * time.Hour
	resultsMaxAge = 24 * time.Hour
)

// Options are the connection and delivery settings shared by tune and workers.
type Options struct {
	// URL is the broker, e.g. nats://127.0.0.1:4222 (a token may ride in it:
	// nats://TOKEN@host:4222).
	URL string
	// Creds is a NATS credentials file; TLSCA a CA certificate for TLS; both optional.
	Creds, TLSCA string
	// AckWait is how long a worker may hold a task without acknowledging it before it is
	// redelivered to another (a killed worker's tasks come back after it); MaxDeliver is
	// how many deliveries a task gets before it is reported as failed. Defaults 30 s and 5.
	AckWait    time.Duration
	MaxDeliver int
	// Version is the program version; workers refuse tasks of another version.
	Version string
	// Log receives progress and notices (nil: none).
	Log io.Writer
}

func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
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
	opts := []nats.Option{nats.Name("evotune " + o.Version), nats.MaxReconnects(-1), nats.ReconnectWait(500 * time.Millisecond),
		nats.RetryOnFailedConnect(false)}
	if o.Creds != "" {
		opts = append(opts, nats.UserCredentials(o.Creds))
	}
	if o.TLSCA != "" {
		opts = append(opts, nats.RootCAs(o.TLSCA))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
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

// result is a played task on the wire.
type result struct {
	Batch  string            `json:"batch"`
	Index  int               `json:"index"`
	Record engine.GameRecord `json:"record"`
	Worker string            `json:"worker"`
}

// notice is a worker's message about a task it refused (a version or engine it may not
// run), published on evotune.notice.BATCH for the tune process to print.
type notice struct {
	Batch, Worker, Text string
	Index               int
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
		got[r.Index], recs[r.Index] = true, r.Record
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
	// Tasks that ran out of deliveries, and workers' notices.
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
	note, err := c.nc.Subscribe(noticePrefix+batch, func(m *nats.Msg) {
		var n notice
		if json.Unmarshal(m.Data, &n) == nil {
			c.o.logf("worker %s, task %d: %s", n.Worker, n.Index, n.Text)
		}
	})
	if err != nil {
		return nil, err
	}
	defer note.Unsubscribe()
	for i, t := range wire {
		mu.Lock()
		have := got[i]
		mu.Unlock()
		if have {
			continue
		}
		data, _ := json.Marshal(t)
		ack, err := c.publish(ctx, taskPrefix+batch, data, fmt.Sprintf("%s/%d", batch, i))
		if err != nil {
			return nil, fmt.Errorf("cluster: publish task %d of batch %s: %w", i, batch, err)
		}
		// A duplicate (a task still queued from a killed run) acks with the original's
		// sequence: watch that one.
		mu.Lock()
		seqs[ack.Sequence] = i
		mu.Unlock()
	}
	select {
	case <-finished:
	case err := <-failed:
		return nil, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return recs, nil
}

// publish retries through a broker restart until ctx ends.
func (c *Client) publish(ctx context.Context, subj string, data []byte, id string) (*jetstream.PubAck, error) {
	for {
		ack, err := c.js.Publish(ctx, subj, data, jetstream.WithMsgID(id))
		if err == nil {
			return ack, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		c.o.logf("cluster: publish: %v; retrying", err)
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// WorkerOptions configure a worker.
type WorkerOptions struct {
	Options
	// Workers is how many games it plays at once (one engine pair per goroutine).
	Workers int
	// Allow lists the external engine programs this worker may run; a task naming any
	// other is refused (a task never makes a worker run a command it was not told to trust).
	Allow []string
	// Allowed decides whether a program is in Allow (the same path, or the same file).
	Allowed func(prog string, allow []string) bool
}

// Work pulls tasks and plays them until ctx ends: each task's game is played in this
// process (tuner.PlayLocal, fresh players), its record published on the results stream
// with the task's ID, then the task is acknowledged; a long game keeps its task with
// in-progress signals. A task naming an external engine not allowed is refused (negatively
// acknowledged, so another worker may take it) with a notice to the tune process; a task
// of another program version is refused the same way and the worker stops with that
// error (every task of that run would be refused, each refusal using up a delivery).
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
	o.logf("worker %d×, broker %s, ack wait %v", max(1, o.Workers), o.URL, o.AckWait)
	host, _ := os.Hostname()
	me := fmt.Sprintf("%s/%d", host, os.Getpid())
	var played, mu = 0, sync.Mutex{}
	start := time.Now()
	ctx, stopAll := context.WithCancel(ctx)
	defer stopAll()
	var versionErr error
	var wg sync.WaitGroup
	for w := 0; w < max(1, o.Workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
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
					if t.Version != "" && t.Version != o.Version {
						// Every task of that run will be refused: stop pulling them (each pull
						// uses up one of the task's deliveries) and say so once.
						data, _ := json.Marshal(notice{Batch: t.Batch, Index: t.Index, Worker: me, Text: refuse})
						nc.Publish(noticePrefix+t.Batch, data)
						m.Nak()
						mu.Lock()
						if versionErr == nil {
							versionErr = fmt.Errorf("refused task %d of batch %s: %s; this worker stops", t.Index, t.Batch, refuse)
							o.logf("%v", versionErr)
						}
						mu.Unlock()
						stopAll()
						return
					}
					if refuse != "" {
						o.logf("refused task %d of batch %s: %s", t.Index, t.Batch, refuse)
						data, _ := json.Marshal(notice{Batch: t.Batch, Index: t.Index, Worker: me, Text: refuse})
						nc.Publish(noticePrefix+t.Batch, data)
						m.NakWithDelay(time.Second)
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
	return versionErr
}

// play decodes and plays one task; refuse says why the worker will not.
func play(ctx context.Context, o WorkerOptions, m jetstream.Msg, js jetstream.JetStream) (engine.GameRecord, task, string) {
	var t task
	if err := json.Unmarshal(m.Data(), &t); err != nil {
		m.Term() // never playable: do not redeliver
		return engine.GameRecord{}, t, "undecodable task: " + err.Error()
	}
	if t.Version != o.Version {
		return engine.GameRecord{}, t, fmt.Sprintf("the task is for evotune %s, this worker is %s: results of different engines must not mix; run a worker of that version", t.Version, o.Version)
	}
	for _, ext := range []*protocol.ExternalSpec{t.BlackExt, t.WhiteExt} {
		if ext != nil && (len(ext.Argv) == 0 || o.Allowed == nil || !o.Allowed(ext.Argv[0], o.Allow)) {
			return engine.GameRecord{}, t, fmt.Sprintf("the task runs the external engine %s, which this worker was not started with --allow-engine for", ext.Name())
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
