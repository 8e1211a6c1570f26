package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"evotune/db"
	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/runview"
	"evotune/tuner/spsa"
)

// gaRun writes a synthesised GA run of gens generations of pop individuals to d: every
// individual a genome of its own whose parents are two of the generation before, and a
// score that rises with gene planted (per within-generation SD) plus noise, as a race
// scores against the generation's references. It returns the run's ID.
func gaRun(t testing.TB, d *db.DB, gens, pop int, planted string) int64 {
	t.Helper()
	ctx := context.Background()
	cfg := config.DefaultConfig("gomoku")
	cj, _ := json.Marshal(cfg)
	id, err := d.CreateRun(ctx, db.Run{Name: "ga-night", Game: "gomoku", Seed: 1, Config: db.JSONText(cj), ProgramVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := d.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	entry, _ := genomes.Lookup("gomoku")
	lay := entry.Layout
	k := -1
	for i, g := range lay.Genes {
		if g.Name == planted {
			k = i
		}
	}
	if k < 0 || lay.Genes[k].Fixed {
		t.Fatalf("gene %s is not a free gene of gomoku's layout", planted)
	}
	rng := rand.New(rand.NewSource(2))
	genome, _ := tx.Prepare(`INSERT INTO genomes (run_id, id, born_generation, operator, parent1, parent2, genes) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	gen, _ := tx.Prepare(`INSERT INTO generations (run_id, generation, fitness_min, fitness_mean, fitness_max, fitness_std, diversity, games, duration_ms, games_ms,
		best_individual, opponents, openings, method_state, created_at, elapsed_ms, champion) VALUES (?, ?, 0.3, 0.5, 0.7, 0.1, 0.2, 576, 900, 880, ?, '[]', '[]', '{}', '2026-01-01T00:00:00Z', ?, ?)`)
	ind, _ := tx.Prepare(`INSERT INTO individuals (run_id, generation, id, rank, fitness, score, games, wins, draws, losses, penta_0, penta_1, penta_2, penta_3, penta_4, score_se)
		VALUES (?, ?, ?, ?, ?, ?, 96, 40, 16, 40, 4, 10, 20, 10, 4, 0.05)`)
	prev := make([]string, pop)
	for g := 0; g < gens; g++ {
		ids := make([]string, pop)
		scores := make([]float64, pop)
		for i := 0; i < pop; i++ {
			ids[i] = genomes.IndividualID(id, g, i)
			x := lay.Perturb(genomes.DefaultMutation, rng)
			genes, _ := json.Marshal(lay.Named(x))
			var p1, p2 any
			op := "initial"
			if g > 0 {
				p1, p2, op = prev[rng.Intn(pop)], prev[rng.Intn(pop)], "crossover+mutation"
			}
			if _, err := genome.Exec(id, ids[i], g, op, p1, p2, string(genes)); err != nil {
				t.Fatal(err)
			}
			// The planted gene's effect: +0.05 score per 0.25 ln units (the mutation's SD).
			scores[i] = 0.5 + 0.05*math.Log(x[k]/lay.Genes[k].Default)/0.25 + 0.02*rng.NormFloat64()
		}
		if _, err := gen.Exec(id, g, ids[0], int64(g)*900, ids[0]); err != nil {
			t.Fatal(err)
		}
		for i := range ids {
			if _, err := ind.Exec(id, g, ids[i], i+1, 1-scores[i], scores[i]); err != nil {
				t.Fatal(err)
			}
		}
		prev = ids
	}
	if _, err := tx.Exec(`UPDATE runs SET generations_done = ?, best_individual = ? WHERE id = ?`, gens, prev[0], id); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestLongRunsBounded: on a 50 000-step SPSA run (3 rows a step, as overnightRun writes
// them) and a 5 000-generation GA run of 12 individuals, every dashboard API response is at most 1 MB (their times are
// logged; BenchmarkLongRunAnalysis measures the analysis); the analysis reads whole
// generations, evenly spaced, about runview.MaxAnalysisRows rows of each, and still finds
// the gene planted in the GA run's scores as the most important.
func TestLongRunsBounded(t *testing.T) {
	d, spsaRun, _ := overnightRun(t, 50000)
	ga := gaRun(t, d, 5000, 12, "live_two")
	srv := httptest.NewServer(Handler(d, Options{}))
	defer srv.Close()
	get := func(path string, v any) int {
		t.Helper()
		start := time.Now()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := readAll(resp)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v %.200s", path, resp.StatusCode, err, body)
		}
		t.Logf("%s: %d bytes, %v", path, len(body), time.Since(start))
		if len(body) > 1<<20 {
			t.Errorf("%s: %d bytes, want at most 1 MB", path, len(body))
		}
		if v != nil {
			if err := json.Unmarshal(body, v); err != nil {
				t.Fatal(err)
			}
		}
		return len(body)
	}
	get("/api/runs", nil)
	for _, run := range []struct {
		id            int64
		gens, perGen  int
		last, ind     string
		wantImportant bool
	}{
		{spsaRun, 50000, 3, spsa.PlusID(spsaRun, 49999), spsa.PlusID(spsaRun, 49999), false},
		{ga, 5000, 12, genomes.IndividualID(ga, 4999, 0), genomes.IndividualID(ga, 4999, 3), true},
	} {
		base := fmt.Sprintf("/api/runs/%d", run.id)
		get(base, nil)
		get(base+"/genes", nil)
		get(base+"/lineage/"+run.last, nil)
		get(base+"/individuals/"+run.ind, nil)
		get(base+"/games?generation=4999", nil)
		var av runview.AnalysisView
		get(base+"/analysis", &av)
		total := run.gens * run.perGen
		if av.TotalRows != total || av.Stride < 2 || av.Rows > runview.MaxAnalysisRows+run.perGen || av.Rows < runview.MaxAnalysisRows/2 ||
			av.SliceRows != runview.MaxSliceRows || len(av.Lines) != runview.MaxParallelLines {
			t.Errorf("run %d analysis: %d of %d rows (stride %d), %d slice rows, %d lines", run.id, av.Rows, av.TotalRows, av.Stride, av.SliceRows, len(av.Lines))
		}
		if av.Groups != (run.gens+av.Stride-1)/av.Stride {
			t.Errorf("run %d analysis: %d generations read, want every %dth of %d", run.id, av.Groups, av.Stride, run.gens)
		}
		if !run.wantImportant {
			continue
		}
		best, bestCoef := "", 0.0
		for _, g := range av.Genes {
			if g.Coef != nil && math.Abs(*g.Coef) > bestCoef {
				best, bestCoef = g.Name, math.Abs(*g.Coef)
			}
		}
		if best != "live_two" {
			t.Errorf("run %d analysis: the most important gene is %q (%.4f), want the planted live_two", run.id, best, bestCoef)
		}
	}
}

// BenchmarkLongRunAnalysis: the analysis of a 5 000-generation GA run, computed afresh
// each time (go test -bench LongRunAnalysis ./cmd/evotune/dashboard).
func BenchmarkLongRunAnalysis(b *testing.B) {
	d, err := db.Open(context.Background(), filepath.Join(b.TempDir(), "ga.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	ids := make([]int64, 0, b.N)
	for range b.N {
		ids = append(ids, gaRun(b, d, 5000, 12, "live_two")) // a run per iteration: the cache never answers
	}
	b.ResetTimer()
	for _, id := range ids {
		if _, err := runview.Analysis(context.Background(), d, id); err != nil {
			b.Fatal(err)
		}
	}
}
