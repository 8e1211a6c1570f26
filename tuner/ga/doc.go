// Package ga is the genetic algorithm, both its forms, each a method on the run loop
// (search.Method): the generational GA, the default (Generational, config.Config.GALag 0:
// eaopt's population and model; its pairings of peers or racing, its admission tests, its
// champion and its next generation guessed and played ahead in generational.go, the hall
// of fame's rules in selection.go), and the GA with generations in play (NewLagged,
// GALag ≥ 1; its stored LaggedState). Both breed alike (Breed) and keep the same hall of
// fame: the admission test's paired decision (Judge), the simultaneous bounds of its
// members (FamilyZ, BestMember), the champion they make (Champion, HallChampion).
package ga
