package tuner

import (
	"context"
	"math"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/ga"
	"evotune/tuner/population"
	"evotune/tuner/record"
)

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
func (t *Tuner) centreBorn() *record.GenomeRecord {
	hof := t.hall.hof
	if t.cfg.Champion != config.ChampionCentre || len(hof) < 2 || hof[len(hof)-1].Generation != t.g.gen {
		return nil
	}
	first := hof[0].ID
	if c := ga.Champion(hof, t.cfg.AdmitZ); c != nil && c.ID != hof[len(hof)-1].ID {
		first = c.ID
	}
	return &record.GenomeRecord{ID: t.centreID(), Born: t.g.gen, Operator: config.OpCentre, Parents: []string{first, hof[len(hof)-1].ID},
		Genes: t.plan.Layout.Named(population.Centre(t.plan.Layout, hof))}
}

// populationCentre is the genome of ChampionPopulation's champion after the current
// generation, whose individuals are pop (sorted best first): the centre of its better half.
func (t *Tuner) populationCentre(pop []*genomes.Genome) (record.GenomeRecord, []float64) {
	x, last := population.BetterHalfCentre(t.plan.Layout, pop)
	return record.GenomeRecord{ID: genomes.IndividualID(t.saving.runID, t.g.gen, t.cfg.Population), Born: t.g.gen, Operator: config.OpPopulationCentre,
		Parents: []string{pop[0].ID, last}, Genes: t.plan.Layout.Named(x)}, x
}

// setChampion sets the summary's champion: with Config.Champion population, the centre of
// the generation's better half (populationCentre); with centre and two or more
// members, the hall of fame's centre (centreID), whatever the members' bounds; with
// AdmissionHeadToHead and one member, that member (its admission was its evidence against
// the paper's weights); otherwise
// the hall-of-fame member with the best lower confidence bound, or the baseline while none
// is above it; without a hall of fame (AdmitGames = 0), the rank-1 individual of pop
// (sorted best first).
func (t *Tuner) setChampion(pop []*genomes.Genome) {
	t.rep.summary.HallOfFame = append([]record.HallOfFamer(nil), t.hall.hof...)
	t.rep.summary.Champion, t.rep.summary.CentreOf = nil, nil
	switch {
	case t.cfg.Champion == config.ChampionPopulation:
		rec, x := t.populationCentre(pop)
		t.rep.summary.Best, t.rep.summary.BestGenes = rec.ID, x
	case t.cfg.AdmitGames == 0:
		t.rep.summary.Best, t.rep.summary.BestGenes = pop[0].ID, append([]float64(nil), pop[0].X...)
	default:
		centreID := ""
		if len(t.hall.hof) > 0 {
			centreID = t.centreID()
		}
		h := ga.HallChampion(t.cfg, t.plan.Layout, t.hall.hof, centreID, genomes.IndividualID(t.saving.runID, 0, 0))
		t.rep.summary.Best, t.rep.summary.BestGenes = h.ID, h.X
		t.rep.summary.Champion, t.rep.summary.CentreOf = h.Member, h.CentreOf
	}
	t.rep.summary.BaselineChampion = t.championIsBaseline()
	t.rep.summary.BestScore = math.NaN()
	for _, g := range pop {
		if g.ID == t.rep.summary.Best {
			t.rep.summary.BestScore = g.Stats.Score()
		}
	}
}

// pendingSave is a step being written to the store while the next one plays.
type pendingSave struct {
	gen  int
	done chan struct{} // closed when err is set
	err  error
}

// saveBehind writes step rec in the background (the next step's games need nothing from
// the store) once the previous step's write has ended, and reports ev ("step K saved")
// when it is committed: a step's transaction (its games, θ± and θ_{k+1}, one fsync) costs
// about 3 ms, a few percent of a Gomoku step of 32 games. The write does not stop with ctx:
// a finished step is saved even when the run is stopped. An error of the previous write is
// returned here (or by waitSave).
func (t *Tuner) saveBehind(rec record.GenerationRecord, ev record.Event) error {
	if err := t.waitSave(); err != nil {
		return err
	}
	p := &pendingSave{gen: rec.Generation, done: make(chan struct{})}
	t.saving.pending = p
	ctx := context.WithoutCancel(t.ctx)
	go func() {
		defer close(p.done)
		if p.err = t.store.SaveGeneration(ctx, rec); p.err == nil {
			t.emit(ev)
		}
	}()
	return nil
}

// waitSave waits for the step being written; after an error the summary counts only the
// steps saved before it.
func (t *Tuner) waitSave() error {
	p := t.saving.pending
	if p == nil {
		return nil
	}
	<-p.done
	t.saving.pending = nil
	if p.err != nil {
		t.rep.summary.Generations = p.gen
		return p.err
	}
	return nil
}

// countGeneration counts saved generation rec in the summary (report.Summary.CountRecords) and notes
// where its champion stands (the path Movement is measured on).
func (t *Tuner) countGeneration(rec record.GenerationRecord) {
	t.rep.summary.CountRecords(rec)
	if len(t.rep.path) == 0 {
		t.rep.pathFrom = rec.Generation
	}
	t.rep.path = append(t.rep.path, append([]float64(nil), t.rep.summary.BestGenes...))
}
