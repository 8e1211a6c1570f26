package tuner

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/record"
	"evotune/tuner/report"
)

// memStore keeps a run in memory.
type memStore struct {
	mu     sync.Mutex
	gens   []record.GenerationRecord
	status string
	errTxt string
	failAt int // SaveGeneration of this generation fails (0 = never)

	verification *ladder.Verification
	config       string // the run's stored configuration (JSON)
}

func (m *memStore) CreateRun(_ context.Context, r record.RunRecord) (int64, error) {
	m.config = r.Config
	return 1, nil
}
func (m *memStore) SaveGeneration(_ context.Context, g record.GenerationRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.failAt > 0 && g.Generation == m.failAt {
		return fmt.Errorf("disk full")
	}
	m.gens = append(m.gens, g)
	return nil
}
func (m *memStore) SaveVerification(_ context.Context, _ int64, v ladder.Verification) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.verification = &v
	return nil
}
func (m *memStore) SetRunStatus(_ context.Context, _ int64, status, errText string) error {
	m.status, m.errTxt = status, errText
	return nil
}

func smallConfig(game string, workers int) config.Config {
	c := config.DefaultConfig(game)
	c.Method = config.MethodGA
	c.Population, c.Generations, c.Games, c.Workers = 6, 2, 4, workers
	c.Depth, c.Width = 1, 4
	c.VerifyGames = 0
	if game == "amazons" {
		c.Board = 8 // the 8×8 board's 1 232 root moves: the evaluation ranks them all
	}
	return c
}

// fingerprint is everything that must not depend on the number of workers.
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
			fmt.Fprintf(&sb, " game %s %s %d %v %v %d %d %v\n", r.Individual, r.Opponent, r.Opening, r.Colour, r.Score, r.Depth, r.Round, r.Record.Moves)
		}
		if a := g.Admission; a != nil {
			fmt.Fprintf(&sb, " admission %+v\n", *a)
		}
		if c := g.Checkpoint; c != nil {
			fmt.Fprintf(&sb, " checkpoint %s %+v %.3f\n", c.Champion, c.Result, c.Elo)
		}
	}
	return sb.String()
}

