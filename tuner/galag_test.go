package tuner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/ga"
	"evotune/tuner/population"
	"evotune/tuner/record"
)

func gaLagConfig(game string, workers, lag int) config.Config {
	c := smallConfig(game, workers)
	c.Population, c.Generations, c.GALag = 6, 5, lag
	return c
}

// TestGALagSameRunWhateverWorkers: with generations in play, a seeded run is the same on
// 1, 3 and 16 workers (generations are bred from told generations alone and told in
// order), and resumed after a crash it saves the generations the uninterrupted run saved;
// also with the surrogate child, whose model a resumed run fits again from the stored
// generations' games.
func TestGALagSameRunWhateverWorkers(t *testing.T) {
	for _, tc := range []struct {
		lag       int
		surrogate string
	}{{1, config.SurrogateOff}, {2, config.SurrogateOff}, {1, config.SurrogateOn}} {
		cfg := func(workers int) config.Config {
			c := gaLagConfig("gomoku", workers, tc.lag)
			c.Surrogate = tc.surrogate
			return c
		}
		var want string
		var full *memStore
		for _, w := range []int{1, 3, 16} {
			st := runSmall(t, cfg(w))
			if st.status != "finished" || len(st.gens) != 6 {
				t.Fatalf("lag %d, surrogate %s, %d workers: status %q, %d generations (want 6)", tc.lag, tc.surrogate, w, st.status, len(st.gens))
			}
			got := fingerprint(st.gens)
			if want == "" {
				want, full = got, st
			} else if got != want {
				t.Fatalf("lag %d, surrogate %s: %d workers differ from 1:\n%s\n----\n%s", tc.lag, tc.surrogate, w, got, want)
			}
		}
		// The surrogate's children: generations lag+2 on (two told generations to fit),
		// none before.
		for _, g := range full.gens {
			n := 0
			for _, x := range g.NewGenomes {
				if x.Operator == ga.OpSurrogate {
					n++
				}
			}
			if want := 0; tc.surrogate == config.SurrogateOn && g.Generation >= tc.lag+2 {
				if n != 1 {
					t.Fatalf("lag %d, surrogate on: generation %d bred %d surrogate children, want 1", tc.lag, g.Generation, n)
				}
			} else if n != want {
				t.Fatalf("lag %d, surrogate %s: generation %d bred %d surrogate children, want 0", tc.lag, tc.surrogate, g.Generation, n)
			}
		}
		crashAndResume(t, cfg(2), full, 3)
	}
}

