package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"evotune/cmd/evotune/dashboard"
	"evotune/cmd/evotune/internal/browsertest"
	"evotune/db"
	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/runview"
)

// evilName is a run name that would run a script if the page drew it as markup.
const evilName = `<img src=x onerror=alert(1)>`

// dashboardDB makes a database with a short gomoku run named evilName (held-out checks
// every generation) and a short 8×8 amazons run, as a user's tune would.
func dashboardDB(t *testing.T) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "dash.db")
	for _, args := range [][]string{
		// Racing and no hall of fame: the champion is each generation's race winner, the paper's weights
		// in generation 0 at this seed (a checkpoint not measured) and tuned ones after it.
		{"tune", "--game", "gomoku", "--method", "ga", "--selection", "race", "--pop", "6", "--games", "4", "--generations", "3", "--depth", "2", "--verify-games", "10",
			"--verify-every", "1", "--seed", "3", "--admit-games", "0", "--name", evilName, "--verify-depth", "3", "--verify-move-time", "5ms"},
		{"tune", "--game", "amazons", "--board", "8", "--method", "ga", "--pop", "4", "--games", "2", "--generations", "1", "--depth", "1",
			"--verify-games", "0", "--seed", "4"},
	} {
		if _, stderr, code := run(t, dir, append(args, "--db", path)...); code != 0 {
			t.Fatalf("evotune %v: %s", args, stderr)
		}
	}
	return dir, path
}

// gameWith returns the ID, moves and plies of a game of run with at least minPlies plies.
func gameWith(t *testing.T, d *db.DB, run, minPlies int) (int64, []string) {
	t.Helper()
	var id int64
	var moves string
	// A game won on the board (a line, not a forfeit or the ply limit), if there is one.
	if err := d.SQL().QueryRow(`SELECT id, moves FROM games WHERE run_id = ? AND plies >= ?
		ORDER BY (result != '1/2-1/2' AND forfeit IS NULL) DESC, id LIMIT 1`, run, minPlies).Scan(&id, &moves); err != nil {
		t.Fatalf("no game of run %d with %d plies: %v", run, minPlies, err)
	}
	var ms []string
	if err := json.Unmarshal([]byte(moves), &ms); err != nil {
		t.Fatal(err)
	}
	return id, ms
}

