// Package cmaes is CMA-ES (config.Config.Method "cmaes"), a search method on the tuner's
// run loop (search.Method): the covariance matrix adaptation evolution strategy of Hansen
// (The CMA Evolution Strategy: A Tutorial, arXiv:1604.00772, 2016), ask-and-tell from
// goptuna's cmaes package (λ = 4 + ⌊3 ln n⌋ unless set, μ = λ/2, log-rank weights,
// c_m = 1; a new run with a large game budget sets λ from it: CMAESLambdaFor). It works in
// the search coordinates (search.Theta: ln x for log genes, x over a fifth of the range for
// linear ones) over the free genes, bounded by the genes' ranges.
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
// ranked by score), and its method state (State) the values told, from which a
// resumed run replays the optimiser: the same seed asks the same candidates, and the
// same values move it the same way. m_0 is the paper's weights, genome R-g0-(λ+1).
package cmaes

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/c-bata/goptuna/cmaes"
	"gonum.org/v1/gonum/mat"

	"evotune/genomes"
	"evotune/tuner/record"
	"evotune/tuner/search"
)

// Operators of CMA-ES individuals, recorded in their lineage.
const (
	OpMean      = "cmaes-mean" // the mean after a generation
	OpCandidate = "cmaes"      // a candidate sampled around the mean
)

// State is a generation's method state as stored with it (generations.method_state,
// JSON): the values told to the optimiser (1 − score), in the order the candidates were
// asked (slots 01..λ), and the mean after the generation in the search coordinates of the
// free genes (search.Theta), for readers.
type State struct {
	Values []float64 `json:"values"`
	Mean   []float64 `json:"mean"`
}

// cmaesMethod is CMA-ES on the run loop: round k is generation k, Lag+1 rounds in play
// (config.CMAESConfig.Lag). The optimiser samples generation k once generation k−Lag−1 is told,
// and is told the generations in order; the seed fixes every sample, so a seeded run is the
// same whatever the workers.
type cmaesMethod struct {
	a    *search.MethodEnv
	opt  *cmaes.Optimizer
	free []int     // the layout's indices of the free genes: the optimiser's coordinates
	mean []float64 // the optimiser's mean: its own storage (gonum's VecDense keeps the slice it is given)
	base []float64 // θ of the paper's weights (fixed genes stay there)
	next int       // the next generation asked
	// sampled are the generations sampled and not yet told, oldest first (a resumed run
	// samples those in play again, as the interrupted run had, before asking them).
	sampled  []*cmaesGeneration
	toSample int // the next generation to sample
	// told are the values of every generation told, in order.
	told [][]float64
	// guessed are the generations Guess returned for generation guessedGen, by GuessKey.
	guessed    map[string]*search.Round
	guessedGen int
}

// cmaesGuessesEach bounds the next generations Guess makes (and keeps) for one generation
// in play, distinct orders of its values: the run loop asks for a few at each game that
// ends in the generation's last games (measured: gomoku's λ 44 about 4 to 7 a
// generation, connect6's λ 10 about 8), and each is a fork of the optimiser.
const cmaesGuessesEach = 64

// cmaesGeneration is a generation as sampled: its candidates in free-gene coordinates, the
// optimiser's mean then (m0, the same coordinates), the mean they play (genes) and that
// mean's genome ID.
type cmaesGeneration struct {
	k      int
	ys     [][]float64
	m0     []float64
	mx     []float64
	parent string
}

// New is CMA-ES on the run a describes (its layout and configuration: CMAESParams), the
// method the tuner registers as "cmaes".
func New(a *search.MethodEnv) (search.Method, error) {
	l := a.Layout
	m := &cmaesMethod{a: a, base: search.Theta(l, l.Defaults())}
	for i, g := range l.Genes {
		if !g.Fixed {
			m.free = append(m.free, i)
		}
	}
	if len(m.free) == 0 {
		return nil, fmt.Errorf("method cmaes: the layout has no free gene to tune")
	}
	p := a.Config.CMAESParams()
	bounds := mat.NewDense(len(m.free), 2, nil)
	m.mean = make([]float64, len(m.free))
	for j, i := range m.free {
		g := l.Genes[i]
		lo, hi := g.Min/search.Unit(g), g.Max/search.Unit(g)
		if g.Scale == genomes.Log && g.Min > 0 {
			lo, hi = math.Log(g.Min), math.Log(g.Max)
		}
		bounds.Set(j, 0, lo)
		bounds.Set(j, 1, hi)
		m.mean[j] = m.base[i]
	}
	opts := []cmaes.OptimizerOption{cmaes.OptimizerOptionSeed(int64(search.Mix(uint64(a.Config.Seed)) >> 1)), cmaes.OptimizerOptionBounds(bounds)}
	if p.Lambda > 0 {
		opts = append(opts, cmaes.OptimizerOptionPopulationSize(p.Lambda))
	}
	var err error
	if m.opt, err = cmaes.NewOptimizer(m.mean, p.Sigma, opts...); err != nil {
		return nil, fmt.Errorf("method cmaes: %w", err)
	}
	return m, nil
}

