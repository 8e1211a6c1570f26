package main

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"evotune/cmd/evotune/internal/browsertest"
)

// TestDashboardCrawl: headless Chromium follows every link of the dashboard from the runs
// page through five runs — the GA, SPSA, CMA-ES, the steady-state GA and a chess engine's
// UCI run — and their pages (charts, genes, analysis, lineage, individuals, generations,
// games); every page renders (none stays on "Loading…") and none logs a console error or
// throws. Links of one shape (an individual, a game, a generation) are followed a few
// times each per run, not every one of them.
func TestDashboardCrawl(t *testing.T) {
	long(t, "a crawl of every page of a stored run in headless chromium")
	ctx := browsertest.Context(t, 5*time.Minute)
	dir := t.TempDir()
	path := filepath.Join(dir, "crawl.db")
	book, err := filepath.Abs("../../engine/chess/testdata/two-ply.epd")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "detuned.yaml", detunedLayout)
	small := []string{"--game", "gomoku", "--depth", "1", "--verify-games", "4", "--db", path}
	for _, args := range [][]string{
		append([]string{"tune", "--name", "ga", "--method", "ga", "--pop", "4", "--games", "2", "--generations", "2", "--verify-every", "1"}, small...),
		append([]string{"tune", "--name", "spsa", "--method", "spsa", "--budget-games", "48", "--spsa-pairs", "4"}, small...),
		append([]string{"tune", "--name", "cmaes", "--method", "cmaes", "--budget-games", "48"}, small...),
		append([]string{"tune", "--name", "steady", "--method", "steady", "--pop", "4", "--games", "4", "--budget-games", "48"}, small...),
		{"tune", "--name", "uci", "--layout", "detuned.yaml", "--engine", "cmd:" + bin + " engine --game chess", "--method", "ga", "--pop", "4", "--games", "2",
			"--generations", "1", "--nodes", "100", "--book", book, "--verify-games", "4", "--db", path},
		{"verify", "1", "--individual", "1-g0-01", "--games", "2", "--db", path},
	} {
		if _, stderr, code := run(t, dir, args...); code != 0 {
			t.Fatalf("evotune %v: %s", args, stderr)
		}
	}
	port := freePort(t)
	_, out := start(t, dir, "serve", "--db", path, "--addr", "127.0.0.1:"+strconv.Itoa(port))
	waitFor(t, out, "dashboard of")
	base := "http://127.0.0.1:" + strconv.Itoa(port) + "/"

	var mu sync.Mutex
	var problems []string
	page := ""
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			problems = append(problems, fmt.Sprintf("%s: exception: %s %s", page, e.ExceptionDetails.Text, exceptionText(e.ExceptionDetails)))
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, fmt.Sprintf("%s: console.%s: %s", page, e.Type, strings.Join(args, " ")))
			}
		}
	})
	shape := regexp.MustCompile(`\d+-g\d+-\d+|/(game|generation)/\d+`)
	seen, perShape := map[string]bool{}, map[string]int{}
	queue := []string{"#/"}
	visited := 0
	for len(queue) > 0 {
		hash := queue[0]
		queue = queue[1:]
		mu.Lock()
		page = hash
		mu.Unlock()
		if err := chromedp.Run(ctx, chromedp.Navigate(base+hash),
			chromedp.Poll(`window.evotune && window.evotune.rendered === (location.hash || '#/')`, nil, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			var body string
			chromedp.Run(ctx, chromedp.Evaluate(`document.body.innerText.slice(0, 300)`, &body))
			t.Fatalf("%s did not render: %v; the page reads %q", hash, err, body)
		}
		visited++
		var links []string
		if err := chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll('a[href^="#/"]')].map(a => a.getAttribute('href'))`, &links)); err != nil {
			t.Fatal(err)
		}
		for _, l := range links {
			if seen[l] {
				continue
			}
			seen[l] = true
			// One shape per run: "#/run/3/individual/I", "#/run/3/game/N" …
			k := shape.ReplaceAllStringFunc(l, func(s string) string {
				if strings.HasPrefix(s, "/") {
					return s[:strings.LastIndex(s, "/")] + "/N"
				}
				return "I"
			})
			if perShape[k]++; perShape[k] <= 2 {
				queue = append(queue, l)
			}
		}
	}
	runs := 0
	for k := range perShape {
		if regexp.MustCompile(`^#/run/\d+$`).MatchString(k) {
			runs++
		}
	}
	t.Logf("visited %d pages of %d link shapes", visited, len(perShape))
	if runs < 5 || visited < 40 {
		t.Fatalf("the crawl reached %d runs and %d pages, want the 5 runs and their pages", runs, visited)
	}
	noProblems := func() {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if len(problems) > 0 {
			t.Fatalf("%d console errors or exceptions:\n%s", len(problems), strings.Join(problems, "\n"))
		}
	}
	noProblems()

	// The pages speak each method's words and their numbers read right.
	visit := func(hash string) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Navigate(base+hash),
			chromedp.Poll(`window.evotune && window.evotune.rendered === (location.hash || '#/')`, nil, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			t.Fatalf("%s did not render: %v", hash, err)
		}
	}
	check := func(what, js string) {
		t.Helper()
		var ok bool
		if err := chromedp.Run(ctx, chromedp.Evaluate(js, &ok)); err != nil || !ok {
			t.Errorf("%s: %s is not true (%v)", what, js, err)
		}
	}
	visit("#/")
	check("runs list: each run's method and progress", `[...document.querySelectorAll('#runs tbody tr')].map(r => r.children[3].textContent + ':' + /games|generations/.test(r.children[6].textContent)).sort().join(',') ===
		'CMA-ES:true,GA:true,GA:true,SPSA:true,steady-state GA:true'`)
	visit("#/run/2")
	check("SPSA run page: steps, the probes' distance", `evotune.charts.diversity.series[0].label === 'step' && evotune.charts.diversity.series[1].label === 'θ+ to θ−' && evotune.charts.speed.series[0].label === 'step'`)
	check("whole-number ticks on a generation axis", `(i => (typeof i === 'function' ? i(evotune.charts.score, 0, 0, 10, 50) : i)[0] === 1)(evotune.charts.score.axes[0].incrs)`)
	check("labels that differ", `new Set(distinctLabels(null, [0.0538, 0.054, 0.0542])).size === 3`)
	check("compact labels of a slice", `compactLabels(null, [1e7, 2500])[0] === '10M' && compactLabels(null, [1e7, 2500])[1] === '2.5K'`)
	check("no signed zero", `fmt(-0.04, 1) === '0.0' && fmt(-0.4, 1) === '-0.4'`)
	visit("#/run/2/analysis")
	check("SPSA analysis: why there is no importance, no error", `!!document.querySelector('#analysis-note') && !document.querySelector('#analysis-error') && !document.querySelector('#importance')`)
	visit("#/run/1")
	check("GA run page: every verification listed, the headline marked", `document.querySelectorAll('#verifications tbody tr').length === 2 && document.querySelectorAll('#verifications tr.headline').length === 1`)
	// A run that saved no generation says why instead of drawing empty charts.
	raw, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`INSERT INTO runs (name, game, status, seed, config, program_version, created_at, updated_at, error)
		VALUES ('empty', 'gomoku', 'stopped', 1, '{"method":"ga"}', 't', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 'stopped by a signal')`); err != nil {
		t.Fatal(err)
	}
	visit("#/run/6")
	check("a run without generations", `document.querySelector('#no-generations').textContent.startsWith('No generation was saved: the run stopped') && !document.querySelector('.chart')`)
	noProblems()
}

// exceptionText is an exception's message and where it was thrown.
func exceptionText(d *runtime.ExceptionDetails) string {
	s := ""
	if d.Exception != nil {
		s = d.Exception.Description
	}
	return fmt.Sprintf("%s (line %d, column %d)", s, d.LineNumber, d.ColumnNumber)
}
