package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"evotune/engine"
	"evotune/tuner/arena"
	"evotune/tuner/match"
	"evotune/tuner/progress"
	"evotune/tuner/runstore"
	"evotune/tuner/sensitivity"
	"evotune/tuner/stats"
)

type sensitivityOpts struct {
	gameOpts
	weights  string
	genes    []string
	factor   float64
	step     float64
	games    int
	openings string
	seed     int64
	exclude  int64
	dbPath   string
	board    int
	lim      engine.Limits
	workers  int
	maxPlies int
	json     bool
}

func newSensitivityCmd() *cobra.Command {
	var o sensitivityOpts
	c := &cobra.Command{
		Use:   "sensitivity --game G [--weights FILE|default] [--genes a,b] [--factor 2] [--step 0.1] [--games N]",
		Short: "Move each gene alone up and down and play the variant against the unchanged weights: which genes change play, and where the headroom is",
		Long: `sensitivity is a one-at-a-time screening of the weights (Morris 1991; Saltelli et al. 2008
§2.3): every gene the layout tunes (or those named by --genes) is moved alone, a log-scale
gene to ×factor and ÷factor, a linear one by ±step of its range, and each variant plays the
unchanged weights in colour-swapped pairs on the same openings. For each variant it prints
the Elo ± 95% CI against the unchanged weights and how many pairs repeated, move for move,
the unchanged weights' own game from that opening: a gene whose variants leave every pair
unchanged does not change play at this depth; a variant whose interval is above 0 is
headroom a tuning run can find.`,
		Args: cobra.NoArgs,
		Example: "  evotune sensitivity --game connect6 --games 200\n" +
			"  evotune sensitivity --game gomoku --weights best.json --genes k1,live_two --factor 1.5\n" +
			"  evotune sensitivity --game amazons --board 8 --step 0.05 --games 100 --json",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSensitivity(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addGameFlags(c, &o.gameOpts)
	f := c.Flags()
	f.StringVar(&o.weights, "weights", "default", "the weights probed around: a weights file or 'default' (the paper's)")
	f.StringSliceVar(&o.genes, "genes", nil, "genes to probe (default: every gene the layout tunes; see 'evotune weights layout')")
	f.Float64Var(&o.factor, "factor", 2, "log-scale genes are moved to ×factor and ÷factor (> 1)")
	f.Float64Var(&o.step, "step", 0.1, "linear genes are moved by ±step × (max − min)")
	f.IntVar(&o.games, "games", 200, "games per variant (even: openings × 2 colours)")
	f.StringVar(&o.openings, "openings", "random", "random (the held-out half of the opening space), builtin or an opening file")
	f.Int64Var(&o.seed, "seed", 1, "seed of random openings")
	f.Int64Var(&o.exclude, "exclude-run", 0, "leave out every opening run RUN of --db used")
	f.StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file (for --exclude-run)")
	f.IntVar(&o.board, "board", 0, "board side (0 = the game's default)")
	addLimitFlags(c, &o.lim)
	f.IntVar(&o.workers, "workers", runtime.NumCPU(), "games played at once (never changes results)")
	f.IntVar(&o.maxPlies, "max-plies", 400, "adjudicate a game still going after this many plies as a draw")
	f.BoolVar(&o.json, "json", false, "print JSON")
	return c
}

// sensitivityJSON is sensitivity --json.
type sensitivityJSON struct {
	Game     string              `json:"game"`
	Weights  string              `json:"weights"`
	Openings string              `json:"openings"`
	Limits   engine.Limits       `json:"limits"`
	Games    int                 `json:"games_per_variant"`
	Factor   float64             `json:"factor"`
	Step     float64             `json:"step"`
	Probes   []sensitivity.Probe `json:"probes"`
	Inert    []string            `json:"inert_genes"`
}

func runSensitivity(ctx context.Context, o sensitivityOpts, out, errOut io.Writer) error {
	g, entry, err := resolveGame(o.gameOpts)
	if err != nil {
		return err
	}
	if o.workers < 1 {
		return fmt.Errorf("--workers %d: want at least 1", o.workers)
	}
	if o.games < 2 || o.games%2 != 0 {
		return fmt.Errorf("--games %d: want a positive even number (games are played in colour-swapped pairs)", o.games)
	}
	if err := o.lim.Validate(); err != nil {
		return fmt.Errorf("--%w", err)
	}
	w, fl, err := match.LoadWeights(g, o.weights)
	if err != nil {
		return fmt.Errorf("--weights: %w", err)
	}
	base, err := entry.Layout.Vector(w)
	if err != nil {
		return fmt.Errorf("--weights: %w", err)
	}
	if _, err := g.NewBoard(o.board); err != nil {
		return fmt.Errorf("--board: %w", err)
	}
	var exclude map[string]bool
	if o.exclude != 0 {
		if exclude, err = runstore.OpeningsAt(ctx, o.dbPath, o.exclude, g.Name()); err != nil {
			return fmt.Errorf("--exclude-run: %w", err)
		}
	}
	openings, label, err := arena.SelectOpenings(o.openings, g, o.board, o.games/2, o.seed, exclude)
	if err != nil {
		return fmt.Errorf("--openings: %w", err)
	}
	setup := arena.GameSetup{Game: g, Board: o.board, Limits: match.MergeLimits(g, o.lim, fl), MaxPlies: o.maxPlies}
	cfg := sensitivity.Config{Setup: setup, Layout: entry.Layout, Base: base, Genes: o.genes, Factor: o.factor,
		Step: o.step, Games: o.games, Openings: openings, Workers: o.workers}
	if err := cfg.Validate(); err != nil {
		// Name the flag: the configuration's errors start with its field.
		for prefix, flag := range map[string]string{"factor ": "--", "step ": "--", "games ": "--", "gene ": "--genes: ", "openings:": "--openings " + o.openings + ": "} {
			if strings.HasPrefix(err.Error(), prefix) {
				return fmt.Errorf("%s%w", flag, err)
			}
		}
		return err
	}
	var prog *progress.Match
	var at string
	probes, err := sensitivity.Run(ctx, cfg, func(gene, dir string, done, total int) {
		if at != gene+" "+dir {
			if prog != nil {
				prog.Finish()
			}
			at, prog = gene+" "+dir, progress.NewMatch(errOut, gene+" "+dir)
		}
		prog.Update(done, total, stats.Result{})
	})
	if prog != nil {
		prog.Finish()
	}
	if err != nil {
		return err
	}
	inert := inertGenes(probes)
	if o.json {
		if probes == nil {
			probes = []sensitivity.Probe{}
		}
		if inert == nil {
			inert = []string{}
		}
		return writeJSON(out, sensitivityJSON{Game: g.Name(), Weights: o.weights, Openings: label, Limits: setup.Limits,
			Games: o.games, Factor: o.factor, Step: o.step, Probes: probes, Inert: inert})
	}
	fmt.Fprintf(out, "sensitivity %s around %s: %d games per variant on %d openings (%s), depth %d width %d\n",
		g.Name(), o.weights, o.games, o.games/2, label, setup.Limits.Depth, setup.Limits.Width)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GENE\tFROM\tTO\tSCORE\tELO ± 95% CI\tUNCHANGED PAIRS")
	var best *sensitivity.Probe
	for i, p := range probes {
		elo := "—"
		score := "—"
		if e := p.Estimate; e != nil {
			elo = fmt.Sprintf("%s ± %.1f (%s … %s)", stats.EloText(e.Elo), e.CI95, stats.EloText(e.EloLow), stats.EloText(e.EloHigh))
			score = fmt.Sprintf("%.3f", e.Score)
			if p.Unchanged < p.Pairs && (best == nil || e.EloLow > best.Estimate.EloLow) {
				best = &probes[i]
			}
		}
		fmt.Fprintf(tw, "%s\t%.6g\t%.6g\t%s\t%s\t%d/%d\n", p.Gene, p.From, p.To, score, elo, p.Unchanged, p.Pairs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(inert) > 0 {
		fmt.Fprintf(out, "no variant changed any game: %s\n", strings.Join(inert, ", "))
	}
	if best != nil {
		if best.Estimate.EloLow > 0 {
			fmt.Fprintf(out, "headroom: %s %.4g → %.4g, Elo %s (95%% CI above 0)\n", best.Gene, best.From, best.To, stats.EloText(best.Estimate.Elo))
		} else {
			fmt.Fprintf(out, "no single move's 95%% CI is above 0 (best lower bound: %s %.4g → %.4g, %s)\n", best.Gene, best.From, best.To, stats.EloText(best.Estimate.EloLow))
		}
	}
	return nil
}

// inertGenes lists the genes whose every variant left every pair unchanged.
func inertGenes(probes []sensitivity.Probe) []string {
	var out []string
	changed := map[string]bool{}
	var order []string
	for _, p := range probes {
		if _, ok := changed[p.Gene]; !ok {
			order = append(order, p.Gene)
			changed[p.Gene] = false
		}
		if p.Unchanged < p.Pairs {
			changed[p.Gene] = true
		}
	}
	for _, g := range order {
		if !changed[g] {
			out = append(out, g)
		}
	}
	return out
}
