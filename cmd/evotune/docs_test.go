package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReferenceDocs: docs/reference is what `evotune docs` writes from the commands
// themselves — every command's file, byte for byte, and no file of a command that is gone.
// A changed flag or help text fails here until the reference is written again.
func TestReferenceDocs(t *testing.T) {
	dir := t.TempDir()
	if _, stderr, code := runIn(t, dir, "docs", "ref"); code != 0 {
		t.Fatal(stderr)
	}
	want, _ := filepath.Glob(filepath.Join(dir, "ref", "*.md"))
	have, _ := filepath.Glob("../../docs/reference/*.md")
	if len(want) < 20 || len(have) != len(want) {
		t.Fatalf("%d reference files in docs/reference, the commands make %d: run 'go run ./cmd/evotune docs docs/reference'", len(have), len(want))
	}
	for _, w := range want {
		name := filepath.Base(w)
		a, _ := os.ReadFile(w)
		b, err := os.ReadFile(filepath.Join("../../docs/reference", name))
		if err != nil || string(a) != string(b) {
			t.Errorf("docs/reference/%s differs from what the commands say (%v): run 'go run ./cmd/evotune docs docs/reference'", name, err)
		}
	}
	tune, _ := os.ReadFile(filepath.Join(dir, "ref", "evotune_tune.md"))
	for _, flag := range []string{"--verify-tc", "--stop-when-proven", "--workers int"} {
		if !strings.Contains(string(tune), flag) {
			t.Errorf("the tune reference lacks %s", flag)
		}
	}
	if strings.Contains(string(tune), "Auto generated") {
		t.Error("the reference carries a generation date")
	}
}
