// Package ga is the genetic algorithm's part that stands on its own: the GA with
// generations in play on the tuner's run loop (NewLagged, config.Config.GALag ≥ 1; its
// stored LaggedState) and the hall of fame every GA keeps — the admission test's paired
// decision (Judge), the simultaneous bounds of its members (FamilyZ, BestMember), the
// champion they make (Champion, HallChampion). The GA without a lag, eaopt's generations
// driven from the tuner root (ga.go), uses the same hall of fame; it is the next to move
// here, onto the loop.
package ga
