package runview

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"evotune/db"
	"evotune/tuner"
	"evotune/tuner/config"
	"evotune/tuner/runstore"
	"evotune/tuner/spsa"
)

// TestTextViews prints a real run's text views and checks them against its rows: the
// generations table has a row per generation under the method's heading (the GA with
// peers: BEST OF PEERS; SPSA: the steps' columns), the individual's view its genes and
// generations, the lineage tree and digraph every ancestor.
func TestTextViews(t *testing.T) {
	ctx := context.Background()
	d, id := tinyRun(t)
	run, err := d.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.DecodeConfig(string(run.Config))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := GenerationTable(ctx, d, id)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := GenerationsText(&buf, id, cfg, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(rows)+1 || !strings.HasPrefix(lines[0], "GEN  BEST OF PEERS") {
		t.Errorf("generations table of %d generations (peers):\n%s", len(rows), buf.String())
	}
	buf.Reset()
	spsa := cfg
	spsa.Method = config.MethodSPSA
	if err := GenerationsText(&buf, id, spsa, rows); err != nil || !strings.HasPrefix(buf.String(), "STEP  θ+ AGAINST θ−") {
		t.Errorf("an SPSA run's table: %v\n%s", err, buf.String())
	}

	best := string(run.BestIndividual)
	ind, err := runstore.LoadIndividual(ctx, d, best)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := cfg.GeneLayout()
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := IndividualText(&buf, best, ind, layout, false); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if !strings.HasPrefix(text, "individual "+best+" (run ") || !strings.Contains(strings.Join(strings.Fields(text), " "), "GENE VALUE PAPER") {
		t.Errorf("individual view:\n%s", text)
	}
	for _, g := range layout.Genes {
		if !strings.Contains(text, "\n"+g.Name+" ") {
			t.Errorf("gene %s missing from the individual view", g.Name)
		}
	}

	anc, err := d.Ancestors(ctx, id, best)
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := LineageText(&buf, best, anc); err != nil {
		t.Fatal(err)
	}
	tree := buf.String()
	buf.Reset()
	if err := LineageDot(&buf, anc); err != nil {
		t.Fatal(err)
	}
	dot := buf.String()
	if !strings.HasPrefix(tree, best+"  gen ") || !strings.HasPrefix(dot, "digraph lineage {") {
		t.Errorf("lineage of %s:\n%s\n%s", best, tree, dot)
	}
	for _, a := range anc {
		if !strings.Contains(tree, a.ID) || !strings.Contains(dot, `"`+a.ID+`" [label=`) {
			t.Errorf("ancestor %s missing from the lineage views", a.ID)
		}
	}
}

// TestSPSAStepView: an SPSA run's chart points carry each step's θ+ score, read by θ+'s ID
// (spsa.PlusID), equal to that individual's stored score.
func TestSPSAStepView(t *testing.T) {
	ctx := context.Background()
	d, err := db.Open(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	cfg := config.DefaultConfig("gomoku")
	cfg.Method, cfg.Generations, cfg.Depths, cfg.Width, cfg.Seed, cfg.VerifyGames, cfg.Workers = config.MethodSPSA, 3, []int{1}, 6, 2, 0, 2
	tu, err := tuner.New(cfg, runstore.New(d, cfg.AdmitZ), nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := tu.Run(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Run(ctx, d, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Generations) == 0 {
		t.Fatal("no steps")
	}
	for _, p := range v.Generations {
		var want float64
		plusID := spsa.PlusID(sum.RunID, p.Generation)
		if err := d.SQL().QueryRowContext(ctx, "SELECT score FROM individuals WHERE run_id = ? AND generation = ? AND id = ?", sum.RunID, p.Generation, plusID).Scan(&want); err != nil {
			t.Fatalf("step %d: %v", p.Generation, err)
		}
		if p.PlusScore == nil || *p.PlusScore != want {
			t.Errorf("step %d: chart's θ+ score %v, θ+ (%s) scored %g", p.Generation, p.PlusScore, plusID, want)
		}
	}
}