func runSmall(t *testing.T, cfg config.Config) *memStore {
	t.Helper()
	st := &memStore{}
	tu, err := New(cfg, st, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tu.Run(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestSameSeedSameRunWhateverWorkers: the same seed and config give the same genomes,
// games and fitness with 1 and 3 workers, for every game.
func TestSameSeedSameRunWhateverWorkers(t *testing.T) {
	for _, game := range shortGames(genomes.Names()) {
		a := runSmall(t, smallConfig(game, 1))
		b := runSmall(t, smallConfig(game, 3))
		if fa, fb := fingerprint(a.gens), fingerprint(b.gens); fa != fb {
			t.Fatalf("%s: 1 and 3 workers differ:\n%s\n----\n%s", game, fa, fb)
		}
		if a.status != "finished" || len(a.gens) != 3 {
			t.Fatalf("%s: status %s with %d generations", game, a.status, len(a.gens))
		}
		other := smallConfig(game, 1)
		other.Seed = 2
		if fingerprint(runSmall(t, other).gens) == fingerprint(a.gens) {
			t.Fatalf("%s: seeds 1 and 2 gave the same run", game)
		}
	}
}

// TestLineageAndAccounting checks the invariants a user relies on in the database.
func TestLineageAndAccounting(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	cfg.Generations, cfg.Population, cfg.Elite = 4, 8, 2
	cfg.Selection = config.SelectionRace // the racing rounds' accounting (peers: TestPeerSelection)
	st := runSmall(t, cfg)
	known := map[string]bool{}
	stats := map[string]genomes.Stats{}
	for _, g := range st.gens {
		for _, n := range g.NewGenomes {
			if known[n.ID] {
				t.Fatalf("gen %d: genome %s born twice", g.Generation, n.ID)
			}
			for _, p := range n.Parents {
				if !known[p] {
					t.Fatalf("gen %d: %s has unknown parent %s", g.Generation, n.ID, p)
				}
			}
			if (n.Operator == genomes.OpBaseline || n.Operator == genomes.OpInitial) != (g.Generation == 0) {
				t.Fatalf("gen %d: operator %s", g.Generation, n.Operator)
			}
			if strings.HasPrefix(n.Operator, genomes.OpCrossover) && len(n.Parents) != 2 {
				t.Fatalf("crossover child %s with parents %v", n.ID, n.Parents)
			}
			known[n.ID] = true
		}
		if len(g.Individuals) != cfg.Population {
			t.Fatalf("gen %d: %d individuals", g.Generation, len(g.Individuals))
		}
		games := map[string]int{}
		for _, r := range g.GameResults {
			if r.Round != record.AdmissionRound {
				games[r.Individual]++
			}
		}
		for i, in := range g.Individuals {
			if !known[in.ID] {
				t.Fatalf("gen %d: individual %s has no genome", g.Generation, in.ID)
			}
			if prev := g.Individuals[max(i-1, 0)]; in.Rank != i+1 || in.Round > prev.Round || (in.Round == prev.Round && in.Fitness < prev.Fitness) {
				t.Fatalf("gen %d: ranks out of order (round, then fitness)", g.Generation)
			}
			// This generation's games only (records are never added across generations);
			// a pair against an identical genome is not played but counts as two draws.
			if want := cfg.Games * (in.Round + 1); in.Stats.Games() != want || games[in.ID] > want {
				t.Fatalf("gen %d: %s has %d games (%d played), want %d", g.Generation, in.ID, in.Stats.Games(), games[in.ID], want)
			}
			pairs := 0
			for _, c := range in.Stats.Penta {
				pairs += c
			}
			if pairs*2 != in.Stats.Games() {
				t.Fatalf("%s: %d pairs for %d games", in.ID, pairs, in.Stats.Games())
			}
			if 1-in.Stats.Score() != in.Fitness {
				t.Fatalf("%s: fitness %v, score %v", in.ID, in.Fitness, in.Stats.Score())
			}
			stats[in.ID] = in.Stats
		}
		// Successive halving: n, then ⌈n/2⌉, ⌈n/4⌉ … individuals reach each round.
		for r, want := 0, cfg.Population; r <= cfg.RaceRounds; r, want = r+1, (want+1)/2 {
			reached := 0
			for _, in := range g.Individuals {
				if in.Round >= r {
					reached++
				}
			}
			if reached != want {
				t.Fatalf("gen %d: %d individuals reached round %d, want %d", g.Generation, reached, r, want)
			}
		}
		if g.Generation > 0 {
			elites := 0
			for _, in := range g.Individuals {
				if !strings.Contains(in.ID, fmt.Sprintf("-g%d-", g.Generation)) {
					elites++
				}
			}
			if elites < cfg.Elite {
				t.Fatalf("gen %d: %d survivors, want at least %d elites", g.Generation, elites, cfg.Elite)
			}
		}
		if g.Opponents[0] != "baseline" || len(g.Opponents) > 1+cfg.Champions {
			t.Fatalf("gen %d: opponents %v", g.Generation, g.Opponents)
		}
	}
}

func TestSaveFailureFailsRun(t *testing.T) {
	st := &memStore{failAt: 1}
	tu, _ := New(smallConfig("amazons", 2), st, nil, "test")
	_, err := tu.Run(context.Background(), 0)
	if err == nil || !strings.Contains(err.Error(), "disk full") || st.status != "failed" || len(st.gens) != 1 {
		t.Fatalf("err %v, status %s, %d generations saved", err, st.status, len(st.gens))
	}
}

// TestCancelStopsRun: a run cancelled during generation 4's games stops with the
// generations whose games were all played saved, in order: generation 0 at least (it was
// saved before generation 4 was bred: testsDeep), never generation 4.
func TestCancelStopsRun(t *testing.T) {
	st := &memStore{}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := smallConfig("connect6", 2)
	cfg.Generations = 5
	tu, _ := New(cfg, st, func(e record.Event) {
		if e.Generation == 4 && e.GamesDone > 0 {
			cancel()
		}
	}, "test")
	_, err := tu.Run(ctx, 0)
	if err == nil || st.status != "stopped" || len(st.gens) < 1 || len(st.gens) > 4 {
		t.Fatalf("err %v, status %s, %d generations saved (want 1 to 4)", err, st.status, len(st.gens))
	}
	for i, g := range st.gens {
		if g.Generation != i {
			t.Fatalf("saved generation %d in place %d", g.Generation, i)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	bad := map[string]func(*config.Config){
		"game":                            func(c *config.Config) { c.Game = "shogi" },
		"population":                      func(c *config.Config) { c.Population = 0 },
		"generations":                     func(c *config.Config) { c.Generations = -1 },
		"games: 3":                        func(c *config.Config) { c.Games = 3 },
		"games: -2":                       func(c *config.Config) { c.Games = -2 },
		"workers":                         func(c *config.Config) { c.Workers = 0 },
		"elite":                           func(c *config.Config) { c.Elite = 20 },
		"race_rounds":                     func(c *config.Config) { c.RaceRounds = -1 },
		"admit_games":                     func(c *config.Config) { c.AdmitGames = 3 },
		"admit_z":                         func(c *config.Config) { c.AdmitZ = math.NaN() },
		"time_budget":                     func(c *config.Config) { c.TimeBudget = "soon" },
		"generations: 0":                  func(c *config.Config) { c.Method, c.Generations, c.BudgetGames = config.MethodGA, 0, 0 },
		"method spsa: needs budget_games": func(c *config.Config) { c.Method, c.Generations, c.BudgetGames = config.MethodSPSA, 0, 0 },
		"depths":                          func(c *config.Config) { c.Depths = []int{3, 0} },
		"fix":                             func(c *config.Config) { c.Fix = []string{"k9"} },
		"verify_every":                    func(c *config.Config) { c.VerifyEvery, c.VerifyGames = 2, 0 },
		"mutation_rate":                   func(c *config.Config) { c.MutationRate = 2 },
		"crossover_rate":                  func(c *config.Config) { c.CrossoverRate = -1 },
		"init":                            func(c *config.Config) { c.Init = "zeros" },
		"free":                            func(c *config.Config) { c.Free = []string{"value_9"} },
		"budget_games: steady":            func(c *config.Config) { c.Method, c.BudgetGames, c.Games = config.MethodSteady, 100, 32 },
	}
	for want, mod := range bad {
		c := config.DefaultConfig("connect6")
		c.Resolve()
		mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), strings.Split(want, ":")[0]) {
			t.Errorf("%s: got %v", want, err)
		}
	}
	c := config.DefaultConfig("connect6")
	c.Resolve()
	if err := c.Validate(); err != nil {
		t.Fatalf("default config invalid: %v", err)
	}
	// The default method is the GA with peers over the game's budget (the pairs' games
	// sized by it); an outside engine's GA run, whose speed is unknown, plays generations.
	if c.Method != config.MethodGA || c.Selection != config.SelectionPeers || c.BudgetGames != 20000 || c.Generations != 0 || c.Games != 32 {
		t.Errorf("default connect6 run: method %q (%s), budget %d games, %d generations, %d games a pair; want ga with peers over 20000 games, 32 a pair", c.Method, c.Selection, c.BudgetGames, c.Generations, c.Games)
	}
	ga := config.DefaultConfig("gomoku")
	ga.Engine = "cmd:./engine"
	ga.Resolve()
	if ga.Generations != config.DefaultGAGenerations || ga.BudgetGames != 0 {
		t.Errorf("default GA run of an outside engine: %d generations, budget %d games; want %d generations", ga.Generations, ga.BudgetGames, config.DefaultGAGenerations)
	}
	sp := config.DefaultConfig("amazons")
	sp.Method = config.MethodSPSA
	sp.Resolve()
	if sp.BudgetGames != 4000 || sp.Generations != 0 || sp.Selection != "" {
		t.Errorf("default SPSA run: budget %d games, %d generations, selection %q; want 4000 games", sp.BudgetGames, sp.Generations, sp.Selection)
	}
	timed := config.DefaultConfig("amazons")
	timed.TimeBudget = "1h"
	timed.Resolve()
	if timed.BudgetGames != 0 || timed.Generations != 0 {
		t.Errorf("an SPSA run with a time budget got budget %d games, %d generations; want both 0 (Calibrate measures the budget)", timed.BudgetGames, timed.Generations)
	}
}

func TestParseConfig(t *testing.T) {
	c, err := config.ParseConfig([]byte("game: gomoku\npopulation: 12\nmutation:\n  gene_rate: 0.5\n"), "run.yaml", config.DefaultConfig(""))
	if err != nil || c.Game != "gomoku" || c.Population != 12 || c.Mutation.GeneRate != 0.5 || c.Games != config.DefaultConfig("").Games {
		t.Fatalf("parsed %+v, %v", c, err)
	}
	_, err = config.ParseConfig([]byte("game: gomoku\npopulaton: 12\n"), "run.yaml", config.DefaultConfig(""))
	if err == nil || !strings.Contains(err.Error(), "populaton") || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("unknown key: %v", err)
	}
	_, err = config.ParseConfig([]byte("population: many\n"), "run.yaml", config.DefaultConfig(""))
	if err == nil || !strings.Contains(err.Error(), "run.yaml") {
		t.Fatalf("wrong type: %v", err)
	}
}

func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{"game: gomoku\npopulation: 12\n", "populaton: 1", "games: [1", "mutation: {gene_rate: 2}", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := config.ParseConfig([]byte(s), "fuzz.yaml", config.DefaultConfig("connect6"))
		if err == nil {
			_ = c.Validate() // must not panic
		}
	})
}

