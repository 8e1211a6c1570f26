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
