package chess

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"

	lib "github.com/corentings/chess/v2"

	"evotune/engine"
)

// ParseOpeningLine reads one line of an EPD book (the UHO and 8-move books' format: a FEN's
// first four fields, then optional operations such as "bm e4; id …;", or a whole FEN): the
// opening is the position's setup move (SetupMove). ok is false for a line that is not a
// FEN (a line of moves). The error names what is wrong with the FEN.
func (Game) ParseOpeningLine(line string, _ int) ([]string, bool, error) {
	f := strings.Fields(line)
	if len(f) == 0 || !strings.Contains(f[0], "/") {
		return nil, false, nil
	}
	if len(f) < 4 {
		return nil, true, fmt.Errorf("EPD %q: want at least 4 fields (board, side, castling, en passant)", line)
	}
	fen := f[:4]
	switch {
	case len(f) >= 6 && isNumber(f[4]) && isNumber(f[5]):
		fen = f[:6]
		if len(f) > 6 && !strings.HasSuffix(line, ";") {
			return nil, true, fmt.Errorf("EPD %q: text after the FEN that is not an operation ending in ';'", line)
		}
	case len(f) > 4 && !strings.HasSuffix(line, ";"):
		return nil, true, fmt.Errorf("EPD %q: want a FEN's 6 fields, or 4 and operations ending in ';'", line)
	}
	p, err := PositionFromFEN(strings.Join(fen, " "), nil)
	if err != nil {
		return nil, true, err
	}
	if over, _, why := p.Status(); over {
		return nil, true, fmt.Errorf("EPD %q: the game is already over (%s)", line, why)
	}
	return []string{SetupMove(p.FEN())}, true, nil
}

func isNumber(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// ReadBook reads an opening book: a Polyglot book (name ending in .bin) gives every line
// of its moves from the start position, plies plies long (readPolyglot); PGN (name ending
// in .pgn, or text starting with a tag pair) gives the first plies plies of each game (its
// FEN tag as the setup move; plies 0 = every move); anything else is read line by line as
// EPD. Errors name the file and line.
func (g Game) ReadBook(name string, data []byte, plies int) ([][]string, error) {
	if strings.HasSuffix(strings.ToLower(name), ".bin") {
		return readPolyglot(name, data, plies)
	}
	if !strings.HasSuffix(strings.ToLower(name), ".pgn") && !bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
		var out [][]string
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			o, ok, err := g.ParseOpeningLine(line, 8)
			if err == nil && !ok {
				err = fmt.Errorf("%q is not an EPD line", line)
			}
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			out = append(out, o)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: no positions", name)
		}
		return out, sc.Err()
	}
	games, err := splitPGN(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var out [][]string
	for _, pg := range games {
		moves, err := pgnMoves(pg.text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, pg.line, err)
		}
		if plies > 0 {
			skip := 0
			if len(moves) > 0 && strings.HasPrefix(moves[0], SetupPrefix) {
				skip = 1
			}
			moves = moves[:min(len(moves), plies+skip)]
		}
		if len(moves) > 0 {
			out = append(out, moves)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no games", name)
	}
	return out, nil
}

type pgnText struct {
	text string
	line int // the game's first line in the file
}

// splitPGN cuts a PGN file into its games: a game starts at a tag pair that follows
// movetext (or the file's start).
func splitPGN(data []byte) ([]pgnText, error) {
	var out []pgnText
	var cur strings.Builder
	start, inMoves := 0, false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		tag := strings.HasPrefix(l, "[")
		if tag && (inMoves || cur.Len() == 0) {
			if cur.Len() > 0 {
				out = append(out, pgnText{cur.String(), start})
				cur.Reset()
			}
			start, inMoves = n, false
		}
		if l != "" && !tag {
			inMoves = true
		}
		cur.WriteString(sc.Text() + "\n")
	}
	if strings.TrimSpace(cur.String()) != "" {
		out = append(out, pgnText{cur.String(), start})
	}
	return out, sc.Err()
}

// pgnMoves reads one PGN game with the library's reader: its moves in UCI notation, after
// the setup move of its FEN tag if it has one. The error names the move the reader refused.
func pgnMoves(text string) ([]string, error) {
	for _, m := range fenTag.FindAllStringSubmatch(text, -1) {
		if err := checkFENBytes(m[1]); err != nil {
			return nil, fmt.Errorf("PGN FEN tag: %w", err)
		}
	}
	game, err := libPGN(text)
	if err != nil {
		return nil, fmt.Errorf("PGN: %v", err)
	}
	var out []string
	b, _ := Game{}.NewBoard(0)
	if fen := game.GetTagPair("FEN"); fen != "" {
		setup := SetupMove(fen)
		if err := b.Play(setup); err != nil {
			return nil, fmt.Errorf("PGN FEN tag: %w", err)
		}
		out = append(out, setup)
	}
	for i, m := range game.Moves() {
		u := packMove(m).String()
		if err := b.Play(u); err != nil {
			return nil, fmt.Errorf("PGN move %d (%s): %w", i+1, u, err)
		}
		out = append(out, u)
	}
	return out, nil
}

// fenTag matches a PGN game's FEN tag pair and its value.
var fenTag = regexp.MustCompile(`(?m)^\s*\[\s*FEN\s+"([^"]*)"`)

