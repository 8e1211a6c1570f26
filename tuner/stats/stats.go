// Package stats is the match statistics the chess engine testing world uses (fishtest,
// fastchess, cutechess-cli): score, Elo with a 95% confidence interval from trinomial or
// pentanomial results, likelihood of superiority (LOS), and the sequential probability
// ratio test (SPRT) on normalized Elo with the generalized (multinomial) likelihood ratio
// of Michel Van den Bergh, as fishtest computes it.
//
// Results are always from one player's side (A). A game scores 1, ½ or 0; a pair of games
// from one opening with colours swapped scores 0, ½, 1, 1½ or 2 (pentanomial). The
// variance of the score is taken from pairs when pairs are known: two games of a pair are
// correlated (same opening), so the trinomial variance understates the error.
package stats

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Z95 is the two-sided 95% normal quantile.
const Z95 = 1.959963984540054

// NEloPerT converts a t-value (score excess over ½ in standard deviations per game) to
// normalized Elo: 800/ln 10 (fishtest's nelo_divided_by_nt).
const NEloPerT = 800 / math.Ln10

// Result is a match record from A's side: games won, drawn, lost, and the colour-swapped
// pairs by A's pair score 0, ½, 1, 1½, 2 (Penta; all zero if games were not paired).
type Result struct {
	Wins   int    `json:"wins"`
	Draws  int    `json:"draws"`
	Losses int    `json:"losses"`
	Penta  [5]int `json:"penta"`
}

// Games is W + D + L.
func (r Result) Games() int { return r.Wins + r.Draws + r.Losses }

// Pairs is the number of recorded game pairs.
func (r Result) Pairs() int {
	n := 0
	for _, c := range r.Penta {
		n += c
	}
	return n
}

// Reversed is r from B's side: wins and losses exchanged, the pentanomial counts in
// reverse order (A's pair score 2 is B's 0).
func (r Result) Reversed() Result {
	out := Result{Wins: r.Losses, Draws: r.Draws, Losses: r.Wins}
	for i, c := range r.Penta {
		out.Penta[4-i] = c
	}
	return out
}

// Plus is r and o together: a player's record against several opponents, summed game by
// game and pair by pair (as a tournament ranks each engine against the field).
func (r Result) Plus(o Result) Result {
	r.Wins, r.Draws, r.Losses = r.Wins+o.Wins, r.Draws+o.Draws, r.Losses+o.Losses
	for i, c := range o.Penta {
		r.Penta[i] += c
	}
	return r
}

// Score is (W + D/2)/N; NaN with no games.
func (r Result) Score() float64 {
	if r.Games() == 0 {
		return math.NaN()
	}
	return (float64(r.Wins) + float64(r.Draws)/2) / float64(r.Games())
}

// Elo converts a score in (0, 1) to an Elo difference: −400·log10(1/s − 1). A score of 1
// gives +Inf, 0 gives −Inf.
func Elo(score float64) float64 {
	return -400 * math.Log10(1/score-1)
}

// Estimate is a match's Elo estimate.
type Estimate struct {
	Games int     `json:"games"`
	Pairs int     `json:"pairs"`
	Score float64 `json:"score"`
	// StdErr is the standard error of the score (per-game scale).
	StdErr float64 `json:"score_stderr"`
	// Elo and its 95% interval [EloLow, EloHigh]; CI95 is half the interval's width.
	// Infinite values (all wins or all losses) are held as ±1e9 (see FormatElo) and
	// written as null in JSON.
	Elo     float64 `json:"elo"`
	EloLow  float64 `json:"elo_low"`
	EloHigh float64 `json:"elo_high"`
	CI95    float64 `json:"elo_ci95"`
	// LOS is the likelihood of superiority: P(A stronger than B) from wins and losses.
	LOS float64 `json:"los"`
	// Model is "pentanomial" when pairs were recorded, else "trinomial".
	Model string `json:"model"`
}

// MarshalJSON writes an estimate with null for an infinite Elo, bound or half-width (all
// wins or all losses, or an interval that reaches a score of 0 or 1), never ±1e9.
func (e Estimate) MarshalJSON() ([]byte, error) {
	num := func(x float64) *float64 {
		if math.Abs(x) >= infElo || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	return json.Marshal(struct {
		Games   int      `json:"games"`
		Pairs   int      `json:"pairs"`
		Score   float64  `json:"score"`
		StdErr  float64  `json:"score_stderr"`
		Elo     *float64 `json:"elo"`
		EloLow  *float64 `json:"elo_low"`
		EloHigh *float64 `json:"elo_high"`
		CI95    *float64 `json:"elo_ci95"`
		LOS     float64  `json:"los"`
		Model   string   `json:"model"`
	}{e.Games, e.Pairs, e.Score, e.StdErr, num(e.Elo), num(e.EloLow), num(e.EloHigh), num(e.CI95), e.LOS, e.Model})
}

// ErrNoGames is returned for an empty result.
var ErrNoGames = errors.New("no games played")

// finite maps ±Inf to ±1e9 so estimates encode as JSON.
func finite(x float64) float64 {
	switch {
	case x == 0:
		return 0 // no negative zero in reports
	case math.IsInf(x, 1):
		return 1e9
	case math.IsInf(x, -1):
		return -1e9
	}
	return x
}

// Finite is x as a JSON number of an Elo, bound or half-width: nil where it stands for an
// infinite value (|x| ≥ 10⁸: ±1e9 stored for ±∞, or a half-width with an infinite end, 5·10⁸),
// or is not a number.
func Finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) >= infElo/10 {
		return nil
	}
	return &x
}

