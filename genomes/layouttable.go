package genomes

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// TableGene is a gene as `weights layout --json` lists it: the gene and its scale's name.
type TableGene struct {
	Gene
	Scale string `json:"scale"`
}

// Table is every gene of l with its scale named (`weights layout --json`).
func (l *Layout) Table() []TableGene {
	var genes []TableGene
	for _, g := range l.Genes {
		genes = append(genes, TableGene{g, g.Scale.String()})
	}
	return genes
}

// TableText is the genes of l as `weights layout` prints them: a row per gene with its
// bounds, the paper's value, its scale, whether it is tuned (fixed; whole numbers) and
// its note.
func (l *Layout) TableText() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GENE\tMIN\tMAX\tPAPER\tSCALE\tTUNED\tNOTE")
	for _, g := range l.Genes {
		tuned := "yes"
		if g.Fixed {
			tuned = "fixed"
		}
		if g.Integer {
			tuned += ", whole"
		}
		fmt.Fprintf(tw, "%s\t%g\t%g\t%g\t%s\t%s\t%s\n", g.Name, g.Min, g.Max, g.Default, g.Scale, tuned, g.Note)
	}
	tw.Flush()
	return b.String()
}
