package steady

import (
	"testing"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/search"
)

// newMethod is the steady-state GA on a small gomoku run of 100 games, as the tuner makes
// it before its first birth.
func newMethod(t *testing.T) *steadyMethod {
	t.Helper()
	c := config.DefaultConfig("gomoku")
	c.Method, c.BudgetGames, c.Generations, c.Workers, c.Depth, c.Width, c.VerifyGames = config.MethodSteady, 100, 0, 1, 1, 4, 0
	c.Population, c.Games = 6, 4
	plan, err := c.Plan()
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(&search.MethodEnv{Layout: plan.Layout, Config: c, RunID: 1})
	if err != nil {
		t.Fatal(err)
	}
	return m.(*steadyMethod)
}

// TestSteadyDecide: a child takes its first parent's slot when it scores more on their
// common games and not otherwise, the parent's record grows by its games either way; a
// child whose parent has left the population replaces the worst member only when it
// scores more than that member's record.
func TestSteadyDecide(t *testing.T) {
	m := newMethod(t)
	member := func(id string, w, d, l int) *genomes.Genome {
		return &genomes.Genome{ID: id, Stats: genomes.Stats{Wins: w, Draws: d, Losses: l}}
	}
	// One opening pair each: the child's two games and the rival's, as the loop credits them.
	decide := func(child, rival string, childWins, rivalWins int) {
		t.Helper()
		bt := &birth{n: 10, child: member(child, childWins, 0, 2-childWins), rival: member(rival, rivalWins, 0, 2-rivalWins)}
		m.pending = append(m.pending, bt)
		if _, err := m.Tell(&search.Round{Players: []*genomes.Genome{bt.child, bt.rival}}); err != nil {
			t.Fatal(err)
		}
	}
	m.pop = []*genomes.Genome{member("A", 3, 0, 1), member("B", 1, 0, 3), member("C", 2, 0, 2)}
	decide("X", "A", 2, 1) // 2 of 2 against 1 of 2: X takes A's slot
	if m.pop[0].ID != "X" || m.pop[0].Stats.Wins != 2 {
		t.Fatalf("after X: %s %+v", m.pop[0].ID, m.pop[0].Stats)
	}
	decide("Y", "C", 1, 1) // equal: C stays, with 2 more games
	if m.pop[2].ID != "C" || m.pop[2].Stats.Games() != 6 {
		t.Fatalf("after Y: %s %+v", m.pop[2].ID, m.pop[2].Stats)
	}
	decide("Z", "A", 1, 0) // A left: Z (0.5) replaces the worst, B (0.25)
	if m.pop[1].ID != "Z" {
		t.Fatalf("after Z: slot 1 is %s", m.pop[1].ID)
	}
	decide("V", "A", 0, 2) // A left: V (0) does not beat the worst, Z (0.5)
	for _, g := range m.pop {
		if g.ID == "V" {
			t.Fatal("V, scoring 0, entered the population")
		}
	}
	if m.decided != 4 || len(m.genBorn) != 4 || len(m.pending) != 0 {
		t.Fatalf("%d births decided, %d born, %d pending", m.decided, len(m.genBorn), len(m.pending))
	}
}
