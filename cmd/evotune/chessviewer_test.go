package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"evotune/cmd/evotune/internal/browsertest"
	"evotune/db"
	"evotune/tuner/runview"
)

// TestChessGameViewer: the dashboard's viewer of a chess game that starts from a book's
// set-up position counts its plies without the set-up (the label ends at the stored
// plies, as the players line says), and lists the moves in SAN with move numbers read
// from the positions' FENs: White's "N. SAN", Black's SAN alone, the set-up named so.
func TestChessGameViewer(t *testing.T) {
	long(t, "a chess tune, then Chromium")
	ctx := browsertest.Context(t, 2*time.Minute)
	dir := t.TempDir()
	book, err := filepath.Abs("../../engine/chess/testdata/two-ply.epd") // 400 positions
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runIn(t, dir, "tune", "--game", "chess", "--method", "ga", "--pop", "4", "--generations", "1", "--games", "4",
		"--depth", "1", "--verify-games", "0", "--admit-games", "8", "--book", book, "--db", "c.db"); code != 0 {
		t.Fatalf("tune: %s", stderr)
	}
	path := filepath.Join(dir, "c.db")
	d, err := db.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := runview.Game(context.Background(), d, 1, 1)
	d.Close()
	if err != nil || len(v.Moves) < 3 || !strings.HasPrefix(v.Moves[0], "fen:") || v.Notation[0] != "" {
		t.Fatalf("game 1: %v, moves %v, names %v", err, v.Moves, v.Notation)
	}
	port := freePort(t)
	_, out := start(t, dir, "serve", "--db", path, "--addr", "127.0.0.1:"+strconv.Itoa(port))
	waitFor(t, out, "dashboard of")
	var label, players string
	var spans []string
	if err := chromedp.Run(ctx, chromedp.Navigate(fmt.Sprintf("http://127.0.0.1:%d/#/run/1/game/1", port)),
		chromedp.WaitVisible("#board", chromedp.ByQuery),
		chromedp.Text("#step", &label, chromedp.ByQuery),
		chromedp.Text("#players", &players, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('#moves span')].map(s => s.textContent)`, &spans)); err != nil {
		t.Fatal(err)
	}
	plies := len(v.Moves) - 1
	if label != fmt.Sprintf("ply %d / %d", plies, plies) || !strings.Contains(players, fmt.Sprintf("%d plies from a set-up position", v.Game.Plies)) || v.Game.Plies != plies {
		t.Fatalf("label %q, players %q, %d stored plies, %d moves after the set-up", label, players, v.Game.Plies, plies)
	}
	if len(spans) != len(v.Moves) || spans[0] != "set-up position" {
		t.Fatalf("moves listed %v", spans)
	}
	numbered := regexp.MustCompile(`^(\d+)(\.|…) (\S+)$`)
	for k := 1; k < len(spans); k++ {
		fen := strings.Fields(v.FENs[k])
		want := v.Notation[k]
		switch {
		case fen[1] == "w":
			want = fen[5] + ". " + want
		case k == 1:
			want = fen[5] + "… " + want
		}
		if spans[k] != want || (fen[1] == "w" || k == 1) && !numbered.MatchString(spans[k]) {
			t.Fatalf("ply %d (%s): listed %q, want %q", k, v.Moves[k], spans[k], want)
		}
	}
}
