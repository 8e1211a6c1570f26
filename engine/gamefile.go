package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// GameFileFormat tags evotune's JSON game records.
const GameFileFormat = "evotune.game/v1"

// SavedGame is a game record file: what 'play --save FILE.json' writes and 'play --from'
// reads.
type SavedGame struct {
	Format  string   `json:"format"`
	Game    string   `json:"game"`
	Board   int      `json:"board"`
	Rule    string   `json:"rule,omitempty"`
	Black   string   `json:"black"`
	White   string   `json:"white"`
	Moves   []string `json:"moves"`
	Result  string   `json:"result"`
	Plies   int      `json:"plies"`
	Forfeit string   `json:"forfeit,omitempty"`
	// ForfeitBy names the player that forfeited and ForfeitValues its parameters (JSON:
	// gene name to value), when a tuning game was lost by forfeit.
	ForfeitBy     string          `json:"forfeit_by,omitempty"`
	ForfeitValues json.RawMessage `json:"forfeit_values,omitempty"`
	Created       string          `json:"created"`
}

// SaveGame writes game record rec of g, played on board b, to path in the format its
// extension names: .psq (Piskvork, Gomoku only), .pgn (chess only), .json (evotune's
// record, SavedGame), anything else the game's notation as text (comment lines, then every
// move on one line: an opening file, so play --from and --openings read it back). black
// and white name the players (the first and second mover), rule the rule variant. The
// write is atomic (WriteFileAtomic); errors name the file.
func SaveGame(path string, g Game, b Board, rec GameRecord, black, white, rule string) error {
	var data []byte
	switch strings.ToLower(filepath.Ext(path)) {
	case ".psq":
		psq, ok := g.(PSQRecorder)
		if !ok {
			return fmt.Errorf("%s: .psq holds Gomoku games, not %s (use .json or .txt)", path, g.Name())
		}
		var err error
		if data, err = psq.FormatPSQ(b.Size(), rec.Moves, nil, black, white); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	case ".pgn":
		w, ok := g.(PGNWriter)
		if !ok {
			return fmt.Errorf("%s: PGN holds chess games, not %s (use .json or .txt)", path, g.Name())
		}
		var err error
		if data, err = w.PGN(PGNGame{Event: "evotune play", Site: "evotune", Date: time.Now().UTC().Format("2006.01.02"),
			Round: "1", White: black, Black: white, Result: rec.Outcome.String(), Moves: rec.Moves,
			StatsFrom: len(rec.Moves) - len(rec.Stats), Stats: rec.Stats, Termination: rec.Termination}); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	case ".json":
		var err error
		data, err = json.MarshalIndent(SavedGame{Format: GameFileFormat, Game: g.Name(), Board: b.Size(), Rule: rule, Black: black, White: white,
			Moves: rec.Moves, Result: rec.Outcome.String(), Plies: rec.Plies, Forfeit: rec.Forfeit, Created: time.Now().UTC().Format(time.RFC3339)}, "", "  ")
		if err != nil {
			return err
		}
		data = append(data, '\n')
	default:
		var sb strings.Builder
		fmt.Fprintf(&sb, "# evotune %s game, board %d, black %s, white %s, result %s\n", g.Name(), b.Size(), black, white, rec.Outcome)
		sb.WriteString(strings.Join(rec.Moves, " ") + "\n")
		data = []byte(sb.String())
	}
	return WriteFileAtomic(path, data)
}

// LoadGame reads a saved game of g for 'play --from': a .psq (Gomoku), an evotune .json
// record, or a text file whose first line that is not a comment holds the moves (the
// opening-file format). It returns the moves and the board size (0 when the file does not
// say). Errors name the file.
func LoadGame(path string, g Game) ([]string, int, error) {
	data, err := ReadInputFile(path, "--from", MaxOpeningsFileSize)
	if err != nil {
		return nil, 0, err
	}
	switch {
	case strings.EqualFold(filepath.Ext(path), ".psq"):
		psq, ok := g.(PSQRecorder)
		if !ok {
			return nil, 0, fmt.Errorf("--from %s: a .psq file holds a Gomoku game, not %s", path, g.Name())
		}
		size, moves, err := psq.ParsePSQ(data)
		if err != nil {
			return nil, 0, fmt.Errorf("--from %s: %w", path, err)
		}
		return moves, size, nil
	case strings.EqualFold(filepath.Ext(path), ".pgn"):
		br, ok := g.(BookReader)
		if !ok {
			return nil, 0, fmt.Errorf("--from %s: a .pgn file holds a chess game, not %s", path, g.Name())
		}
		games, err := br.ReadBook(path, data, 0)
		if err != nil {
			return nil, 0, fmt.Errorf("--from %s: %w", path, err)
		}
		return games[0], 0, nil // the file's first game
	case bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")):
		var sg SavedGame
		if err := DecodeStrict(data, &sg); err != nil {
			return nil, 0, fmt.Errorf("--from %s: %w", path, err)
		}
		if sg.Format != GameFileFormat {
			return nil, 0, fmt.Errorf("--from %s: format %q is not %q", path, sg.Format, GameFileFormat)
		}
		if sg.Game != g.Name() {
			return nil, 0, fmt.Errorf("--from %s: the game is %s, not %s", path, sg.Game, g.Name())
		}
		return sg.Moves, sg.Board, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		moves := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\r' })
		if len(moves) > 0 {
			return moves, 0, nil
		}
	}
	return nil, 0, fmt.Errorf("--from %s: no moves", path)
}

// RecordText is game record rec of g as play prints it: the moves two a line (numbered by
// move pair), the final board b when show, and the result line with its termination,
// winner, plies, nodes and time.
func RecordText(g Game, b Board, rec GameRecord, show bool) string {
	var out strings.Builder
	for i, m := range rec.Moves {
		if i%2 == 0 {
			fmt.Fprintf(&out, "%3d. %s", i/2+1, m)
		} else {
			fmt.Fprintf(&out, "  %s\n", m)
		}
	}
	if len(rec.Moves)%2 == 1 {
		out.WriteString("\n")
	}
	if show {
		out.WriteString(b.String())
	}
	note := ""
	if rec.PlyLimit {
		note = " (ply limit)"
	}
	if rec.Termination != "" && !rec.PlyLimit {
		note = " (" + rec.Termination + ")"
	}
	fmt.Fprintf(&out, "result %s%s: %s after %d plies, %d nodes, %.2fs\n", rec.Outcome, note, WinnerText(g, rec.Outcome), rec.Plies, rec.Nodes, rec.Duration.Seconds())
	return out.String()
}

// WinnerText says who won in g's colour names ("black wins", chess's "white wins" for 1-0).
func WinnerText(g Game, o Outcome) string {
	switch o {
	case BlackWins:
		return ColourName(g, Black) + " wins"
	case WhiteWins:
		return ColourName(g, White) + " wins"
	}
	return "draw"
}
