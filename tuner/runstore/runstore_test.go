package runstore

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"evotune/db"
	"evotune/engine"
	"evotune/tuner"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/report"
	"evotune/tuner/stats"
)

// smallRun plays a small gomoku GA run (population 4, generations 0–1, at depths, with a
// verification of verifyGames games) into a new SQLite file through Store; the database
// closes with the test.
func smallRun(t *testing.T, depths []int, verifyGames int) (*db.DB, config.Config, *tuner.Tuner, report.Summary) {
	t.Helper()
	d, err := db.Open(context.Background(), filepath.Join(t.TempDir(), "e.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	cfg := config.DefaultConfig("gomoku")
	cfg.Method, cfg.Population, cfg.Generations, cfg.Games, cfg.AdmitGames = config.MethodGA, 4, 1, 4, 4
	cfg.Depths, cfg.Workers, cfg.Seed, cfg.VerifyGames = depths, 2, 5, verifyGames
	tu, err := tuner.New(cfg, New(d, cfg.AdmitZ), nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := tu.Run(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return d, cfg, tu, sum
}

// TestRunRoundTrip plays a small GA run at mixed depths into a SQLite file through Store
// and reads it back in process: the resume state holds the last generation's population
// and every generation's openings and games, Openings their keys, and Export the
// champion's weights with the depth its verification played (the first of the mixed
// depths, config.Plan) — not the game's default, as export wrote before the plan.
func TestRunRoundTrip(t *testing.T) {
	ctx := context.Background()
	d, cfg, tu, sum := smallRun(t, []int{1, 2}, 4)
	st, err := LoadResume(ctx, d, sum.RunID, cfg.AdmitZ)
	if err != nil {
		t.Fatal(err)
	}
	gens, err := d.Generations(ctx, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	games := 0
	for _, g := range gens {
		games += g.Games
	}
	if st.LastGeneration != len(gens)-1 || len(gens) != 2 || len(st.Population) != cfg.Population || st.Games != games {
		t.Errorf("resume state: last generation %d of %d, population %d, games %d; want 1 of 2, %d, %d",
			st.LastGeneration, len(gens), len(st.Population), st.Games, cfg.Population, games)
	}
	for _, in := range st.Population {
		if len(in.Genes) != len(tu.RunLayout().Genes) || in.ID == "" {
			t.Errorf("individual %q: %d genes, want %d", in.ID, len(in.Genes), len(tu.RunLayout().Genes))
		}
	}
	keys, err := Openings(ctx, d, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for _, o := range st.Openings {
		distinct[arena.Key(o)] = true
	}
	if len(keys) == 0 || !reflect.DeepEqual(keys, distinct) {
		t.Errorf("Openings: %d keys, the resume state's openings %d distinct", len(keys), len(distinct))
	}
	run, err := d.Run(ctx, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Export(ctx, d, run, "", "evotune test", "")
	if err != nil {
		t.Fatal(err)
	}
	w, f, err := engine.ParseWeightsFile(ex.Data, tu.Setup().Game)
	if err != nil {
		t.Fatal(err)
	}
	if f.Search == nil || f.Search.Depth != 1 || f.Provenance.Individual != string(run.BestIndividual) {
		t.Errorf("exported search %+v, individual %s; want depth 1 (the verification's) and %s", f.Search, f.Provenance.Individual, run.BestIndividual)
	}
	champ, err := LoadIndividual(ctx, d, string(run.BestIndividual))
	if err != nil {
		t.Fatal(err)
	}
	x, _ := tu.RunLayout().FromNamed(champ.Genes)
	want, _ := tu.RunLayout().Weights(x)
	if !reflect.DeepEqual(w, want) {
		t.Errorf("exported weights %+v, want the champion's %+v", w, want)
	}
	if _, err := Export(ctx, d, run, "9-g0-00", "evotune test", ""); err == nil || !strings.Contains(err.Error(), "belongs to run 9") {
		t.Errorf("an individual of another run: error %v", err)
	}
}

// TestRunName: a name the user gives is refused when a run has it; without one, the first
// free GAME-seedS, GAME-seedS-2, … is taken.
func TestRunName(t *testing.T) {
	ctx := context.Background()
	d, cfg, _, sum := smallRun(t, []int{2}, 0)
	r, err := d.Run(ctx, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name = r.Name
	if _, err := RunName(ctx, d, cfg); err == nil || !strings.Contains(err.Error(), "already has this name") {
		t.Errorf("RunName(%q), a stored run's name: %v", r.Name, err)
	}
	cfg.Name = "fresh"
	if n, err := RunName(ctx, d, cfg); err != nil || n != "fresh" {
		t.Errorf("RunName(fresh) = %q, %v", n, err)
	}
	cfg.Name = ""
	if r.Name != "gomoku-seed5" {
		t.Fatalf("the stored run's name %q, want the default gomoku-seed5", r.Name)
	}
	if n, err := RunName(ctx, d, cfg); err != nil || n != "gomoku-seed5-2" {
		t.Errorf("RunName with gomoku-seed5 taken = %q, %v", n, err)
	}
}

// TestVerify verifies a stored run's champion on held-out openings and stores the result
// as the run's verification; the baseline, an odd --games and a bad --sprt are refused.
func TestVerify(t *testing.T) {
	ctx := context.Background()
	d, _, _, sum := smallRun(t, []int{1}, 0)
	run, err := d.Run(ctx, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var done int
	member := fmt.Sprintf("%d-g0-01", sum.RunID) // a perturbation of the paper's weights
	ver, id, err := Verify(ctx, d, VerifyRequest{Run: run, Individual: member, Games: 8, SPRT: "elo0=0,elo1=10", Openings: "random", Workers: 2,
		Progress: func(n, _ int, _ stats.Result) { done = n }})
	if err != nil {
		t.Fatal(err)
	}
	if id != member || ver.Games == 0 || ver.Games > 8 || done != ver.Games || ver.Champion != id {
		t.Errorf("verified %s (asked %s): %d games, progress %d", id, member, ver.Games, done)
	}
	after, err := d.Run(ctx, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(after.Verification), `"champion":"`+id+`"`) {
		t.Errorf("stored verification: %s", after.Verification)
	}
	// A second verify of the same ladder while a live process plays it is refused; one
	// whose claimant died takes the claim over (and, the ladder being complete, plays no
	// game); the claim goes when the verify ends.
	var key string
	if err := d.SQL().QueryRow(`SELECT ladder FROM verification_rungs WHERE run_id = ?`, sum.RunID).Scan(&key); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SQL().Exec(`INSERT INTO ladder_claims (run_id, ladder, pid, claimed_at) VALUES (?, ?, 1, '')`, sum.RunID, key); err != nil {
		t.Fatal(err)
	}
	again := VerifyRequest{Run: run, Individual: member, Games: 8, SPRT: "elo0=0,elo1=10", Openings: "random", Workers: 2}
	again.Alive = func(pid int) bool { return pid == 1 }
	if _, _, err := Verify(ctx, d, again); err == nil || !strings.Contains(err.Error(), "being played by process 1") {
		t.Errorf("a ladder another live process plays: %v, want refused", err)
	}
	again.Alive = func(int) bool { return false }
	if v, _, err := Verify(ctx, d, again); err != nil || v.ID != ver.ID {
		t.Errorf("a dead process's claim: verification %d, %v; want %d taken up again", v.ID, err, ver.ID)
	}
	var claims int
	d.SQL().QueryRow(`SELECT count(*) FROM ladder_claims`).Scan(&claims)
	if claims != 0 {
		t.Errorf("%d ladder claims left after the verifies ended", claims)
	}
	baseline := fmt.Sprintf("%d-g0-00", sum.RunID)
	for _, bad := range []struct {
		r    VerifyRequest
		want string
	}{
		{VerifyRequest{Run: run, Games: 7, Workers: 1}, "--games 7"},
		{VerifyRequest{Run: run, Games: 8, SPRT: "elo0=x", Workers: 1}, "--sprt"},
		{VerifyRequest{Run: run, Games: 8, Individual: baseline, Workers: 1}, "is the baseline"},
		{VerifyRequest{Run: run, Games: 8, Individual: "7-g0-01", Workers: 1}, "7-g0-01"},
	} {
		if _, _, err := Verify(ctx, d, bad.r); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("want an error naming %q, got %v", bad.want, err)
		}
	}
}

// TestProofOfEveryVerification: an export's proof is the headline verification rung by
// rung whether or not it has a ladder — a verification of the tuning condition alone is
// rung 0 with its Elo ± 95% and verdict (an OpenBench list's comment has no other place for
// it) — and only for the individual verified.
func TestProofOfEveryVerification(t *testing.T) {
	v := ladder.Verification{Champion: "1-g4-02", Games: 200, Elo: 35.5, EloCI95: 20.1, EloLow: 15.4, EloHigh: 55.6}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	proof := proofOf(string(b), "1-g4-02")
	if len(proof) != 1 || proof[0].Games != 200 || proof[0].Elo == nil || *proof[0].Elo != 35.5 || proof[0].Holds != ladder.HoldsYes || proof[0].Condition == "" {
		t.Fatalf("the proof of a verification without a ladder: %+v, want its one rung", proof)
	}
	if got := proofOf(string(b), "1-g4-03"); got != nil {
		t.Fatalf("another individual's export carries the proof %+v", got)
	}
	v.Ladder = []ladder.Verification{{Kind: ladder.RungDepth, Condition: "depth 5", Games: 100, Elo: -3, EloCI95: 40, Holds: ladder.HoldsNo}}
	b, _ = json.Marshal(v)
	if proof = proofOf(string(b), "1-g4-02"); len(proof) != 2 || proof[1].Condition != "depth 5" || proof[1].Holds != ladder.HoldsNo {
		t.Fatalf("the proof of a two-rung ladder: %+v", proof)
	}
}
