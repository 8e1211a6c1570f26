// Package spsa is SPSA (config.Config.Method "spsa"), a search method on the tuner's run
// loop (search.Method): fishtest's simultaneous perturbation stochastic
// approximation, so that users can choose it and compare it with the GA on one command
// line. Sources: Spall, "Implementation of the simultaneous perturbation algorithm for
// stochastic optimization", IEEE Trans. Aerospace and Electronic Systems 34(3), 1998 (the
// gain sequences and the exponents 0.602 and 0.101); fishtest (official-stockfish/fishtest,
// server/fishtest/spsa_handler.py: gains set from c_end and r_end over num_iter game pairs,
// A = 10% of them, θ += R_k·c_k·(wins − losses)·Δ).
//
// Coordinates: SPSA works on θ in each gene's scale: ln x for log genes, x divided by a
// fifth of the gene's range for linear genes (the GA's default mutation makes a step of
// 0.25 in ln units worth 0.05 of a linear gene's range: the same ratio). c_end is in
// those units.
//
// Step k (one generation of the run) plays Pairs colour-swapped game pairs of θ+ = θ + c_k·Δ
// against θ− = θ − c_k·Δ (Δ: ±1 per free gene, from the step's own random stream) on fresh
// tuning-half openings, then moves θ by R_k·c_k·(W − L of θ+)·Δ. With N the total game
// pairs of the run (budget_games/2, or (generations+1)·pairs; a time budget alone is turned
// into budget_games by the tuner's Calibrate) and i = k·pairs the pairs before the step:
//
//	c_k = c/(i+1)^γ, c = c_end·N^γ               (so c_k reaches c_end at the end)
//	a_k = a/(i+1+A)^α, a = r_end·c_end²·(A+N)^α  (R_k = a_k/c_k² reaches r_end), A = a_ratio·N
//
// What each step stores (lineage: every θ with its parent θ): generation k holds θ_{k+1}
// (slot 00, rank 1: the point after the step, operator "spsa", parent θ_k; it plays no
// games, and it is the run's champion), θ+ (slot 01, operator "spsa+", parent θ_k) with the
// step's games against θ− (slot 02, "spsa−"). θ_0 is the paper's weights, genome
// R-g0-03. The run's result is the last θ: no pick among noisy estimates, so no winner's
// curse.
package spsa

import (
	"fmt"
	"math"
	"strings"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/record"
	"evotune/tuner/search"
)

// Operators of SPSA individuals, recorded in their lineage.
const (
	OpTheta = "spsa"  // θ after a step
	OpPlus  = "spsa+" // θ + c_k·Δ
	OpMinus = "spsa-" // θ − c_k·Δ
)

// Env is SPSA's view of its run: the run's MethodEnv with SPSA's gains, perturbations
// and updates.
type Env struct{ *search.MethodEnv }

// Pairs is N, the run's total game pairs as planned when step k was played: a run
// extended on resume (Config.Extensions) plans its later steps over the new total, as
// fishtest plans a run of that many games, and replays its earlier steps as they were.
func (a Env) Pairs(k int) int {
	p := a.Config.SPSAParams()
	b := a.Config.BudgetAt(k)
	if b.BudgetGames > 0 {
		return max(p.Pairs, (b.BudgetGames+1)/2)
	}
	return (b.Generations + 1) * p.Pairs
}

// Gains returns c_k and R_k of step k.
func (a Env) Gains(k int) (ck, rk float64) {
	p := a.Config.SPSAParams()
	n := float64(a.Pairs(k))
	i := float64(k * p.Pairs)
	bigA := p.ARatio * n
	c := p.CEnd * math.Pow(n, p.Gamma)
	aa := p.REnd * p.CEnd * p.CEnd * math.Pow(bigA+n, p.Alpha)
	ck = c / math.Pow(i+1, p.Gamma)
	ak := aa / math.Pow(i+1+bigA, p.Alpha)
	return ck, ak / (ck * ck)
}

