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
// no other tuner package, the cluster the arena and nothing else of the tuner — so that a
// package's imports show what it may depend on.
func TestPackageLayout(t *testing.T) {
	allowed := map[string][]string{ // a package of tuner/ → the tuner packages it may import
		"arena":   {},
		"cluster": {"evotune/tuner/arena"},
		"stats":   {},
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
