// Package record holds what a run records and reports: the Store a run saves to, a new
// run, each generation's record (genomes, individuals, games, the hall-of-fame test and
// checkpoint, the method's state), the progress events, the hall of fame and its admission
// tests, how far the champion moved, and the state a run resumes from. The tuner writes
// them; runstore stores them in SQLite; the command line and the dashboard read them.
package record

import (
	"context"
	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/ladder"
	"evotune/tuner/stats"
	"fmt"
	"math"
	"time"
)

// Store saves a run. The command line wires the db package in; the tuner declares only
// what it needs.
type Store interface {
	// CreateRun inserts a running run and returns its ID.
	CreateRun(ctx context.Context, r RunRecord) (int64, error)
	// SaveGeneration writes one generation atomically: all of it or nothing (its
	// genomes, individuals, games, hall-of-fame admission test and checkpoint).
	SaveGeneration(ctx context.Context, g GenerationRecord) error
	// SetRunStatus records "finished", "stopped" or "failed" (with the error's text).
	SetRunStatus(ctx context.Context, runID int64, status, errText string) error
	// SaveVerification stores the champion's verification match with the run.
	SaveVerification(ctx context.Context, runID int64, v ladder.Verification) error
}

// RungStore is a Store that keeps a verification ladder's rungs as they are played, so
// that a ladder stopped or killed continues from them on resume (key: ladder.Key). A Store
// without it plays the whole ladder again and stores it with SaveVerification.
type RungStore interface {
	// SaveRung stores one played rung of ladder key.
	SaveRung(ctx context.Context, runID int64, key string, v ladder.Verification) error
	// StoredRungs returns ladder key's rungs stored and not yet part of a verification.
	StoredRungs(ctx context.Context, runID int64, key string) (map[int]ladder.Verification, error)
	// SaveLadder stores the finished ladder (SaveVerification's), its stored rungs with it.
	SaveLadder(ctx context.Context, runID int64, key string, v ladder.Verification) error
}

// RunRecord is a new run.
type RunRecord struct {
	Name, Game     string
	Seed           int64
	Config         string // Config as JSON
	ProgramVersion string
	PID            int
}

// GenomeRecord is an individual born in a generation.
type GenomeRecord struct {
	ID       string
	Born     int
	Operator string
	Parents  []string
	Genes    map[string]float64
}

// IndividualRecord is an individual's standing in a generation: the games it played in
// that generation only (every individual of a generation meets the same references on
// the same openings, so these records are comparable; records of different generations
// are not, and are never added up).
type IndividualRecord struct {
	ID   string
	Rank int
	// Round is the last racing round it played (0 = screening only); a higher round
	// ranks first (see config.Config.RaceRounds).
	Round   int
	Fitness float64 // 1 − score
	Stats   genomes.Stats
}

// GameResult is one game of an individual in a generation.
type GameResult struct {
	Individual string
	Opponent   string
	Opening    int          // index into the generation's openings
	Colour     engine.Color // the individual's colour
	Score      float64      // the individual's score
	Depth      int          // the search depth of both players (0 = the run's)
	Round      int          // the racing round, AdmissionRound or DefenceRound
	Record     engine.GameRecord
}

// AdmissionRound marks the games of a hall-of-fame admission test in GameResult.Round:
// the candidate's, and the reigning champion's on the same openings (the paired decision).
const AdmissionRound = -1

// DefenceRound marks the reigning champion's games against the paper's weights on openings
// of their own, played with each admission test: its Elo estimate.
const DefenceRound = -2