// GeneGains returns step k's c_k and R_k of every gene: the run's (Gains), or,
// for a gene with its own c_end and r_end (a layout's per-parameter values, OpenBench's
// columns, in the gene's own units), the same schedule reaching those: c_end/unit in SPSA
// units (for a log gene c_end/default, the relative step), R_k scaled by r_end/the run's
// r_end. Fishtest gives every parameter its own c and a this way.
func (a Env) GeneGains(k int) (ck, rk []float64) {
	p := a.Config.SPSAParams()
	c, r := a.Gains(k)
	genes := a.Layout.Genes
	ck, rk = make([]float64, len(genes)), make([]float64, len(genes))
	for i, g := range genes {
		ck[i], rk[i] = c, r
		if g.CEnd > 0 {
			ck[i] = c * GeneCEnd(g, p) / p.CEnd
		}
		if g.REnd > 0 {
			rk[i] = r * g.REnd / p.REnd
		}
	}
	return ck, rk
}

// GeneCEnd is gene g's c_end in SPSA units: its own (CEnd, in the gene's units) or p's.
func GeneCEnd(g genomes.Gene, p config.SPSAConfig) float64 {
	switch {
	case g.CEnd <= 0:
		return p.CEnd
	case g.Scale == genomes.Log && g.Min > 0:
		return g.CEnd / g.Default
	}
	return g.CEnd / search.Unit(g)
}

// ClampTheta keeps θ inside the bounds (continuous: integer genes are rounded only when
// played), as fishtest clips θ to [min, max].
func (a Env) ClampTheta(u []float64) {
	var defaults []float64 // θ of the paper's weights, for fixed genes
	for i, g := range a.Layout.Genes {
		lo, hi := g.Min/search.Unit(g), g.Max/search.Unit(g)
		if g.Scale == genomes.Log && g.Min > 0 {
			lo, hi = math.Log(g.Min), math.Log(g.Max)
		}
		if g.Fixed {
			if defaults == nil {
				defaults = search.Theta(a.Layout, a.Layout.Defaults())
			}
			u[i] = defaults[i]
			continue
		}
		u[i] = math.Max(lo, math.Min(hi, u[i]))
	}
}

// Delta returns step k's perturbation directions: ±1 for each free gene, 0 for fixed.
func (a Env) Delta(k int) []float64 {
	rng := a.Rand(k, search.StreamGA)
	d := make([]float64, len(a.Layout.Genes))
	for i, g := range a.Layout.Genes {
		if g.Fixed {
			continue
		}
		d[i] = 1
		if rng.IntN(2) == 0 {
			d[i] = -1
		}
	}
	return d
}

// Update applies step k's update to θ (in place): θ += R_k·c_k·s·result·Δ, clamped,
// with s the update scales of the points the step played (Points: 1 but for integer
// genes whose perturbation was widened).
func (a Env) Update(u []float64, k, result int, s []float64) {
	ck, rk := a.GeneGains(k)
	d := a.Delta(k)
	for i := range u {
		u[i] += rk[i] * ck[i] * s[i] * float64(result) * d[i]
	}
	a.ClampTheta(u)
}

// Points returns the genes of step k's θ+ = θ + c_k·Δ and θ− = θ − c_k·Δ around θ = u,
// and each gene's update scale s. An integer gene whose perturbation rounds to no change
// (c_k below half a unit: θ+ and θ− would play the same value, and the step would learn
// nothing of it) is widened to the two integers around θ, one unit apart (inside its
// bounds), θ+ on Δ's side; its update keeps SPSA's gradient estimate for the wider
// perturbation c': a_k·(W−L)/c' = R_k·c_k·(c_k/c')·(W−L), so s = c_k/c'. Other genes
// have s = 1.
func (a Env) Points(u []float64, k int) (plus, minus, s []float64) {
	ck, _ := a.GeneGains(k)
	d := a.Delta(k)
	up, um := append([]float64(nil), u...), append([]float64(nil), u...)
	for i := range u {
		up[i] += ck[i] * d[i]
		um[i] -= ck[i] * d[i]
	}
	plus, minus = search.GenesOfTheta(a.Layout, up), search.GenesOfTheta(a.Layout, um)
	s = make([]float64, len(u))
	for i, g := range a.Layout.Genes {
		s[i] = 1
		if !g.Integer || g.Fixed || plus[i] != minus[i] || g.Max-g.Min < 1 {
			continue
		}
		x := search.GeneOfTheta(g, u[i])
		lo := math.Max(g.Min, math.Min(g.Max-1, math.Floor(x)))
		hi := lo + 1
		if d[i] > 0 {
			plus[i], minus[i] = hi, lo
		} else {
			plus[i], minus[i] = lo, hi
		}
		if wide := (search.ThetaOfGene(g, hi) - search.ThetaOfGene(g, lo)) / 2; wide > ck[i] {
			s[i] = ck[i] / wide
		}
	}
	return plus, minus, s
}

