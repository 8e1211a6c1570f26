package protocol

import (
	"os"
	"strings"
	"testing"
)

// TestCheckProgramUsrGames: a program Debian installs into /usr/games, named alone while
// /usr/games is not on PATH, is refused with the way to name it.
func TestCheckProgramUsrGames(t *testing.T) {
	if _, err := os.Stat("/usr/games/stockfish"); err != nil {
		t.Skip("no /usr/games/stockfish (apt-get install stockfish; .ci/run installs it)")
	}
	t.Setenv("PATH", "/usr/bin:/bin")
	err := CheckProgram([]string{"stockfish", "bench"})
	if err == nil || !strings.Contains(err.Error(), "/usr/games/stockfish is there: write cmd:/usr/games/stockfish bench, or add /usr/games to PATH") {
		t.Fatalf("CheckProgram(stockfish) without /usr/games on PATH: %v", err)
	}
	if err := CheckProgram([]string{"/usr/games/stockfish"}); err != nil {
		t.Fatal(err)
	}
}