// TestGALagGenerations: the generations' records hold what the GA with peers stores —
// every individual's games (each of RaceRounds+1 pairings, Games a pair, one draw of
// openings a pairing) credited to both sides, wins matching losses — and the breeding follows the lag: generations 0 to L are
// initial populations, generation k+1 > L has parents only in generations k−2L to k−L.
func TestGALagGenerations(t *testing.T) {
	const lag = 2
	cfg := gaLagConfig("gomoku", 2, lag)
	cfg.Generations = 7
	cfg.Champion = config.ChampionPopulation // no hall of fame: every opening is a pairing's
	st := runSmall(t, cfg)
	if len(st.gens) != 8 {
		t.Fatalf("%d generations saved, want 8", len(st.gens))
	}
	born := map[string]int{} // genome → generation it was born in
	perInd := (cfg.RaceRounds + 1) * cfg.Games
	for _, g := range st.gens {
		var w, l int
		if want := (cfg.RaceRounds + 1) * cfg.Games / 2; len(g.Openings) != want {
			t.Fatalf("generation %d stores %d openings, want %d (one draw a pairing, shared by its pairs)", g.Generation, len(g.Openings), want)
		}
		if len(g.Individuals) != cfg.Population {
			t.Fatalf("generation %d ranks %d individuals", g.Generation, len(g.Individuals))
		}
		for i, in := range g.Individuals {
			if in.Stats.Games() != perInd || in.Rank != i+1 {
				t.Fatalf("generation %d: %s rank %d has %d games, want %d", g.Generation, in.ID, in.Rank, in.Stats.Games(), perInd)
			}
			if i > 0 && in.Fitness < g.Individuals[i-1].Fitness {
				t.Fatalf("generation %d: not ranked by fitness", g.Generation)
			}
			w, l = w+in.Stats.Wins, l+in.Stats.Losses
		}
		if w != l {
			t.Fatalf("generation %d: %d wins and %d losses: the pairs' mirror is missing", g.Generation, w, l)
		}
		for _, n := range g.NewGenomes {
			born[n.ID] = n.Born
			if n.Operator == config.OpPopulationCentre {
				if n.ID != g.Champion {
					t.Fatalf("generation %d: centre %s, champion %s", g.Generation, n.ID, g.Champion)
				}
				continue
			}
			if g.Generation <= lag {
				if n.Operator != genomes.OpInitial && n.Operator != genomes.OpBaseline {
					t.Fatalf("generation %d (≤ lag): %s bred by %s", g.Generation, n.ID, n.Operator)
				}
				continue
			}
			k := g.Generation - 1
			for _, p := range n.Parents {
				pb, ok := born[p]
				if !ok || pb > k-lag {
					t.Fatalf("generation %d: %s has parent %s born in generation %d (ok %v), after generation %d", g.Generation, n.ID, p, pb, ok, k-lag)
				}
			}
		}
	}
	checkPooledCentre(t, st.gens, genomes.GomokuLayout(), lag+1)
	if fingerprint(st.gens) == fingerprint(runSmall(t, func() config.Config { c := cfg; c.GALag = 1; return c }()).gens) {
		t.Fatal("lags 2 and 1 gave the same run")
	}
}

// checkPooledCentre checks that each generation's champion, the genome of operator
// population-centre born in it, has the genes of the mean of the better halves' centres of
// that generation and the k−1 before it (those that exist), each ranked as stored; and that
// in some generation this differs from its own better half's centre alone.
func checkPooledCentre(t *testing.T, gens []record.GenerationRecord, l *genomes.Layout, k int) {
	t.Helper()
	genes := map[string][]float64{}
	ranked := map[int][]*genomes.Genome{}
	pooled := false
	for _, g := range gens {
		for _, n := range g.NewGenomes {
			x, err := l.FromNamed(n.Genes)
			if err != nil {
				t.Fatal(err)
			}
			genes[n.ID] = x
		}
		for _, in := range g.Individuals {
			ranked[g.Generation] = append(ranked[g.Generation], &genomes.Genome{ID: in.ID, X: genes[in.ID]})
		}
		var xs [][]float64
		for h := max(0, g.Generation-k+1); h <= g.Generation; h++ {
			x, _ := population.BetterHalfCentre(l, ranked[h])
			xs = append(xs, x)
		}
		want := xs[0] // one generation: its own centre
		if len(xs) > 1 {
			want = population.MeanCentre(l, xs)
		}
		got, ok := genes[g.Champion]
		if !ok {
			t.Fatalf("generation %d: champion %s has no genome born in it", g.Generation, g.Champion)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("generation %d: champion %v, want the mean of generations %d–%d's better-half centres %v", g.Generation, got, max(0, g.Generation-k+1), g.Generation, want)
		}
		if fmt.Sprint(got) != fmt.Sprint(xs[len(xs)-1]) {
			pooled = true
		}
	}
	if !pooled && k > 1 {
		t.Fatal("every champion is its own generation's better-half centre: nothing was pooled")
	}
}

