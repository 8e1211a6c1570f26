package dashboard

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"evotune/cmd/evotune/internal/browsertest"
)

// TestOvernightRunBrowser: headless Chromium draws a synthesised 200 000-step run's page
// and genes from their samples: a score chart of every sampled step, the note that says
// it is a sample, and one chart per gene.
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
	if points < Buckets || points > 3*Buckets+20 || note == "" {
		t.Fatalf("run page: %d points in the score chart, note %q", points, note)
	}
	visit(fmt.Sprintf("#/run/%d/genes", id), `#genes .gene canvas`)
	var charts, genePoints int
	eval(`document.querySelectorAll('#genes .gene').length`, &charts)
	eval(`Object.entries(evotune.charts).filter(([k]) => k.startsWith('gene:'))[0][1].data[0].length`, &genePoints)
	if charts < 10 || genePoints != points {
		t.Fatalf("genes page: %d charts, %d points each (run page %d)", charts, genePoints, points)
	}
}
