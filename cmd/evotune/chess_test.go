package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"evotune/db"
	"evotune/engine/chess"
	"evotune/tuner/runview"
)

// chessBook is four positions after White's first move, as an EPD book holds them.
const chessBook = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n" +
	"rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n" +
	"rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1\n" +
	"rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1\n"

// TestChessMatch plays evotune's own engine over UCI (the server and the client of one
// build) at go nodes, from an EPD book, adjudicated, and writes a PGN that the chess
// package's reader (the library's) reads back game for game.
func TestChessMatch(t *testing.T) {
	long(t, "a chess match through the UCI protocol with a book, a PGN and adjudication")
	dir := t.TempDir()
	book := writeFile(t, dir, "book.epd", chessBook)
	a := "cmd:" + bin + " engine --game chess"
	out, stderr, code := runIn(t, dir, "match", "--game", "chess", "--a", a, "--b", a, "--b-option", "queen=700",
		"--nodes", "400", "--book", book, "--games", "8", "--pgn", "out.pgn", "--max-plies", "0", "--max-moves", "60",
		"--draw", "movenumber=20,movecount=4,score=10", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var m struct {
		Result struct{ Wins, Draws, Losses int }
		Games  []struct {
			AColour string `json:"a_colour"`
			Record  struct {
				Moves       []string `json:"moves"`
				Termination string   `json:"termination"`
				Forfeit     string   `json:"forfeit"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil || len(m.Games) != 8 {
		t.Fatalf("%d games (%v):\n%s", len(m.Games), err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "out.pgn"))
	if err != nil {
		t.Fatal(err)
	}
	games, err := chess.Game{}.ReadBook("out.pgn", data, 0)
	if err != nil || len(games) != 8 {
		t.Fatalf("PGN read back: %d games, %v", len(games), err)
	}
	text := string(data)
	for _, want := range []string{`[SetUp "1"]`, `[Black "cmd:`, `(queen=700)"]`, `[Termination "`} {
		if !strings.Contains(text, want) {
			t.Errorf("PGN lacks %q", want)
		}
	}
	seen := map[string]bool{}
	for _, g := range m.Games {
		if g.Record.Forfeit != "" || g.Record.Termination == "" {
			t.Errorf("game %v: forfeit %q, termination %q", g.Record.Moves[:2], g.Record.Forfeit, g.Record.Termination)
		}
		seen[strings.Join(g.Record.Moves, " ")] = true
	}
	// Another program reads it too: Debian's pgn-extract, where installed (CI installs it).
	if pe, err := exec.LookPath("pgn-extract"); err == nil || os.Getenv("CI") != "" {
		if err != nil {
			pe = "/usr/games/pgn-extract"
		}
		out, err := exec.Command(pe, "-r", filepath.Join(dir, "out.pgn")).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "8 games matched out of 8") {
			t.Errorf("pgn-extract -r: %v\n%s", err, out)
		}
	}
	// Every game is in the PGN (the match's order is by pair, as the PGN's).
	for _, pg := range games {
		if !seen[strings.Join(pg, " ")] {
			t.Errorf("a PGN game is not among the match's: %v", pg[:3])
		}
	}
}

// TestChessMatchBadInput: a book with an illegal FEN names its line, an option the engine
// does not declare or a value outside its bounds is refused before the first game, and no
// PGN is written for a refused match.
func TestChessMatchBadInput(t *testing.T) {
	dir := t.TempDir()
	book := writeFile(t, dir, "book.epd", chessBook)
	bad := writeFile(t, dir, "bad.epd", chessBook+"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0\n")
	check := writeFile(t, dir, "check.epd", chessBook+chessBook+"4k3/8/8/8/8/8/4R3/4K3 w - - 0 1\n")
	illegal := writeFile(t, dir, "bad.pgn", "[Event \"x\"]\n\n1. e4 e5 2. Ke3 Kf6 *\n")
	a := "cmd:" + bin + " engine --game chess"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--book", bad}, "bad.epd:5:"},
		{[]string{"--book", illegal}, "bad.pgn:1:"},
		{[]string{"--book", check}, "check.epd:9:"},
		{[]string{"--book", book, "--a-option", "Hash=16"}, "no such option"},
		{[]string{"--book", book, "--b-option", "queen=200000"}, "outside"},
		{[]string{"--book", book, "--b-option", "queen"}, "NAME=VALUE"},
		{[]string{"--book", book, "--tc", "40/"}, "--tc"},
		{[]string{"--book", book, "--resign", "movecount=3"}, "resign"},
		{[]string{"--book", book, "--draw", "movenumber=x,movecount=3,score=5"}, "draw"},
	} {
		args := append([]string{"match", "--game", "chess", "--a", a, "--b", a, "--nodes", "100", "--games", "2", "--pgn", "out.pgn"}, c.args...)
		_, stderr, code := runIn(t, dir, args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want an error with %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "out.pgn")); err == nil {
			t.Fatalf("%v: a refused match wrote out.pgn", c.args)
		}
	}
}

// TestChessTuneAndRecords tunes the built-in chess engine for a moment and reads its games
// back: export-games writes PGN the chess reader reads, and the dashboard's replay draws
// the pieces (its frames are the board's picture), each frame's FEN and the game's PGN.
func TestChessTuneAndRecords(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runIn(t, dir, "tune", "--game", "chess", "--method", "ga", "--pop", "4", "--generations", "1", "--games", "4",
		"--depth", "1", "--verify-games", "0", "--champions", "0", "--admit-games", "8", "--db", "c.db")
	if code != 0 {
		t.Fatalf("tune: exit %d: %s", code, stderr)
	}
	if _, stderr, code := runIn(t, dir, "export-games", "1", "--format", "pgn", "--out", "pgn", "--db", "c.db"); code != 0 {
		t.Fatalf("export-games: exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "pgn", "*.pgn"))
	if len(files) == 0 {
		t.Fatal("no PGN written")
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if _, err := (chess.Game{}).ReadBook(f, data, 0); err != nil || !strings.Contains(string(data), "{book}") {
			t.Fatalf("%s: %v (the opening's plies marked {book}?)\n%s", f, err, data)
		}
	}
	d, err := db.OpenReadOnly(context.Background(), filepath.Join(dir, "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	v, err := runview.Game(context.Background(), d, 1, 1)
	if err != nil || v.Error != nil {
		t.Fatalf("replay: %v %v", err, v.Error)
	}
	if !v.Squares || len(v.FENs) != len(v.Frames) || len(v.Frames) != len(v.Moves)+1 || v.PGN == nil || v.ColourNames != [2]string{"white", "black"} {
		t.Fatalf("replay: squares %v, %d FENs, %d frames, %d moves, PGN %v, colours %v", v.Squares, len(v.FENs), len(v.Frames), len(v.Moves), v.PGN != nil, v.ColourNames)
	}
	if got := strings.Join(v.Frames[0], "/"); got != "rnbqkbnr/pppppppp/......../......../......../......../PPPPPPPP/RNBQKBNR" {
		t.Errorf("start frame %s", got)
	}
	if !strings.HasPrefix(v.FENs[0], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w") {
		t.Errorf("start FEN %s", v.FENs[0])
	}
	// Each move is named in SAN, the name that reads back as the move played in its position.
	if len(v.Notation) != len(v.Moves) {
		t.Fatalf("replay: %d move names for %d moves", len(v.Notation), len(v.Moves))
	}
	for k, san := range v.Notation {
		p, err := chess.PositionFromFEN(v.FENs[k], nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := p.ParseSAN(san)
		if err != nil || m.String() != v.Moves[k] || san == v.Moves[k] {
			t.Fatalf("ply %d: %s is named %q, which reads as %v (%v)", k+1, v.Moves[k], san, m, err)
		}
	}
}

// TestMatchNames: --a-name and --b-name name the players in the report, the JSON and every
// PGN game's White and Black tags (each player once White and once Black); a name that
// would break a PGN tag is refused.
func TestMatchNames(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := runIn(t, dir, "match", "--game", "chess", "--a", "default", "--b", "default", "--depth", "1", "--games", "2",
		"--a-name", "Tuned 1.2", "--b-name", "Base", "--pgn", "n.pgn")
	if code != 0 || !strings.Contains(out, "A = Tuned 1.2, B = Base;") {
		t.Fatalf("match: exit %d\n%s\n%s", code, out, stderr)
	}
	pgn, err := os.ReadFile(filepath.Join(dir, "n.pgn"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{`[White "Tuned 1.2"]`, `[Black "Base"]`, `[White "Base"]`, `[Black "Tuned 1.2"]`} {
		if strings.Count(string(pgn), tag) != 1 {
			t.Errorf("the PGN has %q %d times, want once:\n%s", tag, strings.Count(string(pgn), tag), pgn)
		}
	}
	jout, _, code := runIn(t, dir, "match", "--game", "chess", "--depth", "1", "--games", "2", "--a-name", "X", "--json")
	if code != 0 || !strings.Contains(jout, `"a_name": "X"`) || !strings.Contains(jout, `"b_name": "default"`) {
		t.Fatalf("match --json names: exit %d\n%s", code, jout)
	}
	if _, stderr, code := runIn(t, dir, "match", "--game", "chess", "--depth", "1", "--games", "2", "--b-name", "two\nlines"); code == 0 || !strings.Contains(stderr, "--b-name") {
		t.Fatalf("a name with a line break: exit %d\n%s", code, stderr)
	}
}

// TestMatchLiveAndInterrupted: --report-every N prints the result so far every N games, and
// a match stopped by SIGINT keeps every game that ended in its PGN (written as each game
// ends), prints the result of the pairs that ended, and exits 130.
func TestMatchLiveAndInterrupted(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runIn(t, dir, "match", "--game", "chess", "--depth", "1", "--games", "8", "--report-every", "2")
	if code != 0 || !regexp.MustCompile(`(?m)^after 8 of 8 games: A W \d+ D \d+ L \d+, pentanomial \[\d+ \d+ \d+ \d+ \d+\], Elo `).MatchString(stderr) ||
		strings.Count(stderr, " of 8 games: A W ") < 3 {
		t.Fatalf("--report-every 2: exit %d\n%s", code, stderr)
	}
	pgn := filepath.Join(dir, "int.pgn")
	cmd, out := start(t, dir, "match", "--game", "chess", "--depth", "2", "--games", "400", "--workers", "1", "--pgn", "int.pgn")
	// Stopped once a few games are in the PGN (on a busy machine, after two minutes at
	// most: the count must then agree whatever it is).
	for i := 0; i < 2400; i++ {
		if data, _ := os.ReadFile(pgn); strings.Count(string(data), "[Event ") >= 3 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	text := out.String()
	m := regexp.MustCompile(`match interrupted after (\d+) games: the result of the (\d+) pairs whose two games ended:`).FindStringSubmatch(text)
	data, _ := os.ReadFile(pgn)
	if m == nil || cmd.ProcessState.ExitCode() != 130 {
		t.Fatalf("interrupted match: %v\n%s", err, text)
	}
	if n := strings.Count(string(data), "[Event "); strconv.Itoa(n) != m[1] || n < 1 {
		t.Fatalf("the PGN has %d games; the match said %s ended:\n%s", n, m[1], text)
	}
	if !strings.Contains(text, "all "+m[1]+" games that ended are in int.pgn") {
		t.Fatalf("the interrupted match does not say where its games are:\n%s", text)
	}
}

// TestMatchResume: a match stores each game in --db as it ends; stopped by SIGINT, it is
// marked stopped with its finished games, and the same command with --resume keeps its
// finished pairs, plays the rest and ends with the result of the uninterrupted match. A
// --resume with no stopped match of the command is refused.
func TestMatchResume(t *testing.T) {
	long(t, "a match stopped by SIGINT and resumed through the binary: about 10 s (tuner/match's TestSessionResumesWhereItStopped is the quick one)")
	dir := t.TempDir()
	args := []string{"match", "--game", "gomoku", "--depth", "3", "--games", "300", "--workers", "1", "--db", "m.db"}
	cmd, out := start(t, dir, args...)
	path := filepath.Join(dir, "m.db")
	for i := 0; i < 2400; i++ { // two minutes at most on a busy machine
		if _, err := os.Stat(path); err == nil {
			if n, _ := strconv.Atoi(sqliteQuiet(path, "SELECT count(*) FROM match_games")); n >= 20 {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if cmd.ProcessState.ExitCode() != 130 {
		t.Fatalf("the match was not stopped (exit %d): it ended before the signal?\n%s", cmd.ProcessState.ExitCode(), out.String())
	}
	if got := sqlite(t, path, "SELECT status FROM matches"); got != "stopped" {
		t.Fatalf("stopped match stored as %q", got)
	}
	stored, _ := strconv.Atoi(sqlite(t, path, "SELECT count(*) FROM match_games"))
	pairs := sqlite(t, path, "SELECT count(*) FROM (SELECT pair FROM match_games GROUP BY pair HAVING count(*) = 2)")
	resumed, stderr, code := run(t, dir, append(args, "--resume")...)
	if code != 0 || !strings.Contains(stderr, "resuming match 1: "+pairs+" of its 150 pairs were played; they are kept") {
		t.Fatalf("--resume: exit %d\n%s", code, stderr)
	}
	whole, _, code := run(t, dir, append(append([]string(nil), args[:len(args)-2]...), "--db", "whole.db")...)
	if code != 0 {
		t.Fatal(whole)
	}
	line := func(s string) string { return strings.Split(s, "\n")[1] } // "A: W … pentanomial …"
	if line(resumed) != line(whole) || stored < 1 {
		t.Fatalf("resumed after %d stored games: %q; uninterrupted: %q", stored, line(resumed), line(whole))
	}
	if got := sqlite(t, path, "SELECT status || ' ' || json_extract(result, '$.games') || ' ' || (SELECT count(*) FROM match_games) FROM matches"); got != "finished 300 300" {
		t.Fatalf("the resumed match stored: %s", got)
	}
	if _, stderr, code := run(t, dir, append(args, "--resume")...); code == 0 || !strings.Contains(stderr, "--resume: m.db holds no stopped match of this command") {
		t.Fatalf("--resume of a finished match: exit %d\n%s", code, stderr)
	}
}

// sqliteQuiet is sqlite's answer to query on path, or "" when it fails (a database being
// created).
func sqliteQuiet(path, query string) string {
	out, err := exec.Command("sqlite3", path, query).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// TestPolyglotBookMatch: a match from a Polyglot book (.bin) plays its lines, each as a
// colour-swapped pair: the book's keys are Polyglot's (the start position and the position
// after 1.e4), its moves 1.e4 and 1.d4, and after 1.e4 the replies e5 and c5.
func TestPolyglotBookMatch(t *testing.T) {
	dir := t.TempDir()
	entry := func(key uint64, from, to string) []byte {
		f := func(c byte) uint16 { return uint16(c - 'a') }
		r := func(c byte) uint16 { return uint16(c - '1') }
		var b [16]byte
		binary.BigEndian.PutUint64(b[:8], key)
		binary.BigEndian.PutUint16(b[8:10], f(to[0])|r(to[1])<<3|f(from[0])<<6|r(from[1])<<9)
		binary.BigEndian.PutUint16(b[10:12], 1)
		return b[:]
	}
	var book []byte
	for _, e := range [][]byte{entry(0x463b96181691fc9c, "e2", "e4"), entry(0x463b96181691fc9c, "d2", "d4"),
		entry(0x823c9b50fd114196, "e7", "e5"), entry(0x823c9b50fd114196, "c7", "c5")} {
		book = append(book, e...)
	}
	path := filepath.Join(dir, "book.bin")
	if err := os.WriteFile(path, book, 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runIn(t, dir, "match", "--game", "chess", "--a", "default", "--b", "default", "--depth", "1",
		"--book", path, "--book-plies", "2", "--games", "6", "--pgn", "out.pgn")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	pgn, err := os.ReadFile(filepath.Join(dir, "out.pgn"))
	if err != nil {
		t.Fatal(err)
	}
	games, err := (chess.Game{}).ReadBook("out.pgn", pgn, 2)
	if err != nil || len(games) != 6 {
		t.Fatalf("%d games read back (%v)", len(games), err)
	}
	seen := map[string]int{}
	for _, g := range games {
		if g[0] == "d2d4" {
			seen["d2d4"]++ // the book ends after 1.d4: the engines chose the reply
		} else {
			seen[strings.Join(g[:min(2, len(g))], " ")]++
		}
	}
	for _, line := range []string{"e2e4 e7e5", "e2e4 c7c5", "d2d4"} {
		if seen[line] != 2 {
			t.Errorf("the book line %s opened %d games, want a colour-swapped pair: %v", line, seen[line], seen)
		}
	}
}

// TestBookOrder: --book-order sequential plays the book's entries in its own order from
// --book-start on, each as a colour-swapped pair (fastchess's order=sequential start=N);
// the default shuffles them; bad values are refused naming the flag.
func TestBookOrder(t *testing.T) {
	dir := t.TempDir()
	book := writeFile(t, dir, "book.epd", chessBook)
	lines := strings.Split(strings.TrimSpace(chessBook), "\n")
	fens := func(pgn string) []string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, pgn))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range regexp.MustCompile(`\[FEN "([^"]*)"\]`).FindAllStringSubmatch(string(data), -1) {
			out = append(out, strings.Join(strings.Fields(m[1])[:4], " "))
		}
		return out
	}
	epd := func(i int) string { return strings.Join(strings.Fields(lines[i])[:4], " ") }
	if _, stderr, code := runIn(t, dir, "match", "--game", "chess", "--depth", "1", "--book", book, "--book-order", "sequential", "--book-start", "2",
		"--games", "6", "--pgn", "seq.pgn"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := []string{epd(1), epd(1), epd(2), epd(2), epd(3), epd(3)}
	if got := fens("seq.pgn"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("sequential from entry 2:\n%v\nwant\n%v", got, want)
	}
	if _, stderr, code := runIn(t, dir, "match", "--game", "chess", "--depth", "1", "--book", book, "--games", "8", "--seed", "3", "--pgn", "rnd.pgn"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := fens("rnd.pgn")
	in := []string{got[0], got[2], got[4], got[6]}
	sorted := append([]string(nil), in...)
	slices.Sort(sorted)
	all := []string{epd(0), epd(1), epd(2), epd(3)}
	slices.Sort(all)
	if !slices.Equal(sorted, all) || slices.Equal(in, []string{epd(0), epd(1), epd(2), epd(3)}) {
		t.Errorf("random order (seed 3): %v, want the four entries shuffled", in)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--book", book, "--book-order", "wild"}, `--book-order "wild": want random or sequential`},
		{[]string{"--book", book, "--book-start", "9"}, "--book-start 9: " + book + " has 4 entries"},
		{[]string{"--book-order", "sequential"}, "--book-order, --book-start: they order a --book"},
	} {
		_, stderr, code := runIn(t, dir, append([]string{"match", "--game", "chess", "--depth", "1", "--games", "2"}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %q:\n%s", c.args, code, c.want, stderr)
		}
	}
}
