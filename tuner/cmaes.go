package tuner

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/c-bata/goptuna/cmaes"
	"gonum.org/v1/gonum/mat"

	"evotune/genomes"
)

// CMA-ES (Config.Method "cmaes"): the covariance matrix adaptation evolution strategy of
// Hansen (The CMA Evolution Strategy: A Tutorial, arXiv:1604.00772, 2016), ask-and-tell
// from goptuna's cmaes package (default λ = 4 + ⌊3 ln n⌋, μ = λ/2, log-rank weights,
// c_m = 1). It works in SPSA's coordinates (spsa.go: ln x for log genes, x over a fifth
// of the range for linear ones) over the free genes, bounded by the genes' ranges.
//
// Generation k samples λ candidates x_i ~ m_k + σ_k·N(0, C_k); every candidate plays
// Pairs colour-swapped game pairs against the mean m_k, all on the same fresh tuning
// openings (common random numbers: the candidates' scores share the openings' noise),
// and is told 1 − its score. The mean moves to the weighted recombination of the best μ
// (m_{k+1} = Σ w_i·x_{i:λ}), which is the run's champion: like SPSA's θ, a point every
// game moved a little, not the luckiest candidate.
//
// What each generation stores: slot 00 is m_{k+1} (operator "cmaes-mean", parent m_k,
// rank 1, no games of its own), slots 01..λ the candidates (operator "cmaes", parent m_k,
// ranked by score), and its method state (cmaesState) the values told, from which a
// resumed run replays the optimiser: the same seed asks the same candidates, and the
// same values move it the same way. m_0 is the paper's weights, genome R-g0-(λ+1).

// Operators of CMA-ES individuals, recorded in their lineage.
const (
	OpCMAESMean = "cmaes-mean" // the mean after a generation
	OpCMAES     = "cmaes"      // a candidate sampled around the mean
)

// CMAESConfig holds CMA-ES's parameters. Zero fields take DefaultCMAES's.
type CMAESConfig struct {
	// Pairs is the number of colour-swapped game pairs each candidate plays against the
	// mean per generation.
	Pairs int `json:"pairs" yaml:"pairs"`
	// Sigma is the initial step size σ_0, in the genes' SPSA units (ln units for log genes).
	Sigma float64 `json:"sigma" yaml:"sigma"`
	// Lambda is the number of candidates per generation (0: 4 + ⌊3 ln n⌋ for n free genes).
	Lambda int `json:"lambda" yaml:"lambda"`
}

// DefaultCMAES: 8 game pairs per candidate, σ_0 = 0.1 ln units (a log gene's value moves by
// about a tenth), λ from the number of genes. On gomoku at 44 000 games (seed 1, 8 000
// held-out games each) σ_0 0.3 with 4 pairs measured −36.0 Elo, 0.05 with 4 pairs −19.4,
// 0.1 with 16 pairs +10.4, 0.2 with 16 pairs −28.3, and 0.1 with 8 pairs +26.3.
var DefaultCMAES = CMAESConfig{Pairs: 8, Sigma: 0.1}

// CMAESParams returns the run's CMA-ES parameters with DefaultCMAES's in place of zeros.
func (c Config) CMAESParams() CMAESConfig { return overDefaults(DefaultCMAES, c.CMAES) }

func (p CMAESConfig) validate() error {
	switch {
	case p.Pairs < 1 || p.Pairs > 10000:
		return settingErr("cmaes.pairs", "", "%d, want 1 to 10000", p.Pairs)
	case !(p.Sigma > 0 && p.Sigma <= 10):
		return settingErr("cmaes.sigma", "", "%g, want (0, 10] (ln units for log genes)", p.Sigma)
	case p.Lambda != 0 && (p.Lambda < 4 || p.Lambda > 98):
		return settingErr("cmaes.lambda", "", "%d, want 0 (from the number of genes) or 4 to 98", p.Lambda)
	}
	return nil
}