// crashAndResume runs cfg into a store that fails when saving generation failAt (the
// crash: the run stops with failAt generations saved), then resumes it from those
// generations and their games into a fresh store, as the command line does, and checks
// that the resumed run saved what full, the same run uninterrupted, saved after them
// (fingerprint). It returns the resumed store and the resumed run's summary.
func crashAndResume(t *testing.T, cfg config.Config, full *memStore, failAt int) (*memStore, report.Summary) {
	t.Helper()
	crashed := &memStore{failAt: failAt}
	tu, _ := New(cfg, crashed, nil, "test")
	if _, err := tu.Run(context.Background(), 0); err == nil || len(crashed.gens) != failAt {
		t.Fatalf("simulated crash at generation %d: %v, %d generations saved", failAt, err, len(crashed.gens))
	}
	st := stateFromRecords(1, crashed.gens)
	for _, g := range crashed.gens {
		st.Games += g.Games
	}
	cont := &memStore{}
	tu2, _ := New(cfg, cont, nil, "test")
	sum, err := tu2.Resume(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fingerprint(cont.gens), fingerprint(full.gens[failAt:]); got != want {
		t.Fatalf("resumed generations differ:\n%s\n----\n%s", got, want)
	}
	return cont, sum
}

// stateFromRecords rebuilds a ResumeState from saved generations, as the command line does
// from the database.
func stateFromRecords(runID int64, gens []record.GenerationRecord) record.ResumeState {
	st := record.ResumeState{RunID: runID, LastGeneration: len(gens) - 1}
	born := map[string]record.GenomeRecord{}
	for _, g := range gens {
		for _, n := range g.NewGenomes {
			born[n.ID] = n
		}
		st.Openings = append(st.Openings, g.Openings...)
		st.MethodStates = append(st.MethodStates, g.MethodState)
	}
	ind := func(id string, stats genomes.Stats) record.ResumeIndividual {
		n := born[id]
		return record.ResumeIndividual{ID: id, Genes: n.Genes, Op: n.Operator, Parents: n.Parents, Born: n.Born, Stats: stats}
	}
	for _, g := range gens {
		if a := g.Admission; a != nil {
			st.Tested = append(st.Tested, a.Candidate)
		}
	}
	if len(gens) > 0 {
		for _, h := range gens[len(gens)-1].HallOfFame {
			st.HallOfFame = append(st.HallOfFame, record.ResumeFamer{ID: h.ID, Generation: h.Generation, Genes: born[h.ID].Genes, Stats: h.Stats})
		}
	}
	if len(gens) > 0 {
		for _, in := range gens[len(gens)-1].Individuals {
			r := ind(in.ID, in.Stats)
			r.Round = in.Round
			st.Population = append(st.Population, r)
		}
	}
	return st
}

// TestResumeEqualsUninterrupted: a run that dies after generation 2 and is resumed from
// what was saved ends exactly as the uninterrupted run: same generations 3 and 4, same
// verification.
func TestResumeEqualsUninterrupted(t *testing.T) {
	for _, game := range shortGames([]string{"gomoku", "amazons"}) {
		cfg := smallConfig(game, 2)
		cfg.Generations, cfg.Elite, cfg.VerifyGames = 4, 2, 8
		cfg.TimeBudget = "1h" // a budget far from used up must not stop a resumed run
		full := runSmall(t, cfg)

		crashed := &memStore{failAt: 3}
		tu, _ := New(cfg, crashed, nil, "test")
		if _, err := tu.Run(context.Background(), 0); err == nil || len(crashed.gens) != 3 {
			t.Fatalf("%s: simulated crash: %v, %d generations", game, err, len(crashed.gens))
		}
		for _, workers := range []int{1, 3} {
			cfg.Workers = workers
			cont := &memStore{}
			tu2, _ := New(cfg, cont, nil, "test")
			sum, err := tu2.Resume(context.Background(), stateFromRecords(1, crashed.gens))
			if err != nil {
				t.Fatal(err)
			}
			if got, want := fingerprint(cont.gens), fingerprint(full.gens[3:]); got != want {
				t.Fatalf("%s workers %d: resumed generations differ:\n%s\n----\n%s", game, workers, got, want)
			}
			jc, _ := json.Marshal(cont.verification)
			jf, _ := json.Marshal(full.verification)
			if string(jc) != string(jf) || cont.status != "finished" {
				t.Fatalf("%s: verification %+v vs %+v, status %s", game, cont.verification, full.verification, cont.status)
			}
			if sum.Generations != 5 {
				t.Fatalf("%s: summary says %d generations", game, sum.Generations)
			}
		}
		// Resuming a run with every generation saved only plays the verification.
		done := &memStore{}
		tu3, _ := New(cfg, done, nil, "test")
		if _, err := tu3.Resume(context.Background(), stateFromRecords(1, full.gens)); err != nil || len(done.gens) != 0 || done.verification == nil {
			t.Fatalf("%s: resume of a complete run: %v, %d generations", game, err, len(done.gens))
		}
		// A run with nothing saved starts over.
		empty := &memStore{}
		tu4, _ := New(cfg, empty, nil, "test")
		if _, err := tu4.Resume(context.Background(), record.ResumeState{RunID: 1, LastGeneration: -1}); err != nil || fingerprint(empty.gens) != fingerprint(full.gens) {
			t.Fatalf("%s: resume from nothing differs from a fresh run: %v", game, err)
		}
	}
}

// shortGames is games, or with -short (the README's quick test command, and the full
// suite's race-detector pass, which repeats the tests its plain pass ran) gomoku alone: the
// same workers and resumes at a fraction of the time (amazons' games are the slow ones).
func shortGames(games []string) []string {
	if testing.Short() {
		return []string{"gomoku"}
	}
	return games
}

// TestStoredRunWithoutMethod: a configuration stored before runs named their method ("")
// is a GA run: it plays exactly what method ga plays.
func TestStoredRunWithoutMethod(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	ga := runSmall(t, cfg)
	cfg.Method = ""
	old := runSmall(t, cfg)
	if got, want := fingerprint(old.gens), fingerprint(ga.gens); got != want || len(ga.gens) == 0 {
		t.Fatalf("a run without a method differs from method ga:\n%s\n----\n%s", got, want)
	}
}

// TestPeerSelection: with Config.Selection peers every individual plays RaceRounds+1
// matches of Games games against other individuals of its generation (the scores are a
// zero-sum record), the run does not depend on the workers, and a resumed run equals the
// uninterrupted one.
func TestPeerSelection(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	cfg.Selection, cfg.Generations, cfg.VerifyGames = config.SelectionPeers, 3, 8
	full := runSmall(t, cfg)
	if len(full.gens) != 4 {
		t.Fatalf("%d generations saved", len(full.gens))
	}
	for _, g := range full.gens {
		var wins, losses int
		ids := map[string]bool{}
		for _, in := range g.Individuals {
			ids[in.ID] = true
			if n := in.Stats.Wins + in.Stats.Draws + in.Stats.Losses; n != cfg.Games*(cfg.RaceRounds+1) {
				t.Errorf("generation %d: %s played %d games, want %d", g.Generation, in.ID, n, cfg.Games*(cfg.RaceRounds+1))
			}
			wins, losses = wins+in.Stats.Wins, losses+in.Stats.Losses
		}
		if wins != losses {
			t.Errorf("generation %d: %d wins against %d losses among peers", g.Generation, wins, losses)
		}
		for _, r := range g.GameResults {
			if r.Round >= 0 && !ids[r.Opponent] {
				t.Errorf("generation %d: %s played %s, not a peer", g.Generation, r.Individual, r.Opponent)
			}
		}
	}
	cfg.Workers = 1
	if fingerprint(runSmall(t, cfg).gens) != fingerprint(full.gens) {
		t.Fatal("1 and 2 workers differ")
	}
	crashAndResume(t, cfg, full, 2)
}

// TestEveryMethodSameRunWhateverWorkers: for every method, a seeded run gives the same
// generations, genomes and games (fingerprint) with 1, 2 and 16 workers: what a method
// decides never depends on which game of a batch ends first.
func TestEveryMethodSameRunWhateverWorkers(t *testing.T) {
	configs := map[string]config.Config{
		config.MethodGA:     smallConfig("gomoku", 1),
		config.MethodSteady: steadyConfig("gomoku", 1, 160),
		config.MethodSPSA:   spsaConfig("gomoku", 96, 4),
		config.MethodCMAES:  cmaesConfig("gomoku", 120),
	}
	for _, spec := range Methods {
		m := spec.Name
		cfg, ok := configs[m]
		if !ok {
			t.Fatalf("method %s has no configuration in this test", m)
		}
		var want string
		for _, w := range []int{1, 2, 16} {
			cfg.Workers = w
			st := runSmall(t, cfg)
			got := fingerprint(st.gens)
			if len(st.gens) < 2 || st.status != "finished" {
				t.Fatalf("%s, %d workers: %d generations, status %s", m, w, len(st.gens), st.status)
			}
			if want == "" {
				want = got
			} else if got != want {
				t.Fatalf("%s: %d workers differ from 1:\n%s\n----\n%s", m, w, got, want)
			}
		}
	}
}
