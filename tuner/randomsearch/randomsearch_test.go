// Package randomsearch_test is a search method written outside the tuner's packages, as a
// user of the library would write one: a type that asks and tells the run loop
// (search.Method) and one registration call (tuner.RegisterMethod). Its tests run it
// through the whole loop — validation, the worker pool, storage in SQLite, the budget,
// verification, a crash and resume from the database.
package randomsearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"evotune/db"
	"evotune/genomes"
	"evotune/tuner"
	"evotune/tuner/config"
	"evotune/tuner/record"
	"evotune/tuner/report"
	"evotune/tuner/runstore"
	"evotune/tuner/search"
)

// randomSearch draws candidates uniformly over the layout: generation k's candidates play
// the champion as it stood after generation k − 2 (two generations in play: Window 2), and
// the best of them becomes the champion when it scored above ½ against it. Its method state
// is the champion after each generation.
type randomSearch struct {
	env    *search.MethodEnv
	next   int              // the next generation asked
	champs []randomChampion // the champion after each told generation
	// toldAt is, for each round asked by this process, how many generations were told then.
	toldAt []int
}

type randomChampion struct {
	ID    string             `json:"id"`
	Genes map[string]float64 `json:"genes"`
}

const (
	candidates = 3
	// stream is the method's random stream of a generation (MethodEnv.Rand).
	stream = 77
)

// made holds the methods the loop made, the latest last, for the tests to read.
var made struct {
	sync.Mutex
	list []*randomSearch
}

func newRandomSearch(env *search.MethodEnv) (search.Method, error) {
	m := &randomSearch{env: env}
	made.Lock()
	made.list = append(made.list, m)
	made.Unlock()
	return m, nil
}

func (m *randomSearch) Window() int { return 2 }

// playing is the champion generation k's candidates play: the one after generation k − 2,
// the layout's defaults before.
func (m *randomSearch) playing(k int) (*genomes.Genome, error) {
	l := m.env.Layout
	if k < 2 {
		return &genomes.Genome{Layout: l, X: l.Defaults(), ID: m.env.IndividualID(0, candidates)}, nil
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

func (m *randomSearch) Ask() (*search.Round, error) {
	k := m.next
	if g := m.env.Config.Generations; g > 0 && k > g {
		return nil, nil
	}
	m.toldAt = append(m.toldAt, len(m.champs))
	champ, err := m.playing(k)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewSource(int64(m.env.Rand(k, stream).Uint64() >> 1)))
	m.next++
	r := &search.Round{Gen: k, Draw: k, Opponents: []*genomes.Genome{champ}, Pairs: m.env.Config.Games / 2, Label: fmt.Sprintf("generation %d", k)}
	for i := range candidates {
		r.Players = append(r.Players, &genomes.Genome{Layout: m.env.Layout, X: m.env.Layout.Random(rng), ID: m.env.IndividualID(k, i),
			Op: genomes.OpInitial, Parents: []string{champ.ID}, Born: k})
	}
	return r, nil
}

func (m *randomSearch) Tell(r *search.Round) (*search.Told, error) {
	l, opp := m.env.Layout, r.Opponents[0]
	ranked := slices.Clone(r.Players)
	sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].Stats.Score() > ranked[b].Stats.Score() })
	champ := opp
	if ranked[0].Stats.Score() > 0.5 {
		champ = ranked[0]
	}
	c := randomChampion{ID: champ.ID, Genes: l.Named(champ.X)}
	m.champs = append(m.champs, c)
	rec := record.GenerationRecord{Best: ranked[0].ID, Champion: champ.ID, Opponents: []string{opp.ID}}
	if r.Gen == 0 {
		rec.NewGenomes = append(rec.NewGenomes, record.GenomeRecord{ID: opp.ID, Operator: genomes.OpBaseline, Genes: l.Named(opp.X)})
	}
	rec.FitMin, rec.FitMax = math.Inf(1), math.Inf(-1)
	for i, g := range ranked {
		f := 1 - g.Stats.Score()
		rec.NewGenomes = append(rec.NewGenomes, record.GenomeRecord{ID: g.ID, Born: g.Born, Operator: g.Op, Parents: g.Parents, Genes: l.Named(g.X)})
		rec.Individuals = append(rec.Individuals, record.IndividualRecord{ID: g.ID, Rank: i + 1, Fitness: f, Stats: g.Stats})
		rec.FitMin, rec.FitMax, rec.FitMean = math.Min(rec.FitMin, f), math.Max(rec.FitMax, f), rec.FitMean+f/float64(len(ranked))
	}
	return &search.Told{Record: rec, State: func() any { return c }, Champion: search.Leader{ID: champ.ID, Genes: champ.X, Score: math.NaN()},
		BestPlayer: ranked[0].ID, BestScore: ranked[0].Stats.Score(), MeanScore: 1 - rec.FitMean}, nil
}

