package ga

import (
	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/population"
	"evotune/tuner/record"
	"evotune/tuner/stats"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Judge fills an admission from the candidate's and the champion's pair scores (each in
// [0, 2], pair k on the same opening) and the candidate's record.
func Judge(a *record.Admission, cand, champ []float64, z float64) {
	if e, err := a.Result.Estimate(); err == nil {
		a.Score, a.ScoreSE = e.Score, e.StdErr
		s := math.Min(0.98, math.Max(0.02, e.Score))
		a.Elo, a.EloSE = stats.Elo(s), record.EloSE(e.Score, e.StdErr)
	}
	n := float64(len(cand))
	if n < 2 {
		return
	}
	d := make([]float64, len(cand))
	var sc float64
	for k := range cand {
		d[k] = (cand[k] - champ[k]) / 2 // per-game units
		sc += champ[k] / 2
	}
	mean, sd := stat.MeanStdDev(d, nil)
	a.OpponentScore, a.Diff, a.DiffSE = sc/n, mean, sd/math.Sqrt(n)
	a.Admitted = a.Diff > 0 && a.Diff-z*a.DiffSE > 0
}

// FamilyZ is the z of simultaneous two-sided 95% intervals for m estimates (Bonferroni:
// the 1 − 0.025/m normal quantile), or min when that is larger. m = 1 gives 1.96.
func FamilyZ(m int, min float64) float64 {
	z := distuv.UnitNormal.Quantile(1 - 0.025/float64(max(m, 1)))
	return math.Max(z, min)
}

// Champion returns the hall-of-fame member with the best lower confidence bound at
// FamilyZ(len(hof), z) (ties: the later admission), or nil when no member's bound is above
// the baseline's (Elo 0 exactly).
func Champion(hof []record.HallOfFamer, z float64) *record.HallOfFamer {
	if best := BestMember(hof, z); best != nil && best.LCB(FamilyZ(len(hof), z)) > 0 {
		return best
	}
	return nil
}

// BestMember is the hall-of-fame member with the highest lower confidence bound at the
// whole hall's simultaneous z (FamilyZ(len(hof), z); of equal bounds the later admitted),
// whether or not that bound is above 0; nil when no member has games.
func BestMember(hof []record.HallOfFamer, z float64) *record.HallOfFamer {
	z = FamilyZ(len(hof), z)
	var best *record.HallOfFamer
	for i := range hof {
		if math.IsInf(hof[i].LCB(z), -1) {
			continue
		}
		if best == nil || hof[i].LCB(z) >= best.LCB(z) {
			best = &hof[i]
		}
	}
	return best
}

// HallPick is a champion taken from a hall of fame (HallChampion): its ID and genes, the
// member the summary names (nil: none; with CentreOf the member with the best lower
// bound) and the members whose centre it is (nil: it is one genome).
type HallPick struct {
	ID       string
	X        []float64
	Member   *record.HallOfFamer
	CentreOf []string
}

// HallChampion is the champion of hall of fame hof (in order of admission) under cfg's
// champion and admission rules, for a champion that is not ChampionPopulation: with
// AdmissionHeadToHead and one member, that member (its admission was its evidence
// against the paper's weights); with ChampionCentre and two or more members, their
// centre, named centreID, whatever the members' bounds; otherwise the member with the
// best lower confidence bound above 0 (Champion), or the baseline (baselineID, the
// layout's defaults) while none is.
func HallChampion(cfg config.Config, l *genomes.Layout, hof []record.HallOfFamer, centreID, baselineID string) HallPick {
	switch c := Champion(hof, cfg.AdmitZ); {
	case cfg.Admission == config.AdmissionHeadToHead && len(hof) == 1:
		return HallPick{ID: hof[0].ID, X: append([]float64(nil), hof[0].Genes...)}
	case cfg.Champion == config.ChampionCentre && len(hof) >= 2:
		p := HallPick{ID: centreID, X: population.Centre(l, hof)}
		if b := BestMember(hof, cfg.AdmitZ); b != nil {
			bb := *b
			p.Member = &bb
		}
		for _, h := range hof {
			p.CentreOf = append(p.CentreOf, h.ID)
		}
		return p
	case c != nil:
		cc := *c
		return HallPick{ID: c.ID, X: append([]float64(nil), c.Genes...), Member: &cc}
	default:
		return HallPick{ID: baselineID, X: l.Defaults()}
	}
}
