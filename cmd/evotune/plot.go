package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"

	"evotune/engine"
	"evotune/tuner/runview"
)

type plotOpts struct {
	dbPath, out, what, size string
}

func newPlotCmd() *cobra.Command {
	var o plotOpts
	c := &cobra.Command{
		Use:   "plot RUN --out FILE.svg|FILE.png [--what fitness|elo|genes|importance|slice|parallel] [--size 900x560]",
		Short: "Draw a run's score, held-out Elo, genes, parameter importance or slices as SVG or PNG",
		Long: "plot draws one chart of a run for reports and terminals without a browser (gonum/plot):\n" +
			"  fitness  best and mean score per generation, the best's 95% band and the mean's ±1 sd\n" +
			"  elo      the champion's held-out Elo against the paper's weights with its 95% CI at every\n" +
			"           checkpoint (tune --verify-every) and the final verification\n" +
			"  genes    one panel per gene: the best's value and the population's range, relative to\n" +
			"           the paper's value (÷ on a log axis for log-scale genes, − otherwise)\n" +
			"  importance  each gene's effect on the score per within-generation SD with its 95% CI:\n" +
			"           least squares of the individuals' scores on their genes with a constant per\n" +
			"           generation (log genes in ln units), largest first\n" +
			"  slice    one panel per gene: every individual's score against its value of the gene\n" +
			"  parallel parallel coordinates: every individual row across the genes, coloured by score\n" +
			"The format follows the extension of --out (.svg or .png); --size is in pixels, the PNG's\n" +
			"and the SVG's on screen (96 per inch: written as points, ¾ of them). The file is written\n" +
			"atomically.",
		Args: cobra.ExactArgs(1),
		Example: "  evotune plot 1 --out fitness.svg\n" +
			"  evotune plot 1 --what genes --out genes.png --size 1200x900\n" +
			"  evotune plot 1 --what importance --out importance.svg",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlot(cmd.Context(), o, args[0], cmd.ErrOrStderr())
		},
	}
	c.Flags().StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	c.Flags().StringVar(&o.out, "out", "", "the image file: .svg or .png (required)")
	c.Flags().StringVar(&o.what, "what", "fitness", "fitness, elo, genes, importance (each gene's effect on the score, 95% CI), slice (score against each gene) or parallel (parallel coordinates)")
	c.Flags().StringVar(&o.size, "size", "", "WIDTHxHEIGHT (default 900x560; genes: 300×220 per panel, 4 per row)")
	return c
}

// parseSize reads "WIDTHxHEIGHT" (each 50–10000).
func parseSize(s string) (int, int, error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	w, err1 := strconv.Atoi(a)
	h, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || w < 50 || h < 50 || w > 10000 || h > 10000 {
		return 0, 0, fmt.Errorf("--size %q: want WIDTHxHEIGHT with each 50–10000, e.g. 900x560", s)
	}
	return w, h, nil
}

func runPlot(ctx context.Context, o plotOpts, arg string, log interface{ Write([]byte) (int, error) }) error {
	runID, err := parseRunID(arg)
	if err != nil {
		return err
	}
	if o.out == "" {
		return fmt.Errorf("--out is required: FILE.svg or FILE.png")
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(o.out)), ".")
	if format != "svg" && format != "png" {
		return fmt.Errorf("--out %s: the extension must be .svg or .png", o.out)
	}
	if !slices.Contains(runview.Plots, o.what) {
		return fmt.Errorf("--what %q: want one of %s", o.what, strings.Join(runview.Plots, ", "))
	}
	if o.size != "" {
		if _, _, err := parseSize(o.size); err != nil {
			return err
		}
	}
	d, err := openRO(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	var plots []*plot.Plot
	cols := 1
	w, h := 900, 560
	switch o.what {
	case "fitness", "elo":
		v, err := runview.Run(ctx, d, runID)
		if err != nil {
			return err
		}
		var p *plot.Plot
		if o.what == "fitness" {
			p, err = runview.FitnessPlot(v)
		} else {
			p, err = runview.EloPlot(v)
		}
		if err != nil {
			return err
		}
		plots = []*plot.Plot{p}
	case "genes", "slice":
		if o.what == "genes" {
			v, err := runview.Genes(ctx, d, runID)
			if err != nil {
				return err
			}
			if plots, err = runview.GenePlots(v); err != nil {
				return err
			}
		} else {
			v, err := runview.Analysis(ctx, d, runID)
			if err != nil {
				return err
			}
			if plots, err = runview.SlicePlots(v); err != nil {
				return err
			}
		}
		cols = min(4, len(plots))
		w, h = 300*cols, 220*int(math.Ceil(float64(len(plots))/float64(cols)))
	case "importance", "parallel":
		v, err := runview.Analysis(ctx, d, runID)
		if err != nil {
			return err
		}
		var p *plot.Plot
		if o.what == "importance" {
			p, err = runview.ImportancePlot(v)
			h = max(300, 120+36*len(v.Genes))
		} else {
			p, err = runview.ParallelPlot(v)
			w = max(w, 90*len(v.Genes))
		}
		if err != nil {
			return err
		}
		plots = []*plot.Plot{p}
	}
	if o.size != "" {
		w, h, _ = parseSize(o.size)
	}
	data, err := runview.Render(plots, cols, w, h, format)
	if err != nil {
		return err
	}
	if err := engine.WriteFileAtomic(o.out, data); err != nil {
		return err
	}
	fmt.Fprintf(log, "wrote %s (%s, %d×%d)\n", o.out, o.what, w, h)
	return nil
}
