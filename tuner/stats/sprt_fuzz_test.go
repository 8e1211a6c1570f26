package stats

import (
	"math"
	"testing"
)

// FuzzParseSPRT: any text is refused, or is an SPRT whose bounds are finite with the lower
// below the upper, and whose LLR of any small result is finite.
func FuzzParseSPRT(f *testing.F) {
	for _, s := range []string{"elo0=0,elo1=10,alpha=0.05,beta=0.05", "elo0=-5,elo1=5", "alpha=1", "elo1=nan", "elo0=1e308,elo1=-1e308", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sprt, err := ParseSPRT(s)
		if err != nil {
			return
		}
		lo, hi := sprt.Bounds()
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo >= hi {
			t.Fatalf("%q: %+v has bounds %g, %g", s, sprt, lo, hi)
		}
		r := Result{Wins: 3, Draws: 2, Losses: 1, Penta: [5]int{0, 1, 1, 1, 0}}
		if llr := sprt.LLR(r); math.IsNaN(llr) || math.IsInf(llr, 0) {
			t.Fatalf("%q: LLR of %+v is %g", s, r, llr)
		}
	})
}
