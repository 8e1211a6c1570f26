package ga

import (
	"fmt"
	"math"
	"slices"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/population"
	"evotune/tuner/record"
	"evotune/tuner/search"
)

// hallOfFame is selection's record (selection.go), the one both GAs keep: the members in
// order of admission, every individual tested for admission, how many tests were judged
// and the judged test whose paired difference had the highest lower bound.
type hallOfFame struct {
	hof     []record.HallOfFamer
	tested  map[string]bool
	tests   int
	closest *record.Admission
}

// restore takes up the hall of fame of stored run st; the error names a member whose genes
// do not fit layout l.
func (h *hallOfFame) restore(l *genomes.Layout, st record.ResumeState) error {
	for _, m := range st.HallOfFame {
		x, err := l.FromNamed(m.Genes)
		if err != nil {
			return fmt.Errorf("resume: hall of fame %s: %w", m.ID, err)
		}
		h.hof = append(h.hof, record.HallOfFamer{ID: m.ID, Generation: m.Generation, Genes: x, Stats: m.Stats})
	}
	for _, id := range st.Tested {
		h.tested[id] = true
	}
	h.tests, h.closest = len(st.Tested), st.Closest
	return nil
}

// view is the hall of fame as the run's summary shows it, its champion not yet set.
func (h *hallOfFame) view() *search.HallView {
	return &search.HallView{HallOfFame: slices.Clone(h.hof), Tests: h.tests, Closest: h.closest}
}

// admissionTest is an admission test of a race winner for the hall of fame (selection.go),
// as both GAs play it: the candidate and, unless head to head, the reigning member against
// the paper's weights on the same n opening pairs (head to head: the candidate against the
// member), then, where the member defends, its own games against the paper's weights on n
// pairs of their own. It is told its rounds (tell) and judged once the last is (judge).
type admissionTest struct {
	a          *record.Admission
	winner     []float64 // the candidate's genes
	reigning   int       // the member it is tested against, an index of the hall of fame (−1: none, the paper's weights)
	headToHead bool      // the candidate plays the member itself
	defends    bool      // the member plays games of its own (its Elo record)
	n          int       // opening pairs a matchup
	rounds     int       // the rounds asked for it
	told       int
	cand, def  []float64 // pair scores (0 to 2) on the test's openings
	candStats  genomes.Stats
	own        genomes.Stats
}

// plan decides the admission test of winner, the race winner of generation gen, against
// member reigning of the hall of fame (−1: none), marking the winner tested; nil where none
// is played: no hall of fame (AdmitGames 0), a winner that is the paper's weights, tested
// before or with the member's own genes.
func (h *hallOfFame) plan(c config.Config, gen int, winner *genomes.Genome, reigning int) *admissionTest {
	if c.AdmitGames == 0 || winner.Op == genomes.OpBaseline || h.tested[winner.ID] {
		return nil
	}
	if reigning >= 0 && slices.Equal(h.hof[reigning].Genes, winner.X) {
		return nil
	}
	h.tested[winner.ID] = true
	t := &admissionTest{reigning: reigning, winner: slices.Clone(winner.X), n: c.AdmitGames / 2,
		a: &record.Admission{Candidate: winner.ID, Opponent: "baseline", Generation: gen}}
	t.headToHead = reigning >= 0 && c.Admission == config.AdmissionHeadToHead
	t.defends = reigning >= 0 && (!t.headToHead || c.Champion == config.ChampionBest || c.Champion == "")
	if reigning >= 0 {
		t.a.Opponent = h.hof[reigning].ID
	}
	return t
}

