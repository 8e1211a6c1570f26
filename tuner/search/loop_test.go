package search

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/record"
	"evotune/tuner/report"
	"evotune/tuner/schedule"
)

// drawHost is a Host that only draws openings: draw k's are named by its key, so a draw
// made ahead and one made in its turn are the same exactly when their keys are.
type drawHost struct{ Host }

func (drawHost) Drawer(k arena.DrawKey, _ map[string]bool) (arena.Openings, error) {
	os := make(arena.Openings, k.N)
	for i := range os {
		os[i] = []string{fmt.Sprintf("g%d-s%d-%d", k.Gen, k.Stream, i)}
	}
	return os, nil
}

// windowMethod is a Method of a window of rounds in play, asked nothing.
type windowMethod struct {
	Method
	w int
}

func (m windowMethod) Window() int { return m.w }

// TestDrawsAhead: the loop draws the openings of as many rounds ahead as the method may
// have in play, each draw the one drawn in its turn, keeps the draw taken for rounds of
// the same draw, and drops it once a later draw is taken.
func TestDrawsAhead(t *testing.T) {
	h := drawHost{}
	l := NewLoop(h, &MethodEnv{}, windowMethod{w: 4}, LoopOptions{})
	for d := range 3 {
		os, _, err := l.draw(&Round{Draw: d, Pairs: 5}, StreamOpenings)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := h.Drawer(arena.DrawKey{Gen: d, Stream: StreamOpenings, N: 5}, nil)
		if fmt.Sprint(os) != fmt.Sprint(want) {
			t.Fatalf("draw %d: %v, drawn in its turn %v", d, os, want)
		}
		var ahead []int
		for _, k := range l.draws.Keys() {
			made, _ := l.draws.Take(k, nil)
			ahead = append(ahead, k.Gen)
			if in, _ := h.Drawer(k, nil); k.Stream != StreamOpenings || k.N != 5 || fmt.Sprint(made) != fmt.Sprint(in) {
				t.Fatalf("draw %v made ahead: %v, drawn in its turn %v", k, made, in)
			}
		}
		sort.Ints(ahead)
		if fmt.Sprint(ahead) != fmt.Sprint([]int{d, d + 1, d + 2, d + 3, d + 4}) {
			t.Fatalf("after draw %d the draws kept are %v, want it (for rounds of the same draw) and the next 4", d, ahead)
		}
	}
}

// planHost is a drawHost whose genomes play in-process, at the game's depth, on gomoku's
// board.
type planHost struct{ drawHost }

func (planHost) Side([]float64) (engine.Weights, *protocol.ExternalSpec, error) {
	return nil, nil, nil
}
func (planHost) DepthOf(int) int { return 0 }
func (planHost) Game() engine.Game {
	e, _ := genomes.Lookup("gomoku")
	return e.Game
}

// TestPlanOneEach: a round of one opponent each schedules player i against Opponents[i]
// alone, on every opening pair, player after player; without it player i meets opponent
// k mod 3 on opening pair k; and a round of one each with fewer opponents than players
// is refused by name.
func TestPlanOneEach(t *testing.T) {
	l := NewLoop(planHost{}, &MethodEnv{}, windowMethod{w: 1}, LoopOptions{})
	g := func(id string, x float64) *genomes.Genome { return &genomes.Genome{ID: id, X: []float64{x}} }
	players := []*genomes.Genome{g("a", 1), g("b", 2), g("c", 3)}
	opps := []*genomes.Genome{g("x", 4), g("y", 5), g("z", 6)}
	for _, oneEach := range []bool{true, false} {
		lr, err := l.plan(&Round{Label: "pairing", Players: players, Opponents: opps, Pairs: 3, OneEach: oneEach})
		if err != nil {
			t.Fatal(err)
		}
		if len(lr.b.Refs) != 3*3*2 || len(lr.b.Tasks) != 3*3*2 {
			t.Fatalf("one each %v: %d entries, %d games, want 18 of each", oneEach, len(lr.b.Refs), len(lr.b.Tasks))
		}
		for n, e := range lr.b.Refs {
			want := opps[e.Pair%3].ID
			if oneEach {
				want = opps[e.Ind].ID
			}
			if e.Ind != n/6 || e.Opp != want {
				t.Fatalf("one each %v: entry %d is player %d against %s on pair %d, want player %d against %s", oneEach, n, e.Ind, e.Opp, e.Pair, n/6, want)
			}
		}
	}
	_, err := l.plan(&Round{Label: "pairing", Players: players, Opponents: opps[:2], Pairs: 3, OneEach: true})
	if err == nil || !strings.Contains(err.Error(), "pairing: 3 players, 2 opponents") {
		t.Fatalf("one each with 2 opponents for 3 players: %v", err)
	}
}

