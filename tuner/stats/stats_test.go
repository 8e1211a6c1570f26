package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestElo(t *testing.T) {
	cases := []struct{ score, elo float64 }{
		{0.5, 0}, {0.75, 190.848}, {0.25, -190.848}, {0.64, 100.0}, {10.0 / 11, 400}, {1, math.Inf(1)}, {0, math.Inf(-1)},
	}
	for _, c := range cases {
		got := Elo(c.score)
		if !(got == c.elo || near(got, c.elo, 0.05)) {
			t.Errorf("Elo(%v) = %v, want %v", c.score, got, c.elo)
		}
	}
}

// TestEstimateByHand checks a trinomial estimate worked out by hand: W=60 D=20 L=20.
// s = 0.7; per-game variance = (60·0.09 + 20·0.04 + 20·0.49)/100 = 0.16; σ_s = 0.04;
// interval 0.7 ± 0.0784 → Elo(0.6216) = 86.2, Elo(0.7784) = 218.3; Elo(0.7) = 147.2.
func TestEstimateByHand(t *testing.T) {
	e, err := Result{Wins: 60, Draws: 20, Losses: 20}.Estimate()
	if err != nil {
		t.Fatal(err)
	}
	if e.Model != "trinomial" || !near(e.Score, 0.7, 1e-12) || !near(e.StdErr, 0.04, 1e-12) ||
		!near(e.Elo, 147.19, 0.01) || !near(e.EloLow, 86.2, 0.1) || !near(e.EloHigh, 218.3, 0.1) {
		t.Fatalf("estimate %+v", e)
	}
	// LOS = Φ(40/√80) = Φ(4.472) ≈ 0.999996.
	if !near(e.LOS, 0.999996, 1e-6) {
		t.Fatalf("LOS %v", e.LOS)
	}
}

// TestPentanomialByHand: 10 pairs [0, 2, 6, 2, 0] (pair means ¼, ½, ¾): mean ½, per-pair
// variance (2·1/16 + 2·1/16)/10 = 0.025, σ = √(0.025/10) = 0.05 → interval ½ ± 0.098 →
// Elo ±69.0 around 0.
func TestPentanomialByHand(t *testing.T) {
	r := Result{Wins: 4, Draws: 12, Losses: 4, Penta: [5]int{0, 2, 6, 2, 0}}
	e, _ := r.Estimate()
	if e.Model != "pentanomial" || e.Pairs != 10 || !near(e.StdErr, 0.05, 1e-12) || e.Elo != 0 ||
		!near(e.EloHigh, 69.0, 0.1) || !near(e.EloLow, -69.0, 0.1) {
		t.Fatalf("estimate %+v", e)
	}
}

func TestEdgeCases(t *testing.T) {
	if _, err := (Result{}).Estimate(); err != ErrNoGames {
		t.Fatalf("zero games: %v", err)
	}
	all, _ := Result{Wins: 10, Penta: [5]int{0, 0, 0, 0, 5}}.Estimate()
	if all.Elo != 1e9 || all.LOS < 0.99 {
		t.Fatalf("all wins: %+v", all)
	}
	lost, _ := Result{Losses: 6}.Estimate()
	if lost.Elo != -1e9 || lost.LOS > 0.01 {
		t.Fatalf("all losses: %+v", lost)
	}
	draws, _ := Result{Draws: 40, Penta: [5]int{0, 0, 20, 0, 0}}.Estimate()
	if draws.Elo != 0 || draws.CI95 != 0 || draws.LOS != 0.5 {
		t.Fatalf("all draws: %+v", draws)
	}
	if llr := DefaultSPRT.LLR(Result{}); llr != 0 {
		t.Fatalf("LLR of nothing = %v", llr)
	}
}

// TestLLRReference checks the normalized SPRT against published fastchess test values
// (trinomial results W, L, D).
func TestLLRReference(t *testing.T) {
	cases := []struct {
		w, l, d    int
		elo0, elo1 float64
		want       float64
	}{
		{36433, 36027, 68692, 0, 2, 0.92},
		{10871, 10650, 20431, -1.75, 0.25, 2.30},
	}
	for _, c := range cases {
		s := SPRT{Elo0: c.elo0, Elo1: c.elo1, Alpha: 0.05, Beta: 0.05}
		got := s.LLR(Result{Wins: c.w, Losses: c.l, Draws: c.d})
		if !near(got, c.want, 0.01*math.Abs(c.want)+0.005) {
			t.Errorf("LLR(W%d L%d D%d, %v..%v) = %.4f, want %.2f", c.w, c.l, c.d, c.elo0, c.elo1, got, c.want)
		}
	}
}

