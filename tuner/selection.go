package tuner

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"time"

	"github.com/MaxHalford/eaopt"

	"evotune/genomes"
	"evotune/tuner/stats"
)

// Selection under noise (TUNING.md; DESIGN.md "Round 2"):
//
//   - Racing by successive halving (Jamieson & Talwalkar 2016; the elitist races of irace,
//     López-Ibáñez et al. 2016): every individual of a generation plays Games games; the
//     better half by score plays Games more on new openings, the better half of those
//     again, RaceRounds times. Rank orders by the last round reached, then by score over
//     all the generation's games (the same openings and references for everyone who
//     reached that round, so their scores are comparable).
//   - Hall of fame: the race winner becomes a champion only if a fresh head-to-head match
//     against the current champion (the paper's weights while the hall is empty) puts the
//     lower confidence bound of its score above ½ (AdmitZ standard errors), i.e. with
//     statistical evidence, on openings the race never used (no winner's curse).
//   - The champion that is exported and verified is the hall-of-fame member with the best
//     lower confidence bound on its Elo against the paper's weights: the sum of the
//     head-to-head Elo differences along its chain of admissions, with their variances
//     added (Elo differences of close versions of one engine are close to additive).

// HallOfFamer is an individual admitted to the hall of fame.
type HallOfFamer struct {
	ID         string    `json:"id"`
	Generation int       `json:"generation"` // the generation whose race it won
	Genes      []float64 `json:"-"`
	// Elo and EloSE are its Elo against the paper's weights and the standard error, chained
	// through the head-to-head admission matches.
	Elo   float64 `json:"elo"`
	EloSE float64 `json:"elo_se"`
}

// LCB is the lower confidence bound Elo − z·EloSE.
func (h HallOfFamer) LCB(z float64) float64 { return h.Elo - z*h.EloSE }

// Admission is one hall-of-fame test: the race winner against the current champion.
type Admission struct {
	Candidate  string `json:"candidate"`
	Opponent   string `json:"opponent"` // the champion it had to beat ("baseline" at first)
	Generation int    `json:"generation"`
	stats.Result
	Score    float64 `json:"score"`
	ScoreSE  float64 `json:"score_se"`
	Elo      float64 `json:"elo"`    // head-to-head
	EloSE    float64 `json:"elo_se"` // head-to-head
	Admitted bool    `json:"admitted"`
	// ChainElo and ChainSE are the candidate's Elo against the paper's weights and its
	// standard error (the opponent's plus the head-to-head), set whether admitted or not.
	ChainElo float64 `json:"chain_elo"`
	ChainSE  float64 `json:"chain_se"`
}

// eloSE converts a score's standard error to an Elo standard error by the delta method:
// dElo/ds = 400 / (ln 10 · s(1 − s)), with s kept in [0.02, 0.98] so that a one-sided
// record does not claim certainty.
func eloSE(score, se float64) float64 {
	s := math.Min(0.98, math.Max(0.02, score))
	return se * 400 / (math.Ln10 * s * (1 - s))
}

// resultOf converts an individual's record to the statistics package's type.
func resultOf(s genomes.Stats) stats.Result {
	return stats.Result{Wins: s.Wins, Draws: s.Draws, Losses: s.Losses, Penta: s.Penta}
}

// judge fills an admission's estimate and verdict from its games; champ is the current
// champion (nil: the baseline, Elo 0 exactly).
func judge(a *Admission, champ *HallOfFamer, z float64) {
	e, err := a.Result.Estimate()
	if err != nil {
		return
	}
	a.Score, a.ScoreSE = e.Score, e.StdErr
	s := math.Min(0.98, math.Max(0.02, e.Score))
	a.Elo, a.EloSE = stats.Elo(s), eloSE(e.Score, e.StdErr)
	a.ChainElo, a.ChainSE = a.Elo, a.EloSE
	if champ != nil {
		a.ChainElo, a.ChainSE = champ.Elo+a.Elo, math.Hypot(champ.EloSE, a.EloSE)
	}
	a.Admitted = e.Score-z*e.StdErr > 0.5
}

// champion returns the hall-of-fame member with the best lower confidence bound at z
// (ties: the later admission), or nil when the hall is empty or no member's bound is above
// the baseline's (Elo 0 exactly).
func champion(hof []HallOfFamer, z float64) *HallOfFamer {
	var best *HallOfFamer
	for i := range hof {
		if hof[i].LCB(z) <= 0 {
			continue
		}
		if best == nil || hof[i].LCB(z) >= best.LCB(z) {
			best = &hof[i]
		}
	}
	return best
}

// sortIndividuals orders by racing round (descending), then fitness, then ID: a total
// order, so ranks, elites and selection never depend on how eaopt's unstable sort left
// equal fitnesses, and a resumed run continues exactly as an uninterrupted one.
func sortIndividuals(indis eaopt.Individuals) {
	sort.SliceStable(indis, func(i, j int) bool {
		a, b := indis[i].Genome.(*genomes.Genome), indis[j].Genome.(*genomes.Genome)
		if a.Round != b.Round {
			return a.Round > b.Round
		}
		if indis[i].Fitness != indis[j].Fitness {
			return indis[i].Fitness < indis[j].Fitness
		}
		return a.ID < b.ID
	})
}

