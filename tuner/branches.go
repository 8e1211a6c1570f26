package tuner

import (
	"math"

	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/search"
)

// Guesses of a round's games in play, for a method whose next round reads only part of
// what the games give (CMA-ES: the order of its candidates' values).
//
// A guess that takes every game in play as a draw (finishedGames.guess) is right only when
// the games in play leave that part as the draws would. The n games left to finish can end
// in 3^n ways; once n is small, the run loop instead weighs every way they may end
// (scenarios), asks the method what each would make of its next round
// (BranchGuesser.GuessKey), and plays ahead, most likely first, the next rounds of the
// likeliest keys (loopMethod.lookAhead). The round really asked adopts the one that
// is its games and the others are stopped, so nothing the run computes changes; the games
// ahead take only slots no other batch wants.

// scenarioEnum is the most games left to finish whose ways of ending a guess weighs (3^4 =
// 81 ways); with more, a guess takes them as draws (finishedGames.guess). Six (729 ways)
// measured the same in the played replay (gomoku and connect6, 16 and 64 slots).
const scenarioEnum = 4

// maxBranches is the most next rounds a run loop plays ahead at once, and minBranchP the
// least probability a key must have for its round to be one of them.
const (
	maxBranches = 4
	minBranchP  = 0.05
)

// outcomeWays are ways the games left to finish may end: the batch's records (each game
// left a draw), which of them are left (open), and each way's outcomes of those games and
// probability.
type outcomeWays struct {
	recs []engine.GameRecord
	open []int
	ways [][]engine.Outcome
	p    []float64
}

// with returns the batch's records with the games left ending as way w does (the same
// slice for every w: read it before the next call).
func (o *outcomeWays) with(w int) []engine.GameRecord {
	for j, i := range o.open {
		o.recs[i] = engine.GameRecord{Outcome: o.ways[w][j]}
	}
	return o.recs
}

// scenarios returns, once no more than min(slots, scenarioEnum) games are left to finish
// (nil before that, and once all are), every way the games left may end and its
// probability: each game left ends independently, Black winning, White winning or drawn in
// the shares of the batch's finished games (each count plus one, so an outcome not seen
// yet stays possible). The probabilities sum to 1.
func (f *finishedGames) scenarios(slots int) *outcomeWays {
	f.mu.Lock()
	defer f.mu.Unlock()
	left := len(f.got) - f.n
	if left == 0 || left > min(slots, scenarioEnum) {
		return nil
	}
	outs := [3]engine.Outcome{engine.BlackWins, engine.WhiteWins, engine.Draw}
	var share [3]float64
	o := &outcomeWays{recs: make([]engine.GameRecord, len(f.recs))}
	for i, ok := range f.got {
		if !ok {
			o.open = append(o.open, i)
			o.recs[i] = engine.GameRecord{Outcome: engine.Draw}
			continue
		}
		o.recs[i] = engine.GameRecord{Outcome: f.recs[i].Outcome}
		for k, out := range outs {
			if f.recs[i].Outcome == out {
				share[k]++
			}
		}
	}
	total := float64(f.n) + 3
	for k := range share {
		share[k] = (share[k] + 1) / total
	}
	n := int(math.Pow(3, float64(len(o.open))))
	for c := range n { // the last way: every game left drawn
		way, p := make([]engine.Outcome, len(o.open)), 1.0
		for j, x := 0, c; j < len(o.open); j, x = j+1, x/3 {
			way[j] = outs[x%3]
			p *= share[x%3]
		}
		o.ways, o.p = append(o.ways, way), append(o.p, p)
	}
	return o
}

// wayCredit credits a round's games to clones of its players for one way after another:
// the games of pairs with no game left once (base), then for each way those of the pairs
// with one (open), so a way costs its open pairs' games, not the round's.
type wayCredit struct {
	r       *search.Round
	base    []genomes.Stats
	open    batch // the refs of pairs with a game left
	players []*genomes.Genome
}

// newWayCredit prepares lr's crediting for the ways of o.
func newWayCredit(lr *loopRound, o *outcomeWays) *wayCredit {
	left := map[int]bool{}
	for _, i := range o.open {
		left[i] = true
	}
	openPair := map[[2]int]bool{}
	for _, e := range lr.b.refs {
		if e.task >= 0 && left[e.task] {
			openPair[[2]int{e.ind, e.pair}] = true
		}
	}
	var closed batch
	c := &wayCredit{r: lr.r, players: make([]*genomes.Genome, len(lr.r.Players))}
	for _, e := range lr.b.refs {
		if openPair[[2]int{e.ind, e.pair}] {
			c.open.refs = append(c.open.refs, e)
		} else {
			closed.refs = append(closed.refs, e)
		}
	}
	for i, p := range lr.r.Players {
		c.players[i] = p.Clone().(*genomes.Genome)
	}
	creditOn(&closed, o.recs, c.players, 0, nil)
	for _, p := range c.players {
		c.base = append(c.base, p.Stats)
	}
	return c
}

// round is the round with its players credited as the games would end as recs: their
// Stats, not their PairScores (the same players for every call: read it before the next).
func (c *wayCredit) round(recs []engine.GameRecord) *search.Round {
	for i, p := range c.players {
		p.Stats = c.base[i]
	}
	creditOn(&c.open, recs, c.players, 0, nil)
	r := *c.r
	r.Players, r.PairScores = c.players, nil
	return &r
}
