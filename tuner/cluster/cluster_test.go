package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/engine/protocol/wire"
	"evotune/genomes"
	"evotune/tuner/arena"
)

// startServer starts an embedded NATS server with JetStream on a random loopback port.
func startServer(t *testing.T) string {
	t.Helper()
	url, _ := newTestServer(t)
	return url
}

// newTestServer starts an embedded NATS server with JetStream (file storage in a temporary
// directory) on a random loopback port, stopped at the end of the test or benchmark.
func newTestServer(t testing.TB) (string, *server.Server) {
	t.Helper()
	s, err := StartBroker("127.0.0.1", -1, t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s.ClientURL(), s
}

// lockedBuffer is a log both the worker's goroutines and the test use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// gomokuBatch is n depth-2 Gomoku games of the paper's weights from random openings, in
// colour-swapped pairs.
func gomokuBatch(t testing.TB, n int) (arena.GameSetup, []arena.GameTask) {
	t.Helper()
	e, err := genomes.Lookup("gomoku")
	if err != nil {
		t.Fatal(err)
	}
	ops, err := arena.RandomOpenings(e.Game, 15, n/2, rand.New(rand.NewPCG(7, 7)), arena.AnyHalf, nil)
	if err != nil || len(ops) != n/2 {
		t.Fatalf("openings: %d, %v", len(ops), err)
	}
	w := e.Game.DefaultWeights()
	var tasks []arena.GameTask
	for k, o := range ops {
		tasks = append(tasks, arena.GameTask{Black: w, White: w, Opening: o, Name: "pair" + string(rune('a'+k%26)) + "-1"},
			arena.GameTask{Black: w, White: w, Opening: o, Name: "pair" + string(rune('a'+k%26)) + "-2"})
	}
	return arena.GameSetup{Game: e.Game, Board: 15, Limits: engine.Limits{Depth: 2}, MaxPlies: 225}, tasks
}

// games is a batch's records without their timings: what must not depend on where and how
// the games were played.
func games(t *testing.T, recs []engine.GameRecord) string {
	t.Helper()
	var out []string
	for _, r := range recs {
		r.Duration, r.Slot, r.Think, r.MaxThink = 0, 0, [2]time.Duration{}, [2]time.Duration{}
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(data))
	}
	return strings.Join(out, "\n")
}

