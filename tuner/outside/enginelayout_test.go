package outside

import (
	"strings"
	"testing"

	"evotune/engine/protocol/uci"
	"evotune/genomes"
)

// TestEngineLayout: a layout from a UCI engine's option lines — spin options become whole
// genes with their ranges, engine settings are fixed unless named, unusable lines are left
// out with the reason, and bad names are refused.
func TestEngineLayout(t *testing.T) {
	var declared []uci.Option
	for _, l := range []string{
		"option name Hash type spin default 16 min 1 max 1024",
		"option name PawnValue type spin default 100 min 0 max 200",
		"option name King Safety type spin default 250 min 0 max 100",
		"option name Flat type spin default 3 min 3 max 3",
		"option name NoRange type spin default 5",
		"option name Ponder type check default false",
	} {
		o, ok := uci.ParseOption(l)
		if !ok {
			t.Fatalf("ParseOption(%q) failed", l)
		}
		declared = append(declared, o)
	}
	lf, leftOut, err := EngineLayout(declared, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]genomes.GeneSpec{}
	for _, g := range lf.Genes {
		byName[g.Name] = g
	}
	if len(lf.Genes) != 3 || len(leftOut) != 2 {
		t.Fatalf("genes %+v, left out %q; want Hash, PawnValue and King Safety, two left out", lf.Genes, leftOut)
	}
	if h := byName["Hash"]; !h.Fixed || h.Min != 1 || h.Max != 1024 || h.Default != 16 || !h.Integer {
		t.Errorf("Hash: %+v, want a fixed whole gene 1–1024 at 16", h)
	}
	if p := byName["PawnValue"]; p.Fixed || p.Default != 100 || p.Option != "" {
		t.Errorf("PawnValue: %+v, want a free gene at 100 named as the option", p)
	}
	ks, ok := byName[genomes.SafeGeneName("King Safety")]
	if !ok || ks.Option != "King Safety" || ks.Default != 100 {
		t.Errorf("King Safety: %+v, want the option's name kept and its default clamped to max 100", ks)
	}
	if !strings.Contains(strings.Join(leftOut, "\n"), `"Flat": min 3 = max 3`) || !strings.Contains(strings.Join(leftOut, "\n"), `"NoRange"`) {
		t.Errorf("left out: %q", leftOut)
	}
	if _, err := genomes.ParseLayoutFile(lf.YAML(), "test"); err != nil {
		t.Errorf("the layout does not read back: %v", err)
	}
	lf, _, err = EngineLayout(declared, []string{"hash"})
	if err != nil || len(lf.Genes) != 1 || lf.Genes[0].Fixed {
		t.Errorf("named Hash: %+v, %v; want one free gene", lf.Genes, err)
	}
	for names, want := range map[string]string{"Ponder": "is a check option", "Missing": `"Missing": the engine declares no such option`, "Flat": "no spin option to tune"} {
		if _, _, err := EngineLayout(declared, []string{names}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("names %q: %v, want %q", names, err, want)
		}
	}
}
