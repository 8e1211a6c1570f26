package tuner

import (
	"evotune/tuner/config"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCommandLine: the defaults, then the config file, then the flags the user gave; a
// flag not given keeps the file's value; errors name the flag the user gave, else the file.
func TestCommandLine(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "run.yaml")
	if err := os.WriteFile(file, []byte("game: gomoku\nmethod: ga\npopulation: 10\nseed: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	given := func(names ...string) func(string) bool {
		return func(f string) bool {
			for _, n := range names {
				if n == f {
					return true
				}
			}
			return false
		}
	}
	flags := config.DefaultConfig("")
	flags.Seed, flags.Population = 9, 14
	cfg, err := config.CommandLine{Flags: flags, Changed: given("seed"), ConfigFile: file, Depth: ""}.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Game != "gomoku" || cfg.Seed != 9 || cfg.Population != 10 {
		t.Errorf("game %q seed %d pop %d, want gomoku, 9 (the flag), 10 (the file)", cfg.Game, cfg.Seed, cfg.Population)
	}

	cfg, err = config.CommandLine{Flags: flags, Changed: given("depth"), ConfigFile: file, Depth: "3,4"}.Config()
	if err != nil || cfg.Depth != 0 || len(cfg.Depths) != 2 || cfg.Depths[1] != 4 {
		t.Errorf("--depth 3,4: %v, depth %d depths %v", err, cfg.Depth, cfg.Depths)
	}

	bad := []struct {
		cl   config.CommandLine
		want string
	}{
		{config.CommandLine{Flags: config.DefaultConfig("")}, "--game is required"},
		{config.CommandLine{Flags: flags, Changed: given("depth"), ConfigFile: file, Depth: "3,x"}, `--depth "3,x"`},
		{config.CommandLine{Flags: withMethod(config.DefaultConfig("gomoku"), config.MethodSPSA), Changed: given("method", "pop")}, "--pop: applies to --method"},
		{config.CommandLine{Flags: withPop(config.DefaultConfig("gomoku"), 1), Changed: given("pop")}, "--pop"},
		{config.CommandLine{Flags: withPop(config.DefaultConfig("gomoku"), 1), ConfigFile: writeFile(t, dir, "bad.yaml", "game: gomoku\npopulation: 1\n")}, "config " + filepath.Join(dir, "bad.yaml")},
		{config.CommandLine{Flags: withWorkers(config.DefaultConfig("gomoku"), config.MaxWorkers()+1), Changed: given("workers")}, "at most"},
	}
	for _, b := range bad {
		_, err := b.cl.Config()
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: error %v, want it to name %q", b.cl.Flags.Game, err, b.want)
		}
	}
	if ds, err := config.ParseDepths(" 2, 5"); err != nil || len(ds) != 2 || ds[0] != 2 || ds[1] != 5 {
		t.Errorf("ParseDepths: %v %v", ds, err)
	}
	if _, err := config.ParseDepths("0"); err == nil {
		t.Error("depth 0 accepted")
	}
}

func withMethod(c config.Config, m string) config.Config { c.Method = m; return c }
func withPop(c config.Config, n int) config.Config       { c.Population = n; return c }
func withWorkers(c config.Config, n int) config.Config   { c.Workers = n; return c }

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExplicitAdmitGames: admission auto resolves to no test for an outside engine whose
// champion is the population's centre, unless the run gives the tests' games (the flag or
// the config file's admit_games): then it keeps a head-to-head test of that size.
func TestExplicitAdmitGames(t *testing.T) {
	dir := t.TempDir()
	layout := writeFile(t, dir, "l.yaml", "format: evotune.layout/v1\ngame: chess\ngenes:\n  - {name: Hash, min: 1, max: 64, default: 16, scale: linear, integer: true}\n")
	flags := config.DefaultConfig("")
	flags.Engine, flags.AdmitGames, flags.BudgetGames = "cmd:"+os.Args[0], 32, 4000
	for _, c := range []struct {
		changed   []string
		file      string
		admission string
		admit     int
	}{
		{[]string{"engine", "budget-games"}, "", config.AdmissionNone, 0},
		{[]string{"engine", "budget-games", "admit-games"}, "", config.AdmissionHeadToHead, 32},
		{[]string{"engine", "budget-games"}, "admit_games: 48\n", config.AdmissionHeadToHead, 48},
		{[]string{"engine", "budget-games", "admit-games"}, "admission: none\n", config.AdmissionNone, 0},
	} {
		cl := config.CommandLine{Flags: flags, Changed: func(f string) bool { return slices.Contains(c.changed, f) }, LayoutFile: layout}
		if c.file != "" {
			cl.ConfigFile = writeFile(t, dir, "run.yaml", c.file)
		}
		cfg, err := cl.Config()
		if err != nil {
			t.Fatalf("%v %q: %v", c.changed, c.file, err)
		}
		if cfg.Admission != c.admission || cfg.AdmitGames != c.admit {
			t.Errorf("%v %q: admission %q with %d games, want %q with %d", c.changed, c.file, cfg.Admission, cfg.AdmitGames, c.admission, c.admit)
		}
	}
}
