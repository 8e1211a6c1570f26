package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"evotune/engine/chess"
)

// TestTournamentChess: a round-robin of three chess engines — evotune's own over UCI twice
// (one with a clock of its own, one with an option of its own) and the built-in player —
// plays every pairing, ranks
// each engine by its record against the field (the sum of its pairings, from its side),
// and writes one PGN of every game under the engines' names that the rules library reads
// back game for game.
func TestTournamentChess(t *testing.T) {
	long(t, "a round-robin of three chess engines")
	dir := t.TempDir()
	book, err := filepath.Abs(filepath.Join("..", "..", "engine", "chess", "testdata", "two-ply.epd"))
	if err != nil {
		t.Fatal(err)
	}
	uci := "cmd=" + bin + " args='engine --game chess'"
	out, stderr, code := runIn(t, dir, "tournament", "--game", "chess", "--nodes", "300", "--rounds", "2", "--max-moves", "60",
		"--book", book, "--pgn", "t.pgn", "--json",
		"--engine", "name=Base "+uci+" tc=60+1", "--engine", "name='Queen 7' "+uci+" option.queen=700", "--engine", "name=Built weights=default")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var res struct {
		Engines  []struct{ Name, Player, TC string }
		Pairings []struct {
			A, B   string
			Result struct{ Wins, Draws, Losses int }
		}
		Ranking []struct {
			Rank   int
			Name   string
			Result struct{ Wins, Draws, Losses int }
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res.Engines) != 3 || res.Engines[2].Player != "default" || res.Engines[0].TC != "60+1" || !strings.HasPrefix(res.Engines[1].Player, "cmd:"+bin+" engine --game chess") {
		t.Fatalf("engines: %+v", res.Engines)
	}
	if len(res.Pairings) != 3 || res.Pairings[0].A != "Base" || res.Pairings[0].B != "Queen 7" || res.Pairings[2].A != "Queen 7" || res.Pairings[2].B != "Built" {
		t.Fatalf("a round-robin of three plays Base-Queen 7, Base-Built, Queen 7-Built; got %+v", res.Pairings)
	}
	type wdl struct{ w, d, l int }
	field := map[string]wdl{}
	games := 0
	for _, p := range res.Pairings {
		r := p.Result
		if n := r.Wins + r.Draws + r.Losses; n != 4 {
			t.Errorf("%s vs %s counted %d games, want 4 (2 rounds of a colour-swapped pair)", p.A, p.B, n)
		}
		games += r.Wins + r.Draws + r.Losses
		a, b := field[p.A], field[p.B]
		field[p.A] = wdl{a.w + r.Wins, a.d + r.Draws, a.l + r.Losses}
		field[p.B] = wdl{b.w + r.Losses, b.d + r.Draws, b.l + r.Wins}
	}
	score := func(x wdl) float64 { return float64(2*x.w+x.d) / float64(2*(x.w+x.d+x.l)) }
	for i, s := range res.Ranking {
		got := wdl{s.Result.Wins, s.Result.Draws, s.Result.Losses}
		if got != field[s.Name] || s.Rank != i+1 {
			t.Errorf("ranking %d, %s: %+v, want its pairings' sum %+v", s.Rank, s.Name, got, field[s.Name])
		}
		if i > 0 && score(got) > score(wdl{res.Ranking[i-1].Result.Wins, res.Ranking[i-1].Result.Draws, res.Ranking[i-1].Result.Losses}) {
			t.Errorf("ranking not by score: %+v", res.Ranking)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "t.pgn"))
	if err != nil {
		t.Fatal(err)
	}
	read, err := chess.Game{}.ReadBook("t.pgn", data, 0)
	if err != nil || len(read) != games {
		t.Fatalf("PGN read back: %d games of %d, %v", len(read), games, err)
	}
	if n := strings.Count(string(data), `[Event "evotune tournament"]`); n != games {
		t.Errorf("%d games with the tournament's Event tag, want %d", n, games)
	}
	// Base plays under a clock of its own, the others under none: no game names one clock,
	// and none was lost on time.
	if strings.Contains(string(data), "[TimeControl ") || strings.Contains(string(data), "time loss") {
		t.Errorf("a TimeControl tag or a time loss in the PGN of a pairing with one clock:\n%s", data)
	}
	for _, name := range []string{"Base", "Queen 7", "Built"} {
		if n := strings.Count(string(data), `[White "`+name+`"]`) + strings.Count(string(data), `[Black "`+name+`"]`); n != 8 {
			t.Errorf("%s plays %d games in the PGN, want 8 (two pairings of 4)", name, n)
		}
	}
}

// TestTournamentGauntletResume: a gauntlet plays the first engine against each other one
// (the others never meet: their crosstable cell is empty), and a gauntlet stopped by SIGINT
// in its first pairing exits 130 with the result so far; the same command with --resume
// keeps the stored games, plays the rest and ends with the report of the uninterrupted
// tournament (built-in players are deterministic).
func TestTournamentGauntletResume(t *testing.T) {
	long(t, "a gauntlet stopped by SIGINT and resumed through the binary: about 5 s (tuner/match's TestSessionResumesWhereItStopped is the quick one)")
	dir := t.TempDir()
	def, _, _ := run(t, dir, "weights", "default", "--game", "gomoku")
	writeFile(t, dir, "attack.json", strings.Replace(def, `"k1": 1,`, `"k1": 1.6,`, 1))
	writeFile(t, dir, "defence.json", strings.Replace(def, `"k2": 1`, `"k2": 1.6`, 1))
	base := []string{"tournament", "--game", "gomoku", "--depth", "3", "--rounds", "60", "--workers", "1", "--gauntlet",
		"--engine", "name=paper weights=default", "--engine", "weights=attack.json", "--engine", "name=defence weights=defence.json"}
	args := append(append([]string(nil), base...), "--db", "t.db")
	cmd, buf := start(t, dir, args...)
	path := filepath.Join(dir, "t.db")
	for i := 0; i < 2400; i++ { // two minutes at most on a busy machine
		if n, _ := strconv.Atoi(sqliteQuiet(path, "SELECT count(*) FROM match_games")); n >= 10 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if cmd.ProcessState.ExitCode() != 130 || !strings.Contains(buf.String(), "tournament interrupted in pairing 1 of 2 (paper vs attack.json)") {
		t.Fatalf("the gauntlet was not stopped in its first pairing (exit %d):\n%s", cmd.ProcessState.ExitCode(), buf.String())
	}
	if got := sqlite(t, path, "SELECT group_concat(status) FROM matches"); got != "stopped" {
		t.Fatalf("stored pairings after the stop: %q, want one stopped", got)
	}
	pairs := sqlite(t, path, "SELECT count(*) FROM (SELECT pair FROM match_games GROUP BY pair HAVING count(*) = 2)")
	resumed, stderr, code := run(t, dir, append(args, "--resume")...)
	if code != 0 || !strings.Contains(stderr, "resuming pairing 1 (paper vs attack.json): "+pairs+" of its 60 pairs were played; they are kept") {
		t.Fatalf("--resume: exit %d\n%s", code, stderr)
	}
	whole, stderr, code := run(t, dir, append(base, "--db", "whole.db")...)
	if code != 0 {
		t.Fatalf("uninterrupted: exit %d\n%s", code, stderr)
	}
	report := func(s string) string { return s[strings.Index(s, "  rank"):] }
	if !strings.Contains(whole, "  rank") || report(resumed) != report(whole) {
		t.Fatalf("resumed:\n%s\nuninterrupted:\n%s", resumed, whole)
	}
	if !regexp.MustCompile(`(?m)^\s+attack\.json\s+\S+/\d+\s+—\s+·$`).MatchString(whole) {
		t.Errorf("a gauntlet's other engines never meet (their cell is ·):\n%s", whole)
	}
	if got := sqlite(t, path, "SELECT group_concat(status) FROM matches"); got != "finished,finished" {
		t.Errorf("stored pairings after --resume: %q", got)
	}
}

// TestTournamentBadInput: each malformed tournament is refused before any game with an
// error naming the engine and what is wrong.
func TestTournamentBadInput(t *testing.T) {
	dir := t.TempDir()
	base := []string{"tournament", "--game", "gomoku", "--depth", "1", "--rounds", "1"}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"one engine", []string{"--engine", "weights=default"}, "--engine: 1 given, a tournament needs at least two"},
		{"same names", []string{"--engine", "weights=default", "--engine", "weights=default"}, `--engine 1 and 2 are both named "default"`},
		{"unknown key", []string{"--engine", "weights=default colour=red", "--engine", "name=b weights=default"}, `--engine 1 ("weights=default colour=red"): unknown key "colour"`},
		{"not a pair", []string{"--engine", "default", "--engine", "name=b weights=default"}, `"default" is not KEY=VALUE`},
		{"no player", []string{"--engine", "name=a", "--engine", "name=b weights=default"}, "no cmd= (an outside engine) or weights="},
		{"bad clock", []string{"--engine", "cmd=true tc=fast", "--engine", "name=b weights=default"}, `tc=fast: `},
		{"clock of a built-in", []string{"--engine", "weights=default tc=10+0.1", "--engine", "name=b weights=default"}, "--engine default: nodes=, depth= and tc= are an outside engine's limits"},
		{"bad nodes", []string{"--engine", "weights=default nodes=-3", "--engine", "name=b weights=default"}, "nodes=-3: want a positive whole number"},
		{"nodes of a built-in", []string{"--engine", "weights=default nodes=300", "--engine", "name=b weights=default"}, "--engine default: nodes=, depth= and tc= are an outside engine's limits"},
		{"option of a built-in", []string{"--engine", "weights=default option.Hash=16", "--engine", "name=b weights=default"}, "--engine default option: options are for outside engines"},
		{"missing file", []string{"--engine", "weights=nothere.json", "--engine", "name=b weights=default"}, "--engine nothere.json: "},
		{"empty name", []string{"--engine", "name= weights=default", "--engine", "name=b weights=default"}, "name= is empty"},
		{"book from entry 0", []string{"--book-start", "0", "--engine", "weights=default", "--engine", "name=b weights=default"}, "--book-start 0: want the number of the book's first entry to use, from 1"},
		{"no rounds", []string{"--rounds", "0", "--engine", "weights=default", "--engine", "name=b weights=default"}, "--rounds 0: want at least 1"},
		{"resume of nothing", []string{"--resume", "--db", "none.db", "--engine", "weights=default", "--engine", "name=b weights=default"}, "--resume: none.db holds no stopped tournament of this command"},
	} {
		_, stderr, code := run(t, dir, append(append([]string(nil), base...), c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, want an error with %q:\n%s", c.name, code, c.want, stderr)
		}
	}
	// A refused resume leaves no file behind: no database, no PGN.
	_, stderr, code := run(t, dir, append(append([]string(nil), base...), "--game", "chess", "--resume", "--db", "none2.db", "--pgn", "none2.pgn",
		"--engine", "weights=default", "--engine", "name=b weights=default")...)
	for _, f := range []string{"none.db", "none2.db", "none2.pgn"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("a refused --resume (exit %d) left %s behind:\n%s", code, f, stderr)
		}
	}
}

