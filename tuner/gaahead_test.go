package tuner

import (
	"context"
	"runtime"
	"testing"
	"time"

	"evotune/tuner/config"
	"evotune/tuner/ga"
)

// TestGAPlaysAheadSameRun: the GA that plays its next generation's pairings ahead, on
// slots its generation's last games leave free, saves the same run as the GA that waits for
// them (generations, genomes, games), and the games ahead were adopted in some generations
// (a guess right), while the GA that waits plays none ahead. The same holds for a GA with a
// surrogate child, whose pairing's games are played once it is bred, the rest ahead.
func TestGAPlaysAheadSameRun(t *testing.T) {
	scale := 0.2
	if raceDetector {
		scale = 1 // games as long as recorded: a guess takes the tuner several times longer
	}
	durs := recordedDurations(t, "gomoku", scale)
	run := func(noAhead bool, surrogate string) (string, *loopMethod) {
		cfg := replayConfig("gomoku", config.MethodGA, 16, 4000)
		cfg.Games = 8 // 144 pairing games a generation, 9 a slot
		cfg.Surrogate = surrogate
		var l *loopMethod
		opts := []Option{guessAlways()}
		if noAhead {
			opts = append(opts, withoutAhead())
		}
		fp := runReplayed(t, cfg, 16, durs, func(tu *Tuner) { l = tu.method.(*loopMethod) }, opts...)
		if _, _, inPlay := l.l.Ahead(); inPlay != 0 {
			t.Fatalf("noAhead %v: games ahead still in play after the run", noAhead)
		}
		return fp, l
	}
	adopted := func(l *loopMethod) int { n, _, _ := l.l.Ahead(); return n }
	fitted := func(l *loopMethod) int { _, _, n := l.l.Method().(*ga.Generational).Guessed(); return n }
	// aheadRuns runs the GA playing ahead until a run adopted games ahead (a guess made
	// while the last games of a generation play, before they end: on a busy machine the
	// tuner may guess too late in every generation of one run), at most three times; every
	// run must be the run that waits.
	aheadRuns := func(surrogate, waited string, done func(*loopMethod) bool) *loopMethod {
		var l *loopMethod
		for try := 0; try < 3 && (l == nil || !done(l)); try++ {
			var fp string
			fp, l = run(false, surrogate)
			if fp != waited {
				t.Fatalf("surrogate %s: the GA playing ahead saved another run than the GA that waits", surrogate)
			}
		}
		return l
	}
	waited, w := run(true, config.SurrogateOff)
	if used, stopped, _ := w.l.Ahead(); used+stopped != 0 {
		t.Errorf("the GA that waits played %d rounds ahead", used+stopped)
	}
	a := aheadRuns(config.SurrogateOff, waited, func(l *loopMethod) bool { return adopted(l) > 0 })
	used, stopped, _ := a.l.Ahead()
	t.Logf("%d generations played ahead adopted, %d stopped", used, stopped)
	if used == 0 {
		t.Errorf("no generation's games ahead were adopted (%d stopped)", stopped)
	}
	sWaited, _ := run(true, config.SurrogateOn)
	if sWaited == waited {
		t.Fatal("the surrogate child changed nothing in the run: the comparison tests nothing")
	}
	s := aheadRuns(config.SurrogateOn, sWaited, func(l *loopMethod) bool { return adopted(l) > 0 && fitted(l) > 0 })
	used, stopped, _ = s.l.Ahead()
	t.Logf("surrogate: %d generations played ahead adopted (%d guessed beside a fitted child), %d stopped", used, fitted(s), stopped)
	if used == 0 || fitted(s) == 0 {
		t.Errorf("surrogate: no generation's games ahead were adopted beside a fitted child (%d adopted, %d guessed beside one, %d stopped)", used, fitted(s), stopped)
	}
}

// TestCMAESPlaysAheadSameRun: CMA-ES on the run loop, whose next generation is guessed
// and played ahead while a generation's last games end, saves the same run as CMA-ES that
// waits for them, and some generation played ahead was adopted.
func TestCMAESPlaysAheadSameRun(t *testing.T) {
	durs := recordedDurations(t, "gomoku", 0.2)
	run := func(noAhead bool) (string, *loopMethod) {
		var l *loopMethod
		var opts []Option
		if noAhead {
			opts = append(opts, withoutAhead())
		}
		fp := runReplayed(t, replayConfig("gomoku", config.MethodCMAES, 16, 3000), 16, durs, func(tu *Tuner) { l = tu.method.(*loopMethod) }, opts...)
		if _, _, inPlay := l.l.Ahead(); inPlay != 0 {
			t.Fatalf("noAhead %v: a round ahead still in play after the run", noAhead)
		}
		return fp, l
	}
	waited, w := run(true)
	var a *loopMethod
	// Until a run adopted a generation played ahead (a guess made in time: on a busy
	// machine one run may guess too late in every generation), at most three runs, each
	// the run that waits.
	adopted := func(l *loopMethod) int { n, _, _ := l.l.Ahead(); return n }
	for try := 0; try < 3 && (a == nil || adopted(a) == 0); try++ {
		var ahead string
		if ahead, a = run(false); ahead != waited {
			t.Fatal("CMA-ES playing ahead saved another run than CMA-ES that waits")
		}
	}
	if used, stopped, _ := w.l.Ahead(); used+stopped != 0 {
		t.Errorf("CMA-ES that waits played %d rounds ahead", used+stopped)
	}
	if used, stopped, _ := a.l.Ahead(); used == 0 {
		t.Errorf("no generation played ahead was adopted (%d stopped)", stopped)
	}
}

// runReplayed runs cfg made with opts on `slots` replayed slots of game times durs,
// prepare given the tuner before it runs, and returns the saved run's fingerprint.
func runReplayed(t *testing.T, cfg config.Config, slots int, durs []time.Duration, prepare func(*Tuner), opts ...Option) string {
	r := newReplayRunner(slots, durs)
	defer r.close()
	st := &memStore{}
	tu, err := New(cfg, st, nil, "test", opts...)
	if err != nil {
		t.Fatal(err)
	}
	tu.SetRunner(r)
	prepare(tu)
	if _, err := tu.Run(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	return fingerprint(st.gens)
}

// TestGAJudgesGuessesOverCores: where the run's local game slots outnumber the processors,
// the GA's first guesses of its next generation are judged against the generation it
// breeds, and none is played ahead (a wrong guess's games would take processor time from
// the games that count).
func TestGAJudgesGuessesOverCores(t *testing.T) {
	cfg := smallConfig("gomoku", runtime.NumCPU()+1)
	cfg.Population, cfg.Generations, cfg.Games = 8, 5, 2 // 24 pairing games a generation
	cfg.Admission = config.AdmissionNone
	// A guess is made once a generation's last games are in play, as they end: on a busy
	// machine the loop may see them end all at once in every generation of one run.
	for try := 0; try < 3; try++ {
		tu, err := New(cfg, &memStore{}, nil, "test")
		if err != nil {
			t.Fatal(err)
		}
		l := tu.method.(*loopMethod)
		if _, err := tu.Run(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		if used, stopped, _ := l.l.Ahead(); used+stopped != 0 {
			t.Fatalf("%d slots on %d processors: %d rounds played ahead in the first generations", cfg.Workers, runtime.NumCPU(), used+stopped)
		}
		if tried, _, _ := l.l.Method().(*ga.Generational).Guessed(); tried > 0 {
			t.Logf("try %d: %d generations bred after a guess of them, none played", try, tried)
			return
		}
	}
	t.Error("no guess of a next generation was judged in three runs")
}
