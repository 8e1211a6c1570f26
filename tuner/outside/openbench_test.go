package outside

import (
	"strings"
	"testing"

	"evotune/genomes"
	"evotune/tuner/config"
)

// TestOpenBenchParamsSteps: a gene without a c_end of its own gets the configuration's
// c_end in its units, written as a person would (0.2 × 2/5 = 0.08, not
// 0.08000000000000002); a gene's own c_end and r_end are kept as they are.
func TestOpenBenchParamsSteps(t *testing.T) {
	genes := []genomes.Gene{
		{Name: "Quiescence_Check_Plies", Option: "Quiescence Check Plies", Min: 0, Max: 2, Default: 1, Integer: true},
		{Name: "Material", Option: "Material", Min: 0, Max: 400, Default: 100, Integer: true, CEnd: 7.123456789012345, REnd: 0.0025},
	}
	sp := config.DefaultConfig("chess").SPSAParams()
	ps := OpenBenchParams(genes, []float64{1, 100}, sp)
	if ps[0].CEnd != 0.08 || ps[0].REnd != sp.REnd {
		t.Errorf("derived c_end %v r_end %v, want 0.08 and %v", ps[0].CEnd, ps[0].REnd, sp.REnd)
	}
	if ps[1].CEnd != 7.123456789012345 || ps[1].REnd != 0.0025 {
		t.Errorf("the gene's own c_end %v r_end %v changed", ps[1].CEnd, ps[1].REnd)
	}
	text := string(genomes.FormatOpenBench(ps))
	if !strings.HasPrefix(text, "Quiescence Check Plies, int, 1, 0, 2, 0.08, ") {
		t.Errorf("written:\n%s", text)
	}
}