// cmaesState is a generation's method state as stored with it: the values told to the
// optimiser (1 − score), in the order the candidates were asked (slots 01..λ), and the
// mean after the generation in SPSA coordinates of the free genes, for readers.
type cmaesState struct {
	Values []float64 `json:"values"`
	Mean   []float64 `json:"mean"`
}

// cmaesMethod is CMA-ES as a searchMethod.
type cmaesMethod struct {
	t    *Tuner
	opt  *cmaes.Optimizer
	free []int     // the layout's indices of the free genes: the optimiser's coordinates
	mean []float64 // the optimiser's mean: its own storage (gonum's VecDense keeps the slice it is given)
	base []float64 // θ of the paper's weights (fixed genes stay there)
}

func newCMAES(t *Tuner) (searchMethod, error) {
	m := &cmaesMethod{t: t, base: t.toTheta(t.plan.Layout.Defaults())}
	for i, g := range t.plan.Layout.Genes {
		if !g.Fixed {
			m.free = append(m.free, i)
		}
	}
	if len(m.free) == 0 {
		return nil, fmt.Errorf("method cmaes: the layout has no free gene to tune")
	}
	p := t.cfg.CMAESParams()
	bounds := mat.NewDense(len(m.free), 2, nil)
	m.mean = make([]float64, len(m.free))
	for j, i := range m.free {
		g := t.plan.Layout.Genes[i]
		lo, hi := g.Min/spsaUnit(g), g.Max/spsaUnit(g)
		if g.Scale == genomes.Log && g.Min > 0 {
			lo, hi = math.Log(g.Min), math.Log(g.Max)
		}
		bounds.Set(j, 0, lo)
		bounds.Set(j, 1, hi)
		m.mean[j] = m.base[i]
	}
	opts := []cmaes.OptimizerOption{cmaes.OptimizerOptionSeed(int64(mix(uint64(t.cfg.Seed)) >> 1)), cmaes.OptimizerOptionBounds(bounds)}
	if p.Lambda > 0 {
		opts = append(opts, cmaes.OptimizerOptionPopulationSize(p.Lambda))
	}
	var err error
	if m.opt, err = cmaes.NewOptimizer(m.mean, p.Sigma, opts...); err != nil {
		return nil, fmt.Errorf("method cmaes: %w", err)
	}
	return m, nil
}

// theta is the full SPSA-coordinate vector of free-gene coordinates y (fixed genes at the
// paper's weights).
func (m *cmaesMethod) theta(y []float64) []float64 {
	u := append([]float64(nil), m.base...)
	for j, i := range m.free {
		u[i] = y[j]
	}
	return u
}

// meanID is the ID of m_k: the paper's weights R-g0-(λ+1) for k = 0, else slot 00 of
// generation k−1.
func (m *cmaesMethod) meanID(k int) string {
	if k == 0 {
		return genomes.IndividualID(m.t.saving.runID, 0, m.opt.PopulationSize()+1)
	}
	return genomes.IndividualID(m.t.saving.runID, k-1, 0)
}

// ask samples the generation's λ candidates in free-gene coordinates.
func (m *cmaesMethod) ask() ([][]float64, error) {
	ys := make([][]float64, m.opt.PopulationSize())
	for i := range ys {
		y, err := m.opt.Ask()
		if err != nil {
			return nil, fmt.Errorf("cmaes: %w", err)
		}
		ys[i] = y
	}
	return ys, nil
}

// tell gives the optimiser the candidates' values (in ask order).
func (m *cmaesMethod) tell(ys [][]float64, values []float64) error {
	sols := make([]*cmaes.Solution, len(ys))
	for i := range ys {
		sols[i] = &cmaes.Solution{Params: ys[i], Value: values[i]}
	}
	if err := m.opt.Tell(sols); err != nil {
		return fmt.Errorf("cmaes: %w", err)
	}
	return nil
}