// WidenedIntegerGenes names the free integer genes whose SPSA perturbation at the run's
// last step, c_end, is below half a unit at their defaults: Points perturbs them by
// one unit instead (the run's header says so).
func (a Env) WidenedIntegerGenes() []string {
	if a.Config.Method != config.MethodSPSA {
		return nil
	}
	p := a.Config.SPSAParams()
	var out []string
	for _, g := range a.Layout.Genes {
		if !g.Integer || g.Fixed {
			continue
		}
		c := GeneCEnd(g, p)
		if search.GeneOfTheta(g, search.ThetaOfGene(g, g.Default)+c)-g.Default < 0.5 {
			out = append(out, g.Name)
		}
	}
	return out
}

// ThetaID is the ID of θ_k: the paper's weights R-g0-03 for k = 0, else slot 00 of
// generation k−1.
func (a Env) ThetaID(k int) string {
	if k == 0 {
		return a.IndividualID(0, 3)
	}
	return a.IndividualID(k-1, 0)
}

// PlusID is the ID of θ+ of step k of SPSA run runID (slot 01): the individual whose
// games against θ− are the step's result. Readers of a stored run find a step's result by
// it, never by rank.
func PlusID(runID int64, k int) string { return genomes.IndividualID(runID, k, 1) }

// MinusID is the ID of θ− of step k of SPSA run runID (slot 02).
func MinusID(runID int64, k int) string { return genomes.IndividualID(runID, k, 2) }

// spsaMethod is SPSA on the run loop: round k is step k (generation k), Lag+1 steps in play
// at once (SPSAConfig.Lag). Step k perturbs θ_{k−Lag}, the point after the steps before
// k−Lag, and the steps' updates are applied to θ in step order as the loop tells them —
// which θ a step perturbs depends only on its number, so a seeded run is the same whatever
// the number of workers or their speed (fishtest's SPSA applies results as they arrive:
// its lag is its workers'); with Lag 0 every step waits for the one before it. θ, in SPSA
// coordinates, is the method's state; each step's result is stored as the generation's
// method state (State), from which a resumed run replays θ.
type spsaMethod struct {
	a Env
	// thetas holds θ_i for i from base on, in SPSA coordinates: the points the steps in
	// play perturb and the latest (θ after the last applied step).
	thetas [][]float64
	base   int
	next   int // the next step asked
}

// spsaStep is a step's own data, carried by its round: the update scales of the points it
// plays (Points).
type spsaStep struct{ s []float64 }

// theta is θ_i (held: i from m.base to the latest).
func (m *spsaMethod) theta(i int) []float64 { return m.thetas[i-m.base] }

// thetaFor is the point step k perturbs: θ_{k−lag} (θ_0 for the first lag steps).
func (m *spsaMethod) thetaFor(k, lag int) []float64 { return m.theta(max(0, k-lag)) }

// apply moves θ_k by step k's result (W − L of θ+) with the update scales s of the points
// it played (Points), making θ_{k+1}, and forgets the points no step in play needs.
func (m *spsaMethod) apply(k, result int, s []float64) {
	u := append([]float64(nil), m.theta(k)...)
	m.a.Update(u, k, result, s)
	m.thetas = append(m.thetas, u)
	keep := m.a.Config.SPSAParams().Lag + 2
	if drop := len(m.thetas) - keep; drop > 0 {
		m.thetas, m.base = m.thetas[drop:], m.base+drop
	}
}

