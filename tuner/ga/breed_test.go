package ga

import (
	"fmt"
	"math/rand"
	"testing"

	"evotune/genomes"
	"evotune/tuner/config"
)

// TestBreed: the Elite best survive as clones keeping their IDs; the rest are new, named by
// their slot, bred from the whole pool (larger than the generation for the GA with
// generations in play), with fixed genes at their values; the same stream breeds the same
// generation.
func TestBreed(t *testing.T) {
	l := &genomes.Layout{Genes: []genomes.Gene{
		{Name: "a", Min: 0, Max: 100, Default: 50},
		{Name: "b", Min: 0, Max: 10, Default: 5, Fixed: true},
	}}
	var pool []*genomes.Genome
	for i := range 9 {
		pool = append(pool, &genomes.Genome{Layout: l, ID: fmt.Sprintf("p%d", i), X: []float64{float64(10 * i), 9}, Mutation: genomes.Mutation{GeneRate: 0.5, LinearSigma: 0.2}})
	}
	c := config.Config{}
	c.Elite, c.Tournament, c.CrossoverRate, c.MutationRate = 2, 3, 0.5, 0.5
	breed := func() ([]*genomes.Genome, []*genomes.Genome) {
		return Breed(c, l, pool, 6, 4, rand.New(rand.NewSource(7)), func(slot int) string { return fmt.Sprintf("g4-%d", slot) })
	}
	next, born := breed()
	if len(next) != 6 || len(born) != 4 || next[0].ID != "p0" || next[1].ID != "p1" || next[0] == pool[0] {
		t.Fatalf("next %d (%s, %s), born %d: want 6 with the 2 elites cloned, 4 born", len(next), next[0].ID, next[1].ID, len(born))
	}
	for i, kid := range born {
		if kid.ID != fmt.Sprintf("g4-%d", i+2) || kid.Born != 4 || len(kid.Parents) == 0 || kid.X[1] != 5 {
			t.Errorf("child %d: ID %s, born %d, parents %v, fixed gene %g (want 5)", i, kid.ID, kid.Born, kid.Parents, kid.X[1])
		}
	}
	again, _ := breed()
	for i := range next {
		if fmt.Sprint(next[i].X) != fmt.Sprint(again[i].X) || next[i].ID != again[i].ID {
			t.Errorf("slot %d bred twice from one stream: %v and %v", i, next[i].X, again[i].X)
		}
	}
	if pool[3].X[1] != 9 {
		t.Errorf("the pool changed: %v", pool[3].X)
	}
}
