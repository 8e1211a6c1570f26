package dashboard

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"evotune/cmd/evotune/internal/browsertest"
	"evotune/tuner/runview"
)

// TestOvernightRunBrowser: headless Chromium draws a synthesised 200 000-step run's page
// and genes from their samples: a score chart of every sampled step, the note that says
// it is a sample, steps saved later appended by the next poll (which asks for them alone),
// and one chart per gene.
func TestOvernightRunBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 800 000 rows")
	}
	ctx := browsertest.Context(t, 2*time.Minute)
	d, id, _ := overnightRun(t, 200000)
	srv := httptest.NewServer(Handler(d, Options{}))
	defer srv.Close()
	visit := func(hash, sel string) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/"+hash),
			chromedp.Poll(`window.evotune && window.evotune.rendered === (location.hash || '#/')`, nil),
			chromedp.WaitVisible(sel, chromedp.ByQuery)); err != nil {
			t.Fatalf("%s: waiting for %s: %v", hash, sel, err)
		}
	}
	eval := func(js string, v any) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Evaluate(js, v)); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
	}
	start := time.Now()
	visit(fmt.Sprintf("#/run/%d", id), `[data-chart="score"] canvas`)
	var points int
	var note string
	eval(`evotune.charts.score.data[0].length`, &points)
	eval(`document.querySelector('#sampled').textContent`, &note)
	t.Logf("run page drawn in %v: %d points; %q", time.Since(start), points, note)
	if points < runview.Buckets || points > 3*runview.Buckets+20 || note == "" {
		t.Fatalf("run page: %d points in the score chart, note %q", points, note)
	}
	// A live run: new steps saved while the page is open come with the next poll, which
	// asks for them alone (?from=) and appends them to the sample.
	for k := 200000; k < 200005; k++ {
		if _, err := d.SQL().Exec(`INSERT INTO generations (run_id, generation, fitness_min, fitness_mean, fitness_max, fitness_std, diversity, games, duration_ms, games_ms,
			best_individual, opponents, openings, method_state, created_at, elapsed_ms, champion)
			SELECT run_id, ?, fitness_min, fitness_mean, fitness_max, fitness_std, diversity, games, duration_ms, games_ms, best_individual, opponents, openings,
			method_state, created_at, elapsed_ms, champion FROM generations WHERE run_id = ? AND generation = 0`, k, id); err != nil {
			t.Fatal(err)
		}
		if _, err := d.SQL().Exec(`INSERT INTO individuals (run_id, generation, id, rank, fitness, score, games, wins, draws, losses, penta_0, penta_1, penta_2, penta_3, penta_4, score_se)
			SELECT run_id, ?, id, rank, fitness, score, games, wins, draws, losses, penta_0, penta_1, penta_2, penta_3, penta_4, score_se
			FROM individuals WHERE run_id = ? AND generation = 0`, k, id); err != nil {
			t.Fatal(err)
		}
	}
	var grown bool
	if err := chromedp.Run(ctx, chromedp.Poll(fmt.Sprintf("evotune.charts.score.data[0].length === %d", points+5), &grown, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		var fetched []string
		eval(`evotune.fetched`, &fetched)
		t.Fatalf("5 new steps did not reach the page within 10 s (%d points before): %v; fetched %q", points, err, fetched)
	}
	var fetched []string
	eval(`evotune.fetched`, &fetched)
	if want := fmt.Sprintf("/api/runs/%d?from=200000", id); !slices.Contains(fetched, want) {
		t.Fatalf("the poll did not ask for the new steps alone (%s): fetched %q", want, fetched)
	}
	points += 5
	visit(fmt.Sprintf("#/run/%d/genes", id), `#genes .gene canvas`)
	var charts, genePoints int
	eval(`document.querySelectorAll('#genes .gene').length`, &charts)
	eval(`Object.entries(evotune.charts).filter(([k]) => k.startsWith('gene:'))[0][1].data[0].length`, &genePoints)
	if charts < 10 || genePoints < runview.Buckets || genePoints > 3*runview.Buckets+20 { // a fresh sample of the 200 005 steps
		t.Fatalf("genes page: %d charts, %d points each (run page %d)", charts, genePoints, points)
	}
}
