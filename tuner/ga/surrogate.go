package ga

import (
	"errors"
	"math"

	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/population"
	"evotune/tuner/record"

	"gonum.org/v1/gonum/mat"
)

// The GA's surrogate model (GASettings.Surrogate): a quadratic Bradley–Terry model of
// the strength of a genome, fitted to the peer games of the last SurrogateWindow
// generations, from which each generation's last child is bred instead of by crossover
// and mutation: the model's best genome within a trust region around the centre of the
// better half. Peers selection ranks a generation by 30–100 games an individual, too few to
// tell apart children that differ by one mutation step, so a population that has found
// the direction of a few genes leaves the others where they started; the model pools
// every game of the window (about 1 400 on a 4 000-game run of an outside engine) and
// sees every gene's slope at once, as CLOP's quadratic regression does (Coulom, "CLOP:
// Confident Local Optimization for Noisy Black-Box Parameter Tuning", ACG 2011).

// OpSurrogate is the operator of the child bred from the surrogate model.
const OpSurrogate = "surrogate"

// SurrogateWindow is the number of generations whose peer games the surrogate model is
// fitted to: the newest, so that the model stays local to where the population is.
const SurrogateWindow = 8

// surrogateRidge is the ridge penalty of the model's fit (on every coefficient but the
// first mover's advantage), in units of the log-likelihood of one game per squared
// coefficient, with genes in unit coordinates (0 at a gene's minimum, 1 at its maximum).
const surrogateRidge = 0.1

// SurrogateObservation is one generation's peer games as the model reads them: its
// individuals in unit coordinates of the free genes, and each game between two of them
// (the generation's method state, so that a resumed run fits the same model).
type SurrogateObservation struct {
	Points [][]float64     `json:"points"`
	Games  []SurrogateGame `json:"games"`
}

// SurrogateGame is a game between two points of its observation: A's score (1, ½, 0)
// and whether A moved first (engine.Black).
type SurrogateGame struct {
	A     int     `json:"a"`
	B     int     `json:"b"`
	First bool    `json:"first"`
	Score float64 `json:"score"`
}

// ObserveGeneration returns the peer games of a generation whose individuals are pop
// (games against the paper's weights, another opponent or in an admission test left
// out), its individuals in unit coordinates of l's free genes.
func ObserveGeneration(l *genomes.Layout, pop []*genomes.Genome, results []record.GameResult) SurrogateObservation {
	at := make(map[string]int, len(pop))
	obs := SurrogateObservation{Points: make([][]float64, len(pop))}
	for i, g := range pop {
		at[g.ID] = i
		obs.Points[i] = UnitCoordinates(l, g.X)
	}
	for _, r := range results {
		a, okA := at[r.Individual]
		b, okB := at[r.Opponent]
		if !okA || !okB || r.Round < 0 || a == b {
			continue
		}
		obs.Games = append(obs.Games, SurrogateGame{A: a, B: b, First: r.Colour == engine.Black, Score: r.Score})
	}
	return obs
}

// UnitCoordinates maps the free genes of x to [0, 1]: linear genes by their range, log
// genes by the logarithm of theirs.
func UnitCoordinates(l *genomes.Layout, x []float64) []float64 {
	var u []float64
	for i, g := range l.Genes {
		if g.Fixed {
			continue
		}
		v := 0.0
		switch {
		case g.Max <= g.Min:
		case g.Scale == genomes.Log && g.Min > 0:
			v = math.Log(x[i]/g.Min) / math.Log(g.Max/g.Min)
		default:
			v = (x[i] - g.Min) / (g.Max - g.Min)
		}
		u = append(u, v)
	}
	return u
}

// fromUnit is UnitCoordinates' inverse: the genome of l whose free genes are at u and
// whose fixed genes are at their values, clamped and rounded as any gene is.
func fromUnit(l *genomes.Layout, u []float64) []float64 {
	x := l.Defaults()
	k := 0
	for i, g := range l.Genes {
		if g.Fixed {
			continue
		}
		if g.Scale == genomes.Log && g.Min > 0 {
			x[i] = g.Min * math.Exp(u[k]*math.Log(g.Max/g.Min))
		} else {
			x[i] = g.Min + u[k]*(g.Max-g.Min)
		}
		k++
	}
	l.Clamp(x)
	return x
}