// Window: Lag+1 generations in play; generation k+Lag+1's candidates are sampled around
// the mean generation k moved.
func (m *cmaesMethod) Window() int { return m.a.Config.CMAESParams().Lag + 1 }

// theta is the full SPSA-coordinate vector of free-gene coordinates y (fixed genes at the
// paper's weights).
func (m *cmaesMethod) theta(y []float64) []float64 {
	u := append([]float64(nil), m.base...)
	for j, i := range m.free {
		u[i] = y[j]
	}
	return u
}

// genes is the gene vector of free-gene coordinates y.
func (m *cmaesMethod) genes(y []float64) []float64 {
	return search.GenesOfTheta(m.a.Layout, m.theta(y))
}

// meanID is the ID of the mean after generation k−1: the paper's weights R-g0-(λ+1) for
// k = 0, else slot 00 of generation k−1.
func (m *cmaesMethod) meanID(k int) string {
	if k == 0 {
		return m.a.IndividualID(0, m.opt.PopulationSize()+1)
	}
	return m.a.IndividualID(k-1, 0)
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

// sample samples generation k: its candidates around the optimiser's mean now
// (the mean after generation k−Lag−1), appended to sampled.
func (m *cmaesMethod) sample(k int) error {
	ys, err := m.ask()
	if err != nil {
		return err
	}
	lag := m.a.Config.CMAESParams().Lag
	m.sampled = append(m.sampled, &cmaesGeneration{k: k, ys: ys, m0: append([]float64(nil), m.mean...), mx: m.genes(m.mean),
		parent: m.meanID(max(0, k-lag))})
	return nil
}

// sampledUpTo samples generations until generation k is sampled.
func (m *cmaesMethod) sampledUpTo(k int) error {
	for ; m.toSample <= k; m.toSample++ {
		if err := m.sample(m.toSample); err != nil {
			return err
		}
	}
	return nil
}

// tell gives the optimiser generation g's values (in ask order). The optimiser reads each
// candidate as a step from its mean now; a generation sampled around an earlier mean (a
// lag) is told as the same steps from the mean now, its candidates moved by as much as
// the mean moved since (so the generations between keep their moves: the update is the
// steps' weighted recombination, as SPSA applies a lagged step's gradient to θ now; without
// the shift the mean would jump back among the old samples).
func (m *cmaesMethod) tell(g *cmaesGeneration, values []float64) error {
	sols := make([]*cmaes.Solution, len(g.ys))
	for i, y := range g.ys {
		x := make([]float64, len(y))
		for j := range y {
			x[j] = y[j] + (m.mean[j] - g.m0[j])
		}
		sols[i] = &cmaes.Solution{Params: x, Value: values[i]}
	}
	if err := m.opt.Tell(sols); err != nil {
		return fmt.Errorf("cmaes: %w", err)
	}
	return nil
}

// Restore replays the optimiser through every saved generation's values, sampling each
// generation when the uninterrupted run did (Lag generations ahead of the one told).
func (m *cmaesMethod) Restore(st record.ResumeState) (search.Leader, error) {
	if len(st.MethodStates) != st.LastGeneration+1 {
		return search.Leader{}, fmt.Errorf("resume: %d CMA-ES generation states for %d saved generations", len(st.MethodStates), st.LastGeneration+1)
	}
	lag := m.a.Config.CMAESParams().Lag
	for k, raw := range st.MethodStates {
		var s State
		if err := search.DecodeState(raw, &s); err != nil {
			return search.Leader{}, fmt.Errorf("resume: CMA-ES generation %d: %w", k, err)
		}
		if err := m.sampledUpTo(k + lag); err != nil {
			return search.Leader{}, err
		}
		g := m.sampled[0]
		if len(s.Values) != len(g.ys) {
			return search.Leader{}, fmt.Errorf("resume: CMA-ES generation %d has %d values, λ is %d", k, len(s.Values), len(g.ys))
		}
		if err := m.tell(g, s.Values); err != nil {
			return search.Leader{}, err
		}
		m.sampled = m.sampled[1:]
		m.told = append(m.told, s.Values)
	}
	m.next = st.LastGeneration + 1
	return search.Leader{ID: m.a.IndividualID(st.LastGeneration, 0), Genes: m.genes(m.mean), Score: 0.5}, nil
}

// Describe: λ, the pairs per candidate, σ_0 and the generations in play.
func (m *cmaesMethod) Describe(length string) (string, []string) {
	p := m.a.Config.CMAESParams()
	lag := ""
	if p.Lag > 0 {
		lag = fmt.Sprintf(", %d generations in play", p.Lag+1)
	}
	return fmt.Sprintf(" by CMA-ES: %s; each generation %d candidates × %d game pairs against the mean, σ_0 %g%s", length, m.opt.PopulationSize(), p.Pairs, p.Sigma, lag), nil
}

// Saved is the progress line of a saved generation (event e): the best candidate's score
// against the mean, the candidates' mean, the new mean and the games so far.
func Saved(e record.Event) string {
	return fmt.Sprintf("best candidate %s scored %.3f against the mean, candidates' mean %.3f, champion %s (the mean), %s", e.Best, e.BestScore, e.MeanScore, e.Champion, e.GamesText())
}

// Ask samples generation k's λ candidates around the mean now (after generation k−Lag−1),
// to play that mean.
func (m *cmaesMethod) Ask() (*search.Round, error) {
	k := m.next
	c := m.a.Config
	if c.Generations > 0 && k > c.Generations {
		return nil, nil
	}
	if err := m.sampledUpTo(k); err != nil {
		return nil, err
	}
	var g *cmaesGeneration
	for _, s := range m.sampled {
		if s.k == k {
			g = s
		}
	}
	cands := make([]*genomes.Genome, len(g.ys))
	for i, y := range g.ys {
		cands[i] = &genomes.Genome{Layout: m.a.Layout, X: m.genes(y), ID: m.a.IndividualID(k, i+1), Op: OpCandidate, Parents: []string{g.parent}, Born: k}
	}
	mean := &genomes.Genome{Layout: m.a.Layout, X: g.mx, ID: g.parent}
	m.next++
	return &search.Round{Gen: k, Draw: k, Players: cands, Opponents: []*genomes.Genome{mean}, Pairs: c.CMAESParams().Pairs, Label: fmt.Sprintf("generation %d", k), Own: g}, nil
}

// Tell moves the mean by the candidates' values (1 − score against the mean) and stores
// the generation: the new mean first (the champion), then the candidates ranked by score.
func (m *cmaesMethod) Tell(r *search.Round) (*search.Told, error) {
	k, cands, parent := r.Gen, r.Players, r.Opponents[0].ID
	gen, ok := r.Own.(*cmaesGeneration)
	if !ok || len(m.sampled) == 0 || m.sampled[0] != gen {
		return nil, fmt.Errorf("cmaes: generation %d told out of order", k)
	}
	m.sampled = m.sampled[1:]
	l := m.a.Layout
	values := candidateValues(cands)
	if err := m.tell(gen, values); err != nil {
		return nil, err
	}
	m.told = append(m.told, values)
	st := State{Values: values, Mean: append([]float64(nil), m.mean...)}
	// The new mean comes from the mean after generation k−1 (which the candidates played
	// only without a lag).
	next := &genomes.Genome{Layout: l, X: m.genes(m.mean), ID: m.a.IndividualID(k, 0), Op: OpMean, Parents: []string{m.meanID(k)}, Born: k}
	rec := record.GenerationRecord{Opponents: []string{parent}, Best: next.ID, Champion: next.ID}
	if k == 0 {
		rec.NewGenomes = append(rec.NewGenomes, record.GenomeRecord{ID: parent, Born: 0, Operator: genomes.OpBaseline, Genes: l.Named(l.Defaults())})
	}
	rec.NewGenomes = append(rec.NewGenomes, record.GenomeRecord{ID: next.ID, Born: k, Operator: next.Op, Parents: next.Parents, Genes: l.Named(next.X)})
	rec.Individuals = append(rec.Individuals, record.IndividualRecord{ID: next.ID, Rank: 1, Fitness: 0.5})
	for _, g := range cands {
		rec.NewGenomes = append(rec.NewGenomes, record.GenomeRecord{ID: g.ID, Born: k, Operator: g.Op, Parents: g.Parents, Genes: l.Named(g.X)})
	}
	ranked := append([]*genomes.Genome(nil), cands...)
	sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].Stats.Score() > ranked[b].Stats.Score() })
	var sum, sq float64
	rec.FitMin, rec.FitMax = math.Inf(1), math.Inf(-1)
	for i, g := range ranked {
		f := 1 - g.Stats.Score()
		rec.Individuals = append(rec.Individuals, record.IndividualRecord{ID: g.ID, Rank: i + 2, Fitness: f, Stats: g.Stats})
		rec.FitMin, rec.FitMax = math.Min(rec.FitMin, f), math.Max(rec.FitMax, f)
		sum += f
		sq += f * f
	}
	n := float64(len(ranked))
	rec.FitMean = sum / n
	rec.FitStd = math.Sqrt(math.Max(0, sq/n-rec.FitMean*rec.FitMean))
	var dsum float64
	for _, g := range cands {
		dsum += l.Distance(g.X, gen.mx)
	}
	rec.Diversity = dsum / n
	return &search.Told{Record: rec, State: func() any { return st },
		Champion:   search.Leader{ID: next.ID, Genes: next.X, Score: 0.5},
		BestPlayer: ranked[0].ID, BestScore: ranked[0].Stats.Score(), MeanScore: 1 - rec.FitMean}, nil
}

