package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"evotune/engine"
	"evotune/tuner/runview"
)

type exportDataOpts struct {
	dbPath, table, format, out string
}

func newExportDataCmd() *cobra.Command {
	var o exportDataOpts
	c := &cobra.Command{
		Use:   "export-data RUN --table " + strings.Join(runview.ExportTables, "|") + " [--format csv|jsonl] [--out FILE]",
		Short: "Write one of a run's tables as CSV or JSON lines for other tools",
		Long: "export-data writes one row per generation, individual and generation, game, opening,\n" +
			"hall-of-fame test, hall-of-fame member or checkpoint of a run, run_id first, then the\n" +
			"columns docs/data.md lists for that table. individuals carries the genome too: its\n" +
			"born_generation, operator, parents and one column per gene (gene_NAME, the layout's names);\n" +
			"generations carries openings_count (the openings themselves are --table openings). CSV\n" +
			"cells that hold JSON (moves, penta, opponents) are JSON text; a value that was not\n" +
			"measured is an empty cell (CSV) or null (JSON lines), never 0.",
		Args: cobra.ExactArgs(1),
		Example: "  evotune export-data 1 --table individuals --format csv --out inds.csv\n" +
			"  evotune export-data 1 --table games --format jsonl | head -3\n" +
			"  evotune export-data 1 --table checkpoints",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExportData(cmd.Context(), o, args[0], cmd.OutOrStdout())
		},
	}
	c.Flags().StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	c.Flags().StringVar(&o.table, "table", "", strings.Join(runview.ExportTables, ", "))
	c.Flags().StringVar(&o.format, "format", "csv", "csv or jsonl")
	c.Flags().StringVar(&o.out, "out", "", "write to FILE (atomically) instead of standard output")
	return c
}

func runExportData(ctx context.Context, o exportDataOpts, arg string, out io.Writer) error {
	runID, err := parseRunID(arg)
	if err != nil {
		return err
	}
	if err := runview.CheckExport(o.table, o.format); err != nil {
		return fmt.Errorf("--%w", err) // before the database is opened
	}
	d, _, err := openRunRO(ctx, o.dbPath, runID)
	if err != nil {
		return err
	}
	defer d.Close()
	data, err := runview.ExportTable(ctx, d, runID, o.table, o.format)
	if err != nil {
		return err
	}
	if o.out == "" || o.out == "-" {
		_, err = out.Write(data)
		return err
	}
	if err := engine.WriteFileAtomic(o.out, data); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}
