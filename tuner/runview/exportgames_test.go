package runview

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/genomes"
)

// TestExportGames writes a real run's games as files: one per stored game (all
// generations, or one), each readable back as the game's moves; formats the game has no
// records of, a generation the run lacks and an individual without games are refused.
func TestExportGames(t *testing.T) {
	ctx := context.Background()
	d, id := tinyRun(t)
	run, err := d.Run(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var stored, gen1 int
	if err := d.SQL().QueryRowContext(ctx, "SELECT count(*), sum(generation = 1) FROM games WHERE run_id = ?", id).Scan(&stored, &gen1); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"psq", "json", "sgf"} {
		dir := filepath.Join(t.TempDir(), format)
		n, err := ExportGames(ctx, d, run, format, -1, "", dir)
		if err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*."+format))
		if n != stored || len(files) != stored {
			t.Errorf("%s: wrote %d, %d files, stored %d games", format, n, len(files), stored)
		}
		if format != "sgf" {
			moves, _, err := engine.LoadGame(files[0], mustGame(t, run.Game))
			if err != nil || len(moves) == 0 {
				t.Errorf("%s: read back %v, %v", files[0], moves, err)
			}
		}
	}
	if n, err := ExportGames(ctx, d, run, "json", 1, "", t.TempDir()); err != nil || n != gen1 {
		t.Errorf("generation 1: wrote %d (%v), stored %d", n, err, gen1)
	}
	for _, bad := range []struct {
		format, individual string
		generation         int
		want               string
	}{
		{"pgn", "", -1, "--format pgn"},
		{"xml", "", -1, "--format"},
		{"json", "", 99, "--generation 99"},
		{"json", "1-g9-99", -1, "--individual 1-g9-99"},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		_, err := ExportGames(ctx, d, run, bad.format, bad.generation, bad.individual, dir)
		if err == nil || !strings.HasPrefix(err.Error(), bad.want) {
			t.Errorf("%+v: %v", bad, err)
		}
		if bad.want != "--individual 1-g9-99" {
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("%+v: the refused export made %s", bad, dir)
			}
		}
	}
}

func mustGame(t *testing.T, name string) engine.Game {
	t.Helper()
	e, err := genomes.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return e.Game
}
