package runview

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plots are the charts `evotune plot` draws (gonum.org/v1/plot).
var Plots = []string{"fitness", "elo", "genes", "importance", "slice", "parallel"}

var (
	red   = color.RGBA{R: 204, G: 51, B: 51, A: 255}
	blue  = color.RGBA{R: 51, G: 102, B: 204, A: 255}
	green = color.RGBA{R: 51, G: 136, B: 51, A: 255}
	gray  = color.RGBA{R: 136, G: 136, B: 136, A: 255}
)

func band(xs, lo, hi []float64, c color.RGBA) (*plotter.Polygon, error) {
	var pts plotter.XYs
	for i := range xs {
		if !math.IsNaN(lo[i]) {
			pts = append(pts, plotter.XY{X: xs[i], Y: lo[i]})
		}
	}
	for i := len(xs) - 1; i >= 0; i-- {
		if !math.IsNaN(hi[i]) {
			pts = append(pts, plotter.XY{X: xs[i], Y: hi[i]})
		}
	}
	if len(pts) < 3 {
		return nil, nil
	}
	p, err := plotter.NewPolygon(pts)
	if err != nil {
		return nil, err
	}
	p.Color = color.NRGBA{R: c.R, G: c.G, B: c.B, A: 50} // not premultiplied: see-through
	p.LineStyle.Width = 0
	p.LineStyle.Color = color.Transparent
	return p, nil
}