// TestPGNNotReplaced: a match or tournament whose --pgn already holds games is refused
// before any game or database row, naming --resume and --force; --force replaces the file.
func TestPGNNotReplaced(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range [][]string{
		{"match", "--game", "chess", "--depth", "1", "--games", "2", "--db", "m.db", "--pgn", "m.pgn"},
		{"tournament", "--game", "chess", "--depth", "1", "--rounds", "1", "--engine", "weights=default", "--engine", "name=b weights=default", "--db", "m.db", "--pgn", "m.pgn"},
	} {
		os.Remove(filepath.Join(dir, "m.pgn"))
		if _, stderr, code := runIn(t, dir, cmd...); code != 0 {
			t.Fatalf("%s: exit %d\n%s", cmd[0], code, stderr)
		}
		before, _ := os.ReadFile(filepath.Join(dir, "m.pgn"))
		rows := func() string {
			raw, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "m.db")+"?mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			var n int
			if err := raw.QueryRow("SELECT count(*) FROM matches").Scan(&n); err != nil {
				t.Fatal(err)
			}
			return strconv.Itoa(n)
		}
		n := rows()
		_, stderr, code := runIn(t, dir, cmd...)
		after, _ := os.ReadFile(filepath.Join(dir, "m.pgn"))
		if code == 0 || !strings.Contains(stderr, "m.pgn already holds 2 games") || !strings.Contains(stderr, "--force") || !strings.Contains(stderr, "--resume") {
			t.Fatalf("%s again onto m.pgn: exit %d, want a refusal naming --resume and --force:\n%s", cmd[0], code, stderr)
		}
		if string(after) != string(before) || rows() != n {
			t.Fatalf("%s: the refusal changed m.pgn (%d bytes, were %d) or stored a match (%s, were %s)", cmd[0], len(after), len(before), rows(), n)
		}
		if _, stderr, code := runIn(t, dir, append(cmd, "--force")...); code != 0 {
			t.Fatalf("%s --force: exit %d\n%s", cmd[0], code, stderr)
		}
		if after, _ = os.ReadFile(filepath.Join(dir, "m.pgn")); strings.Count(string(after), "[Event ") != 2 {
			t.Fatalf("%s --force: m.pgn holds %d games, want the 2 of the new match", cmd[0], strings.Count(string(after), "[Event "))
		}
	}
}