// quadraticModel is a fitted strength f(u) = bᵀd + Σ_{a≤b} A_ab d_a d_b of d = u − mean
// (every pair when the genes are few, the squares alone otherwise): the probability that
// a genome at u beats one at v is σ(f(u) − f(v) ± the first mover's advantage).
type quadraticModel struct {
	mean  []float64
	theta []float64 // the features' coefficients (features), then the first mover's advantage
	cross bool      // the cross terms d_a d_b (a < b) are features
}

// surrogateCrossGenes is the most free genes for which the model has every cross term
// (n(n+1)/2 quadratic coefficients); with more, the squares alone (n).
const surrogateCrossGenes = 8

// features are the model's features of u: d = u − mean, then its products.
func (m *quadraticModel) features(u []float64) []float64 {
	n := len(m.mean)
	f := make([]float64, 0, n+n*(n+1)/2)
	for a := range n {
		f = append(f, u[a]-m.mean[a])
	}
	for a := range n {
		for b := a; b < n; b++ {
			if b == a || m.cross {
				f = append(f, (u[a]-m.mean[a])*(u[b]-m.mean[b]))
			}
		}
	}
	return f
}

// value is the model's strength of u (logits; only differences mean anything).
func (m *quadraticModel) value(u []float64) float64 {
	var v float64
	for k, x := range m.features(u) {
		v += m.theta[k] * x
	}
	return v
}

// fitSurrogate fits the model to the observations' games by Newton's method on the
// ridge-penalised log-likelihood (a draw counts as half a win and half a loss); nil when
// they hold no game or no free gene.
func fitSurrogate(obs []SurrogateObservation) *quadraticModel {
	var n, points, games int
	for _, o := range obs {
		if len(o.Points) > 0 {
			n = len(o.Points[0])
		}
		points += len(o.Points)
		games += len(o.Games)
	}
	if n == 0 || games == 0 {
		return nil
	}
	m := &quadraticModel{mean: make([]float64, n), cross: n <= surrogateCrossGenes}
	for _, o := range obs {
		for _, p := range o.Points {
			for a := range n {
				m.mean[a] += p[a] / float64(points)
			}
		}
	}
	nf := len(m.features(m.mean))
	np := nf + 1
	m.theta = make([]float64, np)
	type row struct {
		d     []float64 // features of A − those of B, then ±1 for the first mover
		score float64
	}
	rows := make([]row, 0, games)
	for _, o := range obs {
		feats := make([][]float64, len(o.Points))
		for i, p := range o.Points {
			feats[i] = m.features(p)
		}
		for _, g := range o.Games {
			d := make([]float64, np)
			for k := range nf {
				d[k] = feats[g.A][k] - feats[g.B][k]
			}
			d[nf] = -1
			if g.First {
				d[nf] = 1
			}
			rows = append(rows, row{d, g.Score})
		}
	}
	grad := make([]float64, np)
	hess := make([][]float64, np)
	for k := range hess {
		hess[k] = make([]float64, np)
	}
	for range 50 {
		for k := range np {
			grad[k] = 0
			clear(hess[k])
		}
		for _, r := range rows {
			var z float64
			for k, x := range r.d {
				z += m.theta[k] * x
			}
			p := 1 / (1 + math.Exp(-z))
			e, w := p-r.score, p*(1-p)
			for a, x := range r.d {
				grad[a] += e * x
				for b, y := range r.d[:a+1] {
					hess[a][b] += w * x * y
				}
			}
		}
		for a := range np {
			for b := range a {
				hess[b][a] = hess[a][b]
			}
		}
		for k := range nf {
			grad[k] += 2 * surrogateRidge * m.theta[k]
			hess[k][k] += 2 * surrogateRidge
		}
		hess[nf][nf] += 1e-9 // every game the same way round: the advantage stays 0
		step, ok := solveLinear(hess, grad)
		if !ok {
			return nil
		}
		var most float64
		for k := range m.theta {
			m.theta[k] -= step[k]
			most = math.Max(most, math.Abs(step[k]))
		}
		if most < 1e-9 {
			break
		}
	}
	for _, x := range m.theta {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
	}
	return m
}

// solveLinear solves a·x = b (gonum's LU with partial pivoting); false when a is
// singular. A merely ill-conditioned a (mat.Condition: every game the same way round
// leaves the first mover's advantage barely determined) still gives its solution.
func solveLinear(a [][]float64, b []float64) ([]float64, bool) {
	n := len(b)
	m := mat.NewDense(n, n, nil)
	for i := range a {
		m.SetRow(i, a[i])
	}
	var x mat.VecDense
	if err := x.SolveVec(m, mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
		var cond mat.Condition
		if !errors.As(err, &cond) || math.IsInf(float64(cond), 0) {
			return nil, false
		}
	}
	return x.RawVector().Data, true
}

