package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"evotune/engine"
	"evotune/genomes"
)

type exportGamesOpts struct {
	dbPath, format, out, individual string
	generation                      int
}

func newExportGamesCmd() *cobra.Command {
	var o exportGamesOpts
	c := &cobra.Command{
		Use:   "export-games RUN --format psq|sgf|pgn|json --out DIR [--generation N] [--individual ID]",
		Short: "Write a run's games as game records: Piskvork .psq, SGF, PGN or evotune's JSON",
		Long: "export-games writes every game of a run (or of one generation, or of one individual) to\n" +
			"DIR, one file per game named RUN-gGEN-NNNNN.EXT in the order the games table holds them:\n" +
			"psq (Piskvork, Gomocup's record format; Gomoku), sgf (FF[4]: GM[4] Gomoku, GM[18] Amazons;\n" +
			"Connect6 has no SGF game number), pgn (chess) or json (evotune's record, any game). Every file\n" +
			"holds the whole game, opening included, Black first; 'play --from FILE' continues one.\n" +
			"Each file is written atomically.",
		Args: cobra.ExactArgs(1),
		Example: "  evotune export-games 1 --format psq --out games/\n" +
			"  evotune export-games 1 --format sgf --generation 3 --out g3/",
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("generation") {
				o.generation = -1
			}
			return runExportGames(cmd.Context(), o, args[0], cmd.OutOrStdout())
		},
	}
	c.Flags().StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	c.Flags().StringVar(&o.format, "format", "", "psq, sgf, pgn or json (required)")
	c.Flags().StringVar(&o.out, "out", "", "directory to write the records to (created if missing; required)")
	c.Flags().SetAnnotation("out", dirFlag, []string{"true"})
	c.Flags().IntVar(&o.generation, "generation", 0, "only this generation's games (default: every generation)")
	c.Flags().StringVar(&o.individual, "individual", "", "only the games credited to this individual")
	return c
}

func runExportGames(ctx context.Context, o exportGamesOpts, arg string, out io.Writer) error {
	runID, err := parseRunID(arg)
	if err != nil {
		return err
	}
	if o.out == "" {
		return fmt.Errorf("--out: name the directory to write the records to")
	}
	d, run, err := openRunRO(ctx, o.dbPath, runID)
	if err != nil {
		return err
	}
	defer d.Close()
	cfg, err := runConfig(run)
	if err != nil {
		return err
	}
	game, _, err := resolveGame(gameOpts{game: run.Game, rule: cfg.Rule})
	if err != nil {
		return fmt.Errorf("run %d: %w", runID, err)
	}
	sgf, hasSGF := game.(engine.SGFWriter)
	psq, hasPSQ := game.(engine.PSQRecorder)
	pgn, hasPGN := game.(engine.PGNWriter)
	switch {
	case o.format != "psq" && o.format != "sgf" && o.format != "json" && o.format != "pgn":
		return fmt.Errorf("--format %q: want psq, sgf, pgn or json", o.format)
	case o.format == "pgn" && !hasPGN:
		return fmt.Errorf("--format pgn: PGN records hold %s games; run %d is %s (use --format json)", strings.Join(genomes.Offering[engine.PGNWriter](), ", "), runID, run.Game)
	case o.format == "psq" && !hasPSQ:
		return fmt.Errorf("--format psq: Piskvork records hold Gomoku games; run %d is %s (use --format json)", runID, run.Game)
	case o.format == "sgf" && !hasSGF:
		return fmt.Errorf("--format sgf: %s has no SGF game number (the SGF specification numbers Gomoku 4 and Amazons 18); use --format json", run.Game)
	}
	b, err := game.NewBoard(cfg.Board)
	if err != nil {
		return fmt.Errorf("run %d: board %d: %w", runID, cfg.Board, err)
	}
	size := b.Size()
	gens, err := d.Generations(ctx, runID)
	if err != nil {
		return err
	}
	if o.generation >= len(gens) {
		return fmt.Errorf("--generation %d: run %d has generations 0 to %d", o.generation, runID, len(gens)-1)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	written := 0
	for _, g := range gens {
		if o.generation >= 0 && g.Generation != o.generation {
			continue
		}
		games, err := d.Games(ctx, runID, g.Generation)
		if err != nil {
			return err
		}
		openings, _ := g.Openings.Openings() // the generation's openings: the PGN marks their plies as the book's
		for i, gm := range games {
			if o.individual != "" && gm.Individual != o.individual {
				continue
			}
			moves, err := gm.Moves.Moves()
			if err != nil {
				return fmt.Errorf("run %d generation %d game %d: %w", runID, g.Generation, i, err)
			}
			black, white := gm.Individual, gm.Opponent
			if gm.Colour == "white" {
				black, white = white, black
			}
			var data []byte
			switch o.format {
			case "psq":
				data, err = psq.FormatPSQ(size, moves, nil, black, white)
			case "sgf":
				data, err = sgf.SGF(size, moves, black, white, gm.Result)
			case "pgn":
				data, err = pgn.PGN(engine.PGNGame{Event: fmt.Sprintf("evotune run %d", runID), Site: "evotune", Date: pgnDate(g.CreatedAt),
					Round: fmt.Sprintf("%d.%d", g.Generation, i+1), White: black, Black: white, Result: gm.Result, Moves: moves,
					StatsFrom: openingPlies(openings, gm.Opening), Comment: string(gm.Forfeit)})
			case "json":
				data, err = json.MarshalIndent(savedGame{Format: gameFileFormat, Game: run.Game, Board: size, Rule: cfg.Rule, Black: black, White: white,
					Moves: moves, Result: gm.Result, Plies: gm.Plies, Forfeit: string(gm.Forfeit), Created: g.CreatedAt}, "", "  ")
				data = append(data, '\n')
			}
			if err != nil {
				return fmt.Errorf("run %d generation %d game %d: %w", runID, g.Generation, i, err)
			}
			name := filepath.Join(o.out, fmt.Sprintf("%d-g%d-%05d.%s", runID, g.Generation, i, o.format))
			if err := engine.WriteFileAtomic(name, data); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
			written++
		}
	}
	if o.individual != "" && written == 0 {
		return fmt.Errorf("--individual %s: no game of run %d (or of the generation asked) is credited to it", o.individual, runID)
	}
	fmt.Fprintf(out, "%d games of run %d written to %s as %s\n", written, runID, o.out, o.format)
	return nil
}

// pgnDate is PGN's Date tag ("2026.11.24") of an RFC 3339 time, "????.??.??" if it is not one.
func pgnDate(t string) string {
	if d, err := time.Parse(time.RFC3339, t); err == nil {
		return d.UTC().Format("2006.01.02")
	}
	return "????.??.??"
}

// openingPlies is the length of opening i of a generation's openings (0 when unknown).
func openingPlies(openings [][]string, i int) int {
	if i >= 0 && i < len(openings) {
		return len(openings[i])
	}
	return 0
}
