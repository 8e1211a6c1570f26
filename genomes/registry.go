package genomes

import (
	"fmt"
	"sort"
	"strings"

	"evotune/engine"
	"evotune/engine/amazons"
	"evotune/engine/chess"
	"evotune/engine/connect6"
	"evotune/engine/gomoku"
)

// Entry is one registered game: its engine, its gene layout and the tuner's budget for it.
// What else a game offers (rule variants, protocols, record formats, openings, benchmarks)
// its engine.Game says by the interfaces it implements (engine.Ruled, gomocup.Game,
// engine.PSQRecorder, engine.OpeningBook, engine.ScanBencher, …), so no code outside a
// game's package, its layout and its line here names the game.
type Entry struct {
	Game   engine.Game
	Layout *Layout
	// BudgetGames is SPSA's budget of distinct tuning games when a run gives none
	// (config.DefaultBudgetGames): the budgets at which `evotune compare` measured the methods,
	// a few minutes on two cores.
	BudgetGames int
}

// registry maps a game's name to its engine and gene layout. It is the only place that
// names every game.
var registry = map[string]Entry{
	connect6.Name: {Game: connect6.Game{}, Layout: Connect6Layout(), BudgetGames: 20000},
	gomoku.Name:   {Game: gomoku.Game{}, Layout: GomokuLayout(), BudgetGames: 44000},
	amazons.Name:  {Game: amazons.Game{}, Layout: AmazonsLayout(), BudgetGames: 4000},
	chess.Name:    {Game: chess.Game{}, Layout: ChessLayout(), BudgetGames: 4000},
}

// Lookup returns the registered game called name; the error lists the known games.
func Lookup(name string) (Entry, error) {
	e, ok := registry[name]
	if !ok {
		return Entry{}, fmt.Errorf("unknown game %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return e, nil
}

// Names lists the registered games in alphabetical order.
func Names() []string {
	var names []string
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Offering lists, alphabetically, the registered games whose engine.Game implements the
// capability T (an interface such as engine.ScanBencher or engine.Ruled).
func Offering[T any]() []string {
	var names []string
	for _, n := range Names() {
		if _, ok := registry[n].Game.(T); ok {
			names = append(names, n)
		}
	}
	return names
}
