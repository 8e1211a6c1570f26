package genomes

import (
	"fmt"
	"sort"
	"strings"

	"evotune/engine"
	"evotune/engine/amazons"
	"evotune/engine/connect6"
	"evotune/engine/gomoku"
)

// Entry is one registered game: its engine and its gene layout.
type Entry struct {
	Game   engine.Game
	Layout *Layout
}

// registry maps a game's name to its engine and gene layout. It is the only place that
// names every game (DESIGN.md "Packages").
var registry = map[string]Entry{
	connect6.Name: {Game: connect6.Game{}, Layout: Connect6Layout()},
	gomoku.Name:   {Game: gomoku.Game{}, Layout: GomokuLayout()},
	amazons.Name:  {Game: amazons.Game{}, Layout: AmazonsLayout()},
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
