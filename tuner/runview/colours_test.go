package runview

import (
	"testing"

	"evotune/db"
)

// TestRunColourNames: a run's colour names are its game's, first mover first — chess's
// first mover is white, the stone games' black — so the dashboard's games tables name the
// stored colours as the game does.
func TestRunColourNames(t *testing.T) {
	for game, want := range map[string][2]string{"chess": {"white", "black"}, "gomoku": {"black", "white"}, "amazons": {"black", "white"}, "no such game": {"black", "white"}} {
		if got := runItem(db.Run{Game: game}).ColourNames; got != want {
			t.Errorf("%s: colour names %v, want %v", game, got, want)
		}
	}
}
