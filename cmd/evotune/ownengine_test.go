package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3"
)

// dumpRun returns a run's individuals and games as text, timing columns left out: what
// must be equal when the same code plays the same run in process and through a protocol.
func dumpRun(t *testing.T, path string) (individuals, games string) {
	t.Helper()
	d, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	q := func(query string) string {
		rows, err := d.Query(query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var b strings.Builder
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			rows.Scan(ptrs...)
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%v|", v)
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	individuals = q("SELECT i.generation, i.id, i.rank, i.score, i.games, i.wins, i.draws, i.losses, g.genes, g.operator, g.parent1, g.parent2 FROM individuals i JOIN genomes g ON g.id = i.id ORDER BY i.generation, i.id")
	games = q("SELECT generation, individual, opponent, opening, colour, result, plies, moves, forfeit, round FROM games ORDER BY id")
	return individuals, games
}

// TestOwnEngineIdentity: a built-in engine tuned through its own protocol (weights layout
// --format yaml, tune --layout --engine 'cmd:evotune engine … --weights {weights} --depth
// D' --weights-format evotune) plays exactly the games of the same run in process: the
// same genomes, scores and game records. Gomoku through Gomocup, its processes kept between
// games (RESTART); Amazons through Botzone, a process per move; Connect6 through Botzone's
// ConnectSix in keep-running mode (its default SAU protocol cannot start an engine from an
// opening, so a layout run refuses it: TestOwnEngineBadInput).
func TestOwnEngineIdentity(t *testing.T) {
	t.Parallel() // mostly waiting (brokers, timeouts, processes): overlaps the others
	long(t, "every game through each protocol an outside engine speaks, twice each: about 50 s")
	cases := []struct {
		game, depth string
		board       string
		args        []string
		outArgs     []string // the outside run's own flags
		engineArgs  string   // the engine command's own flags
	}{
		{"gomoku", "2", "", []string{"--method", "ga", "--pop", "6", "--generations", "2", "--games", "8", "--admit-games", "8", "--verify-games", "20"}, nil, ""},
		{"amazons", "1", "8", []string{"--method", "ga", "--pop", "4", "--generations", "1", "--games", "4", "--race-rounds", "1", "--admit-games", "4", "--verify-games", "0"}, nil, ""},
		{"connect6", "1", "", []string{"--method", "ga", "--pop", "4", "--generations", "2", "--games", "4", "--race-rounds", "1", "--admit-games", "4", "--verify-games", "8"},
			[]string{"--engine-protocol", "botzone", "--botzone-keep-running"}, " --protocol botzone --keep-running"},
	}
	for _, c := range cases {
		t.Run(c.game, func(t *testing.T) {
			if c.game == "amazons" {
				long(t, "Botzone's process per move: about a minute")
			}
			dir := t.TempDir()
			if _, stderr, code := run(t, dir, "weights", "layout", "--game", c.game, "--format", "yaml", "--out", "l.yaml"); code != 0 {
				t.Fatalf("weights layout: %s", stderr)
			}
			inArgs := []string{"tune", "--game", c.game, "--depth", c.depth, "--db", "in.db"}
			engineCmd := "cmd:" + bin + " engine --game " + c.game + " --weights {weights} --depth " + c.depth + c.engineArgs
			if c.board != "" {
				layout, _ := os.ReadFile(filepath.Join(dir, "l.yaml"))
				writeFile(t, dir, "l.yaml", strings.Replace(string(layout), "\ngenes:", "\nboard: "+c.board+"\ngenes:", 1))
				inArgs = append(inArgs, "--board", c.board)
				engineCmd += " --board " + c.board
			}
			// The built-in games' champion and admission rules for both runs: an outside
			// engine's auto rules (the population's centre, no admission test) differ.
			common := append([]string{"--seed", "5", "--workers", "2", "--champion", "centre", "--admission", "paired"}, c.args...)
			if _, stderr, code := run(t, dir, append(inArgs, common...)...); code != 0 {
				t.Fatalf("in-process tune: %s", stderr)
			}
			outArgs := append([]string{"tune", "--layout", "l.yaml", "--engine", engineCmd, "--weights-format", "evotune", "--db", "out.db"}, c.outArgs...)
			_, stderr, code := run(t, dir, append(outArgs, common...)...)
			if code != 0 {
				t.Fatalf("tune through the protocol: %s", stderr)
			}
			if !strings.Contains(stderr, "tuning the outside engine") {
				t.Errorf("the outside run does not say it tunes an outside engine:\n%s", stderr)
			}
			if c.outArgs != nil {
				stored := sqlite(t, filepath.Join(dir, "out.db"), "SELECT json_extract(config, '$.engine_protocol') || ' ' || json_extract(config, '$.botzone_keep_running') FROM runs")
				if strings.TrimSpace(stored) != "botzone 1" {
					t.Errorf("the run stored engine_protocol, botzone_keep_running = %q, want botzone 1", stored)
				}
			}
			inInd, inGames := dumpRun(t, filepath.Join(dir, "in.db"))
			outInd, outGames := dumpRun(t, filepath.Join(dir, "out.db"))
			if n := strings.Count(inGames, "\n"); n < 30 {
				t.Fatalf("the in-process run recorded only %d games", n)
			}
			if inInd != outInd {
				t.Errorf("individuals differ:\nin process:\n%s\nthrough the protocol:\n%s", inInd, outInd)
			}
			if inGames != outGames {
				a, b := strings.Split(inGames, "\n"), strings.Split(outGames, "\n")
				for i := range min(len(a), len(b)) {
					if a[i] != b[i] {
						t.Fatalf("game row %d differs:\nin process:          %s\nthrough the protocol: %s", i, a[i], b[i])
					}
				}
				t.Fatalf("games differ in number: %d vs %d rows", len(a), len(b))
			}
		})
	}
}

// TestOwnEngineTunes: a small Gomocup engine (testdata/pbrain-toy, parameters from a JSON
// file, poor defaults) is tuned by its layout; the champion beats the defaults on held-out
// openings with a 95% interval above 0, and the exported file is one the engine loads and
// plays better with. The run keeps a hall of fame (--admission head-to-head; an outside
// engine's auto rule plays no admission test), which the run page shows.
func TestOwnEngineTunes(t *testing.T) {
	long(t, "a tune of an outside engine and a strength claim on its champion: about 5 s")
	dir := t.TempDir()
	toy := toyEngine(t, dir)
	out, stderr, code := run(t, dir, "tune", "--method", "ga", "--layout", "toy.yaml", "--engine", "cmd:"+toy+" -params {weights}",
		"--generations", "4", "--verify-games", "200", "--db", "toy.db", "--seed", "3", "--admission", "head-to-head")
	if code != 0 {
		t.Fatalf("tune: %s", stderr)
	}
	m := regexp.MustCompile(`Elo [+-][0-9.]+ ± [0-9.]+ \(95%: ([+-][0-9.]+) …`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no verification in the summary:\n%s", out)
	}
	if low, _ := strconv.ParseFloat(m[1], 64); low <= 0 {
		t.Fatalf("the tuned champion's 95%% interval reaches %v: not shown better than the defaults\n%s", low, out)
	}
	if _, stderr, code := run(t, dir, "export", "1", "--db", "toy.db", "--out", "best.json"); code != 0 {
		t.Fatalf("export: %s", stderr)
	}
	res, stderr, code := run(t, dir, "match", "--game", "gomoku", "--a", "cmd:"+toy+" -params "+filepath.Join(dir, "best.json"),
		"--b", "cmd:"+toy, "--games", "200", "--seed", "99", "--exclude-run", "1", "--db", "toy.db")
	if code != 0 {
		t.Fatalf("match with the exported values: %s", stderr)
	}
	m = regexp.MustCompile(`95%: ([+-][0-9.]+) …`).FindStringSubmatch(res)
	if m == nil {
		t.Fatalf("no Elo in the match:\n%s", res)
	}
	if low, _ := strconv.ParseFloat(m[1], 64); low <= 0 {
		t.Fatalf("the exported values do not beat the defaults in a fresh match:\n%s", res)
	}
	// verify plays the outside engine's champion against its defaults, once its engine is
	// allowed (the refusal's command runs as printed), and keeps the tune's verification.
	_, stderr, code = run(t, dir, "verify", "1", "--db", "toy.db", "--games", "20")
	if code == 0 || !strings.Contains(stderr, "--allow-engine") {
		t.Fatalf("verify of an outside engine's run without --allow-engine: exit %d, %s", code, stderr)
	}
	suggested := suggestedCommand(t, stderr)
	if got := strings.Join(suggested, " "); !strings.HasPrefix(got, "verify 1 --db toy.db --games 20 --allow-engine ") {
		t.Fatalf("the refusal suggests %q: want the whole command as given, --allow-engine added", got)
	}
	vout, stderr, code := run(t, dir, suggested...)
	if code != 0 || !strings.Contains(vout, "stored as verification 2 of run 1; verification 1 stays the run's headline") {
		t.Fatalf("verify as suggested: exit %d, %s %s", code, vout, stderr)
	}
	// The stored run resumes only where its engine is allowed again.
	if _, stderr, code := run(t, dir, "resume", "1", "--db", "toy.db"); code == 0 || !strings.Contains(stderr, "nothing to resume") {
		t.Errorf("resume of a finished run: exit %d, %s", code, stderr)
	}
	// The dashboard shows the run as an outside engine's: measured against the layout's
	// defaults, genes by the layout's names with its defaults.
	port := freePort(t)
	_, sout := start(t, dir, "serve", "--db", "toy.db", "--addr", "127.0.0.1:"+strconv.Itoa(port))
	waitFor(t, sout, "dashboard of")
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/api/runs/1/genes")
	if err != nil {
		t.Fatal(err)
	}
	var view struct {
		Run struct {
			Outside bool `json:"outside"`
		} `json:"run"`
		Genes []struct {
			Name    string  `json:"name"`
			Default float64 `json:"default"`
		} `json:"genes"`
		Best [][]*float64 `json:"best"`
	}
	err = json.NewDecoder(resp.Body).Decode(&view)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(view.Run.Outside, view.Genes); got != "true [{attack 1} {defence 0.05} {centre 3} {base 1.5}]" {
		t.Errorf("dashboard genes of the outside run: %s", got)
	}
	// The genes' line is the champion's: after the last generation, the hall of fame's member.
	champGenes := strings.TrimSpace(sqlite(t, filepath.Join(dir, "toy.db"), `SELECT g.genes FROM generations n JOIN genomes g ON g.run_id = n.run_id AND g.id = n.champion
		WHERE n.run_id = 1 ORDER BY n.generation DESC LIMIT 1`))
	var cg map[string]float64
	if err := json.Unmarshal([]byte(champGenes), &cg); err != nil || len(view.Best) != 4 {
		t.Fatalf("champion genes %q: %v; %d gene lines", champGenes, err, len(view.Best))
	}
	for i, g := range view.Genes {
		last := view.Best[i][len(view.Best[i])-1]
		if last == nil || *last != cg[g.Name] {
			got := "nothing"
			if last != nil {
				got = fmt.Sprint(*last)
			}
			t.Errorf("gene %s: the line ends at %s, the champion has %v", g.Name, got, cg[g.Name])
		}
	}
	// The run page carries each generation's hall-of-fame test: as many as the database has.
	resp, err = http.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/api/runs/1")
	if err != nil {
		t.Fatal(err)
	}
	var rv struct {
		Generations []struct {
			Admission *struct {
				Candidate string `json:"candidate"`
			} `json:"admission"`
		} `json:"generations"`
	}
	err = json.NewDecoder(resp.Body).Decode(&rv)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	tested := 0
	for _, g := range rv.Generations {
		if g.Admission != nil && g.Admission.Candidate != "" {
			tested++
		}
	}
	if want := strings.TrimSpace(sqlite(t, filepath.Join(dir, "toy.db"), "SELECT count(DISTINCT generation) FROM admissions")); fmt.Sprint(tested) != want || tested == 0 {
		t.Errorf("run page: %d generations with a hall-of-fame test, the database %s", tested, want)
	}
}

// TestOwnEngineValuesWays: the same run of the test engine with its values passed as a file
// ({weights}) and as Gomocup INFO lines (--gomocup-info, protocol options) plays the same
// games: both ways reach the engine whole.
func TestOwnEngineValuesWays(t *testing.T) {
	dir := t.TempDir()
	toy := toyEngine(t, dir)
	common := []string{"tune", "--method", "ga", "--layout", "toy.yaml", "--pop", "6", "--generations", "2", "--games", "8",
		"--admit-games", "8", "--verify-games", "0", "--seed", "11"}
	if _, stderr, code := runIn(t, dir, append(common, "--engine", "cmd:"+toy+" -params {weights}", "--db", "file.db")...); code != 0 {
		t.Fatalf("tune with a values file: %s", stderr)
	}
	if _, stderr, code := runIn(t, dir, append(common, "--engine", "cmd:"+toy, "--gomocup-info", "--db", "info.db")...); code != 0 {
		t.Fatalf("tune with INFO lines: %s", stderr)
	}
	fileInd, fileGames := dumpRun(t, filepath.Join(dir, "file.db"))
	infoInd, infoGames := dumpRun(t, filepath.Join(dir, "info.db"))
	if strings.Count(fileGames, "\n") < 50 {
		t.Fatalf("only %d games", strings.Count(fileGames, "\n"))
	}
	if fileInd != infoInd || fileGames != infoGames {
		t.Fatalf("values as a file and as INFO lines played different runs:\n%s\n---\n%s", fileInd, infoInd)
	}
}

// toyEngine builds the test engine (testdata/pbrain-toy, a Gomocup engine reading its
// parameters from a file) into dir, writes its layout to dir/toy.yaml (4 genes, defaults
// far from good) and returns the program's path.
func toyEngine(t testing.TB, dir string) string {
	t.Helper()
	toy := filepath.Join(dir, "pbrain-toy")
	if out, err := exec.Command("go", "build", "-o", toy, "./testdata/pbrain-toy").CombinedOutput(); err != nil {
		t.Fatalf("building the test engine: %v\n%s", err, out)
	}
	writeFile(t, dir, "toy.yaml", `format: evotune.layout/v1
game: gomoku
genes:
  - {name: attack, min: 0.05, max: 20, default: 1, scale: log}
  - {name: defence, min: 0.01, max: 20, default: 0.05, scale: log}
  - {name: centre, min: 0, max: 5, default: 3}
  - {name: base, min: 1.1, max: 10, default: 1.5, scale: log}
`)
	return toy
}

// TestOwnEngineSPSAResume: an outside engine's run with the default method (SPSA, at a game
// budget) finds values clearly better than its layout's defaults, and the same run killed
// with SIGKILL after a few saved steps resumes — only with its engine allowed again
// (--allow-engine) — to the database of the uninterrupted run: the same steps, genes and
// games.
func TestOwnEngineSPSAResume(t *testing.T) {
	long(t, "an outside engine's SPSA run, killed and resumed, against the uninterrupted one: about 4 s")
	dir := t.TempDir()
	toy := toyEngine(t, dir)
	engineCmd := "cmd:" + toy + " -params {weights}"
	args := []string{"tune", "--layout", "toy.yaml", "--engine", engineCmd, "--method", "spsa", "--budget-games", "800", "--seed", "7"}
	out, stderr, code := run(t, dir, append(args, "--verify-games", "200", "--db", "full.db")...)
	if code != 0 {
		t.Fatalf("tune: %s", stderr)
	}
	m := regexp.MustCompile(`Elo [+-][0-9.]+ ± [0-9.]+ \(95%: ([+-][0-9.]+) …`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "SPSA steps") {
		t.Fatalf("no SPSA verification in the summary:\n%s", out)
	}
	if low, _ := strconv.ParseFloat(m[1], 64); low <= 0 {
		t.Fatalf("SPSA's result is not shown better than the defaults (95%% from %v):\n%s", low, out)
	}
	// Killed after a few saved steps, then resumed.
	cut, _ := start(t, dir, append(args, "--verify-games", "200", "--db", "cut.db")...)
	steps := func() int {
		d, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "cut.db")+"?mode=ro")
		if err != nil {
			return 0
		}
		defer d.Close()
		var n int
		d.QueryRow("SELECT generations_done FROM runs WHERE id = 1").Scan(&n)
		return n
	}
	for i := 0; i < 300 && steps() < 4; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	cut.Process.Signal(syscall.SIGKILL)
	cut.Wait()
	saved := steps()
	if saved < 4 || saved >= 25 { // 800 games are 25 steps of 32
		t.Fatalf("killed after %d saved steps, want a run cut in the middle", saved)
	}
	_, stderr, code = run(t, dir, "resume", "1", "--db", "cut.db")
	if code == 0 || !strings.Contains(stderr, "--allow-engine") {
		t.Fatalf("resume without --allow-engine: exit %d, %s", code, stderr)
	}
	if _, stderr, code := run(t, dir, suggestedCommand(t, stderr)...); code != 0 { // the refusal's command, as printed
		t.Fatalf("resume as the refusal suggests: %s", stderr)
	}
	fi, fg := dumpRun(t, filepath.Join(dir, "full.db"))
	ci, cg := dumpRun(t, filepath.Join(dir, "cut.db"))
	if fi != ci || fg != cg || fi == "" {
		t.Fatalf("the resumed run differs from the uninterrupted one (killed after %d steps)", saved)
	}
}

