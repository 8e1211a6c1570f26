package tuner

import (
	"context"
	"fmt"
	"time"

	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/ladder"
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
	// ranks first (see Config.RaceRounds).
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
// of their own, played with each admission test: its Elo estimate (see admit).
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
	Champion    string        // the run's champion after the generation (see Summary.Best)
	Opponents   []string      // the reference set, frozen for the generation
	Openings    [][]string    // every opening of the generation: racing rounds, then the admission test
	NewGenomes  []GenomeRecord
	Individuals []IndividualRecord
	GameResults []GameResult
	// Admission is the hall-of-fame test of the generation's race winner, if one was played.
	Admission *Admission
	// Checkpoint is the held-out check of the champion (Config.VerifyEvery), if one was played.
	Checkpoint *ladder.Verification
	// HallOfFame is the hall of fame after the generation, in order of admission.
	HallOfFame []HallOfFamer
	// MethodState is the method's own state after the generation (JSON; nil: none), read
	// back into ResumeState.MethodStates.
	MethodState []byte
}

// Event reports progress: after every game and at the end of every generation.
type Event struct {
	// SlotUtilisation is the run's slot utilisation so far (Summary.SlotUtilisation; −1:
	// not measured).
	SlotUtilisation float64
	// SlotHint is Summary.EarlySlotHint, on the first saved generation that has one (""
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
	// GenGames counts the distinct games of the generation's batches before the one being
	// played (the ETA counts them with GamesDone; 0 in GenDone events).
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
	// Method is the run's Config.Method (Selection its Config.Selection); RunGames the
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

// Summary is the outcome of a run.
type Summary struct {
	RunID  int64
	Status string
	// Method is the run's Config.Method ("" = ga).
	Method string
	// Lag is how many rounds the method may have in play behind the one it asks: SPSA's
	// steps (SPSAConfig.Lag), CMA-ES's and the GA's generations (CMAESConfig.Lag,
	// GALag); 0 for the others.
	Lag int
	// BudgetGames is the run's game budget (Config.BudgetGames, after a calibration; 0 =
	// none): with Games below it, the time budget or a stop ended the run first.
	BudgetGames int
	// Baseline names what the champion is measured against: "the paper's weights", or
	// "the layout's defaults" for an outside engine.
	Baseline    string
	Generations int // generations saved
	// Best is the champion: the hall-of-fame member with the best lower confidence bound
	// on its Elo against the paper's weights, or the baseline while the hall is empty.
	Best      string
	BestScore float64 // the champion's score in its last generation
	BestGenes []float64
	// Champion is the champion's hall-of-fame entry (nil: the baseline), or with CentreOf
	// the member with the best lower bound, above 0 or not (nil while no member has games
	// since its admission).
	Champion *HallOfFamer
	// CentreOf lists the hall-of-fame members whose centre is the champion (Config.Champion
	// ChampionCentre), nil when the champion is one individual.
	CentreOf []string
	// ChampionRule is the GA's Config.Champion (ChampionPopulation: Best is the centre of
	// the last generation's better half).
	ChampionRule string
	// BaselineChampion is true while the champion's genes are the baseline's: nothing beat
	// the paper's weights (or the layout's defaults), and verification plays no games.
	BaselineChampion bool
	// HallOfFame lists every admitted individual, in order of admission.
	HallOfFame []HallOfFamer
	// Tests counts the run's hall-of-fame tests; Closest is the test whose paired
	// difference over the reigning champion had the highest lower bound (Diff − AdmitZ·DiffSE),
	// the evidence a run without a hall of fame reports (nil: no test).
	Tests   int
	Closest *Admission
	Games   int // distinct games played in the generations
	// GameRecords is the rows of the games table: a game shared by identical genomes (an
	// elite and its unchanged clone) is played once and recorded for each of them.
	GameRecords int
	// Forfeits counts the rows of GameRecords lost by a forfeit (an engine that crashed,
	// stalled, lost on time or played an illegal move): when they are all of them, the
	// run's scores measure its engines' failures, not their parameters.
	Forfeits  int
	Wall      time.Duration // wall time of the generations
	GamesTime time.Duration // time spent playing their games
	// SlotTime is the generations' busy game-slot time and SlotCapacity their wall time
	// times their game slots, over the generations that measured it (GenerationRecord):
	// SlotUtilisation divides them.
	SlotTime     time.Duration
	SlotCapacity time.Duration
	// Slots is the game slots of the last generation saved (0: none measured).
	Slots      int
	VerifyTime time.Duration // wall time of the final verification matches
	// Verification is the final verification ladder, if one was played: its first rung
	// (the tuning condition) with the others in its Ladder.
	Verification *ladder.Verification
	// Proven is the checkpoint that ended the run early (Config.StopWhenProven), if one did.
	Proven *ladder.Verification
	// ProvenAfter is Config.StopWhenProven: the checkpoints that no longer improved.
	ProvenAfter int
	// Movement is how far the champion moved from the baseline and whether it was still
	// moving when the run ended (nil: no generation saved by this process).
	Movement *Movement
}

// countGeneration counts saved generation rec in the summary (countRecords) and notes
// where its champion stands (the path Movement is measured on).
func (t *Tuner) countGeneration(rec GenerationRecord) {
	t.rep.summary.countRecords(rec)
	if len(t.rep.path) == 0 {
		t.rep.pathFrom = rec.Generation
	}
	t.rep.path = append(t.rep.path, append([]float64(nil), t.rep.summary.BestGenes...))
}

// countRecords adds a saved generation's game rows to GameRecords and Forfeits, and its
// slot time to SlotTime and SlotCapacity.
func (s *Summary) countRecords(rec GenerationRecord) {
	if rec.Slots > 0 {
		s.Slots = rec.Slots
		s.SlotTime += rec.SlotTime
		s.SlotCapacity += rec.Duration * time.Duration(rec.Slots)
	}
	s.GameRecords += len(rec.GameResults)
	for _, r := range rec.GameResults {
		if r.Record.Forfeit != "" {
			s.Forfeits++
		}
	}
}

// ForfeitText warns of the run's forfeits ("" without any): how many of its game rows, and
// when they are all of them, that its scores measure nothing.
func (s Summary) ForfeitText() string {
	switch {
	case s.Forfeits == 0:
		return ""
	case s.Forfeits >= s.GameRecords:
		return fmt.Sprintf("warning: every one of the run's %d games was lost by a forfeit: its scores measure an engine's failures, not its parameters; the games table's forfeit column says why (evotune export-data %d --table games)", s.GameRecords, s.RunID)
	}
	return fmt.Sprintf("warning: %d of the run's %d games were lost by a forfeit (an engine crashed, stalled, lost on time or played an illegal move; evotune export-data %d --table games)", s.Forfeits, s.GameRecords, s.RunID)
}

// ProvenText says why the run ended before its budget ("" when it did not): the checkpoint
// whose SPRT accepted that the champion beats the baseline, after the last checkpoints no
// longer improved.
func (s Summary) ProvenText() string {
	p := s.Proven
	if p == nil {
		return ""
	}
	return fmt.Sprintf("stopped early, proven: the check at generation %d accepted H1 (%s: %+.1f ± %.1f Elo over %d games, LLR %.2f ≥ %.2f), and the last %d checks were no better than the best before them",
		p.Generation, p.Champion, p.Elo, p.EloCI95, p.Games, p.LLR, p.LLRUpper, s.ProvenAfter)
}
