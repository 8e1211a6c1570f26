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
	if t.saving.err != nil || t.ctx.Err() != nil {
		return
	}
	if t.saving.skipSave { // the resumed generation is already in the store
		t.saving.skipSave = false
		t.g.gen++
		t.g.born = nil
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
		t.saving.err = err
		return
	}
	t.setChampion(pop)
	var check *Verification
	if t.cfg.VerifyEvery > 0 && t.g.gen%t.cfg.VerifyEvery == 0 {
		if check, err = t.checkpoint(); err != nil {
			t.saving.err = err
			return
		}
	}
	rec := GenerationRecord{RunID: t.saving.runID, Generation: t.g.gen, Games: t.g.distinctGames, GamesTime: t.g.gamesTime,
		Opponents: append([]string(nil), t.g.opponents...), Openings: t.g.openings, GameResults: t.g.gameResults,
		Admission: adm, Checkpoint: check, HallOfFame: append([]HallOfFamer(nil), t.hall.hof...)}
	fits := make([]float64, len(indis))
	xs := make([][]float64, len(indis))
	for i, in := range indis {
		g := pop[i]
		fits[i] = in.Fitness
		xs[i] = g.X
		rec.Individuals = append(rec.Individuals, IndividualRecord{ID: g.ID, Rank: i + 1, Round: g.Round, Fitness: in.Fitness, Stats: g.Stats})
	}
	for _, g := range t.g.born {
		rec.NewGenomes = append(rec.NewGenomes, GenomeRecord{ID: g.ID, Born: g.Born, Operator: g.Op, Parents: g.Parents, Genes: t.plan.Layout.Named(g.X)})
	}
	if g := t.centreBorn(); g != nil {
		rec.NewGenomes = append(rec.NewGenomes, *g)
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
			dsum += t.plan.Layout.Distance(xs[i], xs[j])
			npairs++
		}
	}
	if npairs > 0 {
		rec.Diversity = dsum / float64(npairs)
	}
	rec.Best, rec.Champion = pop[0].ID, t.rep.summary.Best
	rec.Duration = time.Since(t.g.genStart)
	rec.Elapsed = t.elapsed()
	if err := t.store.SaveGeneration(t.ctx, rec); err != nil {
		t.saving.err = err
		return
	}
	t.rep.summary.Generations = t.g.gen + 1
	t.rep.summary.Games += t.g.distinctGames
	t.rep.summary.GameRecords += len(rec.GameResults)
	t.rep.summary.GamesTime += t.g.gamesTime
	ev := Event{GenDone: true, GamesDone: t.g.distinctGames, GamesTotal: t.g.distinctGames,
		BestScore: pop[0].Stats.Score(), MeanScore: 1 - rec.FitMean, Best: pop[0].ID, Champion: t.rep.summary.Best, CentreOf: len(t.rep.summary.CentreOf)}
	if c := t.rep.summary.Champion; c != nil && len(t.rep.summary.CentreOf) == 0 { // a centre has no record of its own
		if elo, _, ok := c.Estimate(); ok {
			ev.ChampionElo = &elo
		}
	}
	t.report(ev)
	t.g.gen++
	t.g.born = nil
}

// centreID names the hall of fame's centre: the genome in the slot after the population's
// of the generation that admitted the latest member (the centre changes only then).
func (t *Tuner) centreID() string {
	return genomes.IndividualID(t.saving.runID, t.hall.hof[len(t.hall.hof)-1].Generation, t.cfg.Population)
}

// centreBorn is the genome of the hall of fame's new centre when this generation admitted
// a member and the run's champion is the centre (Config.Champion), nil otherwise: stored
// with the generation whether or not the centre is the champion yet, so that it is there
// when a member's bound later makes it so. Its genome row has two parents, the member with
// the best lower bound (else the first) and the latest; every member is a parent: the hall
// of fame's rows admitted up to its generation.
func (t *Tuner) centreBorn() *GenomeRecord {
	hof := t.hall.hof
	if t.cfg.Champion != ChampionCentre || len(hof) < 2 || hof[len(hof)-1].Generation != t.g.gen {
		return nil
	}
	first := hof[0].ID
	if c := champion(hof, t.cfg.AdmitZ); c != nil && c.ID != hof[len(hof)-1].ID {
		first = c.ID
	}
	return &GenomeRecord{ID: t.centreID(), Born: t.g.gen, Operator: OpCentre, Parents: []string{first, hof[len(hof)-1].ID},
		Genes: t.plan.Layout.Named(centre(t.plan.Layout, hof))}
}

// setChampion sets the summary's champion: the hall-of-fame member with the best lower
// confidence bound, or the baseline while none is above it; with Config.Champion centre
// and two or more members, once one is above it, the hall of fame's centre (centreID);
// without a hall of fame (AdmitGames = 0), the rank-1 individual of pop (sorted best
// first).
func (t *Tuner) setChampion(pop []*genomes.Genome) {
	t.rep.summary.HallOfFame = append([]HallOfFamer(nil), t.hall.hof...)
	t.rep.summary.Champion, t.rep.summary.CentreOf = nil, nil
	switch c := champion(t.hall.hof, t.cfg.AdmitZ); {
	case t.cfg.AdmitGames == 0:
		t.rep.summary.Best, t.rep.summary.BestGenes = pop[0].ID, append([]float64(nil), pop[0].X...)
	case c != nil && t.cfg.Champion == ChampionCentre && len(t.hall.hof) >= 2:
		cc := *c
		t.rep.summary.Champion = &cc
		t.rep.summary.Best = t.centreID()
		t.rep.summary.BestGenes = centre(t.plan.Layout, t.hall.hof)
		for _, h := range t.hall.hof {
			t.rep.summary.CentreOf = append(t.rep.summary.CentreOf, h.ID)
		}
	case c != nil:
		cc := *c
		t.rep.summary.Champion = &cc
		t.rep.summary.Best, t.rep.summary.BestGenes = c.ID, append([]float64(nil), c.Genes...)
	default:
		t.rep.summary.Best, t.rep.summary.BestGenes = genomes.IndividualID(t.saving.runID, 0, 0), t.plan.Layout.Defaults()
	}
	t.rep.summary.BaselineChampion = t.championIsBaseline()
	t.rep.summary.BestScore = math.NaN()
	for _, g := range pop {
		if g.ID == t.rep.summary.Best {
			t.rep.summary.BestScore = g.Stats.Score()
		}
	}
}
