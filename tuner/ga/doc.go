// Package ga is the genetic algorithm, both its forms: the generational GA, the default
// (Generational, config.Config.GALag 0: eaopt's generations in a loop of its own over the
// run as a search.Host; its racing or pairings of peers in games.go, its selection,
// admission tests and champion in selection.go, its next generation played ahead in
// ahead.go), and the GA with generations in play on the run loop (NewLagged, GALag ≥ 1;
// its stored LaggedState). Both breed alike (Breed) and keep the same hall of fame: the
// admission test's paired decision (Judge), the simultaneous bounds of its members
// (FamilyZ, BestMember), the champion they make (Champion, HallChampion). The
// generational GA is the next to move onto the run loop, as the GA with its lag a
// parameter.
package ga