// libPGN reads one game with the rules library's PGN reader, which decodes a FEN tag with
// its FEN decoder (libFEN). A panic inside the library on input it does not expect is
// returned as an error: a book is data from elsewhere.
func libPGN(text string) (game *lib.Game, err error) {
	libFEN.Lock()
	defer libFEN.Unlock()
	defer func() {
		if r := recover(); r != nil {
			game, err = nil, fmt.Errorf("the chess library failed on this game: %v", r)
		}
	}()
	opt, err := lib.PGN(strings.NewReader(text))
	if err != nil {
		return nil, err
	}
	return lib.NewGame(opt), nil
}

// PGN writes a game as PGN (the Seven Tag Roster, FEN and SetUp for a set-up start,
// TimeControl, Termination, PlyCount) with the moves in SAN and, where known, cutechess's
// per-move comment {+0.35/12 0.101s} (score in pawns from the mover's side, "+M3"/"-M2" for
// mates, depth, thinking time). The error names a move that is not legal.
func (Game) PGN(r engine.PGNGame) ([]byte, error) {
	b, _ := Game{}.NewBoard(0)
	cb := b.(*Board)
	moves, first := r.Moves, r.StatsFrom // first: the first move with statistics (after the opening)
	if len(moves) > 0 && strings.HasPrefix(moves[0], SetupPrefix) {
		if err := cb.Play(moves[0]); err != nil {
			return nil, err
		}
		moves, first = moves[1:], first-1
	}
	var sb strings.Builder
	tag := func(k, v string) {
		// PGN escapes '"' as \" inside a tag, but the library's reader stops at any quote:
		// quotes become apostrophes and backslashes slashes, so every reader sees the tag.
		v = strings.NewReplacer(`\`, `/`, `"`, `'`, "\n", " ", "\r", " ").Replace(v)
		fmt.Fprintf(&sb, "[%s \"%s\"]\n", k, v)
	}
	orQ := func(s string) string {
		if s == "" {
			return "?"
		}
		return s
	}
	tag("Event", orQ(r.Event))
	tag("Site", orQ(r.Site))
	tag("Date", orQ(r.Date))
	tag("Round", orQ(r.Round))
	tag("White", orQ(r.White))
	tag("Black", orQ(r.Black))
	tag("Result", r.Result)
	if cb.start != "" {
		tag("FEN", cb.start)
		tag("SetUp", "1")
	}
	if r.TimeControl != "" {
		tag("TimeControl", r.TimeControl)
	}
	tag("PlyCount", fmt.Sprint(len(moves)))
	term := r.Termination
	if term == "" { // a stored game: the final position says whether the rules ended it
		end := cb.Clone().(*Board)
		for _, u := range moves {
			if end.Play(u) != nil {
				break
			}
		}
		switch {
		case end.Outcome() != engine.Ongoing:
			term = end.Termination()
		case r.Comment != "":
			term = engine.TermForfeit
		case r.Result != "*" && r.Result != "":
			term = engine.TermPlyLimit
		}
	}
	tag("Termination", pgnTermination(term))
	sb.WriteString("\n")
	var line strings.Builder
	flush := func(tok string) {
		if line.Len()+len(tok)+1 > 79 {
			sb.WriteString(strings.TrimRight(line.String(), " ") + "\n")
			line.Reset()
		}
		line.WriteString(tok + " ")
	}
	pos := cb.Pos
	for i, u := range moves {
		m, err := pos.ParseMove(u)
		if err == nil {
			err = pos.Legal(m)
		}
		if err != nil {
			return nil, fmt.Errorf("PGN of %s vs %s, move %d: %w", r.White, r.Black, i+1, err)
		}
		white := pos.pos.Turn() == lib.White
		num := fullMove(pos)
		if white {
			flush(fmt.Sprintf("%d.", num))
		} else if i == 0 {
			flush(fmt.Sprintf("%d...", num))
		}
		flush(pos.SAN(m))
		pos.Make(m)
		if k := i - first; k >= 0 && k < len(r.Stats) {
			flush("{" + moveComment(r.Stats[k]) + "}")
		} else if i < first {
			flush("{book}")
		}
	}
	if r.Comment != "" {
		flush("{" + strings.NewReplacer("{", "(", "}", ")").Replace(r.Comment) + "}")
	}
	flush(r.Result)
	sb.WriteString(strings.TrimRight(line.String(), " ") + "\n\n")
	return []byte(sb.String()), nil
}

func fullMove(p *Position) int {
	f := strings.Fields(p.FEN())
	n := 1
	fmt.Sscan(f[len(f)-1], &n)
	return n
}

// moveComment is cutechess's comment of a move: "+0.35/12 0.101s", "-M3/20 1.2s", or the
// time alone when the engine reported no score.
func moveComment(s engine.MoveStat) string {
	t := fmt.Sprintf("%.3fs", s.Time.Seconds())
	if s.NoScore {
		return t
	}
	var sc string
	switch {
	case s.Score > engine.WinThreshold:
		sc = fmt.Sprintf("+M%d", (engine.Win-s.Score+1)/2)
	case s.Score < -engine.WinThreshold:
		sc = fmt.Sprintf("-M%d", (engine.Win+s.Score)/2)
	default:
		sc = fmt.Sprintf("%+.2f", float64(s.Score)/100)
	}
	return fmt.Sprintf("%s/%d %s", sc, s.Depth, t)
}

// pgnTermination maps a record's termination to PGN's Termination tag values.
func pgnTermination(t string) string {
	switch {
	case t == engine.TermTimeLoss:
		return "time forfeit"
	case strings.HasPrefix(t, "adjudication"):
		return "adjudication"
	case t == engine.TermIllegalMove, t == engine.TermForfeit:
		return "rules infraction"
	case t == engine.TermPlyLimit:
		return "adjudication"
	case t == "":
		return "unterminated"
	}
	return "normal"
}
