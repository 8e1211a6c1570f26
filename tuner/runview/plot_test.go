package runview

import (
	"strings"
	"testing"

	"evotune/tuner/config"
)

// TestPlotWords: plots speak the run's method — an SPSA run's score plot is θ+ against θ−
// per step, a GA's the generation's best against its references — and a gene's axis reads
// "value − 60", never "− 60".
func TestPlotWords(t *testing.T) {
	spsa, _ := config.LookupMethod(config.MethodSPSA)
	ga, _ := config.LookupMethod(config.MethodGA)
	se, score := 0.05, 0.6
	sv := RunView{Run: RunItem{ID: 1, Name: "s", Game: "gomoku", MethodTerms: &spsa}, Generations: []GenerationPoint{
		{Generation: 0, PlusScore: &score, PlusSE: &se}, {Generation: 1, PlusScore: &score, PlusSE: &se}}}
	p, err := FitnessPlot(sv)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Title.Text, "θ+ against θ− per step") || p.X.Label.Text != "step" {
		t.Fatalf("SPSA plot: title %q, x %q", p.Title.Text, p.X.Label.Text)
	}
	gv := RunView{Run: RunItem{ID: 2, Name: "g", Game: "gomoku", MethodTerms: &ga}, Generations: []GenerationPoint{
		{Generation: 0, BestScore: 0.6, MeanScore: 0.5}, {Generation: 1, BestScore: 0.7, MeanScore: 0.5}}}
	if p, err = FitnessPlot(gv); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Title.Text, "the generation's references") || p.X.Label.Text != "generation" {
		t.Fatalf("GA plot: title %q, x %q", p.Title.Text, p.X.Label.Text)
	}
	x := 80.0
	plots, err := GenePlots(GenesView{Run: RunItem{ID: 3, MethodTerms: &spsa}, Genes: []GeneInfo{{Name: "k", Default: 60, Min: 0, Max: 100, Scale: "linear"}},
		Generations: []int{0, 1}, Best: [][]*float64{{&x, &x}}, Min: [][]*float64{{&x, &x}}, Max: [][]*float64{{&x, &x}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := plots[0].Y.Label.Text; got != "value − 60" || plots[0].X.Label.Text != "step" {
		t.Fatalf("gene plot axes %q, %q", plots[0].X.Label.Text, got)
	}
}
