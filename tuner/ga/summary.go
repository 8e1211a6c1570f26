package ga

import (
	"fmt"
	"time"

	"evotune/tuner/config"
	"evotune/tuner/report"
	"evotune/tuner/stats"
)

// Summarise is the GA's line of a run's summary (report.Summary.Summarise), with or
// without generations in play: the hall of fame's centre or best member, the race winner without a hall of
// fame, or, while the paper's weights reign, how close the search came.
func Summarise(s report.Summary) string {
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
			z := FamilyZ(len(s.HallOfFame), 0)
			t += fmt.Sprintf("; the best member, %s, claims Elo %s (95%% simultaneous, z = %.2f)", c.ID, stats.FormatEloCI(elo, z*se), z)
		}
		return t
	case c != nil:
		elo, se, _ := c.Estimate()
		z := FamilyZ(len(s.HallOfFame), 0)
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
func nothingFound(s report.Summary) string {
	t := fmt.Sprintf("champion %s: %s. No candidate has beaten them yet", s.Best, s.Baseline)
	best, z := BestMember(s.HallOfFame, 0), FamilyZ(len(s.HallOfFame), 0)
	switch a := s.Closest; {
	case best != nil:
		elo, se, _ := best.Estimate()
		t += fmt.Sprintf(": %s; the best, %s, has Elo %s (95%% simultaneous, z = %.2f) in %d games, a lower bound not above 0",
			report.Plural(len(s.HallOfFame), "hall-of-fame member"), best.ID, stats.FormatEloCI(elo, z*se), z, best.Stats.Games())
	case a != nil:
		t += fmt.Sprintf(": %s; the closest, %s (generation %d), scored %+.3f ± %.3f per game over %s in %d games (admitted when the lower bound is above 0)",
			report.Plural(s.Tests, "hall-of-fame test"), a.Candidate, a.Generation, a.Diff, a.DiffSE, a.Opponent, a.Games())
	default:
		t += ": no race winner reached a hall-of-fame test"
	}
	return t + fmt.Sprintf(".\nnot verified: a match of %s against themselves measures nothing. This run played %d games in %s; the runs measured in docs/tune.md (\"Planning an overnight run\") found their champions in 30 minutes on a 2-core machine: run longer: a new tune with --time-budget 30m or a larger --budget-games.",
		s.Baseline, s.Games, s.Wall.Round(time.Second))
}
