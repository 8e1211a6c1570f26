package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/gomoku"
)

// TestOldDatabases opens a database written by the build that introduced each schema
// (testdata/schemas/schemaN.db.gz: one small gomoku GA run each) with today's commands:
// the read-only commands read it or refuse it with the upgrade's advice, verify upgrades it and plays an
// individual of its run against the baseline (its stored configuration loads and plans),
// then its run lists, its generations print and export writes a weights file the engine
// reads.
func TestOldDatabases(t *testing.T) {
	long(t, "nine databases upgraded, each verified: about 20 s, a minute on a busy machine")
	files, err := filepath.Glob("testdata/schemas/schema*.db.gz")
	if err != nil || len(files) != 9 {
		t.Fatalf("%d databases (%v), want one of each schema 1–9", len(files), err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".db.gz")
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "old.db")
			if err := gunzip(f, path); err != nil {
				t.Fatal(err)
			}
			if out, errOut, code := runIn(t, dir, "runs", "--db", path); code != 0 && !strings.Contains(errOut, "older than this program") {
				t.Fatalf("runs before the upgrade: exit %d\n%s%s", code, out, errOut)
			}
			for _, args := range [][]string{
				{"verify", "1", "--individual", "1-g0-01", "--games", "20", "--db", path},
				{"runs", "--db", path},
				{"generations", "1", "--db", path},
				{"export", "1", "--db", path, "--out", filepath.Join(dir, "best.json")},
			} {
				out, errOut, code := runIn(t, dir, args...)
				if code != 0 {
					t.Fatalf("%s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
				}
				if args[0] == "runs" && !strings.Contains(out, "gomoku") {
					t.Errorf("runs: no gomoku run:\n%s", out)
				}
			}
			data, err := os.ReadFile(filepath.Join(dir, "best.json"))
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := engine.ParseWeightsFile(data, gomoku.Game{}); err != nil {
				t.Errorf("the exported champion: %v", err)
			}
		})
	}
}

func gunzip(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	z, err := gzip.NewReader(in)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, z); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
