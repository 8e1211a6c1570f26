// Package tuner runs a tuning run: an eaopt genetic algorithm (github.com/MaxHalford/eaopt
// v0.4.2) over a game's gene layout, with fitness from full alpha-beta self-play games
// played on a worker pool against a reference set frozen for each generation (the paper's
// weights and the latest hall-of-fame members), selection that resists noise (racing and a
// hall of fame with statistical admission, selection.go), every generation saved through
// a Store in one transaction.
//
// Files by concern: run.go (a run's life: start, resume, budget, finish), state.go (the
// run's state grouped by owner), loop.go (the run as the Host of package tuner/search's run
// loop, which drives a method on the ask-and-tell interface), schedule.go (which games a generation plays, its openings and how their results
// are counted, over package tuner/schedule), selection.go (racing, the GA model, the hall
// of fame's admission tests), method.go (the registry of search methods), ga.go and
// gaahead.go (the GA without a lag and its next generation played ahead; the GA with
// generations in play, the breeding both share and the hall of fame are package tuner/ga,
// and SPSA, CMA-ES and the steady-state GA packages tuner/spsa, tuner/cmaes and
// tuner/steady), spsacalibrate.go (SPSA's time budget made a game budget), save.go (what is
// saved, through record.Store), verify.go (the run's verifications and checkpoints),
// slots.go (the run's share of the game slots), side.go (the side a genome plays: a
// built-in engine's weights or an outside engine's values). Package config holds a run's
// configuration and settings; package arena plays the games (the worker pool, its slots,
// game tasks, openings and their draws made ahead); package report is the run's summary;
// package match plays matches and tournaments; package ladder verifies a champion rung by
// rung; package outside is an outside engine under tuning; package runstore is the SQLite
// side of Store and reads stored runs back.
//
// Reproducibility: all randomness derives from the run's seed and the generation number
// (openings, the initial population, selection, crossover, mutation), games are searched
// to fixed depths with fresh transposition tables, and results are gathered by task index,
// so the same seed and configuration give the same genomes, games and fitness whatever
// the number of workers.
package tuner
