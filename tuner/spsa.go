package tuner

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"evotune/genomes"
)

// SPSA (Config.Method "spsa"): fishtest's simultaneous perturbation stochastic
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
// into budget_games by Calibrate) and i = k·pairs the pairs before the step:
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

// Operators of SPSA individuals, recorded in their lineage.
const (
	OpSPSA      = "spsa"  // θ after a step
	OpSPSAPlus  = "spsa+" // θ + c_k·Δ
	OpSPSAMinus = "spsa-" // θ − c_k·Δ
)

// SPSAConfig holds SPSA's parameters (fishtest's names). Zero fields take DefaultSPSA's.
type SPSAConfig struct {
	// Pairs is the number of colour-swapped game pairs of θ+ against θ− per step.
	Pairs int `json:"pairs" yaml:"pairs"`
	// CEnd is the perturbation c_k at the last step, in the genes' SPSA units (ln units for
	// log genes).
	CEnd float64 `json:"c_end" yaml:"c_end"`
	// REnd is the learning rate R_k = a_k/c_k² at the last step.
	REnd float64 `json:"r_end" yaml:"r_end"`
	// Alpha and Gamma are the exponents of a_k and c_k.
	Alpha float64 `json:"alpha" yaml:"alpha"`
	Gamma float64 `json:"gamma" yaml:"gamma"`
	// ARatio is A, the stability constant of a_k, as a fraction of the run's game pairs.
	ARatio float64 `json:"a_ratio" yaml:"a_ratio"`
}

// DefaultSPSA is fishtest's formulation as `evotune compare` measured it: 16 pairs per
// step, c_end 0.2 ln units, r_end 0.002, Spall's exponents, A = 10% of the pairs.
var DefaultSPSA = SPSAConfig{Pairs: 16, CEnd: 0.2, REnd: 0.002, Alpha: 0.602, Gamma: 0.101, ARatio: 0.1}

// SPSAParams returns the run's SPSA parameters with DefaultSPSA's in place of zeros.
func (c Config) SPSAParams() SPSAConfig { return overDefaults(DefaultSPSA, c.SPSA) }

func (p SPSAConfig) validate() error {
	switch {
	case p.Pairs < 1 || p.Pairs > 10000:
		return settingErr("spsa.pairs", "", "%d, want 1 to 10000", p.Pairs)
	case !(p.CEnd > 0 && p.CEnd <= 10):
		return settingErr("spsa.c_end", "", "%g, want (0, 10] (ln units for log genes)", p.CEnd)
	case !(p.REnd > 0 && p.REnd <= 10):
		return settingErr("spsa.r_end", "", "%g, want (0, 10]", p.REnd)
	case !(p.Alpha > 0 && p.Alpha <= 1):
		return settingErr("spsa.alpha", "", "%g, want (0, 1]", p.Alpha)
	case !(p.Gamma > 0 && p.Gamma <= 1):
		return settingErr("spsa.gamma", "", "%g, want (0, 1]", p.Gamma)
	case !(p.ARatio >= 0 && p.ARatio <= 10):
		return settingErr("spsa.a_ratio", "", "%g, want 0 to 10", p.ARatio)
	}
	return nil
}

// spsaPairs is N, the run's total game pairs as planned when step k was played: a run
// extended on resume (Config.Extensions) plans its later steps over the new total, as
// fishtest plans a run of that many games, and replays its earlier steps as they were.
func (t *Tuner) spsaPairs(k int) int {
	p := t.cfg.SPSAParams()
	b := t.cfg.BudgetAt(k)
	if b.BudgetGames > 0 {
		return max(p.Pairs, (b.BudgetGames+1)/2)
	}
	return (b.Generations + 1) * p.Pairs
}

// spsaGains returns c_k and R_k of step k.
func (t *Tuner) spsaGains(k int) (ck, rk float64) {
	p := t.cfg.SPSAParams()
	n := float64(t.spsaPairs(k))
	i := float64(k * p.Pairs)
	bigA := p.ARatio * n
	c := p.CEnd * math.Pow(n, p.Gamma)
	a := p.REnd * p.CEnd * p.CEnd * math.Pow(bigA+n, p.Alpha)
	ck = c / math.Pow(i+1, p.Gamma)
	ak := a / math.Pow(i+1+bigA, p.Alpha)
	return ck, ak / (ck * ck)
}