func TestSPRTDirection(t *testing.T) {
	s := DefaultSPRT
	lo, hi := s.Bounds()
	if !near(lo, -2.944, 0.001) || !near(hi, 2.944, 0.001) {
		t.Fatalf("bounds %v %v", lo, hi)
	}
	// 150 pairs scoring 0.71 (t ≈ 0.73 per pair): LLR ≈ N·t̂·t1 ≈ 150·0.73·0.041 ≈ 4 > 2.94.
	// (50 such pairs give only ≈ 1.2: elo1 = 10 is a small step in normalized Elo.)
	strong := Result{Wins: 180, Draws: 60, Losses: 60, Penta: [5]int{6, 12, 42, 30, 60}}
	weak := Result{Wins: 60, Draws: 60, Losses: 180, Penta: [5]int{60, 30, 42, 12, 6}}
	if v := s.Verdict(s.LLR(strong)); v != AcceptH1 {
		t.Fatalf("strong result: LLR %v verdict %s", s.LLR(strong), v)
	}
	if v := s.Verdict(s.LLR(weak)); v != AcceptH0 {
		t.Fatalf("weak result: LLR %v verdict %s", s.LLR(weak), v)
	}
	even := Result{Wins: 5, Draws: 10, Losses: 5, Penta: [5]int{1, 2, 4, 2, 1}}
	if v := s.Verdict(s.LLR(even)); v != Continue {
		t.Fatalf("even short result: verdict %s", v)
	}
}

