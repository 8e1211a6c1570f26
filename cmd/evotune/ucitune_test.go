package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"evotune/db"
	"evotune/genomes"
)

// detunedLayout is evotune's own UCI engine's four piece values at a quarter of their
// defaults (knight 320, bishop 330, rook 500, queen 900), each with its own SPSA c_end and
// r_end as an OpenBench line gives them: a start that loses about 115 Elo at go nodes 300.
const detunedLayout = "format: evotune.layout/v1\ngame: chess\ngenes:\n" +
	"  - {name: knight, min: 1, max: 1500, default: 80, integer: true, c_end: 40, r_end: 0.1}\n" +
	"  - {name: bishop, min: 1, max: 1500, default: 83, integer: true, c_end: 40, r_end: 0.1}\n" +
	"  - {name: rook, min: 1, max: 1500, default: 125, integer: true, c_end: 40, r_end: 0.1}\n" +
	"  - {name: queen, min: 1, max: 1500, default: 225, integer: true, c_end: 40, r_end: 0.1}\n"

// TestTuneUCIEngine tunes a UCI engine's options as a chess engine author would: the
// layout written from the options it declares, a detuned start tuned by the default method
// (SPSA) at go nodes, the champion verified against that start on held-out openings (its
// Elo's 95% interval above 0), and the champion exported as setoption lines the engine
// takes and as an OpenBench parameter list that reads back as a layout of the same values.
func TestTuneUCIEngine(t *testing.T) {
	t.Parallel()
	long(t, "a tune of evotune's own UCI engine, then its verification: about 50 s")
	dir := t.TempDir()
	eng := "cmd:" + bin + " engine --game chess"

	out, stderr, code := run(t, dir, "weights", "layout", "--engine", eng, "--options", "knight,bishop,rook,queen", "--format", "yaml", "--out", "declared.yaml")
	if code != 0 {
		t.Fatalf("weights layout --engine: exit %d: %s", code, stderr)
	}
	lf, err := genomes.LoadLayoutFile(filepath.Join(dir, "declared.yaml"))
	if err != nil || len(lf.Genes) != 4 || lf.Genes[3].Name != "queen" || lf.Genes[3].Default != 900 || lf.Genes[3].Max != 3000 || !lf.Genes[3].Integer {
		t.Fatalf("declared layout (%s): %+v, %v", out, lf.Genes, err)
	}

	writeFile(t, dir, "detuned.yaml", detunedLayout)
	book, err := filepath.Abs("../../engine/chess/testdata/two-ply.epd")
	if err != nil {
		t.Fatal(err)
	}
	// Under -short (the quick test command) a run too short to claim strength: the same
	// steps, records and exports; the claims (the champion beats the start, its queen rose)
	// are the full command's.
	budget, verify := 256, 100
	if testing.Short() {
		budget, verify = 32, 8
	}
	out, stderr, code = run(t, dir, "tune", "--layout", "detuned.yaml", "--engine", eng, "--method", "spsa", "--nodes", "300", "--book", book,
		"--resign", "movecount=3,score=800", "--budget-games", strconv.Itoa(budget), "--verify-games", strconv.Itoa(verify), "--db", "u.db")
	if code != 0 {
		t.Fatalf("tune: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "two-ply.epd, its held-out half") {
		t.Errorf("the verification should play the book's held-out half:\n%s", out)
	}
	if !strings.Contains(stderr, "at nodes 300") || strings.Contains(stderr, "depth 3") {
		t.Errorf("the run's output should name the engine's limits (nodes 300), not the built-in engine's depth:\n%s", stderr)
	}
	d, err := db.OpenReadOnly(context.Background(), filepath.Join(dir, "u.db"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Run(context.Background(), 1)
	d.Close()
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Champion string  `json:"champion"`
		Games    int     `json:"games"`
		Elo      float64 `json:"elo"`
		Low      float64 `json:"elo_low"`
	}
	if err := json.Unmarshal([]byte(r.Verification), &v); err != nil || v.Games != verify {
		t.Fatalf("verification %s: %v", r.Verification, err)
	}
	t.Logf("champion %s against the detuned start: Elo %+.1f, 95%% lower bound %+.1f, %d games", v.Champion, v.Elo, v.Low, v.Games)
	if !(v.Low > 0) && !testing.Short() {
		t.Errorf("the tuned champion does not beat the detuned start: Elo %+.1f, 95%% lower bound %+.1f", v.Elo, v.Low)
	}

	// A proof after the run leaves out the run's tuning openings and the book openings its
	// verification played (its first verify/2 held-out openings; up to twice as many are
	// left out, as many as a verification of the longest stored length's distinct games
	// could have reached), not the whole held-out half (187 of the book's 400): the proof
	// keeps the rest of the book.
	out, stderr, code = run(t, dir, "match", "--game", "chess", "--a", eng, "--b", eng, "--nodes", "300", "--book", book,
		"--exclude-run", "1", "--db", "u.db", "--games", "2", "--seed", "5")
	if code != 0 {
		t.Fatalf("match --exclude-run: exit %d: %s", code, stderr)
	}
	var tuned, verified int
	if m := regexp.MustCompile(`run 1's (\d+) tuning and (\d+) verification openings excluded`).FindStringSubmatch(out + stderr); m == nil {
		t.Errorf("match --exclude-run: no exclusion in its openings label:\n%s%s", out, stderr)
	} else if tuned, _ = strconv.Atoi(m[1]); tuned == 0 {
		t.Errorf("match --exclude-run: no tuning opening excluded:\n%s", out)
	} else if verified, _ = strconv.Atoi(m[2]); verified < verify/2 || verified > verify {
		t.Errorf("match --exclude-run after a %d-game verification: %d verification openings excluded, want %d to %d:\n%s", verify, verified, verify/2, verify, out)
	}

	// The champion as setoption lines: the engine takes every one.
	if _, stderr, code := run(t, dir, "export", "1", "--format", "setoption", "--out", "best.uci", "--db", "u.db"); code != 0 {
		t.Fatalf("export --format setoption: exit %d: %s", code, stderr)
	}
	lines, _ := os.ReadFile(filepath.Join(dir, "best.uci"))
	if n := strings.Count(string(lines), "setoption name "); n != 4 {
		t.Fatalf("best.uci: %d setoption lines, want 4:\n%s", n, lines)
	}
	cmd := exec.Command(bin, "engine", "--game", "chess")
	cmd.Stdin = strings.NewReader("uci\n" + string(lines) + "isready\nposition startpos\ngo nodes 100\nquit\n")
	reply, err := cmd.Output()
	if err != nil || strings.Contains(string(reply), "error") || !strings.Contains(string(reply), "bestmove ") {
		t.Fatalf("the engine fed best.uci: %v\n%s", err, reply)
	}

	// The champion as an OpenBench list: it reads back as a layout whose values are its.
	if _, stderr, code := run(t, dir, "export", "1", "--format", "openbench", "--out", "tune.txt", "--db", "u.db"); code != 0 {
		t.Fatalf("export --format openbench: exit %d: %s", code, stderr)
	}
	back, err := genomes.LoadLayoutFile(filepath.Join(dir, "tune.txt"))
	if err != nil || len(back.Genes) != 4 {
		t.Fatalf("tune.txt read back: %v %+v", err, back.Genes)
	}
	best, _, code := run(t, dir, "export", "1", "--out", "-", "--db", "u.db") // the run's own format: {"knight": …}
	var champ map[string]float64
	if code != 0 || json.Unmarshal([]byte(best), &champ) != nil {
		t.Fatalf("export as json: %s", best)
	}
	for _, g := range back.Genes {
		if champ[g.Name] != g.Default || g.CEnd != 40 || g.REnd != 0.1 || g.Max != 1500 {
			t.Errorf("tune.txt gene %+v, champion's value %g", g, champ[g.Name])
		}
	}
	if champ["queen"] <= 225 && !testing.Short() {
		t.Errorf("the champion's queen %g did not move up from the detuned 225", champ["queen"])
	}
}

// TestTuneUCIEngineBadInput: a layout that names options the engine lacks, bounds beyond
// its min/max, an option that is no spin, a fixed option it does not declare, a limit for a
// protocol without it, and an OpenBench list with a bad line are refused before any game,
// and no database is left behind.
func TestTuneUCIEngineBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	eng := "cmd:" + bin + " engine --game chess"
	head := "format: evotune.layout/v1\ngame: chess\ngenes:\n"
	cases := []struct {
		name, layout string
		args         []string
		want         string
	}{
		{"undeclared", head + "  - {name: Mobility, min: 0, max: 10, default: 5, integer: true}\n", nil,
			`gene Mobility: the engine declares no option "Mobility"`},
		{"bounds", head + "  - {name: queen, min: 1, max: 5000, default: 900, integer: true}\n", nil,
			`gene queen: bounds [1, 5000] outside the engine's "queen" min 1 max 3000`},
		{"not integer", head + "  - {name: pst, min: 0, max: 400, default: 100}\n", nil,
			"make the gene integer: true"},
		{"engine option", head + "  - {name: queen, min: 1, max: 3000, default: 900, integer: true}\n", []string{"--engine-option", "Hash=16"},
			`engine_options: option "Hash": the engine declares no such option`},
		{"engine option syntax", head + "  - {name: queen, min: 1, max: 3000, default: 900, integer: true}\n", []string{"--engine-option", "Hash"},
			`--engine-option: engine_options[0]: "Hash", want NAME=VALUE`},
		{"openbench 6 fields", "queen, int, 900, 1, 3000, 40\n", nil, "tune.txt: line 1: 6 fields, want 7"},
		{"book", head + "  - {name: queen, min: 1, max: 3000, default: 900, integer: true}\n", []string{"--book", "bad.epd"},
			"bad.epd:2:"},
		{"resign", head + "  - {name: queen, min: 1, max: 3000, default: 900, integer: true}\n", []string{"--resign", "movecount=x"},
			`--resign: "movecount=x"`},
		{"openbench min > max", "queen, int, 900, 1, 3000, 40, 0.002\nrook, int, 500, 900, 100, 40, 0.002\n", nil,
			"line 2: rook: min 900 must be below max 100"},
	}
	writeFile(t, dir, "bad.epd", chessBook[:strings.Index(chessBook, "\n")+1]+"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1\n")
	for _, c := range cases {
		file := "layout.yaml"
		if strings.HasPrefix(c.name, "openbench") {
			file = "tune.txt"
		}
		writeFile(t, dir, file, c.layout)
		dbFile := c.name + ".db"
		args := append([]string{"tune", "--layout", file, "--engine", eng, "--nodes", "100", "--budget-games", "32", "--db", dbFile}, c.args...)
		_, stderr, code := run(t, dir, args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, dbFile)); err == nil {
			t.Errorf("%s: a refused run left %s behind", c.name, dbFile)
		}
	}
	// A check option is no gene: Stockfish's Ponder, where Stockfish is installed (CI).
	sf, err := exec.LookPath("stockfish")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("stockfish is not installed (.ci/run installs it)")
		}
		return
	}
	writeFile(t, dir, "sf.yaml", head+"  - {name: Ponder, min: 0, max: 1, default: 0, integer: true}\n")
	_, stderr, code := run(t, dir, "tune", "--layout", "sf.yaml", "--engine", "cmd:"+sf, "--nodes", "100", "--budget-games", "32", "--db", "sf.db")
	if want := `option "Ponder" is a check option; only spin options`; code == 0 || !strings.Contains(stderr, want) {
		t.Errorf("Ponder as a gene: exit %d, %q, want %q", code, stderr, want)
	}
	_, stderr, code = run(t, dir, "weights", "layout", "--engine", "cmd:"+sf, "--options", "Ponder", "--format", "yaml")
	if want := `"Ponder" is a check option`; code == 0 || !strings.Contains(stderr, want) {
		t.Errorf("weights layout --options Ponder: exit %d, %q, want %q", code, stderr, want)
	}
}