// infElo is how ±infinity is stored (see finite); values at or beyond it are infinite.
const infElo = 1e9

// FormatElo writes an Elo estimate and its 95% interval [lo, hi] as people read it, never
// as a huge number: "+35.2 ± 40.1"; "+240.8 (95%: > +120.3)" when the interval is
// unbounded above (the upper end reaches a score of 1), "-240.8 (95%: < -120.3)" below;
// "all wins (95%: > +120.3)", "all losses (95%: < -120.3)", "all wins" with no finite
// bound, "+0.0 (95%: unbounded, too few games)". ±1e9 stand for ±infinity.
func FormatElo(elo, lo, hi float64) string {
	loInf, hiInf := lo <= -infElo, hi >= infElo
	switch {
	case elo >= infElo && (lo >= infElo || loInf):
		return "all wins"
	case elo >= infElo:
		return fmt.Sprintf("all wins (95%%: > %+.1f)", lo)
	case elo <= -infElo && (hi <= -infElo || hiInf):
		return "all losses"
	case elo <= -infElo:
		return fmt.Sprintf("all losses (95%%: < %+.1f)", hi)
	case loInf && hiInf:
		return fmt.Sprintf("%+.1f (95%%: unbounded, too few games)", elo)
	case hiInf:
		return fmt.Sprintf("%+.1f (95%%: > %+.1f)", elo, lo)
	case loInf:
		return fmt.Sprintf("%+.1f (95%%: < %+.1f)", elo, hi)
	}
	return fmt.Sprintf("%+.1f ± %.1f", elo, (hi-lo)/2)
}

// FormatEloCI is FormatElo for a stored estimate and half-width ci (Estimate.CI95), where
// an interval unbounded on one side shows as a half-width of ~5e8: the finite end is
// recovered from it (lo = 1e9 − 2·ci above zero, hi = 2·ci − 1e9 below).
func FormatEloCI(elo, ci float64) string {
	lo, hi := elo-ci, elo+ci
	switch {
	case ci >= infElo:
		lo, hi = -infElo, infElo
	case ci >= infElo/10 && elo >= 0:
		lo, hi = infElo-2*ci, infElo
	case ci >= infElo/10:
		lo, hi = -infElo, 2*ci-infElo
	}
	return FormatElo(elo, lo, hi)
}

// Estimate computes score, Elo ± 95% CI and LOS. With recorded pairs the score variance is
// the pentanomial one (per pair, divided by the number of pairs), otherwise trinomial.
func (r Result) Estimate() (Estimate, error) {
	n := r.Games()
	if n == 0 {
		return Estimate{}, ErrNoGames
	}
	e := Estimate{Games: n, Pairs: r.Pairs(), Score: r.Score(), LOS: LOS(r.Wins, r.Losses)}
	mu, variance, count := r.pdfStats()
	e.Model = "trinomial"
	if r.Pairs() > 0 {
		e.Model = "pentanomial"
	}
	_ = mu
	// Standard error of the per-game score: per-pair variance of the pair mean / pairs,
	// or per-game variance / games.
	e.StdErr = math.Sqrt(variance / count)
	e.Elo = finite(Elo(e.Score))
	lo, hi := e.Score-Z95*e.StdErr, e.Score+Z95*e.StdErr
	e.EloLow, e.EloHigh = finite(Elo(math.Max(lo, 0))), finite(Elo(math.Min(hi, 1)))
	e.CI95 = (e.EloHigh - e.EloLow) / 2
	return e, nil
}

// pdfStats returns the mean and variance of the per-game score distribution (of the pair
// mean when pairs are known) and the number of samples.
func (r Result) pdfStats() (mu, variance, count float64) {
	pdf, count := r.pdf(false)
	for _, p := range pdf {
		mu += p.a * p.p
	}
	for _, p := range pdf {
		variance += p.p * (p.a - mu) * (p.a - mu)
	}
	return mu, variance, count
}

