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

	"evotune/engine/gomoku"
	"evotune/genomes"
	"evotune/tuner"
)

// readmeSkips are the README examples TestREADMEExamples does not run: a substring of the
// line, and why.
var readmeSkips = []struct{ match, why string }{
	{"go run ./cmd/evotune tune", "the main job through go run: the same run as 'evotune tune --game connect6' below, which runs"},
	{"go test ", "the test commands themselves"},
	{"bash .ci/dist", "the release archives: .ci/run builds them after the tests (about 2½ minutes)"},
	{"--time-budget", "a run of 30 minutes to 8 hours"},
	{"--budget-games 44000", "the measured comparison: about an hour here"},
	{"--config run.yaml", "the overnight config shown (its YAML is parsed and validated below)"},
	{"--db night.db", "reads the overnight run"},
	{"cmd:./", "an external engine that is not part of evotune"},
	{"--db toga.db", "the measured Toga II match: 2 000 games, 40 minutes here"},
	{"--db uci.db", "reads the run of a UCI engine that is not part of evotune (TestTuneUCIEngine tunes and exports one)"},
	{"two-ply.epd", "the repository's book, not in the test's directory (TestStockfish and TestChessMatch play Stockfish and books)"},
	{"evotune resume", "needs a stopped run (Ctrl-C a tune first) or one with an external engine"},
	{"evotune broker", "a server that runs until stopped (TestClusterTune runs one)"},
	{"evotune worker", "runs until stopped, and needs a broker (TestClusterTune runs three)"},
	{"evotune serve", "a server that runs until stopped (TestDashboardBrowser drives one in Chromium)"},
}

// TestREADMEExamples runs every shell example of README.md as written, in order, in one
// empty directory with the built evotune first on PATH: each must exit 0, and an example
// whose comment is a number (perft counts) must print it. The config example must parse
// and validate. Skipped lines are logged with the reason.
func TestREADMEExamples(t *testing.T) {
	t.Parallel() // mostly waiting (brokers, timeouts, processes): overlaps the others
	long(t, "every README example in turn, five tuning runs among them: about 4 minutes")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(sh|yaml)\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	// The Gomoku openings file shown reads, each line as its comment says.
	book := regexp.MustCompile("(?s)```\n(# gomoku openings\n.*?)```").FindStringSubmatch(string(readme))
	if book == nil {
		t.Error("the README's Gomoku openings example is missing")
	} else if ops, err := tuner.ParseOpenings(strings.NewReader(book[1]), "README openings example", gomoku.Game{}, 0); err != nil || fmt.Sprint(ops) != "[[h8 h9 h10] [h8 i9 j10] [h8 i9 g7]]" {
		t.Errorf("the README's Gomoku openings example: %v, %v", ops, err)
	}
	dir := t.TempDir()
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")
	want := regexp.MustCompile(`#\s*([0-9]+)\s*$`)
	ran, yamls := 0, 0
	for _, b := range blocks {
		if b[1] == "yaml" && strings.Contains(b[2], genomes.LayoutFormat) {
			if _, err := genomes.ParseLayoutFile([]byte(b[2]), "README layout example"); err != nil {
				t.Errorf("the README's layout example: %v", err)
			}
			continue
		}
		if b[1] == "yaml" {
			if !strings.Contains(b[2], "time_budget") {
				continue
			}
			yamls++
			cfg, err := tuner.ParseConfig([]byte(b[2]), "README config example", tuner.DefaultConfig(""))
			if err == nil {
				err = cfg.Validate()
			}
			if err != nil {
				t.Errorf("the README's config example: %v", err)
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
			// Debian's chess engines (in /usr/games, which .ci/run puts on PATH): CI has them.
			for _, prog := range []string{"toga2", "stockfish"} {
				if strings.Contains(line, "cmd:"+prog) {
					if _, err := exec.LookPath(prog); err != nil {
						if os.Getenv("CI") != "" {
							t.Errorf("%s: %s is not installed (.ci/run installs it)", line, prog)
						} else {
							t.Logf("skipped: %s  (%s is not installed or not on PATH)", line, prog)
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
			t.Logf("ran %s  (%.1fs)", line, time.Since(start).Seconds())
			if err != nil {
				t.Errorf("README example %q: %v\nstdout:\n%s\nstderr:\n%s", line, err, stdout.String(), stderr.String())
				continue
			}
			if m := want.FindStringSubmatch(line); m != nil && !strings.Contains(stdout.String(), m[1]) {
				t.Errorf("README example %q: the output lacks %s:\n%s", line, m[1], stdout.String())
			}
		}
	}
	if ran < 20 || yamls != 1 {
		t.Fatalf("ran %d examples and checked %d config examples; the README's code blocks were not found", ran, yamls)
	}
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