// TestBatchedTasks: a batch played through the broker by a worker of two game goroutines
// comes back with the local pool's records, in several tasks of several games each (not a
// task per game), and the worker's heartbeat counts them. Played again by a client that
// groups the games otherwise (a task per game) with no worker running, the batch is read
// back from the results stored on the broker: the same records, nothing played.
func TestBatchedTasks(t *testing.T) {
	url := startServer(t)
	setup, tasks := gomokuBatch(t, 40)
	want, err := arena.PlayBatch(context.Background(), setup, tasks, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := Options{URL: url, Version: "test"}
	wctx, stopWorker := context.WithCancel(ctx)
	var wlog lockedBuffer
	worked := make(chan error, 1)
	go func() {
		wo := WorkerOptions{Options: o, Workers: 2}
		wo.Log = &wlog
		worked <- Work(wctx, wo)
	}()
	for i := 0; i < 100 && !strings.Contains(wlog.String(), "worker 2×"); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	c, err := NewClient(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if s := c.workers.slots("test"); s != 2 {
		t.Fatalf("the client heard of %d game slots, want the worker's 2", s)
	}
	// A batch of no games (a generation whose best has nothing new to play) returns at once
	// with no records, as the local pool does; it once waited for a result until the stall
	// timeout.
	ectx, ecancel := context.WithTimeout(ctx, 20*time.Second)
	if recs, err := c.PlayBatch(ectx, setup, nil, nil); err != nil || recs == nil || len(recs) != 0 {
		t.Fatalf("an empty batch: %d records, %v; want none at once", len(recs), err)
	}
	ecancel()
	var done int
	got, err := c.PlayBatch(ctx, setup, tasks, func() { done++ })
	if err != nil {
		t.Fatal(err)
	}
	if games(t, got) != games(t, want) {
		t.Fatal("the broker's records differ from the local pool's")
	}
	if done != len(tasks) {
		t.Fatalf("done called %d times for %d games", done, len(tasks))
	}
	// The worker logs a task and counts it in its heartbeat after the task's results are
	// out: read both until they hold every game (a loaded machine may take a while), or
	// until 30 s have passed, then check them.
	var (
		q      QueueStatus
		ws     []WorkerStatus
		played int
	)
	for end := time.Now().Add(30 * time.Second); ; {
		if q, ws, err = Status(ctx, o, 300*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		played = strings.Count(wlog.String(), "played task")
		if len(ws) == 1 && ws[0].Played == len(tasks) && ws[0].Tasks == played || time.Now().After(end) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if played < 2 || played >= len(tasks) {
		t.Fatalf("%d tasks for %d games, want several games a task and at least two tasks:\n%s", played, len(tasks), wlog.String())
	}
	if len(ws) != 1 || ws[0].Slots != 2 || ws[0].Played != len(tasks) || ws[0].Tasks != played || ws[0].Version != "test" {
		t.Fatalf("heartbeats %+v, want one worker of 2 slots that played %d games in %d tasks", ws, len(tasks), played)
	}
	if q.Queued != 0 || q.InFlight != 0 {
		t.Fatalf("queue %+v after the batch, want empty", q)
	}
	stopWorker()
	if err := <-worked; err != nil {
		t.Fatal(err)
	}
	// Read back with another grouping and no worker.
	o1 := o
	o1.TaskGames, o1.StallTimeout = 1, 20*time.Second
	c1, err := NewClient(ctx, o1)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	again, err := c1.PlayBatch(ctx, setup, tasks, nil)
	if err != nil {
		t.Fatal(err)
	}
	if games(t, again) != games(t, want) {
		t.Fatal("the records read back differ from the local pool's")
	}
}

// TestTaskSize: tasks carry about TaskTarget of measured play, at most an even share of the
// batch for twice the live workers' slots, and 8 games before any game was measured.
func TestTaskSize(t *testing.T) {
	c := &Client{o: Options{Version: "v"}, workers: &roster{byID: map[string]WorkerStatus{}}, gameTime: map[string]time.Duration{}}
	now := time.Now()
	if got := c.taskSize("k", 1000); got != 8 {
		t.Errorf("unmeasured, no workers: %d games a task, want 8", got)
	}
	c.workers.byID["a"] = WorkerStatus{ID: "a", Version: "v", Slots: 4, Seen: now}
	c.workers.byID["b"] = WorkerStatus{ID: "b", Version: "other", Slots: 64, Seen: now}
	c.workers.byID["c"] = WorkerStatus{ID: "c", Version: "v", Slots: 4, Seen: now.Add(-time.Minute)} // gone
	c.gameTime["k"] = 5 * time.Millisecond
	if got := c.taskSize("k", 1000); got != 125 {
		t.Errorf("1000 games of 5 ms for 4 slots: %d games a task, want 125 (= 1000/(2·4))", got)
	}
	if got := c.taskSize("k", 10000); got != 200 {
		t.Errorf("10000 games of 5 ms: %d games a task, want 200 (1 s of play)", got)
	}
	c.gameTime["k"] = 3 * time.Second
	if got := c.taskSize("k", 1000); got != 1 {
		t.Errorf("3 s games: %d games a task, want 1", got)
	}
	c.measured("k", 1*time.Second)
	if est := c.gameTime["k"]; est >= 3*time.Second || est <= time.Second {
		t.Errorf("estimate %v after a 1 s game, want between 1 s and 3 s", est)
	}
	c.o.TaskGames = 3
	if got := c.taskSize("k", 1000); got != 3 {
		t.Errorf("TaskGames 3: %d", got)
	}
}

// TestGuidedParts: a sending's tasks take every game once, in order, each of one depth
// and within its depth's size limit; along a run of games of one depth the tasks never
// grow, the first carries the limit (or an even share for twice the slots), and the last
// 2·slots games go a game a task.
func TestGuidedParts(t *testing.T) {
	check := func(name string, depths []int, size map[int]int, slots int) [][]int {
		t.Helper()
		idx := make([]int, len(depths))
		for i := range idx {
			idx[i] = i
		}
		parts := guidedParts(idx, func(i int) int { return depths[i] }, func(d int) int { return size[d] }, slots)
		next := 0
		for k, p := range parts {
			if len(p) == 0 {
				t.Fatalf("%s: task %d is empty", name, k)
			}
			d := depths[p[0]]
			for _, i := range p {
				if i != next || depths[i] != d {
					t.Fatalf("%s: task %d holds game %d (depth %d), want game %d of depth %d: %v", name, k, i, depths[i], next, d, parts)
				}
				next++
			}
			if len(p) > size[d] {
				t.Fatalf("%s: task %d has %d games, over the limit %d", name, k, len(p), size[d])
			}
			if k > 0 && depths[parts[k-1][0]] == d && len(p) > len(parts[k-1]) {
				t.Fatalf("%s: task %d grew from %d to %d games: %v", name, k, len(parts[k-1]), len(p), parts)
			}
		}
		if next != len(depths) {
			t.Fatalf("%s: %d games in tasks, want %d", name, next, len(depths))
		}
		return parts
	}
	sizes := func(parts [][]int) []int {
		var n []int
		for _, p := range parts {
			n = append(n, len(p))
		}
		return n
	}
	flat := make([]int, 720)
	parts := check("720 games, 2 slots", flat, map[int]int{0: 294}, 2)
	n := sizes(parts)
	if n[0] != 180 || !slices.Equal(n[len(n)-5:], []int{2, 1, 1, 1, 1}) || len(n) > 40 {
		t.Fatalf("720 games, 2 slots: tasks of %v games, want 180 (⌈720/4⌉) first, a few tens of tasks, the last four a game each", n)
	}
	if n := sizes(check("a limit of 8", flat, map[int]int{0: 8}, 2)); n[0] != 8 || n[len(n)-1] != 1 {
		t.Fatalf("a limit of 8: tasks of %v games, want 8 first and 1 last", n)
	}
	if n := sizes(check("a size fixed", flat[:40], map[int]int{0: 8}, 0)); !slices.Equal(n, []int{8, 8, 8, 8, 8}) {
		t.Fatalf("a size fixed (slots 0): tasks of %v games, want 8 each", n)
	}
	if n := check("slow games", flat[:50], map[int]int{0: 1}, 64); len(n) != 50 {
		t.Fatalf("slow games: %d tasks for 50 games, want one each", len(n))
	}
	mixed := append(make([]int, 30), 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
	if n := sizes(check("two depths", mixed, map[int]int{0: 100, 1: 2}, 1)); !slices.Equal(n, []int{21, 9, 2, 2, 2, 2, 2, 1, 1}) {
		t.Fatalf("30 games of one depth, then 12 of another limited to 2, on one slot: tasks of %v games, want 21 (⌈42/2⌉), the depth's other 9, then 2s and 1s", n)
	}
}

// countedWeights is a weights value that counts its encodings.
type countedWeights struct {
	V int `json:"v"`
	n *int
}

func (w *countedWeights) Game() string    { return "gomoku" }
func (w *countedWeights) Validate() error { return nil }
func (w *countedWeights) MarshalJSON() ([]byte, error) {
	*w.n++
	return []byte(fmt.Sprintf(`{"v":%d}`, w.V)), nil
}

// sliceWeights is a weights value of a type that cannot be a map key.
type sliceWeights struct {
	V []int `json:"v"`
}

func (sliceWeights) Game() string    { return "gomoku" }
func (sliceWeights) Validate() error { return nil }

// TestEncodeBatch: a batch's ID is its content's: the same games with the same weights in
// other values (other pointers) share it, other weights or another opening do not; each
// weights value is encoded once however many games it plays, and every wire game carries
// its players' weights as they encode.
func TestEncodeBatch(t *testing.T) {
	setup, base := gomokuBatch(t, 8)
	n := 0
	a, b := &countedWeights{V: 1, n: &n}, &countedWeights{V: 2, n: &n}
	with := func(a, b engine.Weights) []arena.GameTask {
		tasks := slices.Clone(base)
		for i := range tasks {
			tasks[i].Black, tasks[i].White = a, b
			if i%2 == 1 {
				tasks[i].Black, tasks[i].White = b, a
			}
		}
		return tasks
	}
	_, wire, id, err := encodeBatch("v", setup, with(a, b))
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("two weights values in 8 games encoded %d times, want 2", n)
	}
	for i, g := range wire {
		black, white := `{"v":1}`, `{"v":2}`
		if i%2 == 1 {
			black, white = white, black
		}
		if g.Index != i || string(g.Black) != black || string(g.White) != white {
			t.Fatalf("wire game %d: index %d, black %s, white %s; want %s and %s", i, g.Index, g.Black, g.White, black, white)
		}
	}
	m := 0
	_, _, same, err := encodeBatch("v", setup, with(&countedWeights{V: 1, n: &m}, &countedWeights{V: 2, n: &m}))
	if err != nil || same != id {
		t.Fatalf("the same games with equal weights in other values: batch %s (%v), want %s", same, err, id)
	}
	_, _, other, err := encodeBatch("v", setup, with(a, &countedWeights{V: 3, n: &m}))
	if err != nil || other == id {
		t.Fatalf("other weights: batch %s (%v), want another than %s", other, err, id)
	}
	// A value of a type that is no map key (it holds a slice) is encoded every time.
	sliced := with(a, b)
	sliced[0].White = sliceWeights{V: []int{4}}
	if _, wire, _, err := encodeBatch("v", setup, sliced); err != nil || string(wire[0].White) != `{"v":[4]}` {
		t.Fatalf("weights of an uncomparable type: %v, %s", err, wire[0].White)
	}
	moved := with(a, b)
	moved[3].Opening = moved[0].Opening
	if _, _, other, err := encodeBatch("v", setup, moved); err != nil || other == id {
		t.Fatalf("another opening: batch %s (%v), want another than %s", other, err, id)
	}
}

// TestSplitResults: a task's records are split into results that fit the limit, in order,
// every game once.
func TestSplitResults(t *testing.T) {
	var gs []wireGame
	var recs []engine.GameRecord
	for i := 0; i < 50; i++ {
		gs = append(gs, wireGame{Index: 100 + i})
		recs = append(recs, engine.GameRecord{Moves: strings.Fields(strings.Repeat("h8 ", i%7+1)), Plies: i})
	}
	parts := splitResults(gs, recs, 1200)
	if len(parts) < 2 {
		t.Fatalf("%d parts, want several", len(parts))
	}
	next := 100
	for _, p := range parts {
		data, _ := json.Marshal(result{Batch: strings.Repeat("f", 24), Games: p, Worker: "host/12345"})
		if len(data) > 1200 {
			t.Errorf("a part of %d bytes, limit 1200", len(data))
		}
		for _, g := range p {
			if g.Index != next || g.Record.Plies != next-100 {
				t.Fatalf("game %d (plies %d) where %d was due", g.Index, g.Record.Plies, next)
			}
			next++
		}
	}
	if next != 150 {
		t.Fatalf("%d games in the parts, want 50", next-100)
	}
}

// TestTaskName names tasks by their games.
func TestTaskName(t *testing.T) {
	for _, c := range []struct {
		idx  []int
		want string
	}{{[]int{7}, "game 7"}, {[]int{8, 9, 10}, "games 8–10"}, {[]int{3, 9, 12}, "games 3, 9, 12"}, {[]int{1, 4, 6, 9, 11}, "games 1, 4, 6, … (5 games)"}} {
		if got := taskName(c.idx); got != c.want {
			t.Errorf("taskName(%v) = %q, want %q", c.idx, got, c.want)
		}
	}
}

// TestCheckGames: a task is data checked against the worker's policy: bad or repeated
// game indices, an engine off the allow-list, an option that would smuggle protocol lines
// or set a key the manager owns are each refused with the reason; a clean task passes.
func TestCheckGames(t *testing.T) {
	allow := WorkerOptions{Allow: []string{"cmd:engine"}, Allowed: func(argv, allow []string) bool {
		return len(argv) == 1 && argv[0] == "engine" && len(allow) == 1
	}}
	ext := func(opts ...wire.Option) *protocol.ExternalSpec {
		return &protocol.ExternalSpec{Argv: []string{"engine"}, Options: opts}
	}
	for _, c := range []struct {
		games []wireGame
		want  string
	}{
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "attack", Value: "2"})}, {Index: 1}}, ""},
		{nil, "a task holds 1 to"},
		{[]wireGame{{Index: -5}}, "game index -5"},
		{[]wireGame{{Index: 1 << 62}}, "game index 4611686018427387904"},
		{[]wireGame{{Index: 0}, {Index: 0}}, "game index 0 appears twice"},
		{[]wireGame{{Index: 0, WhiteExt: &protocol.ExternalSpec{Argv: []string{"rm"}}}}, "did not list with --allow-engine"},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "x\nBOARD\n7,7,1\nDONE", Value: "1"})}}, "control character"},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "attack", Value: "1000\nBOARD"})}}, "control character"},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "folder", Value: "/etc/cron.d"})}}, `option "folder" is the manager's`},
		{[]wireGame{{Index: 0, Depth: 20}}, "depth 20, above this worker's --max-depth 12"},
		// UCI: the engine's memory and threads, and options naming files, need the owner's leave.
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "Hash", Value: "65536"})}}, `option "Hash" is this worker's owner's to allow (evotune worker --allow-option "Hash")`},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "threads", Value: "64"})}}, `option "threads" is this worker's owner's`},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "Debug Log File", Value: "/home/u/.bashrc"})}}, `option "Debug Log File" is this worker's owner's`},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "EvalFile", Value: "/etc/shadow"})}}, `option "EvalFile" is this worker's owner's`},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "UCI_LimitStrength", Value: "true"})}}, `option "UCI_LimitStrength" is this worker's owner's`},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "SyzygyPath", Value: "/tmp"})}}, `option "SyzygyPath" is this worker's owner's`},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "Script", Value: "rm -rf ~"})}}, `option "Script" is this worker's owner's`},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "King Safety", Value: "250"})}}, ""},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "RookOpenFile", Value: "-12.5"})}}, ""},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "Null Move", Value: "false"})}}, ""},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "a=b", Value: "1"})}}, `option name "a=b": want 1 to 128 letters`},
		{[]wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "k", Value: strings.Repeat("9", 300)})}}, "a value of 300 bytes, at most 256"},
		// Values out of their type's range were played: a negative depth, a move time that
		// overflowed into an immediate time loss.
		{[]wireGame{{Index: 0, Depth: -3}}, "depth -3 is negative"},
		{[]wireGame{{Index: 0, BlackExt: &protocol.ExternalSpec{Argv: []string{"engine"}, Depth: -1}}}, "go depth -1 or nodes 0 is negative"},
		{[]wireGame{{Index: 0, BlackExt: &protocol.ExternalSpec{Argv: []string{"engine"}, MoveTime: -time.Second}}}, "move time -1s"},
		{[]wireGame{{Index: 0, BlackExt: &protocol.ExternalSpec{Argv: []string{"engine"}, MoveTime: math.MaxInt64}}}, "move time 2562047h47m16.854775807s: want 0 to 24h0m0s"},
		{[]wireGame{{Index: 0, WhiteExt: &protocol.ExternalSpec{Argv: []string{"engine"}, StartupTime: math.MaxInt64}}}, "start-up time"},
		{[]wireGame{{Index: 0, WhiteExt: &protocol.ExternalSpec{Argv: []string{"engine"}, Overhead: math.MaxInt64}}}, "overhead"},
		{[]wireGame{{Index: 0, BlackExt: &protocol.ExternalSpec{Argv: []string{"engine"}, MoveTime: time.Second, Overhead: 50 * time.Millisecond}}}, ""},
	} {
		got := checkGames(allow, c.games)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.games, got, c.want)
		}
	}
	// The owner's leave, by name ignoring case.
	allow.AllowOptions = []string{"hash"}
	if got := checkGames(allow, []wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "Hash", Value: "16"})}}); got != "" {
		t.Errorf("Hash with --allow-option hash: refused: %s", got)
	}
	if got := checkGames(allow, []wireGame{{Index: 0, BlackExt: ext(wire.Option{Name: "Threads", Value: "2"})}}); got == "" {
		t.Errorf("Threads with --allow-option hash only: accepted")
	}
}

