package tuner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/ga"
	"evotune/tuner/population"
	"evotune/tuner/record"
)

// TestAdmissionNeedsEvidence: a candidate enters the hall of fame only when its per-pair
// score difference over the champion (both against the paper's weights on the same
// openings) exceeds 0 by AdmitZ standard errors.
func TestAdmissionNeedsEvidence(t *testing.T) {
	champ := []float64{1, 1, 2, 0, 1, 1, 2, 1, 1, 0, 1, 2}
	lucky := []float64{1, 2, 2, 0, 1, 1, 2, 1, 1, 1, 0, 2} // +2 −1 over 12 pairs
	a := record.Admission{}
	ga.Judge(&a, lucky, champ, 1.645)
	if a.Admitted || a.Diff <= 0 {
		t.Fatalf("a 1-pair edge in 12 is not evidence at z = 1.645: %+v", a)
	}
	strong := []float64{2, 2, 2, 1, 2, 1, 2, 2, 1, 1, 2, 2} // 20 pair points against 13
	ga.Judge(&a, strong, champ, 1.645)
	if !a.Admitted || math.Abs(a.Diff-(20.0-13)/24) > 1e-12 || math.Abs(a.OpponentScore-13.0/24) > 1e-12 {
		t.Fatalf("+7 pair points in 12 must be admitted: %+v", a)
	}
	// Against the paper's weights themselves (pair score 1 each) the test is the
	// candidate's own score against ½.
	base := make([]float64, 12)
	for k := range base {
		base[k] = 1
	}
	ga.Judge(&a, []float64{2, 0, 1, 1, 2, 0, 1, 1, 1, 1, 1, 1}, base, 0)
	if a.Admitted || a.Diff != 0 || a.OpponentScore != 0.5 {
		t.Fatalf("an even record must not be admitted: %+v", a)
	}
}

// TestFamilyZ: simultaneous intervals widen with the number of members.
func TestFamilyZ(t *testing.T) {
	if z := ga.FamilyZ(1, 0); math.Abs(z-1.959964) > 1e-5 {
		t.Fatalf("one member: z %v, want 1.96", z)
	}
	if z := ga.FamilyZ(62, 0); math.Abs(z-3.35) > 0.01 {
		t.Fatalf("62 members: z %v, want about 3.35", z)
	}
	if z := ga.FamilyZ(2, 5); z != 5 {
		t.Fatalf("a larger minimum must win: %v", z)
	}
}

// TestChampionIsBestLowerBound: the champion is the member with the best Elo − z·SE on its
// games after admission (z: simultaneous over the members), not the best Elo; a member
// without such games never is, and none is while every bound is below the baseline's 0.
func TestChampionIsBestLowerBound(t *testing.T) {
	rec := func(w, d, l int, penta [5]int) genomes.Stats {
		return genomes.Stats{Wins: w, Draws: d, Losses: l, Penta: penta}
	}
	hof := []record.HallOfFamer{
		{ID: "a", Stats: rec(120, 0, 80, [5]int{5, 15, 40, 25, 15})}, // 200 games, +70
		{ID: "b", Stats: rec(7, 0, 3, [5]int{0, 1, 2, 1, 1})},        // 10 games, +147 ± 94: bound −8
		{ID: "c"}, // admitted, no games yet
	}
	if c := ga.Champion(hof, 1.645); c == nil || c.ID != "a" {
		t.Fatalf("champion %v, want a", c)
	}
	// Two members, both with games: b's +147 ± 94 loses to a's +70 ± 19 at any z ≥ 1.
	if c := ga.Champion(hof[:2], 0); c == nil || c.ID != "a" {
		t.Fatalf("champion of a and b %v, want a", c)
	}
	if c := ga.Champion([]record.HallOfFamer{{ID: "x", Stats: rec(11, 0, 9, [5]int{1, 2, 4, 2, 1})}}, 1.645); c != nil {
		t.Fatalf("a bound below 0 made %s champion", c.ID)
	}
}

