package report

import (
	"fmt"
	"time"

	"evotune/tuner/ladder"
	"evotune/tuner/record"
)

// Summary is the outcome of a run: what tune prints when it ends (RunText, ChampionText,
// SlotHint, ProvenText, ForfeitText, MovementText) and what a comparison of methods reads.
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
	Champion *record.HallOfFamer
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
	HallOfFame []record.HallOfFamer
	// Tests counts the run's hall-of-fame tests; Closest is the test whose paired
	// difference over the reigning champion had the highest lower bound (Diff − AdmitZ·DiffSE),
	// the evidence a run without a hall of fame reports (nil: no test).
	Tests   int
	Closest *record.Admission
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
	Movement *record.Movement
	// Summarise is the run's method's line of the summary: its champion and what that
	// claims (ChampionText; nil: a method this program does not know).
	Summarise func(s Summary) string `json:"-"`
}

// CountRecords adds a saved generation's game rows to GameRecords and Forfeits, and its
// slot time to SlotTime and SlotCapacity.
func (s *Summary) CountRecords(rec record.GenerationRecord) {
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
