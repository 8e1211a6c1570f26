package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Effect is one predictor's effect in a Within regression: Coef is the change of the
// response per within-group standard deviation (SD) of the predictor, with its standard
// error and the half-width of its 95% interval (Student's t with the residual degrees of
// freedom).
type Effect struct {
	Coef, SE, CI95 float64
	// SD is the predictor's within-group standard deviation, in its own units.
	SD float64
}

// Within fits y ≈ Σ b_j x_j + a_g by ordinary least squares with a constant a_g for each
// group g (the "within" or fixed-effects estimator: each row's x and y minus its group's
// means; Wooldridge, Econometric Analysis of Cross Section and Panel Data, §10.5), and
// returns every predictor's effect per within-group SD and the fit's R² of the demeaned
// data. Rows are x[i] (p predictors each) with response y[i] in group group[i]. What
// differs between groups (each generation's references) cancels; only variation inside
// a group is used. Errors: rows of different lengths, fewer rows than p + groups + 1, a
// predictor that does not vary inside any group (effects[j] is then zero and the error
// names j), or predictors that are collinear.
func Within(x [][]float64, y []float64, group []int) ([]Effect, float64, error) {
	n := len(y)
	if n == 0 || len(x) != n || len(group) != n {
		return nil, 0, fmt.Errorf("within regression: %d rows of predictors, %d responses, %d groups", len(x), n, len(group))
	}
	p := len(x[0])
	for i := range x {
		if len(x[i]) != p {
			return nil, 0, fmt.Errorf("within regression: row %d has %d predictors, row 0 %d", i, len(x[i]), p)
		}
	}
	// Group means.
	type acc struct {
		n  float64
		x  []float64
		yv float64
	}
	means := map[int]*acc{}
	for i := range y {
		a := means[group[i]]
		if a == nil {
			a = &acc{x: make([]float64, p)}
			means[group[i]] = a
		}
		a.n++
		a.yv += y[i]
		for j := range x[i] {
			a.x[j] += x[i][j]
		}
	}
	df := n - p - len(means)
	if df < 1 {
		return nil, 0, fmt.Errorf("within regression: %d rows in %d groups cannot fit %d predictors (need more than %d rows)", n, len(means), p, p+len(means))
	}
	X := mat.NewDense(n, p, nil)
	Y := mat.NewVecDense(n, nil)
	for i := range y {
		a := means[group[i]]
		Y.SetVec(i, y[i]-a.yv/a.n)
		for j := range x[i] {
			X.Set(i, j, x[i][j]-a.x[j]/a.n)
		}
	}
	// Scale each predictor to unit within-group SD.
	sd := make([]float64, p)
	for j := 0; j < p; j++ {
		var ss float64
		for i := 0; i < n; i++ {
			ss += X.At(i, j) * X.At(i, j)
		}
		sd[j] = math.Sqrt(ss / float64(n-len(means)))
		if sd[j] == 0 {
			return nil, 0, fmt.Errorf("within regression: predictor %d does not vary inside any group", j)
		}
		for i := 0; i < n; i++ {
			X.Set(i, j, X.At(i, j)/sd[j])
		}
	}
	var xtx mat.SymDense
	xtx.SymOuterK(1, X.T())
	var chol mat.Cholesky
	if ok := chol.Factorize(&xtx); !ok {
		return nil, 0, errors.New("within regression: the predictors are collinear (one is a combination of others)")
	}
	var xty, beta mat.VecDense
	xty.MulVec(X.T(), Y)
	if err := chol.SolveVecTo(&beta, &xty); err != nil {
		return nil, 0, fmt.Errorf("within regression: %w", err)
	}
	var fit, res mat.VecDense
	fit.MulVec(X, &beta)
	res.SubVec(Y, &fit)
	rss := mat.Dot(&res, &res)
	tss := mat.Dot(Y, Y)
	sigma2 := rss / float64(df)
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return nil, 0, fmt.Errorf("within regression: %w", err)
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
	out := make([]Effect, p)
	for j := range out {
		se := math.Sqrt(sigma2 * inv.At(j, j))
		out[j] = Effect{Coef: beta.AtVec(j), SE: se, CI95: t * se, SD: sd[j]}
	}
	r2 := 0.0
	if tss > 0 {
		r2 = 1 - rss/tss
	}
	return out, r2, nil
}
