package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"evotune/db"
	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/runview"
	"evotune/tuner/spsa"
)

// overnightRun writes a synthesised SPSA run of steps steps to a new database (as an
// overnight run at 255 gomoku games/s leaves it: θ, θ+ and θ− each step, a checkpoint every
// 10 000 steps) and returns the database, the run's ID and its generations' best scores.
func overnightRun(t testing.TB, steps int) (*db.DB, int64, []float64) {
	t.Helper()
	ctx := context.Background()
	d, err := db.Open(ctx, filepath.Join(t.TempDir(), "night.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	cfg := config.DefaultConfig("gomoku")
	cfg.Method = config.MethodSPSA
	cj, _ := json.Marshal(cfg)
	id, err := d.CreateRun(ctx, db.Run{Name: "night", Game: "gomoku", Seed: 1, Config: db.JSONText(cj), ProgramVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := d.SQL().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	entry, _ := genomes.Lookup("gomoku")
	rng := rand.New(rand.NewSource(1))
	const pool = 300 // distinct genomes the rows cycle through
	ids := make([]string, pool)
	geneText := make([]string, pool)
	for i := range ids {
		ids[i] = genomes.IndividualID(id, 0, i)
		x := entry.Layout.Perturb(genomes.DefaultMutation, rng)
		genes, _ := json.Marshal(entry.Layout.Named(x))
		geneText[i] = string(genes)
		if _, err := tx.Exec(`INSERT INTO genomes (run_id, id, born_generation, operator, genes) VALUES (?, ?, 0, 'spsa', ?)`, id, ids[i], string(genes)); err != nil {
			t.Fatal(err)
		}
	}
	// θ+ of every step is a genome of its own in its slot (spsa.PlusID), as SPSA stores it.
	plusGenome, _ := tx.Prepare(`INSERT INTO genomes (run_id, id, born_generation, operator, genes) VALUES (?, ?, ?, 'spsa+', ?)`)
	gen, _ := tx.Prepare(`INSERT INTO generations (run_id, generation, fitness_min, fitness_mean, fitness_max, fitness_std, diversity, games, duration_ms, games_ms,
		best_individual, opponents, openings, method_state, created_at, elapsed_ms, champion) VALUES (?, ?, ?, 0.5, ?, 0.1, 0.2, 32, 125, 120, ?, '[]', '[]', '{"result":2}', '2026-01-01T00:00:00Z', ?, ?)`)
	ind, _ := tx.Prepare(`INSERT INTO individuals (run_id, generation, id, rank, fitness, score, games, wins, draws, losses, penta_0, penta_1, penta_2, penta_3, penta_4, score_se)
		VALUES (?, ?, ?, ?, ?, ?, 32, 10, 12, 10, 1, 3, 8, 3, 1, 0.05)`)
	cp, _ := tx.Prepare(`INSERT INTO checkpoints (run_id, generation, elapsed_ms, champion, depth, games, distinct_pairs, wins, draws, losses, score, elo, elo_ci95)
		VALUES (?, ?, ?, ?, 3, 1000, 500, 400, 300, 300, 0.55, 35, 20)`)
	best := make([]float64, steps)
	for k := 0; k < steps; k++ {
		f := 0.3 + 0.4*rng.Float64()
		best[k] = 1 - f
		theta, plus, minus := ids[k%pool], spsa.PlusID(id, k), ids[(k+2)%pool]
		if k > 0 { // step 0's θ+ slot is the pool's second genome
			if _, err := plusGenome.Exec(id, plus, k, geneText[(k+1)%pool]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := gen.Exec(id, k, f, 1-f, theta, int64(k)*125, theta); err != nil {
			t.Fatal(err)
		}
		for r, in := range []string{theta, plus, minus} {
			fit := []float64{0.5, f, 1 - f}[r]
			if _, err := ind.Exec(id, k, in, r+1, fit, 1-fit); err != nil {
				t.Fatal(err)
			}
		}
		if k%10000 == 0 {
			if _, err := cp.Exec(id, k, int64(k)*125, theta); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := tx.Exec(`UPDATE runs SET generations_done = ?, best_individual = ? WHERE id = ?`, steps, ids[(steps-1)%pool], id); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return d, id, best
}

// TestOvernightRunPages: a 200 000-step run's page and genes are served in under 1 MB each
// (their times are logged; BenchmarkOvernightRunPages measures them), as a sample of at most 3·runview.Buckets generations that
// keeps each bucket's best and worst step, the last step and every checkpoint; a window
// of 1 000 steps comes at full resolution; a bad window is a 400.
func TestOvernightRunPages(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 800 000 rows")
	}
	const steps = 200000
	d, id, best := overnightRun(t, steps)
	srv := httptest.NewServer(Handler(d, Options{}))
	defer srv.Close()
	get := func(path string, v any) (int, time.Duration) {
		t.Helper()
		var took []time.Duration
		var size int
		for i := 0; i < 3; i++ {
			start := time.Now()
			resp, err := http.Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			var body []byte
			body, err = readAll(resp)
			took = append(took, time.Since(start))
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("%s: %d %v %.200s", path, resp.StatusCode, err, body)
			}
			size = len(body)
			if err := json.Unmarshal(body, v); err != nil {
				t.Fatal(err)
			}
		}
		slicesSort(took)
		return size, took[1]
	}
	var rv runview.RunView
	size, took := get(fmt.Sprintf("/api/runs/%d", id), &rv)
	t.Logf("/api/runs/%d: %d bytes, %d of %d generations, %v", id, size, len(rv.Generations), rv.Total, took)
	if size > 1<<20 || !rv.Sampled || rv.Total != steps || len(rv.Generations) > 3*runview.Buckets+20 || len(rv.Generations) < runview.Buckets {
		t.Fatalf("run page: %d bytes, sampled %v, %d of %d generations", size, rv.Sampled, len(rv.Generations), rv.Total)
	}
	hi, lo := 0.0, 1.0
	for _, b := range best {
		hi, lo = max(hi, b), min(lo, b)
	}
	var shownHi, shownLo float64 = 0, 1
	checkpoints := 0
	for _, g := range rv.Generations {
		shownHi, shownLo = max(shownHi, g.BestScore), min(shownLo, g.BestScore)
		if g.Checkpoint != nil {
			checkpoints++
		}
		if g.PlusScore == nil {
			t.Fatalf("step %d: no θ+ score in the sample", g.Generation)
		}
	}
	if shownHi != hi || shownLo != lo || checkpoints != steps/10000 || rv.Generations[len(rv.Generations)-1].Generation != steps-1 {
		t.Fatalf("sample: best %v…%v (run %v…%v), %d checkpoints, last step %d", shownLo, shownHi, lo, hi, checkpoints, rv.Generations[len(rv.Generations)-1].Generation)
	}
	var gv runview.GenesView
	size, took = get(fmt.Sprintf("/api/runs/%d/genes", id), &gv)
	t.Logf("/api/runs/%d/genes: %d bytes, %d generations, %v", id, size, len(gv.Generations), took)
	if size > 1<<20 || !gv.Sampled || len(gv.Generations) != len(rv.Generations) || len(gv.Best) != len(gv.Genes) {
		t.Fatalf("genes: %d bytes, sampled %v, %d generations (run page %d)", size, gv.Sampled, len(gv.Generations), len(rv.Generations))
	}
	var zoom runview.RunView
	get(fmt.Sprintf("/api/runs/%d?from=5000&to=5999", id), &zoom)
	if zoom.Sampled || zoom.Total != 1000 || len(zoom.Generations) != 1000 || zoom.Generations[0].Generation != 5000 {
		t.Fatalf("window 5000–5999: sampled %v, %d of %d", zoom.Sampled, len(zoom.Generations), zoom.Total)
	}
	for _, bad := range []string{"?from=x", "?from=10&to=5", "?to=-3"} {
		resp, err := http.Get(srv.URL + fmt.Sprintf("/api/runs/%d", id) + bad)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("%s: status %d, want 400", bad, resp.StatusCode)
		}
	}
}

// BenchmarkOvernightRunPages: the time to serve a 200 000-step run's page and its genes
// (go test -bench OvernightRunPages ./cmd/evotune/dashboard).
func BenchmarkOvernightRunPages(b *testing.B) {
	d, id, _ := overnightRun(b, 200000)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := runview.Run(ctx, d, id); err != nil {
			b.Fatal(err)
		}
		if _, err := runview.Genes(ctx, d, id); err != nil {
			b.Fatal(err)
		}
	}
}

// TestConcurrentRequestsBounded: 400 requests at once are all answered, never more than
// MaxConcurrentAPI at a time (6 000 at once grew the server by 280 MB and 100 threads).
func TestConcurrentRequestsBounded(t *testing.T) {
	d, id, _ := overnightRun(t, 200)
	srv := httptest.NewServer(Handler(d, Options{}))
	defer srv.Close()
	tr := &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: 400}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	apiPeak.Store(0)
	const n = 400
	codes := make(chan int, n)
	for i := range n {
		go func() {
			path := fmt.Sprintf("/api/runs/%d", id)
			if i%2 == 1 {
				path += "/genes"
			}
			resp, err := client.Get(srv.URL + path)
			if err != nil {
				codes <- -1
				return
			}
			readAll(resp)
			codes <- resp.StatusCode
		}()
	}
	for range n {
		if c := <-codes; c != 200 {
			t.Fatalf("a request answered %d", c)
		}
	}
	if p := apiPeak.Load(); p > MaxConcurrentAPI || p < 1 {
		t.Fatalf("%d requests answered at once, want 1 to %d", p, MaxConcurrentAPI)
	}
}

// TestReleaseAfterBursts: memory is handed back when the last connection of a burst
// closes, once per burst, and not after a few connections.
func TestReleaseAfterBursts(t *testing.T) {
	var calls atomic.Int64
	freeOSMemory = func() { calls.Add(1) }
	defer func() { freeOSMemory = debug.FreeOSMemory }()
	hook := ReleaseAfterBursts()
	cycle := func(n int) {
		for range n {
			hook(nil, http.StateNew)
		}
		for range n {
			hook(nil, http.StateClosed)
		}
	}
	wait := func(want int64) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); calls.Load() != want; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d releases, want %d", calls.Load(), want)
			}
		}
	}
	cycle(3)
	cycle(BurstConnections)
	wait(1)
	cycle(BurstConnections + 10)
	wait(2)
	cycle(5)
	time.Sleep(50 * time.Millisecond)
	if calls.Load() != 2 {
		t.Fatalf("%d releases after a small cycle, want 2", calls.Load())
	}
}
