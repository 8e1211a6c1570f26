package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"evotune/engine/gomoku"
	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/config"
)

// readmeSkips are the README examples TestREADMEExamples does not run: a substring of the
// line, and why.
var readmeSkips = []struct{ match, why string }{
	{"go run ./cmd/evotune tune", "the main job through go run: the same run as 'evotune tune --game connect6' below, which runs"},
	{"go test ", "the test commands themselves"},
	{"go install ", "installs into GOPATH: the test runs the binary it built"},
	{"--db mine.db", "reads the run of an engine that is not part of evotune"},
	{"bash .ci/dist", "the release archives: .ci/run builds them after the tests (about 2½ minutes)"},
	{"--time-budget", "a run of 30 minutes to 8 hours"},
	{"--budget-games 44000", "the measured comparison: about an hour here"},
	{"--config run.yaml", "the overnight config shown (its YAML is parsed and validated below)"},
	{"--db night.db", "reads the overnight run"},
	{"cmd:./", "an external engine that is not part of evotune"},
	{"--db toga.db", "the measured Toga II match: 2 000 games, 40 minutes here"},
	{"--db detune.db", "the wide Toga II benchmark's detune: 400 games, 2 minutes here"},
	{"--db wide.db", "the wide Toga II benchmark: 8 000 games, about an hour here"},
	{"--db uci.db", "reads the run of a UCI engine that is not part of evotune (TestTuneUCIEngine tunes and exports one)"},
	{"evotune resume", "needs a stopped run (Ctrl-C a tune first) or one with an external engine"},
	{"evotune broker", "a server that runs until stopped (TestClusterTune runs one)"},
	{"evotune worker", "runs until stopped, and needs a broker (TestClusterTune runs three)"},
	{"run.db", "reads a run whose outside engine forfeited games"},
	{"evotune serve", "a server that runs until stopped (TestDashboardBrowser drives one in Chromium)"},
}

// docExamples are the documents whose shell examples TestREADMEExamples runs after the
// README's, in this order, in one directory: a later document reads what an earlier one
// wrote (the runs of tune.md, the weights files of commands.md).
var docExamples = []string{"commands.md", "tune.md", "methods.md", "results.md", "dashboard.md", "match.md",
	"verify.md", "engines.md", "uci.md", "cluster.md", "formats.md", "development.md", "search.md", "benchmarks.md"}

// TestREADMEExamples runs every shell example of README.md as written, in order, in one
// empty directory, then those of docExamples in another, with the built evotune first on
// PATH: each must exit 0, and an example whose comment is a number (perft counts) must
// print it. The config example must parse and validate, and every layout example must
// parse. Skipped lines are logged with the reason.
func TestREADMEExamples(t *testing.T) {
	t.Parallel() // mostly waiting (brokers, timeouts, processes): overlaps the others
	long(t, "every example of the README and docs/ in turn, six tuning runs among them: about 5 minutes")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var docs []byte
	for _, name := range docExamples {
		b, err := os.ReadFile(filepath.Join("../../docs", name))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(append(docs, b...), '\n')
	}
	all := string(readme) + "\n" + string(docs)
	// The Gomoku openings file shown reads, each line as its comment says.
	book := regexp.MustCompile("(?s)```\n(# gomoku openings\n.*?)```").FindStringSubmatch(all)
	if book == nil {
		t.Error("the Gomoku openings example of docs/match.md is missing")
	} else if ops, err := arena.ParseOpenings(strings.NewReader(book[1]), "openings example", gomoku.Game{}, 0); err != nil || fmt.Sprint(ops) != "[[h8 h9 h10] [h8 i9 j10] [h8 i9 g7]]" {
		t.Errorf("the Gomoku openings example: %v, %v", ops, err)
	}
	ran, yamls, layouts := 0, 0, 0
	for _, doc := range []struct{ name, text string }{{"README.md", string(readme)}, {"docs", string(docs)}} {
		r, y, l := runExamples(t, doc.name, doc.text)
		ran, yamls, layouts = ran+r, yamls+y, layouts+l
	}
	if ran < 40 || yamls != 1 || layouts < 2 {
		t.Fatalf("ran %d examples and checked %d config and %d layout examples; the documents' code blocks were not found", ran, yamls, layouts)
	}
}