// TestDashboardAPI checks the dashboard's JSON against the database without a browser:
// errors, a run's generations, the lineage and a replayed game's frames.
func TestDashboardAPI(t *testing.T) {
	_, path := dashboardDB(t)
	d, err := db.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	srv := httptest.NewServer(dashboard.Handler(d, dashboard.Options{}))
	defer srv.Close()
	get := func(url string, want int, v any) {
		t.Helper()
		resp, err := http.Get(srv.URL + url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("GET %s: status %d, want %d", url, resp.StatusCode, want)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Fatalf("GET %s: Content-Security-Policy %q", url, csp)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
	}
	var e map[string]string
	get("/api/runs/99", 404, &e)
	if !strings.Contains(e["error"], "run 99") {
		t.Fatalf("missing run: %v", e)
	}
	get("/api/runs/x", 400, &e)
	get("/api/runs/1/games/123456", 404, &e)
	get("/api/runs/1/lineage/nobody", 404, &e)
	get("/api/runs/1/individuals/1-g9-99", 404, &e)
	// An individual's page: its genes in the layout's order beside the paper's, its rows of
	// every generation it played, and exactly the games it played in (as either side).
	r1, err := d.Run(context.Background(), 1)
	if err != nil || r1.BestIndividual == "" {
		t.Fatalf("run 1 has no best individual to look at: %v", err)
	}
	best := string(r1.BestIndividual)
	var iv runview.IndividualView
	get("/api/runs/1/individuals/"+best, 200, &iv)
	hist, _ := d.History(context.Background(), 1, best)
	var nGames int
	d.SQL().QueryRow("SELECT count(*) FROM games WHERE run_id = 1 AND (individual = ? OR opponent = ?)", best, best).Scan(&nGames)
	lay := genomes.GomokuLayout()
	names := []string{}
	for _, g := range iv.Genes {
		names = append(names, g.Name)
	}
	wantNames := []string{}
	for _, g := range lay.Genes {
		wantNames = append(wantNames, g.Name)
	}
	if iv.ID != best || strings.Join(names, ",") != strings.Join(wantNames, ",") || iv.Genes[0].Default != lay.Genes[0].Default ||
		len(iv.History) == 0 || len(iv.History) != len(hist) || iv.HallOfFame != nil || nGames == 0 || len(iv.Games) != min(nGames, runview.MaxIndividualGames) {
		t.Fatalf("individual %s: genes %v, %d history rows (db %d), hall of fame %v (the run keeps none), %d games (db %d)", best, names, len(iv.History), len(hist), iv.HallOfFame, len(iv.Games), nGames)
	}
	for _, g := range iv.Games {
		if g.Individual != iv.ID && g.Opponent != iv.ID {
			t.Fatalf("individual %s: game %d is %s against %s", iv.ID, g.ID, g.Individual, g.Opponent)
		}
	}
	// The analysis: one slice per gene over every individual row that played, sorted by the
	// gene's value; an effect for every free gene that varies, none for fixed genes.
	var av runview.AnalysisView
	get("/api/runs/1/analysis", 200, &av)
	var played int
	d.SQL().QueryRow("SELECT count(*) FROM individuals WHERE run_id = 1 AND games > 0").Scan(&played)
	effects := 0
	for i, g := range av.Genes {
		if len(g.Values) != played || len(g.Scores) != played || !slices.IsSorted(g.Values) {
			t.Fatalf("analysis: slice %s has %d values (sorted: %v), %d rows played", g.Name, len(g.Values), slices.IsSorted(g.Values), played)
		}
		if lay.Genes[i].Fixed && g.Coef != nil {
			t.Fatalf("analysis: fixed gene %s has an effect", g.Name)
		}
		if g.Coef != nil {
			effects++
			if g.CI95 == nil || *g.CI95 <= 0 || g.SD == nil || *g.SD <= 0 {
				t.Fatalf("analysis: gene %s effect %v ± %v, SD %v", g.Name, *g.Coef, g.CI95, g.SD)
			}
		}
	}
	if len(av.Lines) != min(played, runview.MaxParallelLines) || len(av.Lines[0].Values) != len(lay.Genes) {
		t.Fatalf("analysis: %d parallel lines of %d values, %d rows played", len(av.Lines), len(av.Lines[0].Values), played)
	}
	if av.Rows != played || len(av.Genes) != len(lay.Genes) || effects == 0 || av.Error != nil || av.R2 == nil {
		t.Fatalf("analysis: %d rows (db %d), %d genes, %d effects, error %v", av.Rows, played, len(av.Genes), effects, av.Error)
	}
	var runs []runview.RunItem
	get("/api/runs", 200, &runs)
	if len(runs) != 2 || runs[1].Name != evilName || runs[1].Verified == nil {
		t.Fatalf("runs: %+v", runs)
	}
	var rv runview.RunView
	get("/api/runs/1", 200, &rv)
	gens, err := d.Generations(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(rv.Generations) != len(gens) || len(gens) != 4 {
		t.Fatalf("run page has %d generations, the database %d", len(rv.Generations), len(gens))
	}
	for i, g := range rv.Generations {
		if g.BestScore != 1-gens[i].FitMin || g.Checkpoint == nil || g.BestSE == nil {
			t.Fatalf("generation %d: %+v (database %+v)", i, g, gens[i])
		}
	}
	if rv.Generations[0].PlusScore != nil {
		t.Fatalf("a GA run's generation has an SPSA step score: %+v", rv.Generations[0])
	}
	// An SPSA run: each step's θ+ score against θ− (rank 2), with its standard error.
	dir := filepath.Dir(path)
	if _, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--method", "spsa", "--depth", "2", "--budget-games", "96", "--verify-games", "0", "--seed", "6", "--db", path); code != 0 {
		t.Fatalf("spsa tune: %s", stderr)
	}
	var sv runview.RunView
	get("/api/runs/3", 200, &sv)
	if len(sv.Generations) != 3 {
		t.Fatalf("SPSA run page has %d steps, want 3 (96 games of 32)", len(sv.Generations))
	}
	for _, g := range sv.Generations {
		var score float64
		if err := d.SQL().QueryRow("SELECT score FROM individuals WHERE run_id = 3 AND generation = ? AND rank = 2", g.Generation).Scan(&score); err != nil {
			t.Fatal(err)
		}
		if g.PlusScore == nil || *g.PlusScore != score || g.PlusSE == nil {
			t.Fatalf("step %d: θ+ score %v ± %v, the database's θ+ %v", g.Generation, g.PlusScore, g.PlusSE, score)
		}
	}
	// Every view says the run's method and speaks its terms: a GA run, the SPSA run and a
	// CMA-ES run.
	if rv.Run.Method != config.MethodGA || rv.Run.MethodTerms == nil || rv.Run.MethodTerms.Generation != "generation" ||
		sv.Run.Method != config.MethodSPSA || sv.Run.MethodTerms == nil || sv.Run.MethodTerms.Generation != "step" {
		t.Fatalf("methods: GA run %q %+v, SPSA run %q %+v", rv.Run.Method, rv.Run.MethodTerms, sv.Run.Method, sv.Run.MethodTerms)
	}
	if _, stderr, code := runIn(t, dir, "tune", "--game", "gomoku", "--depth", "2", "--method", "cmaes", "--budget-games", "60", "--cmaes-pairs", "1", "--verify-games", "0", "--db", path); code != 0 {
		t.Fatalf("cmaes tune: %s", stderr)
	}
	var cv runview.RunView
	get("/api/runs/4", 200, &cv)
	var cg runview.GenesView
	get("/api/runs/4/genes", 200, &cg)
	if cv.Run.Method != config.MethodCMAES || cv.Run.MethodTerms == nil || cv.Run.MethodTerms.Title != "CMA-ES" || cg.Run.Method != config.MethodCMAES ||
		len(cv.Generations) == 0 || cv.Generations[0].PlusScore != nil {
		t.Fatalf("CMA-ES run: %q %+v, genes %q, %d generations", cv.Run.Method, cv.Run.MethodTerms, cg.Run.Method, len(cv.Generations))
	}
	id, moves := gameWith(t, d, 1, 12)
	var gv runview.GameView
	get(fmt.Sprintf("/api/runs/1/games/%d", id), 200, &gv)
	if gv.Error != nil || len(gv.Frames) != len(moves)+1 || gv.Size != 15 || gv.OpeningPlies == 0 {
		t.Fatalf("game %d: %d frames for %d moves, size %d, error %v", id, len(gv.Frames), len(moves), gv.Size, gv.Error)
	}
	for k, f := range gv.Frames {
		if n := strings.Count(strings.Join(f, ""), "B") + strings.Count(strings.Join(f, ""), "W"); n != k {
			t.Fatalf("frame %d has %d stones", k, n)
		}
	}
}

// TestDashboardBrowser drives the dashboard in a real browser: `evotune serve` on a real database from
// a short tune, driven in headless Chromium through the runs page, a run page, the genes
// view, a lineage and replayed Gomoku and Amazons games, asserting what is drawn; a run
// named <img src=x onerror=alert(1)> shows as text and opens no dialog. Screenshots go to
// $EVOTUNE_SCREENSHOTS when it is set.
func TestDashboardBrowser(t *testing.T) {
	long(t, "every page of the dashboard in headless chromium")
	ctx := browsertest.Context(t, 3*time.Minute)
	dir, path := dashboardDB(t)
	port := freePort(t)
	_, out := start(t, dir, "serve", "--db", path, "--addr", "127.0.0.1:"+strconv.Itoa(port))
	waitFor(t, out, "dashboard of")
	base := "http://127.0.0.1:" + strconv.Itoa(port) + "/"

	d, err := db.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	dialogs := 0
	chromedp.ListenTarget(ctx, func(ev any) {
		if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			dialogs++
			go chromedp.Run(ctx, page.HandleJavaScriptDialog(true))
		}
	})
	shots := os.Getenv("EVOTUNE_SCREENSHOTS")
	shot := func(name string) {
		if shots == "" {
			return
		}
		var buf []byte
		if err := chromedp.Run(ctx, chromedp.FullScreenshot(&buf, 100)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eval := func(js string, v any) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Evaluate(js, v)); err != nil {
			t.Fatalf("%s: %v", js, err)
		}
	}
	visit := func(hash, sel string) {
		t.Helper()
		// The views share one page: wait until this hash's view is drawn, then for sel.
		if err := chromedp.Run(ctx, chromedp.Navigate(base+hash),
			chromedp.Poll(`window.evotune && window.evotune.rendered === (location.hash || '#/')`, nil),
			chromedp.WaitVisible(sel, chromedp.ByQuery)); err != nil {
			t.Fatalf("%s: waiting for %s: %v", hash, sel, err)
		}
	}

	// Runs page: both runs, the evil name as text.
	visit("#/", "#runs")
	var rows int
	var name string
	var imgs int
	eval(`document.querySelectorAll('#runs tbody tr').length`, &rows)
	eval(`document.querySelector('#runs tr[data-run="1"] td.name').textContent`, &name)
	eval(`document.querySelectorAll('img').length`, &imgs)
	if rows != 2 || name != evilName || imgs != 0 {
		t.Fatalf("runs page: %d rows, name %q, %d img elements", rows, name, imgs)
	}
	// Times in the browser's zone to the second, with how long ago (not raw RFC 3339).
	var updated string
	eval(`document.querySelector('#runs tr[data-run="1"] td:nth-child(11)').textContent`, &updated)
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d+ (s|min) ago\)$`).MatchString(updated) {
		t.Fatalf("runs page: updated %q, want local time and how long ago", updated)
	}
	shot("runs")
	// Live: a run written while the page is open appears without a reload.
	if _, stderr, code := run(t, dir, "tune", "--game", "gomoku", "--method", "ga", "--pop", "4", "--games", "2", "--generations", "1", "--depth", "1",
		"--verify-games", "0", "--seed", "8", "--name", "live-run", "--db", path); code != 0 {
		t.Fatalf("tune while serving: %s", stderr)
	}
	liveCtx, cancelLive := context.WithTimeout(ctx, 20*time.Second)
	err = chromedp.Run(liveCtx, chromedp.Poll(`document.querySelectorAll('#runs tbody tr').length === 3 &&
		document.querySelector('#runs tr[data-run="3"] td.name').textContent === 'live-run'`, nil))
	cancelLive()
	if err != nil {
		t.Fatalf("the runs page did not show the new run within 20 s: %v", err)
	}

	// Run page: one point per generation in the score chart, one per checkpoint in Elo.
	visit("#/run/1", `[data-chart="score"] canvas`)
	var points, eloPoints, genRows int
	var title string
	eval(`evotune.charts.score.data[0].length`, &points)
	eval(`Number(document.querySelector('[data-chart="elo"]').dataset.points)`, &eloPoints)
	eval(`document.querySelectorAll('#generations tr[data-generation]').length`, &genRows)
	eval(`document.querySelector('h1.run-name').textContent`, &title)
	cps, err := d.Checkpoints(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	measured := 0
	for _, c := range cps {
		if c.Games > 0 {
			measured++
		}
	}
	if points != 4 || genRows != 4 || eloPoints != measured || measured == 0 || measured == len(cps) || len(cps) != 4 || title != evilName {
		t.Fatalf("run page: %d score points, %d generation rows, %d Elo points for %d checkpoints (%d measured), title %q", points, genRows, eloPoints, len(cps), measured, title)
	}
	// The run's proof: its verification ladder, one row per rung, each with its Elo and
	// whether the gain holds, as stored.
	var proof []string
	eval(`[...document.querySelectorAll('#proof tbody tr')].map(r => [...r.cells].map(c => c.textContent).join('|'))`, &proof)
	ladder := strings.Split(sqlite(t, path, `SELECT rung || '|' || condition || '|' || games || '|' || printf('%+.1f', elo) || '|' || holds FROM rung_list WHERE run_id = 1 AND verification_id IS NOT NULL ORDER BY rung`), "\n")
	if len(proof) != 3 || len(ladder) != 3 {
		t.Fatalf("run page proof rows %q, stored rungs %q", proof, ladder)
	}
	for i, row := range proof {
		f, s := strings.Split(row, "|"), strings.Split(ladder[i], "|")
		if f[0] != s[0] || f[1] != s[1] || f[2] != s[2] || !strings.HasPrefix(strings.ReplaceAll(f[3], "−", "-"), s[3]) || f[5] != s[4] {
			t.Errorf("proof row %d: %q, stored %q", i, row, ladder[i])
		}
	}
	if !strings.Contains(proof[1], "depth 3") || !strings.Contains(proof[2], "movetime 0.005 s") {
		t.Errorf("proof rows %q: want depth 3, then movetime 0.005 s", proof)
	}
	shot("proof")
	// A second verification with a ladder of its own: the verifications table lists each
	// one's other rungs.
	if _, stderr, code := run(t, dir, "verify", "1", "--games", "4", "--verify-depth", "2", "--db", path); code != 0 {
		t.Fatalf("verify: %s", stderr)
	}
	visit("#/run/1", "#verifications")
	var verRungs []string
	eval(`[...document.querySelectorAll('#verifications tbody td.rungs')].map(c => c.textContent)`, &verRungs)
	if len(verRungs) != 2 || !strings.Contains(verRungs[0], "depth 3") || !strings.Contains(verRungs[1], "depth 2") {
		t.Fatalf("verifications' rungs %q, want the first's depth 3 rung and the second's depth 2", verRungs)
	}
	// Polls ask only for the generations after the last one the page has, and the page
	// stays the same (nothing new in a finished run).
	var polled bool
	pollURL := fmt.Sprintf("/api/runs/1?from=%d", points) // after generations 0…points−1
	if err := chromedp.Run(ctx, chromedp.Poll(fmt.Sprintf("evotune.fetched.includes(%q)", pollURL), &polled, chromedp.WithPollingTimeout(10*time.Second))); err != nil || !polled {
		var fetched []string
		eval(`evotune.fetched`, &fetched)
		t.Fatalf("no incremental poll of the run page (%s) within 10 s: %v, fetched %q", pollURL, err, fetched)
	}
	var pointsAfter int
	eval(`evotune.charts.score.data[0].length`, &pointsAfter)
	if pointsAfter != points {
		t.Fatalf("after a poll the score chart has %d points, before %d", pointsAfter, points)
	}
	// Legends name the lines and leave out the band edges: best and mean.
	var legend string
	eval(`[...document.querySelectorAll('[data-chart="score"] .u-legend .u-series')].filter(r => r.style.display !== 'none').map(r => r.textContent.trim()).join(',')`, &legend)
	if legend != "best,mean" {
		t.Fatalf("score chart legend %q, want best,mean", legend)
	}
	// A checkpoint without games is "not measured", never an Elo of 0 on 0 games.
	var table string
	eval(`document.querySelector('#generations').textContent`, &table)
	if !strings.Contains(table, "not measured") || strings.Contains(table, "(0 games") {
		t.Fatalf("generations table: %q", table)
	}
	shot("run")
	// A run without held-out checks (run 2) says so instead of drawing two empty Elo charts.
	visit("#/run/2", `[data-chart="score"] canvas`)
	var noElo, eloCharts int
	eval(`document.querySelectorAll('[data-chart="elo-none"]').length`, &noElo)
	eval(`document.querySelectorAll('[data-chart="elo"], [data-chart="elo-time"]').length`, &eloCharts)
	if noElo != 1 || eloCharts != 0 {
		t.Fatalf("run without checkpoints: %d notes, %d Elo charts", noElo, eloCharts)
	}

	// An individual's page, reached from the generations table: its genes (the layout's), its
	// games (as many as the database has for it).
	var indHref string
	visit("#/run/1", "#generations")
	eval(`document.querySelector('#generations tr[data-generation] a[href*="/individual/"]').getAttribute('href')`, &indHref)
	ind := indHref[strings.LastIndex(indHref, "/")+1:]
	visit(indHref, "#ind-genes")
	var indGenes, indGames, wantGames int
	eval(`document.querySelectorAll('#ind-genes tr[data-gene]').length`, &indGenes)
	eval(`document.querySelectorAll('#ind-games tr[data-game]').length`, &indGames)
	d.SQL().QueryRow("SELECT count(*) FROM games WHERE run_id = 1 AND (individual = ? OR opponent = ?)", ind, ind).Scan(&wantGames)
	if indGenes != len(genomes.GomokuLayout().Genes) || indGames != min(wantGames, runview.MaxIndividualGames) || wantGames == 0 {
		t.Fatalf("individual page %s: %d gene rows, %d games (database: %d)", indHref, indGenes, indGames, wantGames)
	}
	shot("individual")
	// The analysis page: a row per gene with an effect, a slice chart per gene.
	visit("#/run/1/analysis", "#importance")
	var effectRows, sliceCharts int
	eval(`document.querySelectorAll('#importance tr[data-gene]').length`, &effectRows)
	eval(`document.querySelectorAll('#slices [data-slice] canvas').length`, &sliceCharts)
	var plines, playedRows int
	eval(`document.querySelectorAll('#parallel polyline.pline').length`, &plines)
	d.SQL().QueryRow("SELECT count(*) FROM individuals WHERE run_id = 1 AND games > 0").Scan(&playedRows)
	if plines != min(playedRows, runview.MaxParallelLines) || plines == 0 {
		t.Fatalf("analysis page: %d parallel-coordinate lines, %d rows played", plines, playedRows)
	}
	if effectRows != genomes.GomokuLayout().FreeCount() || sliceCharts != len(genomes.GomokuLayout().Genes) {
		t.Fatalf("analysis page: %d effect rows, %d slice charts", effectRows, sliceCharts)
	}
	// Each parallel-coordinates axis spans the range of its rows, labelled low then high
	// within its own gene's bounds, and the chart fits the page (no scrolling to k1, k2).
	var axisLabels []string
	eval(`[...document.querySelectorAll('#parallel text.muted')].map(e => e.textContent)`, &axisLabels)
	genes := genomes.GomokuLayout().Genes
	if len(axisLabels) != 2*len(genes) {
		t.Fatalf("analysis page: %d parallel-coordinates axis labels for %d genes", len(axisLabels), len(genes))
	}
	narrower := 0
	for i, g := range genes {
		lo, err1 := strconv.ParseFloat(axisLabels[2*i], 64)
		hi, err2 := strconv.ParseFloat(axisLabels[2*i+1], 64)
		if err1 != nil || err2 != nil || lo > hi || lo < g.Min*0.999 || hi > g.Max*1.001 {
			t.Fatalf("analysis page: axis %s labelled %s…%s, bounds %g…%g", g.Name, axisLabels[2*i], axisLabels[2*i+1], g.Min, g.Max)
		}
		if hi < g.Max*0.999 || lo > g.Min*1.001 {
			narrower++
		}
	}
	if narrower == 0 {
		t.Fatalf("analysis page: every axis spans its gene's bounds %v, not its rows' range", axisLabels)
	}
	var fits bool
	eval(`document.querySelector('#parallel').getBoundingClientRect().width <= document.documentElement.clientWidth`, &fits)
	if !fits {
		t.Fatal("analysis page: the parallel coordinates are wider than the page")
	}
	shot("analysis")

	// Genes: one chart per gene of the layout, one point per generation each.
	visit("#/run/1/genes", `#genes .gene canvas`)
	var geneCharts int
	var genePoints []int
	eval(`document.querySelectorAll('#genes .gene').length`, &geneCharts)
	eval(`Object.entries(evotune.charts).filter(([k]) => k.startsWith('gene:')).map(([, c]) => c.data[0].length)`, &genePoints)
	entry, _ := genomes.Lookup("gomoku")
	if geneCharts != len(entry.Layout.Genes) || len(genePoints) != geneCharts {
		t.Fatalf("genes view: %d charts for %d genes", geneCharts, len(entry.Layout.Genes))
	}
	for _, n := range genePoints {
		if n != 4 {
			t.Fatalf("genes view: a chart with %d points for 4 generations", n)
		}
	}
	// Log axes label 1-2-5 steps (1-1.5-2-3-5-7 on narrow ranges), not only powers of ten:
	// every log chart's y axis carries at least three labels, each such a step.
	var logLabels [][]string
	eval(`Object.entries(evotune.charts).filter(([k, c]) => k.startsWith('gene:') && c.scales.y.distr === 3).map(([, c]) => c.axes[1]._values.filter(v => v !== null))`, &logLabels)
	if len(logLabels) == 0 {
		t.Fatal("genes view: no log-scale gene chart")
	}
	for _, ls := range logLabels {
		if len(ls) < 3 {
			t.Fatalf("genes view: a log axis labelled only %v", ls)
		}
		for _, l := range ls {
			x, err := strconv.ParseFloat(l, 64)
			m := x / math.Pow(10, math.Floor(math.Log10(x)))
			ok := false
			for _, step := range []float64{1, 1.5, 2, 3, 5, 7} {
				ok = ok || math.Abs(m-step) < 1e-9
			}
			if err != nil || !ok {
				t.Fatalf("genes view: log axis label %q (labels %v) is not 1, 1.5, 2, 3, 5 or 7 × 10^k", l, ls)
			}
		}
	}
	// Linear genes show their scale even where the champion never moved (a flat line at 0
	// once drew one tick): at least three labels on every linear axis.
	var linLabels [][]string
	eval(`Object.entries(evotune.charts).filter(([k, c]) => k.startsWith('gene:') && c.scales.y.distr !== 3).map(([, c]) => c.axes[1]._values.filter(v => v !== null))`, &linLabels)
	for _, ls := range linLabels {
		if len(ls) < 3 {
			t.Fatalf("genes view: a linear axis labelled only %v", ls)
		}
	}
	var header string
	eval(`document.querySelector('h1.run-name').nextElementSibling.textContent`, &header)
	if !strings.Contains(header, " · GA · ") || !strings.Contains(header, "4 generations") {
		t.Fatalf("genes view header %q: want the run's method (GA) and its generations", header)
	}
	shot("genes")

	// Lineage of the run's best: one box per ancestor, one line per (child, parent).
	r, err := d.Run(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	// The run's best, or (when that is generation 0's paper weights, without parents) the
	// last generation's individual with the longest lineage.
	target := string(r.BestIndividual)
	anc, err := d.Ancestors(context.Background(), 1, target)
	if err != nil {
		t.Fatal(err)
	}
	if len(anc) < 2 {
		inds, err := d.Individuals(context.Background(), 1, r.GenerationsDone-1)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range inds {
			if a, err := d.Ancestors(context.Background(), 1, in.ID); err == nil && len(a) > len(anc) {
				target, anc = in.ID, a
			}
		}
	}
	edges := map[string]bool{}
	for _, g := range anc {
		for _, p := range []string{g.Parent1, g.Parent2} {
			if p != "" {
				edges[g.ID+" "+p] = true
			}
		}
	}
	visit("#/run/1/lineage/"+target, "#lineage")
	var nodes, lines int
	eval(`document.querySelectorAll('#lineage g.node').length`, &nodes)
	eval(`new Set([...document.querySelectorAll('#lineage polyline.edge')].map(l => l.dataset.child + ' ' + l.dataset.parent)).size`, &lines)
	// Every box of an individual that played shows its score; the others say they played none.
	var scored, played int
	eval(`[...document.querySelectorAll('#lineage g.node text.score')].filter(t => t.textContent.startsWith('score ')).length`, &scored)
	for _, a := range anc {
		var n int
		d.SQL().QueryRow("SELECT count(*) FROM individuals WHERE run_id = 1 AND id = ? AND games > 0", a.ID).Scan(&n)
		if n > 0 {
			played++
		}
	}
	if scored != played || played == 0 {
		t.Fatalf("lineage: %d boxes show a score, %d of the genomes played", scored, played)
	}
	if nodes != len(anc) || lines != len(edges) || len(anc) < 2 {
		t.Fatalf("lineage: %d boxes and %d lines, the database has %d genomes and %d parent links", nodes, lines, len(anc), len(edges))
	}
	shot("lineage")

	// A Gomoku game opens at its end, the winner's five drawn through its stones, and can
	// be downloaded; then step by step from the start: after k plies, k stones, each where
	// and whose it was.
	gid, moves := gameWith(t, d, 1, 12)
	visit(fmt.Sprintf("#/run/1/game/%d", gid), "#board")
	var endLabel, line, href string
	var endStones map[string]string
	eval(`document.querySelector('#step').textContent`, &endLabel)
	eval(`Object.fromEntries([...document.querySelectorAll('#board circle.stone')].map(c => [c.dataset.point, c.dataset.colour]))`, &endStones)
	eval(`(document.querySelector('#board line.winning-line') || {dataset: {points: ''}}).dataset.points`, &line)
	eval(`document.querySelector('#download').getAttribute('href')`, &href)
	if endLabel != fmt.Sprintf("ply %d / %d", len(moves), len(moves)) || len(endStones) != len(moves) || href != fmt.Sprintf("/api/runs/1/games/%d", gid) {
		t.Fatalf("game %d opens at %q with %d stones (%d plies), download %q", gid, endLabel, len(endStones), len(moves), href)
	}
	winner := "W"
	if len(moves)%2 == 1 {
		winner = "B"
	}
	pts := strings.Fields(line)
	if len(pts) < 5 || !slices.Contains(pts, strings.ToLower(moves[len(moves)-1])) {
		t.Fatalf("game %d: winning line %q, want five or more points through the last move %s", gid, line, moves[len(moves)-1])
	}
	for _, p := range pts {
		if endStones[p] != winner {
			t.Fatalf("game %d: winning line %q: %s is not a stone of the winner (%s)", gid, line, p, winner)
		}
	}
	if err := chromedp.Run(ctx, chromedp.Click("#first", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	const steps = 9
	for i := 0; i < steps; i++ {
		if err := chromedp.Run(ctx, chromedp.Click("#next", chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
	}
	var stones map[string]string
	eval(`Object.fromEntries([...document.querySelectorAll('#board circle.stone')].map(c => [c.dataset.point, c.dataset.colour]))`, &stones)
	if len(stones) != steps {
		t.Fatalf("game %d after %d steps: %d stones: %v", gid, steps, len(stones), stones)
	}
	for k, m := range moves[:steps] {
		want := "B"
		if k%2 == 1 {
			want = "W"
		}
		if stones[strings.ToLower(m)] != want {
			t.Fatalf("game %d after %d steps: ply %d %s should be %s, board %v", gid, steps, k+1, m, want, stones)
		}
	}
	var label string
	eval(`document.querySelector('#step').textContent`, &label)
	if label != fmt.Sprintf("ply %d / %d", steps, len(moves)) {
		t.Fatalf("step label %q", label)
	}
	shot("game-gomoku")
	// The arrow keys step too.
	if err := chromedp.Run(ctx, chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft)); err != nil {
		t.Fatal(err)
	}
	eval(`document.querySelector('#step').textContent`, &label)
	if label != fmt.Sprintf("ply %d / %d", steps-2, len(moves)) {
		t.Fatalf("after two ← the step label is %q", label)
	}
	if err := chromedp.Run(ctx, chromedp.Click("#last", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	var all int
	eval(`document.querySelectorAll('#board circle.stone').length`, &all)
	if all != len(moves) {
		t.Fatalf("game %d at its end: %d stones for %d plies", gid, all, len(moves))
	}

	// An 8×8 Amazons game: eight amazons always, one arrow per ply, where the moves put them.
	aid, amoves := gameWith(t, d, 2, 4)
	visit(fmt.Sprintf("#/run/2/game/%d", aid), "#board")
	if err := chromedp.Run(ctx, chromedp.Click("#first", chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if err := chromedp.Run(ctx, chromedp.Click("#next", chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
	}
	var amazons int
	var arrows []string
	eval(`document.querySelectorAll('#board circle.amazon').length`, &amazons)
	eval(`[...document.querySelectorAll('#board rect.arrow')].map(r => r.dataset.point).sort()`, &arrows)
	var want []string
	sq := regexp.MustCompile(`[a-h][1-8]$`)
	for _, m := range amoves[:3] {
		want = append(want, sq.FindString(strings.ToLower(m)))
	}
	if amazons != 8 || strings.Join(arrows, " ") != strings.Join(sortedCopy(want), " ") {
		t.Fatalf("amazons game %d after 3 plies: %d amazons, arrows %v, want %v (moves %v)", aid, amazons, arrows, want, amoves[:3])
	}
	shot("game-amazons")

	// Matches and tournaments played while the page is open: listed on the runs page, a
	// match's page with its games, a tournament's standings and crosstable, a match game
	// in the viewer.
	for _, args := range [][]string{
		{"match", "--game", "gomoku", "--a", "default", "--b", "default", "--depth", "1", "--games", "4"},
		{"tournament", "--game", "gomoku", "--depth", "1", "--rounds", "1", "--engine", "name=A weights=default", "--engine", "name=B weights=default",
			"--engine", "name=C weights=default"},
	} {
		if _, stderr, code := run(t, dir, append(args, "--db", path)...); code != 0 {
			t.Fatalf("evotune %v: %s", args, stderr)
		}
	}
	visit("#/", "#tournaments")
	var matchRows, tournamentRows int
	eval(`document.querySelectorAll('#matches tbody tr').length`, &matchRows)
	eval(`document.querySelectorAll('#tournaments tbody tr').length`, &tournamentRows)
	if matchRows != 1 || tournamentRows != 1 {
		t.Fatalf("runs page: %d matches and %d tournaments listed, want 1 and 1", matchRows, tournamentRows)
	}
	visit("#/match/1", "#match-games")
	var gameRows int
	var score string
	eval(`document.querySelectorAll('#match-games tr[data-pair]').length`, &gameRows)
	eval(`document.querySelector('#score').textContent`, &score)
	var stored int
	d.SQL().QueryRow(`SELECT count(*) FROM match_games WHERE match_id = 1`).Scan(&stored)
	if gameRows != stored || stored == 0 || !strings.Contains(score, "W ") {
		t.Fatalf("match page: %d game rows, %d stored, score %q", gameRows, stored, score)
	}
	visit("#/tournament/2", "#crosstable")
	var standings, cells int
	eval(`document.querySelectorAll('#standings tr').length - 1`, &standings)
	eval(`document.querySelectorAll('#crosstable td').length`, &cells)
	if standings != 3 || cells != 9 {
		t.Fatalf("tournament page: %d standings rows, %d crosstable cells; want 3 and 9", standings, cells)
	}
	visit("#/match/1/game/0/1", "#board")
	var matchStones int
	eval(`document.querySelectorAll("#board circle.stone").length`, &matchStones)
	if matchStones == 0 {
		t.Fatal("a match game's final position shows no stone")
	}
	shot("tournament")

	// No script of the database ran anywhere.
	if dialogs != 0 {
		t.Fatalf("%d JavaScript dialogs opened: a name was drawn as markup", dialogs)
	}
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return c
}

// TestPlot: every chart as SVG and PNG of the size asked for; bad arguments are refused
// with a message naming them and leave no file.
func TestPlot(t *testing.T) {
	dir, path := dashboardDB(t)
	for _, what := range runview.Plots {
		for _, ext := range []string{"svg", "png"} {
			out := filepath.Join(dir, what+"."+ext)
			if _, stderr, code := runIn(t, dir, "plot", "1", "--db", path, "--what", what, "--out", out, "--size", "640x400"); code != 0 {
				t.Fatalf("plot --what %s --out %s: %s", what, out, stderr)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if ext == "png" {
				cfg, err := png.DecodeConfig(bytes.NewReader(data))
				if err != nil || cfg.Width != 640 || cfg.Height != 400 {
					t.Fatalf("%s: %v, %dx%d", out, err, cfg.Width, cfg.Height)
				}
				continue
			}
			var root struct {
				XMLName xml.Name
				Width   string `xml:"width,attr"`
				Height  string `xml:"height,attr"`
			}
			if err := xml.Unmarshal(data, &root); err != nil || root.XMLName.Local != "svg" || root.Width != "480pt" || root.Height != "300pt" { // 640×400 px at 96 px per inch
				t.Fatalf("%s: %v, <%s width=%q height=%q>", out, err, root.XMLName.Local, root.Width, root.Height)
			}
			if !bytes.Contains(data, []byte("<path")) {
				t.Fatalf("%s draws nothing", out)
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", "x.gif"}, "extension must be .svg or .png"},
		{[]string{"--out", "x.svg", "--what", "speed"}, `--what "speed"`},
		{[]string{"--out", "x.svg", "--size", "10x10"}, `--size "10x10"`},
		{[]string{"--out", "x.svg", "--what", "elo", "--size", "wide"}, `--size "wide"`},
		{[]string{"--out", filepath.Join(dir, "missing", "x.svg")}, "missing"},
	} {
		_, stderr, code := runIn(t, dir, append([]string{"plot", "1", "--db", path}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Fatalf("plot %v: exit %d, %q (want %q)", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "x.svg")); err == nil {
			t.Fatalf("plot %v left a file", c.args)
		}
	}
	if _, stderr, code := runIn(t, dir, "plot", "7", "--db", path, "--out", "x.svg"); code == 0 || !strings.Contains(stderr, "run 7") {
		t.Fatalf("plot of a missing run: exit %d, %q", code, stderr)
	}
}

// TestDashboardMatches: the dashboard's matches and tournaments read the database's rows:
// each match's live score from its stored games, a tournament's pairings, standings and
// crosstable, a match game replayed in the viewer, chess games by White and Black.
func TestDashboardMatches(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.db")
	for _, args := range [][]string{
		{"match", "--game", "gomoku", "--a", "default", "--b", "default", "--depth", "1", "--games", "4"},
		{"match", "--game", "chess", "--a", "default", "--b", "default", "--depth", "1", "--games", "2", "--max-moves", "12"},
		{"tournament", "--game", "gomoku", "--depth", "2", "--rounds", "2", "--engine", "name=A weights=default", "--engine", "name=B weights=default",
			"--engine", "name=C weights=default"},
	} {
		if _, stderr, code := run(t, dir, append(args, "--db", path)...); code != 0 {
			t.Fatalf("evotune %v: %s", args, stderr)
		}
	}
	d, err := db.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	srv := httptest.NewServer(dashboard.Handler(d, dashboard.Options{}))
	defer srv.Close()
	get := func(url string, want int, v any) {
		t.Helper()
		resp, err := http.Get(srv.URL + url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("GET %s: status %d, want %d", url, resp.StatusCode, want)
		}
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
	}
	var matches []runview.MatchItem
	get("/api/matches", 200, &matches)
	if len(matches) != 5 {
		t.Fatalf("%d matches listed, want 2 and the tournament's 3 pairings", len(matches))
	}
	var stored int
	d.SQL().QueryRow(`SELECT count(*) FROM match_games`).Scan(&stored)
	total := 0
	for _, m := range matches {
		total += m.Games
		var mv runview.MatchView
		get(fmt.Sprintf("/api/matches/%d", m.ID), 200, &mv)
		if len(mv.Games) != m.Games || m.Status != db.StatusFinished || (m.Games > 0) != (m.Score != nil) {
			t.Errorf("match %d: %d games listed, %d in its page, status %s, score %v", m.ID, m.Games, len(mv.Games), m.Status, m.Score)
		}
		if m.Game == "chess" && len(mv.Games) > 0 && (mv.Games[0].Game != 1 || mv.Games[0].ASide != "white") {
			t.Errorf("chess match %d: A moved first in game 1 as %q, want white", m.ID, mv.Games[0].ASide)
		}
	}
	if total != stored {
		t.Errorf("the matches count %d games, the database holds %d", total, stored)
	}
	var ts []runview.TournamentItem
	get("/api/tournaments", 200, &ts)
	if len(ts) != 1 || len(ts[0].Pairings) != 3 || ts[0].Planned != 3 || ts[0].Status != db.StatusFinished || len(ts[0].Standings) != 3 {
		t.Fatalf("tournaments: %+v", ts)
	}
	tv := ts[0]
	for _, p := range tv.Pairings {
		if p.Pairing == nil {
			t.Fatalf("pairing %d: no entrants", p.ID)
		}
		a, b := p.Pairing[0], p.Pairing[1]
		if p.Tournament == nil || *p.Tournament != tv.ID || p.AName != tv.Entrants[a].Name || p.BName != tv.Entrants[b].Name {
			t.Errorf("pairing %d: tournament %v, names %s–%s", p.ID, p.Tournament, p.AName, p.BName)
		}
		ab, ba := tv.Crosstable[a][b], tv.Crosstable[b][a]
		if p.Games > 0 && (ab == nil || ba == nil || *ab+*ba != float64(p.Games) || *ab != float64(p.Played.Wins)+float64(p.Played.Draws)/2) {
			t.Errorf("pairing %s–%s: crosstable %v %v for %+v", p.AName, p.BName, ab, ba, p.Played)
		}
	}
	var one runview.TournamentItem
	get(fmt.Sprintf("/api/tournaments/%d", tv.ID), 200, &one)
	if one.ID != tv.ID || len(one.Pairings) != 3 {
		t.Errorf("tournament %d's page: %+v", tv.ID, one)
	}
	// A stored game replayed: its frames are the positions of its moves, the players by side.
	p := tv.Pairings[0]
	var gv runview.GameView
	get(fmt.Sprintf("/api/matches/%d/games/0/1", p.ID), 200, &gv)
	if gv.Match == nil || gv.Match.ID != p.ID || gv.Error != nil || len(gv.Frames) != len(gv.Moves)+1 || gv.Black != p.AName || gv.White != p.BName {
		t.Errorf("match %d game 0/1: match %v, %d frames for %d moves, %s–%s, error %v", p.ID, gv.Match, len(gv.Frames), len(gv.Moves), gv.Black, gv.White, gv.Error)
	}
	var e map[string]string
	get("/api/matches/999", 404, &e)
	get("/api/tournaments/999", 404, &e)
	get(fmt.Sprintf("/api/matches/%d/games/99/1", p.ID), 404, &e)
	get("/api/matches/x", 400, &e)
}
