package tuner

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"evotune/genomes"
)

// randomSearch is a fifth search method, for tests only, written as a new method is: one
// askTeller on the run loop, its constructor, and one line of Methods (withRandomSearch).
// Generation k draws randomCandidates genomes uniformly over the layout; they play the
// champion as it stood after generation k − 2 (two generations in play at once: Window),
// and the best of them becomes the champion when it scored above ½ against it. Its method
// state is the champion after each generation.
type randomSearch struct {
	a      *methodEnv
	next   int              // the next generation asked
	champs []randomChampion // the champion after each told generation
	// toldAt is, for each round asked by this process, how many generations were told then.
	toldAt []int
}

type randomChampion struct {
	ID    string             `json:"id"`
	Genes map[string]float64 `json:"genes"`
}

const randomCandidates = 3

func newRandomSearch(a *methodEnv) (askTeller, error) { return &randomSearch{a: a}, nil }

func (m *randomSearch) Window() int { return 2 }

// playing is the champion generation k's candidates play: the one after generation k − 2,
// the layout's defaults before.
func (m *randomSearch) playing(k int) (*genomes.Genome, error) {
	l := m.a.Layout
	if k < 2 {
		return &genomes.Genome{Layout: l, X: l.Defaults(), ID: m.a.IndividualID(0, randomCandidates)}, nil
	}
	if k-2 >= len(m.champs) {
		return nil, fmt.Errorf("round %d asked before generation %d was told", k, k-2)
	}
	c := m.champs[k-2]
	x, err := l.FromNamed(c.Genes)
	if err != nil {
		return nil, err
	}
	return &genomes.Genome{Layout: l, X: x, ID: c.ID}, nil
}

func (m *randomSearch) Ask() (*round, error) {
	k := m.next
	if g := m.a.Config.Generations; g > 0 && k > g {
		return nil, nil
	}
	m.toldAt = append(m.toldAt, len(m.champs))
	champ, err := m.playing(k)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewSource(int64(m.a.Rand(k, streamGA).Uint64() >> 1)))
	m.next++
	r := &round{Gen: k, Draw: k, Opponents: []*genomes.Genome{champ}, Pairs: m.a.Config.Games / 2, Label: fmt.Sprintf("generation %d", k)}
	for i := 0; i < randomCandidates; i++ {
		r.Players = append(r.Players, &genomes.Genome{Layout: m.a.Layout, X: m.a.Layout.Random(rng), ID: m.a.IndividualID(k, i), Op: genomes.OpInitial, Parents: []string{champ.ID}, Born: k})
	}
	return r, nil
}

func (m *randomSearch) Tell(r *round) (*told, error) {
	l, opp := m.a.Layout, r.Opponents[0]
	ranked := slices.Clone(r.Players)
	sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].Stats.Score() > ranked[b].Stats.Score() })
	champ := opp
	if ranked[0].Stats.Score() > 0.5 {
		champ = ranked[0]
	}
	c := randomChampion{ID: champ.ID, Genes: l.Named(champ.X)}
	m.champs = append(m.champs, c)
	rec := GenerationRecord{Best: ranked[0].ID, Champion: champ.ID, Opponents: []string{opp.ID}}
	if r.Gen == 0 {
		rec.NewGenomes = append(rec.NewGenomes, GenomeRecord{ID: opp.ID, Operator: genomes.OpBaseline, Genes: l.Named(opp.X)})
	}
	rec.FitMin, rec.FitMax = math.Inf(1), math.Inf(-1)
	for i, g := range ranked {
		f := 1 - g.Stats.Score()
		rec.NewGenomes = append(rec.NewGenomes, GenomeRecord{ID: g.ID, Born: g.Born, Operator: g.Op, Parents: g.Parents, Genes: l.Named(g.X)})
		rec.Individuals = append(rec.Individuals, IndividualRecord{ID: g.ID, Rank: i + 1, Fitness: f, Stats: g.Stats})
		rec.FitMin, rec.FitMax, rec.FitMean = math.Min(rec.FitMin, f), math.Max(rec.FitMax, f), rec.FitMean+f/float64(len(ranked))
	}
	return &told{Record: rec, State: func() any { return c }, Champion: leader{ID: champ.ID, Genes: champ.X, Score: math.NaN()},
		BestPlayer: ranked[0].ID, BestScore: ranked[0].Stats.Score(), MeanScore: 1 - rec.FitMean}, nil
}

func (m *randomSearch) Restore(st ResumeState) (leader, error) {
	for k, raw := range st.MethodStates {
		var c randomChampion
		if err := decodeState(raw, &c); err != nil {
			return leader{}, fmt.Errorf("resume: random search generation %d: %w", k, err)
		}
		m.champs = append(m.champs, c)
	}
	m.next = st.LastGeneration + 1
	if len(m.champs) != st.LastGeneration+1 {
		return leader{}, fmt.Errorf("resume: %d states for %d generations", len(m.champs), st.LastGeneration+1)
	}
	c := m.champs[len(m.champs)-1]
	x, err := m.a.Layout.FromNamed(c.Genes)
	return leader{ID: c.ID, Genes: x, Score: math.NaN()}, err
}