// TestGALagSettings: a lag resolves the GA's auto settings to the population's centre
// without a hall of fame and no surrogate on a built-in game, takes the surrogate child
// asked for, takes an explicit hall of fame, refuses what it
// cannot play by name, and appears in the run's header and in its summary.
func TestGALagSettings(t *testing.T) {
	c := config.DefaultConfig("gomoku")
	c.GALag = 2
	c.Resolve()
	if c.Champion != config.ChampionPopulation || c.Admission != config.AdmissionNone || c.AdmitGames != 0 || c.Surrogate != config.SurrogateOff || c.Selection != config.SelectionPeers {
		t.Fatalf("resolved: champion %s admission %s (%d games) surrogate %s selection %s", c.Champion, c.Admission, c.AdmitGames, c.Surrogate, c.Selection)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	hall := config.DefaultConfig("gomoku")
	hall.GALag, hall.Champion = 2, config.ChampionCentre
	hall.Resolve()
	if hall.Admission != config.AdmissionPaired || hall.AdmitGames == 0 {
		t.Fatalf("a lagged GA with champion centre resolved: admission %s (%d games)", hall.Admission, hall.AdmitGames)
	}
	if err := hall.Validate(); err != nil {
		t.Fatal(err)
	}
	surrogate := config.DefaultConfig("gomoku")
	surrogate.GALag, surrogate.Surrogate = 1, config.SurrogateOn
	if surrogate.Resolve(); surrogate.Validate() != nil {
		t.Fatalf("a lagged GA with the surrogate child: %v", surrogate.Validate())
	}
	for name, bad := range map[string]func(c *config.Config){
		"ga_lag": func(c *config.Config) { c.GALag = config.MaxGALag + 1 },
		"race":   func(c *config.Config) { c.Selection = config.SelectionRace },
	} {
		c := config.DefaultConfig("gomoku")
		c.GALag = 2
		bad(&c)
		c.Resolve()
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "ga_lag") {
			t.Fatalf("%s: %v, want an error naming ga_lag", name, err)
		}
	}
	tu, err := New(gaLagConfig("gomoku", 1, 1), &memStore{}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	if head, _ := tu.SearchText("5 generations"); !strings.Contains(head, "2 generations in play") {
		t.Fatalf("header %q", head)
	}
	sum, err := tu.Run(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Lag != 1 || sum.SlotHint() != "" {
		t.Fatalf("summary lag %d, hint %q", sum.Lag, sum.SlotHint())
	}
	var s ga.LaggedState
	if err := json.Unmarshal(tu.store.(*memStore).gens[0].MethodState, &s); err != nil || len(s.Ranked) != 6 {
		t.Fatalf("generation 0's state: %v, %d ranked", err, len(s.Ranked))
	}
}

// TestGALagHallOfFame: with generations in play the hall of fame's tests are lagged as
// the breeding is: generation G (> L) stores the test of generation G−1−L's best, its
// games (the candidate's and the defender's against the paper's weights on the same
// openings, the defender's own on others; head to head the candidate against the
// defender), and a defender that is the latest member admitted by the tests of
// generations up to G−L−1, admitting its candidate only when it passed and that defender
// is still the latest member. The champion is the hall's centre once it has two members.
// The run is the same on 1 and 16 workers, and after a crash and resume after any
// generation, hall of fame included. Under -short, the paired test alone.
func TestGALagHallOfFame(t *testing.T) {
	admissions := []string{config.AdmissionPaired, config.AdmissionHeadToHead}
	if testing.Short() {
		admissions = admissions[:1] // the paired test, which also plays the defender's games
	}
	for _, adm := range admissions {
		const lag = 1
		cfg := gaLagConfig("gomoku", 1, lag)
		cfg.Generations, cfg.Admission, cfg.AdmitGames, cfg.AdmitZ, cfg.Champion = 13, adm, 8, 0.01, config.ChampionCentre
		st := runSmall(t, cfg)
		if len(st.gens) != 14 {
			t.Fatalf("%s: %d generations saved, want 14", adm, len(st.gens))
		}
		type member struct {
			id  string
			row int
		}
		var hof []member
		tests, defended, admitted, stale := 0, 0, 0, 0
		for _, g := range st.gens {
			a := g.Admission
			if a == nil {
				continue
			}
			tests++
			k := g.Generation - 1 - lag
			if k < 0 || a.Generation != k || a.Candidate != st.gens[k].Best {
				t.Fatalf("%s: generation %d tests %s of generation %d; want generation %d's best %v", adm, g.Generation, a.Candidate, a.Generation, k, k >= 0 && a.Candidate == st.gens[max(k, 0)].Best)
			}
			want := "baseline"
			for _, h := range hof {
				if h.row <= g.Generation-lag-1 {
					want = h.id
				}
			}
			if a.Opponent != want {
				t.Fatalf("%s: generation %d's test defended by %s, want %s (admitted by generation %d or before)", adm, g.Generation, a.Opponent, want, g.Generation-lag-1)
			}
			players := map[int]map[string]int{}
			for _, r := range g.GameResults {
				if r.Round < 0 {
					if players[r.Round] == nil {
						players[r.Round] = map[string]int{}
					}
					players[r.Round][r.Individual+" v "+r.Opponent]++
				}
			}
			wantTest := map[string]int{a.Candidate + " v baseline": cfg.AdmitGames}
			switch {
			case want != "baseline" && adm == config.AdmissionHeadToHead:
				wantTest = map[string]int{a.Candidate + " v " + want: cfg.AdmitGames}
			case want != "baseline":
				wantTest[want+" v baseline"] = cfg.AdmitGames
			}
			if fmt.Sprint(players[record.AdmissionRound]) != fmt.Sprint(wantTest) {
				t.Fatalf("%s: generation %d's test games %v, want %v", adm, g.Generation, players[record.AdmissionRound], wantTest)
			}
			if want != "baseline" && adm == config.AdmissionPaired {
				defended++
				if d := players[record.DefenceRound]; len(d) != 1 || d[want+" v baseline"] != cfg.AdmitGames {
					t.Fatalf("%s: generation %d's defence games %v", adm, g.Generation, d)
				}
			} else if len(players[record.DefenceRound]) != 0 {
				t.Fatalf("%s: generation %d has defence games %v without a paired defender", adm, g.Generation, players[record.DefenceRound])
			}
			latest := "baseline"
			if len(hof) > 0 {
				latest = hof[len(hof)-1].id
			}
			passed := a.Diff > 0 && a.LowerBound(cfg.AdmitZ) > 0
			if a.Admitted != (passed && a.Opponent == latest) {
				t.Fatalf("%s: generation %d's test against %s (the latest member %s) passed %v, admitted %v: want admitted only when passed against the latest", adm, g.Generation, a.Opponent, latest, passed, a.Admitted)
			}
			if passed && !a.Admitted {
				stale++
			}
			if a.Admitted {
				admitted++
				hof = append(hof, member{a.Candidate, g.Generation})
			}
			if len(g.HallOfFame) != len(hof) || (len(hof) > 0 && g.HallOfFame[len(hof)-1].ID != hof[len(hof)-1].id) {
				t.Fatalf("%s: generation %d's hall of fame %v, want %v", adm, g.Generation, g.HallOfFame, hof)
			}
			if len(hof) >= 2 && g.Champion != genomes.IndividualID(1, hof[len(hof)-1].row, cfg.Population) {
				t.Fatalf("%s: generation %d's champion %s, want the centre of %v", adm, g.Generation, g.Champion, hof)
			}
		}
		if tests < 4 || admitted < 2 || (adm == config.AdmissionPaired && defended == 0) {
			t.Fatalf("%s: %d tests, %d admitted, %d defended: too few to check the lag", adm, tests, admitted, defended)
		}
		if stale == 0 {
			t.Fatalf("%s: %d tests, %d admitted, none passed against a defender no longer the latest: the rule went untested", adm, tests, admitted)
		}
		many := cfg
		many.Workers = 16
		other := runSmall(t, many)
		if a, b := fingerprint(st.gens), fingerprint(other.gens); a != b {
			t.Fatalf("%s: 1 and 16 workers differ:\n%s\n----\n%s", adm, a, b)
		}
		for at := 2; at < len(st.gens); at++ { // after every generation: some just admitted a member
			cont, _ := crashAndResume(t, cfg, st, at)
			for i, g := range cont.gens {
				if a, b := fmt.Sprint(g.HallOfFame), fmt.Sprint(st.gens[at+i].HallOfFame); a != b {
					t.Fatalf("%s: resumed after generation %d: generation %d's hall of fame %s, uninterrupted %s", adm, at-1, g.Generation, a, b)
				}
			}
		}
	}
}
