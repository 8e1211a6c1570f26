package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"evotune/engine"
)

// gameFileFormat tags evotune's JSON game records.
const gameFileFormat = "evotune.game/v1"

// savedGame is a game record file: what 'play --save FILE.json' writes and 'play --from'
// reads.
type savedGame struct {
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
	Created string   `json:"created"`
}

// saveGame writes a played game to path in the format its extension names: .psq
// (Piskvork, Gomoku only), .json (evotune's record), anything else the game's notation as
// text (comment lines, then every move on one line: an opening file, so --from and
// --openings read it back). The write is atomic (engine.WriteFileAtomic).
func saveGame(path string, g engine.Game, b engine.Board, rec engine.GameRecord, black, white, rule string) error {
	var data []byte
	switch strings.ToLower(filepath.Ext(path)) {
	case ".psq":
		psq, ok := g.(engine.PSQRecorder)
		if !ok {
			return fmt.Errorf("%s: .psq holds Gomoku games, not %s (use .json or .txt)", path, g.Name())
		}
		var err error
		if data, err = psq.FormatPSQ(b.Size(), rec.Moves, nil, black, white); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	case ".pgn":
		w, ok := g.(engine.PGNWriter)
		if !ok {
			return fmt.Errorf("%s: PGN holds chess games, not %s (use .json or .txt)", path, g.Name())
		}
		var err error
		if data, err = w.PGN(engine.PGNGame{Event: "evotune play", Site: "evotune", Date: time.Now().UTC().Format("2006.01.02"),
			Round: "1", White: black, Black: white, Result: rec.Outcome.String(), Moves: rec.Moves,
			StatsFrom: len(rec.Moves) - len(rec.Stats), Stats: rec.Stats, Termination: rec.Termination}); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	case ".json":
		var err error
		data, err = json.MarshalIndent(savedGame{Format: gameFileFormat, Game: g.Name(), Board: b.Size(), Rule: rule, Black: black, White: white,
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
	return engine.WriteFileAtomic(path, data)
}

// loadGame reads a saved game for 'play --from': a .psq (Gomoku), an evotune .json
// record, or a text file whose first line that is not a comment holds the moves (the
// opening-file format). It returns the moves and the board size (0 when the file does not
// say). Errors name the file.
func loadGame(path string, g engine.Game) ([]string, int, error) {
	data, err := engine.ReadInputFile(path, "--from", engine.MaxOpeningsFileSize)
	if err != nil {
		return nil, 0, err
	}
	switch {
	case strings.EqualFold(filepath.Ext(path), ".psq"):
		psq, ok := g.(engine.PSQRecorder)
		if !ok {
			return nil, 0, fmt.Errorf("--from %s: a .psq file holds a Gomoku game, not %s", path, g.Name())
		}
		size, moves, err := psq.ParsePSQ(data)
		if err != nil {
			return nil, 0, fmt.Errorf("--from %s: %w", path, err)
		}
		return moves, size, nil
	case strings.EqualFold(filepath.Ext(path), ".pgn"):
		br, ok := g.(engine.BookReader)
		if !ok {
			return nil, 0, fmt.Errorf("--from %s: a .pgn file holds a chess game, not %s", path, g.Name())
		}
		games, err := br.ReadBook(path, data, 0)
		if err != nil {
			return nil, 0, fmt.Errorf("--from %s: %w", path, err)
		}
		return games[0], 0, nil // the file's first game
	case bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")):
		var sg savedGame
		if err := engine.DecodeStrict(data, &sg); err != nil {
			return nil, 0, fmt.Errorf("--from %s: %w", path, err)
		}
		if sg.Format != gameFileFormat {
			return nil, 0, fmt.Errorf("--from %s: format %q is not %q", path, sg.Format, gameFileFormat)
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
