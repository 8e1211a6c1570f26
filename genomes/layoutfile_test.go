package genomes

import (
	"strings"
	"testing"
)

// TestLayoutFileRoundTrip: every built-in layout written as a layout file reads back as
// the same genes (names, bounds, defaults, scale, integer, fixed, note).
func TestLayoutFileRoundTrip(t *testing.T) {
	for _, name := range Names() {
		e, _ := Lookup(name)
		data := LayoutFileOf(e.Layout).YAML()
		f, err := ParseLayoutFile(data, name+".yaml")
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, data)
		}
		got := f.Layout()
		if len(got.Genes) != len(e.Layout.Genes) {
			t.Fatalf("%s: %d genes back, want %d", name, len(got.Genes), len(e.Layout.Genes))
		}
		for i, g := range e.Layout.Genes {
			if got.Genes[i] != g {
				t.Errorf("%s gene %d: read back %+v, want %+v", name, i, got.Genes[i], g)
			}
		}
		if _, err := got.Weights(got.Defaults()); err == nil {
			t.Errorf("%s: a layout file's genes must not map to built-in weights by themselves", name)
		}
		w, err := BuiltinWeights(name, got.Named(got.Defaults()))
		if err != nil {
			t.Fatalf("%s: BuiltinWeights of the defaults: %v", name, err)
		}
		x, _ := e.Layout.Vector(w)
		for i, v := range e.Layout.Defaults() {
			if x[i] != v {
				t.Errorf("%s: BuiltinWeights(defaults) gene %s = %g, want the paper's %g", name, e.Layout.Genes[i].Name, x[i], v)
			}
		}
	}
}