// spsaGeneGains returns step k's c_k and R_k of every gene: the run's (spsaGains), or,
// for a gene with its own c_end and r_end (a layout's per-parameter values, OpenBench's
// columns, in the gene's own units), the same schedule reaching those: c_end/unit in SPSA
// units (for a log gene c_end/default, the relative step), R_k scaled by r_end/the run's
// r_end. Fishtest gives every parameter its own c and a this way.
func (t *Tuner) spsaGeneGains(k int) (ck, rk []float64) {
	p := t.cfg.SPSAParams()
	c, r := t.spsaGains(k)
	genes := t.plan.Layout.Genes
	ck, rk = make([]float64, len(genes)), make([]float64, len(genes))
	for i, g := range genes {
		ck[i], rk[i] = c, r
		if g.CEnd > 0 {
			ck[i] = c * geneCEnd(g, p) / p.CEnd
		}
		if g.REnd > 0 {
			rk[i] = r * g.REnd / p.REnd
		}
	}
	return ck, rk
}

// geneCEnd is gene g's c_end in SPSA units: its own (CEnd, in the gene's units) or p's.
func geneCEnd(g genomes.Gene, p SPSAConfig) float64 {
	switch {
	case g.CEnd <= 0:
		return p.CEnd
	case g.Scale == genomes.Log && g.Min > 0:
		return g.CEnd / g.Default
	}
	return g.CEnd / spsaUnit(g)
}

// spsaUnit is the size of one SPSA unit of linear gene g.
func spsaUnit(g genomes.Gene) float64 { return (g.Max - g.Min) / 5 }

// toTheta maps a gene vector to SPSA coordinates.
func (t *Tuner) toTheta(x []float64) []float64 {
	u := make([]float64, len(x))
	for i, g := range t.plan.Layout.Genes {
		u[i] = t.toThetaGene(g, x[i])
	}
	return u
}

// toThetaGene is gene g's value x in SPSA coordinates.
func (t *Tuner) toThetaGene(g genomes.Gene, x float64) float64 {
	if g.Scale == genomes.Log && x > 0 {
		return math.Log(x)
	}
	return x / spsaUnit(g)
}

// fromThetaGene is gene g's value at SPSA coordinate u, not clamped or rounded.
func (t *Tuner) fromThetaGene(g genomes.Gene, u float64) float64 {
	if g.Scale == genomes.Log && g.Min > 0 {
		return math.Exp(u)
	}
	return u * spsaUnit(g)
}

// fromTheta maps SPSA coordinates back to a gene vector inside the bounds (integer genes
// rounded, fixed genes at their defaults).
func (t *Tuner) fromTheta(u []float64) []float64 {
	x := make([]float64, len(u))
	for i, g := range t.plan.Layout.Genes {
		x[i] = t.fromThetaGene(g, u[i])
	}
	t.plan.Layout.Clamp(x)
	return x
}

// clampTheta keeps θ inside the bounds (continuous: integer genes are rounded only when
// played), as fishtest clips θ to [min, max].
func (t *Tuner) clampTheta(u []float64) {
	var defaults []float64 // θ of the paper's weights, for fixed genes
	for i, g := range t.plan.Layout.Genes {
		lo, hi := g.Min/spsaUnit(g), g.Max/spsaUnit(g)
		if g.Scale == genomes.Log && g.Min > 0 {
			lo, hi = math.Log(g.Min), math.Log(g.Max)
		}
		if g.Fixed {
			if defaults == nil {
				defaults = t.toTheta(t.plan.Layout.Defaults())
			}
			u[i] = defaults[i]
			continue
		}
		u[i] = math.Max(lo, math.Min(hi, u[i]))
	}
}

