package tuner

import (
	"strings"
	"testing"
	"time"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/record"
	"evotune/tuner/report"
)

// TestSummaryText: the summary speaks the run's method — its saved generations in the
// method's words, its champion as the method makes it.
func TestSummaryText(t *testing.T) {
	for _, c := range []struct {
		s          report.Summary
		saved      string
		championIn string
	}{
		{report.Summary{Method: config.MethodSPSA, Generations: 1, Best: "1-g0-00"}, "1 SPSA step", "θ after the last of 1 SPSA steps"},
		{report.Summary{Method: config.MethodCMAES, Generations: 4, Best: "1-g3-00"}, "4 CMA-ES generations", "the mean after the last of 4 CMA-ES generations"},
		{report.Summary{Method: "", Generations: 2, Best: "1-g1-03", BestScore: 0.625}, "2 generations", "the race winner of the last generation"},
		{report.Summary{Method: config.MethodGA, Generations: 3, Best: "1-g0-00", Baseline: "the paper's weights", BaselineChampion: true}, "3 generations", "No candidate has beaten them yet: no race winner reached a hall-of-fame test.\nnot verified"},
		{report.Summary{Method: config.MethodGA, Generations: 9, Best: "1-g8-12", CentreOf: []string{"1-g2-01", "1-g5-04"},
			Champion: &record.HallOfFamer{ID: "1-g5-04", Stats: genomes.Stats{Wins: 30, Losses: 10, Penta: [5]int{0, 2, 6, 6, 6}}}, HallOfFame: make([]record.HallOfFamer, 2)},
			"9 generations", "the centre of the hall of fame's 2 members"},
		{report.Summary{Method: config.MethodGA, Generations: 9, Best: "1-g8-12", ChampionRule: config.ChampionPopulation, HallOfFame: make([]record.HallOfFamer, 2)},
			"9 generations", "champion 1-g8-12: the centre of the last generation's better half by rank"},
		{report.Summary{Method: config.MethodGA, Lag: 3, Generations: 9, Best: "1-g8-12", ChampionRule: config.ChampionPopulation},
			"9 generations", "champion 1-g8-12: the mean of the last 4 generations' better-half centres"},
		{report.Summary{Method: config.MethodGA, Generations: 4, Best: "1-g2-05", Baseline: "the paper's weights", HallOfFame: []record.HallOfFamer{{ID: "1-g2-05"}}},
			"4 generations", "champion 1-g2-05: the hall of fame's one member, admitted head to head against the paper's weights"},
	} {
		c.s = summarised(c.s)
		if got := c.s.SavedText(); got != c.saved {
			t.Errorf("%s: saved %q, want %q", c.s.Method, got, c.saved)
		}
		if got := c.s.ChampionText(); !strings.Contains(got, c.championIn) {
			t.Errorf("%s: champion %q, want it to say %q", c.s.Method, got, c.championIn)
		}
	}
	cut := summarised(report.Summary{Method: config.MethodSPSA, Status: "finished", Generations: 10, Best: "1-g9-00", Games: 300, GameRecords: 300, BudgetGames: 1200, Wall: time.Second})
	if got := cut.ChampionText(); !strings.Contains(got, "the time budget ended the run at 25% of the 1200 games") {
		t.Errorf("SPSA cut by its time budget: %q", got)
	}
	if summarised(report.Summary{Method: config.MethodSPSA}).ChampionText() != "" {
		t.Error("a run without a champion has a champion line")
	}
	if got := (report.Summary{Method: "later", Best: "1-g3-00"}).ChampionText(); got != "champion 1-g3-00" {
		t.Errorf("a method this program does not know: champion line %q", got)
	}
	if got := cut.RunText(); !strings.HasPrefix(got, "run 0 finished: 10 SPSA steps saved, 300 games in 1s (300.0 games/s)") {
		t.Errorf("run line %q", got)
	}
}

// summarised is s with its method's summary line, as New gives a run's summary.
func summarised(s report.Summary) report.Summary {
	m, _ := specOf(s.Method)
	s.Summarise = m.Summarise
	return s
}