// GenerationRecord is everything a generation saves.
type GenerationRecord struct {
	RunID      int64
	Generation int
	FitMin     float64
	FitMean    float64
	FitMax     float64
	FitStd     float64
	Diversity  float64
	Games      int           // distinct games played (a game shared by identical genomes counts once)
	Duration   time.Duration // wall time of the generation: since the one before was saved, up to its saving
	GamesTime  time.Duration // wall time of its game batches
	// SlotTime is its busy game-slot time: the time the slots played within its Duration
	// (the time since the generation before was saved), whichever generation's games and
	// checkpoint games included, since rounds overlap (a GA generation's admission test
	// plays behind the next generations' pairings; SPSA's, CMA-ES's and the steady-state
	// GA's rounds are asked ahead); played elsewhere, the time its games held their slots
	// (engine.GameRecord.SlotTime) up to Duration × Slots, what does not fit counted in
	// the generations after it. Slots is the game slots the run had (its workers; 0: not
	// measured, a cluster played the games): its slot utilisation is SlotTime / (Duration
	// × Slots).
	SlotTime    time.Duration
	Slots       int
	Elapsed     time.Duration // the run's wall time up to the end of this generation (across resumes)
	Best        string        // rank 1: the winner of the generation's race
	Champion    string        // the run's champion after the generation (see report.Summary.Best)
	Opponents   []string      // the reference set, frozen for the generation
	Openings    [][]string    // every opening of the generation: racing rounds, then the admission test
	NewGenomes  []GenomeRecord
	Individuals []IndividualRecord
	GameResults []GameResult
	// Admission is the hall-of-fame test of the generation's race winner, if one was played.
	Admission *Admission
	// Checkpoint is the held-out check of the champion (config.Config.VerifyEvery), if one was played.
	Checkpoint *ladder.Verification
	// HallOfFame is the hall of fame after the generation, in order of admission.
	HallOfFame []HallOfFamer
	// MethodState is the method's own state after the generation (JSON; nil: none), read
	// back into ResumeState.MethodStates.
	MethodState []byte
}

// Event reports progress: after every game and at the end of every generation.
type Event struct {
	// SlotUtilisation is the run's slot utilisation so far (report.Summary.SlotUtilisation; −1:
	// not measured).
	SlotUtilisation float64
	// SlotHint is report.Summary.EarlySlotHint, on the first saved generation that has one (""
	// on every other event): which setting would have kept the slots busy, said while the
	// night is young.
	SlotHint    string
	RunID       int64
	Generation  int // 0 = the initial population
	Generations int // the last generation's number (0 = until the time budget)
	// GamesDone and GamesTotal count the games of the batch being played (Phase), or of
	// the generation in the event that ends it (GenDone).
	GamesDone  int
	GamesTotal int
	// GenGames counts the games ended and not yet saved beside the batch being played: its
	// generation's batches before it and the rounds of other generations in play (the ETA
	// counts them with GamesDone; 0 in GenDone events).
	GenGames int
	// Phase names the batch being played: "round 0", "round 1", … (the GA's racing
	// rounds), "admission", "admission (defender)", "defence" (hall-of-fame tests),
	// "step K" (SPSA); "" in GenDone and verification events.
	Phase     string
	GenDone   bool // the generation is saved
	Verifying bool // a verification match is running
	// VerifyDepth is the search depth of the verification match that starts (an event with
	// Verifying, GamesDone 0 and Champion set is sent once as each match starts).
	VerifyDepth int
	// Rung and Rungs place a verification match in its ladder (rung 0 of Rungs: the
	// tuning condition); Condition is the rung's condition in words ("tc 60+0.6").
	Rung, Rungs int
	Condition   string
	Elapsed     time.Duration
	Budget      time.Duration // the run's time budget (0 = none)
	// Method is the run's config.Config.Method (Selection its Selection); RunGames the
	// distinct tuning games of its saved generations and BudgetGames its game budget (0 =
	// none).
	Method      string
	Selection   string
	RunGames    int
	BudgetGames int
	BestScore   float64 // score of the last saved generation's rank 1, and the mean
	MeanScore   float64
	Best        string
	// Champion is the run's champion; ChampionElo its hall-of-fame Elo against the paper's
	// weights (nil: not measured — the baseline, the hall of fame's centre, or a run
	// without a hall of fame); CentreOf how many members the champion is the centre of (0:
	// one individual).
	Champion    string
	ChampionElo *float64
	CentreOf    int
}

// HallOfFamer is an individual admitted to the hall of fame.
type HallOfFamer struct {
	ID         string    `json:"id"`
	Generation int       `json:"generation"` // the generation whose race it won
	Genes      []float64 `json:"-"`
	// Stats are its games against the paper's weights since its admission.
	Stats genomes.Stats `json:"stats"`
}

// Estimate returns its Elo against the paper's weights and the Elo standard error; ok is
// false without games.
func (h HallOfFamer) Estimate() (elo, se float64, ok bool) {
	e, err := ResultOf(h.Stats).Estimate()
	if err != nil {
		return 0, 0, false
	}
	s := math.Min(0.98, math.Max(0.02, e.Score))
	return stats.Elo(s), EloSE(e.Score, e.StdErr), true
}

