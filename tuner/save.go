package tuner

import (
	"math"
	"time"

	"github.com/MaxHalford/eaopt"
	"gonum.org/v1/gonum/stat"

	"evotune/genomes"
)

// onGeneration runs after eaopt has evaluated a generation: it ranks the race, tests the
// winner for the hall of fame, plays the checkpoint if one is due, and saves it all in
// one transaction.
func (t *Tuner) onGeneration(ga *eaopt.GA) {
	if t.err != nil || t.ctx.Err() != nil {
		return
	}
	if t.skipSave { // the resumed generation is already in the store
		t.skipSave = false
		t.gen++
		t.born = nil
		return
	}
	indis := append(eaopt.Individuals(nil), ga.Populations[0].Individuals...)
	sortIndividuals(indis)
	pop := make([]*genomes.Genome, len(indis))
	for i, in := range indis {
		pop[i] = in.Genome.(*genomes.Genome)
	}
	adm, err := t.admit(pop[0])
	if err != nil {
		t.err = err
		return
	}
	t.setChampion(pop)
	var check *Verification
	if t.cfg.VerifyEvery > 0 && t.gen%t.cfg.VerifyEvery == 0 {
		if check, err = t.checkpoint(); err != nil {
			t.err = err
			return
		}
	}
	rec := GenerationRecord{RunID: t.runID, Generation: t.gen, Games: t.distinctGames, GamesTime: t.gamesTime,
		Opponents: append([]string(nil), t.opponents...), Openings: t.openings, GameResults: t.gameResults,
		Admission: adm, Checkpoint: check, HallOfFame: append([]HallOfFamer(nil), t.hof...)}
	fits := make([]float64, len(indis))
	xs := make([][]float64, len(indis))
	for i, in := range indis {
		g := pop[i]
		fits[i] = in.Fitness
		xs[i] = g.X
		rec.Individuals = append(rec.Individuals, IndividualRecord{ID: g.ID, Rank: i + 1, Round: g.Round, Fitness: in.Fitness, Stats: g.Stats})
	}
	for _, g := range t.born {
		rec.NewGenomes = append(rec.NewGenomes, GenomeRecord{ID: g.ID, Born: g.Born, Operator: g.Op, Parents: g.Parents, Genes: t.layout.Named(g.X)})
	}
	rec.FitMin, rec.FitMax = fits[0], fits[0]
	for _, f := range fits {
		rec.FitMin, rec.FitMax = math.Min(rec.FitMin, f), math.Max(rec.FitMax, f)
	}
	rec.FitMean, rec.FitStd = stat.MeanStdDev(fits, nil)
	if len(fits) < 2 {
		rec.FitStd = 0
	}
	var dsum float64
	var npairs int
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			dsum += t.layout.Distance(xs[i], xs[j])
			npairs++
		}
	}
	if npairs > 0 {
		rec.Diversity = dsum / float64(npairs)
	}
	rec.Best, rec.Champion = pop[0].ID, t.summary.Best
	rec.Duration = time.Since(t.genStart)
	rec.Elapsed = t.elapsed()
	if err := t.store.SaveGeneration(t.ctx, rec); err != nil {
		t.err = err
		return
	}
	t.summary.Generations = t.gen + 1
	t.summary.Games += t.distinctGames
	t.summary.GameRecords += len(rec.GameResults)
	t.summary.GamesTime += t.gamesTime
	ev := Event{GenDone: true, GamesDone: t.distinctGames, GamesTotal: t.distinctGames,
		BestScore: pop[0].Stats.Score(), MeanScore: 1 - rec.FitMean, Best: pop[0].ID, Champion: t.summary.Best}
	if c := t.summary.Champion; c != nil {
		if elo, _, ok := c.Estimate(); ok {
			ev.ChampionElo = &elo
		}
	}
	t.report(ev)
	t.gen++
	t.born = nil
}

// setChampion sets the summary's champion: the hall-of-fame member with the best lower
// confidence bound, or the baseline while none is above it; without a hall of fame
// (AdmitGames = 0), the rank-1 individual of pop (sorted best first).
func (t *Tuner) setChampion(pop []*genomes.Genome) {
	t.summary.HallOfFame = append([]HallOfFamer(nil), t.hof...)
	t.summary.Champion = nil
	switch c := champion(t.hof, t.cfg.AdmitZ); {
	case t.cfg.AdmitGames == 0:
		t.summary.Best, t.summary.BestGenes = pop[0].ID, append([]float64(nil), pop[0].X...)
	case c != nil:
		cc := *c
		t.summary.Champion = &cc
		t.summary.Best, t.summary.BestGenes = c.ID, append([]float64(nil), c.Genes...)
	default:
		t.summary.Best, t.summary.BestGenes = genomes.IndividualID(t.runID, 0, 0), t.layout.Defaults()
	}
	t.summary.BaselineChampion = t.championIsBaseline()
	t.summary.BestScore = math.NaN()
	for _, g := range pop {
		if g.ID == t.summary.Best {
			t.summary.BestScore = g.Stats.Score()
		}
	}
}
