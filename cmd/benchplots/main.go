// Command benchplots draws the plots of docs/benchmarks.md from the measurements recorded
// beside them as CSV: docs/benchmarks/methods.csv (Elo ± 95% of each method's champion per
// game and seed) → methods.svg, and docs/benchmarks/cluster.csv (games per second in
// process and through the broker) → cluster.svg. Run from the repository root:
//
//	go run ./cmd/benchplots docs/benchmarks
//
// Lines starting with # in a CSV are comments (the command that measured it). A missing
// file, a short row or a number that does not parse is an error naming the file and line.
package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: benchplots DIR (the folder of methods.csv and cluster.csv)")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "benchplots:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	methods, err := readCSV(filepath.Join(dir, "methods.csv"), []string{"game", "budget", "method", "seed", "elo", "ci95"})
	if err != nil {
		return err
	}
	cluster, err := readCSV(filepath.Join(dir, "cluster.csv"), []string{"setup", "workers", "games_per_s"})
	if err != nil {
		return err
	}
	if err := methodsPlot(methods, filepath.Join(dir, "methods.svg")); err != nil {
		return err
	}
	return clusterPlot(cluster, filepath.Join(dir, "cluster.svg"))
}

// row is one CSV record by column name, with the line it came from.
type row struct {
	line   int
	fields map[string]string
}

func (r row) num(path, col string) (float64, error) {
	v, err := strconv.ParseFloat(r.fields[col], 64)
	if err != nil {
		return 0, fmt.Errorf("%s: line %d: %s %q is not a number", path, r.line, col, r.fields[col])
	}
	return v, nil
}

// readCSV reads path's records after its header, which must be cols.
func readCSV(path string, cols []string) ([]row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	r.FieldsPerRecord = len(cols)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: the header: %w", path, err)
	}
	if strings.Join(head, ",") != strings.Join(cols, ",") {
		return nil, fmt.Errorf("%s: the header is %q, want %q", path, strings.Join(head, ","), strings.Join(cols, ","))
	}
	var rows []row
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		m := map[string]string{}
		for i, c := range cols {
			m[c] = strings.TrimSpace(rec[i])
		}
		rows = append(rows, row{line, m})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no rows", path)
	}
	return rows, nil
}

var palette = []color.RGBA{{R: 31, G: 119, B: 180, A: 255}, {R: 214, G: 39, B: 40, A: 255}, {R: 44, G: 160, B: 44, A: 255}, {R: 148, G: 103, B: 189, A: 255}}

// order returns the distinct values of col in their first order.
func order(rows []row, col string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rows {
		if v := r.fields[col]; !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// methodsPlot draws one panel per game: each method's seeds as points with their 95%
// intervals, side by side, and the method's mean as a bar.
func methodsPlot(rows []row, out string) error {
	const path = "methods.csv"
	games, methods := order(rows, "game"), order(rows, "method")
	var plots []*plot.Plot
	for _, g := range games {
		p := plot.New()
		budget := ""
		p.Y.Label.Text = "Elo against the paper's weights"
		for mi, m := range methods {
			var pts plotter.XYs
			var errs plotter.YErrors
			sum := 0.0
			for _, r := range rows {
				if r.fields["game"] != g || r.fields["method"] != m {
					continue
				}
				budget = r.fields["budget"]
				elo, err := r.num(path, "elo")
				if err != nil {
					return err
				}
				ci, err := r.num(path, "ci95")
				if err != nil {
					return err
				}
				seed, err := r.num(path, "seed")
				if err != nil {
					return err
				}
				pts = append(pts, plotter.XY{X: float64(mi) + (seed-2)*0.15, Y: elo})
				errs = append(errs, struct{ Low, High float64 }{ci, ci})
				sum += elo
			}
			if len(pts) == 0 {
				continue
			}
			c := palette[mi%len(palette)]
			mean, err := plotter.NewLine(plotter.XYs{{X: float64(mi) - 0.35, Y: sum / float64(len(pts))}, {X: float64(mi) + 0.35, Y: sum / float64(len(pts))}})
			if err != nil {
				return err
			}
			mean.Color, mean.Width = c, vg.Points(2)
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return err
			}
			sc.GlyphStyle.Color, sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = c, vg.Points(2.5), draw.CircleGlyph{}
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{pts, errs})
			if err != nil {
				return err
			}
			eb.Color = c
			p.Add(mean, eb, sc)
		}
		p.Title.Text = fmt.Sprintf("%s, %s games (seeds 1–3; line: mean)", g, budget)
		names := make([]string, len(methods))
		copy(names, methods)
		p.NominalX(names...)
		p.X.Min, p.X.Max = -0.6, float64(len(methods))-0.4
		p.Add(plotter.NewGrid())
		plots = append(plots, p)
	}
	return render(plots, 3*330, 320, out)
}

// clusterPlot draws games per second against workers, one line per setup.
func clusterPlot(rows []row, out string) error {
	const path = "cluster.csv"
	p := plot.New()
	p.Title.Text = "gomoku depth 3, 512-game match, 2 cores"
	p.X.Label.Text = "workers (in process: game slots; broker: worker processes of 1 slot)"
	p.Y.Label.Text = "games per second"
	p.Y.Min = 0
	for si, s := range order(rows, "setup") {
		var pts plotter.XYs
		for _, r := range rows {
			if r.fields["setup"] != s {
				continue
			}
			w, err := r.num(path, "workers")
			if err != nil {
				return err
			}
			g, err := r.num(path, "games_per_s")
			if err != nil {
				return err
			}
			pts = append(pts, plotter.XY{X: w, Y: g})
		}
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		c := palette[si%len(palette)]
		l.Color, sc.GlyphStyle.Color = c, c
		p.Add(l, sc)
		p.Legend.Add(s, l, sc)
	}
	p.Add(plotter.NewGrid())
	p.Y.Max *= 1.1
	p.Legend.Top, p.Legend.Left = false, false
	return render([]*plot.Plot{p}, 560, 340, out)
}

// render writes plots side by side as one SVG of width × height pixels (96 per inch),
// through a temporary file renamed over out.
func render(plots []*plot.Plot, width, height int, out string) error {
	w, h := vg.Length(width)*vg.Inch/96, vg.Length(height)*vg.Inch/96
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Points(6), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
	for i, p := range plots {
		p.Draw(tiles.At(dc, i, 0))
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".benchplots-*")
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(tmp); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	fmt.Println("wrote", out)
	return nil
}