// TestOwnEngineCluster: an outside engine's run played by a cluster worker that its owner
// allowed to run the engine's command line gives the local run's database; its tasks carry
// several games each, so the worker keeps the engine's processes between games.
func TestOwnEngineCluster(t *testing.T) {
	long(t, "an outside engine's tune through a broker and workers: about 6 s")
	dir := t.TempDir()
	toy := toyEngine(t, dir)
	writeFile(t, dir, "toy.yaml", `format: evotune.layout/v1
game: gomoku
genes:
  - {name: attack, min: 0.05, max: 20, default: 1, scale: log}
  - {name: defence, min: 0.01, max: 20, default: 0.05, scale: log}
`)
	engineCmd := "cmd:" + toy + " -params {weights}"
	args := []string{"tune", "--layout", "toy.yaml", "--engine", engineCmd, "--budget-games", "192", "--seed", "5", "--verify-games", "0"}
	if _, stderr, code := run(t, dir, append(args, "--db", "local.db")...); code != 0 {
		t.Fatalf("local tune: %s", stderr)
	}
	url := startTestBroker(t, dir)
	_, wout := start(t, dir, "worker", "--broker", url, "--workers", "2", "--allow-engine", engineCmd)
	waitFor(t, wout, "worker 2×")
	if _, stderr, code := run(t, dir, append(args, "--db", "remote.db", "--broker", url, "--broker-timeout", "60s")...); code != 0 {
		t.Fatalf("tune through the broker: %s\n%s", stderr, wout.String())
	}
	li, lg := dumpRun(t, filepath.Join(dir, "local.db"))
	ri, rg := dumpRun(t, filepath.Join(dir, "remote.db"))
	if li != ri || lg != rg || li == "" {
		t.Fatalf("the cluster run of the outside engine differs from the local run\n%s", wout.String())
	}
	tasks, games := 0, 0
	for _, m := range regexp.MustCompile(`played task games (\d+)–(\d+)`).FindAllStringSubmatch(wout.String(), -1) {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		tasks, games = tasks+1, games+b-a+1
	}
	if tasks == 0 || games <= tasks {
		t.Fatalf("%d tasks of several games (%d games in them), want tasks of several games:\n%s", tasks, games, wout.String())
	}
}