// storeHost is a planHost that draws each opening named by its key (its draw's After
// included), records the exclusions of every draw, and keeps the generations the loop
// stores.
type storeHost struct {
	planHost
	excluded map[arena.DrawKey]int
	summary  report.Summary
	stored   []record.GenerationRecord
}

func (h *storeHost) Drawer(k arena.DrawKey, exclude map[string]bool) (arena.Openings, error) {
	h.excluded[k] = len(exclude)
	os := make(arena.Openings, k.N)
	for i := range os {
		os[i] = []string{fmt.Sprintf("g%d-s%d-a%d-%d", k.Gen, k.Stream, k.After, i)}
		if exclude[arena.Key(os[i])] {
			return nil, fmt.Errorf("draw %v: opening %v excluded", k, os[i])
		}
	}
	return os, nil
}
func (h *storeHost) Config() config.Config                   { return config.Config{} }
func (h *storeHost) Setup() arena.GameSetup                  { return arena.GameSetup{} }
func (h *storeHost) Tuning([]string)                         {}
func (h *storeHost) Summary() *report.Summary                { return &h.summary }
func (h *storeHost) SetGeneration(int)                       {}
func (h *storeHost) Elapsed() time.Duration                  { return 0 }
func (h *storeHost) Event(e record.Event) record.Event       { return e }
func (h *storeHost) CountGeneration(record.GenerationRecord) {}
func (h *storeHost) GameSlots() int                          { return 1 }
func (h *storeHost) SaveBehind(rec record.GenerationRecord, _ record.Event) error {
	h.stored = append(h.stored, rec)
	return nil
}

// toldMethod stores a generation when it is told the round whose Own is "last".
type toldMethod struct{ windowMethod }

func (toldMethod) Tell(r *Round) (*Told, error) {
	if r.Own != "last" {
		return nil, nil
	}
	return &Told{State: func() any { return nil }}, nil
}