// TestETA: the time left from the game budget (bounded by the time budget), from the
// generations done, from the time budget alone, and unknown before anything is saved.
func TestETA(t *testing.T) {
	for _, c := range []struct {
		e     record.Event
		want  time.Duration
		known bool
	}{
		{record.Event{BudgetGames: 1000, RunGames: 250, Elapsed: time.Minute}, 3 * time.Minute, true},
		{record.Event{BudgetGames: 1000, RunGames: 250, Elapsed: time.Minute, Budget: 90 * time.Second}, 30 * time.Second, true},
		{record.Event{Generations: 4, Generation: 1, GenDone: true, Elapsed: time.Minute}, 90 * time.Second, true},
		{record.Event{Generations: 4, Generation: 1, Elapsed: time.Minute}, 4 * time.Minute, true},
		{record.Event{Budget: time.Hour, Elapsed: 10 * time.Minute}, 50 * time.Minute, true},
		{record.Event{Generations: 4}, 0, false},
		// A GA's first generation under a game budget: the batch in play counts (the ETA was
		// unknown, then ran high on saved games alone).
		{record.Event{BudgetGames: 1000, GamesDone: 100, Elapsed: 10 * time.Second}, 90 * time.Second, true},
		{record.Event{BudgetGames: 1000, RunGames: 200, GamesDone: 50, Elapsed: 25 * time.Second}, 75 * time.Second, true},
		{record.Event{BudgetGames: 1000, RunGames: 200, GenGames: 150, GamesDone: 50, Elapsed: 40 * time.Second}, 60 * time.Second, true},
	} {
		got, known := c.e.ETA()
		if got != c.want || known != c.known {
			t.Errorf("%+v: ETA %v %v, want %v %v", c.e, got, known, c.want, c.known)
		}
	}
}

// TestEngineLimitsText: an outside engine's limits as tune prints them.
func TestEngineLimitsText(t *testing.T) {
	for _, c := range []struct {
		c    config.Config
		want string
	}{
		{config.Config{}, ""},
		{config.Config{SubjectSettings: config.SubjectSettings{Engine: "cmd:e", Nodes: 300}}, "nodes 300"},
		{config.Config{SubjectSettings: config.SubjectSettings{Engine: "cmd:e", TC: "10+0.1", EngineDepth: 6}}, "tc 10+0.1 depth 6"},
		{config.Config{SubjectSettings: config.SubjectSettings{Engine: "cmd:e", EngineMoveTime: 2}}, "the engine's own limits (at most 2s a move)"},
	} {
		if got := c.c.EngineLimitsText(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.c, got, c.want)
		}
	}
}

// TestSummaryLag: a run's summary carries the lag its method declares (config.Method.Lag),
// which the slot hint reads.
func TestSummaryLag(t *testing.T) {
	for _, lag := range []int{0, 2} {
		cfg := config.DefaultConfig("gomoku")
		cfg.Method, cfg.CMAES = config.MethodCMAES, &config.CMAESConfig{Lag: lag}
		cfg.Resolve()
		tu, err := New(cfg, &memStore{}, nil, "test")
		if err != nil {
			t.Fatal(err)
		}
		if tu.rep.summary.Lag != lag {
			t.Errorf("a CMA-ES run at lag %d: its summary's lag %d", lag, tu.rep.summary.Lag)
		}
	}
}

// TestEarlySlotHint: a run in progress is told which setting fills its slots once it has
// saved EarlyHintGenerations generations and EarlyHintGames games a slot, on that
// generation's event alone; before then, and on every event after, nothing.
func TestEarlySlotHint(t *testing.T) {
	cfg := config.DefaultConfig("gomoku")
	cfg.Method, cfg.CMAES = config.MethodCMAES, &config.CMAESConfig{}
	cfg.Resolve()
	tu, err := New(cfg, &memStore{}, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	s := &tu.rep.summary
	s.Slots, s.SlotTime, s.SlotCapacity = 16, 800*time.Millisecond, time.Second // 80% busy
	var hints []int
	for gen := 1; gen <= 6; gen++ {
		s.Generations, s.Games = gen, gen*120 // 7.5 games a slot a generation
		if e := tu.event(record.Event{}); e.SlotHint != "" {
			t.Fatalf("generation %d: an event that saves nothing carries the hint", gen)
		}
		if e := tu.event(record.Event{GenDone: true}); e.SlotHint != "" {
			if !strings.Contains(e.SlotHint, "--cmaes-lag 1") {
				t.Errorf("generation %d: hint %q names no lag", gen, e.SlotHint)
			}
			hints = append(hints, gen)
		}
	}
	// 20 games a slot are 320, first saved by generation 3 (360 games), the third saved.
	if len(hints) != 1 || hints[0] != 3 {
		t.Fatalf("the hint came after generations %v, want once, after 3", hints)
	}
	for _, c := range []struct {
		gens, games int
		busy        float64
		want        bool
	}{
		{2, 1000, 0.8, false}, // too few generations
		{3, 319, 0.8, false},  // too few games a slot
		{3, 320, 0.8, true},
		{3, 320, 0.95, false}, // busy enough
	} {
		sum := report.Summary{Method: config.MethodCMAES, Slots: 16, Generations: c.gens, Games: c.games,
			SlotTime: time.Duration(c.busy * float64(time.Second)), SlotCapacity: time.Second}
		if got := sum.EarlySlotHint(); (got != "") != c.want {
			t.Errorf("%d generations, %d games, %.0f%% busy: early hint %q, want one: %v", c.gens, c.games, 100*c.busy, got, c.want)
		}
	}
}