func TestParseSPRT(t *testing.T) {
	s, err := ParseSPRT("elo0=0,elo1=10,alpha=0.05,beta=0.05")
	if err != nil || s != DefaultSPRT {
		t.Fatalf("%+v %v", s, err)
	}
	s, err = ParseSPRT("elo1=5")
	if err != nil || s.Elo1 != 5 || s.Elo0 != 0 {
		t.Fatalf("%+v %v", s, err)
	}
	for bad, want := range map[string]string{"elo0=5,elo1=1": "elo0", "alpha=0.7": "alpha", "gamma=1": "gamma", "elo1=x": "elo1", "elo1": "key=value"} {
		if _, err := ParseSPRT(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestFormatElo: estimates with an unbounded interval never print as huge numbers, and
// FormatEloCI recovers the same text from the stored half-width.
func TestFormatElo(t *testing.T) {
	num := regexp.MustCompile(`[-+]?[0-9]+(\.[0-9]+)?`)
	cases := []struct {
		r    Result
		want string
	}{
		{Result{Wins: 20, Penta: [5]int{0, 0, 0, 0, 10}}, "all wins"},
		{Result{Losses: 20, Penta: [5]int{10, 0, 0, 0, 0}}, "all losses"},
		{Result{Wins: 11, Draws: 1, Penta: [5]int{0, 0, 0, 1, 5}}, "(95%: > "},
		{Result{Losses: 11, Draws: 1, Penta: [5]int{5, 1, 0, 0, 0}}, "(95%: < "},
		{Result{Wins: 60, Draws: 20, Losses: 40, Penta: [5]int{5, 10, 20, 15, 10}}, " ± "},
	}
	for _, c := range cases {
		e, err := c.r.Estimate()
		if err != nil {
			t.Fatal(err)
		}
		got := FormatElo(e.Elo, e.EloLow, e.EloHigh)
		if !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want it to contain %q (estimate %+v)", c.r, got, c.want, e)
		}
		for _, n := range num.FindAllString(got, -1) {
			if x, _ := strconv.ParseFloat(n, 64); math.Abs(x) > 5000 {
				t.Errorf("%+v: %q prints a huge number", c.r, got)
			}
		}
		if ci := FormatEloCI(e.Elo, e.CI95); ci != got {
			t.Errorf("%+v: FormatEloCI %q, FormatElo %q", c.r, ci, got)
		}
	}
}

// TestEstimateJSON: infinite Elo values are written as null, finite ones as numbers.
func TestEstimateJSON(t *testing.T) {
	all, _ := Result{Wins: 4, Penta: [5]int{0, 0, 0, 0, 2}}.Estimate()
	data, err := json.Marshal(all)
	if err != nil || !strings.Contains(string(data), `"elo":null`) || strings.Contains(string(data), "1e+09") {
		t.Fatalf("all wins: %s %v", data, err)
	}
	mixed, _ := Result{Wins: 60, Draws: 20, Losses: 40, Penta: [5]int{5, 10, 20, 15, 10}}.Estimate()
	data, _ = json.Marshal(mixed)
	var back struct{ Elo, EloCI95 *float64 }
	json.Unmarshal(data, &back)
	if back.Elo == nil || math.Abs(*back.Elo-mixed.Elo) > 1e-9 {
		t.Fatalf("finite estimate: %s", data)
	}
}

// TestWithin: a known linear model with group offsets and noise is recovered within its
// intervals; an inert predictor's interval covers 0; a constant predictor and too few rows
// are refused.
func TestWithin(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var x [][]float64
	var y []float64
	var group []int
	for g := 0; g < 40; g++ {
		offset := rng.NormFloat64() * 5 // what differs between groups must cancel
		for k := 0; k < 10; k++ {
			a, b, c := rng.NormFloat64()*2, rng.NormFloat64(), rng.NormFloat64()*3
			x = append(x, []float64{a, b, c})
			y = append(y, offset+0.5*a-0.25*b+0*c+rng.NormFloat64()*0.1)
			group = append(group, g)
		}
	}
	eff, r2, err := Within(x, y, group)
	if err != nil {
		t.Fatal(err)
	}
	// Per within-group SD: a's SD ≈ 2, so 0.5 per unit ≈ 1.0 per SD; b's ≈ −0.25; c's 0.
	for j, want := range []float64{0.5, -0.25, 0} {
		perUnit := eff[j].Coef / eff[j].SD
		if math.Abs(perUnit-want) > eff[j].CI95/eff[j].SD || eff[j].CI95 <= 0 {
			t.Errorf("predictor %d: %.4f ± %.4f per unit, want %.2f", j, perUnit, eff[j].CI95/eff[j].SD, want)
		}
	}
	if eff[2].Coef-eff[2].CI95 > 0 || eff[2].Coef+eff[2].CI95 < 0 {
		t.Errorf("the inert predictor's interval %.4f ± %.4f misses 0", eff[2].Coef, eff[2].CI95)
	}
	if r2 < 0.9 {
		t.Errorf("R² %.3f for a model with small noise", r2)
	}
	for i := range x {
		x[i] = append(x[i], 7) // constant: no variation inside any group
	}
	if _, _, err := Within(x, y, group); err == nil || !strings.Contains(err.Error(), "predictor 3 does not vary") {
		t.Errorf("constant predictor: %v", err)
	}
	if _, _, err := Within(x[:5], y[:5], group[:5]); err == nil || !strings.Contains(err.Error(), "cannot fit") {
		t.Errorf("too few rows: %v", err)
	}
}

// TestReport: a match's printed result — counts, the estimate with its interval (an
// infinite bound said in words), the SPRT line only with an SPRT.
func TestReport(t *testing.T) {
	r := Result{Wins: 6, Draws: 2, Losses: 2, Penta: [5]int{0, 1, 1, 2, 1}}
	e, err := r.Estimate()
	if err != nil {
		t.Fatal(err)
	}
	text := Report(r, &e, nil, 0, 0, 0, "")
	if !strings.HasPrefix(text, "A: W 6  D 2  L 2   pentanomial (pairs scoring 0, ½, 1, 1½, 2) [0 1 1 2 1]\nscore 0.700  Elo +") || strings.Contains(text, "SPRT") || strings.Count(text, "\n") != 2 {
		t.Errorf("without SPRT:\n%s", text)
	}
	s, _ := ParseSPRT("elo0=0,elo1=10")
	text = Report(r, nil, &s, 1.5, -2.94, 2.94, AcceptH1)
	if !strings.Contains(text, "SPRT elo0=0 elo1=10 alpha=0.05 beta=0.05: LLR 1.50 (-2.94, 2.94) → H1 accepted (A is stronger)\n") || strings.Contains(text, "score") {
		t.Errorf("with SPRT, no estimate:\n%s", text)
	}
	if EloText(2e9) != "+inf" || EloText(-3.25) != "-3.2" && EloText(-3.25) != "-3.3" {
		t.Errorf("EloText: %s %s", EloText(2e9), EloText(-3.25))
	}
}

// TestReversedAndPlus: a result from B's side exchanges wins and losses and reverses the
// pentanomial counts, twice is the result itself; Plus sums game and pair counts.
func TestReversedAndPlus(t *testing.T) {
	r := Result{Wins: 5, Draws: 3, Losses: 2, Penta: [5]int{0, 1, 1, 2, 1}}
	b := r.Reversed()
	if b.Wins != 2 || b.Losses != 5 || b.Draws != 3 || b.Penta != [5]int{1, 2, 1, 1, 0} || b.Reversed() != r {
		t.Fatalf("reversed %+v: %+v", r, b)
	}
	if s := r.Score() + b.Score(); s != 1 {
		t.Errorf("A's and B's scores sum to %v", s)
	}
	sum := r.Plus(b)
	if sum != (Result{Wins: 7, Draws: 6, Losses: 7, Penta: [5]int{1, 3, 2, 3, 1}}) {
		t.Errorf("plus: %+v", sum)
	}
}