// TestToldByGeneration: rounds of two generations told interleaved are stored each with
// its own generation, its openings in the order drawn and its games alone; a
// generation's Exclusive rounds draw after its earlier ones, excluding their openings,
// whatever the other generation drew; the budget counts every told round not yet stored.
func TestToldByGeneration(t *testing.T) {
	h := &storeHost{excluded: map[arena.DrawKey]int{}}
	l := NewLoop(h, &MethodEnv{}, toldMethod{windowMethod{w: 4}}, LoopOptions{})
	l.mark()
	g := func(id string, x float64) *genomes.Genome { return &genomes.Genome{ID: id, X: []float64{x}} }
	round := func(gen int, stream uint64, pairs int, own string) *Round {
		return &Round{Gen: gen, Stream: stream, Exclusive: true, Pairs: pairs, Label: fmt.Sprintf("generation %d", gen),
			Players: []*genomes.Genome{g("a", 1)}, Opponents: []*genomes.Genome{g("b", 2)}, Own: own}
	}
	rounds := []*Round{round(1, 2, 2, ""), round(2, 2, 3, ""), round(1, 4, 1, "last"), round(2, 4, 2, "last")}
	var lrs []*loopRound
	for _, r := range rounds { // asked in order, as the loop's start does
		lr, err := l.plan(r)
		if err != nil {
			t.Fatal(err)
		}
		l.drew(lr)
		lrs = append(lrs, lr)
	}
	wantKeys := []arena.DrawKey{{Gen: 1, Stream: 2, N: 2}, {Gen: 2, Stream: 2, N: 3}, {Gen: 1, Stream: 4, N: 1, After: 2}, {Gen: 2, Stream: 4, N: 2, After: 3}}
	for i, lr := range lrs {
		if lr.key != wantKeys[i] || h.excluded[lr.key] != lr.key.After {
			t.Fatalf("round %d drew %v excluding %d openings, want %v excluding %d", i, lr.key, h.excluded[lr.key], wantKeys[i], wantKeys[i].After)
		}
	}
	told := 0
	for i, lr := range lrs {
		lr.recs = make([]engine.GameRecord, len(lr.b.Tasks))
		for k := range lr.recs {
			lr.recs[k].Outcome = engine.BlackWins
		}
		out, err := l.tell(lr)
		if err != nil {
			t.Fatal(err)
		}
		told += len(lr.b.Tasks)
		if out == nil {
			if l.toldGames() != told {
				t.Fatalf("after round %d the budget counts %d told games, want %d", i, l.toldGames(), told)
			}
			continue
		}
		if err := l.save(out); err != nil {
			t.Fatal(err)
		}
		told -= h.stored[len(h.stored)-1].Games
	}
	if len(h.stored) != 2 || told != 0 {
		t.Fatalf("%d generations stored, %d games left told, want 2 and 0", len(h.stored), told)
	}
	for i, gen := range []int{1, 2} {
		rec := h.stored[i]
		a, b := lrs[i], lrs[i+2] // the generation's two rounds
		var want []string
		for _, o := range append(append(arena.Openings{}, a.openings...), b.openings...) {
			want = append(want, arena.Key(o))
		}
		var got []string
		for _, o := range rec.Openings {
			got = append(got, arena.Key(o))
		}
		if rec.Generation != gen || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("generation %d stored as %d with openings %v, want %v", gen, rec.Generation, got, want)
		}
		if n := len(a.b.Tasks) + len(b.b.Tasks); rec.Games != n || len(rec.GameResults) != n {
			t.Fatalf("generation %d stored %d games, %d rows, want its rounds' %d", gen, rec.Games, len(rec.GameResults), n)
		}
		for _, gr := range rec.GameResults {
			if gr.Opening >= len(rec.Openings) || !strings.HasPrefix(arena.Key(rec.Openings[gr.Opening]), fmt.Sprintf("g%d-", gen)) {
				t.Fatalf("generation %d stored a game on opening %d of %v", gen, gr.Opening, got)
			}
		}
	}
}

// TestPlanPairings: an Exclusive round of pairings draws each pairing's openings from its
// own stream after the generation's earlier openings and the round's earlier pairings',
// excluding them; pairing d's players meet their own opponents on its openings alone,
// numbered in the generation's openings, as game round GameRound+d; its pair scores are
// each player's on its pairing's pairs. A round of pairings that is not Exclusive is
// refused by name.
func TestPlanPairings(t *testing.T) {
	h := &storeHost{excluded: map[arena.DrawKey]int{}}
	l := NewLoop(h, &MethodEnv{}, windowMethod{w: 2}, LoopOptions{})
	g := func(id string, x float64) *genomes.Genome { return &genomes.Genome{ID: id, X: []float64{x}} }
	before, err := l.plan(&Round{Gen: 3, Stream: 50, Exclusive: true, Pairs: 1, Label: "test", Players: []*genomes.Genome{g("p", 9)}, Opponents: []*genomes.Genome{g("q", 8)}})
	if err != nil {
		t.Fatal(err)
	}
	l.drew(before)
	var players, opps []*genomes.Genome
	for i := range 6 {
		players = append(players, g(fmt.Sprint("a", i), float64(i)))
		opps = append(opps, g(fmt.Sprint("b", i), float64(10+i)))
	}
	r := &Round{Gen: 3, Exclusive: true, OneEach: true, Streams: []uint64{2, 18, 34}, Pairs: 2, GameRound: 4, Label: "pairings", Players: players, Opponents: opps}
	lr, err := l.plan(r)
	if err != nil {
		t.Fatal(err)
	}
	for d, st := range []uint64{2, 18, 34} {
		k := arena.DrawKey{Gen: 3, Stream: st, N: 2, After: 1 + 2*d}
		if n, ok := h.excluded[k]; !ok || n != k.After {
			t.Fatalf("pairing %d: draw %v excluding %d (made: %v), want it excluding %d", d, k, n, ok, k.After)
		}
	}
	if len(lr.openings) != 6 || len(lr.b.Refs) != 6*2*2 {
		t.Fatalf("%d openings, %d entries, want 6 and 24", len(lr.openings), len(lr.b.Refs))
	}
	for _, e := range lr.b.Refs {
		d := e.Ind / 2
		if e.Opp != opps[e.Ind].ID || e.Round != 4+d || e.Pair < 1+2*d || e.Pair >= 3+2*d {
			t.Fatalf("entry %+v: want player %d against %s on pairs %d–%d, game round %d", e, e.Ind, opps[e.Ind].ID, 1+2*d, 2+2*d, 4+d)
		}
		task := lr.b.Tasks[e.Task]
		if want := lr.openings[e.Pair-1]; fmt.Sprint(task.Opening) != fmt.Sprint(want) {
			t.Fatalf("entry %+v plays opening %v, want %v", e, task.Opening, want)
		}
	}
	recs := make([]engine.GameRecord, len(lr.b.Tasks))
	for i := range recs {
		recs[i].Outcome = engine.BlackWins
	}
	_, pairScore := schedule.Credit(&lr.b, recs, players, 0, nil)
	ps := lr.pairScores(pairScore)
	for i := range ps {
		if len(ps[i]) != 2 || ps[i][0] != 1 || ps[i][1] != 1 {
			t.Fatalf("player %d's pair scores %v, want [1 1] (a win and a loss on each pair)", i, ps[i])
		}
	}
	r.Exclusive = false
	if _, err := l.plan(r); err == nil || !strings.Contains(err.Error(), "pairings: 6 players in 3 pairings") {
		t.Fatalf("pairings not Exclusive: %v", err)
	}
}