// GuessKey implements BranchGuesser: the order of r's candidates' values, ties included,
// which is all of a generation Guess reads ("" for a generation Guess does not guess).
func (m *cmaesMethod) GuessKey(r *search.Round) string {
	if m.a.Config.CMAESParams().Lag > 0 || r.Gen != len(m.told) {
		return ""
	}
	return valueOrder(candidateValues(r.Players))
}

// Guess implements Guesser: the generation CMA-ES would ask were it told r, the generation
// in play (its candidates' Stats as the loop would leave them). A copy of the optimiser as
// it stands (deepCopy: its mean, covariance, evolution paths and random generator, after
// asking r's candidates) is told r's values and asked the next generation; this one is
// untouched. The optimiser's update reads only the values' order (the values themselves
// feed only its stopping test, ShouldStop, which this method never asks), so a guess with
// the order of one made before is that one (the same round).
// With generations in play (a lag) the loop never waits for a generation's last games,
// and there is nothing to guess: nil.
func (m *cmaesMethod) Guess(r *search.Round) (*search.Round, error) {
	order := m.GuessKey(r)
	if order == "" || len(m.sampled) == 0 || m.sampled[0].k != r.Gen {
		return nil, nil
	}
	if m.guessed == nil || m.guessedGen != r.Gen {
		m.guessed, m.guessedGen = map[string]*search.Round{}, r.Gen
	}
	if g, ok := m.guessed[order]; ok {
		return g, nil
	}
	if len(m.guessed) >= cmaesGuessesEach {
		return nil, nil
	}
	g, err := m.fork()
	if err != nil {
		return nil, err
	}
	if err := g.tell(g.sampled[0], candidateValues(r.Players)); err != nil {
		return nil, err
	}
	g.sampled, g.next = g.sampled[1:], r.Gen+1
	next, err := g.Ask()
	if err != nil {
		return nil, err
	}
	m.guessed[order] = next
	return next, nil
}

