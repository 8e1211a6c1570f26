package tuner

import (
	"fmt"
	"time"

	"evotune/tuner/config"
	"evotune/tuner/ga"
	"evotune/tuner/stats"
)

// SavedText is the run's saved generations in its method's words: "12 generations",
// "1 SPSA step", "40 CMA-ES generations".
func (s Summary) SavedText() string {
	m, _ := config.MethodOf(s.Method)
	return plural(s.Generations, m.Saved)
}

// SlotUtilisation is the share of the generations' game-slot time that games filled
// (SlotTime / SlotCapacity), or −1 when no generation measured it (a cluster played the
// games, or none was saved).
func (s Summary) SlotUtilisation() float64 {
	if s.SlotCapacity <= 0 {
		return -1
	}
	return s.SlotTime.Seconds() / s.SlotCapacity.Seconds()
}

// SlotText says how busy the run kept its game slots: "slot utilisation 97.3% of 2 game
// slots", or that it was not measured.
func (s Summary) SlotText() string {
	u := s.SlotUtilisation()
	if u < 0 {
		return "slot utilisation not measured (another runner played the games, its game slots unknown)"
	}
	if s.Slots == 0 {
		return fmt.Sprintf("slot utilisation %.1f%%", 100*u)
	}
	return fmt.Sprintf("slot utilisation %.1f%% of %s", 100*u, plural(s.Slots, "game slot"))
}

// lagOf is the rounds cfg's method may have in play behind the one it asks (Summary.Lag).
func lagOf(cfg config.Config) int {
	switch cfg.Method {
	case config.MethodSPSA:
		return cfg.SPSAParams().Lag
	case config.MethodCMAES:
		return cfg.CMAESParams().Lag
	}
	if cfg.IsGA() {
		return cfg.GALag
	}
	return 0
}

// SlotHint says, when the run kept fewer than 90% of its game slots (two or more) busy
// and its method waited for each round's slowest game because it had no rounds in play
// (SPSA or CMA-ES at lag 0, or the GA, whose every generation is bred from the one before
// once all its games are played), which setting fills them; "" otherwise. Each such
// setting changes the search, so it stays the user's choice (docs/methods.md).
func (s Summary) SlotHint() string {
	u := s.SlotUtilisation()
	if u < 0 || u >= 0.9 || s.Slots < 2 || s.Lag != 0 {
		return ""
	}
	switch s.Method {
	case config.MethodGA:
		if s.Generations == 0 {
			return ""
		}
		per := float64(s.Games) / float64(s.Generations)
		return fmt.Sprintf("the game slots waited: each GA generation (%.0f games, %.1f a slot) waited for its slowest game before the next could be bred (the GA plays its next generation ahead on a guess of those games, here or on a cluster, but stops guessing where its guesses seldom hold); the fewer games a slot, the longer the wait. --ga-lag 3 breeds each generation from older ones while they play (95–99.5%% of 64 replayed slots busy; on gomoku about 7 Elo weaker at equal games), and --method steady has no generations at all; each searches differently (docs/methods.md)", per, per/float64(s.Slots))
	case config.MethodSPSA:
		return fmt.Sprintf("the game slots waited: each SPSA step waited for the one before (lag 0); --spsa-lag %d, the least a new run takes, keeps %d steps in play (16 cores 98.6%% busy, measured)", config.DefaultSPSALag, config.DefaultSPSALag+1)
	case config.MethodCMAES:
		return "the game slots waited: each CMA-ES generation waited for its slowest game; --cmaes-lag 1 samples a generation while the one before it plays (99.9% of 16 and 99.0% of 64 replayed gomoku slots busy where lag 0, playing its likeliest next generations ahead, kept 92% and 71%, and no guess of one generation, even from the games' real results, keeps more than 93% and 48% (connect6) of 64; 5 Elo weaker over nine gomoku seeds at equal games, the extra games of 16 slots not buying it back); it changes the search, and on many cores --method spsa fills the slots at its defaults (docs/tune.md)"
	}
	return ""
}

// EarlyHintGames is how many games a game slot the run must have saved, over at least
// EarlyHintGenerations generations, before EarlySlotHint judges its slot utilisation: the
// first generation's wait for engines to start and openings to be drawn, spread over them,
// no longer decides it.
const (
	EarlyHintGames       = 20
	EarlyHintGenerations = 3
)

// EarlySlotHint is SlotHint for a run in progress: "" until it has saved EarlyHintGenerations
// generations and EarlyHintGames games a slot. Shown as the run plays, it lets the user stop
// and start again with the setting it names (a resumed run keeps its settings) before the
// night's slots have waited.
func (s Summary) EarlySlotHint() string {
	if s.Generations < EarlyHintGenerations || s.Games < EarlyHintGames*s.Slots {
		return ""
	}
	return s.SlotHint()
}

// RunText is the summary's first line: the run, its status, what it saved and played, and
// how busy it kept its game slots (SlotText).
func (s Summary) RunText() string {
	if s.Games == 0 && s.Generations == 0 {
		m, _ := config.MethodOf(s.Method)
		return fmt.Sprintf("run %d %s after %s: no %s finished, so nothing was saved", s.RunID, s.Status, s.Wall.Round(time.Millisecond), m.Saved)
	}
	records := ""
	if s.GameRecords != s.Games {
		records = fmt.Sprintf(" (%d rows in the games table: a game shared by identical genomes is recorded for each)", s.GameRecords)
	}
	return fmt.Sprintf("run %d %s: %s saved, %d games%s in %s (%.1f games/s), %s",
		s.RunID, s.Status, s.SavedText(), s.Games, records, s.Wall.Round(time.Millisecond), float64(s.Games)/s.Wall.Seconds(), s.SlotText())
}