// TestCheckSetup: a task's setup with a value outside its type's range is refused with
// the value named, never played.
func TestCheckSetup(t *testing.T) {
	for _, c := range []struct {
		t    task
		want string
	}{
		{task{Limits: engine.Limits{Depth: 3}, MaxPlies: 200, Adjudicate: &engine.Adjudication{ResignMoves: 3, ResignScore: 600}, TimeControl: &engine.TimeControl{Base: 10 * time.Second, Inc: 100 * time.Millisecond}}, ""},
		{task{Limits: engine.Limits{Depth: -3}}, "depth: -3"},
		{task{Limits: engine.Limits{Nodes: -1}}, "nodes: -1"},
		{task{Limits: engine.Limits{Time: math.MaxInt64}}, "search time"},
		{task{MaxPlies: -1}, "max plies -1"},
		{task{Adjudicate: &engine.Adjudication{ResignScore: -600}}, "resign score -600"},
		{task{Adjudicate: &engine.Adjudication{DrawMoves: -8}}, "draw moves -8"},
		{task{Adjudicate: &engine.Adjudication{MaxMoves: -1}}, "max moves -1"},
		{task{TimeControl: &engine.TimeControl{Base: -time.Second}}, "time control: base -1s"},
		{task{TimeControl: &engine.TimeControl{Base: time.Second, Inc: math.MaxInt64}}, "time control: increment"},
		{task{TimeControl: &engine.TimeControl{Moves: -40, Base: time.Second}}, "-40 moves"},
	} {
		if got := checkSetup(c.t); c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.t, got, c.want)
		}
	}
}

