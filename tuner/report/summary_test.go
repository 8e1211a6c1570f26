package report_test

import (
	"strings"
	"testing"
	"time"

	"evotune/engine"
	_ "evotune/tuner" // the methods, registered: a summary speaks its run's method
	"evotune/tuner/config"
	"evotune/tuner/record"
	"evotune/tuner/report"
)

// TestForfeitText: a run's forfeits are counted from its saved game rows and warned of,
// in stronger words when every game was one (such a run ended "finished" in silence).
func TestForfeitText(t *testing.T) {
	var s report.Summary
	s.RunID = 4
	lost := engine.GameRecord{Forfeit: "black (first player) forfeits: no answer in 5s"}
	s.CountRecords(record.GenerationRecord{GameResults: []record.GameResult{{Record: lost}, {Record: lost}}})
	if w := s.ForfeitText(); s.Forfeits != 2 || !strings.Contains(w, "every one of the run's 2 games") || !strings.Contains(w, "export-data 4 --table games") {
		t.Fatalf("all forfeits: %d counted, %q", s.Forfeits, w)
	}
	s.CountRecords(record.GenerationRecord{GameResults: []record.GameResult{{}, {}}})
	if w := s.ForfeitText(); s.GameRecords != 4 || !strings.HasPrefix(w, "warning: 2 of the run's 4 games") {
		t.Fatalf("half forfeits: %q", w)
	}
	if w := (report.Summary{GameRecords: 10}).ForfeitText(); w != "" {
		t.Fatalf("no forfeit: %q", w)
	}
}

// TestRunTextNothingSaved: a run stopped before its first generation says so, not "0 games
// … slot utilisation 0.0%".
func TestRunTextNothingSaved(t *testing.T) {
	got := report.Summary{RunID: 3, Status: "stopped", Method: config.MethodGA, Wall: 62 * time.Millisecond}.RunText()
	if got != "run 3 stopped after 62ms: no generation finished, so nothing was saved" {
		t.Fatalf("%q", got)
	}
}

// TestSlotHint: a run that kept under 90% of its slots busy because its method had no
// rounds in play is told which lag fills them, a GA how long its generations were and
// which method has no generation barrier; one with a lag, one slot, a busy or unmeasured
// run is told nothing.
func TestSlotHint(t *testing.T) {
	at := func(method string, lag, slots int, busy float64) report.Summary {
		return report.Summary{Method: method, Lag: lag, Slots: slots, SlotTime: time.Duration(busy * float64(time.Second)), SlotCapacity: time.Second}
	}
	ga := func(slots int, busy float64, gens, games int) report.Summary {
		s := at(config.MethodGA, 0, slots, busy)
		s.Generations, s.Games = gens, games
		return s
	}
	for _, c := range []struct {
		s    report.Summary
		want string
	}{
		{at(config.MethodCMAES, 0, 16, 0.79), "--cmaes-lag 1"},
		{at(config.MethodCMAES, 0, 16, 0.79), "--method spsa"},
		{at(config.MethodSPSA, 0, 8, 0.82), "--spsa-lag 8"},
		{at(config.MethodCMAES, 2, 16, 0.79), ""},
		{at(config.MethodSPSA, 8, 16, 0.5), ""},
		{at(config.MethodCMAES, 0, 16, 0.92), ""},
		{at(config.MethodCMAES, 0, 1, 0.5), ""},
		{ga(16, 0.6, 10, 5760), "576 games, 36.0 a slot"},
		{ga(16, 0.6, 10, 5760), "--method steady"},
		{ga(16, 0.6, 10, 5760), "--ga-lag 3"},
		{ga(16, 0.92, 10, 5760), ""},
		{ga(1, 0.6, 10, 5760), ""},
		{ga(16, 0.6, 0, 0), ""},                                     // nothing saved
		{report.Summary{Method: config.MethodCMAES, Slots: 16}, ""}, // not measured
	} {
		got := c.s.SlotHint()
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s lag %d, %d slots, %.0f%% busy: hint %q, want one naming %q", c.s.Method, c.s.Lag, c.s.Slots, 100*c.s.SlotUtilisation(), got, c.want)
		}
	}
}
