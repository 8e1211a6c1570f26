package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/chess"
	"evotune/engine/gomoku"
)

// TestGameFiles: a game saved as .psq, .json, .pgn or notation text reads back as the
// same moves (and the board size where the format keeps it); a file of another game, or
// one with no moves, is refused naming the file.
func TestGameFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		g    engine.Game
		exts []string
	}{{gomoku.Game{}, []string{".psq", ".json", ".txt"}}, {chess.Game{}, []string{".pgn", ".json", ".txt"}}} {
		b, err := tc.g.NewBoard(0)
		if err != nil {
			t.Fatal(err)
		}
		p, err := tc.g.NewPlayer(tc.g.DefaultWeights(), engine.Limits{Depth: 1, Width: 4})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := engine.PlayGame(context.Background(), b, p, p, engine.RefereeOptions{MaxPlies: 12})
		if err != nil {
			t.Fatal(err)
		}
		for _, ext := range tc.exts {
			path := filepath.Join(dir, tc.g.Name()+ext)
			if err := engine.SaveGame(path, tc.g, b, rec, "a", "b", ""); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			moves, size, err := engine.LoadGame(path, tc.g)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if !slices.Equal(moves, rec.Moves) {
				t.Errorf("%s: read %v, saved %v", path, moves, rec.Moves)
			}
			if (ext == ".psq" || ext == ".json") && size != b.Size() {
				t.Errorf("%s: board %d, saved %d", path, size, b.Size())
			}
		}
	}
	if _, _, err := engine.LoadGame(filepath.Join(dir, "gomoku.json"), chess.Game{}); err == nil || !strings.Contains(err.Error(), "gomoku.json: the game is gomoku") {
		t.Errorf("a gomoku record read as chess: %v", err)
	}
	if err := engine.SaveGame(filepath.Join(dir, "x.psq"), chess.Game{}, nil, engine.GameRecord{}, "a", "b", ""); err == nil || !strings.Contains(err.Error(), "x.psq") {
		t.Errorf("a chess game as .psq: %v", err)
	}
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte("# nothing\n"), 0o644)
	if _, _, err := engine.LoadGame(empty, gomoku.Game{}); err == nil || !strings.Contains(err.Error(), "empty.txt: no moves") {
		t.Errorf("a file of no moves: %v", err)
	}
}

// TestRecordText: the moves two a line, the board when asked, and the result line in the
// game's colour names (chess: White moves first and 1-0 is "white wins").
func TestRecordText(t *testing.T) {
	b, err := chess.Game{}.NewBoard(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"f2f3", "e7e5", "g2g4", "d8h4"} {
		if err := b.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	rec := engine.GameRecord{Moves: []string{"f2f3", "e7e5", "g2g4", "d8h4"}, Outcome: engine.WhiteWins, Plies: 4, Termination: "checkmate"}
	got := engine.RecordText(chess.Game{}, b, rec, false)
	want := "  1. f2f3  e7e5\n  2. g2g4  d8h4\nresult 0-1 (checkmate): black wins after 4 plies, 0 nodes, 0.00s\n"
	if got != want {
		t.Errorf("RecordText:\n%q\nwant\n%q", got, want)
	}
	if with := engine.RecordText(chess.Game{}, b, rec, true); !strings.Contains(with, b.String()) {
		t.Errorf("show: the board is missing:\n%s", with)
	}
}
