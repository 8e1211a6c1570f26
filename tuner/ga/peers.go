package ga

import (
	"fmt"
	"math"
	"math/rand"

	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/record"
	"evotune/tuner/schedule"
	"evotune/tuner/search"
)

// PeerPlan is a generation's pairings of peers (the generational GA's playPeers): their
// games (B), each round's pairing and the index of its first opening pair in the
// generation's openings (Rounds), and the opening pairs a pair plays (Pairs).
type PeerPlan struct {
	B      schedule.Batch
	Rounds []PeerRound
	Pairs  int
}

// PeerRound is a round of a PeerPlan: its pairing (Order, a permutation of the individuals
// paired in turn: Order[0] plays Order[1], …) and the index of its first opening pair.
type PeerRound struct {
	Order []int
	First int
}

// PlanPeers plans a generation's pairings of pop without playing them: RaceRounds+1 rounds
// of c, each a pairing from rng (the generation's pairing stream) and its Games/2 openings
// from draw, which is given the number of openings, their stream and the generation's
// openings so far and returns the new ones; each pair's games are scheduled through sides.
// It changes nothing but what draw changes. The error is draw's, or names an individual
// whose genes make no side.
func PlanPeers(c config.Config, sides schedule.Sides, rng *rand.Rand, pop []*genomes.Genome, draw func(n int, stream uint64, have [][]string) ([][]string, error)) (*PeerPlan, error) {
	n := len(pop)
	pl := &PeerPlan{Pairs: c.Games / 2}
	var openings [][]string
	for r := 0; r <= c.RaceRounds; r++ {
		order := rng.Perm(n)
		os, err := draw(pl.Pairs, search.StreamOpenings+uint64(r)<<4, openings)
		if err != nil {
			return nil, err
		}
		first := len(openings)
		openings = append(openings, os...)
		pl.Rounds = append(pl.Rounds, PeerRound{order, first})
		for k := 0; k+1 < n; k += 2 {
			opp := pop[order[k+1]]
			w, ext, err := sides.Side(opp.X)
			if err != nil {
				return nil, fmt.Errorf("individual %s: %w", opp.ID, err)
			}
			refs := []schedule.Opponent{{ID: opp.ID, W: w, X: opp.X, Ext: ext}}
			if err := schedule.On(&pl.B, sides, pop, []int{order[k]}, refs, openings, first, pl.Pairs, r); err != nil {
				return nil, err
			}
		}
	}
	return pl, nil
}

// Credit credits the pairings' games recs (pl.b.tasks' records, in order) to players (the
// plan's population: their Stats) and returns results with a row appended for each game
// played: the first of each pair its games, the second the mirror of them, round by round.
func (pl *PeerPlan) Credit(recs []engine.GameRecord, players []*genomes.Genome, results []record.GameResult) []record.GameResult {
	from := len(results)
	results, pairScore := schedule.Credit(&pl.B, recs, players, 0, results)
	byID := map[string]int{}
	for i, g := range players {
		byID[g.ID] = i
	}
	n := len(players)
	// The second of each pair: the mirror of the first's games, round by round.
	played := make([]map[[2]string]int, len(pl.Rounds))
	for r := range played {
		played[r] = map[[2]string]int{}
	}
	for _, gr := range results[from:] {
		played[gr.Round][[2]string{gr.Individual, gr.Opponent}]++
		st := &players[byID[gr.Opponent]].Stats
		switch gr.Score {
		case 1:
			st.Losses++
		case 0:
			st.Wins++
		default:
			st.Draws++
		}
	}
	for r, rd := range pl.Rounds {
		for k := 0; k+1 < n; k += 2 {
			a, o := players[rd.Order[k]], players[rd.Order[k+1]]
			st := &o.Stats
			st.Draws += 2*pl.Pairs - played[r][[2]string{a.ID, o.ID}] // identical genomes: drawn, not played
			for p := rd.First; p < rd.First+pl.Pairs; p++ {
				st.Penta[int(math.Round((2-pairScore[[2]int{rd.Order[k], p}])*2))]++
			}
		}
	}
	return results
}
