package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/match"
	"evotune/tuner/outside"
)

func addGameFlags(c *cobra.Command, o *gameOpts) {
	c.Flags().StringVar(&o.game, "game", "", gameFlagHelp())
	c.Flags().StringVar(&o.rule, "rule", "", "rule variant (gomoku: freestyle, standard or renju)")
}

// ---- weights default ----

type weightsOpts struct {
	gameOpts
	out string
}

func newWeightsCmd() *cobra.Command {
	c := &cobra.Command{Use: "weights", Short: "Weights files"}
	var o weightsOpts
	def := &cobra.Command{
		Use:     "default --game G [--out FILE]",
		Short:   "Write the paper's weights as a weights file",
		Args:    cobra.NoArgs,
		Example: "  evotune weights default --game connect6 --out c6.json",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWeightsDefault(o, cmd.OutOrStdout())
		},
	}
	addGameFlags(def, &o.gameOpts)
	def.Flags().StringVar(&o.out, "out", "", "write to FILE (atomically) instead of standard output")
	c.AddCommand(def)
	var lo layoutOpts
	layout := &cobra.Command{
		Use:   "layout --game G [--json] | --engine 'cmd:PROG ARGS' [--options 'A,B'] --format yaml|openbench --out FILE",
		Short: "List the genes the tuner sees (bounds, paper value, scale, fixed or free, and why), or write a UCI engine's layout from the options it declares",
		Args:  cobra.NoArgs,
		Example: "  evotune weights layout --game gomoku\n" +
			"  evotune weights layout --engine cmd:/usr/games/toga2 --options 'Material,King Safety' --format yaml --out toga2.yaml\n" +
			"  evotune weights layout --engine cmd:./myengine --format openbench --out tune.txt",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if lo.engine != "" {
				return runEngineLayout(cmd.Context(), lo, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			return runWeightsLayout(lo, cmd.OutOrStdout())
		},
	}
	layout.Flags().StringVar(&lo.game, "game", "", gameFlagHelp())
	layout.Flags().BoolVar(&lo.json, "json", false, "print JSON")
	layout.Flags().StringVar(&lo.format, "format", "table", "table, or yaml: the layout file (evotune.layout/v1) of the built-in engine, the template of an outside engine's layout (tune --layout)")
	layout.Flags().StringVar(&lo.out, "out", "", "with --format yaml or openbench: write to FILE (atomically) instead of standard output")
	layout.Flags().StringVar(&lo.engine, "engine", "", "a UCI engine, 'cmd:PROG ARGS': write a chess layout of the spin options it declares (integer genes, its bounds and defaults; engine settings such as Hash and Threads fixed)")
	layout.Flags().StringVar(&lo.options, "options", "", "with --engine: only these options, comma-separated, as the engine names them ('Material,King Safety')")
	layout.Flags().DurationVar(&lo.startup, "startup-time", 10*time.Second, "with --engine: how long the engine may take to answer uci")
	c.AddCommand(layout)
	return c
}

type layoutOpts struct {
	game    string
	json    bool
	format  string
	out     string
	engine  string
	options string
	startup time.Duration
}

// runEngineLayout writes the layout (or OpenBench list) of the UCI engine's spin options.
func runEngineLayout(ctx context.Context, o layoutOpts, out, errOut io.Writer) error {
	if o.game != "" || o.json {
		return errors.New("--engine writes the layout of an outside UCI engine (game chess): leave out --game and --json")
	}
	f, err := outside.DeclaredLayout(ctx, o.engine, o.options, o.format, o.startup)
	for _, l := range f.LeftOut {
		fmt.Fprintln(errOut, "left out "+l)
	}
	if err != nil {
		return err
	}
	if o.out == "" || o.out == "-" {
		_, err := out.Write(f.Data)
		return err
	}
	if err := engine.WriteFileAtomic(o.out, f.Data); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(out, "wrote %s: the %s of %s (%d spin options, %d of them engine settings held fixed)\n", o.out, f.What, o.engine, f.Options, f.Fixed)
	return nil
}