// TestMaxTaskTime: a task that runs longer than the worker's MaxTaskTime is stopped and
// refused with that reason, which the tune sees, instead of holding the worker.
func TestMaxTaskTime(t *testing.T) {
	url := startServer(t)
	setup, tasks := gomokuBatch(t, 4)
	setup.Limits.Depth = 4
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o := Options{URL: url, Version: "test", StallTimeout: 2 * time.Second}
	wctx, stopWorker := context.WithCancel(ctx)
	defer stopWorker()
	var wlog lockedBuffer
	go func() {
		wo := WorkerOptions{Options: o, Workers: 1, MaxTaskTime: time.Millisecond}
		wo.Log = &wlog
		Work(wctx, wo)
	}()
	c, err := NewClient(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.PlayBatch(ctx, setup, tasks, nil)
	if err == nil || !strings.Contains(err.Error(), "--max-task-time 1ms") {
		t.Fatalf("PlayBatch: %v, want the worker's refusal naming --max-task-time\n%s", err, wlog.String())
	}
}

// A worker held by another run's long task: the waiting tune's status names that run and
// for how long, the worker's heartbeat says the same, and the tune stops at its
// --broker-timeout (StallTimeout) within about a second, not at the next status line.
func TestBusyWithAnotherRun(t *testing.T) {
	url := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o := Options{URL: url, Version: "test", StatusEvery: time.Second}
	wctx, stopWorker := context.WithCancel(ctx)
	defer stopWorker()
	go Work(wctx, WorkerOptions{Options: o, Workers: 1})

	// Run 7 sends one task of 200 deep games: the only worker is busy with it for a while.
	long := o
	long.TaskGames = 200
	a, err := NewClient(ctx, long)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.NameRun("run 7 (gomoku)")
	setupA, tasksA := gomokuBatch(t, 200)
	setupA.Limits.Depth = 5
	actx, stopA := context.WithCancel(ctx)
	defer stopA()
	go a.PlayBatch(actx, setupA, tasksA, nil)

	var busy []Busy
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end) && len(busy) == 0; time.Sleep(200 * time.Millisecond) {
		_, ws, err := Status(ctx, o, 300*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) == 1 {
			busy = ws[0].Busy
		}
	}
	if len(busy) != 1 || !strings.HasPrefix(busy[0].Run, "run 7 (gomoku) of ") || busy[0].Games != 200 {
		t.Fatalf("the worker's heartbeat: busy %+v, want one task of run 7 with 200 games", busy)
	}

	var log lockedBuffer
	short := o
	// A status line every 10 minutes and a stall timeout of 5 s: a stop decided only when a
	// status line is due would come after the test's minute, so the stop at --broker-timeout
	// is the stall timer's, however loaded the machine.
	short.StallTimeout, short.StatusEvery = 5*time.Second, 10*time.Minute
	short.Log = &log
	b, err := NewClient(ctx, short)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.NameRun("run 8 (gomoku)")
	setupB, tasksB := gomokuBatch(t, 2)
	start := time.Now()
	_, err = b.PlayBatch(ctx, setupB, tasksB, nil)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "--broker-timeout") {
		t.Fatalf("run 8's batch: %v, want a stop at --broker-timeout", err)
	}
	if !strings.Contains(err.Error(), "busy with run 7 (gomoku) of ") {
		t.Errorf("run 8's stop does not name the run holding the worker: %v\n%s", err, log.String())
	}
	if took < 5*time.Second {
		t.Errorf("--broker-timeout 5s stopped after %v, before the stall timer", took)
	}
	if !strings.Contains(log.String(), "busy with run 7 (gomoku) of ") {
		t.Errorf("run 8's status lines do not name the run holding the worker:\n%s", log.String())
	}
}

