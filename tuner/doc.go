// Package tuner runs a tuning run: it makes the run from its configuration (New, Setup),
// creates or resumes it in a Store, hands it to its search method and verifies the
// champion at the end. The default method is an eaopt genetic algorithm
// (github.com/MaxHalford/eaopt v0.4.2) over a game's gene layout, with fitness from full
// alpha-beta self-play games played on a worker pool, selection that resists noise
// (racing or pairings of peers, and a hall of fame with statistical admission) and every
// generation saved in one transaction: package tuner/ga's Generational. It and every other
// method (SPSA, CMA-ES, the steady-state GA, the GA with generations in play, or one
// registered from another package) asks and tells package tuner/search's run loop.
//
// The loop sees the run only as a search.Host (loop.go: runHost): its arena (the game
// setup, the sides genomes play, fresh tuning openings, the game slots), its budget and
// clock, its summary and events, its checkpoints and the storage of its generations.
//
// Files by concern: run.go (a run's life: start, resume, budget, finish, events), state.go
// (the run's state grouped by owner), loop.go (the run as a search.Host, and the methods on
// the run loop), ga.go (the generational GA as the run's method), method.go (the registry
// of search methods), schedule.go (the sides a round's games are played by, and the
// run's tuning openings), spsacalibrate.go (SPSA's time budget made a game budget),
// save.go (generations saved behind the next games, through record.Store), verify.go (the
// run's verifications and checkpoints), slots.go (the run's share of the game slots),
// side.go (the side a genome plays: a built-in engine's weights or an outside engine's
// values). Package config holds a run's configuration and settings; package arena plays
// the games (the worker pool, its slots, game tasks, openings and their draws made ahead);
// package schedule the games of a round; package report is the run's summary; package
// match plays matches and tournaments; package ladder verifies a champion rung by rung;
// package outside is an outside engine under tuning; package runstore is the SQLite side of
// Store and reads stored runs back.
//
// Reproducibility: all randomness derives from the run's seed and the generation number
// (openings, the initial population, selection, crossover, mutation), games are searched
// to fixed depths with fresh transposition tables, and results are gathered by task index,
// so the same seed and configuration give the same genomes, games and fitness whatever
// the number of workers.
package tuner