// restore replays the optimiser through every saved generation's values.
func (m *cmaesMethod) restore(st ResumeState) error {
	t := m.t
	if len(st.MethodStates) != st.LastGeneration+1 {
		return fmt.Errorf("resume: %d CMA-ES generation states for %d saved generations", len(st.MethodStates), st.LastGeneration+1)
	}
	for k, raw := range st.MethodStates {
		var s cmaesState
		if err := decodeState(raw, &s); err != nil {
			return fmt.Errorf("resume: CMA-ES generation %d: %w", k, err)
		}
		ys, err := m.ask()
		if err != nil {
			return err
		}
		if len(s.Values) != len(ys) {
			return fmt.Errorf("resume: CMA-ES generation %d has %d values, λ is %d", k, len(s.Values), len(ys))
		}
		if err := m.tell(ys, s.Values); err != nil {
			return err
		}
	}
	t.rep.summary.Best, t.rep.summary.BestGenes, t.rep.summary.BestScore = genomes.IndividualID(st.RunID, st.LastGeneration, 0), t.fromTheta(m.theta(m.mean)), 0.5
	return nil
}

// describe: λ, the pairs per candidate and σ_0.
func (m *cmaesMethod) describe(length string) (string, []string) {
	p := m.t.cfg.CMAESParams()
	return fmt.Sprintf(" by CMA-ES: %s; each generation %d candidates × %d game pairs against the mean, σ_0 %g", length, m.opt.PopulationSize(), p.Pairs, p.Sigma), nil
}

// cmaesSaved: the best candidate's score against the mean, the candidates' mean, the new
// mean and the games so far.
func cmaesSaved(e Event) string {
	return fmt.Sprintf("best candidate %s scored %.3f against the mean, candidates' mean %.3f, champion %s (the mean), %s", e.Best, e.BestScore, e.MeanScore, e.Champion, e.GamesText())
}