// testRounds is test t's rounds in the order to ask them, each made by round (its stream
// and game round, StreamAdmit with AdmissionRound, then StreamDefence with DefenceRound;
// round sets the draw, the pairs and the label) with its players and opponents (base: the
// paper's weights).
func (h *hallOfFame) testRounds(t *admissionTest, l *genomes.Layout, base *genomes.Genome, round func(stream uint64, gameRound int) *search.Round) []*search.Round {
	test := round(search.StreamAdmit, record.AdmissionRound)
	test.Players, test.Opponents = []*genomes.Genome{{Layout: l, X: t.winner, ID: t.a.Candidate}}, []*genomes.Genome{base}
	rounds := []*search.Round{test}
	if t.reigning >= 0 {
		m := h.hof[t.reigning]
		def := &genomes.Genome{Layout: l, X: m.Genes, ID: m.ID}
		if t.headToHead {
			test.Opponents = []*genomes.Genome{def}
		} else { // a player of its own: each round credits its players' games
			test.Players = append(test.Players, &genomes.Genome{Layout: l, X: m.Genes, ID: m.ID})
		}
		if t.defends {
			own := round(search.StreamDefence, record.DefenceRound)
			own.Players, own.Opponents = []*genomes.Genome{def}, []*genomes.Genome{base}
			rounds = append(rounds, own)
		}
	}
	t.rounds = len(rounds)
	return rounds
}

// tell takes told round r of test t; it reports whether it was the test's last.
func (t *admissionTest) tell(r *search.Round) bool {
	t.told++
	if r.GameRound == record.DefenceRound {
		t.own = r.Players[0].Stats
	} else {
		t.candStats, t.cand = r.Players[0].Stats, r.PairScores[0]
		if len(r.PairScores) > 1 {
			t.def = r.PairScores[1]
		}
	}
	return t.told == t.rounds
}

// judge judges test t, told: the member's own games go to its record, the candidate is
// admitted when it passed (Judge, with z), and then joins the hall of fame, unless
// voidStale and the member it beat no longer reigns (a test judged after another admitted a member:
// admitted, it would reign over a member it never played, and the hall's order of
// admission, whose centre weighs the later more, would no longer be one of strength).
func (h *hallOfFame) judge(t *admissionTest, z float64, voidStale bool) {
	a := t.a
	a.Result = record.ResultOf(t.candStats)
	hpairs := make([]float64, t.n)
	for k := range hpairs {
		hpairs[k] = 1 // the opponent against itself: exactly ½ per game
	}
	if t.reigning >= 0 && !t.headToHead {
		hpairs = t.def
	}
	if t.defends {
		m := &h.hof[t.reigning]
		m.Stats = m.Stats.Add(t.own)
	}
	Judge(a, t.cand, hpairs, z)
	if a.Admitted && voidStale && t.reigning != len(h.hof)-1 {
		a.Admitted = false
	}
	h.tests++
	if h.closest == nil || a.LowerBound(z) > h.closest.LowerBound(z) {
		h.closest = a
	}
	if a.Admitted {
		h.hof = append(h.hof, record.HallOfFamer{ID: a.Candidate, Generation: a.Generation, Genes: t.winner})
	}
}

// leader is the champion the hall of fame makes (HallChampion: its centre, named by
// centreID once it has a member, its member with the best lower bound, or the paper's
// weights, named baselineID), with the hall as the summary shows it, and the champion's
// score among ranked (NaN where it is none of them).
func (h *hallOfFame) leader(c config.Config, l *genomes.Layout, centreID func() string, baselineID string, ranked []*genomes.Genome) search.Leader {
	id := ""
	if len(h.hof) > 0 {
		id = centreID()
	}
	p := HallChampion(c, l, h.hof, id, baselineID)
	view := h.view()
	view.Champion, view.CentreOf = p.Member, p.CentreOf
	return search.Leader{ID: p.ID, Genes: p.X, Score: scoreOf(p.ID, ranked), Hall: view}
}

// scoreOf is the score of individual id among ranked, NaN where it is none of them.
func scoreOf(id string, ranked []*genomes.Genome) float64 {
	for _, g := range ranked {
		if g.ID == id {
			return g.Stats.Score()
		}
	}
	return math.NaN()
}

// centreRecord is the hall of fame's centre (population.Centre; two members or more) as a
// genome born in generation born and named id: its parents the member with the best lower
// bound (Champion, with z), else the first, and the latest.
func (h *hallOfFame) centreRecord(l *genomes.Layout, z float64, id string, born int) record.GenomeRecord {
	first, last := h.hof[0].ID, h.hof[len(h.hof)-1].ID
	if b := Champion(h.hof, z); b != nil && b.ID != last {
		first = b.ID
	}
	return record.GenomeRecord{ID: id, Born: born, Operator: config.OpCentre, Parents: []string{first, last}, Genes: l.Named(population.Centre(l, h.hof))}
}
