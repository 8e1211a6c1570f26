package compare

import (
	"encoding/json"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"strings"
	"testing"
)

// TestComparisonReport: the table and JSON of a comparison with a measured run, a run whose
// result is the paper's weights and a run not measured yet.
func TestComparisonReport(t *testing.T) {
	r := Report{ID: 4, Game: "gomoku", Record: Record{Methods: []string{"ga", "spsa"}, Seeds: []int64{1, 2}, BudgetGames: 1000, VerifyGames: 200},
		Cells: []Cell{
			{Method: "ga", Seed: 1, RunID: 1, Champion: "1-g3-02", V: &ladder.Verification{Games: 200, Pairs: 100, Elo: 10, EloCI95: 5}},
			{Method: "spsa", Seed: 1, RunID: 2, Champion: "2-g0-00", V: &ladder.Verification{Baseline: true}},
			{Method: "ga", Seed: 2, RunID: 3, Champion: "bad\nid"},
		}}
	md := r.Markdown()
	for _, want := range []string{
		"comparison 4: gomoku, 1000 distinct tuning games per run; Elo ± 95% against the paper's weights on 200 held-out games per result\n",
		"| method | seed 1 | seed 2 | mean | worst |\n|---|---|---|---|---|\n",
		"| ga | +10.0 ± 5.0 | – | +10.0 | +10.0 |\n",
		"| spsa | +0.0 (the paper's weights) | – | +0.0 | +0.0 |\n",
		"  ga seed 2: run 3, champion \"bad\\nid\"\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	data, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Methods []struct {
			Method string     `json:"method"`
			Elo    []*float64 `json:"elo"`
			Mean   *float64   `json:"mean"`
		} `json:"methods"`
		Runs []Cell `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Methods) != 2 || len(doc.Runs) != 3 || doc.Methods[0].Elo[1] != nil || *doc.Methods[0].Mean != 10 || *doc.Methods[1].Elo[0] != 0 {
		t.Errorf("JSON %s", data)
	}
	if (config.Config{SubjectSettings: config.SubjectSettings{Engine: "cmd:x"}}).BaselineName() != "the layout's defaults" || CellText(nil, "x") != "not measured" {
		t.Error("an outside engine's baseline or an unmeasured cell")
	}
}