// cmaesCore is what a fork of a CMA-ES copies: the optimiser and the mean it keeps in
// place (gonum's VecDense works in the slice it was given, so the two share memory, and
// so do their copies).
type cmaesCore struct {
	opt  *cmaes.Optimizer
	mean []float64
}

// fork is a copy of m that can be told and asked without changing m: its optimiser and
// mean copied, its generations sampled shared (never changed once sampled).
func (m *cmaesMethod) fork() (*cmaesMethod, error) {
	core, err := deepCopy(&cmaesCore{opt: m.opt, mean: m.mean})
	if err != nil {
		return nil, fmt.Errorf("cmaes: %w", err)
	}
	g := *m
	g.opt, g.mean = core.opt, core.mean
	g.sampled = slices.Clone(m.sampled)
	g.guessed = nil
	return &g, nil
}

// valueOrder is the order of values with their ties: the indices sorted by value (ties
// in index order), "=" between equal values.
func valueOrder(values []float64) string {
	idx := make([]int, len(values))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return values[idx[a]] < values[idx[b]] })
	var sb strings.Builder
	for k, i := range idx {
		if k > 0 {
			if values[i] == values[idx[k-1]] {
				sb.WriteByte('=')
			} else {
				sb.WriteByte('<')
			}
		}
		sb.WriteString(strconv.Itoa(i))
	}
	return sb.String()
}

// candidateValues are CMA-ES's values of a generation's candidates: 1 − each one's score
// against the mean.
func candidateValues(cands []*genomes.Genome) []float64 {
	values := make([]float64, len(cands))
	for i, g := range cands {
		values[i] = 1 - g.Stats.Score()
	}
	return values
}
