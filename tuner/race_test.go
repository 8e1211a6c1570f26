//go:build race

package tuner

// raceDetector is whether the tests run under the race detector, which slows the tuner's
// own work (guesses, planning) several times against replayed games that sleep.
const raceDetector = true