// best returns the point of the box lo ≤ u ≤ hi where the model is strongest, by cyclic
// coordinate ascent from start (inside the box): along one coordinate the model is a
// parabola, whose best point in the box is its vertex or an end. Each sweep never
// lowers the value; 50 sweeps or none that moves any coordinate by 10⁻⁹ end it.
func (m *quadraticModel) best(start, lo, hi []float64) []float64 {
	u := append([]float64(nil), start...)
	for range 50 {
		moved := 0.0
		for a := range u {
			f0 := m.value(u)
			keep := u[a]
			u[a] = keep + 1
			f1 := m.value(u)
			u[a] = keep - 1
			fm := m.value(u)
			u[a] = keep
			// f(keep + t) = f0 + slope·t + curve·t²
			slope, curve := (f1-fm)/2, (f1+fm)/2-f0
			to := keep
			switch {
			case curve < 0:
				to = math.Min(math.Max(keep-slope/(2*curve), lo[a]), hi[a])
			case slope > 0 || (slope == 0 && curve > 0):
				to = hi[a]
			case slope < 0:
				to = lo[a]
			}
			at := func(t float64) float64 { return f0 + slope*(t-keep) + curve*(t-keep)*(t-keep) }
			if curve >= 0 && at(lo[a]) > at(to) {
				to = lo[a]
			}
			if curve >= 0 && at(hi[a]) > at(to) {
				to = hi[a]
			}
			if at(to) > f0 {
				moved = math.Max(moved, math.Abs(to-keep))
				u[a] = to
			}
		}
		if moved < 1e-9 {
			break
		}
	}
	return u
}

// SurrogateChild returns the genes of the surrogate model's child: the model's best
// genome within trust of the better half's centre of ranked (unit coordinates, per free
// gene), fitted to the observations of as many free genes as l has; false when they
// hold no model.
func SurrogateChild(l *genomes.Layout, obs []SurrogateObservation, ranked []*genomes.Genome, trust []float64) ([]float64, bool) {
	centre, _ := population.BetterHalfCentre(l, ranked)
	c := UnitCoordinates(l, centre)
	// Only the generations played with the layout's free genes: a resumed run may have
	// fixed or freed genes since (resume --fix, --free).
	var same []SurrogateObservation
	for _, o := range obs {
		if len(o.Points) > 0 && len(o.Points[0]) == len(c) {
			same = append(same, o)
		}
	}
	m := fitSurrogate(same)
	if m == nil {
		return nil, false
	}
	lo, hi := make([]float64, len(c)), make([]float64, len(c))
	for a := range c {
		lo[a], hi[a] = math.Max(c[a]-trust[a], 0), math.Min(c[a]+trust[a], 1)
	}
	return fromUnit(l, m.best(c, lo, hi)), true
}

// breedSurrogate makes the last of next (a generation bred from ranked, best first) the
// surrogate model's child, fitted to window, where c's surrogate is on, the window holds
// two generations or more, the last slot is not an elite's and the model fits.
func breedSurrogate(c config.Config, l *genomes.Layout, window []SurrogateObservation, ranked, next []*genomes.Genome) {
	n := len(next)
	if c.Surrogate != config.SurrogateOn || len(window) < 2 || n-1 < c.Elite || len(ranked) == 0 {
		return
	}
	if x, ok := SurrogateChild(l, window, ranked, SurrogateTrust(l, c.Mutation)); ok {
		kid := next[n-1]
		kid.X, kid.Op, kid.Parents = x, OpSurrogate, []string{ranked[0].ID}
	}
}

// SurrogateTrust is the trust region's half-width for each free gene of l in unit
// coordinates: two mutation steps (LinearSigma of the range, LogSigma of the log range).
func SurrogateTrust(l *genomes.Layout, mu genomes.Mutation) []float64 {
	var t []float64
	for _, g := range l.Genes {
		if g.Fixed {
			continue
		}
		s := mu.LinearSigma
		if g.Scale == genomes.Log && g.Min > 0 && g.Max > g.Min {
			s = mu.LogSigma / math.Log(g.Max/g.Min)
		}
		t = append(t, 2*s)
	}
	return t
}