// LCB is the lower confidence bound Elo − z·SE (−Inf without games).
func (h HallOfFamer) LCB(z float64) float64 {
	elo, se, ok := h.Estimate()
	if !ok {
		return math.Inf(-1)
	}
	return elo - z*se
}

// Admission is one hall-of-fame test: the race winner (candidate) and the reigning
// champion (opponent) each against the paper's weights on the same fresh opening pairs.
type Admission struct {
	Candidate  string `json:"candidate"`
	Opponent   string `json:"opponent"` // the reigning champion ("baseline" while the hall is empty)
	Generation int    `json:"generation"`
	// Result is the candidate's record against the paper's weights (AdmissionPaired, or
	// while the hall of fame is empty) or against the champion itself
	// (AdmissionHeadToHead); Score, ScoreSE, Elo and EloSE estimate it.
	stats.Result
	Score   float64 `json:"score"`
	ScoreSE float64 `json:"score_se"`
	Elo     float64 `json:"elo"`
	EloSE   float64 `json:"elo_se"`
	// OpponentScore is the champion's score against the paper's weights on the same games
	// (½ when the candidate played the opponent itself).
	OpponentScore float64 `json:"opponent_score"`
	// Diff and DiffSE are the mean per-game score difference candidate − champion and its
	// standard error, from the per-pair differences (paired).
	Diff     float64 `json:"diff"`
	DiffSE   float64 `json:"diff_se"`
	Admitted bool    `json:"admitted"`
}

// LowerBound is the lower end of the test's interval on the paired difference, Diff −
// z·DiffSE (per-game score units): a candidate is admitted when it is above 0.
func (a *Admission) LowerBound(z float64) float64 { return a.Diff - z*a.DiffSE }

// eloSE converts a score's standard error to an Elo standard error by the delta method:
// dElo/ds = 400 / (ln 10 · s(1 − s)), with s kept in [0.02, 0.98] so that a one-sided
// record does not claim certainty.
func EloSE(score, se float64) float64 {
	s := math.Min(0.98, math.Max(0.02, score))
	return se * 400 / (math.Ln10 * s * (1 - s))
}

// resultOf converts an individual's record to the statistics package's type.
func ResultOf(s genomes.Stats) stats.Result {
	return stats.Result{Wins: s.Wins, Draws: s.Draws, Losses: s.Losses, Penta: s.Penta}
}

// ResumeIndividual is one individual of the last saved generation, as stored.
type ResumeIndividual struct {
	ID      string
	Genes   map[string]float64
	Op      string
	Parents []string
	Born    int
	Round   int
	Stats   genomes.Stats
}

// ResumeFamer is a hall-of-fame member as stored: its ID, the generation it was admitted
// in, its genes by name and its games against the paper's weights since then.
type ResumeFamer struct {
	ID         string
	Generation int
	Genes      map[string]float64
	Stats      genomes.Stats
}

// ResumeState is what a run needs to continue after its last saved generation: read
// back from the store by the command line.
type ResumeState struct {
	RunID int64
	// LastGeneration is the number of the last saved generation (−1: none saved).
	LastGeneration int
	// Population is that generation's individuals in rank order (best first).
	Population []ResumeIndividual
	// HallOfFame is every admitted individual in order of admission; Tested every
	// individual that had an admission test.
	HallOfFame []ResumeFamer
	Tested     []string
	// Closest is the saved test with the highest lower bound of its paired difference (nil:
	// none), for the summary (report.Summary.Closest).
	Closest *Admission
	// Openings are every opening used in tuning so far (kept out of verification).
	Openings [][]string
	// Elapsed is the wall time of the saved generations (for the time budget).
	Elapsed time.Duration
	// Games and GamesTime are the saved generations' distinct games and the time spent
	// playing them, so that a resumed run's summary counts the whole run.
	Games       int
	GameRecords int
	GamesTime   time.Duration
	// SlotTime and SlotCapacity are the saved generations' busy game-slot time and their
	// wall time times their game slots (report.Summary), over the generations that measured them.
	SlotTime     time.Duration
	SlotCapacity time.Duration
	// MethodStates are the method's own states of the saved generations, in order (the
	// generations table's method_state, JSON; "{}" where a method keeps none).
	MethodStates [][]byte
	// CheckElos are the Elo of the saved checkpoints that played games, in order
	// (config.Config.StopWhenProven compares the last ones with those before).
	CheckElos []float64
}