// TestRaceAndHallOfFame runs a small race with admission, paired and head to head, and
// checks the records: no game against an identical genome, admission games on their own
// openings against the paper's weights (paired) or the reigning member (head to head), a
// hall of fame consistent with the admissions, defence games exactly where a member needs a
// record of its own, and the champion taken from the hall of fame.
func TestRaceAndHallOfFame(t *testing.T) {
	for _, tc := range []struct{ admission, champion string }{
		{config.AdmissionPaired, config.ChampionBest}, {config.AdmissionHeadToHead, config.ChampionCentre}, {config.AdmissionHeadToHead, config.ChampionBest},
	} {
		t.Run(tc.admission+"/"+tc.champion, func(t *testing.T) {
			cfg := smallConfig("gomoku", 2)
			cfg.Generations, cfg.Population, cfg.Elite, cfg.AdmitGames, cfg.AdmitZ = 6, 6, 2, 8, 0
			cfg.Admission, cfg.Champion, cfg.Seed = tc.admission, tc.champion, 3 // seed 3: two admissions or more
			checkHallOfFame(t, cfg)
		})
	}
}

func checkHallOfFame(t *testing.T, cfg config.Config) {
	st := &memStore{}
	tu, err := New(cfg, st, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := tu.Run(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	baseline := genomes.IndividualID(1, 0, 0)
	genes := map[string]string{"baseline": fmt.Sprint(tu.plan.Layout.Defaults())}
	admitted, defences := 0, 0
	reigning := "baseline"
	for _, g := range st.gens {
		for _, n := range g.NewGenomes {
			x, _ := tu.plan.Layout.FromNamed(n.Genes)
			genes[n.ID] = fmt.Sprint(x)
		}
		raceOpenings := cfg.Games / 2 * (cfg.RaceRounds + 1)
		for _, r := range g.GameResults {
			if genes[r.Individual] == genes[r.Opponent] {
				t.Fatalf("gen %d: %s played its identical genome %s", g.Generation, r.Individual, r.Opponent)
			}
			if (r.Round < 0) != (r.Opening >= raceOpenings) {
				t.Fatalf("gen %d: round %d game on opening %d", g.Generation, r.Round, r.Opening)
			}
			if arena.HalfOf(g.Openings[r.Opening]) != arena.TuningHalf {
				t.Fatalf("tuning game on a held-out opening %v", g.Openings[r.Opening])
			}
			want := "baseline"
			if cfg.Admission == config.AdmissionHeadToHead && r.Individual == g.Best {
				want = reigning
			}
			if r.Round == record.AdmissionRound && r.Opponent != want {
				t.Fatalf("gen %d: admission game of %s against %s, want %s", g.Generation, r.Individual, r.Opponent, want)
			}
			if r.Round == record.DefenceRound {
				defences++
			}
		}
		if a := g.Admission; a != nil {
			if a.Candidate != g.Best || a.Games() != cfg.AdmitGames || a.Opponent != reigning {
				t.Fatalf("gen %d: admission of %s (best %s) against %s (reigning %s) with %d games", g.Generation, a.Candidate, g.Best, a.Opponent, reigning, a.Games())
			}
			if a.Admitted {
				admitted++
				reigning = a.Candidate
			}
		}
	}
	if len(sum.HallOfFame) != admitted {
		t.Fatalf("hall of fame %d members, %d admissions", len(sum.HallOfFame), admitted)
	}
	if admitted < 2 {
		t.Fatalf("%d admissions: the test needs a member that defends", admitted)
	}
	if cfg.Admission == config.AdmissionHeadToHead && cfg.Champion == config.ChampionCentre {
		if defences != 0 {
			t.Fatalf("%d defence games: a centre needs no member records", defences)
		}
		if want := genomes.IndividualID(1, sum.HallOfFame[len(sum.HallOfFame)-1].Generation, cfg.Population); sum.Best != want {
			t.Fatalf("summary best %s, want the centre %s", sum.Best, want)
		}
		return
	}
	if c := ga.Champion(sum.HallOfFame, cfg.AdmitZ); c != nil && c.ID != sum.Best || c == nil && sum.Best != baseline {
		t.Fatalf("summary best %s, champion %v", sum.Best, c)
	}
	// Every member's record is exactly its defence games, played after its admission on
	// openings no admission game of that generation used (its Elo never rests on the games
	// that decided whether it keeps reigning).
	for _, h := range sum.HallOfFame {
		n := 0
		for _, g := range st.gens {
			decided := map[int]bool{}
			for _, r := range g.GameResults {
				if r.Round == record.AdmissionRound {
					decided[r.Opening] = true
				}
			}
			for _, r := range g.GameResults {
				if r.Round == record.DefenceRound && r.Individual == h.ID {
					if g.Generation <= h.Generation || decided[r.Opening] || r.Opponent != "baseline" {
						t.Fatalf("%s: defence game in generation %d (admitted %d) on opening %d against %s", h.ID, g.Generation, h.Generation, r.Opening, r.Opponent)
					}
					n++
				}
			}
		}
		if n != h.Stats.Games() {
			t.Fatalf("%s: %d games after admission, %d in its record", h.ID, n, h.Stats.Games())
		}
	}
	if defences == 0 {
		t.Fatal("no defence games")
	}
}

// TestTimeBudgetStopsAtGenerationBoundary: with no generation count, a budget that is
// already spent stops after the first complete generation, and the run finishes.
func TestTimeBudgetStopsAtGenerationBoundary(t *testing.T) {
	cfg := smallConfig("amazons", 2)
	cfg.Generations, cfg.TimeBudget = 0, "1ns"
	st := runSmall(t, cfg)
	if len(st.gens) != 1 || st.status != "finished" || st.gens[0].Elapsed <= 0 {
		t.Fatalf("%d generations, status %s", len(st.gens), st.status)
	}
}

// TestMixedDepthsAndCheckpoints: pair k plays at Depths[k mod 2]; checkpoints are stored
// with their generation on held-out openings.
func TestMixedDepthsAndCheckpoints(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	cfg.Depths, cfg.VerifyEvery, cfg.VerifyGames, cfg.AdmitGames = []int{1, 2}, 1, 4, 0
	st := runSmall(t, cfg)
	for _, g := range st.gens {
		for _, r := range g.GameResults {
			if r.Depth != cfg.Depths[r.Opening%2] {
				t.Fatalf("opening %d played at depth %d", r.Opening, r.Depth)
			}
		}
		c := g.Checkpoint
		baseline := c != nil && c.Champion == genomes.IndividualID(1, 0, 0) && c.Games == 0
		if c == nil || c.Generation != g.Generation || c.Games != cfg.VerifyGames && !baseline {
			t.Fatalf("gen %d: checkpoint %+v", g.Generation, c)
		}
	}
}

// TestOpeningSpaceAndHalves: every game's generator draws 1 000 openings with almost no
// repeats (a space of 10⁶ gives one repeat in two such samples), and both halves are used.
func TestOpeningSpaceAndHalves(t *testing.T) {
	for _, name := range genomes.Names() {
		e, _ := genomes.Lookup(name)
		rng := rand.New(rand.NewPCG(1, 1))
		raw, seen, held := 1000, map[string]bool{}, 0
		for i := 0; i < raw; i++ {
			b, _ := e.Game.NewBoard(0)
			o := e.Game.(engine.Opener).RandomOpening(b, rng)
			seen[arena.Key(o)] = true
			if arena.HalfOf(o) == arena.HeldOutHalf {
				held++
			}
		}
		if len(seen) < raw-5 || held < 400 || held > 600 {
			t.Fatalf("%s: %d distinct of %d draws, %d held out", name, len(seen), raw, held)
		}
	}
}

// TestCentreWeights: the recombination weights are positive, sum to 1 and grow with
// recency (the latest member weighs most).
func TestCentreWeights(t *testing.T) {
	for _, m := range []int{1, 2, 3, 10, 62} {
		w := population.CentreWeights(m)
		sum := 0.0
		for k, x := range w {
			sum += x
			if x <= 0 || k > 0 && x <= w[k-1] {
				t.Errorf("m=%d: weights %v not positive and increasing with recency", m, w)
				break
			}
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("m=%d: weights sum to %g", m, sum)
		}
	}
}

// TestResumeWithCentre: a run whose champion is the hall of fame's centre, stopped after
// the centre was born and resumed from what was saved, ends exactly as the uninterrupted
// run (the same champions, centres and verification).
func TestResumeWithCentre(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	cfg.Population, cfg.Games, cfg.AdmitGames, cfg.Generations, cfg.Seed, cfg.VerifyGames = 6, 8, 16, 10, 5, 20
	cfg.Selection = config.SelectionRace // seed 5 races to a centre in generation 6
	full := runSmall(t, cfg)
	born, centres := -1, map[string]bool{}
	for _, g := range full.gens {
		for _, n := range g.NewGenomes {
			if n.Operator == config.OpCentre {
				centres[n.ID] = true
				if born < 0 {
					born = g.Generation
				}
			}
		}
	}
	last := full.gens[len(full.gens)-1].Champion
	if born < 0 || born+2 >= len(full.gens) || !centres[last] || full.verification.Champion != last {
		t.Fatalf("seed 5: first centre born in generation %d of %d; last champion %s (a centre: %v), verified %s", born, len(full.gens), last, centres[last], full.verification.Champion)
	}
	cont, _ := crashAndResume(t, cfg, full, born+2)
	jc, _ := json.Marshal(cont.verification)
	jf, _ := json.Marshal(full.verification)
	if string(jc) != string(jf) {
		t.Fatalf("verification %s, uninterrupted %s", jc, jf)
	}
}

// TestPeersGames: a run that gives no games gets DefaultGames, except a GA with peers and
// a game budget, whose pairs play what lets the budget hold PeersGenerations generations
// (even, 2 to DefaultGames); games the run gives are kept.
func TestPeersGames(t *testing.T) {
	for _, c := range []struct {
		method, selection string
		budget, games     int
		timeBudget        string
		want              int
	}{
		{config.MethodGA, config.SelectionPeers, 4000, 0, "", 6},   // (4000/20 − 64) / (3·6) = 7.6
		{config.MethodGA, config.SelectionPeers, 20000, 0, "", 32}, // 52, at most 32
		{config.MethodGA, config.SelectionPeers, 44000, 0, "", 32}, // gomoku's default budget
		{config.MethodGA, config.SelectionPeers, 1000, 0, "", 2},   // less than one game a pair: 2
		{config.MethodGA, config.SelectionPeers, 4000, 10, "", 10}, // given
		{config.MethodGA, config.SelectionPeers, 0, 0, "8h", 32},   // no game budget
		{config.MethodGA, config.SelectionRace, 4000, 0, "", 32},   // racing
		{config.MethodSPSA, config.SelectionRace, 4000, 0, "", 32}, // no GA
	} {
		cfg := config.DefaultConfig("amazons")
		cfg.Method, cfg.Selection, cfg.BudgetGames, cfg.Games, cfg.TimeBudget = c.method, c.selection, c.budget, c.games, c.timeBudget
		cfg.Resolve()
		if cfg.Games != c.want {
			t.Errorf("%s %s, budget %d games %d time %q: resolved games %d, want %d", c.method, c.selection, c.budget, c.games, c.timeBudget, cfg.Games, c.want)
		}
		again := cfg
		again.Resolve()
		if again.Games != cfg.Games {
			t.Errorf("Resolve is not idempotent: %d then %d", cfg.Games, again.Games)
		}
	}
}

// TestSelectionAuto: the default selection resolves to peers, or to racing for a run that
// names opponents or champions to race against; other methods store none; peers with
// opponents or champions is refused, naming the setting.
func TestSelectionAuto(t *testing.T) {
	for _, c := range []struct {
		method, selection string
		opponents         []string
		champions         int
		want              string
	}{
		{config.MethodGA, config.SelectionAuto, nil, 0, config.SelectionPeers},
		{config.MethodGA, config.SelectionAuto, []string{"cmd:./engine"}, 0, config.SelectionRace},
		{config.MethodGA, config.SelectionAuto, nil, 2, config.SelectionRace},
		{config.MethodGA, config.SelectionRace, nil, 0, config.SelectionRace},
		{config.MethodGA, "", nil, 0, ""}, // a run stored before peers: racing
		{config.MethodSPSA, config.SelectionAuto, nil, 0, ""},
		{config.MethodCMAES, config.SelectionPeers, nil, 0, ""},
	} {
		cfg := config.DefaultConfig("gomoku")
		cfg.Method, cfg.Selection, cfg.Opponents, cfg.Champions = c.method, c.selection, c.opponents, c.champions
		cfg.Resolve()
		if cfg.Selection != c.want {
			t.Errorf("%s %q, opponents %v, champions %d: resolved %q, want %q", c.method, c.selection, c.opponents, c.champions, cfg.Selection, c.want)
		}
	}
	for _, f := range []func(*config.Config){
		func(c *config.Config) { c.Opponents = []string{"cmd:./engine"} },
		func(c *config.Config) { c.Champions = 2 },
	} {
		cfg := config.DefaultConfig("gomoku")
		cfg.Method, cfg.Selection, cfg.Generations = config.MethodGA, config.SelectionPeers, 1
		f(&cfg)
		var se *config.SettingError
		if err := cfg.Validate(); !errors.As(err, &se) || (se.Key != "selection" && se.Key != "champions") {
			t.Errorf("peers with opponents or champions: %v, want a refusal naming the setting", err)
		}
	}
}

// TestPopulationChampion: with Config.Champion population, every generation's champion is
// the genome born in the slot after its individuals, operator population-centre, whose
// genes are the rank-weighted centre of the better half (weights ln(μ+½) − ln k for rank
// k, rounded as the layout rounds); the games are those of the same run with the hall of
// fame's centre as champion (the champion rule steers no game); and a run stopped after
// generation 2 and resumed ends exactly as the uninterrupted run.
func TestPopulationChampion(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	cfg.Generations, cfg.Population, cfg.AdmitGames, cfg.AdmitZ, cfg.VerifyGames = 4, 6, 8, 0, 8
	cfg.Champion = config.ChampionPopulation
	full := runSmall(t, cfg)
	l, err := genomes.Lookup("gomoku")
	if err != nil {
		t.Fatal(err)
	}
	layout := l.Layout
	genes := map[string]map[string]float64{}
	for _, g := range full.gens {
		for _, n := range g.NewGenomes {
			genes[n.ID] = n.Genes
		}
		want := genomes.IndividualID(1, g.Generation, cfg.Population)
		var born *record.GenomeRecord
		for i, n := range g.NewGenomes {
			if n.ID == want {
				born = &g.NewGenomes[i]
			}
		}
		if g.Champion != want || born == nil || born.Operator != config.OpPopulationCentre {
			t.Fatalf("gen %d: champion %s, want %s born as %s (%+v)", g.Generation, g.Champion, want, config.OpPopulationCentre, born)
		}
		mu := cfg.Population / 2
		var wsum float64
		for k := 1; k <= mu; k++ {
			wsum += math.Log(float64(mu)+0.5) - math.Log(float64(k))
		}
		for _, gene := range layout.Genes {
			var x float64
			for k := 1; k <= mu; k++ {
				x += (math.Log(float64(mu)+0.5) - math.Log(float64(k))) / wsum * genes[g.Individuals[k-1].ID][gene.Name]
			}
			if gene.Scale == genomes.Log && gene.Min > 0 {
				x = 0
				for k := 1; k <= mu; k++ {
					x += (math.Log(float64(mu)+0.5) - math.Log(float64(k))) / wsum * math.Log(genes[g.Individuals[k-1].ID][gene.Name])
				}
				x = math.Exp(x)
			}
			if got := born.Genes[gene.Name]; math.Abs(got-x) > 1e-6*math.Max(1, math.Abs(x)) && !(gene.Integer && math.Abs(got-x) <= 0.5) {
				t.Fatalf("gen %d: %s = %g, the better half's centre is %g", g.Generation, gene.Name, got, x)
			}
		}
	}
	if full.verification == nil || full.verification.Champion != full.gens[len(full.gens)-1].Champion {
		t.Fatalf("verified %+v, the last champion %s", full.verification, full.gens[len(full.gens)-1].Champion)
	}
	games := func(gens []record.GenerationRecord) string {
		var sb strings.Builder
		for _, g := range gens {
			for _, r := range g.GameResults {
				fmt.Fprintf(&sb, "%d %s %s %d %v %v\n", g.Generation, r.Individual, r.Opponent, r.Opening, r.Colour, r.Record.Moves)
			}
		}
		return sb.String()
	}
	hall := cfg
	hall.Champion = config.ChampionCentre
	if games(runSmall(t, hall).gens) != games(full.gens) {
		t.Fatal("the champion rule changed the games")
	}
	crashAndResume(t, cfg, full, 2)
}

// TestChampionAuto: a new run's auto champion and admission resolve to the population's
// centre and no admission test (its games go to the pairings) for an outside engine, to
// head-to-head tests for an outside engine whose champion comes from the hall of fame, to
// the hall of fame's centre and paired tests for a built-in game; a rule the run names is
// kept (none: no admission games), and a stored run's "" keeps its old meaning (best,
// paired).
func TestChampionAuto(t *testing.T) {
	for _, c := range []struct {
		engine, champion, admission, wantChampion, wantAdmission string
		wantAdmit                                                int // AdmitGames resolved (DefaultConfig: 64)
	}{
		{"", config.ChampionAuto, config.AdmissionAuto, config.ChampionCentre, config.AdmissionPaired, 64},
		{"cmd:toga2", config.ChampionAuto, config.AdmissionAuto, config.ChampionPopulation, config.AdmissionNone, 0},
		{"cmd:toga2", config.ChampionBest, config.AdmissionAuto, config.ChampionBest, config.AdmissionHeadToHead, 64},
		{"cmd:toga2", config.ChampionPopulation, config.AdmissionHeadToHead, config.ChampionPopulation, config.AdmissionHeadToHead, 64},
		{"cmd:toga2", config.ChampionCentre, config.AdmissionPaired, config.ChampionCentre, config.AdmissionPaired, 64},
		{"", config.ChampionPopulation, config.AdmissionHeadToHead, config.ChampionPopulation, config.AdmissionHeadToHead, 64},
		{"", config.ChampionCentre, config.AdmissionNone, config.ChampionCentre, config.AdmissionNone, 0},
		{"cmd:toga2", "", "", "", "", 64},
	} {
		cfg := config.DefaultConfig("chess")
		cfg.Engine, cfg.Champion, cfg.Admission = c.engine, c.champion, c.admission
		cfg.BudgetGames, cfg.Generations = 4000, 0
		cfg.Resolve()
		if cfg.Champion != c.wantChampion || cfg.Admission != c.wantAdmission || cfg.AdmitGames != c.wantAdmit {
			t.Errorf("engine %q, champion %q, admission %q: resolved to %q, %q, %d admission games; want %q, %q, %d",
				c.engine, c.champion, c.admission, cfg.Champion, cfg.Admission, cfg.AdmitGames, c.wantChampion, c.wantAdmission, c.wantAdmit)
		}
		// The pairs' games come from the budget less the admission tests' (peersGames):
		// without a test, each pair plays more.
		if want := config.PeersGames(4000, cfg.Population, cfg.RaceRounds, c.wantAdmit); cfg.Games != want {
			t.Errorf("engine %q, admission %q: %d games a pair, want %d", c.engine, c.admission, cfg.Games, want)
		}
	}
	if a, b := config.PeersGames(4000, 12, 2, 0), config.PeersGames(4000, 12, 2, 64); a <= b {
		t.Errorf("4 000 games: %d games a pair without admission tests, %d with", a, b)
	}
}