// State is an SPSA step's method state as stored with its generation (the
// generations table's method_state): W − L of θ+ against θ−, and the step's gains c_k and
// R_k for readers (resume recomputes them from the configuration).
type State struct {
	Result int     `json:"result"`
	CK     float64 `json:"c_k"`
	RK     float64 `json:"r_k"`
}

// New is SPSA on the run a describes (its layout and configuration: SPSAParams, the budget
// its gains are planned over), the method the tuner registers as "spsa".
func New(a *search.MethodEnv) (search.Method, error) {
	return &spsaMethod{a: Env{a}, thetas: [][]float64{search.Theta(a.Layout, a.Layout.Defaults())}}, nil
}

// Window: Lag+1 steps in play.
func (m *spsaMethod) Window() int { return m.a.Config.SPSAParams().Lag + 1 }

// Restore replays θ from the paper's weights through every saved step's result, so a
// resumed run moves exactly as an uninterrupted one (θ keeps fractions that the stored,
// rounded genes lose).
func (m *spsaMethod) Restore(st record.ResumeState) (search.Leader, error) {
	if len(st.MethodStates) != st.LastGeneration+1 {
		return search.Leader{}, fmt.Errorf("resume: %d SPSA step states for %d saved steps", len(st.MethodStates), st.LastGeneration+1)
	}
	for k, raw := range st.MethodStates {
		var s State
		if err := search.DecodeState(raw, &s); err != nil {
			return search.Leader{}, fmt.Errorf("resume: SPSA step %d: %w", k, err)
		}
		_, _, sc := m.a.Points(m.thetaFor(k, m.a.Config.SPSAParams().Lag), k)
		m.apply(k, s.Result, sc)
	}
	m.next = st.LastGeneration + 1
	return search.Leader{ID: m.a.IndividualID(st.LastGeneration, 0), Genes: search.GenesOfTheta(m.a.Layout, m.theta(st.LastGeneration+1)), Score: 0.5}, nil
}

// Describe: the steps, pairs, gains and exponents, and the integer genes widened to one unit.
func (m *spsaMethod) Describe(length string) (string, []string) {
	c := m.a.Config
	p := c.SPSAParams()
	steps := strings.Replace(length, "generations", "steps", 1)
	if c.Generations > 0 {
		steps = fmt.Sprintf("%d steps", c.Generations+1)
	}
	gains := fmt.Sprintf("c_end %g, r_end %g", p.CEnd, p.REnd)
	own := 0
	for _, g := range m.a.Layout.Genes {
		if g.CEnd > 0 || g.REnd > 0 {
			own++
		}
	}
	if own > 0 {
		gains = fmt.Sprintf("c_end and r_end of the layout's %d genes that give them (else c_end %g, r_end %g)", own, p.CEnd, p.REnd)
	}
	var notes []string
	if w := m.a.WidenedIntegerGenes(); len(w) > 0 {
		notes = append(notes, "integer genes whose perturbation would round to no change are played one unit apart in θ+ and θ− (their update scaled to match): "+strings.Join(w, ", "))
	}
	return fmt.Sprintf(" by SPSA: %s; each step %d game pairs (θ+ against θ−), %s, alpha %g, gamma %g, A %g of the pairs", steps, p.Pairs, gains, p.Alpha, p.Gamma, p.ARatio), notes
}

// Saved is the progress line of a saved step (event e): θ+'s score against θ−, θ after the
// step and the games so far.
func Saved(e record.Event) string {
	return fmt.Sprintf("θ+ scored %.3f against θ−, champion %s, %s", e.BestScore, e.Champion, e.GamesText())
}