// clientOfBatch starts a broker and a client of it (2 games a task; both end with the
// test) and returns n gomoku games with the local pool's records of them, the context the
// test runs under (2 minutes), the client's options and the client.
func clientOfBatch(t *testing.T, n int) (arena.GameSetup, []arena.GameTask, []engine.GameRecord, context.Context, Options, *Client) {
	t.Helper()
	url := startServer(t)
	setup, tasks := gomokuBatch(t, n)
	want, err := arena.PlayBatch(context.Background(), setup, tasks, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	o := Options{URL: url, Version: "test", TaskGames: 2}
	c, err := NewClient(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return setup, tasks, want, ctx, o, c
}

// startWorker starts a worker of 2 game slots on o's broker until the test ends.
func startWorker(t *testing.T, ctx context.Context, o Options) {
	wctx, stopWorker := context.WithCancel(ctx)
	t.Cleanup(stopWorker)
	wo := WorkerOptions{Options: o, Workers: 2}
	wo.Log = &lockedBuffer{}
	go Work(wctx, wo)
}

// TestStartedBatchesQueueInTurn: two batches started one after the other (StartBatch, as
// the run loop starts its rounds in play) are queued in turn on the broker, each batch's
// tasks together and the first's before the second's, before anyone waits for them (no
// worker is running yet); a worker started then plays both, and each wait returns the local
// pool's records of its batch.
func TestStartedBatchesQueueInTurn(t *testing.T) {
	setup, tasks, want, ctx, o, c := clientOfBatch(t, 24)
	first, second := tasks[:12], tasks[12:]
	waitFirst, err := c.StartBatch(ctx, setup, first, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitSecond, err := c.StartBatch(ctx, setup, second, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The task messages in stream order, by the batch their ID names ("BATCH/FIRST+N").
	var order []string
	for _, id := range queuedTasks(t, ctx, o) {
		batch, _, ok := strings.Cut(id, "/")
		if !ok {
			t.Fatalf("task message ID %q, want BATCH/FIRST+N", id)
		}
		order = append(order, batch)
	}
	if len(order) != 12 {
		t.Fatalf("%d tasks queued, want 12 (24 games, 2 a task)", len(order))
	}
	for k := range order {
		if want := order[0]; k >= 6 {
			if order[k] == order[0] {
				t.Fatalf("tasks in stream order by batch %v: the batches' tasks interleave", order)
			}
		} else if order[k] != want {
			t.Fatalf("tasks in stream order by batch %v: the first batch's 6 tasks are not first", order)
		}
	}
	startWorker(t, ctx, o)
	gotFirst, err := waitFirst()
	if err != nil {
		t.Fatal(err)
	}
	gotSecond, err := waitSecond()
	if err != nil {
		t.Fatal(err)
	}
	if games(t, append(gotFirst, gotSecond...)) != games(t, want) {
		t.Fatal("the started batches' records differ from the local pool's")
	}
	// Each record says how long the game held the worker's slot (what the tuner counts as
	// the slot's busy time), at least the game's own wall time.
	for i, r := range append(gotFirst, gotSecond...) {
		if r.Slot <= 0 || r.Slot < r.Duration || r.SlotTime() != r.Slot {
			t.Fatalf("game %d: slot time %v, game %v: want the slot's time, at least the game's", i, r.Slot, r.Duration)
		}
	}
}

// TestBusySlotTime: the client's busy slot time (arena.SlotMeter) is the slot time of the
// games its batches were told: a finished batch's records' sum, and a batch stopped after
// some of its games were told takes theirs off again.
func TestBusySlotTime(t *testing.T) {
	setup, tasks, _, ctx, o, c := clientOfBatch(t, 208) // the second batch long enough to stop in play
	var _ arena.SlotMeter = c
	startWorker(t, ctx, o)
	recs, err := c.PlayBatch(ctx, setup, tasks[:8], nil)
	if err != nil {
		t.Fatal(err)
	}
	var sum time.Duration
	for _, r := range recs {
		sum += r.SlotTime()
	}
	if got := c.BusySlotTime(); sum <= 0 || got != sum {
		t.Fatalf("after a batch of 8 games: busy %v, want its records' slot time %v", got, sum)
	}
	stopped, stop := context.WithCancel(ctx)
	told := make(chan struct{}, len(tasks))
	wait, _, err := c.StartEach(stopped, setup, tasks[8:], func(int, engine.GameRecord) { told <- struct{}{} }, false)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-told:
	case <-ctx.Done():
		t.Fatal("no game of the second batch was told")
	}
	if got := c.BusySlotTime(); got <= sum {
		t.Fatalf("a game of the second batch told: busy %v, want more than the first batch's %v", got, sum)
	}
	stop()
	if _, err := wait(); err == nil {
		t.Fatal("the stopped batch's wait returned no error")
	}
	if got := c.BusySlotTime(); got != sum {
		t.Fatalf("the second batch stopped: busy %v, want the first batch's %v again", got, sum)
	}
}

// TestBatchStartedAgainWhileStopping: the tuner may stop a batch and start the same games
// again (the GA plans an admission test again and keeps its candidate's games) before the
// stopped batch's wait has ended. Both waits follow the same batch (its ID is its
// content's); the stopped one's end must not take the results from the other, which
// gets every game's record.
func TestBatchStartedAgainWhileStopping(t *testing.T) {
	setup, tasks, want, ctx, o, c := clientOfBatch(t, 12)
	stopped, stop := context.WithCancel(ctx)
	waitStopped, err := c.StartBatch(stopped, setup, tasks, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, cancelAgain := context.WithTimeout(ctx, time.Minute)
	defer cancelAgain()
	waitAgain, err := c.StartBatch(again, setup, tasks, nil)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := waitStopped(); err == nil {
		t.Fatal("the stopped batch's wait returned no error")
	}
	startWorker(t, ctx, o)
	got, err := waitAgain()
	if err != nil {
		t.Fatalf("the batch started again: %v", err)
	}
	if games(t, got) != games(t, want) {
		t.Fatal("the batch started again: its records differ from the local pool's")
	}
}

// queuedTasks returns the IDs of the task messages on the broker's work queue, in stream
// order.
func queuedTasks(t *testing.T, ctx context.Context, o Options) []string {
	t.Helper()
	_, js, err := Connect(ctx, o, false)
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, TaskStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			continue // deleted
		}
		ids = append(ids, m.Header.Get("Nats-Msg-Id"))
	}
	return ids
}

// TestAheadBatches: a batch played ahead (StartEach) is held by the client while its
// queued games fill the workers' slots; stopped, it leaves nothing on the broker; another,
// started then, goes out as the ordinary batch's games finish, each of its games told as it
// ends; a third, promoted, goes out at once in tasks of an ordinary batch's size (not a
// game a task). Every wait returns the local pool's records.
func TestAheadBatches(t *testing.T) {
	setup, tasks, want, ctx, o, c := clientOfBatch(t, 24)
	var _ arena.AheadStarter = c
	plain, aheadA, aheadB := tasks[:8], tasks[8:16], tasks[16:]
	waitPlain, err := c.StartBatch(ctx, setup, plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	stopped, stop := context.WithCancel(ctx)
	waitStopped, _, err := c.StartEach(stopped, setup, aheadA, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if ids := queuedTasks(t, ctx, o); len(ids) != 4 {
		t.Fatalf("queued tasks %v: want only the plain batch's 4 (8 games, 2 a task), the ahead batch held", ids)
	}
	stop()
	if _, err := waitStopped(); err == nil {
		t.Fatal("the stopped ahead batch's wait returned no error")
	}
	var mu sync.Mutex
	told := map[int]bool{}
	waitA, _, err := c.StartEach(ctx, setup, aheadA, func(i int, rec engine.GameRecord) {
		mu.Lock()
		told[i] = rec.Plies > 0
		mu.Unlock()
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	waitB, promoteB, err := c.StartEach(ctx, setup, aheadB, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	promoteB()
	ids := queuedTasks(t, ctx, o)
	if len(ids) != 8 || strings.Contains(ids[3], "/ahead") || !strings.Contains(ids[4], "/ahead") || !strings.Contains(ids[4], "/0+2/") {
		t.Fatalf("queued tasks %v: want the plain batch's 4, then the promoted batch's 4 (2 games a task, as an ordinary batch's)", ids)
	}
	startWorker(t, ctx, o)
	var got []engine.GameRecord
	for _, w := range []func() ([]engine.GameRecord, error){waitPlain, waitA, waitB} {
		recs, err := w()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, recs...)
	}
	if games(t, got) != games(t, want) {
		t.Fatal("the batches' records differ from the local pool's")
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range aheadA {
		if !told[i] {
			t.Fatalf("game %d of the ahead batch was not told with its record (told: %v)", i, told)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.out != 0 || len(c.held) != 0 {
		t.Fatalf("after every batch: %d games counted out, %d batches held; want none", c.out, len(c.held))
	}
}

// TestAheadBatchDropped: a batch played ahead and stopped while a worker holds one of its
// tasks has the worker drop that task (its games ended, no result sent), as the local
// pool stops a game in play; a batch played to its end drops nothing.
func TestAheadBatchDropped(t *testing.T) {
	url := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := Options{URL: url, Version: "test"}
	wctx, stopWorker := context.WithCancel(ctx)
	defer stopWorker()
	go Work(wctx, WorkerOptions{Options: o, Workers: 1})
	c, err := NewClient(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	worker := func() WorkerStatus {
		_, ws, err := Status(ctx, o, 300*time.Millisecond)
		if err != nil || len(ws) != 1 {
			t.Fatalf("workers: %v, %v", ws, err)
		}
		return ws[0]
	}
	// Deep games (about 10 s each here): the worker holds the first task while the batch is
	// stopped, however loaded the machine (a game that ends before the stop arrives would be
	// told, not dropped).
	setup, tasks := gomokuBatch(t, 8)
	setup.Limits.Depth, setup.Limits.Width = 8, 40
	stopped, stop := context.WithCancel(ctx)
	wait, _, err := c.StartEach(stopped, setup, tasks, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	var busy []Busy
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end) && len(busy) == 0; time.Sleep(100 * time.Millisecond) {
		busy = worker().Busy
	}
	if len(busy) != 1 || busy[0].Games != 1 {
		t.Fatalf("the worker holds %+v, want one task of one game played ahead", busy)
	}
	stop()
	if _, err := wait(); err == nil {
		t.Fatal("the stopped batch's wait returned no error")
	}
	var w WorkerStatus
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if w = worker(); w.Dropped > 0 && len(w.Busy) == 0 {
			break
		}
	}
	if w.Dropped != 1 || len(w.Busy) != 0 {
		t.Fatalf("after the stop the worker dropped %d tasks and holds %+v, want the one task dropped", w.Dropped, w.Busy)
	}
	if q, err := queueStatus(ctx, c.js); err != nil || q.Queued != 0 || q.InFlight != 0 {
		t.Fatalf("queue after the stop: %+v, %v; want nothing queued or in play", q, err)
	}
	// A batch played ahead to its end (shallow games) drops nothing.
	setup2, tasks2 := gomokuBatch(t, 4)
	wait2, _, err := c.StartEach(ctx, setup2, tasks2, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wait2(); err != nil {
		t.Fatal(err)
	}
	if w := worker(); w.Dropped != 1 {
		t.Fatalf("a batch played to its end: the worker's dropped tasks went from 1 to %d", w.Dropped)
	}
}
