package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner/config"
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

// TestRegistriesInHelpAndDocs walks the registries of games, search methods and engine
// protocols: every line of every command's help (the reference the commands generate)
// outside its examples that names two or more members of a registry (in lower case, as
// flags take them) names them all, and the hand-written
// tables name every member — the README's games table, docs/tune.md's rows for --game,
// --method and --engine-protocol.
func TestRegistriesInHelpAndDocs(t *testing.T) {
	registries := []struct {
		what    string
		members []string
	}{
		{"game", genomes.Names()},
		{"method", strings.Split(strings.ReplaceAll(config.MethodNames(), " ", ""), ",")},
		{"protocol", protocol.Names()},
	}
	for _, r := range registries {
		if len(r.members) < 3 {
			t.Fatalf("the %s registry lists %v", r.what, r.members)
		}
	}
	dir := t.TempDir()
	if _, stderr, code := runIn(t, dir, "docs", "ref"); code != 0 {
		t.Fatal(stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "ref", "*.md"))
	token := regexp.MustCompile(`[a-z0-9]+`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		examples := false // the Examples section picks members on purpose
		for n, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "### ") {
				examples = line == "### Examples"
			}
			if examples {
				continue
			}
			words := map[string]bool{}
			for _, w := range token.FindAllString(line, -1) {
				words[w] = true
			}
			for _, r := range registries {
				var named, missing []string
				for _, m := range r.members {
					if words[m] {
						named = append(named, m)
					} else {
						missing = append(missing, m)
					}
				}
				if len(named) >= 2 && len(missing) > 0 {
					t.Errorf("%s:%d names the %ss %v but not %v: %s", filepath.Base(f), n+1, r.what, named, missing, strings.TrimSpace(line))
				}
			}
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range genomes.Names() {
		if !strings.Contains(string(readme), "| `"+g+"` |") {
			t.Errorf("README.md: the games table has no row for %s", g)
		}
	}
	tune, err := os.ReadFile("../../docs/tune.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, flag := range []string{"--game", "--method", "--engine-protocol"} {
		row := ""
		for _, l := range strings.Split(string(tune), "\n") {
			if strings.HasPrefix(l, "| `"+flag+"`") || strings.HasPrefix(l, "| `"+flag+"`,") {
				row = l
			}
		}
		if row == "" {
			t.Errorf("docs/tune.md: no row for %s", flag)
			continue
		}
		for _, m := range registries[i].members {
			if !strings.Contains(row, "`"+m+"`") {
				t.Errorf("docs/tune.md: the %s row does not name the %s %s", flag, registries[i].what, m)
			}
		}
	}
}