// TestOwnEngineBadInput: an outside engine's settings are checked before any run row is
// written, each error naming what is wrong.
func TestOwnEngineBadInput(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "l.yaml", "format: evotune.layout/v1\ngame: gomoku\ngenes:\n  - {name: a, min: 0, max: 1, default: 0.5}\n")
	writeFile(t, dir, "c6.yaml", "format: evotune.layout/v1\ngame: connect6\ngenes:\n  - {name: a, min: 0, max: 1, default: 0.5}\n")
	writeFile(t, dir, "bad.yaml", "format: evotune.layout/v1\ngame: gomoku\ngenes:\n  - {name: a, min: 2, max: 1, default: 0.5}\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"tune", "--layout", "l.yaml"}, "engine: a layout needs the engine it describes"},
		{[]string{"tune", "--game", "gomoku", "--engine", "cmd:" + bin}, "engine: needs a layout file"},
		{[]string{"tune", "--layout", "bad.yaml", "--engine", "cmd:" + bin}, "layout bad.yaml: line 4: genes[0] (a): min 2 must be below max 1"},
		{[]string{"tune", "--layout", "l.yaml", "--engine", "cmd:" + bin + " engine --game gomoku"}, "gets no values"},
		{[]string{"tune", "--layout", "l.yaml", "--engine", "cmd:" + bin + " {b}"}, "{b} is not a gene of the layout"},
		{[]string{"tune", "--layout", "l.yaml", "--engine", "cmd:" + bin + " {weights}", "--weights-format", "toml"}, `--weights-format: "toml", want json, evotune or ini`},
		{[]string{"tune", "--layout", "l.yaml", "--engine", "cmd:" + bin + " {weights}", "--weights-format", "evotune"}, "gene a is not a built-in gomoku weight"},
		{[]string{"tune", "--layout", "l.yaml", "--engine", "cmd:/nonexistent/engine {a}"}, "cannot run it"},
		{[]string{"tune", "--layout", "l.yaml", "--game", "amazons", "--engine", "cmd:" + bin + " {a}"}, "--game amazons: the layout l.yaml says game gomoku"},
		{[]string{"weights", "layout", "--game", "gomoku", "--format", "xml"}, `--format "xml"`},
		{[]string{"tune", "--layout", "c6.yaml", "--engine", "cmd:" + bin + " {a}"}, "connect6 engines speak sau here, which cannot start them from an opening, so every game would start from the empty board and deterministic engines would replay one game: tune them over botzone (--engine-protocol)"},
		{[]string{"tune", "--layout", "l.yaml", "--engine", "cmd:" + bin + " {a}", "--engine-protocol", "botzone"}, `--engine-protocol: protocol "botzone": gomoku engines speak gomocup`},
		{[]string{"tune", "--layout", "c6.yaml", "--engine", "cmd:" + bin + " {a}", "--engine-protocol", "uci"}, `protocol "uci": connect6 engines speak sau or botzone`},
		{[]string{"tune", "--layout", "l.yaml", "--engine", "cmd:" + bin + " {a}", "--botzone-keep-running"}, "the engine speaks gomocup, not Botzone"},
		{[]string{"tune", "--game", "gomoku", "--engine-protocol", "botzone"}, "settings of the outside engine under tuning, and there is none"},
		{[]string{"tune", "--layout", "c6.yaml", "--engine", "cmd:" + bin, "--engine-protocol", "botzone", "--gomocup-info"}, "--gomocup-info: the engine speaks botzone, which has no INFO lines"},
		{[]string{"match", "--game", "gomoku", "--a", "cmd:" + bin, "--botzone-json"}, "--botzone-json, --botzone-keep-running: gomoku external engines speak gomocup here"},
	}
	for _, c := range cases {
		if c.args[0] == "tune" {
			c.args = append(c.args, "--db", "x.db")
		}
		_, stderr, code := runIn(t, dir, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.db")); err == nil {
		d, _ := sql.Open("sqlite3", "file:"+filepath.Join(dir, "x.db")+"?mode=ro")
		var n int
		d.QueryRow("SELECT count(*) FROM runs").Scan(&n)
		d.Close()
		if n != 0 {
			t.Errorf("refused commands wrote %d runs", n)
		}
	}
}