// Ask makes step k's θ+ and θ− around θ_{k−Lag}, θ+ to play θ−.
func (m *spsaMethod) Ask() (*search.Round, error) {
	k := m.next
	c := m.a.Config
	if c.Generations > 0 && k > c.Generations {
		return nil, nil
	}
	p := c.SPSAParams()
	plus, minus, sc := m.a.Points(m.thetaFor(k, p.Lag), k)
	parent := m.a.ThetaID(max(0, k-p.Lag))
	gp := &genomes.Genome{Layout: m.a.Layout, X: plus, ID: PlusID(m.a.RunID, k), Op: OpPlus, Parents: []string{parent}, Born: k}
	gm := &genomes.Genome{Layout: m.a.Layout, X: minus, ID: MinusID(m.a.RunID, k), Op: OpMinus, Parents: []string{parent}, Born: k}
	m.next++
	return &search.Round{Gen: k, Draw: k, Players: []*genomes.Genome{gp}, Opponents: []*genomes.Genome{gm}, Pairs: p.Pairs, Label: fmt.Sprintf("step %d", k), Own: spsaStep{s: sc}}, nil
}

// Tell moves θ by step r's result (W − L of θ+), making θ_{k+1}, the run's champion, and
// stores the step: θ_{k+1} (rank 1, no games), θ+ with the step's games, θ− with their
// mirror.
func (m *spsaMethod) Tell(r *search.Round) (*search.Told, error) {
	k, gp, gm, l := r.Gen, r.Players[0], r.Opponents[0], m.a.Layout
	gm.Stats = genomes.Stats{Wins: gp.Stats.Losses, Draws: gp.Stats.Draws, Losses: gp.Stats.Wins}
	for j, n := range gp.Stats.Penta {
		gm.Stats.Penta[4-j] = n
	}
	result := gp.Stats.Wins - gp.Stats.Losses
	ck, rk := m.a.Gains(k)
	m.apply(k, result, r.Own.(spsaStep).s)
	parent := m.a.ThetaID(k)
	next := &genomes.Genome{Layout: l, X: search.GenesOfTheta(l, m.theta(k+1)), ID: m.a.IndividualID(k, 0), Op: OpTheta, Parents: []string{parent}, Born: k}
	rec := record.GenerationRecord{Opponents: []string{gm.ID}, Best: next.ID, Champion: next.ID}
	if k == 0 {
		rec.NewGenomes = append(rec.NewGenomes, record.GenomeRecord{ID: parent, Born: 0, Operator: genomes.OpBaseline, Genes: l.Named(l.Defaults())})
	}
	fits := []float64{0.5, 1 - gp.Stats.Score(), 1 - gm.Stats.Score()}
	for i, g := range []*genomes.Genome{next, gp, gm} {
		rec.NewGenomes = append(rec.NewGenomes, record.GenomeRecord{ID: g.ID, Born: k, Operator: g.Op, Parents: g.Parents, Genes: l.Named(g.X)})
		rec.Individuals = append(rec.Individuals, record.IndividualRecord{ID: g.ID, Rank: i + 1, Fitness: fits[i], Stats: g.Stats})
	}
	rec.FitMin, rec.FitMax = math.Min(fits[1], fits[2]), math.Max(fits[1], fits[2])
	rec.FitMean, rec.FitStd = 0.5, math.Abs(fits[1]-0.5)
	rec.Diversity = l.Distance(gp.X, gm.X)
	return &search.Told{Record: rec, State: func() any { return State{Result: result, CK: ck, RK: rk} }, Champion: search.Leader{ID: next.ID, Genes: next.X, Score: 0.5},
		BestPlayer: gp.ID, BestScore: gp.Stats.Score(), MeanScore: 0.5}, nil
}

// CalibrationPair is the layout's defaults moved by +c_end·Δ_0 (plus) and by −c_end·Δ_0
// (minus), as genes: the players of games like a first step's, which measure the rate of
// games when a time budget must become a game budget (the tuner's Calibrate; fishtest's
// num_iter is known before the first step). Each vector has the layout's length.
func (a Env) CalibrationPair() (plus, minus []float64) {
	p := a.Config.SPSAParams()
	tp, tm := search.Theta(a.Layout, a.Layout.Defaults()), search.Theta(a.Layout, a.Layout.Defaults())
	for i, d := range a.Delta(0) {
		c := GeneCEnd(a.Layout.Genes[i], p)
		tp[i] += c * d
		tm[i] -= c * d
	}
	return search.GenesOfTheta(a.Layout, tp), search.GenesOfTheta(a.Layout, tm)
}
