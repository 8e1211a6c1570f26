package tuner

import (
	randv2 "math/rand/v2"
	"sync"
	"time"

	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/ga"
	"evotune/tuner/record"
	"evotune/tuner/report"
	"evotune/tuner/schedule"
)

// generation is the GA's generation in progress: its individuals and the games they
// played. Scheduling (schedule.go) fills it, the GA's callbacks and selection
// (selection.go) read it, saving (ga.go) writes it out and starts the next. For the
// methods on the run loop (loop.go), which keeps their games itself, only gen (the
// generation being saved, for progress and checkpoints) and slotTime (a checkpoint's) are
// used.
type generation struct {
	gen       int               // its number, from 0
	slot      int               // the next individual eaopt asks to evaluate
	current   []*genomes.Genome // its individuals, in eaopt's order
	born      []*genomes.Genome // the individuals born in it (saved with it)
	evaluated bool              // its individuals have played (eaopt evaluates once)

	gameResults   []record.GameResult // its games, saved with it
	openings      [][]string          // its opening pairs, in the order drawn
	refs          []schedule.Opponent // the reference opponents its individuals play
	opponents     []string            // their IDs, saved with it
	gamesTime     time.Duration       // its time in games (the pool's wall time)
	slotTime      time.Duration       // its busy game-slot time: the sum of its games' slot times (GameRecord.SlotTime)
	distinctGames int                 // its distinct games (a deterministic pair played once counts once)
	peers         *ga.PeerPlan        // its pairings (peers; nil before they are planned)
}

// hallOfFame is selection's record: the members in order of admission and every individual
// tested for admission (selection.go).
type hallOfFame struct {
	hof    []record.HallOfFamer
	tested map[string]bool
}

// openingDraws is scheduling's store of openings: draws made ahead of time (drawNext), the
// openings tuning used (held out of the verification) and the GA's first population's
// random stream.
type openingDraws struct {
	made           *arena.Draws // nil until the first draw made ahead (drawsAhead)
	tuningOpenings map[string]bool
	initRNG        *randv2.Rand
}

// saving is the store's side of the run: its ID, the SPSA step being written behind the
// games (saveBehind), whether the next generation was saved before a resume, and the
// first error of a save.
type saving struct {
	runID    int64
	pending  *pendingSave
	skipSave bool // the first Callback of a resumed run re-reports a saved generation
	err      error
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
