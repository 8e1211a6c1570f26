package arena

import (
	"math"
	"sync"

	"evotune/engine"
)

// A batch's games as they finish, for whoever plays ahead of a batch's end: a runner that
// tells games as they end (AheadStarter) tells a Finished, which counts them, guesses the
// rest (Guess: every game left a draw) and weighs every way the last few may end
// (Scenarios). The run loop and the GA play their next rounds ahead on those guesses.

// ScenarioEnum is the most games left to finish whose ways of ending a guess weighs (3^4 =
// 81 ways); with more, a guess takes them as draws (Finished.Guess). Six (729 ways)
// measured the same in the played replay (gomoku and connect6, 16 and 64 slots).
const ScenarioEnum = 4

// Finished is a batch's games finished so far, as the runner tells them (each game
// once), and a channel that holds a note that one finished (Ticks); safe for concurrent use.
type Finished struct {
	mu   sync.Mutex
	got  []bool
	recs []engine.GameRecord
	n    int
	tick chan struct{}
	// fwd, when set (Forward), is told each game too, as its game at[i].
	fwd *Finished
	at  []int
}

// NewFinished is a batch of n games none of which has finished.
func NewFinished(n int) *Finished {
	return &Finished{got: make([]bool, n), recs: make([]engine.GameRecord, n), tick: make(chan struct{}, 1)}
}

// Add keeps game i's record and notes it (the runner's each).
func (f *Finished) Add(i int, rec engine.GameRecord) {
	f.mu.Lock()
	if !f.got[i] {
		f.got[i], f.recs[i] = true, rec
		f.n++
		if f.fwd != nil {
			f.fwd.Add(f.at[i], rec) // under f.mu: no game told twice or missed by forward
		}
	}
	f.mu.Unlock()
	select {
	case f.tick <- struct{}{}:
	default:
	}
}

// Forward tells `to` the games finished so far and every game from now on, game i as its
// game at[i] (at: an index of to's games for each of f's).
func (f *Finished) Forward(to *Finished, at []int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fwd, f.at = to, at
	for i, ok := range f.got {
		if ok {
			to.Add(at[i], f.recs[i])
		}
	}
}

// Ticks is the channel noting finished games (nil, never ready, for a nil f: a runner that
// does not tell games as they end).
func (f *Finished) Ticks() chan struct{} {
	if f == nil {
		return nil
	}
	return f.tick
}

// Left is how many of the batch's games are not finished yet.
func (f *Finished) Left() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.got) - f.n
}

// Guess returns the batch's records with every game not yet finished a draw, once no more
// than slots games are left to finish (ok false before, and once all are).
func (f *Finished) Guess(slots int) (recs []engine.GameRecord, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if left := len(f.got) - f.n; left == 0 || left > slots {
		return nil, false
	}
	recs = make([]engine.GameRecord, len(f.recs))
	for i, rec := range f.recs {
		if !f.got[i] {
			rec = engine.GameRecord{Outcome: engine.Draw}
		}
		recs[i] = rec
	}
	return recs, true
}

// OutcomeWays are ways the games left to finish may end: the batch's records (each game
// left a draw), which of them are left (Open), and each way's outcomes of those games and
// probability.
type OutcomeWays struct {
	Recs []engine.GameRecord // the batch's records, each game left a draw (With sets them)
	Open []int               // the games left to finish: indices into Recs
	Ways [][]engine.Outcome  // each way's outcomes of the games Open, in Open's order
	P    []float64           // each way's probability (they sum to 1)
}

// With returns the batch's records with the games left ending as way w does (the same
// slice for every w: read it before the next call).
func (o *OutcomeWays) With(w int) []engine.GameRecord {
	for j, i := range o.Open {
		o.Recs[i] = engine.GameRecord{Outcome: o.Ways[w][j]}
	}
	return o.Recs
}

// Scenarios returns, once no more than min(slots, ScenarioEnum) games are left to finish
// (nil before that, and once all are), every way the games left may end and its
// probability: each game left ends independently, Black winning, White winning or drawn in
// the shares of the batch's finished games (each count plus one, so an outcome not seen
// yet stays possible). The probabilities sum to 1.
func (f *Finished) Scenarios(slots int) *OutcomeWays {
	f.mu.Lock()
	defer f.mu.Unlock()
	left := len(f.got) - f.n
	if left == 0 || left > min(slots, ScenarioEnum) {
		return nil
	}
	outs := [3]engine.Outcome{engine.BlackWins, engine.WhiteWins, engine.Draw}
	var share [3]float64
	o := &OutcomeWays{Recs: make([]engine.GameRecord, len(f.recs))}
	for i, ok := range f.got {
		if !ok {
			o.Open = append(o.Open, i)
			o.Recs[i] = engine.GameRecord{Outcome: engine.Draw}
			continue
		}
		o.Recs[i] = engine.GameRecord{Outcome: f.recs[i].Outcome}
		for k, out := range outs {
			if f.recs[i].Outcome == out {
				share[k]++
			}
		}
	}
	total := float64(f.n) + 3
	for k := range share {
		share[k] = (share[k] + 1) / total
	}
	n := int(math.Pow(3, float64(len(o.Open))))
	for c := range n { // the last way: every game left drawn
		way, p := make([]engine.Outcome, len(o.Open)), 1.0
		for j, x := 0, c; j < len(o.Open); j, x = j+1, x/3 {
			way[j] = outs[x%3]
			p *= share[x%3]
		}
		o.Ways, o.P = append(o.Ways, way), append(o.P, p)
	}
	return o
}
