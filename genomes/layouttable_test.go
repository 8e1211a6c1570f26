package genomes

import (
	"strings"
	"testing"
)

// TestLayoutTable: a row per gene under the header, fixed genes said so, whole-number
// genes marked, and the JSON rows carry each gene's scale by name.
func TestLayoutTable(t *testing.T) {
	for _, name := range Names() {
		e, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(e.Layout.TableText()), "\n")
		if len(lines) != len(e.Layout.Genes)+1 || !strings.HasPrefix(lines[0], "GENE") {
			t.Fatalf("%s: %d lines for %d genes:\n%s", name, len(lines), len(e.Layout.Genes), strings.Join(lines, "\n"))
		}
		rows := e.Layout.Table()
		for i, g := range e.Layout.Genes {
			f := strings.Fields(lines[i+1])
			if f[0] != g.Name || (g.Fixed != (f[5] == "fixed" || f[5] == "fixed,")) || g.Integer != strings.Contains(lines[i+1], "whole") {
				t.Errorf("%s: row %q for gene %+v", name, lines[i+1], g)
			}
			if rows[i].Name != g.Name || rows[i].Scale != g.Scale.String() || rows[i].Scale == "" {
				t.Errorf("%s: JSON row %+v", name, rows[i])
			}
		}
	}
}
