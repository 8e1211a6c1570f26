package match

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"evotune/engine"
	"evotune/engine/gomoku"
)

// TestPlayOne: a game from an opening starts with its moves; a saved game continues from
// its moves on its board; errors name the flag (--black, --from, --board, --depth).
func TestPlayOne(t *testing.T) {
	ctx := context.Background()
	req := PlayRequest{Game: gomoku.Game{}, Black: "default", White: "default", Limits: engine.Limits{Depth: 1, Width: 4}, Opening: "h8, i9", MaxPlies: 20}
	b, rec, err := PlayOne(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Moves) < 3 || rec.Moves[0] != "h8" || rec.Moves[1] != "i9" || b.Size() != 15 {
		t.Fatalf("moves %v on %d×%d", rec.Moves, b.Size(), b.Size())
	}
	dir := t.TempDir()
	saved := filepath.Join(dir, "g.psq")
	small := req
	small.Board, small.Opening = 9, "e5,e6"
	sb, srec, err := PlayOne(ctx, small)
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.SaveGame(saved, req.Game, sb, srec, "a", "b", ""); err != nil {
		t.Fatal(err)
	}
	from := req
	from.Opening, from.From, from.MaxPlies = "", saved, 200
	fb, frec, err := PlayOne(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	if fb.Size() != 9 || !slices.Equal(frec.Moves[:len(srec.Moves)], srec.Moves) {
		t.Errorf("--from: board %d, moves %v, want 9 and to start with %v", fb.Size(), frec.Moves, srec.Moves)
	}
	notJSON := filepath.Join(dir, "w.json")
	os.WriteFile(notJSON, []byte("not json"), 0o644)
	for _, bad := range []struct {
		edit func(*PlayRequest)
		want string
	}{
		{func(r *PlayRequest) { r.Black = notJSON }, "--black"},
		{func(r *PlayRequest) { r.Opening, r.From, r.Board = "", saved, 15 }, "--from " + saved + ": the game is on a 9 board, --board says 15"},
		{func(r *PlayRequest) { r.Board = 1 }, "--board"},
		{func(r *PlayRequest) { r.Limits.Depth = -1 }, "--depth"},
		{func(r *PlayRequest) { r.Opening = "h8,h8" }, "h8"},
	} {
		r := req
		bad.edit(&r)
		if _, _, err := PlayOne(ctx, r); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("want an error naming %q, got %v", bad.want, err)
		}
	}
}