// spsaDelta returns step k's perturbation directions: ±1 for each free gene, 0 for fixed.
func (t *Tuner) spsaDelta(k int) []float64 {
	rng := t.rngV2(k, streamGA)
	d := make([]float64, len(t.plan.Layout.Genes))
	for i, g := range t.plan.Layout.Genes {
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

// spsaStep applies step k's update to θ (in place): θ += R_k·c_k·s·result·Δ, clamped,
// with s of spsaPoints (1 but for integer genes whose perturbation was widened).
func (t *Tuner) spsaStep(u []float64, k, result int) {
	ck, rk := t.spsaGeneGains(k)
	d := t.spsaDelta(k)
	_, _, s := t.spsaPoints(u, k)
	for i := range u {
		u[i] += rk[i] * ck[i] * s[i] * float64(result) * d[i]
	}
	t.clampTheta(u)
}

// spsaPoints returns the genes of step k's θ+ = θ + c_k·Δ and θ− = θ − c_k·Δ around θ = u,
// and each gene's update scale s. An integer gene whose perturbation rounds to no change
// (c_k below half a unit: θ+ and θ− would play the same value, and the step would learn
// nothing of it) is widened to the two integers around θ, one unit apart (inside its
// bounds), θ+ on Δ's side; its update keeps SPSA's gradient estimate for the wider
// perturbation c': a_k·(W−L)/c' = R_k·c_k·(c_k/c')·(W−L), so s = c_k/c'. Other genes
// have s = 1.
func (t *Tuner) spsaPoints(u []float64, k int) (plus, minus, s []float64) {
	ck, _ := t.spsaGeneGains(k)
	d := t.spsaDelta(k)
	up, um := append([]float64(nil), u...), append([]float64(nil), u...)
	for i := range u {
		up[i] += ck[i] * d[i]
		um[i] -= ck[i] * d[i]
	}
	plus, minus = t.fromTheta(up), t.fromTheta(um)
	s = make([]float64, len(u))
	for i, g := range t.plan.Layout.Genes {
		s[i] = 1
		if !g.Integer || g.Fixed || plus[i] != minus[i] || g.Max-g.Min < 1 {
			continue
		}
		x := t.fromThetaGene(g, u[i])
		lo := math.Max(g.Min, math.Min(g.Max-1, math.Floor(x)))
		hi := lo + 1
		if d[i] > 0 {
			plus[i], minus[i] = hi, lo
		} else {
			plus[i], minus[i] = lo, hi
		}
		if wide := (t.toThetaGene(g, hi) - t.toThetaGene(g, lo)) / 2; wide > ck[i] {
			s[i] = ck[i] / wide
		}
	}
	return plus, minus, s
}

// WidenedIntegerGenes names the free integer genes whose SPSA perturbation at the run's
// last step, c_end, is below half a unit at their defaults: spsaPoints perturbs them by
// one unit instead (the run's header says so).
func (t *Tuner) WidenedIntegerGenes() []string {
	if t.cfg.Method != MethodSPSA {
		return nil
	}
	p := t.cfg.SPSAParams()
	var out []string
	for _, g := range t.plan.Layout.Genes {
		if !g.Integer || g.Fixed {
			continue
		}
		c := geneCEnd(g, p)
		if t.fromThetaGene(g, t.toThetaGene(g, g.Default)+c)-g.Default < 0.5 {
			out = append(out, g.Name)
		}
	}
	return out
}

// Calibration is how SPSA turned a time budget into its game budget (fishtest's num_iter
// must be known before the first step): Games distinct games of the paper's weights moved
// by +c_end·Δ_0 against them moved by −c_end·Δ_0 (like a first step) on calibration
// openings (tuning half, a stream of their own, stored nowhere) took Time; BudgetGames =
// Games/Time × (time budget − Time), at least one step. Source:
// fishtest's num_iter in spsa_handler.py.
type Calibration struct {
	Games       int
	Time        time.Duration
	BudgetGames int
}

// Calibration bounds: at least calibrationTime of play or calibrationBatches steps' worth
// of games, whichever comes first (gomoku at depth 3: about 600 games in 2 s; amazons:
// one step of 32 games in 3 s).
const (
	calibrationTime    = 2 * time.Second
	calibrationBatches = 16
)

// NeedsCalibration reports whether the run is SPSA with a time budget and neither a game
// budget nor generations: its game budget must be measured first (Calibrate).
func (t *Tuner) NeedsCalibration() bool {
	return t.cfg.Method == MethodSPSA && t.cfg.TimeBudget != "" && t.cfg.BudgetGames == 0 && t.cfg.Generations == 0 && t.calibration == nil
}

// Calibrate measures this machine's rate of distinct games (batches of one SPSA step:
// Pairs colour-swapped pairs of the paper's weights moved by ±c_end·Δ_0, on calibration
// openings of the tuning half) and sets the run's game budget to what fits in the rest of
// the time budget. The run stores that budget with its configuration, so a resumed run
// keeps the same gains; the time budget still ends the run if the machine slows down.
// Idempotent; an error if the games fail or ctx ends.
func (t *Tuner) Calibrate(ctx context.Context) (Calibration, error) {
	if t.calibration != nil {
		return *t.calibration, nil
	}
	if t.cfg.Method != MethodSPSA || t.cfg.TimeBudget == "" {
		return Calibration{}, fmt.Errorf("calibrate: only an SPSA run with a time budget is calibrated")
	}
	saved, savedCtx := t.draws.tuningOpenings, t.ctx
	t.draws.tuningOpenings, t.ctx = map[string]bool{}, ctx
	defer func() {
		t.draws.tuningOpenings, t.ctx = saved, savedCtx
		t.g.openings, t.g.gameResults, t.g.gamesTime, t.g.slotTime, t.g.distinctGames = nil, nil, 0, 0, 0
	}()
	p := t.cfg.SPSAParams()
	// θ0 ± c_end·Δ_0: games like the first step's (a genome never plays itself).
	plus, minus := t.toTheta(t.plan.Layout.Defaults()), t.toTheta(t.plan.Layout.Defaults())
	for i, d := range t.spsaDelta(0) {
		c := geneCEnd(t.plan.Layout.Genes[i], p)
		plus[i] += c * d
		minus[i] -= c * d
	}
	x, xm := t.fromTheta(plus), t.fromTheta(minus)
	w, ext, err := t.side(xm)
	if err != nil {
		return Calibration{}, fmt.Errorf("calibrate: %w", err)
	}
	start := time.Now()
	for i := 0; i < calibrationBatches && (i == 0 || time.Since(start) < calibrationTime); i++ {
		first, err := t.drawOpenings(p.Pairs, streamCalibration+uint64(i)<<4)
		if err != nil {
			return Calibration{}, fmt.Errorf("calibrate: %w", err)
		}
		g := &genomes.Genome{Layout: t.plan.Layout, X: x, ID: "calibration"}
		if _, _, err := t.playAgainst(g, opponent{id: "calibration-opponent", w: w, x: xm, ext: ext}, first, p.Pairs, 0, "calibration"); err != nil {
			return Calibration{}, err
		}
	}
	c := Calibration{Games: t.g.distinctGames, Time: time.Since(start)}
	rest := t.cfg.Budget() - c.Time
	c.BudgetGames = max(2*p.Pairs, int(float64(c.Games)/c.Time.Seconds()*rest.Seconds()))
	t.calibration = &c
	t.cfg.BudgetGames = c.BudgetGames
	return c, nil
}

// thetaID is the ID of θ_k: the paper's weights R-g0-03 for k = 0, else slot 00 of
// generation k−1.
func (t *Tuner) thetaID(k int) string {
	if k == 0 {
		return genomes.IndividualID(t.saving.runID, 0, 3)
	}
	return genomes.IndividualID(t.saving.runID, k-1, 0)
}

// SPSAPlusID is the ID of θ+ of step k of SPSA run runID (slot 01): the individual whose
// games against θ− are the step's result. Readers of a stored run find a step's result by
// it, never by rank.
func SPSAPlusID(runID int64, k int) string { return genomes.IndividualID(runID, k, 1) }

// SPSAMinusID is the ID of θ− of step k of SPSA run runID (slot 02).
func SPSAMinusID(runID int64, k int) string { return genomes.IndividualID(runID, k, 2) }

// spsaMethod is SPSA as a searchMethod: θ, in SPSA coordinates, is its state; each step's
// result is stored as the generation's method state (spsaState), from which a resumed run
// replays θ.
type spsaMethod struct {
	t *Tuner
	u []float64 // θ_k before step k, in SPSA coordinates
}

// spsaState is an SPSA step's method state as stored with its generation (the
// generations table's method_state): W − L of θ+ against θ−, and the step's gains c_k and
// R_k for readers (resume recomputes them from the configuration).
type spsaState struct {
	Result int     `json:"result"`
	CK     float64 `json:"c_k"`
	RK     float64 `json:"r_k"`
}

func newSPSA(t *Tuner) (searchMethod, error) {
	return &spsaMethod{t: t, u: t.toTheta(t.plan.Layout.Defaults())}, nil
}

// restore replays θ from the paper's weights through every saved step's result, so a
// resumed run moves exactly as an uninterrupted one (θ keeps fractions that the stored,
// rounded genes lose).
func (m *spsaMethod) restore(st ResumeState) error {
	t := m.t
	if len(st.MethodStates) != st.LastGeneration+1 {
		return fmt.Errorf("resume: %d SPSA step states for %d saved steps", len(st.MethodStates), st.LastGeneration+1)
	}
	for k, raw := range st.MethodStates {
		var s spsaState
		if err := decodeState(raw, &s); err != nil {
			return fmt.Errorf("resume: SPSA step %d: %w", k, err)
		}
		t.spsaStep(m.u, k, s.Result)
	}
	t.rep.summary.Best, t.rep.summary.BestGenes, t.rep.summary.BestScore = genomes.IndividualID(st.RunID, st.LastGeneration, 0), t.fromTheta(m.u), 0.5
	return nil
}

// describe: the steps, pairs, gains and exponents, and the integer genes widened to one unit.
func (m *spsaMethod) describe(length string) (string, []string) {
	t := m.t
	p := t.cfg.SPSAParams()
	steps := strings.Replace(length, "generations", "steps", 1)
	if t.cfg.Generations > 0 {
		steps = fmt.Sprintf("%d steps", t.cfg.Generations+1)
	}
	gains := fmt.Sprintf("c_end %g, r_end %g", p.CEnd, p.REnd)
	own := 0
	for _, g := range t.plan.Layout.Genes {
		if g.CEnd > 0 || g.REnd > 0 {
			own++
		}
	}
	if own > 0 {
		gains = fmt.Sprintf("c_end and r_end of the layout's %d genes that give them (else c_end %g, r_end %g)", own, p.CEnd, p.REnd)
	}
	var notes []string
	if w := t.WidenedIntegerGenes(); len(w) > 0 {
		notes = append(notes, "integer genes whose perturbation would round to no change are played one unit apart in θ+ and θ− (their update scaled to match): "+strings.Join(w, ", "))
	}
	return fmt.Sprintf(" by SPSA: %s; each step %d game pairs (θ+ against θ−), %s, alpha %g, gamma %g, A %g of the pairs", steps, p.Pairs, gains, p.Alpha, p.Gamma, p.ARatio), notes
}

// spsaSaved: θ+'s score against θ−, θ after the step and the games so far.
func spsaSaved(e Event) string {
	return fmt.Sprintf("θ+ scored %.3f against θ−, champion %s, %s", e.BestScore, e.Champion, e.GamesText())
}

// search runs SPSA steps from step `from` until the budget, the generations or ctx end.
func (m *spsaMethod) search(ctx context.Context, from int) error {
	t := m.t
	t.rep.summary.BudgetGames = t.cfg.BudgetGames
	p := t.cfg.SPSAParams()
	for k := from; ; k++ {
		if t.cfg.Generations > 0 && k > t.cfg.Generations || t.overBudget() {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		t.g.gen = k
		if err := t.playStep(k, m.u, p.Pairs); err != nil {
			return err
		}
	}
}

// playStep plays step k around θ = u, saves it as generation k, and moves u to θ_{k+1}.
func (t *Tuner) playStep(k int, u []float64, pairs int) error {
	t.g.genStart = time.Now()
	t.g.openings, t.g.gameResults, t.g.gamesTime, t.g.slotTime, t.g.distinctGames = nil, nil, 0, 0, 0
	plus, minus, _ := t.spsaPoints(u, k)
	parent := t.thetaID(k)
	gp := &genomes.Genome{Layout: t.plan.Layout, X: plus, ID: SPSAPlusID(t.saving.runID, k), Op: OpSPSAPlus, Parents: []string{parent}, Born: k}
	gm := &genomes.Genome{Layout: t.plan.Layout, X: minus, ID: SPSAMinusID(t.saving.runID, k), Op: OpSPSAMinus, Parents: []string{parent}, Born: k}
	first, err := t.drawOpenings(pairs, streamOpenings)
	if err != nil {
		return err
	}
	wm, ext, err := t.side(gm.X)
	if err != nil {
		return fmt.Errorf("step %d: θ−: %w", k, err)
	}
	t.g.opponents = []string{gm.ID}
	res, _, err := t.playAgainst(gp, opponent{id: gm.ID, w: wm, x: gm.X, ext: ext}, first, pairs, 0, fmt.Sprintf("step %d", k))
	if err != nil {
		return err
	}
	gp.Stats = genomes.Stats{Wins: res.Wins, Draws: res.Draws, Losses: res.Losses, Penta: res.Penta}
	gm.Stats = genomes.Stats{Wins: res.Losses, Draws: res.Draws, Losses: res.Wins}
	for j, n := range res.Penta {
		gm.Stats.Penta[4-j] = n
	}
	ck, rk := t.spsaGains(k)
	state, err := encodeState(spsaState{Result: res.Wins - res.Losses, CK: ck, RK: rk})
	if err != nil {
		return err
	}
	t.spsaStep(u, k, res.Wins-res.Losses)
	next := &genomes.Genome{Layout: t.plan.Layout, X: t.fromTheta(u), ID: genomes.IndividualID(t.saving.runID, k, 0), Op: OpSPSA, Parents: []string{parent}, Born: k}
	t.rep.summary.Best, t.rep.summary.BestGenes, t.rep.summary.BestScore = next.ID, append([]float64(nil), next.X...), 0.5
	// The held-out check of θ_{k+1} (Config.VerifyEvery), as the GA checks its champion.
	var check *Verification
	if t.cfg.VerifyEvery > 0 && k%t.cfg.VerifyEvery == 0 {
		if check, err = t.checkpoint(); err != nil {
			return err
		}
	}
	rec := GenerationRecord{RunID: t.saving.runID, Generation: k, Games: t.g.distinctGames, GamesTime: t.g.gamesTime, SlotTime: t.g.slotTime, Slots: t.gameSlots(),
		Opponents: []string{gm.ID}, Openings: t.g.openings, GameResults: t.g.gameResults, Best: next.ID, Champion: next.ID, Checkpoint: check, MethodState: state}
	if k == 0 {
		rec.NewGenomes = append(rec.NewGenomes, GenomeRecord{ID: parent, Born: 0, Operator: genomes.OpBaseline, Genes: t.plan.Layout.Named(t.plan.Layout.Defaults())})
	}
	fits := []float64{0.5, 1 - gp.Stats.Score(), 1 - gm.Stats.Score()}
	for i, g := range []*genomes.Genome{next, gp, gm} {
		rec.NewGenomes = append(rec.NewGenomes, GenomeRecord{ID: g.ID, Born: k, Operator: g.Op, Parents: g.Parents, Genes: t.plan.Layout.Named(g.X)})
		rec.Individuals = append(rec.Individuals, IndividualRecord{ID: g.ID, Rank: i + 1, Fitness: fits[i], Stats: g.Stats})
	}
	rec.FitMin, rec.FitMax = math.Min(fits[1], fits[2]), math.Max(fits[1], fits[2])
	rec.FitMean, rec.FitStd = 0.5, math.Abs(fits[1]-0.5)
	rec.Diversity = t.plan.Layout.Distance(gp.X, gm.X)
	rec.Duration, rec.Elapsed = time.Since(t.g.genStart), t.elapsed()
	t.rep.summary.Generations = k + 1
	t.rep.summary.Games += t.g.distinctGames
	t.rep.summary.countRecords(rec)
	t.rep.summary.GamesTime += t.g.gamesTime
	ev := t.event(Event{GenDone: true, GamesDone: t.g.distinctGames, GamesTotal: t.g.distinctGames, BestScore: gp.Stats.Score(), MeanScore: 0.5,
		Best: gp.ID, Champion: next.ID})
	return t.saveBehind(rec, ev)
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
func (t *Tuner) saveBehind(rec GenerationRecord, ev Event) error {
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