// TestLayoutFileErrors: each bad layout is refused with the line and what is wrong.
func TestLayoutFileErrors(t *testing.T) {
	head := "format: evotune.layout/v1\ngame: gomoku\ngenes:\n"
	cases := []struct{ name, body, want string }{
		{"format", "format: v0\ngame: gomoku\ngenes:\n  - {name: a, min: 0, max: 1, default: 0}\n", `line 1: format "v0"`},
		{"game", "format: evotune.layout/v1\ngame: shogi\ngenes:\n  - {name: a, min: 0, max: 1, default: 0}\n", `line 2: game: unknown game "shogi"`},
		{"rule", "format: evotune.layout/v1\ngame: amazons\nrule: renju\ngenes:\n  - {name: a, min: 0, max: 1, default: 0}\n", "line 3: rule: amazons has no rule variants"},
		{"no genes", head, "genes: none"},
		{"unknown key", head + "  - {name: a, min: 0, max: 1, default: 0, step: 2}\n", "field step not found"},
		{"duplicate", head + "  - {name: a, min: 0, max: 1, default: 0}\n  - {name: a, min: 0, max: 2, default: 1}\n", "line 5: genes[1] (a): duplicate name (also on line 4)"},
		{"order", head + "  - {name: a, min: 5, max: 1, default: 2}\n", "line 4: genes[0] (a): min 5 must be below max 1"},
		{"default", head + "  - {name: a, min: 0, max: 1, default: 3}\n", "line 4: genes[0] (a): default 3 outside [0, 1]"},
		{"log", head + "  - {name: a, min: 0, max: 1, default: 0.5, scale: log}\n", "log scale needs min > 0"},
		{"scale", head + "  - {name: a, min: 0, max: 1, default: 0.5, scale: cubic}\n", `scale "cubic"`},
		{"integer", head + "  - {name: a, min: 0, max: 1.5, default: 1, integer: true}\n", "integer gene with a fractional bound"},
		{"name", head + "  - {name: 'a b;rm', min: 0, max: 1, default: 0}\n", `name "a b;rm": want letters`},
		{"nan", head + "  - {name: a, min: 0, max: .nan, default: 0}\n", "must be finite"},
		{"yaml", head + "  - {name: a, min: [\n", "layout bad.yaml:"},
		{"option", head + "  - {name: a, min: 0, max: 1, default: 0, option: \"x\\ny\"}\n", `line 4: genes[0] (a): option "x\ny": want printable`},
		{"option twice", head + "  - {name: a, min: 0, max: 1, default: 0, option: King Safety}\n  - {name: b, min: 0, max: 1, default: 0, option: king safety}\n", `option "king safety" also on line 4`},
		{"c_end", head + "  - {name: a, min: 0, max: 1, default: 0, c_end: -1}\n", "c_end and r_end must be positive"},
	}
	for _, c := range cases {
		_, err := ParseLayoutFile([]byte(c.body), "bad.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
	good := head + "  - {name: attack, min: 0.1, max: 10, default: 1, scale: log}\n  - {name: depth, min: 1, max: 9, default: 3, integer: true}\n"
	f, err := ParseLayoutFile([]byte(good), "good.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if l := f.Layout(); l.Genes[0].Scale != Log || !l.Genes[1].Integer || l.FreeCount() != 2 {
		t.Errorf("good layout read as %+v", l.Genes)
	}
}

// FuzzParseLayoutFile: no input makes the parser panic, and whatever it accepts has
// unique, well-formed genes inside their bounds.
func FuzzParseLayoutFile(f *testing.F) {
	e, _ := Lookup("amazons")
	f.Add(LayoutFileOf(e.Layout).YAML())
	f.Add([]byte("format: evotune.layout/v1\ngame: gomoku\ngenes:\n  - {name: a, min: 0, max: 1, default: 0}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lf, err := ParseLayoutFile(data, "fuzz")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, g := range lf.Genes {
			if seen[g.Name] || !(g.Min < g.Max) || g.Default < g.Min || g.Default > g.Max {
				t.Fatalf("accepted a bad gene %+v", g)
			}
			seen[g.Name] = true
		}
	})
}

// TestLayoutFileEngineNames: a gene's option name (the engine's own, with blanks) and its
// SPSA c_end and r_end survive a layout file's round trip, and the option is what the
// engine is sent.
func TestLayoutFileEngineNames(t *testing.T) {
	text := "format: evotune.layout/v1\ngame: chess\ngenes:\n" +
		"  - {name: King_Safety, min: 0, max: 400, default: 100, scale: linear, integer: true, option: King Safety, c_end: 20, r_end: 0.003}\n" +
		"  - {name: Material, min: 0, max: 400, default: 100, scale: linear, integer: true}\n"
	f, err := ParseLayoutFile([]byte(text), "toga.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(f.YAML()); got != text {
		t.Errorf("written back:\n%s\nwant:\n%s", got, text)
	}
	l := f.Layout()
	if g := l.Genes[0]; g.OptionName() != "King Safety" || g.CEnd != 20 || g.REnd != 0.003 || l.Genes[1].OptionName() != "Material" {
		t.Errorf("genes %+v", l.Genes)
	}
	for in, want := range map[string]string{"King Safety": "King_Safety", "2ndRank": "_2ndRank", "a-b/c": "a_b_c", "": "_", "Bonus.5": "Bonus.5"} {
		if got := SafeGeneName(in); got != want || !geneName.MatchString(got) {
			t.Errorf("SafeGeneName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOpenBench: a parameter list reads as a chess layout (names with blanks kept as the
// genes' options, c_end and r_end per gene), writes back as the same text, and each bad
// line is refused with its number.
func TestOpenBench(t *testing.T) {
	text := "# toga2\nMaterial, int, 60, 0, 400, 20, 0.03\nKing Safety, int, 250, 0, 400, 20, 0.03\nLMRBase, float, 0.75, 0.25, 1.5, 0.05, 0.002\n"
	if !IsOpenBench([]byte(text)) || IsOpenBench([]byte("format: evotune.layout/v1\ngame: chess\n")) {
		t.Fatal("IsOpenBench does not tell the two formats apart")
	}
	f, err := ParseOpenBench([]byte(text), "tune.txt")
	if err != nil {
		t.Fatal(err)
	}
	if f.Game != "chess" || len(f.Genes) != 3 {
		t.Fatalf("read %+v", f)
	}
	g := f.Genes[1]
	if g.Name != "King_Safety" || g.Option != "King Safety" || !g.Integer || g.Default != 250 || g.CEnd != 20 || g.REnd != 0.03 || f.Genes[2].Integer {
		t.Errorf("genes %+v", f.Genes)
	}
	if _, err := ParseLayoutFile(f.YAML(), "as.yaml"); err != nil {
		t.Errorf("its layout file does not read: %v", err)
	}
	l := f.Layout()
	var ps []OpenBenchParam
	for _, g := range l.Genes {
		ps = append(ps, OpenBenchParam{Name: g.OptionName(), Float: !g.Integer, Value: g.Default, Min: g.Min, Max: g.Max, CEnd: g.CEnd, REnd: g.REnd})
	}
	if got, want := string(FormatOpenBench(ps)), strings.TrimPrefix(text, "# toga2\n"); got != want {
		t.Errorf("written back:\n%s\nwant:\n%s", got, want)
	}
	for _, c := range []struct{ body, want string }{
		{"A, int, 1, 0, 2, 1\n", "tune.txt: line 1: 6 fields, want 7"},
		{"A, int, 1, 0, 2, 1, 0.002\nB, int, 1, 0, 2, 1, 0.002, 9\n", "line 2: 8 fields, want 7"},
		{"A, int, 1, 5, 2, 1, 0.002\n", "line 1: A: min 5 must be below max 2"},
		{"A, int, 9, 0, 2, 1, 0.002\n", "line 1: A: value 9 outside [0, 2]"},
		{"A, bool, 1, 0, 2, 1, 0.002\n", `line 1: A: type "bool", want int or float`},
		{"A, int, x, 0, 2, 1, 0.002\n", `line 1: A: value "x" is not a finite number`},
		{"A, int, 1, 0, 2.5, 1, 0.002\n", "an int parameter with a fractional min or max"},
		{"A, int, 1, 0, 2, 0, 0.002\n", "c_end 0 and r_end 0.002 must be above 0"},
		{"A, int, 1, 0, 2, 1, 0.002\n\na, int, 1, 0, 2, 1, 0.002\n", "line 3: a: also on line 1"},
		{"# nothing\n", "no parameters"},
	} {
		if _, err := ParseOpenBench([]byte(c.body), "tune.txt"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
}
