package search

import (
	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/schedule"
)

// Guesses of a round's games in play, for a method whose next round reads only part of
// what the games give (CMA-ES: the order of its candidates' values).
//
// A guess that takes every game in play as a draw (arena.Finished.Guess) is right only when
// the games in play leave that part as the draws would. The n games left to finish can end
// in 3^n ways; once n is small, the run loop instead weighs every way they may end
// (arena.Finished.Scenarios), asks the method what each would make of its next round
// (BranchGuesser.GuessKey), and plays ahead, most likely first, the next rounds of the
// likeliest keys (Loop.lookAhead). The round really asked adopts the one that
// is its games and the others are stopped, so nothing the run computes changes; the games
// ahead take only slots no other batch wants.

// maxBranches is the most next rounds a run loop plays ahead at once, and minBranchP the
// least probability a key must have for its round to be one of them.
const (
	maxBranches = 4
	minBranchP  = 0.05
)

// wayCredit credits a round's games to clones of its players for one way after another:
// the games of pairs with no game left once (base), then for each way those of the pairs
// with one (open), so a way costs its open pairs' games, not the round's.
type wayCredit struct {
	r       *Round
	base    []genomes.Stats
	open    schedule.Batch // the refs of pairs with a game left
	players []*genomes.Genome
}

// newWayCredit prepares lr's crediting for the ways of o.
func newWayCredit(lr *loopRound, o *arena.OutcomeWays) *wayCredit {
	left := map[int]bool{}
	for _, i := range o.Open {
		left[i] = true
	}
	openPair := map[[2]int]bool{}
	for _, e := range lr.b.Refs {
		if e.Task >= 0 && left[e.Task] {
			openPair[[2]int{e.Ind, e.Pair}] = true
		}
	}
	var closed schedule.Batch
	c := &wayCredit{r: lr.r, players: make([]*genomes.Genome, len(lr.r.Players))}
	for _, e := range lr.b.Refs {
		if openPair[[2]int{e.Ind, e.Pair}] {
			c.open.Refs = append(c.open.Refs, e)
		} else {
			closed.Refs = append(closed.Refs, e)
		}
	}
	for i, p := range lr.r.Players {
		c.players[i] = p.Clone().(*genomes.Genome)
	}
	schedule.Credit(&closed, o.Recs, c.players, 0, nil)
	for _, p := range c.players {
		c.base = append(c.base, p.Stats)
	}
	return c
}

// round is the round with its players credited as the games would end as recs: their
// Stats, not their PairScores (the same players for every call: read it before the next).
func (c *wayCredit) round(recs []engine.GameRecord) *Round {
	for i, p := range c.players {
		p.Stats = c.base[i]
	}
	schedule.Credit(&c.open, recs, c.players, 0, nil)
	r := *c.r
	r.Players, r.PairScores = c.players, nil
	return &r
}
