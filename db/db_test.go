package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func openTemp(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.db")
	d, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, path
}

func genData(run int64, gen int, parent string) GenerationData {
	id := fmt.Sprintf("%d-g%d-00", run, gen)
	return GenerationData{RunID: run,
		Generation:  GenerationRow{Generation: gen, FitMin: 0.4, FitMean: 0.5, FitMax: 0.6, Games: 2, Best: id, Opponents: `["baseline"]`, Openings: `[["h8"]]`, MethodState: "{}"},
		NewGenomes:  []GenomeRow{{ID: id, Born: gen, Operator: "mutation", Parent1: parent, Genes: `{"k1": 1}`}},
		Individuals: []IndividualRow{{Generation: gen, ID: id, Rank: 1, Fitness: 0.4, Score: 0.6, Games: 2, Wins: 1, Draws: 0, Losses: 1, Penta: [5]int{0, 0, 1, 0, 0}}},
		Games: []GameRow{{Generation: gen, Individual: id, Opponent: "baseline", Colour: "black", Result: "1-0", Score: 1, Plies: 9, Moves: `["h8"]`},
			{Generation: gen, Individual: id, Opponent: "baseline", Colour: "white", Result: "1-0", Score: 0, Plies: 9, Moves: `["h8"]`}},
	}
}

