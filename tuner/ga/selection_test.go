package ga

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/record"
	"evotune/tuner/report"
	"evotune/tuner/search"
)

// summaryGA is the generational GA of a small gomoku run (run ID 1), as the tuner resolves
// a new run's configuration.
func summaryGA(t *testing.T) *Generational {
	t.Helper()
	c := config.DefaultConfig("gomoku")
	c.Method = config.MethodGA
	c.Population, c.Generations, c.Games, c.Workers, c.Depth, c.Width, c.VerifyGames = 6, 2, 4, 1, 1, 4, 0
	c.Resolve()
	plan, err := c.Plan()
	if err != nil {
		t.Fatal(err)
	}
	return NewGenerational(&search.MethodEnv{Layout: plan.Layout, Config: plan.Config, RunID: 1}, Options{})
}

// summaryOf is the run's summary with champion c, as the run loop shows it.
func summaryOf(m *Generational, c search.Leader) report.Summary {
	s := report.Summary{Method: m.cfg.Method, ChampionRule: m.cfg.Champion, Summarise: Summarise, Best: c.ID, BestGenes: c.Genes}
	s.HallOfFame, s.Champion, s.CentreOf = c.Hall.HallOfFame, c.Hall.Champion, c.Hall.CentreOf
	s.BaselineChampion = fmt.Sprint(c.Genes) == fmt.Sprint(m.a.Layout.Defaults())
	return s
}

// TestCentreChampion: with Champion "centre" and two or more members, the champion is the
// hall of fame's weighted centre (the latest member weighted most; log genes in log space,
// linear genes arithmetic, fixed genes at their defaults), named by the slot after the
// population's in the generation that admitted the latest member, and born there, also
// while no member's bound is above the baseline; with "best", or one member, it is the
// member with the best bound, or the baseline while no bound is above it.
func TestCentreChampion(t *testing.T) {
	m := summaryGA(t)
	cfg := m.cfg
	l := m.a.Layout
	a, b := l.Defaults(), l.Defaults()
	for i, g := range l.Genes {
		if g.Fixed {
			continue
		}
		a[i], b[i] = math.Min(g.Max, g.Default*1.5+0.1), math.Max(g.Min, g.Default/1.5)
	}
	l.Clamp(a)
	l.Clamp(b)
	strong := genomes.Stats{Wins: 60, Draws: 10, Losses: 10, Penta: [5]int{0, 2, 6, 12, 20}}
	m.hall.hof = []record.HallOfFamer{{ID: "1-g2-03", Generation: 2, Genes: a, Stats: strong}, {ID: "1-g5-01", Generation: 5, Genes: b}}
	pop := []*genomes.Genome{{Layout: l, X: l.Defaults(), ID: "1-g7-00"}}
	s := summaryOf(m, m.leader(7, pop))
	if s.Best != genomes.IndividualID(1, 5, cfg.Population) || len(s.CentreOf) != 2 || s.CentreOf[0] != "1-g2-03" || s.CentreOf[1] != "1-g5-01" {
		t.Fatalf("champion %s of %v, want the centre 1-g5-%02d of both members (born with the latest)", s.Best, s.CentreOf, cfg.Population)
	}
	// Two members: weights ln 2.5 − ln 2 for the first, ln 2.5 for the latest, normalised.
	wa := (math.Log(2.5) - math.Log(2)) / (2*math.Log(2.5) - math.Log(2))
	wb := 1 - wa
	for i, g := range l.Genes {
		want := wa*a[i] + wb*b[i]
		switch {
		case g.Fixed:
			want = g.Default
		case g.Scale == genomes.Log && g.Min > 0:
			want = math.Pow(a[i], wa) * math.Pow(b[i], wb)
		}
		if math.Abs(s.BestGenes[i]-want) > 1e-9*math.Max(1, want) {
			t.Errorf("gene %s: centre %g, want %g (members %g, %g)", g.Name, s.BestGenes[i], want, a[i], b[i])
		}
	}
	// The centre's genome is born with the generation that admitted the latest member.
	if g := m.centreBorn(7); g != nil {
		t.Errorf("generation 7 admitted no member, yet a centre was born: %+v", g)
	}
	g := m.centreBorn(5)
	if g == nil || g.ID != s.Best || g.Operator != config.OpCentre || g.Born != 5 || len(g.Parents) != 2 || g.Parents[0] != "1-g2-03" || g.Parents[1] != "1-g5-01" {
		t.Errorf("generation 5's centre genome: %+v, want %s (centre) from the best and the latest member", g, s.Best)
	}
	// The best member instead: by the setting, with one member, or with none above 0.
	m.cfg.Champion = config.ChampionBest
	if s := summaryOf(m, m.leader(7, pop)); s.Best != "1-g2-03" || s.CentreOf != nil {
		t.Errorf("champion best: %s (centre of %v), want the member 1-g2-03", s.Best, s.CentreOf)
	}
	m.cfg.Champion = config.ChampionCentre
	m.hall.hof = m.hall.hof[:1]
	if s := summaryOf(m, m.leader(7, pop)); s.Best != "1-g2-03" || s.CentreOf != nil {
		t.Errorf("one member: champion %s (centre of %v), want the member", s.Best, s.CentreOf)
	}
	// No member with a bound above 0 (no games since admission): the centre all the same;
	// the best-bound pick would be the baseline.
	m.hall.hof = []record.HallOfFamer{{ID: "1-g2-03", Generation: 2, Genes: a}, {ID: "1-g5-01", Generation: 5, Genes: b}}
	if s := summaryOf(m, m.leader(7, pop)); s.Best != genomes.IndividualID(1, 5, cfg.Population) || len(s.CentreOf) != 2 || s.Champion != nil || s.BaselineChampion {
		t.Errorf("no member above the baseline: champion %s (centre of %v, best member %v), want the centre", s.Best, s.CentreOf, s.Champion)
	}
	if txt := Summarise(summaryOf(m, m.leader(7, pop))); !strings.Contains(txt, "the centre of the hall of fame's 2 members") || strings.Contains(txt, "claims") {
		t.Errorf("summary of a centre without a measured member: %q", txt)
	}
	m.cfg.Champion = config.ChampionBest
	if s := summaryOf(m, m.leader(7, pop)); s.Best != genomes.IndividualID(1, 0, 0) || s.CentreOf != nil || !s.BaselineChampion {
		t.Errorf("champion best, no member above the baseline: champion %s (centre of %v), want the baseline", s.Best, s.CentreOf)
	}
}
