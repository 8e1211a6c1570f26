package cluster

import (
	"encoding/json"
	"testing"

	"evotune/engine"
	"evotune/engine/gomoku"
	"evotune/tuner/arena"

	"github.com/nats-io/nats.go/jetstream"
)

// fuzzMsg is a pulled message whose data is all a task decoder reads.
type fuzzMsg struct {
	jetstream.Msg
	data []byte
}

func (m fuzzMsg) Data() []byte { return m.data }

// FuzzDecodeTask: whatever bytes a worker pulls from the broker, decode refuses them
// with a reason or returns one game to play per game of the task, each with weights or an
// outside engine for both sides, within the worker's limits; it never panics.
func FuzzDecodeTask(f *testing.F) {
	setup := arena.GameSetup{Game: gomoku.Game{}, Limits: engine.Limits{Depth: 2, Width: 8}, MaxPlies: 60}
	w := gomoku.DefaultWeights()
	head, wire, id, err := encodeBatch("v1", setup, []arena.GameTask{{Black: w, White: w, Opening: []string{"h8"}}, {Black: w, White: w, Depth: 3}})
	if err != nil {
		f.Fatal(err)
	}
	head.Batch, head.Games = id, wire
	valid, err := json.Marshal(head)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"version":"v1","batch":"0123456789abcdef01234567","game":"gomoku","games":[{"index":-1,"black":null}]}`))
	f.Add([]byte(`{"version":"v1","batch":"0123456789abcdef01234567","game":"chess","limits":{"depth":99},"games":[]}`))
	o := WorkerOptions{Options: Options{Version: "v1"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, why := decode(o, fuzzMsg{data: data})
		if h == nil {
			t.Fatal("nil task")
		}
		if why != "" {
			return
		}
		if len(h.games) != len(h.task.Games) || h.left != len(h.games) || len(h.recs) != len(h.games) {
			t.Fatalf("%d games to play, %d in the task, %d left, %d records", len(h.games), len(h.task.Games), h.left, len(h.recs))
		}
		maxDepth, maxWidth, _ := o.limits()
		if h.task.Limits.Nodes == 0 && h.task.Limits.Depth > maxDepth || h.task.Limits.Width > maxWidth {
			t.Fatalf("accepted limits %+v above the worker's", h.task.Limits)
		}
		for i, g := range h.games {
			if (g.Black == nil && g.BlackExt == nil) || (g.White == nil && g.WhiteExt == nil) {
				t.Fatalf("game %d: a side with neither weights nor an engine", i)
			}
		}
	})
}