// tournament picks the best-ranked of k individuals drawn uniformly (with replacement)
// from a population of n sorted best first; it returns an index.
func tournament(rng *rand.Rand, n, k int) int {
	best := n
	for i := 0; i < k; i++ {
		best = min(best, rng.Intn(n))
	}
	return best
}

// model is the generational model with elitism: the best Elite individuals by rank survive
// unchanged (keeping their IDs; they play fresh games each generation); the rest are bred
// by rank tournament selection, uniform crossover and mutation. It implements eaopt.Model.
type model struct{ t *Tuner }

// Validate implements eaopt.Model.
func (model) Validate() error { return nil }

// Apply implements eaopt.Model: it replaces pop by the next generation. Randomness comes
// from the generation's own stream.
func (m model) Apply(pop *eaopt.Population) error {
	t := m.t
	t.genStart = time.Now()
	rng := t.rngV1(t.gen, streamGA)
	pop.RNG = rng
	old := pop.Individuals
	sortIndividuals(old)
	n := len(old)
	next := make([]*genomes.Genome, 0, n)
	for i := 0; i < t.cfg.Elite && i < n; i++ {
		next = append(next, old[i].Genome.Clone().(*genomes.Genome))
	}
	t.born = nil
	k := max(1, min(t.cfg.Tournament, n-1))
	slot := len(next)
	for len(next) < n {
		a, b := tournament(rng, n, k), tournament(rng, n, k)
		kids := []*genomes.Genome{old[a].Genome.Clone().(*genomes.Genome), old[b].Genome.Clone().(*genomes.Genome)}
		for _, kid := range kids {
			kid.Parents, kid.Op = []string{kid.ID}, genomes.OpClone
		}
		if rng.Float64() < t.cfg.CrossoverRate {
			kids[0].Crossover(kids[1], rng)
		}
		for _, kid := range kids {
			if len(next) == n {
				break
			}
			if rng.Float64() < t.cfg.MutationRate {
				kid.Mutate(rng)
			}
			kid.ID, kid.Born = genomes.IndividualID(t.runID, t.gen, slot), t.gen
			slot++
			next = append(next, kid)
			t.born = append(t.born, kid)
		}
	}
	for _, g := range next {
		g.Stats, g.Round = genomes.Stats{}, 0 // records are per generation: never carried over
	}
	pop.Individuals = make(eaopt.Individuals, n)
	for i, g := range next {
		pop.Individuals[i] = eaopt.Individual{Genome: g, Fitness: math.Inf(1), ID: g.ID}
	}
	t.current = next
	t.evaluated = false
	return nil
}

// admit plays the generation's race winner against the current champion and updates the
// hall of fame; it returns the test (nil when none was needed: the winner is the baseline,
// already in the hall, or was rejected before).
func (t *Tuner) admit(winner *genomes.Genome) (*Admission, error) {
	if t.cfg.AdmitGames == 0 || winner.Op == genomes.OpBaseline || t.tested[winner.ID] {
		return nil, nil
	}
	t.tested[winner.ID] = true
	champ := champion(t.hof, t.cfg.AdmitZ)
	opp := opponent{id: "baseline", w: t.baseline, x: t.layout.Defaults()}
	if champ != nil {
		w, err := t.layout.Weights(champ.Genes)
		if err != nil {
			return nil, fmt.Errorf("hall of fame %s: %w", champ.ID, err)
		}
		opp = opponent{id: champ.ID, w: w, x: champ.Genes}
	}
	a := &Admission{Candidate: winner.ID, Opponent: opp.id, Generation: t.gen}
	res, err := t.playAgainst(winner, opp, t.cfg.AdmitGames/2, streamAdmit, "admission")
	if err != nil {
		return nil, err
	}
	a.Result = res
	judge(a, champ, t.cfg.AdmitZ)
	if a.Admitted {
		t.hof = append(t.hof, HallOfFamer{ID: winner.ID, Generation: t.gen, Genes: append([]float64(nil), winner.X...),
			Elo: a.ChainElo, EloSE: a.ChainSE})
	}
	return a, nil
}

// references returns the generation's frozen reference set: the paper's weights and the
// last Champions members of the hall of fame.
func (t *Tuner) references() ([]opponent, error) {
	pool := []opponent{{id: "baseline", w: t.baseline, x: t.layout.Defaults()}}
	from := max(0, len(t.hof)-t.cfg.Champions)
	for _, h := range t.hof[from:] {
		w, err := t.layout.Weights(h.Genes)
		if err != nil {
			return nil, fmt.Errorf("hall of fame %s: %w", h.ID, err)
		}
		pool = append(pool, opponent{id: h.ID, w: w, x: h.Genes})
	}
	return pool, nil
}
