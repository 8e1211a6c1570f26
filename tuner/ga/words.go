package ga

import (
	"fmt"

	"evotune/tuner/config"
	"evotune/tuner/record"
)

// Saved is the GA's part of a saved generation's progress line (config.Method.Progress):
// the generation's games, its race winner (with peers: its best against the
// others), the mean score and the champion.
func Saved(e record.Event) string {
	best := "race winner"
	if e.Selection == config.SelectionPeers {
		best = "best against its peers"
	}
	return fmt.Sprintf("%d games, %s %s score %.3f, mean %.3f, champion %s (%s)", e.GamesTotal, best, e.Best, e.BestScore, e.MeanScore, e.Champion, e.ChampionText())
}

// BestColumn heads a GA generation's best individual by how it was picked: "BEST OF
// PEERS" when the individuals play each other, else "RACE WINNER".
func BestColumn(c config.Config) string {
	if c.Selection == config.SelectionPeers {
		return "BEST OF PEERS"
	}
	return "RACE WINNER"
}

// Openings is the most tuning openings a GA generation draws (config.Method.Openings):
// Games/2 opening pairs for each of its RaceRounds+1 rounds (racing or pairings of peers), then AdmitGames/2 for the admission test and as
// many for the defender's own games.
func Openings(c config.Config) int { return (c.RaceRounds+1)*c.Games/2 + c.AdmitGames }

// SlotHint is the GA's slot hint (config.Method.SlotHint): how long its generations were a
// slot, and the settings that breed while games play; "" before a generation is saved.
func SlotHint(generations, games, slots int) string {
	if generations == 0 {
		return ""
	}
	per := float64(games) / float64(generations)
	return fmt.Sprintf("the game slots waited: each GA generation (%.0f games, %.1f a slot) waited for its slowest game before the next could be bred (the GA plays its next generation ahead on a guess of those games, here or on a cluster, but stops guessing where its guesses seldom hold); the fewer games a slot, the longer the wait. --ga-lag 3 breeds each generation from older ones while they play (95–99.5%% of 64 replayed slots busy; on gomoku about 7 Elo weaker at equal games), and --method steady has no generations at all; each searches differently (docs/methods.md)", per, per/float64(slots))
}