type point struct{ a, p float64 }

// pdf is the empirical distribution of the per-game score (pairs: 0, ¼, ½, ¾, 1; games:
// 0, ½, 1). With regularize, zero counts become 1e-3 (fishtest), so that every outcome
// has positive probability in likelihood computations.
func (r Result) pdf(regularize bool) ([]point, float64) {
	var counts []float64
	if r.Pairs() > 0 {
		for _, c := range r.Penta {
			counts = append(counts, float64(c))
		}
	} else {
		counts = []float64{float64(r.Losses), float64(r.Draws), float64(r.Wins)}
	}
	var total float64
	for i := range counts {
		if regularize && counts[i] == 0 {
			counts[i] = 1e-3
		}
		total += counts[i]
	}
	pdf := make([]point, len(counts))
	for i, c := range counts {
		pdf[i] = point{float64(i) / float64(len(counts)-1), c / total}
	}
	return pdf, total
}

// LOS is the likelihood of superiority from decisive games: Φ((W − L)/√(W + L)); ½ when
// no game was decisive.
func LOS(wins, losses int) float64 {
	if wins+losses == 0 {
		return 0.5
	}
	return 0.5 * (1 + math.Erf(float64(wins-losses)/math.Sqrt(2*float64(wins+losses))))
}

// SPRT is a sequential probability ratio test of H0: normalized Elo = Elo0 against H1:
// normalized Elo = Elo1, with error rates Alpha (false H1) and Beta (false H0).
type SPRT struct {
	Elo0  float64 `json:"elo0"`
	Elo1  float64 `json:"elo1"`
	Alpha float64 `json:"alpha"`
	Beta  float64 `json:"beta"`
}

// DefaultSPRT is elo0 = 0, elo1 = 10, α = β = 0.05.
var DefaultSPRT = SPRT{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}

// ParseSPRT reads "elo0=0,elo1=10,alpha=0.05,beta=0.05"; missing keys keep DefaultSPRT's
// values. Errors name the key.
func ParseSPRT(s string) (SPRT, error) {
	t := DefaultSPRT
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return t, fmt.Errorf("sprt %q: want key=value", kv)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return t, fmt.Errorf("sprt %s: %q is not a number", k, v)
		}
		switch strings.TrimSpace(k) {
		case "elo0":
			t.Elo0 = x
		case "elo1":
			t.Elo1 = x
		case "alpha":
			t.Alpha = x
		case "beta":
			t.Beta = x
		default:
			return t, fmt.Errorf("sprt: unknown key %q (want elo0, elo1, alpha, beta)", k)
		}
	}
	return t, t.Validate()
}

// Validate checks elo0 < elo1 and 0 < α, β < ½.
func (t SPRT) Validate() error {
	switch {
	case !(t.Elo0 < t.Elo1):
		return fmt.Errorf("sprt: elo0 (%g) must be below elo1 (%g)", t.Elo0, t.Elo1)
	case t.Alpha <= 0 || t.Alpha >= 0.5:
		return fmt.Errorf("sprt: alpha %g is not in (0, 0.5)", t.Alpha)
	case t.Beta <= 0 || t.Beta >= 0.5:
		return fmt.Errorf("sprt: beta %g is not in (0, 0.5)", t.Beta)
	}
	return nil
}

// Bounds are the LLR thresholds: ln(β/(1−α)) below which H0 is accepted and ln((1−β)/α)
// above which H1 is accepted.
func (t SPRT) Bounds() (lower, upper float64) {
	return math.Log(t.Beta / (1 - t.Alpha)), math.Log((1 - t.Beta) / t.Alpha)
}

// Verdicts of an SPRT.
const (
	AcceptH0 = "H0"
	AcceptH1 = "H1"
	Continue = "continue"
)

// Verdict returns AcceptH0, AcceptH1 or Continue for an LLR.
func (t SPRT) Verdict(llr float64) string {
	lo, hi := t.Bounds()
	switch {
	case llr <= lo:
		return AcceptH0
	case llr >= hi:
		return AcceptH1
	}
	return Continue
}

// LLR is the generalized log-likelihood ratio of H1 against H0 for normalized Elo
// (fishtest's LLR_normalized): the empirical outcome distribution (regularized) is
// compared with the maximum-likelihood distributions whose t-value (mean − ½)/σ equals
// nElo/(800/ln 10), times √2 for pairs (a pair's score is the mean of two games). The
// result is that number of samples times Σ p̂_i·ln(p1_i/p0_i). Zero games give 0.
func (t SPRT) LLR(r Result) float64 {
	if r.Games() == 0 {
		return 0
	}
	pdf, count := r.pdf(true)
	t0, t1 := t.Elo0/NEloPerT, t.Elo1/NEloPerT
	if r.Pairs() > 0 {
		t0, t1 = t0*math.Sqrt2, t1*math.Sqrt2
	}
	p0 := mleTValue(pdf, 0.5, t0)
	p1 := mleTValue(pdf, 0.5, t1)
	var llr float64
	for i, p := range pdf {
		llr += p.p * (math.Log(p1[i].p) - math.Log(p0[i].p))
	}
	return count * llr
}