func (m *randomSearch) Describe(length string) (string, []string) {
	return fmt.Sprintf(" by random search: %s", length), nil
}

// withRandomSearch registers the test-only method for the test's duration.
func withRandomSearch(t *testing.T) {
	old := Methods
	t.Cleanup(func() { Methods = old })
	Methods = append(slices.Clone(Methods), MethodSpec{Name: "random", Title: "random search", Generation: "generation", Champion: "the best candidate that beat the champion", Range: "the candidates' range", Saved: "random-search generation", Short: true, best: column("BEST CANDIDATE"), new: askTell(newRandomSearch), Openings: func(c Config) int { return c.Games / 2 }, saved: cmaesSaved, summary: func(s Summary) string { return "champion " + s.Best }})
}

func randomConfig(workers, budget int) Config {
	c := smallConfig("gomoku", workers)
	c.Method, c.Generations, c.BudgetGames, c.VerifyGames = "random", 0, budget, 8
	return c
}

// TestFifthMethodOnTheLoop: a method written as one askTeller runs through the whole run
// loop — validation, storage, budget, verification, resume — with two rounds in play:
// round k is asked when exactly k − 1 generations are told (not k: the loop does not wait
// for round k − 1), the same generations, genomes and games with 1, 2 and 5 workers, and a
// run that crashes after three generations resumes into the uninterrupted run.
func TestFifthMethodOnTheLoop(t *testing.T) {
	withRandomSearch(t)
	const budget = 96 // 3 candidates × 2 pairs × 2 colours = 12 games a generation
	var want string
	var full *memStore
	for _, w := range []int{1, 2, 5} {
		st := &memStore{}
		tu, err := New(randomConfig(w, budget), st, nil, "test")
		if err != nil {
			t.Fatal(err)
		}
		sum, err := tu.Run(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		m := tu.method.(*loopMethod).m.(*randomSearch)
		for k, told := range m.toldAt {
			if want := max(0, k-1); told != want {
				t.Fatalf("%d workers: round %d asked with %d generations told, want %d (two rounds in play)", w, k, told, want)
			}
		}
		if sum.Games < budget || sum.Games >= budget+12 || len(st.gens) != sum.Generations || sum.Generations != budget/12 {
			t.Fatalf("%d workers: %d games in %d generations (%d saved), budget %d", w, sum.Games, sum.Generations, len(st.gens), budget)
		}
		if sum.Verification == nil || sum.Verification.Champion != st.gens[len(st.gens)-1].Champion {
			t.Fatalf("%d workers: verification %+v, last champion %s", w, sum.Verification, st.gens[len(st.gens)-1].Champion)
		}
		for _, g := range st.gens {
			if len(g.GameResults) == 0 || len(g.Openings) != 2 || g.Games != 12 {
				t.Fatalf("%d workers: generation %d: %d game rows, %d openings, %d games", w, g.Generation, len(g.GameResults), len(g.Openings), g.Games)
			}
		}
		got := fingerprint(st.gens)
		if want == "" {
			want, full = got, st
		} else if got != want {
			t.Fatalf("%d workers differ from 1:\n%s\n----\n%s", w, got, want)
		}
	}
	crashAndResume(t, randomConfig(2, budget), full, 3)
}

// TestDrawsAhead: the loop draws the openings of as many rounds ahead as the method may
// have in play, each draw the same as drawn in its turn, keeps the draw taken for rounds
// of the same draw, and drops it once a later draw is taken.
func TestDrawsAhead(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	cfg.Method, cfg.Generations, cfg.BudgetGames = MethodSPSA, 0, 200
	cfg.NewRunDefaults(false)
	cfg.SPSA.Lag = 3
	cfg.Resolve()
	tu, err := New(cfg, &memStore{}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	l, ok := tu.method.(*loopMethod)
	if !ok || l.m.Window() != 4 {
		t.Fatalf("SPSA with lag 3: %T, want the run loop with window 4", tu.method)
	}
	for d := range 3 {
		os, err := l.draw(&round{Draw: d, Pairs: 5}, streamOpenings)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := tu.tuningOpenings(5, tu.rngV2(d, streamOpenings), nil)
		if fmt.Sprint(os) != fmt.Sprint(want) {
			t.Fatalf("draw %d: %v, drawn in its turn %v", d, os, want)
		}
		var ahead []int
		for k, a := range l.ahead {
			<-a.done
			ahead = append(ahead, k.gen)
			if in, _ := tu.tuningOpenings(5, tu.rngV2(k.gen, streamOpenings), nil); fmt.Sprint(a.os) != fmt.Sprint(in) {
				t.Fatalf("draw %d made ahead: %v, drawn in its turn %v", k.gen, a.os, in)
			}
		}
		sort.Ints(ahead)
		if fmt.Sprint(ahead) != fmt.Sprint([]int{d, d + 1, d + 2, d + 3, d + 4}) {
			t.Fatalf("after draw %d the draws kept are %v, want it (for rounds of the same draw) and the next 4", d, ahead)
		}
	}
}