func line(p *plot.Plot, name string, xs, ys []float64, c color.RGBA) error {
	var pts plotter.XYs
	for i := range xs {
		if !math.IsNaN(ys[i]) {
			pts = append(pts, plotter.XY{X: xs[i], Y: ys[i]})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.Color, l.Width = c, vg.Points(1.5)
	p.Add(l)
	if name != "" {
		p.Legend.Add(name, l)
	}
	return nil
}

// FitnessPlot draws the best and mean score per generation, the best's 95% band (±1.96
// pentanomial standard errors) and the population's ±1 sd band.
func FitnessPlot(v RunView) (*plot.Plot, error) {
	if len(v.Generations) == 0 {
		return nil, fmt.Errorf("run %d has no saved generation yet", v.Run.ID)
	}
	p := plot.New()
	gen := generationWord(v.Run)
	p.Title.Text = fmt.Sprintf("%s (%s): score against the %s's references", v.Run.Name, v.Run.Game, gen)
	p.X.Label.Text, p.Y.Label.Text = gen, "score"
	p.X.Tick.Marker = intTicks{}
	if m := v.Run.MethodTerms; m != nil && m.Probes {
		return probesPlot(p, v)
	}
	n := len(v.Generations)
	xs, best, lo, hi, mean, mlo, mhi := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, g := range v.Generations {
		xs[i], best[i], mean[i] = float64(g.Generation), g.BestScore, g.MeanScore
		lo[i], hi[i] = math.NaN(), math.NaN()
		if g.BestSE != nil {
			lo[i], hi[i] = g.BestScore-1.96**g.BestSE, g.BestScore+1.96**g.BestSE
		}
		mlo[i], mhi[i] = g.MeanScore-g.ScoreStd, g.MeanScore+g.ScoreStd
	}
	bestName := "best"
	for _, b := range []struct {
		lo, hi []float64
		c      color.RGBA
	}{{lo, hi, red}, {mlo, mhi, blue}} {
		poly, err := band(xs, b.lo, b.hi, b.c)
		if err != nil {
			return nil, err
		}
		if poly != nil {
			p.Add(poly)
			if b.c == red {
				bestName = "best (band: 95%)" // named only where a band is drawn
			}
		}
	}
	if err := line(p, bestName, xs, best, red); err != nil {
		return nil, err
	}
	if err := line(p, "mean (band: ±1 sd)", xs, mean, blue); err != nil {
		return nil, err
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p, nil
}

// generationWord is what the run's method calls a generation ("generation", "step").
func generationWord(r RunItem) string {
	if r.MethodTerms != nil && r.MethodTerms.Generation != "" {
		return r.MethodTerms.Generation
	}
	return "generation"
}

// probesPlot draws a run whose generation is a pair of probes playing each other (SPSA's
// θ+ against θ−): the probe's score per step with its 95% band, and ½ (no gradient seen).
func probesPlot(p *plot.Plot, v RunView) (*plot.Plot, error) {
	gen := generationWord(v.Run)
	p.Title.Text = fmt.Sprintf("%s (%s): θ+ against θ− per %s (½ = no gradient seen)", v.Run.Name, v.Run.Game, gen)
	n := len(v.Generations)
	xs, s, lo, hi, half := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	banded := false
	for i, g := range v.Generations {
		xs[i], s[i], lo[i], hi[i], half[i] = float64(g.Generation), math.NaN(), math.NaN(), math.NaN(), 0.5
		if g.PlusScore != nil {
			s[i] = *g.PlusScore
			if g.PlusSE != nil {
				lo[i], hi[i], banded = *g.PlusScore-1.96**g.PlusSE, *g.PlusScore+1.96**g.PlusSE, true
			}
		}
	}
	name := "θ+ score"
	if banded {
		poly, err := band(xs, lo, hi, red)
		if err != nil {
			return nil, err
		}
		if poly != nil {
			p.Add(poly)
			name = "θ+ score (band: 95%)"
		}
	}
	if err := line(p, name, xs, s, red); err != nil {
		return nil, err
	}
	if err := line(p, "½", xs, half, gray); err != nil {
		return nil, err
	}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p, nil
}

// EloPlot draws the champion's held-out Elo against the paper's weights (an outside
// engine's run: the layout's defaults) with its 95%
// interval at every checkpoint (tune --verify-every) and the final verification, against
// generations. Infinite estimates (all wins or all losses) are left out.
func EloPlot(v RunView) (*plot.Plot, error) {
	var pts plotter.XYs
	var errs plotter.YErrors
	add := func(gen int, e *Elo) {
		if e == nil || e.Elo == nil {
			return
		}
		ci := 0.0
		if e.CI95 != nil {
			ci = *e.CI95
		}
		pts = append(pts, plotter.XY{X: float64(gen), Y: *e.Elo})
		errs = append(errs, struct{ Low, High float64 }{ci, ci})
	}
	for _, g := range v.Generations {
		add(g.Generation, g.Checkpoint)
	}
	checkpoints := len(pts)
	if v.Run.Verified != nil && len(v.Generations) > 0 {
		add(v.Generations[len(v.Generations)-1].Generation, v.Run.Verified)
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("run %d has no finite held-out Elo yet (tune --verify-every N checks the champion every N generations; the final verification comes at the end)", v.Run.ID)
	}
	p := plot.New()
	against := "the paper's weights"
	if v.Run.Outside {
		against = "the layout's defaults"
	}
	p.Title.Text = fmt.Sprintf("%s (%s): held-out Elo of the champion vs %s (95%% CI)", v.Run.Name, v.Run.Game, against)
	p.X.Label.Text, p.Y.Label.Text = generationWord(v.Run), "Elo"
	p.X.Tick.Marker = intTicks{}
	zero, err := plotter.NewLine(plotter.XYs{{X: pts[0].X, Y: 0}, {X: pts[len(pts)-1].X, Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Color, zero.Dashes = color.Gray{Y: 120}, []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(plotter.NewGrid(), zero)
	// The checkpoints (a line through them) and the final verification (a square), each
	// with its 95% bars, named in the legend.
	for _, part := range []struct {
		name  string
		from  int
		to    int
		c     color.RGBA
		shape draw.GlyphDrawer
	}{{"checkpoints (tune --verify-every)", 0, checkpoints, green, draw.CircleGlyph{}}, {"final verification", checkpoints, len(pts), red, draw.BoxGlyph{}}} {
		if part.from == part.to {
			continue
		}
		xy, e := pts[part.from:part.to], errs[part.from:part.to]
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xy, e})
		if err != nil {
			return nil, err
		}
		bars.Color = part.c
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.Color, sc.Shape = part.c, part.shape
		if len(xy) > 1 {
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, err
			}
			l.Color = part.c
			p.Add(l)
		}
		p.Add(bars, sc)
		p.Legend.Add(part.name, sc)
	}
	// Room for the legend above the bars and half a generation at each end.
	lo, hi := 0.0, 0.0
	for i, pt := range pts {
		lo, hi = math.Min(lo, pt.Y-errs[i].Low), math.Max(hi, pt.Y+errs[i].High)
	}
	p.Y.Min, p.Y.Max = lo-0.05*(hi-lo), hi+0.2*(hi-lo)
	p.X.Min, p.X.Max = pts[0].X-0.5, pts[len(pts)-1].X+0.5
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

// GenePlots draws one small plot per gene: the generation's best (line) and the
// population's range (band), as value ÷ paper on a log axis for log-scale genes with a
// positive paper value, else value − paper.
func GenePlots(v GenesView) ([]*plot.Plot, error) {
	if len(v.Generations) == 0 {
		return nil, fmt.Errorf("run %d has no saved generation yet", v.Run.ID)
	}
	xs := make([]float64, len(v.Generations))
	for i, g := range v.Generations {
		xs[i] = float64(g)
	}
	var out []*plot.Plot
	for i, g := range v.Genes {
		ratio := g.Scale == "log" && g.Default > 0 && positive(v.Min[i]) && positive(v.Best[i])
		tr := func(a []*float64) []float64 {
			ys := make([]float64, len(a))
			for k, x := range a {
				switch {
				case x == nil:
					ys[k] = math.NaN()
				case ratio:
					ys[k] = *x / g.Default
				default:
					ys[k] = *x - g.Default
				}
			}
			return ys
		}
		p := plot.New()
		p.Title.Text = g.Name
		p.X.Label.Text = generationWord(v.Run)
		p.X.Tick.Marker = intTicks{}
		// "value − 60", not "− 60": a label that starts with a minus sign reads as a
		// negative number.
		if ratio {
			p.Y.Label.Text = fmt.Sprintf("value ÷ %g", g.Default)
			p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		} else {
			p.Y.Label.Text = fmt.Sprintf("value − %g", g.Default)
		}
		poly, err := band(xs, tr(v.Min[i]), tr(v.Max[i]), blue)
		if err != nil {
			return nil, err
		}
		if poly != nil {
			p.Add(poly)
		}
		if err := line(p, "", xs, tr(v.Best[i]), red); err != nil {
			return nil, err
		}
		if ratio {
			// Fix the log axis around the data and the paper's value 1 (gonum widens a
			// flat range by ±1, which a log axis cannot show).
			lo, hi := 1.0, 1.0
			for _, a := range [][]float64{tr(v.Min[i]), tr(v.Max[i])} {
				for _, y := range a {
					if !math.IsNaN(y) {
						lo, hi = math.Min(lo, y), math.Max(hi, y)
					}
				}
			}
			p.Y.Min, p.Y.Max = lo/1.1, hi*1.1
		}
		out = append(out, p)
	}
	return out, nil
}

func positive(a []*float64) bool {
	for _, x := range a {
		if x != nil && *x <= 0 {
			return false
		}
	}
	return true
}

// Render draws plots in a grid of cols columns on a width×height canvas in CSS pixels
// (96 per inch: the PNG's pixels; the SVG's size is the same, written in points) and
// encodes it as "svg" or "png".
func Render(plots []*plot.Plot, cols int, width, height int, format string) ([]byte, error) {
	w, h := vg.Length(width)*vg.Inch/96, vg.Length(height)*vg.Inch/96
	var c draw.Canvas
	var finish func() ([]byte, error)
	switch format {
	case "svg":
		s := vgsvg.New(w, h)
		c = draw.New(s)
		finish = func() ([]byte, error) {
			var buf bytes.Buffer
			_, err := s.WriteTo(&buf)
			return buf.Bytes(), err
		}
	case "png":
		img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96))
		c = draw.New(img)
		finish = func() ([]byte, error) {
			var buf bytes.Buffer
			_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(&buf)
			return buf.Bytes(), err
		}
	default:
		return nil, fmt.Errorf("format %q: want svg or png", format)
	}
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	cols = max(1, min(cols, len(plots)))
	rows := (len(plots) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for k := 0; k < cols && r*cols+k < len(plots); k++ {
			grid[r][k] = plots[r*cols+k]
		}
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(6), PadY: vg.Points(6), PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
	canvases := plot.Align(grid, tiles, c)
	for r := range grid {
		for k, p := range grid[r] {
			if p != nil {
				p.Draw(canvases[r][k])
			}
		}
	}
	return finish()
}

// ImportancePlot draws each gene's effect on the score per within-generation SD with its
// 95% interval (AnalysisView, AnalysisMethod), largest first from the top; genes outside the
// regression (fixed, or the same in every row) are left out. The error says why there is
// no importance (AnalysisView.Error).
func ImportancePlot(v AnalysisView) (*plot.Plot, error) {
	if v.Error != nil {
		return nil, fmt.Errorf("run %d: no parameter importance: %s", v.Run.ID, *v.Error)
	}
	var gs []AnalysisGene
	for _, g := range v.Genes {
		if g.Coef != nil {
			gs = append(gs, g)
		}
	}
	sort.SliceStable(gs, func(a, b int) bool { return math.Abs(*gs[a].Coef) < math.Abs(*gs[b].Coef) })
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s (%s): effect on the score per within-generation SD of each gene (95%% CI)", v.Run.Name, v.Run.Game)
	p.X.Label.Text = "score change per SD (a constant per generation; log genes in ln units)"
	pts := make(plotter.XYs, len(gs))
	errs := make(plotter.XErrors, len(gs))
	names := make([]string, len(gs))
	for i, g := range gs {
		pts[i] = plotter.XY{X: *g.Coef, Y: float64(i)}
		errs[i] = struct{ Low, High float64 }{-*g.CI95, *g.CI95}
		names[i] = g.Name
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Color, sc.GlyphStyle.Radius = red, vg.Points(3)
	eb, err := plotter.NewXErrorBars(struct {
		plotter.XYs
		plotter.XErrors
	}{pts, errs})
	if err != nil {
		return nil, err
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: -0.5}, {X: 0, Y: float64(len(gs)) - 0.5}}) // no effect
	if err != nil {
		return nil, err
	}
	zero.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	p.Add(plotter.NewGrid(), zero, eb, sc)
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.5, float64(len(gs))-0.5
	return p, nil
}

// SlicePlots draws one panel per gene: every individual row's score (y) against its value
// of the gene (x; a log axis for log-scale genes), the slice plots Optuna users know.
func SlicePlots(v AnalysisView) ([]*plot.Plot, error) {
	if v.Rows == 0 {
		return nil, fmt.Errorf("run %d has no individual that played games yet", v.Run.ID)
	}
	var out []*plot.Plot
	for _, g := range v.Genes {
		pts := make(plotter.XYs, len(g.Values))
		for i := range g.Values {
			pts[i] = plotter.XY{X: g.Values[i], Y: g.Scores[i]}
		}
		p := plot.New()
		p.Title.Text = g.Name
		if g.Fixed {
			p.Title.Text += " (fixed)"
		}
		p.X.Label.Text, p.Y.Label.Text = g.Name, "score"
		if g.Scale == "log" && len(g.Values) > 0 && g.Values[0] > 0 && g.Values[len(g.Values)-1] > g.Values[0] {
			p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius = blue, vg.Points(1.5)
		p.Add(plotter.NewGrid(), sc)
		out = append(out, p)
	}
	return out, nil
}

// intTicks marks whole numbers (generations, steps): every one up to 12 of them, else a
// round step (1, 2 or 5 × 10^k) giving at most about 10 labelled ticks.
type intTicks struct{}

// Ticks implements plot.Ticker.
func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	a, b := math.Ceil(lo), math.Floor(hi)
	if b < a {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := 1.0
	for (b-a)/step > 12 {
		switch m := step / math.Pow(10, math.Floor(math.Log10(step))); {
		case m < 2:
			step *= 2
		case m < 5:
			step = step / 2 * 5
		default:
			step *= 2
		}
	}
	var out []plot.Tick
	for x := math.Ceil(a/step) * step; x <= b; x += step {
		out = append(out, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', -1, 64)})
	}
	return out
}

func init() {
	// Sans-serif text (gonum/plot's own Liberation fonts), readable at small sizes.
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
}

// ParallelPlot draws parallel coordinates of a run's individual rows (AnalysisView.Lines):
// one axis per gene scaled to the layout's bounds (0 at the bottom, 1 at the top; ln for
// log-scale genes), one line per row coloured from red (score 0) through yellow to green
// (score 1), the best drawn last.
func ParallelPlot(v AnalysisView) (*plot.Plot, error) {
	if len(v.Lines) == 0 {
		return nil, fmt.Errorf("run %d has no individual that played games yet", v.Run.ID)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s (%s): individuals across the genes, coloured by score (red 0, green 1)", v.Run.Name, v.Run.Game)
	p.Y.Label.Text = "position within the layout's bounds"
	names := make([]string, len(v.Genes))
	for i, g := range v.Genes {
		names[i] = g.Name
	}
	p.NominalX(names...)
	p.Y.Min, p.Y.Max = 0, 1
	lines := append([]ParallelLine(nil), v.Lines...)
	sort.SliceStable(lines, func(a, b int) bool { return lines[a].Score < lines[b].Score })
	for _, l := range lines {
		xy := make(plotter.XYs, len(l.Values))
		for i, x := range l.Values {
			g := v.Genes[i]
			t := (x - g.Min) / (g.Max - g.Min)
			if g.Scale == "log" && g.Min > 0 && x > 0 {
				t = (math.Log(x) - math.Log(g.Min)) / (math.Log(g.Max) - math.Log(g.Min))
			}
			xy[i] = plotter.XY{X: float64(i), Y: math.Max(0, math.Min(1, t))}
		}
		ln, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		s := math.Max(0, math.Min(1, l.Score))
		r, gr := uint8(220), uint8(180)
		if s < 0.5 {
			gr = uint8(200 * s * 2)
		} else {
			r = uint8(220 * (1 - s) * 2)
		}
		ln.Color, ln.Width = color.RGBA{R: r, G: gr, B: 40, A: 90}, vg.Points(0.7)
		p.Add(ln)
	}
	p.Add(plotter.NewGrid())
	return p, nil
}
