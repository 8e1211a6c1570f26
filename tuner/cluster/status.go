package cluster

import (
	"context"
	"encoding/json"
	"sort"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Subjects of the workers' heartbeats (core NATS, not stored): every worker publishes its
// WorkerStatus on heartbeatSubject every HeartbeatEvery and at once when anybody publishes
// on pingSubject.
const (
	heartbeatSubject = "evotune.worker.heartbeat"
	pingSubject      = "evotune.worker.ping"
	// stopSubject carries a tune's list of task message IDs it no longer wants (dropNote):
	// a worker holding one ends its games and drops it.
	stopSubject = "evotune.worker.stop"
	// HeartbeatEvery is how often a worker says it is alive; a worker not heard from for
	// three times that is not counted as connected.
	HeartbeatEvery = 2 * time.Second
)

// WorkerStatus is a worker's heartbeat: who it is, how many games it plays at once and
// what it has done. Times are UTC; rates are games per second.
type WorkerStatus struct {
	// ID is HOST/PID.
	ID      string `json:"id"`
	Host    string `json:"host"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
	// Slots is how many games it plays at once (its --workers).
	Slots int `json:"slots"`
	// Started is when it started (its wall clock, UTC); UpSeconds how long ago, by its
	// monotonic clock (immune to clock changes).
	Started   time.Time `json:"started"`
	UpSeconds float64   `json:"up_s"`
	// Played is games played and published since it started; Tasks tasks acknowledged;
	// Refused tasks refused (another build, an engine not allowed, a failed game).
	Played  int `json:"played"`
	Tasks   int `json:"tasks"`
	Refused int `json:"refused"`
	// Dropped is tasks in hand that their tune stopped (games played ahead on a guess that
	// was wrong), their games ended at once and their results never sent.
	Dropped int `json:"dropped,omitempty"`
	// Playing names the games being played now (the tasks' game names).
	Playing []string `json:"playing,omitempty"`
	// Busy is the tasks in hand, the longest held first: whose run they are for and for
	// how long.
	Busy []Busy `json:"busy,omitempty"`
	// Recent is games per second over the last minute; CPUSeconds the process's CPU time
	// (user and system) since it started.
	Recent     float64 `json:"games_per_s"`
	CPUSeconds float64 `json:"cpu_s"`
	// Stopping is set in the last heartbeat of a worker that stops.
	Stopping bool `json:"stopping,omitempty"`
	// Seen is when this heartbeat arrived (set by the receiver, not sent).
	Seen time.Time `json:"-"`
}

// Busy is a task a worker holds: the run it is for, as the publishing tune named it
// ("run 3 (gomoku) of HOST/PID"), its batch ID, its number of games and how long the
// worker has held it, in seconds.
type Busy struct {
	Run     string  `json:"run"`
	Batch   string  `json:"batch"`
	Games   int     `json:"games"`
	Seconds float64 `json:"for_s"`
}

// roster keeps the latest heartbeat of each worker.
type roster struct {
	mu    sync.Mutex
	byID  map[string]WorkerStatus
	first chan struct{} // closed at the first heartbeat
	once  sync.Once
	sub   *nats.Subscription
}

// watchWorkers subscribes to the heartbeats and asks every worker for one now.
func watchWorkers(nc *nats.Conn) (*roster, error) {
	r := &roster{byID: map[string]WorkerStatus{}, first: make(chan struct{})}
	sub, err := nc.Subscribe(heartbeatSubject, func(m *nats.Msg) {
		var w WorkerStatus
		if json.Unmarshal(m.Data, &w) != nil || w.ID == "" {
			return
		}
		w.Seen = time.Now()
		r.mu.Lock()
		if w.Stopping {
			delete(r.byID, w.ID)
		} else {
			r.byID[w.ID] = w
		}
		r.mu.Unlock()
		r.once.Do(func() { close(r.first) })
	})
	if err != nil {
		return nil, err
	}
	r.sub = sub
	if err := nc.Publish(pingSubject, nil); err != nil {
		sub.Unsubscribe()
		return nil, err
	}
	nc.Flush()
	return r, nil
}

// wait waits up to d for the first heartbeat, then briefly for the other workers' answers
// to the same ping.
func (r *roster) wait(d time.Duration) {
	select {
	case <-r.first:
		time.Sleep(min(d, 20*time.Millisecond))
	case <-time.After(d):
	}
}

// live returns the workers heard from within three heartbeats, by ID.
func (r *roster) live() []WorkerStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []WorkerStatus
	for id, w := range r.byID {
		if time.Since(w.Seen) > 3*HeartbeatEvery {
			delete(r.byID, id)
			continue
		}
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// slots is the number of games the live workers of build version play at once.
func (r *roster) slots(version string) int {
	n := 0
	for _, w := range r.live() {
		if w.Version == version {
			n += w.Slots
		}
	}
	return n
}

// QueueStatus is the work queue as the broker's consumer information gives it.
type QueueStatus struct {
	// Queued is tasks not yet delivered; InFlight tasks delivered and not yet acknowledged;
	// Waiting workers' fetch requests waiting for a task; Redelivered tasks delivered more
	// than once (a worker died, refused or ran out of ack wait).
	Queued      uint64 `json:"queued"`
	InFlight    int    `json:"in_flight"`
	Waiting     int    `json:"waiting_requests"`
	Redelivered int    `json:"redelivered"`
}

func queueStatus(ctx context.Context, js jetstream.JetStream) (QueueStatus, error) {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	cons, err := js.Consumer(qctx, TaskStream, WorkerGroup)
	if err != nil {
		return QueueStatus{}, err
	}
	info, err := cons.Info(qctx)
	if err != nil {
		return QueueStatus{}, err
	}
	return QueueStatus{Queued: info.NumPending, InFlight: info.NumAckPending, Waiting: info.NumWaiting, Redelivered: info.NumRedelivered}, nil
}

// Watcher keeps a connection to the broker and the workers' latest heartbeats (for a
// dashboard that shows them on every poll).
type Watcher struct {
	nc *nats.Conn
	js jetstream.JetStream
	r  *roster
}

// Watch connects to the broker (creating the streams if they are missing, as any client
// does) and starts listening to the workers' heartbeats.
func Watch(ctx context.Context, o Options) (*Watcher, error) { return watch(ctx, o, false) }

// watch is Watch; own as in Connect.
func watch(ctx context.Context, o Options, own bool) (*Watcher, error) {
	nc, js, err := Connect(ctx, o, own)
	if err != nil {
		return nil, err
	}
	r, err := watchWorkers(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &Watcher{nc: nc, js: js, r: r}, nil
}

// Status returns the work queue and the workers heard from within three heartbeats (sorted
// by ID), and asks the workers for fresh heartbeats for the next call.
func (w *Watcher) Status(ctx context.Context) (QueueStatus, []WorkerStatus, error) {
	w.nc.Publish(pingSubject, nil)
	q, err := queueStatus(ctx, w.js)
	if err != nil {
		return QueueStatus{}, nil, err
	}
	return q, w.r.live(), nil
}

// Close closes the connection.
func (w *Watcher) Close() { w.nc.Close() }

// Status connects to the broker, asks the workers for their heartbeats and returns the
// work queue and the workers that answered within wait (sorted by ID).
func Status(ctx context.Context, o Options, wait time.Duration) (QueueStatus, []WorkerStatus, error) {
	w, err := Watch(ctx, o)
	if err != nil {
		return QueueStatus{}, nil, err
	}
	defer w.Close()
	select {
	case <-time.After(wait):
	case <-ctx.Done():
		return QueueStatus{}, nil, ctx.Err()
	}
	return w.Status(ctx)
}
