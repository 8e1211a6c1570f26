package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/stats"
)

// Record is a comparison as stored (the comparisons table's config column, JSON):
// what was compared, on which seeds, and the base configuration of its runs.
type Record struct {
	Methods          []string      `json:"methods"`
	Seeds            []int64       `json:"seeds"`
	BudgetGames      int           `json:"budget_games"`
	VerifyGames      int           `json:"verify_games"`
	VerifyDepth      int           `json:"verify_depth"`
	VerifyDepthGames int           `json:"verify_depth_games"`
	Base             config.Config `json:"base"`
}

// Record is cc as stored with its comparison.
func (cc Config) Record() Record {
	return Record{Methods: cc.Methods, Seeds: cc.Seeds, BudgetGames: cc.BudgetGames, VerifyGames: cc.VerifyGames,
		VerifyDepth: cc.VerifyDepth, VerifyDepthGames: cc.VerifyDepthGames, Base: cc.Base}
}

// Report is a comparison's table: its identity and record, and its runs (cells)
// measured so far.
type Report struct {
	ID     int64
	Game   string
	Record Record
	Cells  []Cell
}

// CellText is one run's result for a progress line: its Elo ± 95% with its games, that
// nothing beat the baseline, or "not measured".
func CellText(v *ladder.Verification, baseline string) string {
	if v != nil && v.Baseline {
		return baseline + ": nothing beat them (+0.0 by identity, no games played)"
	}
	if v == nil || v.Games == 0 {
		return "not measured"
	}
	return fmt.Sprintf("%s (%d games, %d distinct pairs)", stats.FormatEloCI(v.Elo, v.EloCI95), v.Games, v.Pairs)
}

// Markdown is the comparison as a Markdown table, a row per method and a column per seed
// with the mean and the worst seed (and the deeper verification's Elo when there was one),
// then a line per run naming its champion.
func (r Report) Markdown() string {
	var b strings.Builder
	rec, baseline := r.Record, r.Record.Base.BaselineName()
	fmt.Fprintf(&b, "comparison %d: %s, %d distinct tuning games per run; Elo ± 95%% against %s on %d held-out games per result\n", r.ID, r.Game, rec.BudgetGames, baseline, rec.VerifyGames)
	head, sep := "| method |", "|---|"
	for _, s := range rec.Seeds {
		head += fmt.Sprintf(" seed %d |", s)
		sep += "---|"
	}
	head += " mean | worst |"
	sep += "---|---|"
	if rec.VerifyDepth > 0 {
		head += fmt.Sprintf(" depth %d (mean) |", rec.VerifyDepth)
		sep += "---|"
	}
	b.WriteString(head + "\n" + sep + "\n")
	for _, row := range Table(r.Cells, rec.Methods, rec.Seeds) {
		line := "| " + row.Method + " |"
		for i := range rec.Seeds {
			switch {
			case row.Baseline[i]:
				line += " +0.0 (" + baseline + ") |"
			case math.IsNaN(row.Elo[i]):
				line += " – |"
			default:
				line += " " + stats.FormatEloCI(row.Elo[i], row.CI[i]) + " |"
			}
		}
		line += " " + eloOrDash(row.Mean) + " | " + eloOrDash(row.Worst) + " |"
		if rec.VerifyDepth > 0 {
			var ds []string
			for _, d := range row.Deep {
				ds = append(ds, eloOrDash(d))
			}
			line += " " + strings.Join(ds, ", ") + " (" + eloOrDash(row.DeepMean) + ") |"
		}
		b.WriteString(line + "\n")
	}
	for _, c := range r.Cells {
		fmt.Fprintf(&b, "  %s seed %d: run %d, champion %s\n", c.Method, c.Seed, c.RunID, Printable(c.Champion))
	}
	return b.String()
}

// comparisonJSON is `compare --json`: a row per method (null where not measured, never 0)
// and every run.
type comparisonJSON struct {
	ID          int64        `json:"id"`
	Game        string       `json:"game"`
	BudgetGames int          `json:"budget_games"`
	Seeds       []int64      `json:"seeds"`
	Rows        []methodJSON `json:"methods"`
	Runs        []Cell       `json:"runs"`
}

type methodJSON struct {
	Method   string     `json:"method"`
	Elo      []*float64 `json:"elo"`
	CI95     []*float64 `json:"elo_ci95"`
	Deep     []*float64 `json:"deep_elo"`
	Mean     *float64   `json:"mean"`
	Worst    *float64   `json:"worst"`
	DeepMean *float64   `json:"deep_mean"`
}

// JSON is the comparison as `compare --json` writes it (indented, with a final newline).
func (r Report) JSON() ([]byte, error) {
	num := func(x float64) *float64 {
		if math.IsNaN(x) {
			return nil
		}
		return &x
	}
	nums := func(xs []float64) []*float64 {
		out := make([]*float64, len(xs))
		for i, x := range xs {
			out[i] = num(x)
		}
		return out
	}
	doc := comparisonJSON{ID: r.ID, Game: r.Game, BudgetGames: r.Record.BudgetGames, Seeds: r.Record.Seeds, Runs: r.Cells}
	for _, row := range Table(r.Cells, r.Record.Methods, r.Record.Seeds) {
		doc.Rows = append(doc.Rows, methodJSON{Method: row.Method, Elo: nums(row.Elo), CI95: nums(row.CI), Deep: nums(row.Deep), Mean: num(row.Mean), Worst: num(row.Worst), DeepMean: num(row.DeepMean)})
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	return append(data, '\n'), err
}

func eloOrDash(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%+.1f", x)
}

// Printable is s as it is when every character prints, else Go-quoted: a value read from
// a database (which may come from someone else) printed on a line of its own cannot end
// that line or carry a terminal escape.
func Printable(s string) string {
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
