package main

import (
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
	mu.Lock()
	defer mu.Unlock()
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
	if len(problems) > 0 {
		t.Fatalf("%d console errors or exceptions:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// exceptionText is an exception's message and where it was thrown.
func exceptionText(d *runtime.ExceptionDetails) string {
	s := ""
	if d.Exception != nil {
		s = d.Exception.Description
	}
	return fmt.Sprintf("%s (line %d, column %d)", s, d.LineNumber, d.ColumnNumber)
}