// runExamples runs the shell examples of text (one document or several) in one new
// directory and checks its YAML examples; it returns how many lines ran, config examples
// and layout examples were checked.
func runExamples(t *testing.T, name, text string) (ran, yamls, layouts int) {
	blocks := regexp.MustCompile("(?s)```(sh|yaml)\n(.*?)```").FindAllStringSubmatch(text, -1)
	dir := t.TempDir()
	// The examples run from the repository's root: the files of it they name are there.
	for _, f := range []string{"engine/chess/testdata/two-ply.epd"} {
		b, err := os.ReadFile(filepath.Join("../..", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	want := regexp.MustCompile(`#\s*([0-9]+)\s*$`)
	for _, b := range blocks {
		if b[1] == "yaml" && strings.Contains(b[2], genomes.LayoutFormat) {
			layouts++
			if _, err := genomes.ParseLayoutFile([]byte(b[2]), name+" layout example"); err != nil {
				t.Errorf("%s: the layout example: %v", name, err)
			}
			continue
		}
		if b[1] == "yaml" {
			if !strings.Contains(b[2], "time_budget") {
				continue
			}
			yamls++
			cfg, err := config.ParseConfig([]byte(b[2]), name+" config example", config.DefaultConfig(""))
			if err == nil {
				err = cfg.Validate()
			}
			if err != nil {
				t.Errorf("%s: the config example: %v", name, err)
			}
			continue
		}
	lines:
		for _, line := range strings.Split(b[2], "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			for _, s := range readmeSkips {
				if strings.Contains(line, s.match) {
					t.Logf("skipped: %s  (%s)", line, s.why)
					continue lines
				}
			}
			for _, prog := range []string{"dot", "sqlite3"} {
				if strings.HasPrefix(line, prog+" ") || strings.Contains(line, "| "+prog+" ") {
					if _, err := exec.LookPath(prog); err != nil {
						t.Logf("skipped: %s  (%s is not installed)", line, prog)
						continue lines
					}
				}
			}
			// Debian's chess engines, named by their path (a root shell's PATH lacks
			// /usr/games): CI has them.
			for _, prog := range []string{"/usr/games/toga2", "/usr/games/stockfish"} {
				if strings.Contains(line, prog) {
					if _, err := os.Stat(prog); err != nil {
						if os.Getenv("CI") != "" {
							t.Errorf("%s: %s is not installed (.ci/run installs it)", line, prog)
						} else {
							t.Logf("skipped: %s  (%s is not installed)", line, prog)
						}
						continue lines
					}
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			cmd := exec.CommandContext(ctx, "sh", "-c", line)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+path)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			cancel()
			ran++
			t.Logf("%s: ran %s  (%.1fs)", name, line, time.Since(start).Seconds())
			if err != nil {
				t.Errorf("%s example %q: %v\nstdout:\n%s\nstderr:\n%s", name, line, err, stdout.String(), stderr.String())
				continue
			}
			if m := want.FindStringSubmatch(line); m != nil && !strings.Contains(stdout.String(), m[1]) {
				t.Errorf("%s example %q: the output lacks %s:\n%s", name, line, m[1], stdout.String())
			}
		}
	}
	return ran, yamls, layouts
}

// TestDocLinks: every relative link of README.md and docs/*.md names a file that exists,
// and a #fragment names a heading of that file (GitHub's anchors: lower case, punctuation
// dropped, blanks as hyphens).
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../../README.md")
	anchors := map[string]map[string]bool{}
	heads := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		if b, err := os.ReadFile(path); err == nil {
			for _, h := range regexp.MustCompile(`(?m)^#+ (.*)$`).FindAllStringSubmatch(stripCode(string(b)), -1) {
				a[docAnchor(h[1])] = true
			}
		}
		anchors[path] = a
		return a
	}
	links := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range links.FindAllStringSubmatch(stripCode(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := f
			if file != "" {
				path = filepath.Join(filepath.Dir(f), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: the link %s names no file", filepath.Base(f), target)
					continue
				}
			}
			checked++
			if frag != "" && strings.HasSuffix(path, ".md") && !heads(path)[frag] {
				t.Errorf("%s: the link %s names no heading of %s", filepath.Base(f), target, filepath.Base(path))
			}
		}
	}
	if checked < 30 {
		t.Errorf("checked %d links; the documents' links were not found", checked)
	}
}

// stripCode drops fenced code blocks, whose lines are neither headings nor links.
func stripCode(s string) string {
	return regexp.MustCompile("(?s)```.*?```").ReplaceAllString(s, "")
}

// docAnchor is GitHub's anchor of a Markdown heading: lower case, every character that is
// not a letter, digit, blank, hyphen or underscore dropped, blanks as hyphens.
func docAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestCIRunsTheREADMETestCommands: every go test command of the README's shell examples
// (the quick one and the full suite's) is in .ci/run as written, its && parts in order.
func TestCIRunsTheREADMETestCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	script := strings.Join(strings.Fields(string(ci)), " ")
	n := 0
	for _, b := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		for _, line := range strings.Split(b[1], "\n") {
			cmd, _, _ := strings.Cut(line, "#")
			if cmd = strings.Join(strings.Fields(cmd), " "); !strings.HasPrefix(cmd, "go test ") {
				continue
			}
			n++
			if !strings.Contains(script, cmd) {
				t.Errorf(".ci/run does not run the README's test command %q", cmd)
			}
		}
	}
	if n != 2 {
		t.Errorf("the README shows %d go test commands, want 2 (the quick one and the full suite)", n)
	}
}
