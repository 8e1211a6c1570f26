package runview

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"evotune/db"
)

// ExportTables are the tables ExportTable writes (`evotune export-data --table`), in the
// order help and completion give them.
var ExportTables = []string{"generations", "individuals", "games", "openings", "admissions", "hall_of_fame", "checkpoints"}

// CheckExport refuses a format other than csv or jsonl and a table not in ExportTables (in
// that order); the error names the setting ("format", "table") and the value.
func CheckExport(table, format string) error {
	if format != "csv" && format != "jsonl" {
		return fmt.Errorf("format %q: want csv or jsonl", format)
	}
	if !slices.Contains(ExportTables, table) {
		return fmt.Errorf("table %q: want one of %s", table, strings.Join(ExportTables, ", "))
	}
	return nil
}

// ExportTable writes one table of run runID as CSV or JSON lines (format "csv" or "jsonl"):
// one row per generation, individual and generation, game, opening, hall-of-fame test,
// member or checkpoint, run_id first, then the table's columns (docs/data.md);
// individuals carry their genome (born_generation, operator, parents, gene_NAME per gene)
// and generations their openings_count. A value not measured is an empty cell (CSV) or
// null (JSON lines). Errors: CheckExport's, a damaged row.
func ExportTable(ctx context.Context, d *db.DB, runID int64, table, format string) ([]byte, error) {
	if err := CheckExport(table, format); err != nil {
		return nil, err
	}
	rows, err := exportRows(ctx, d, runID, table)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := writeRows(&buf, format, rows); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// cell is one named value of an exported row; Value is its JSON text ("null" = not measured).
type cell struct {
	Name  string
	Value json.RawMessage
}

// exportRows reads one table of a run as rows of cells, run_id first.
func exportRows(ctx context.Context, d *db.DB, runID int64, table string) ([][]cell, error) {
	runCell := cell{"run_id", json.RawMessage(fmt.Sprint(runID))}
	var rows [][]cell
	add := func(r any, extra ...cell) error {
		cells, err := structCells(r)
		if err != nil {
			return err
		}
		rows = append(rows, append(append([]cell{runCell}, cells...), extra...))
		return nil
	}
	switch table {
	case "admissions":
		return rows, addAll[db.AdmissionRow](add)(d.Admissions(ctx, runID))
	case "hall_of_fame":
		return rows, addAll[db.FamerRow](add)(d.HallOfFame(ctx, runID))
	case "checkpoints":
		return rows, addAll[db.CheckpointRow](add)(d.Checkpoints(ctx, runID))
	}
	gens, err := d.Generations(ctx, runID)
	if err != nil {
		return nil, err
	}
	var genomes map[string]db.GenomeRow
	var geneNames []string
	byGen := map[int][]db.IndividualRow{}
	if table == "individuals" {
		all, err := d.Genomes(ctx, runID)
		if err != nil {
			return nil, err
		}
		genomes = map[string]db.GenomeRow{}
		for _, g := range all {
			genomes[g.ID] = g
		}
		if len(all) > 0 {
			if geneNames, err = jsonKeys(all[0].Genes); err != nil {
				return nil, fmt.Errorf("genome %s: genes: %w", all[0].ID, err)
			}
		}
		inds, err := d.RunIndividuals(ctx, runID) // one query: by generation, best first
		if err != nil {
			return nil, err
		}
		for _, r := range inds {
			byGen[r.Generation] = append(byGen[r.Generation], r)
		}
	}
	for _, g := range gens {
		var openings []json.RawMessage
		if table == "generations" || table == "openings" {
			if err := json.Unmarshal([]byte(g.Openings), &openings); err != nil {
				return nil, fmt.Errorf("generation %d: openings: %w", g.Generation, err)
			}
		}
		switch table {
		case "generations":
			g.Openings = ""
			cells, err := structCells(g)
			if err != nil {
				return nil, err
			}
			var kept []cell
			for _, c := range cells {
				if c.Name != "openings" {
					kept = append(kept, c)
				}
			}
			rows = append(rows, append(append([]cell{runCell}, kept...), cell{"openings_count", json.RawMessage(fmt.Sprint(len(openings)))}))
		case "openings":
			for i, moves := range openings {
				rows = append(rows, []cell{runCell, {"generation", json.RawMessage(fmt.Sprint(g.Generation))},
					{"opening", json.RawMessage(fmt.Sprint(i))}, {"moves", moves}})
			}
		case "individuals":
			for _, r := range byGen[g.Generation] {
				gn, ok := genomes[r.ID]
				if !ok {
					return nil, fmt.Errorf("individual %s of generation %d has no genome row", r.ID, g.Generation)
				}
				extra, err := genomeCells(gn, geneNames)
				if err != nil {
					return nil, err
				}
				if err := add(r, extra...); err != nil {
					return nil, err
				}
			}
		case "games":
			games, err := d.Games(ctx, runID, g.Generation)
			if err != nil {
				return nil, err
			}
			for _, r := range games {
				cells, err := structCells(r)
				if err != nil {
					return nil, err
				}
				for i := range cells {
					if cells[i].Name == "depth" && r.Depth == 0 {
						cells[i].Value = json.RawMessage("null") // NULL in the table: the run's depth
					}
				}
				rows = append(rows, append([]cell{runCell}, cells...))
			}
		}
	}
	return rows, nil
}

// addAll returns a function that adds every row a table query returned (or its error).
func addAll[T any](add func(any, ...cell) error) func([]T, error) error {
	return func(items []T, err error) error {
		if err != nil {
			return err
		}
		for _, it := range items {
			if err := add(it); err != nil {
				return err
			}
		}
		return nil
	}
}

// genomeCells are an individual's genome columns: born_generation, operator, parent1,
// parent2 and gene_NAME for each of names (the run's gene names, in layout order).
func genomeCells(g db.GenomeRow, names []string) ([]cell, error) {
	var genes map[string]json.RawMessage
	if err := json.Unmarshal([]byte(g.Genes), &genes); err != nil {
		return nil, fmt.Errorf("genome %s: genes: %w", g.ID, err)
	}
	str := func(s string) json.RawMessage {
		if s == "" {
			return json.RawMessage("null")
		}
		data, _ := json.Marshal(s)
		return data
	}
	cells := []cell{{"born_generation", json.RawMessage(fmt.Sprint(g.Born))}, {"operator", str(g.Operator)},
		{"parent1", str(g.Parent1)}, {"parent2", str(g.Parent2)}}
	for _, n := range names {
		v, ok := genes[n]
		if !ok {
			return nil, fmt.Errorf("genome %s has no gene %q", g.ID, n)
		}
		cells = append(cells, cell{"gene_" + n, v})
	}
	return cells, nil
}

// jsonKeys returns an object's keys in the order they are written.
func jsonKeys(obj db.JSONText) ([]string, error) {
	dec := json.NewDecoder(strings.NewReader(string(obj)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// structCells returns a struct's fields with JSON tags as cells in field order.
func structCells(r any) ([]cell, error) {
	v := reflect.ValueOf(r)
	t := v.Type()
	var cells []cell
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		data, err := json.Marshal(v.Field(i).Interface())
		if err != nil {
			return nil, err
		}
		cells = append(cells, cell{tag, data})
	}
	return cells, nil
}

// writeRows writes rows as CSV (a header of the first row's names; strings as they are,
// null as an empty cell, everything else as its JSON text) or JSON lines (an object per row,
// keys in column order).
func writeRows(w io.Writer, format string, rows [][]cell) error {
	if format == "jsonl" {
		for _, r := range rows {
			var b bytes.Buffer
			b.WriteByte('{')
			for i, c := range r {
				if i > 0 {
					b.WriteByte(',')
				}
				name, _ := json.Marshal(c.Name)
				b.Write(name)
				b.WriteByte(':')
				var compact bytes.Buffer
				if err := json.Compact(&compact, c.Value); err != nil {
					return fmt.Errorf("column %s: %w", c.Name, err)
				}
				b.Write(compact.Bytes())
			}
			b.WriteString("}\n")
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
		}
		return nil
	}
	cw := csv.NewWriter(w)
	for i, r := range rows {
		if i == 0 {
			var header []string
			for _, c := range r {
				header = append(header, c.Name)
			}
			cw.Write(header)
		}
		var cells []string
		for _, c := range r {
			text := string(c.Value)
			var s string
			switch {
			case text == "null":
				text = ""
			case json.Unmarshal(c.Value, &s) == nil:
				text = s
			}
			cells = append(cells, text)
		}
		cw.Write(cells)
	}
	if len(rows) == 0 {
		cw.Write([]string{"run_id"})
	}
	cw.Flush()
	return cw.Error()
}