// ChampionText says what the run's champion is and what it claims, in its method's terms
// (one or more lines without the final newline); "" without a champion.
func (s Summary) ChampionText() string {
	if s.Best == "" {
		return ""
	}
	m, ok := specOf(s.Method)
	if !ok { // a run of a later version's method
		return "champion " + s.Best
	}
	return m.Summarise(s)
}

// spsaSummary: θ after the last step, and a time budget that ended the gains' schedule early.
func spsaSummary(s Summary) string {
	t := fmt.Sprintf("champion %s: θ after the last of %d SPSA steps (SPSA's result is its last point, not a pick among noisy scores)", s.Best, s.Generations)
	if s.BudgetGames > 0 && s.Games < s.BudgetGames && s.Status == "finished" {
		t += fmt.Sprintf("\nthe time budget ended the run at %.0f%% of the %d games its gains were scheduled over (its steps were still a little larger than at the schedule's end)",
			100*float64(s.Games)/float64(s.BudgetGames), s.BudgetGames)
	}
	return t
}

// cmaesSummary: the mean after the last generation.
func cmaesSummary(s Summary) string {
	return fmt.Sprintf("champion %s: the mean after the last of %d CMA-ES generations (a recombination of the best candidates, not a pick among noisy scores)", s.Best, s.Generations)
}

// gaSummary: the hall of fame's centre or best member, the race winner without a hall of
// fame, or, while the paper's weights reign, how close the search came.
func gaSummary(s Summary) string {
	c := s.Champion
	switch {
	case s.ChampionRule == config.ChampionPopulation:
		what := "the centre of the last generation's better half by rank (the best weighing most"
		if s.Lag > 0 {
			what = fmt.Sprintf("the mean of the last %d generations' better-half centres, one from each line of generations in play (each centre by rank, the best weighing most", s.Lag+1)
		}
		return fmt.Sprintf("champion %s: %s, log genes in log space; it has played no game of its own: the verification below measures it)", s.Best, what)
	case len(s.CentreOf) > 0:
		t := fmt.Sprintf("champion %s: the centre of the hall of fame's %d members (their weighted mean, the latest weighing most, log genes in log space; it has played no game of its own: the verification below measures it)", s.Best, len(s.CentreOf))
		if c != nil {
			elo, se, _ := c.Estimate()
			z := ga.FamilyZ(len(s.HallOfFame), 0)
			t += fmt.Sprintf("; the best member, %s, claims Elo %s (95%% simultaneous, z = %.2f)", c.ID, stats.FormatEloCI(elo, z*se), z)
		}
		return t
	case c != nil:
		elo, se, _ := c.Estimate()
		z := ga.FamilyZ(len(s.HallOfFame), 0)
		return fmt.Sprintf("champion %s (hall of fame: %d members; the member with the best lower bound), Elo %s (95%% simultaneous over the members, z = %.2f) against %s in %d games after its admission",
			s.Best, len(s.HallOfFame), stats.FormatEloCI(elo, z*se), z, s.Baseline, c.Stats.Games())
	case s.BaselineChampion:
		return nothingFound(s)
	case len(s.HallOfFame) == 1 && s.HallOfFame[0].ID == s.Best:
		return fmt.Sprintf("champion %s: the hall of fame's one member, admitted head to head against %s", s.Best, s.Baseline)
	}
	return fmt.Sprintf("champion %s: the race winner of the last generation (no hall of fame: --admit-games 0), score %.3f in its last generation", s.Best, s.BestScore)
}

// nothingFound is the summary of a run whose champion is still the baseline: what was
// tried, how close the best candidate came, and that no verification was played.
func nothingFound(s Summary) string {
	t := fmt.Sprintf("champion %s: %s. No candidate has beaten them yet", s.Best, s.Baseline)
	best, z := ga.BestMember(s.HallOfFame, 0), ga.FamilyZ(len(s.HallOfFame), 0)
	switch a := s.Closest; {
	case best != nil:
		elo, se, _ := best.Estimate()
		t += fmt.Sprintf(": %s; the best, %s, has Elo %s (95%% simultaneous, z = %.2f) in %d games, a lower bound not above 0",
			plural(len(s.HallOfFame), "hall-of-fame member"), best.ID, stats.FormatEloCI(elo, z*se), z, best.Stats.Games())
	case a != nil:
		t += fmt.Sprintf(": %s; the closest, %s (generation %d), scored %+.3f ± %.3f per game over %s in %d games (admitted when the lower bound is above 0)",
			plural(s.Tests, "hall-of-fame test"), a.Candidate, a.Generation, a.Diff, a.DiffSE, a.Opponent, a.Games())
	default:
		t += ": no race winner reached a hall-of-fame test"
	}
	return t + fmt.Sprintf(".\nnot verified: a match of %s against themselves measures nothing. This run played %d games in %s; the runs measured in docs/tune.md (\"Planning an overnight run\") found their champions in 30 minutes on a 2-core machine: run longer: a new tune with --time-budget 30m or a larger --budget-games.",
		s.Baseline, s.Games, s.Wall.Round(time.Second))
}

// plural is "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// steadySummary: the centre of the better half after the last birth.
func steadySummary(s Summary) string {
	return fmt.Sprintf("champion %s: the centre of the better half of the population after %d steady-state generations (a recombination of the best members, not a pick among noisy scores; it has played no game of its own: the verification below measures it)", s.Best, s.Generations)
}
