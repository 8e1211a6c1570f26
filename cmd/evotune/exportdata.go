package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/spf13/cobra"

	"evotune/engine"
)

type exportDataOpts struct {
	dbPath, table, format, out string
}

func newExportDataCmd() *cobra.Command {
	var o exportDataOpts
	c := &cobra.Command{
		Use:   "export-data RUN --table generations|individuals|games [--format csv|jsonl] [--out FILE]",
		Short: "Write a run's generations, individuals or games as CSV or JSON lines for other tools",
		Long: "export-data writes one row per generation, per individual and generation, or per game of a\n" +
			"run, with the columns docs/json.md lists for that table (plus run_id first). CSV cells that\n" +
			"hold JSON (openings, moves, penta) are JSON text; an unknown value is an empty cell (CSV) or\n" +
			"null (JSON lines).",
		Args: cobra.ExactArgs(1),
		Example: "  evotune export-data 1 --table generations --format csv --out gens.csv\n" +
			"  evotune export-data 1 --table games --format jsonl | head -3",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExportData(cmd.Context(), o, args[0], cmd.OutOrStdout())
		},
	}
	c.Flags().StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	c.Flags().StringVar(&o.table, "table", "", "generations, individuals or games")
	c.Flags().StringVar(&o.format, "format", "csv", "csv or jsonl")
	c.Flags().StringVar(&o.out, "out", "", "write to FILE (atomically) instead of standard output")
	return c
}

func runExportData(ctx context.Context, o exportDataOpts, arg string, out io.Writer) error {
	runID, err := parseRunID(arg)
	if err != nil {
		return err
	}
	if o.format != "csv" && o.format != "jsonl" {
		return fmt.Errorf("--format %q: want csv or jsonl", o.format)
	}
	d, err := openRO(ctx, o.dbPath)
	if err != nil {
		return err
	}
	defer d.Close()
	if _, err := d.Run(ctx, runID); err != nil {
		return err
	}
	gens, err := d.Generations(ctx, runID)
	if err != nil {
		return err
	}
	var rows []any
	switch o.table {
	case "generations":
		for _, g := range gens {
			rows = append(rows, g)
		}
	case "individuals":
		for _, g := range gens {
			inds, err := d.Individuals(ctx, runID, g.Generation)
			if err != nil {
				return err
			}
			for _, r := range inds {
				rows = append(rows, r)
			}
		}
	case "games":
		for _, g := range gens {
			games, err := d.Games(ctx, runID, g.Generation)
			if err != nil {
				return err
			}
			for _, r := range games {
				rows = append(rows, r)
			}
		}
	default:
		return fmt.Errorf("--table %q: want generations, individuals or games", o.table)
	}
	var buf bytes.Buffer
	if err := writeRows(&buf, o.format, runID, rows); err != nil {
		return err
	}
	if o.out == "" || o.out == "-" {
		_, err = out.Write(buf.Bytes())
		return err
	}
	if err := engine.WriteFileAtomic(o.out, buf.Bytes()); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// writeRows writes rows (structs with json tags) as CSV (a header of their JSON keys, run_id
// first) or JSON lines.
func writeRows(w io.Writer, format string, runID int64, rows []any) error {
	if format == "jsonl" {
		enc := json.NewEncoder(w)
		for _, r := range rows {
			data, err := json.Marshal(r)
			if err != nil {
				return err
			}
			var m map[string]json.RawMessage
			json.Unmarshal(data, &m)
			m["run_id"] = json.RawMessage(fmt.Sprint(runID))
			if err := enc.Encode(m); err != nil {
				return err
			}
		}
		return nil
	}
	cw := csv.NewWriter(w)
	for i, r := range rows {
		cols, cells, err := csvRow(r)
		if err != nil {
			return err
		}
		if i == 0 {
			cw.Write(append([]string{"run_id"}, cols...))
		}
		cw.Write(append([]string{fmt.Sprint(runID)}, cells...))
	}
	if len(rows) == 0 {
		cw.Write([]string{"run_id"})
	}
	cw.Flush()
	return cw.Error()
}

// csvRow returns a struct's JSON keys in field order and its cells: strings as they are,
// null as "", everything else as its JSON text.
func csvRow(r any) ([]string, []string, error) {
	v := reflect.ValueOf(r)
	t := v.Type()
	var cols, cells []string
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		data, err := json.Marshal(v.Field(i).Interface())
		if err != nil {
			return nil, nil, err
		}
		cell := string(data)
		var s string
		switch {
		case cell == "null":
			cell = ""
		case json.Unmarshal(data, &s) == nil:
			cell = s
		}
		cols, cells = append(cols, tag), append(cells, cell)
	}
	return cols, cells, nil
}
