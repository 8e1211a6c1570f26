package tuner

import (
	"sync"
	"time"

	"evotune/tuner/record"
	"evotune/tuner/report"
)

// openingDraws is the run's record of openings: those tuning used, held out of the
// verification (search.Host.Tuning).
type openingDraws struct {
	tuningOpenings map[string]bool
}

// saving is the store's side of the run: its ID and the generation being written behind
// the next games (saveBehind).
type saving struct {
	runID   int64
	pending *pendingSave
}

// reporting is what the run tells: the progress events (one at a time, under progMu), the
// wall clock across sessions and the summary the run returns.
type reporting struct {
	progMu        sync.Mutex
	start         time.Time
	elapsedBefore time.Duration // wall time of earlier sessions of a resumed run
	last          record.Event
	summary       report.Summary
	// hinted is true once an event has carried the run's slot hint (Event.SlotHint).
	hinted bool
	// path is the champion's genes after each generation this process saved, from
	// generation pathFrom on (the champion's movement: Summary.Movement).
	path     [][]float64
	pathFrom int
}
