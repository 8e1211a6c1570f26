package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"evotune/tuner/runview"
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
	written, err := runview.ExportGames(ctx, d, run, o.format, o.generation, o.individual, o.out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%d games of run %d written to %s as %s\n", written, runID, o.out, o.format)
	return nil
}
