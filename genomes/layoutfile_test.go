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