// backlogMethod completes generations 1 and 2 on the tell of generation 1's round, told
// after generation 2's (the GA: a generation whose test is judged, then the next, which
// has none): Tell returns generation 1, Backlog generation 2, then none.
type backlogMethod struct {
	toldMethod
	left []int
}

func (m *backlogMethod) Tell(r *Round) (*Told, error) {
	if r.Gen != 1 {
		return nil, nil
	}
	m.left = []int{2}
	return &Told{}, nil
}

func (m *backlogMethod) Backlog() (int, *Told, error) {
	if len(m.left) == 0 {
		return 0, nil, nil
	}
	gen := m.left[0]
	m.left = m.left[1:]
	return gen, &Told{Record: record.GenerationRecord{Best: fmt.Sprint("backlog ", gen)}}, nil
}

// TestBacklog: generations a tell completes after the one it returns (Backlogger) are
// stored in order, each with its own rounds' games; a Told without State stores no method
// state.
func TestBacklog(t *testing.T) {
	h := &storeHost{excluded: map[arena.DrawKey]int{}}
	m := &backlogMethod{}
	l := NewLoop(h, &MethodEnv{}, m, LoopOptions{})
	l.mark()
	g := func(id string, x float64) *genomes.Genome { return &genomes.Genome{ID: id, X: []float64{x}} }
	var out *Told
	for _, gen := range []int{2, 1} {
		lr, err := l.plan(&Round{Gen: gen, Exclusive: true, Pairs: gen, Label: "r", Players: []*genomes.Genome{g("a", 1)}, Opponents: []*genomes.Genome{g("b", 2)}})
		if err != nil {
			t.Fatal(err)
		}
		l.drew(lr)
		lr.recs = make([]engine.GameRecord, len(lr.b.Tasks))
		if out, err = l.tell(lr); err != nil {
			t.Fatal(err)
		}
	}
	if out == nil {
		t.Fatal("generation 1's round told: nothing completed")
	}
	if err := l.save(out); err != nil {
		t.Fatal(err)
	}
	if err := l.backlog(); err != nil {
		t.Fatal(err)
	}
	if len(h.stored) != 2 || h.stored[0].Generation != 1 || h.stored[1].Generation != 2 || h.stored[1].Best != "backlog 2" {
		t.Fatalf("stored %d generations: %+v; want 1, then the backlog's 2", len(h.stored), h.stored)
	}
	for i, rec := range h.stored {
		if want := 2 * (i + 1); rec.Games != want || len(rec.Openings) != i+1 || rec.MethodState != nil {
			t.Fatalf("generation %d stored %d games, %d openings, method state %q; want its own %d games and %d openings, no state", rec.Generation, rec.Games, len(rec.Openings), rec.MethodState, want, i+1)
		}
	}
	if gen, more, _ := m.Backlog(); more != nil {
		t.Fatalf("the backlog still holds generation %d", gen)
	}
}

