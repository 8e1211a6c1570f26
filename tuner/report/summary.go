package report

import (
	"fmt"
	"time"

	"evotune/tuner/config"
)

// SavedText is the run's saved generations in its method's words: "12 generations",
// "1 SPSA step", "40 CMA-ES generations".
func (s Summary) SavedText() string {
	m, _ := config.MethodOf(s.Method)
	return Plural(s.Generations, m.Saved)
}

// SlotUtilisation is the share of the generations' game-slot time that games filled
// (SlotTime / SlotCapacity), or −1 when no generation measured it (a cluster played the
// games, or none was saved).
func (s Summary) SlotUtilisation() float64 {
	if s.SlotCapacity <= 0 {
		return -1
	}
	return s.SlotTime.Seconds() / s.SlotCapacity.Seconds()
}

// SlotText says how busy the run kept its game slots: "slot utilisation 97.3% of 2 game
// slots", or that it was not measured.
func (s Summary) SlotText() string {
	u := s.SlotUtilisation()
	if u < 0 {
		return "slot utilisation not measured (another runner played the games, its game slots unknown)"
	}
	if s.Slots == 0 {
		return fmt.Sprintf("slot utilisation %.1f%%", 100*u)
	}
	return fmt.Sprintf("slot utilisation %.1f%% of %s", 100*u, Plural(s.Slots, "game slot"))
}

// SlotHint says, when the run kept fewer than 90% of its game slots (two or more) busy
// and its method waited for each round's slowest game because it had no rounds in play
// (SPSA or CMA-ES at lag 0, or the GA, whose every generation is bred from the one before
// once all its games are played), which setting fills them (the method's
// config.Method.SlotHint); "" otherwise. Each such
// setting changes the search, so it stays the user's choice (docs/methods.md).
func (s Summary) SlotHint() string {
	u := s.SlotUtilisation()
	if u < 0 || u >= 0.9 || s.Slots < 2 || s.Lag != 0 {
		return ""
	}
	m, ok := config.MethodOf(s.Method)
	if s.Method == "" || !ok || m.SlotHint == nil {
		return ""
	}
	return m.SlotHint(s.Generations, s.Games, s.Slots)
}

// EarlyHintGames is how many games a game slot the run must have saved, over at least
// EarlyHintGenerations generations, before EarlySlotHint judges its slot utilisation: the
// first generation's wait for engines to start and openings to be drawn, spread over them,
// no longer decides it.
const (
	EarlyHintGames       = 20
	EarlyHintGenerations = 3
)

// EarlySlotHint is SlotHint for a run in progress: "" until it has saved EarlyHintGenerations
// generations and EarlyHintGames games a slot. Shown as the run plays, it lets the user stop
// and start again with the setting it names (a resumed run keeps its settings) before the
// night's slots have waited.
func (s Summary) EarlySlotHint() string {
	if s.Generations < EarlyHintGenerations || s.Games < EarlyHintGames*s.Slots {
		return ""
	}
	return s.SlotHint()
}

// RunText is the summary's first line: the run, its status, what it saved and played, and
// how busy it kept its game slots (SlotText).
func (s Summary) RunText() string {
	if s.Games == 0 && s.Generations == 0 {
		m, _ := config.MethodOf(s.Method)
		return fmt.Sprintf("run %d %s after %s: no %s finished, so nothing was saved", s.RunID, s.Status, s.Wall.Round(time.Millisecond), m.Saved)
	}
	records := ""
	if s.GameRecords != s.Games {
		records = fmt.Sprintf(" (%d rows in the games table: a game shared by identical genomes is recorded for each)", s.GameRecords)
	}
	return fmt.Sprintf("run %d %s: %s saved, %d games%s in %s (%.1f games/s), %s",
		s.RunID, s.Status, s.SavedText(), s.Games, records, s.Wall.Round(time.Millisecond), float64(s.Games)/s.Wall.Seconds(), s.SlotText())
}

// ChampionText says what the run's champion is and what it claims, in its method's terms
// (one or more lines without the final newline); "" without a champion.
func (s Summary) ChampionText() string {
	if s.Best == "" {
		return ""
	}
	if s.Summarise == nil { // a run of a later version's method
		return "champion " + s.Best
	}
	return s.Summarise(s)
}

// Plural is "1 thing" or "n things" (n ≥ 0; thing singular, its plural made by adding "s").
func Plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