func (m *randomSearch) Restore(st record.ResumeState) (search.Leader, error) {
	for k, raw := range st.MethodStates {
		var c randomChampion
		if err := search.DecodeState(raw, &c); err != nil {
			return search.Leader{}, fmt.Errorf("resume: random search generation %d: %w", k, err)
		}
		m.champs = append(m.champs, c)
	}
	m.next = st.LastGeneration + 1
	if len(m.champs) != st.LastGeneration+1 {
		return search.Leader{}, fmt.Errorf("resume: %d states for %d generations", len(m.champs), st.LastGeneration+1)
	}
	c := m.champs[len(m.champs)-1]
	x, err := m.env.Layout.FromNamed(c.Genes)
	return search.Leader{ID: c.ID, Genes: x, Score: math.NaN()}, err
}

func (m *randomSearch) Describe(length string) (string, []string) {
	return " by random search: " + length, nil
}

func TestMain(m *testing.M) {
	if err := tuner.RegisterMethod(tuner.MethodSpec{Method: config.Method{Name: "random", Title: "random search", Generation: "generation",
		Champion: "the best candidate that beat the champion", Range: "the candidates' range", Saved: "random-search generation", Short: true,
		Heading:  func(config.Config) string { return "BEST CANDIDATE" },
		Openings: func(c config.Config) int { return c.Games / 2 },
		Progress: func(e record.Event) string { return "champion " + e.Champion }},
		Loop: newRandomSearch, Summarise: func(s report.Summary) string { return "champion " + s.Best }}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// recording is the database's store, keeping each saved generation as the loop gave it and
// failing, like a full disk, at generation failAt (0: never).
type recording struct {
	runstore.Store
	failAt int
	mu     sync.Mutex
	gens   []record.GenerationRecord
}

func (s *recording) SaveGeneration(ctx context.Context, g record.GenerationRecord) error {
	if s.failAt > 0 && g.Generation == s.failAt {
		return errors.New("disk full")
	}
	if err := s.Store.SaveGeneration(ctx, g); err != nil {
		return err
	}
	s.mu.Lock()
	s.gens = append(s.gens, g)
	s.mu.Unlock()
	return nil
}

// fingerprint is what must not depend on the number of workers: every generation's
// champion, openings, method state, ranked individuals, new genomes and games.
func fingerprint(gens []record.GenerationRecord) string {
	var sb strings.Builder
	for _, g := range gens {
		fmt.Fprintf(&sb, "gen %d best %s champion %s opp %v open %v state %s\n", g.Generation, g.Best, g.Champion, g.Opponents, g.Openings, g.MethodState)
		for _, in := range g.Individuals {
			fmt.Fprintf(&sb, " %s %d %.6f %+v\n", in.ID, in.Rank, in.Fitness, in.Stats)
		}
		for _, n := range g.NewGenomes {
			genes, _ := json.Marshal(n.Genes)
			fmt.Fprintf(&sb, " new %s %s %v %s\n", n.ID, n.Operator, n.Parents, genes)
		}
		for _, r := range g.GameResults {
			fmt.Fprintf(&sb, " game %s %s %d %v %v %v\n", r.Individual, r.Opponent, r.Opening, r.Colour, r.Score, r.Record.Moves)
		}
	}
	return sb.String()
}

func runConfig(workers, budget int) config.Config {
	c := config.DefaultConfig("gomoku")
	c.Method, c.Generations, c.BudgetGames, c.Games, c.Workers = "random", 0, budget, 4, workers
	c.Depth, c.Width, c.VerifyGames = 1, 4, 8
	return c
}

// open makes a database in the test's directory and a recording store over it.
func open(t *testing.T, name string, cfg config.Config, failAt int) (*db.DB, *recording) {
	t.Helper()
	d, err := db.Open(context.Background(), filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, &recording{Store: runstore.New(d, cfg.AdmitZ), failAt: failAt}
}

// TestMethodOutsideTheTuner: the method registered from this package runs through the run
// loop with two rounds in play — round k asked when exactly k − 1 generations are told —
// and stores the same generations, genomes and games with 1, 2 and 5 workers; its runs
// are verified and listed under its name; a run that fails at generation 3 resumes from
// the database into the uninterrupted run.
func TestMethodOutsideTheTuner(t *testing.T) {
	const budget = 96 // 3 candidates × 2 pairs × 2 colours = 12 games a generation
	if !slices.ContainsFunc(tuner.Methods, func(m tuner.MethodSpec) bool { return m.Name == "random" }) {
		t.Fatal("the registered method is not among tuner.Methods")
	}
	if m, ok := config.LookupMethod("random"); !ok || m.Title != "random search" {
		t.Fatalf("the configuration does not know the registered method: %+v", m)
	}
	var want string
	var full []record.GenerationRecord
	for _, w := range []int{1, 2, 5} {
		cfg := runConfig(w, budget)
		d, st := open(t, fmt.Sprintf("w%d.db", w), cfg, 0)
		tu, err := tuner.New(cfg, st, nil, "test")
		if err != nil {
			t.Fatal(err)
		}
		sum, err := tu.Run(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		made.Lock()
		m := made.list[len(made.list)-1]
		made.Unlock()
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
		run, err := d.Run(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		if run.Status != db.StatusFinished || !strings.Contains(string(run.Config), `"method":"random"`) {
			t.Fatalf("%d workers: stored run status %q, config %s", w, run.Status, run.Config)
		}
		got := fingerprint(st.gens)
		if want == "" {
			want, full = got, st.gens
		} else if got != want {
			t.Fatalf("%d workers differ from 1:\n%s\n----\n%s", w, got, want)
		}
	}

	// A crash at generation 3, then a resume from what the database holds.
	cfg := runConfig(2, budget)
	d, crashed := open(t, "crash.db", cfg, 3)
	tu, err := tuner.New(cfg, crashed, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tu.Run(context.Background(), 0); err == nil || len(crashed.gens) != 3 {
		t.Fatalf("simulated crash at generation 3: %v, %d generations saved", err, len(crashed.gens))
	}
	state, err := runstore.LoadResume(context.Background(), d, 1, cfg.AdmitZ)
	if err != nil {
		t.Fatal(err)
	}
	cont := &recording{Store: runstore.New(d, cfg.AdmitZ)}
	tu2, err := tuner.New(cfg, cont, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tu2.Resume(context.Background(), state); err != nil {
		t.Fatal(err)
	}
	if got, want := fingerprint(cont.gens), fingerprint(full[3:]); got != want {
		t.Fatalf("resumed generations differ from the uninterrupted run's:\n%s\n----\n%s", got, want)
	}
}

// TestRegisterMethodRefuses: a second method of a taken name, a name with other characters
// and a spec without its constructor are refused, each error naming what is wrong.
func TestRegisterMethodRefuses(t *testing.T) {
	ok := tuner.MethodSpec{Method: config.Method{Name: "x", Title: "x", Generation: "generation", Saved: "x",
		Heading: func(config.Config) string { return "" }, Openings: func(config.Config) int { return 1 },
		Progress: func(record.Event) string { return "" }}, Loop: newRandomSearch, Summarise: func(report.Summary) string { return "" }}
	for _, c := range []struct {
		edit func(*tuner.MethodSpec)
		want string
	}{
		{func(s *tuner.MethodSpec) { s.Name = "spsa" }, "a method of that name exists"},
		{func(s *tuner.MethodSpec) { s.Name = "random" }, "a method of that name exists"},
		{func(s *tuner.MethodSpec) { s.Name = "Bad Name" }, "lower-case letters"},
		{func(s *tuner.MethodSpec) { s.Name = "" }, "lower-case letters"},
		{func(s *tuner.MethodSpec) { s.Name = "noloop"; s.Loop = nil }, "MethodSpec.Loop is not set"},
		{func(s *tuner.MethodSpec) { s.Name = "nosummary"; s.Summarise = nil }, "MethodSpec.Summarise is not set"},
	} {
		s := ok
		c.edit(&s)
		before := len(tuner.Methods)
		err := tuner.RegisterMethod(s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("register %q: %v, want an error saying %q", s.Name, err, c.want)
		}
		if len(tuner.Methods) != before {
			t.Errorf("register %q: refused, yet Methods grew to %d", s.Name, len(tuner.Methods))
		}
	}
}
