// Package arena plays games for the tuner and for matches: the worker pool of this process
// (PlayBatch, PlayBatchEach, LocalWorker), the game slots shared by batches in play at once
// (Slots, with their BusyMeter), the interfaces a runner elsewhere implements (BatchRunner,
// BatchStarter, AheadStarter, SlotCounter, SlotMeter, RunNamer: package tuner/cluster),
// and openings (random ones from a game's generator split into a tuning and a held-out
// half by a hash of the opening, books and opening files).
//
// A game's record depends only on its GameSetup and GameTask: players start fresh (reset
// transposition tables) for every game and records are gathered by task index, so a batch
// gives the same records whatever the number of workers or slots.
package arena