func moments(pdf []point) (mu, variance float64) {
	for _, p := range pdf {
		mu += p.a * p.p
	}
	for _, p := range pdf {
		variance += p.p * (p.a - mu) * (p.a - mu)
	}
	return mu, variance
}

// mleTValue is the maximum-likelihood distribution on pdf's outcomes whose t-value
// (mean − ref)/σ is s, found by the fixed-point iteration of fishtest's MLE_t_value.
func mleTValue(pdfhat []point, ref, s float64) []point {
	n := len(pdfhat)
	mle := make([]point, n)
	for i := range mle {
		mle[i] = point{pdfhat[i].a, 1 / float64(n)}
	}
	for iter := 0; iter < 50; iter++ {
		prev := append([]point(nil), mle...)
		mu, variance := moments(mle)
		sigma := math.Sqrt(variance)
		shifted := make([]point, n)
		for i, p := range pdfhat {
			shifted[i] = point{p.a - ref - s*sigma*(1+((mu-p.a)/sigma)*((mu-p.a)/sigma))/2, p.p}
		}
		x := secular(shifted)
		for i, p := range pdfhat {
			mle[i] = point{p.a, p.p / (1 + x*shifted[i].a)}
		}
		diff := 0.0
		for i := range mle {
			diff = math.Max(diff, math.Abs(prev[i].p-mle[i].p))
		}
		if diff < 1e-12 {
			break
		}
	}
	return mle
}

// secular solves Σ p_i·a_i/(1 + x·a_i) = 0 for x with every 1 + x·a_i > 0, by bisection
// (the function is decreasing in x on that interval).
func secular(pdf []point) float64 {
	v, w := math.Inf(1), math.Inf(-1)
	for _, p := range pdf {
		v, w = math.Min(v, p.a), math.Max(w, p.a)
	}
	if !(v < 0 && w > 0) {
		return 0 // no sign change: the constraint is met only at the boundary
	}
	const eps = 1e-9
	lo, hi := -1/w+eps, -1/v-eps
	f := func(x float64) float64 {
		var s float64
		for _, p := range pdf {
			s += p.p * p.a / (1 + x*p.a)
		}
		return s
	}
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// Report is a match's result as match and verify print it: A's W/D/L and pentanomial
// counts, the score, Elo with its 95% interval and LOS (e nil: not estimated), and the
// SPRT's LLR, bounds and verdict (sprt nil: none); each line ends with a newline.
func Report(r Result, e *Estimate, sprt *SPRT, llr, lo, hi float64, verdict string) string {
	var out strings.Builder
	fmt.Fprintf(&out, "A: W %d  D %d  L %d   pentanomial (pairs scoring 0, ½, 1, 1½, 2) %v\n", r.Wins, r.Draws, r.Losses, r.Penta)
	if e != nil {
		interval := fmt.Sprintf(" (95%%: %s … %s, %s)", EloText(e.EloLow), EloText(e.EloHigh), e.Model)
		if math.Abs(e.EloLow) >= 1e9 || math.Abs(e.EloHigh) >= 1e9 {
			interval = " (" + e.Model + ")" // FormatElo states the finite bound
		}
		fmt.Fprintf(&out, "score %.3f  Elo %s%s  LOS %.1f%%\n", e.Score, FormatElo(e.Elo, e.EloLow, e.EloHigh), interval, 100*e.LOS)
	}
	if sprt != nil {
		fmt.Fprintf(&out, "SPRT elo0=%g elo1=%g alpha=%g beta=%g: LLR %.2f (%.2f, %.2f) → %s\n",
			sprt.Elo0, sprt.Elo1, sprt.Alpha, sprt.Beta, llr, lo, hi, VerdictText(verdict))
	}
	return out.String()
}

// EloText prints an Elo value ("+12.3"); the estimates' ±1e9 stand for ±infinity.
func EloText(x float64) string {
	switch {
	case x >= 1e9:
		return "+inf"
	case x <= -1e9:
		return "-inf"
	}
	return fmt.Sprintf("%+.1f", x)
}

// VerdictText says what an SPRT verdict (AcceptH0, AcceptH1 or none) means for A.
func VerdictText(v string) string {
	switch v {
	case AcceptH0:
		return "H0 accepted (A is not elo1 stronger)"
	case AcceptH1:
		return "H1 accepted (A is stronger)"
	}
	return "no decision yet"
}
