package genomes

import (
	"testing"
)

// FuzzParseOpenBench: any text is refused, or is a layout file whose genes are valid and
// whose OpenBench list, written back, is read as the same genes.
func FuzzParseOpenBench(f *testing.F) {
	for _, s := range []string{
		"PawnValue, int, 100, 50, 200, 10, 0.002\n",
		"A, float, 0.5, 0.0, 1.0, 0.05, 0.002\n# c\n\nB, int, 3, 1, 5, 1, 0.002\n",
		"X, int, 5, 10, 1, 1, 0.002\n", "Y, int, nan, 0, 1, 1, 1\n", ",,,,,,\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lf, err := ParseOpenBench([]byte(s), "fuzz.txt")
		if err != nil {
			return
		}
		l := lf.Layout()
		var ps []OpenBenchParam
		for _, g := range l.Genes {
			if !(g.Min <= g.Default && g.Default <= g.Max) {
				t.Fatalf("%q: gene %s default %g outside %g–%g", s, g.Name, g.Default, g.Min, g.Max)
			}
			ps = append(ps, OpenBenchParam{Name: g.OptionName(), Float: !g.Integer, Value: g.Default, Min: g.Min, Max: g.Max, CEnd: g.CEnd, REnd: g.REnd})
		}
		back, err := ParseOpenBench(FormatOpenBench(ps), "back.txt")
		if err != nil {
			t.Fatalf("%q: its own list is refused: %v\n%s", s, err, FormatOpenBench(ps))
		}
		if len(back.Layout().Genes) != len(l.Genes) {
			t.Fatalf("%q: %d genes read back as %d", s, len(l.Genes), len(back.Layout().Genes))
		}
	})
}
