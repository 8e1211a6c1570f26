package match

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"evotune/engine"
	"evotune/genomes"
)

// TestPrepare: a good request resolves into the match Play plays; each bad one is
// refused with the flag and value named, before anything is played.
func TestPrepare(t *testing.T) {
	ctx := context.Background()
	e, err := genomes.Lookup("gomoku")
	if err != nil {
		t.Fatal(err)
	}
	ok := Request{Game: e.Game, A: "default", B: "default", Games: 20, Workers: 2, Seed: 4,
		Limits: engine.Limits{Depth: 2}, MoveTime: time.Second, Startup: time.Second, MaxMoves: 0}
	p, err := Prepare(ctx, ok)
	if err != nil {
		t.Fatal(err)
	}
	def := e.Game.DefaultLimits()
	if p.Config.Games != 20 || p.Config.Workers != 2 || len(p.Config.Openings) != 10 || p.Config.AExt != nil || p.Config.BExt != nil {
		t.Errorf("plan: %d games, %d workers, %d openings, outside engines %v %v", p.Config.Games, p.Config.Workers, len(p.Config.Openings), p.Config.AExt, p.Config.BExt)
	}
	if l := p.Config.Setup.Limits; l.Depth != 2 || l.Width != def.Width {
		t.Errorf("limits %+v: want depth 2 from the request, width %d from the game", l, def.Width)
	}
	if p.PGN != nil || p.Config.Setup.MoveStats || !strings.HasPrefix(p.OpeningsLabel, "random") {
		t.Errorf("gomoku without --pgn: PGN %v, move stats %v, openings %q", p.PGN, p.Config.Setup.MoveStats, p.OpeningsLabel)
	}
	again, err := Prepare(ctx, ok)
	if err != nil || fmt.Sprint(again.Config.Openings) != fmt.Sprint(p.Config.Openings) {
		t.Errorf("the same seed drew other openings (%v)", err)
	}
	w := filepath.Join(t.TempDir(), "w.json")
	data, err := engine.MarshalWeightsFile(e.Game.DefaultWeights(), &engine.Limits{Depth: 1, Width: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile := ok
	fromFile.A, fromFile.Limits = w, engine.Limits{}
	if p, err := Prepare(ctx, fromFile); err != nil || p.Config.Setup.Limits.Depth != 1 || p.Config.Setup.Limits.Width != 5 {
		t.Errorf("A's weights file's limits: %+v, %v; want depth 1 width 5", p.Config.Setup.Limits, err)
	}

	for _, c := range []struct {
		edit func(*Request)
		want string
	}{
		{func(r *Request) { r.Games = 7 }, "--games 7: want a positive even number"},
		{func(r *Request) { r.Workers = 0 }, "--workers 0"},
		{func(r *Request) { r.SPRT = "elo0=5,elo1=1" }, "--sprt"},
		{func(r *Request) { r.Startup = time.Millisecond }, "--startup-time 1ms"},
		{func(r *Request) { r.TimeControl = "ten" }, "--tc"},
		{func(r *Request) { r.Nodes = -1 }, "--nodes -1"},
		{func(r *Request) { r.Resign = "movecount=x" }, "--resign"},
		{func(r *Request) { r.MaxMoves = -3 }, "--max-moves -3"},
		{func(r *Request) { r.AOptions = []string{"Hash"} }, `--a-option "Hash": want NAME=VALUE`},
		{func(r *Request) { r.BOptions = []string{"Hash=16"} }, "--b-option: options are for outside engines"},
		{func(r *Request) { r.PGN = "g.pgn" }, "--pgn: gomoku games have no PGN records"},
		{func(r *Request) { r.BotzoneJSON = true }, "--botzone-json, --botzone-keep-running: gomoku external engines speak gomocup here, not Botzone (--engine-protocol botzone)"},
		{func(r *Request) { r.A = "missing.json" }, "--a: "},
		{func(r *Request) { r.B = "cmd:/no/such/engine" }, "--b: "},
		{func(r *Request) { r.Board = 3 }, "--board"},
		{func(r *Request) { r.Book = "b.epd"; r.Openings = "random" }, "--book and --openings"},
		{func(r *Request) { r.SwapRule = "swap9" }, "--opening-rule"},
		{func(r *Request) { r.SwapRule = "swap2"; r.Openings = "builtin" }, "--openings and --opening-rule"},
		{func(r *Request) { r.Openings = "no-such-file.txt" }, "--openings"},
	} {
		r := ok
		c.edit(&r)
		if _, err := Prepare(ctx, r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", r, err, c.want)
		}
	}
}

// TestRequestNames: a request's errors name its fields in the caller's words (Names): a
// tournament's pairing names its engines and their options as entrants, whatever field
// Prepare refuses; a word Names leaves out keeps the match command's flag.
func TestRequestNames(t *testing.T) {
	ctx := context.Background()
	e, err := genomes.Lookup("gomoku")
	if err != nil {
		t.Fatal(err)
	}
	tour := Tournament{Entrants: []Entrant{{Name: "paper", Player: "default"}, {Name: "mine", Player: "missing.json", Options: []string{"Hash=16"}}}, Rounds: 2,
		Base: Request{Game: e.Game, Workers: 1, Limits: engine.Limits{Depth: 1}, MoveTime: time.Second, Startup: time.Second}}
	p := tour.Pairings()[0]
	for _, c := range []struct {
		edit func(*Request)
		want string
	}{
		{func(r *Request) {}, "--engine mine: "},
		{func(r *Request) { r.B = "default" }, "--engine mine option: options are for outside engines"},
		{func(r *Request) { r.B, r.BOptions, r.Nodes = "default", nil, -1 }, "--nodes -1: want ≥ 0"},
		{func(r *Request) { r.B, r.BOptions, r.Resign = "default", nil, "movecount=x" }, "--resign"},
	} {
		r := tour.Request(p)
		c.edit(&r)
		if _, err := Prepare(ctx, r); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v, want an error beginning %q", err, c.want)
		}
	}
	r := Request{Game: e.Game, A: "default", B: "default", Games: 3, Workers: 1, Names: func(f string) string { return map[string]string{"games": "games="}[f] }}
	if _, err := Prepare(ctx, r); err == nil || !strings.HasPrefix(err.Error(), "games= 3: ") {
		t.Errorf("%v, want the caller's word for games", err)
	}
}
