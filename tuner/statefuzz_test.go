package tuner

import (
	"context"
	"errors"
	"testing"

	"evotune/tuner/config"
	"evotune/tuner/record"
)

// FuzzMethodState: a stored method state a resume reads back (generations.method_state,
// which anyone with the database file can edit) is taken up or refused with an error, for
// every method, never a panic; the state each method stored itself is taken up.
func FuzzMethodState(f *testing.F) {
	lagged := smallConfig("gomoku", 1)
	lagged.GALag, lagged.Selection, lagged.Surrogate = 1, config.SelectionPeers, config.SurrogateOff
	configs := []config.Config{smallConfig("gomoku", 1), lagged, spsaConfig("gomoku", 40, 2), cmaesConfig("gomoku", 60), steadyConfig("gomoku", 1, 40)}
	states := make([]record.ResumeState, len(configs))
	for i, cfg := range configs {
		st := &memStore{}
		tu, err := New(cfg, st, nil, "test")
		if err != nil {
			f.Fatal(err)
		}
		if _, err := tu.Run(context.Background(), 0); err != nil {
			f.Fatal(err)
		}
		if len(st.gens) < 2 {
			f.Fatalf("%s: %d generations", cfg.MethodText(), len(st.gens))
		}
		states[i] = stateFromRecords(1, st.gens[:2])
		f.Add(uint8(i), states[i].MethodStates[1])
	}
	f.Add(uint8(2), []byte(`{"theta":[1e308,-1e308],"k":-5}`))
	f.Add(uint8(3), []byte(`{"values":[0.5],"mean":[]}`))
	f.Add(uint8(4), []byte(`null`))
	f.Add(uint8(0), []byte(`{"rng":"AAAA"}`))
	// The state is read before the cancelled context stops the run: a state CMA-ES cannot
	// take up is refused as such.
	bad := states[3]
	bad.MethodStates = [][]byte{bad.MethodStates[0], []byte(`{"values":[0.5],"mean":[]}`)}
	if tu, err := New(configs[3], &memStore{}, nil, "test"); err != nil {
		f.Fatal(err)
	} else {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := tu.Resume(ctx, bad); err == nil || errors.Is(err, context.Canceled) {
			f.Fatalf("a CMA-ES state of one value resumed: %v", err)
		}
	}
	f.Fuzz(func(t *testing.T, method uint8, state []byte) {
		i := int(method) % len(configs)
		st := states[i]
		st.MethodStates = append([][]byte{}, st.MethodStates...)
		own := string(st.MethodStates[1]) == string(state)
		st.MethodStates[1] = state
		tu, err := New(configs[i], &memStore{}, nil, "test")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // take the state up, then stop before any game
		_, err = tu.Resume(ctx, st)
		if own && err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: its own stored state refused: %v", configs[i].MethodText(), err)
		}
	})
}