// Movement is how far a run's champion moved from the baseline (the paper's weights, or an
// outside engine's layout defaults) and whether it was still moving when the run ended: what
// a user reads to decide whether a run deserves more games.
type Movement struct {
	// Distance is the champion's distance from the baseline (genomes.Layout.Distance: the
	// mean over free genes of each gene's change as a share of its range, log genes in log
	// space; 0 = the baseline, 1 = every gene from one bound to the other).
	Distance float64 `json:"distance"`
	// Genes are the free genes the champion moved most (by their share of the range), at
	// most three, largest first.
	Genes []GeneMove `json:"genes"`
	// From and Generations are the first generation of the path measured and how many it
	// has (the generations this process saved: a resumed run's earlier sessions are not in
	// it).
	From        int `json:"from"`
	Generations int `json:"generations"`
	// LastChange is the last generation of the path whose champion differs from the one
	// before it (−1: the champion did not change within the path).
	LastChange int `json:"last_change"`
	// Window is the path's last quarter (rounded up) and Recent the
	// champion's distance from where it stood before it to where it ended.
	Window int     `json:"window"`
	Recent float64 `json:"recent"`
	// Improving is true when the champion was still moving at the end: a champion that
	// changes by events (a hall of fame admits a winner now and then) changed within the
	// window and is not back where the window began; one that moves every generation
	// (SPSA's θ, CMA-ES's mean) moved there at least a fifth of its whole distance.
	Improving bool `json:"improving"`
}

// GeneMove is one gene's move from the baseline to the champion.
type GeneMove struct {
	Name string  `json:"name"`
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

// GamesText is the run's games so far, against the game budget when it has one
// ("1200/44000 games").
func (e Event) GamesText() string {
	if e.BudgetGames > 0 {
		return fmt.Sprintf("%d/%d games", e.RunGames, e.BudgetGames)
	}
	return fmt.Sprintf("%d games", e.RunGames)
}

// ChampionText says what the champion of event e is measured at: "the centre of N
// hall-of-fame members", "Elo +12.3" (its hall-of-fame record) or "Elo not measured".
func (e Event) ChampionText() string {
	switch {
	case e.CentreOf > 0:
		return fmt.Sprintf("the centre of %d hall-of-fame members", e.CentreOf)
	case e.ChampionElo == nil:
		return "Elo not measured"
	case *e.ChampionElo >= 1e9:
		return "Elo +inf"
	case *e.ChampionElo <= -1e9:
		return "Elo -inf"
	}
	return fmt.Sprintf("Elo %+.1f", *e.ChampionElo)
}

// ETA is the time left of the run at event e, from the games or generations done and the
// budgets (the time budget bounds it); false before the first generation (or step) is
// saved without a game budget.
func (e Event) ETA() (time.Duration, bool) {
	// Generations done: whole ones only once one is saved (the batches of a generation
	// differ in size, so a batch's fraction would make the ETA jump between them).
	doneGens := float64(e.Generation)
	if e.GenDone {
		doneGens++
	}
	var eta time.Duration
	switch {
	case e.BudgetGames > 0 && e.RunGames+e.GamesDone > 0:
		// The games of the generation in play count too, its earlier batches and the one
		// being played: the elapsed time includes them (without them a GA's first estimates
		// ran high and the ETA fell by half over the run).
		done := e.RunGames
		if !e.GenDone && !e.Verifying {
			done += e.GenGames + e.GamesDone
		}
		eta = time.Duration(float64(e.Elapsed) / float64(max(1, done)) * float64(max(0, e.BudgetGames-done)))
	case e.Budget > 0 && (e.Generations == 0 || doneGens == 0):
		return max(0, e.Budget-e.Elapsed), true
	case doneGens > 0:
		eta = time.Duration(float64(e.Elapsed) / doneGens * (float64(e.Generations+1) - doneGens))
	default:
		return 0, false
	}
	if e.Budget > 0 {
		eta = min(eta, max(0, e.Budget-e.Elapsed))
	}
	return eta, true
}