// search plays generations from `from` until the budget, the generations or ctx end.
func (m *cmaesMethod) search(ctx context.Context, from int) error {
	t := m.t
	t.rep.summary.BudgetGames = t.cfg.BudgetGames
	for k := from; ; k++ {
		if t.cfg.Generations > 0 && k > t.cfg.Generations || t.overBudget() {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		t.g.gen = k
		if err := m.generation(k); err != nil {
			return err
		}
	}
}

// generation plays generation k: λ candidates against the mean, then the update, saved
// behind the next generation's games.
func (m *cmaesMethod) generation(k int) error {
	t := m.t
	p := t.cfg.CMAESParams()
	t.g.genStart = time.Now()
	t.g.openings, t.g.gameResults, t.g.gamesTime, t.g.slotTime, t.g.distinctGames = nil, nil, 0, 0, 0
	parent := m.meanID(k)
	mx := t.fromTheta(m.theta(m.mean))
	ys, err := m.ask()
	if err != nil {
		return err
	}
	cands := make([]*genomes.Genome, len(ys))
	for i, y := range ys {
		cands[i] = &genomes.Genome{Layout: t.plan.Layout, X: t.fromTheta(m.theta(y)), ID: genomes.IndividualID(t.saving.runID, k, i+1),
			Op: OpCMAES, Parents: []string{parent}, Born: k}
	}
	first, err := t.drawOpenings(p.Pairs, streamOpenings)
	if err != nil {
		return err
	}
	w, ext, err := t.side(mx)
	if err != nil {
		return fmt.Errorf("generation %d: the mean: %w", k, err)
	}
	t.g.current, t.g.refs, t.g.opponents = cands, []opponent{{id: parent, w: w, x: mx, ext: ext}}, []string{parent}
	inds := make([]int, len(cands))
	for i := range inds {
		inds[i] = i
	}
	var b batch
	if err := t.schedule(&b, inds, first, p.Pairs, 0); err != nil {
		return err
	}
	if _, err := t.play(&b, fmt.Sprintf("generation %d", k)); err != nil {
		return err
	}
	values := make([]float64, len(cands))
	for i, g := range cands {
		values[i] = 1 - g.Stats.Score()
	}
	if err := m.tell(ys, values); err != nil {
		return err
	}
	state, err := encodeState(cmaesState{Values: values, Mean: append([]float64(nil), m.mean...)})
	if err != nil {
		return err
	}
	next := &genomes.Genome{Layout: t.plan.Layout, X: t.fromTheta(m.theta(m.mean)), ID: genomes.IndividualID(t.saving.runID, k, 0), Op: OpCMAESMean, Parents: []string{parent}, Born: k}
	t.rep.summary.Best, t.rep.summary.BestGenes, t.rep.summary.BestScore = next.ID, append([]float64(nil), next.X...), 0.5
	var check *Verification
	if t.cfg.VerifyEvery > 0 && k%t.cfg.VerifyEvery == 0 {
		if check, err = t.checkpoint(); err != nil {
			return err
		}
	}
	rec := GenerationRecord{RunID: t.saving.runID, Generation: k, Games: t.g.distinctGames, GamesTime: t.g.gamesTime, SlotTime: t.g.slotTime, Slots: t.gameSlots(),
		Opponents: []string{parent}, Openings: t.g.openings, GameResults: t.g.gameResults, Best: next.ID, Champion: next.ID, Checkpoint: check, MethodState: state}
	if k == 0 {
		rec.NewGenomes = append(rec.NewGenomes, GenomeRecord{ID: parent, Born: 0, Operator: genomes.OpBaseline, Genes: t.plan.Layout.Named(t.plan.Layout.Defaults())})
	}
	rec.NewGenomes = append(rec.NewGenomes, GenomeRecord{ID: next.ID, Born: k, Operator: next.Op, Parents: next.Parents, Genes: t.plan.Layout.Named(next.X)})
	rec.Individuals = append(rec.Individuals, IndividualRecord{ID: next.ID, Rank: 1, Fitness: 0.5})
	for _, g := range cands {
		rec.NewGenomes = append(rec.NewGenomes, GenomeRecord{ID: g.ID, Born: k, Operator: g.Op, Parents: g.Parents, Genes: t.plan.Layout.Named(g.X)})
	}
	ranked := append([]*genomes.Genome(nil), cands...)
	sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].Stats.Score() > ranked[b].Stats.Score() })
	var sum, sq float64
	rec.FitMin, rec.FitMax = math.Inf(1), math.Inf(-1)
	for i, g := range ranked {
		f := 1 - g.Stats.Score()
		rec.Individuals = append(rec.Individuals, IndividualRecord{ID: g.ID, Rank: i + 2, Fitness: f, Stats: g.Stats})
		rec.FitMin, rec.FitMax = math.Min(rec.FitMin, f), math.Max(rec.FitMax, f)
		sum += f
		sq += f * f
	}
	n := float64(len(ranked))
	rec.FitMean = sum / n
	rec.FitStd = math.Sqrt(math.Max(0, sq/n-rec.FitMean*rec.FitMean))
	var dsum float64
	for _, g := range cands {
		dsum += t.plan.Layout.Distance(g.X, mx)
	}
	rec.Diversity = dsum / n
	rec.Duration, rec.Elapsed = time.Since(t.g.genStart), t.elapsed()
	t.rep.summary.Generations = k + 1
	t.rep.summary.Games += t.g.distinctGames
	t.countGeneration(rec)
	t.rep.summary.GamesTime += t.g.gamesTime
	ev := t.event(Event{GenDone: true, GamesDone: t.g.distinctGames, GamesTotal: t.g.distinctGames, BestScore: ranked[0].Stats.Score(), MeanScore: 1 - rec.FitMean,
		Best: ranked[0].ID, Champion: next.ID})
	return t.saveBehind(rec, ev)
}