func runWeightsLayout(o layoutOpts, out io.Writer) error {
	e, err := genomes.Lookup(o.game)
	if err != nil {
		return fmt.Errorf("--game: %w", err)
	}
	switch {
	case o.format == "yaml":
		data := genomes.LayoutFileOf(e.Layout).YAML()
		if o.out == "" || o.out == "-" {
			_, err := out.Write(data)
			return err
		}
		if err := engine.WriteFileAtomic(o.out, data); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		fmt.Fprintf(out, "wrote %s: the %s layout (%d genes)\n", o.out, o.game, len(e.Layout.Genes))
		return nil
	case o.format != "table" && o.format != "":
		return fmt.Errorf("--format %q: want table or yaml", o.format)
	case o.out != "":
		return errors.New("--out goes with --format yaml")
	}
	if o.json {
		return writeJSON(out, e.Layout.Table())
	}
	_, err = io.WriteString(out, e.Layout.TableText())
	return err
}

func runWeightsDefault(o weightsOpts, out io.Writer) error {
	g, _, err := resolveGame(o.gameOpts)
	if err != nil {
		return err
	}
	lim := g.DefaultLimits()
	data, err := engine.MarshalWeightsFile(g.DefaultWeights(), &lim, &engine.Provenance{
		Program: "evotune " + version, Note: "paper defaults"})
	if err != nil {
		return err
	}
	if o.out == "" {
		_, err = out.Write(data)
		return err
	}
	if err := engine.WriteFileAtomic(o.out, data); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// ---- perft ----

type perftOpts struct {
	gameOpts
	board int
	depth int
	json  bool
}

func newPerftCmd() *cobra.Command {
	var o perftOpts
	c := &cobra.Command{
		Use:     "perft --game G [--board N] --depth D",
		Short:   "Count the legal move tree from the start position",
		Args:    cobra.NoArgs,
		Example: "  evotune perft --game amazons --depth 2\n  evotune perft --game amazons --board 8 --depth 2",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPerft(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	addGameFlags(c, &o.gameOpts)
	c.Flags().IntVar(&o.board, "board", 0, "board side (0 = the game's default)")
	c.Flags().IntVar(&o.depth, "depth", 1, "depth in plies")
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return c
}

func runPerft(_ context.Context, o perftOpts, out io.Writer) error {
	g, _, err := resolveGame(o.gameOpts)
	if err != nil {
		return err
	}
	if o.depth < 0 || o.depth > 6 {
		return fmt.Errorf("--depth %d: want 0–6", o.depth)
	}
	b, err := g.NewBoard(o.board)
	if err != nil {
		return fmt.Errorf("--board: %w", err)
	}
	p, ok := g.(engine.Perfter)
	if !ok {
		return fmt.Errorf("%s has no perft", g.Name())
	}
	start := time.Now()
	n := p.Perft(b, o.depth)
	el := time.Since(start)
	if o.json {
		return writeJSON(out, map[string]any{"game": g.Name(), "board": b.Size(), "depth": o.depth, "nodes": n, "seconds": el.Seconds()})
	}
	fmt.Fprintf(out, "perft(%d) %s %dx%d: %d nodes in %.3fs\n", o.depth, g.Name(), b.Size(), b.Size(), n, el.Seconds())
	return nil
}

// ---- play ----

type playOpts struct {
	gameOpts
	black, white string
	board        int
	lim          engine.Limits
	opening      string
	maxPlies     int
	json, show   bool
	save, from   string
}

func newPlayCmd() *cobra.Command {
	var o playOpts
	c := &cobra.Command{
		Use:   "play --game G --black FILE|default --white FILE|default",
		Short: "Play one game between two weights files and print the moves and result",
		Args:  cobra.NoArgs,
		Example: "  evotune play --game gomoku --black default --white default --depth 3\n" +
			"  evotune play --game connect6 --black tuned.json --white default --show\n" +
			"  evotune play --game gomoku --save game.psq\n" +
			"  evotune play --game gomoku --from game.psq --black tuned.json",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPlay(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	addGameFlags(c, &o.gameOpts)
	c.Flags().StringVar(&o.black, "black", "default", "Black's weights: a weights file or 'default' (the paper's); Black moves first except in chess")
	c.Flags().StringVar(&o.white, "white", "default", "White's weights: a weights file or 'default'; White moves first in chess")
	c.Flags().IntVar(&o.board, "board", 0, "board side (0 = the game's default)")
	addLimitFlags(c, &o.lim)
	c.Flags().StringVar(&o.opening, "opening", "", "moves to play first, comma-separated (e.g. h8,i9)")
	c.Flags().IntVar(&o.maxPlies, "max-plies", 0, "adjudicate a draw after this many plies (0 = the game's own end)")
	c.Flags().BoolVar(&o.json, "json", false, "print the game record as JSON")
	c.Flags().BoolVar(&o.show, "show", false, "draw the final position")
	c.Flags().StringVar(&o.save, "save", "", "write the game to FILE: .psq (Piskvork, Gomoku), .json (evotune's record) or text in the game's notation")
	c.Flags().StringVar(&o.from, "from", "", "continue a saved game (.psq, .json or a notation text file): its moves are played first")
	c.MarkFlagsMutuallyExclusive("from", "opening")
	return c
}

func addLimitFlags(c *cobra.Command, l *engine.Limits) {
	c.Flags().IntVar(&l.Depth, "depth", 0, "search depth in plies (0 = the weights file's, else the game's default)")
	c.Flags().IntVar(&l.Width, "width", 0, "expand only the best W moves of every node (0 = the file's or the game's default)")
}

func runPlay(ctx context.Context, o playOpts, out io.Writer) error {
	g, _, err := resolveGame(o.gameOpts)
	if err != nil {
		return err
	}
	req := match.PlayRequest{Game: g, Black: o.black, White: o.white, Board: o.board, Limits: o.lim,
		MaxPlies: o.maxPlies, Opening: o.opening, From: o.from}
	b, rec, err := match.PlayOne(ctx, req)
	if err != nil {
		return err
	}
	if o.save != "" {
		if err := engine.SaveGame(o.save, g, b, rec, req.Side(engine.Black), req.Side(engine.White), o.rule); err != nil {
			return fmt.Errorf("--save: %w", err)
		}
	}
	if o.json {
		return writeJSON(out, struct {
			Game    string            `json:"game"`
			Result  string            `json:"result"`
			Winner  string            `json:"winner"`
			Record  engine.GameRecord `json:"record"`
			Seconds float64           `json:"seconds"`
		}{g.Name(), rec.Outcome.String(), engine.WinnerText(g, rec.Outcome), rec, rec.Duration.Seconds()})
	}
	_, err = io.WriteString(out, engine.RecordText(g, b, rec, o.show))
	return err
}

// ---- bench ----

type benchOpts struct {
	gameOpts
	lim  engine.Limits
	scan string
	json bool
}

func newBenchCmd() *cobra.Command {
	var o benchOpts
	c := &cobra.Command{
		Use:   "bench --game G [--depth D --width W] [--json]",
		Short: "Search a fixed suite of positions and report nodes, time and NPS",
		Args:  cobra.NoArgs,
		Example: "  evotune bench --game gomoku --depth 6\n" +
			"  evotune bench --game connect6 --scan both   # the paper's Fig. 3: depth 3, 4, 5 at width 10",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBench(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	addGameFlags(c, &o.gameOpts)
	addLimitFlags(c, &o.lim)
	c.Flags().StringVar(&o.scan, "scan", "", "connect6 only: global, local or both — time the 9th move of a fixed game with each road scan")
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return c
}

func runBench(ctx context.Context, o benchOpts, out io.Writer) error {
	g, _, err := resolveGame(o.gameOpts)
	if err != nil {
		return err
	}
	if err := o.lim.Validate(); err != nil {
		return fmt.Errorf("--%w", err)
	}
	if o.scan != "" {
		sb, ok := g.(engine.ScanBencher)
		if !ok {
			return fmt.Errorf("--scan: %s has no scan benchmark (only %s has road scans)", g.Name(), strings.Join(genomes.Offering[engine.ScanBencher](), ", "))
		}
		rows, text, err := sb.ScanBench(ctx, o.scan, o.lim.Depth, o.lim.Width)
		if err != nil {
			return fmt.Errorf("--%w", err)
		}
		if o.json {
			return writeJSON(out, rows)
		}
		_, err = io.WriteString(out, text)
		return err
	}
	var each func(engine.BenchRow)
	if !o.json {
		if _, ok := g.(engine.Bencher); ok {
			fmt.Fprintln(out, engine.BenchHeader)
		}
		each = func(r engine.BenchRow) { fmt.Fprintln(out, r.Text()) }
	}
	r, err := engine.RunBench(ctx, g, o.lim, each)
	switch {
	case err != nil:
		return err
	case o.json:
		return writeJSON(out, r)
	}
	fmt.Fprintln(out, r.Total.Text())
	if r.ExtraLine != "" {
		fmt.Fprintln(out, r.ExtraLine)
	}
	return nil
}
