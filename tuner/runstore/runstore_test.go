package runstore

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"evotune/db"
	"evotune/engine"
	"evotune/tuner"
)

// smallRun plays a small gomoku GA run (population 4, generations 0–1, at depths, with a
// verification of verifyGames games) into a new SQLite file through Store; the database
// closes with the test.
func smallRun(t *testing.T, depths []int, verifyGames int) (*db.DB, tuner.Config, *tuner.Tuner, tuner.Summary) {
	t.Helper()
	d, err := db.Open(context.Background(), filepath.Join(t.TempDir(), "e.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	cfg := tuner.DefaultConfig("gomoku")
	cfg.Method, cfg.Population, cfg.Generations, cfg.Games, cfg.AdmitGames = tuner.MethodGA, 4, 1, 4, 4
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
// depths, tuner.Plan) — not the game's default, as export wrote before the plan.
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
		distinct[tuner.Key(o)] = true
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
