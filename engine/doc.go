// Package engine is the contract every game of evotune meets, and the pieces shared by all
// of them: colours and outcomes, a type-erased Board and Player, search limits and
// statistics, the weights-file envelope ("evotune.weights/v1") with strict validation, and
// a referee that plays one full game between two players.
//
// Game packages (engine/connect6, engine/gomoku, engine/amazons) implement Game; they
// keep a fast typed position for the searcher (engine/search) and wrap it in a Board whose
// moves travel as strings in each game's usual notation, so that the referee, the tuner
// and the command line never need to know the move type of a game.
//
// Usage:
//
//	g := connect6.Game{}
//	b, _ := g.NewBoard(0)
//	p1, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 2, Width: 8})
//	p2, _ := g.NewPlayer(g.DefaultWeights(), engine.Limits{Depth: 2, Width: 8})
//	rec, err := engine.PlayGame(ctx, b, p1, p2, engine.RefereeOptions{MaxPlies: 400})
package engine
