package tuner

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPackageLayout: the tuner's packages import only the layers below them — the arena
// no other tuner package, the cluster the arena alone, matches the arena and statistics,
// the ladder those and matches, a run's records the ladder and statistics, the search
// methods' interface and run loop those, the configuration, a round's schedule and the
// summary, none of them the tuner root — so that a package's imports show what it may
// depend on.
func TestPackageLayout(t *testing.T) {
	allowed := map[string][]string{ // a package of tuner/ → the tuner packages it may import
		"arena":      {},
		"cluster":    {"evotune/tuner/arena"},
		"config":     {"evotune/tuner/arena", "evotune/tuner/ladder", "evotune/tuner/match", "evotune/tuner/record"},
		"match":      {"evotune/tuner/arena", "evotune/tuner/stats"},
		"ladder":     {"evotune/tuner/arena", "evotune/tuner/match", "evotune/tuner/stats"},
		"record":     {"evotune/tuner/ladder", "evotune/tuner/stats"},
		"cmaes":      {"evotune/tuner/config", "evotune/tuner/record", "evotune/tuner/report", "evotune/tuner/search"},
		"population": {"evotune/tuner/record"},
		"steady":     {"evotune/tuner/config", "evotune/tuner/population", "evotune/tuner/record", "evotune/tuner/report", "evotune/tuner/search"},
		"search":     {"evotune/tuner/arena", "evotune/tuner/config", "evotune/tuner/ladder", "evotune/tuner/match", "evotune/tuner/record", "evotune/tuner/report", "evotune/tuner/schedule", "evotune/tuner/stats"},
		"stats":      {},
		"spsa":       {"evotune/tuner/config", "evotune/tuner/record", "evotune/tuner/report", "evotune/tuner/search"},
		"ga":         {"evotune/tuner/arena", "evotune/tuner/config", "evotune/tuner/ladder", "evotune/tuner/population", "evotune/tuner/record", "evotune/tuner/report", "evotune/tuner/schedule", "evotune/tuner/search", "evotune/tuner/stats"},
		"schedule":   {"evotune/tuner/arena", "evotune/tuner/record"},
		"report":     {"evotune/tuner/config", "evotune/tuner/ladder", "evotune/tuner/record", "evotune/tuner/stats"},
		"outside":    {"evotune/tuner/config", "evotune/tuner/match", "evotune/tuner/search", "evotune/tuner/spsa"},
	}
	for dir, ok := range allowed {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, e := range entries {
			name := e.Name()
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			seen++
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path != "evotune/tuner" && !strings.HasPrefix(path, "evotune/tuner/") {
					continue
				}
				if !slices.Contains(ok, path) {
					t.Errorf("tuner/%s/%s imports %s: it may import only %v of the tuner's packages", dir, name, path, ok)
				}
			}
		}
		if seen == 0 {
			t.Errorf("tuner/%s holds no Go file", dir)
		}
	}
}

// TestLayoutInDocs: docs/development.md opens with who imports whom among the tuner's
// packages and the commands, as the sources say (non-test files; imports of this module
// only, engine and genomes left out as the layers below every one).
func TestLayoutInDocs(t *testing.T) {
	dirs := []string{"../cmd/evotune", "."}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "testdata" {
			dirs = append(dirs, e.Name())
		}
	}
	var lines []string
	for _, dir := range dirs {
		all, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		var files []string
		for _, f := range all {
			if !strings.HasSuffix(f, "_test.go") {
				files = append(files, f)
			}
		}
		imports := map[string]bool{}
		for _, f := range files {
			parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range parsed.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path == "evotune/db" || path == "evotune/tuner" || strings.HasPrefix(path, "evotune/tuner/") {
					imports[strings.TrimPrefix(path, "evotune/")] = true
				}
			}
		}
		if len(files) == 0 {
			continue
		}
		name := "tuner/" + dir
		switch dir {
		case ".":
			name = "tuner"
		case "../cmd/evotune":
			name = "cmd/evotune"
		}
		var to []string
		for p := range imports {
			to = append(to, p)
		}
		slices.Sort(to)
		if len(to) == 0 {
			to = []string{"(no tuner package)"}
		}
		lines = append(lines, name+" → "+strings.Join(to, ", "))
	}
	want := strings.Join(lines, "\n")
	doc, err := os.ReadFile("../docs/development.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "```imports\n", "\n```"
	i := strings.Index(string(doc), begin)
	j := strings.Index(string(doc)[i+len(begin):], end)
	if i < 0 || j < 0 {
		t.Fatalf("docs/development.md has no ```imports block; it should hold:\n%s", want)
	}
	if got := string(doc)[i+len(begin) : i+len(begin)+j]; got != want {
		t.Fatalf("docs/development.md's imports block differs from the sources; it should be:\n%s\n\nit is:\n%s", want, got)
	}
}
