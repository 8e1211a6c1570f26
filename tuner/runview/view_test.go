package runview

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"evotune/db"
	"evotune/tuner"
	"evotune/tuner/config"
	"evotune/tuner/runstore"
)

// tinyRun tunes a small gomoku GA run (population 4, generations 0–2) into a new database.
func tinyRun(t *testing.T) (*db.DB, int64) {
	t.Helper()
	ctx := context.Background()
	d, err := db.Open(ctx, filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	cfg := config.DefaultConfig("gomoku")
	cfg.Method, cfg.Population, cfg.Generations, cfg.Games, cfg.AdmitGames = config.MethodGA, 4, 2, 4, 4
	cfg.Depths, cfg.Workers, cfg.Seed, cfg.VerifyGames, cfg.Width = []int{1}, 2, 3, 4, 6
	tu, err := tuner.New(cfg, runstore.New(d, cfg.AdmitZ), nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := tu.Run(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	return d, sum.RunID
}

// TestViewsOfAStoredRun reads a real run through every view and checks each against the
// database's own rows.
func TestViewsOfAStoredRun(t *testing.T) {
	ctx := context.Background()
	d, id := tinyRun(t)
	rows, err := d.Generations(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Run(ctx, d, id)
	if err != nil {
		t.Fatal(err)
	}
	if v.Total != len(rows) || v.Sampled || len(v.Generations) != len(rows) || len(rows) != 3 {
		t.Fatalf("run view: total %d, sampled %v, %d points; the database has %d generations (want 3)", v.Total, v.Sampled, len(v.Generations), len(rows))
	}
	for i, p := range v.Generations {
		if p.Generation != rows[i].Generation || p.BestScore != 1-rows[i].FitMin || p.Best != rows[i].Best || p.Games != rows[i].Games {
			t.Errorf("generation %d: view %+v, row %+v", i, p, rows[i])
		}
		if p.PlusScore != nil {
			t.Errorf("generation %d: a GA run's point has an SPSA step's score", i)
		}
	}
	table, err := GenerationTable(ctx, d, id)
	if err != nil {
		t.Fatal(err)
	}
	adms, err := d.Admissions(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	tested := map[int]bool{}
	for _, a := range adms {
		tested[a.Generation] = true
	}
	if len(table) != len(rows) {
		t.Fatalf("generations table: %d rows, want %d", len(table), len(rows))
	}
	for i, r := range table {
		if len(r.Individuals) != 4 || r.Individuals[0].ID != rows[i].Best || r.BestScore != r.Individuals[0].Score || r.BestGames != r.Individuals[0].Games {
			t.Errorf("generation %d: %d individuals, best %+v; the row's best is %s", i, len(r.Individuals), r.Individuals[0], rows[i].Best)
		}
		if (r.Admission != nil) != tested[i] {
			t.Errorf("generation %d: admission %+v, tested %v", i, r.Admission, tested[i])
		}
	}
	// The run's page and the runs list give the run the same summary (best score,
	// champion, games).
	list, err := Runs(ctx, d)
	if err != nil || len(list) != 1 {
		t.Fatalf("runs list: %d runs, %v", len(list), err)
	}
	a, _ := json.Marshal(list[0])
	b, _ := json.Marshal(v.Run)
	if string(a) != string(b) {
		t.Errorf("the runs list says %s, the run's page %s", a, b)
	}
	if v.Run.BestScore == nil {
		t.Error("the run's page has no best score")
	}
	w, err := RunWindow(ctx, d, id, db.Window{From: 1, To: 1})
	if err != nil {
		t.Fatal(err)
	}
	if w.Total != 1 || len(w.Generations) != 1 || w.Generations[0].Generation != 1 {
		t.Errorf("window 1–1: total %d, points %+v", w.Total, w.Generations)
	}

	gv, err := Genes(ctx, d, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(gv.Genes) != 15 || len(gv.Best) != len(gv.Genes) || len(gv.Generations) != len(rows) {
		t.Fatalf("genes view: %d genes, %d trajectories, %d generations", len(gv.Genes), len(gv.Best), len(gv.Generations))
	}
	for g := range gv.Genes {
		for i := range gv.Generations {
			lo, hi, b := gv.Min[g][i], gv.Max[g][i], gv.Best[g][i]
			if lo == nil || hi == nil || *lo > *hi {
				t.Errorf("gene %s, generation %d: population range %v–%v", gv.Genes[g].Name, i, lo, hi)
			}
			if gv.Genes[g].Fixed && b != nil && *b != gv.Genes[g].Default {
				t.Errorf("fixed gene %s moved to %g", gv.Genes[g].Name, *b)
			}
		}
	}

	best := rows[len(rows)-1].Best
	lv, err := Lineage(ctx, d, id, best)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, n := range lv.Nodes {
		seen[n.ID] = true
	}
	if len(lv.Nodes) == 0 || lv.Nodes[0].ID != best || lv.Truncated {
		t.Fatalf("lineage of %s: %+v", best, lv)
	}
	for _, n := range lv.Nodes {
		for _, p := range n.Parents {
			if !seen[p] {
				t.Errorf("lineage of %s: %s's parent %s is missing", best, n.ID, p)
			}
		}
	}

	games, err := Games(ctx, d, id, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(games) == 0 {
		t.Fatal("generation 1 lists no games")
	}
	gm, err := Game(ctx, d, id, games[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if gm.Error != nil || len(gm.Frames) != len(gm.Moves)+1 || len(gm.Moves) != games[0].Plies || gm.Size != 15 {
		t.Errorf("game %d: error %v, %d frames for %d moves (%d plies stored), size %d", games[0].ID, gm.Error, len(gm.Frames), len(gm.Moves), games[0].Plies, gm.Size)
	}

	player := games[0].Individual
	iv, err := Individual(ctx, d, id, player)
	if err != nil {
		t.Fatal(err)
	}
	if len(iv.Genes) != 15 || len(iv.Games) == 0 {
		t.Errorf("individual %s: %d genes, %d games", player, len(iv.Genes), len(iv.Games))
	}
	asOpponent := 0
	for _, g := range iv.Games {
		if g.Individual != player && g.Opponent != player {
			t.Errorf("individual %s's page lists game %d of %s against %s", player, g.ID, g.Individual, g.Opponent)
		}
		if g.Opponent == player {
			asOpponent++
		}
	}
	// Peers (the GA's default): a pair's games are stored under its first; the second's
	// page lists them too.
	if asOpponent == 0 {
		t.Errorf("individual %s's page lists none of the games it played as the second of a pair", player)
	}

	for what, err := range map[string]error{
		"run":        func() error { _, err := Run(ctx, d, id+1); return err }(),
		"individual": func() error { _, err := Individual(ctx, d, id, "9-g9-99"); return err }(),
		"game":       func() error { _, err := Game(ctx, d, id, 1<<40); return err }(),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("a %s the database lacks: %v, want ErrNotFound", what, err)
		}
	}
}

// TestExportTable: every table of a real run exports as CSV and JSON lines with the same
// rows; individuals carry one gene column per gene and as many rows as the table has;
// a bad table or format is refused.
func TestExportTable(t *testing.T) {
	ctx := context.Background()
	d, id := tinyRun(t)
	inds, err := d.RunIndividuals(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range ExportTables {
		c, err := ExportTable(ctx, d, id, table, "csv")
		if err != nil {
			t.Fatalf("%s csv: %v", table, err)
		}
		j, err := ExportTable(ctx, d, id, table, "jsonl")
		if err != nil {
			t.Fatalf("%s jsonl: %v", table, err)
		}
		recs, err := csv.NewReader(bytes.NewReader(c)).ReadAll()
		if err != nil {
			t.Fatalf("%s: CSV does not read back: %v", table, err)
		}
		lines := bytes.Count(j, []byte("\n"))
		if len(recs)-1 != lines && !(lines == 0 && len(recs) == 1) {
			t.Errorf("%s: %d CSV rows, %d JSON lines", table, len(recs)-1, lines)
		}
		if recs[0][0] != "run_id" {
			t.Errorf("%s: first column %q", table, recs[0][0])
		}
		if table == "individuals" {
			genes := 0
			for _, h := range recs[0] {
				if strings.HasPrefix(h, "gene_") {
					genes++
				}
			}
			if len(recs)-1 != len(inds) || genes != 15 {
				t.Errorf("individuals: %d rows for %d individuals, %d gene columns", len(recs)-1, len(inds), genes)
			}
		}
	}
	if _, err := ExportTable(ctx, d, id, "runs", "csv"); err == nil || !strings.Contains(err.Error(), `table "runs"`) {
		t.Errorf("table runs: %v", err)
	}
	if _, err := ExportTable(ctx, d, id, "games", "xml"); err == nil || !strings.Contains(err.Error(), `format "xml"`) {
		t.Errorf("format xml: %v", err)
	}
}

// TestStoredInfiniteVerification: a verification stored with ±1e9 for an infinite Elo (as
// every build before null did) reaches the pages with null for it, and its finite numbers
// as stored.
func TestStoredInfiniteVerification(t *testing.T) {
	got := string(verificationJSON(`{"champion":"1-g2-03","games":8,"distinct_pairs":4,"score":1,"elo":1e9,"elo_ci95":499999941.29,"elo_low":-1e9,"elo_high":1e9,"los":0.99}`))
	var v struct {
		Elo, EloCI95 *float64
		LOS          *float64 `json:"los"`
		Games        int      `json:"games"`
	}
	if err := json.Unmarshal([]byte(got), &v); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "e+0") || v.Elo != nil || v.EloCI95 != nil || v.LOS == nil || *v.LOS != 0.99 || v.Games != 8 {
		t.Errorf("stored infinite verification on the page: %s", got)
	}
	if verificationJSON("") == nil || string(verificationJSON("")) != "null" || string(verificationJSON("{bad")) != "{bad" {
		t.Error("no verification or unreadable text not given as it is")
	}
}
