package engine_test

import (
	"context"
	"fmt"

	"evotune/engine"
	"evotune/engine/connect6"
	"evotune/engine/gomoku"
)

// The engine contract: a Game makes boards and players; a player answers a position with a
// move in the game's notation; the board plays it under the rules; the referee plays a
// whole game between two players from an opening.
func Example() {
	g := gomoku.Game{}
	b, _ := g.NewBoard(0) // 15×15
	p, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 2})
	m, st, _ := p.Move(context.Background(), b)
	fmt.Println("first move:", m, "depth", st.Depth, "legal:", b.Play(m) == nil, "ply", b.Ply())

	black, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 2})
	white, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 2})
	fresh, _ := g.NewBoard(0)
	rec, _ := engine.PlayGame(context.Background(), fresh, black, white, engine.RefereeOptions{Opening: []string{"h8", "i9", "j8"}, MaxPlies: 200})
	fmt.Println("game over:", rec.Outcome != engine.Ongoing, "plies ≥ 9:", rec.Plies >= 9, "opening kept:", rec.Moves[2] == "j8")
	// Output:
	// first move: h8 depth 2 legal: true ply 1
	// game over: true plies ≥ 9: true opening kept: true
}

// A weights file round trip: weights written with MarshalWeightsFile (the format every
// command reads and `export` writes) read back by ParseWeightsFile are the same weights.
func ExampleMarshalWeightsFile() {
	g := connect6.Game{}
	w := connect6.DefaultWeights()
	w.Value[4] = 250 // a tuned road value f(5)
	data, _ := engine.MarshalWeightsFile(w, &engine.Limits{Depth: 3, Width: 10}, &engine.Provenance{Run: 7, Individual: "7-g12-03"})
	back, file, err := engine.ParseWeightsFile(data, g)
	fmt.Println(err, back.(*connect6.Weights).Value, file.Search.Depth, file.Provenance.Individual)
	// Output: <nil> [1 20 40 200 250 1e+06] 3 7-g12-03
}