// TestDropRound: rounds a method drops are stopped and taken out of play, the others kept
// in order, and a dropped Exclusive round's draws are undone: asked again, it draws the
// same openings after its generation's earlier ones; a dropped round whose openings are
// not its generation's last drawn is refused by name.
func TestDropRound(t *testing.T) {
	h := &storeHost{excluded: map[arena.DrawKey]int{}}
	l := NewLoop(h, &MethodEnv{}, windowMethod{w: 4}, LoopOptions{})
	g := func(id string, x float64) *genomes.Genome { return &genomes.Genome{ID: id, X: []float64{x}} }
	round := func(gen int, stream uint64, label string) *Round {
		return &Round{Gen: gen, Stream: stream, Exclusive: true, Pairs: 2, Label: label, Players: []*genomes.Genome{g("a", 1)}, Opponents: []*genomes.Genome{g("b", 2)}}
	}
	var inPlay []*loopRound
	stopped := map[string]bool{}
	for _, r := range []*Round{round(1, 2, "pairings"), round(2, 2, "next pairings"), round(1, 4, "test"), round(1, 6, "defence")} {
		lr, err := l.plan(r)
		if err != nil {
			t.Fatal(err)
		}
		l.drew(lr)
		lr.stop = func() { stopped[r.Label] = true }
		inPlay = append(inPlay, lr)
	}
	test := inPlay[2].openings
	inPlay[2].r.Dropped, inPlay[3].r.Dropped = true, true
	kept, err := l.drop(inPlay)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 || kept[0].r.Label != "pairings" || kept[1].r.Label != "next pairings" || !stopped["test"] || !stopped["defence"] || stopped["pairings"] {
		t.Fatalf("kept %d rounds, stopped %v; want the two pairings, in order, and the test's two stopped", len(kept), stopped)
	}
	if n := len(l.drawn[1]); n != 2 {
		t.Fatalf("generation 1 holds %d openings drawn after the drop, want its pairings' 2", n)
	}
	again, err := l.plan(round(1, 4, "test"))
	if err != nil {
		t.Fatal(err)
	}
	if again.key.After != 2 || fmt.Sprint(again.openings) != fmt.Sprint(test) {
		t.Fatalf("the test asked again drew %v after %d, want %v after 2", again.openings, again.key.After, test)
	}
	l.drew(again)
	first := kept[0]
	first.r.Dropped = true
	if _, err := l.drop(kept); err == nil || !strings.Contains(err.Error(), "pairings: dropped, its openings not its generation's last drawn") {
		t.Fatalf("dropping generation 1's pairings with its test drawn after them: %v", err)
	}
}

// TestEndedBeside: a game's progress event counts the unsaved games ended beside its
// round, in its generation and in the other generations in play, until their generation
// is saved; so the ETA of a round just begun does not read as if the run had stopped.
func TestEndedBeside(t *testing.T) {
	var l Loop
	for i, c := range []struct{ gen, n, want int }{
		{1, 1, 0}, // generation 1's first game
		{1, 2, 0},
		{2, 1, 2}, // generation 2's first: generation 1's two beside it
		{1, 3, 1}, // generation 1's third: generation 2's one beside it
		{2, 2, 3},
	} {
		if got := l.endedBeside(c.gen, c.n); got != c.want {
			t.Fatalf("event %d (generation %d, game %d of its round): %d ended beside, want %d", i, c.gen, c.n, got, c.want)
		}
	}
	l.savedBefore(2) // generation 1 saved: its games are the run's now
	if got := l.endedBeside(2, 3); got != 0 {
		t.Fatalf("after generation 1 is saved: %d ended beside generation 2's third game, want 0", got)
	}
}