func TestGenerationRoundTrip(t *testing.T) {
	ctx := context.Background()
	d, _ := openTemp(t)
	id, err := d.CreateRun(ctx, Run{Name: "r", Game: "gomoku", Seed: 3, Config: `{"game":"gomoku"}`, ProgramVersion: "t", PID: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.SaveGeneration(ctx, genData(id, 0, "")); err != nil {
		t.Fatal(err)
	}
	if err := d.SaveGeneration(ctx, genData(id, 1, "1-g0-00")); err != nil {
		t.Fatal(err)
	}
	r, err := d.Run(ctx, id)
	if err != nil || r.GenerationsDone != 2 || r.BestIndividual != "1-g1-00" || r.Status != StatusRunning {
		t.Fatalf("run %+v, %v", r, err)
	}
	gens, _ := d.Generations(ctx, id)
	games, _ := d.Games(ctx, id, 1)
	anc, _ := d.Ancestors(ctx, id, "1-g1-00")
	if len(gens) != 2 || len(games) != 2 || len(anc) != 2 || anc[1].ID != "1-g0-00" {
		t.Fatalf("%d generations, %d games, ancestors %v", len(gens), len(games), anc)
	}
	var depth int
	if err := d.SQL().QueryRow(`SELECT max(depth) FROM ancestry WHERE run_id = ? AND id = '1-g1-00'`, id).Scan(&depth); err != nil || depth != 1 {
		t.Fatalf("ancestry view depth %d, %v", depth, err)
	}
	if err := d.SetRunStatus(ctx, id, StatusFinished, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Run(ctx, 99); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing run: %v", err)
	}
	if _, err := d.Genome(ctx, id, "1-g9-00"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing individual: %v", err)
	}
}

// TestGenerationIsAtomic: a generation whose last row is bad (a parent that does not
// exist) leaves no trace.
func TestGenerationIsAtomic(t *testing.T) {
	ctx := context.Background()
	d, _ := openTemp(t)
	id, _ := d.CreateRun(ctx, Run{Name: "r", Game: "gomoku", Config: "{}", ProgramVersion: "t"})
	bad := genData(id, 0, "1-g7-99")
	if err := d.SaveGeneration(ctx, bad); err == nil {
		t.Fatal("a genome with a missing parent was accepted")
	}
	for _, table := range []string{"genomes", "generations", "individuals", "games"} {
		var n int
		d.SQL().QueryRow("SELECT count(*) FROM " + table).Scan(&n)
		if n != 0 {
			t.Fatalf("%s has %d rows after a failed generation", table, n)
		}
	}
	if r, _ := d.Run(ctx, id); r.GenerationsDone != 0 {
		t.Fatalf("generations_done %d after a failed generation", r.GenerationsDone)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	os.WriteFile(notDB, []byte(strings.Repeat("this is not a database\n", 200)), 0o644)
	if _, err := Open(ctx, notDB); err == nil || !strings.Contains(err.Error(), "not an SQLite database") {
		t.Errorf("text file: %v", err)
	}
	if _, err := OpenReadOnly(ctx, notDB); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("text file read-only: %v", err)
	}
	newer := filepath.Join(dir, "newer.db")
	d, err := Open(ctx, newer)
	if err != nil {
		t.Fatal(err)
	}
	d.SQL().Exec("PRAGMA user_version = 99")
	d.Close()
	if _, err := Open(ctx, newer); err == nil || !strings.Contains(err.Error(), "newer than this program") {
		t.Errorf("newer schema: %v", err)
	}
	if _, err := OpenReadOnly(ctx, newer); err == nil || !strings.Contains(err.Error(), "newer than this program") {
		t.Errorf("newer schema read-only: %v", err)
	}
	if _, err := Open(ctx, filepath.Join(dir, "missing", "x.db")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing directory: %v", err)
	}
	if _, err := OpenReadOnly(ctx, filepath.Join(dir, "absent.db")); err == nil {
		t.Error("read-only open of a missing file succeeded")
	}
	for _, bad := range []string{"", " ", ":memory:", dir} {
		if _, err := Open(ctx, bad); err == nil {
			t.Errorf("Open(%q) succeeded; results would be lost or the path is not a file", bad)
		}
	}
}

// TestOpenOddNames: '?', '#' and '%' in a file name name that file (they are escaped in
// the SQLite URI), and nothing else is created.
func TestOpenOddNames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, name := range []string{"a?mode=ro.db", "b#c.db", "d%3f.db"} {
		path := filepath.Join(dir, name)
		d, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := d.CreateRun(ctx, Run{Name: "r", Game: "gomoku", Config: "{}", ProgramVersion: "t"}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d.Close()
		if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
			t.Fatalf("%s: the database is not at its own name: %v", name, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		switch e.Name() {
		case "a?mode=ro.db", "b#c.db", "d%3f.db":
		default:
			if !strings.HasSuffix(e.Name(), "-wal") && !strings.HasSuffix(e.Name(), "-shm") {
				t.Errorf("unexpected file %q", e.Name())
			}
		}
	}
}

// TestReadersDuringWrites: read-only connections query while the writer commits
// generations; neither side sees "database is locked".
func TestReadersDuringWrites(t *testing.T) {
	ctx := context.Background()
	d, path := openTemp(t)
	id, _ := d.CreateRun(ctx, Run{Name: "r", Game: "gomoku", Config: "{}", ProgramVersion: "t"})
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	stop := make(chan struct{})
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ro, err := OpenReadOnly(ctx, path)
			if err != nil {
				errs <- err
				return
			}
			defer ro.Close()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := ro.Runs(ctx); err != nil {
					errs <- err
					return
				}
				if _, err := ro.Generations(ctx, id); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	parent := ""
	for g := 0; g < 40; g++ {
		if err := d.SaveGeneration(ctx, genData(id, g, parent)); err != nil {
			t.Fatalf("writer: %v", err)
		}
		parent = fmt.Sprintf("%d-g%d-00", id, g)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("reader: %v", err)
	}
}

// TestMigrationFromVersion1: a version-1 database (written before the forfeit column) is
// upgraded in place on open, keeping its rows.
func TestMigrationFromVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v1.db")
	raw, err := sql.Open(driverName, "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	v1, _ := schemaFS.ReadFile("schema/001_init.sql")
	if _, err := raw.Exec(string(v1) + "; PRAGMA user_version = 1; INSERT INTO runs (name, game, status, seed, config, program_version, created_at, updated_at) VALUES ('old', 'gomoku', 'finished', 1, '{}', 'v1', 'x', 'x'), ('old', 'gomoku', 'finished', 1, '{}', 'v1', 'x', 'x');"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if _, err := OpenReadOnly(ctx, path); err == nil || !strings.Contains(err.Error(), "older than this program") {
		t.Fatalf("read-only open of a version-1 file: %v", err)
	}
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if v, _ := d.version(ctx); v != SchemaVersion {
		t.Fatalf("version %d after upgrade", v)
	}
	if r, err := d.Run(ctx, 1); err != nil || r.Name != "old" {
		t.Fatalf("old run lost: %+v %v", r, err)
	}
	// Version 4: repeated names of older databases are made unique, later runs renamed.
	if r, err := d.Run(ctx, 2); err != nil || r.Name != "old-run2" {
		t.Fatalf("second old run: %+v %v", r, err)
	}
	if _, err := d.CreateRun(ctx, Run{Name: "old", Game: "gomoku", Config: "{}", ProgramVersion: "t"}); err == nil {
		t.Fatal("a second run named old was created")
	}
	id, _ := d.CreateRun(ctx, Run{Name: "new", Game: "gomoku", Config: "{}", ProgramVersion: "t"})
	g := genData(id, 0, "")
	g.NewGenomes[0].ID, g.Individuals[0].ID, g.Generation.Best = "3-g0-00", "3-g0-00", "3-g0-00"
	for i := range g.Games {
		g.Games[i].Individual = "3-g0-00"
	}
	g.Games[0].Forfeit = "black forfeits: time loss"
	if err := d.SaveGeneration(ctx, g); err != nil {
		t.Fatal(err)
	}
	games, _ := d.Games(ctx, id, 0)
	if games[0].Forfeit != "black forfeits: time loss" || games[1].Forfeit != "" {
		t.Fatalf("forfeits %q %q", games[0].Forfeit, games[1].Forfeit)
	}
}

// TestReadOnlyOlderSchema: every schema older than MinReadableVersion is refused by a
// read-only open with the command that upgrades it, and a file at MinReadableVersion reads
// its generations: no reader meets a column its schema lacks.
func TestReadOnlyOlderSchema(t *testing.T) {
	ctx := context.Background()
	for v := 1; v <= SchemaVersion; v++ {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("v%d.db", v))
		raw, err := sql.Open(driverName, "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		files, _ := schemaFS.ReadDir("schema")
		for _, f := range files[:v] {
			b, _ := schemaFS.ReadFile("schema/" + f.Name())
			if _, err := raw.Exec(string(b)); err != nil {
				t.Fatalf("%s: %v", f.Name(), err)
			}
		}
		if _, err := raw.Exec(fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
			t.Fatal(err)
		}
		raw.Close()
		d, err := OpenReadOnly(ctx, path)
		if v < MinReadableVersion {
			if err == nil || !strings.Contains(err.Error(), "open it once with 'evotune tune' to upgrade") {
				t.Errorf("version %d: %v, want the upgrade hint", v, err)
			}
			if d != nil {
				d.Close()
			}
			continue
		}
		if err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		if _, err := d.Generations(ctx, 1); err != nil {
			t.Errorf("version %d: generations: %v", v, err)
		}
		d.Close()
	}
}

// TestAncestryView: an ancestor reached along paths of two lengths (a grandparent that is
// also a parent) is listed once, at the shortest depth.
func TestAncestryView(t *testing.T) {
	ctx := context.Background()
	d, _ := openTemp(t)
	id, _ := d.CreateRun(ctx, Run{Name: "r", Game: "gomoku", Config: "{}", ProgramVersion: "t"})
	for _, g := range [][4]string{{"1-g0-00", "baseline", "", ""}, {"1-g1-00", "mutation", "1-g0-00", ""}, {"1-g2-00", "crossover", "1-g1-00", "1-g0-00"}} {
		if _, err := d.SQL().Exec(`INSERT INTO genomes (run_id, id, born_generation, operator, parent1, parent2, genes) VALUES (?, ?, 0, ?, NULLIF(?, ''), NULLIF(?, ''), '{}')`,
			id, g[0], g[1], g[2], g[3]); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := d.SQL().Query(`SELECT ancestor, operator, depth FROM ancestry WHERE run_id = ? AND id = '1-g2-00' ORDER BY depth, ancestor`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var a, op string
		var depth int
		rows.Scan(&a, &op, &depth)
		got = append(got, fmt.Sprintf("%s %s %d", a, op, depth))
	}
	want := []string{"1-g2-00 crossover 0", "1-g0-00 baseline 1", "1-g1-00 mutation 1"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("ancestry %q, want %q", got, want)
	}
}

// TestClaimRunLock: of two connections claiming a stopped run at once, exactly one gets
// it; the other is refused with the winner's PID and writes nothing. A forced claim takes
// the run over, after which the old owner's writes fail with ErrTakenOver and change
// nothing.
func TestClaimRunLock(t *testing.T) {
	ctx := context.Background()
	a, path := openTemp(t)
	b, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	id, _ := a.CreateRun(ctx, Run{Name: "r", Game: "gomoku", Config: "{}", ProgramVersion: "t", PID: 1})
	if err := a.SetRunStatus(ctx, id, StatusStopped, ""); err != nil {
		t.Fatal(err)
	}
	alive := func(int) bool { return true }
	for round := 0; round < 20; round++ {
		if round > 0 {
			// back to stopped, owned by nobody alive
			if _, err := a.ClaimRun(ctx, id, 1, true, alive); err != nil {
				t.Fatal(err)
			}
			a.SetRunStatus(ctx, id, StatusStopped, "")
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, d := range []*DB{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = d.ClaimRun(ctx, id, 100+i, false, alive)
			}()
		}
		wg.Wait()
		var locked *RunLockedError
		ok := 0
		for _, e := range errs {
			switch {
			case e == nil:
				ok++
			case errors.As(e, &locked):
			default:
				t.Fatalf("round %d: unexpected error %v", round, e)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %d claims succeeded (%v), want exactly 1", round, ok, errs)
		}
		r, _ := a.Run(ctx, id)
		winner := 100
		if errs[0] != nil {
			winner = 101
		}
		if r.PID != winner || locked.PID != winner {
			t.Fatalf("round %d: run pid %d, refusal names %d, winner %d", round, r.PID, locked.PID, winner)
		}
	}
	// b takes the run over from a live a by force; a's writes now fail and change nothing.
	if _, err := a.ClaimRun(ctx, id, 100, true, alive); err != nil {
		t.Fatal(err)
	}
	if prev, err := b.ClaimRun(ctx, id, 200, true, alive); err != nil || prev != 100 {
		t.Fatalf("forced claim: prev %d, %v", prev, err)
	}
	if err := a.SaveGeneration(ctx, genData(id, 0, "")); !errors.Is(err, ErrTakenOver) {
		t.Fatalf("old owner's SaveGeneration: %v, want ErrTakenOver", err)
	}
	if err := a.SetRunStatus(ctx, id, StatusFailed, "x"); !errors.Is(err, ErrTakenOver) {
		t.Fatalf("old owner's SetRunStatus: %v, want ErrTakenOver", err)
	}
	if r, _ := a.Run(ctx, id); r.Status != StatusRunning || r.PID != 200 || r.GenerationsDone != 0 {
		t.Fatalf("after the old owner's writes: %+v", r)
	}
	if err := b.SaveGeneration(ctx, genData(id, 0, "")); err != nil {
		t.Fatalf("new owner's SaveGeneration: %v", err)
	}
}

// TestChampionAndRunSummaryViews: the views name each run's champion with its genes, give
// the verified Elo only where games were played (NULL, not 0, for an unmeasured run), sum
// the generations' tuning games and read the method from the config (ga when absent).
func TestChampionAndRunSummaryViews(t *testing.T) {
	ctx := context.Background()
	d, _ := openTemp(t)
	measured, _ := d.CreateRun(ctx, Run{Name: "measured", Game: "gomoku", Config: `{"method":"spsa"}`, ProgramVersion: "t"})
	unmeasured, _ := d.CreateRun(ctx, Run{Name: "unmeasured", Game: "gomoku", Config: `{}`, ProgramVersion: "t"})
	for _, id := range []int64{measured, unmeasured} {
		for gen := range 2 {
			parent := ""
			if gen > 0 {
				parent = fmt.Sprintf("%d-g0-00", id)
			}
			if err := d.SaveGeneration(ctx, genData(id, gen, parent)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, _, err := d.AddVerification(ctx, measured, `{"champion":"1-g1-00","games":800,"distinct_pairs":400,"elo":41.5,"elo_ci95":20.25,"limits":{"depth":3},"deep":{"games":0,"elo":0}}`, SourceTune, HeadlineLargest); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.AddVerification(ctx, unmeasured, `{"champion":"2-g1-00","games":0,"elo":0,"elo_ci95":0}`, SourceTune, HeadlineLargest); err != nil {
		t.Fatal(err)
	}
	rows, err := d.sql.QueryContext(ctx, `SELECT s.run_id, s.method, s.tuning_games, s.champion, c.genes, s.verified_elo, s.verified_ci95, s.verified_depth, s.deep_elo
		FROM run_summary s JOIN champion c ON c.run_id = s.run_id ORDER BY s.run_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id, games int64
		var method, champ, genes string
		var elo, ci, deep sql.NullFloat64
		var depth sql.NullInt64
		if err := rows.Scan(&id, &method, &games, &champ, &genes, &elo, &ci, &depth, &deep); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %d %s %s %v %v %v %v", id, method, games, champ, genes, elo, ci, depth, deep))
	}
	want := []string{
		`1 spsa 4 1-g1-00 {"k1": 1} {41.5 true} {20.25 true} {3 true} {0 false}`,
		`2 ga 4 2-g1-00 {"k1": 1} {0 false} {0 false} {0 false} {0 false}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("views:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDataDictionary: docs/data.md lists every table and view of the schema with exactly
// its columns, so a column added without its meaning (or a stale entry) fails here.
func TestDataDictionary(t *testing.T) {
	d, _ := openTemp(t)
	doc, err := os.ReadFile("../docs/data.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string][]string{}
	var current string
	for _, line := range strings.Split(string(doc), "\n") {
		if name, ok := strings.CutPrefix(line, "### `"); ok {
			current, _, _ = strings.Cut(name, "`")
			continue
		}
		if strings.HasPrefix(line, "## ") {
			current = ""
		}
		if col, ok := strings.CutPrefix(line, "| `"); ok && current != "" {
			col, _, _ = strings.Cut(col, "`")
			documented[current] = append(documented[current], col)
		}
	}
	rows, err := d.sql.Query(`SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p
		WHERE m.type IN ('table', 'view') ORDER BY m.name, p.cid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	schema := map[string][]string{}
	for rows.Next() {
		var table, col string
		if err := rows.Scan(&table, &col); err != nil {
			t.Fatal(err)
		}
		schema[table] = append(schema[table], col)
	}
	for table, cols := range schema {
		if got := strings.Join(documented[table], ", "); got != strings.Join(cols, ", ") {
			t.Errorf("docs/data.md %s: columns %q, schema has %q", table, got, strings.Join(cols, ", "))
		}
	}
	for table := range documented {
		if schema[table] == nil {
			t.Errorf("docs/data.md documents %s, which the schema does not have", table)
		}
	}
}

// TestJSONColumns: the JSON columns decode once, here, into typed values, and a damaged
// column is an error naming it.
func TestJSONColumns(t *testing.T) {
	g, err := JSONText(`{"k1": 1.5, "live_three": 3000}`).Genes()
	if err != nil || len(g) != 2 || g["k1"] != 1.5 || g["live_three"] != 3000 {
		t.Errorf("genes %v, %v", g, err)
	}
	m, err := JSONText(`["h8","i9"]`).Moves()
	if err != nil || len(m) != 2 || m[1] != "i9" {
		t.Errorf("moves %v, %v", m, err)
	}
	o, err := JSONText(`[["h8"],["h8","i9","j10"]]`).Openings()
	if err != nil || len(o) != 2 || len(o[1]) != 3 {
		t.Errorf("openings %v, %v", o, err)
	}
	for name, f := range map[string]func() error{
		"genes":    func() error { _, err := JSONText(`["h8"]`).Genes(); return err },
		"moves":    func() error { _, err := JSONText(`{"a":1}`).Moves(); return err },
		"openings": func() error { _, err := JSONText(`[1,2`).Openings(); return err },
	} {
		if err := f(); err == nil || !strings.HasPrefix(err.Error(), name+": ") {
			t.Errorf("a damaged %s column: error %v, want one starting %q", name, err, name+": ")
		}
	}
}

// TestConcurrentFirstOpen: several writers creating one new database at once all open it,
// and each schema file is applied once (the version was read outside the migration's
// transaction: "table runs already exists", "duplicate column name").
func TestConcurrentFirstOpen(t *testing.T) {
	for round := 0; round < 20; round++ {
		path := filepath.Join(t.TempDir(), "new.db")
		const n = 6
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				d, err := Open(context.Background(), path)
				if err == nil {
					_, err = d.CreateRun(context.Background(), Run{Name: fmt.Sprintf("r%d", i), Game: "gomoku", Seed: 1, Config: `{"game":"gomoku"}`, ProgramVersion: "t", PID: 1})
					d.Close()
				}
				errs[i] = err
			}()
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d: writer %d: %v", round, i, err)
			}
		}
		d, err := OpenReadOnly(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		var v, runs int
		d.SQL().QueryRow("PRAGMA user_version").Scan(&v)
		d.SQL().QueryRow("SELECT count(*) FROM runs").Scan(&runs)
		d.Close()
		if v != SchemaVersion || runs != n {
			t.Fatalf("round %d: schema version %d, %d runs; want %d and %d", round, v, runs, SchemaVersion, n)
		}
	}
}

// TestVerificationsKept: a verification never replaces another: each is a row; the run's
// headline copies the one of the most games unless the latest is asked for, and names its
// row and why; a version-7 database's one verification becomes a row when it is upgraded.
func TestVerificationsKept(t *testing.T) {
	ctx := context.Background()
	d, path := openTemp(t)
	id, _ := d.CreateRun(ctx, Run{Name: "r", Game: "gomoku", Config: `{}`, ProgramVersion: "t"})
	headline := func() (int64, string, float64) {
		var vid int64
		var why string
		var elo float64
		if err := d.sql.QueryRow(`SELECT json_extract(verification, '$.verification_id'), json_extract(verification, '$.headline'), json_extract(verification, '$.elo') FROM runs WHERE id = ?`, id).Scan(&vid, &why, &elo); err != nil {
			t.Fatal(err)
		}
		return vid, why, elo
	}
	big, h, err := d.AddVerification(ctx, id, `{"games":1000,"elo":35.9}`, SourceTune, HeadlineLargest)
	if err != nil || h != big {
		t.Fatalf("first: %d %d %v", big, h, err)
	}
	small, h, err := d.AddVerification(ctx, id, `{"games":200,"elo":27.9}`, SourceVerify, HeadlineLargest)
	if err != nil || h != big || small == big {
		t.Fatalf("a smaller one under largest: row %d, headline %d (want %d), %v", small, h, big, err)
	}
	if vid, why, elo := headline(); vid != big || elo != 35.9 || why != "the largest of 2 verifications (1000 games)" {
		t.Fatalf("headline %d %q %v", vid, why, elo)
	}
	latest, h, err := d.AddVerification(ctx, id, `{"games":100,"elo":12}`, SourceVerify, HeadlineLatest)
	if err != nil || h != latest {
		t.Fatalf("latest: row %d headline %d %v", latest, h, err)
	}
	if vid, why, _ := headline(); vid != latest || why != "the latest of 3 verifications" {
		t.Fatalf("headline %d %q", vid, why)
	}
	if _, _, err := d.AddVerification(ctx, id, `{"games":2}`, SourceVerify, "best"); err == nil {
		t.Fatal("an unknown headline policy was taken")
	}
	rows, err := d.Verifications(ctx, id)
	if err != nil || len(rows) != 3 || rows[0].ID != big || rows[1].Source != SourceVerify || !rows[2].Headline || rows[0].Headline {
		t.Fatalf("verifications: %+v %v", rows, err)
	}
	var listed int
	d.sql.QueryRow(`SELECT count(*) FROM verification_list WHERE run_id = ? AND headline`, id).Scan(&listed)
	if listed != 1 {
		t.Fatalf("verification_list marks %d headlines", listed)
	}
	_ = path

	// A version-7 database: its runs.verification becomes a row, the run's headline.
	old := filepath.Join(t.TempDir(), "v7.db")
	raw, err := sql.Open(driverName, "file:"+old)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := schemaFS.ReadDir("schema")
	for _, f := range files[:7] {
		b, _ := schemaFS.ReadFile("schema/" + f.Name())
		if _, err := raw.Exec(string(b)); err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
	}
	if _, err := raw.Exec(`PRAGMA user_version = 7; INSERT INTO runs (name, game, status, seed, config, program_version, created_at, updated_at, verification)
		VALUES ('old', 'gomoku', 'finished', 1, '{}', 'v7', 'x', 'x', '{"games":1000,"elo":35.9}')`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	o, err := Open(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	vs, err := o.Verifications(ctx, 1)
	var why string
	o.sql.QueryRow(`SELECT json_extract(verification, '$.headline') FROM runs WHERE id = 1`).Scan(&why)
	if err != nil || len(vs) != 1 || vs[0].Source != "stored" || !vs[0].Headline || why != "the only verification stored" {
		t.Fatalf("upgraded: %+v %v %q", vs, err, why)
	}
}

// TestDocumentedSchemaVersion: docs/results.md names the schema version this program writes
// (a version left behind there once said 7 while databases were at 11).
func TestDocumentedSchemaVersion(t *testing.T) {
	doc, err := os.ReadFile("../docs/results.md")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("`PRAGMA user_version` (currently %d;", SchemaVersion)
	if !strings.Contains(string(doc), want) {
		t.Fatalf("docs/results.md does not say %q", want)
	}
}
