// Package progress shows a run, a match or a verification as it plays: a progress bar on
// a terminal, log lines elsewhere (a file, a pipe, a CI log).
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"evotune/tuner/config"
	"evotune/tuner/record"
	"evotune/tuner/stats"
)

// Progress renders a run's events (record.Event) for a person: a progress bar when its writer is a
// terminal, plain log lines (at most one every 5 s, plus one per saved generation or
// step) when it is not. It is safe for concurrent use; Update is the tuner's callback.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	bar   *progressbar.ProgressBar
	batch string // the batch the bar counts (tty)
	// rateBatch is the batch whose games/s is measured since batchStart (verification).
	rateBatch  string
	batchStart time.Time
	// rateAt and rateEnded: when the tuning games/s was last printed, and the games ended
	// by then (saved, and ended beside: Event.GenGames).
	rateAt    time.Time
	rateEnded int
	gen       int
	genStart  time.Time
	lastLog   time.Time
	// matchLabel names a held-out match in the output: "verification" in tune, "match" in
	// the match command.
	matchLabel string
	// Limits, if set, are the limits an outside engine's games are played at
	// (config.Config.EngineLimitsText), said instead of the built-in engine's depth.
	Limits string
}

// New is a Progress writing to w; a held-out match is called "verification".
func New(w io.Writer) *Progress {
	p := &Progress{w: w, gen: -1, lastLog: time.Now(), matchLabel: "verification"}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
	}
	return p
}

// Update shows event e: a bar's count and description, or a log line when one is due.
func (p *Progress) Update(e record.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.SlotHint != "" { // once a run, early: a line of its own, above a terminal's bar
		if p.tty && p.bar != nil {
			_ = p.bar.Clear()
		}
		fmt.Fprintf(p.w, "note: %s so far, %.1f%% of the game slots busy; %s. A run keeps its settings when resumed: to change them, stop it and start a new run\n",
			e.GamesText(), 100*e.SlotUtilisation, e.SlotHint)
	}
	eta, etaKnown := e.ETA()
	etaText := eta.Round(time.Second).String()
	if !etaKnown {
		etaText = "?"
	}
	// "3/10": generation 3 of 10; "3 (1200/44000 games)" until a game budget; "3" until a
	// time budget.
	gens := fmt.Sprintf("/%d", e.Generations)
	switch {
	case e.Generations > 0:
	case e.BudgetGames > 0:
		gens = " (" + e.GamesText() + ")"
	default:
		gens = ""
	}
	spec, ok := config.MethodOf(e.Method)
	if !ok {
		spec, _ = config.MethodOf(config.MethodGA) // a run of a later version's method: its lines as the GA's
	}
	if e.Verifying && e.Champion != "" && e.GamesDone == 0 && !p.tty {
		at := fmt.Sprintf("depth %d", e.VerifyDepth)
		if p.Limits != "" {
			at = p.Limits
		}
		label := p.matchLabel
		if e.Rungs > 1 {
			label = fmt.Sprintf("%s rung %d/%d", p.matchLabel, e.Rung+1, e.Rungs)
			if e.Rung > 0 {
				at = e.Condition
			}
		}
		fmt.Fprintf(p.w, "%s of %s starts: %d games at %s\n", label, e.Champion, e.GamesTotal, at)
		p.gen, p.genStart = -2, time.Now()
	}
	if e.Verifying && p.gen != -2 && !p.tty {
		p.gen, p.genStart = -2, time.Now()
	}
	if !e.Verifying && e.Generation != p.gen && !p.tty {
		p.gen, p.genStart = e.Generation, time.Now()
	}
	// The batch being played: a rate of its games since it started.
	batch := fmt.Sprint(e.Generation, "/", e.Phase, "/", e.GamesTotal)
	if e.Verifying {
		batch = "verifying"
	}
	if !e.GenDone && batch != p.rateBatch {
		p.rateBatch, p.batchStart = batch, time.Now()
	}
	rateText := "" // ", 12.3 games/s" once measured
	// A verification's rate is of its games since it started; a tuning line's of every game
	// ended since the line before (the first: since the first game), its batch's or another's
	// in play beside it: with generations in play the rounds overlap, and a batch's own games
	// come slowly while the one before ends.
	ended := e.RunGames + e.GenGames + e.GamesDone
	switch {
	case e.Verifying:
		if el := time.Since(p.batchStart).Seconds(); el > 0.5 && !p.batchStart.IsZero() {
			rateText = fmt.Sprintf(", %.1f games/s", float64(e.GamesDone)/el)
		}
	case !e.GenDone:
		if p.rateAt.IsZero() {
			p.rateAt, p.rateEnded = time.Now(), ended-1
		}
		if el := time.Since(p.rateAt).Seconds(); el > 0.5 {
			rateText = fmt.Sprintf(", %.1f games/s", float64(max(0, ended-p.rateEnded))/el)
		}
	}
	phase := ""
	if e.Phase != "" {
		phase = " " + e.Phase
	}
	desc := fmt.Sprintf("gen %d%s%s, best %.3f mean %.3f champion %s (%s) ETA %s", e.Generation, gens, phase, e.BestScore, e.MeanScore, e.Champion, e.ChampionText(), etaText)
	if e.Best == "" { // no generation saved yet: nothing to show but the batch
		desc = fmt.Sprintf("gen %d%s%s, ETA %s", e.Generation, gens, phase, etaText)
	}
	if e.Verifying {
		desc = p.matchLabel
	}
	if p.tty {
		key := batch // a bar per batch: its games, its phase
		if !e.Verifying && e.BudgetGames > 0 && spec.Short {
			// Steps of a few dozen games: one bar for the whole run's budget, not one a step.
			if p.bar == nil || p.gen != -3 {
				if p.bar != nil {
					p.bar.Finish()
					fmt.Fprintln(p.w)
				}
				p.gen = -3
				p.bar = gamesBar(p.w, e.BudgetGames)
			}
			done := e.RunGames
			if !e.GenDone {
				done += e.GamesDone
			}
			p.bar.Describe(fmt.Sprintf("%s %s %d, champion %s", spec.Title, spec.Generation, e.Generation, e.Champion))
			p.bar.Set(min(done, e.BudgetGames))
			return
		}
		if e.GenDone {
			return // the generation's last batch is full already
		}
		if p.bar == nil || key != p.batch {
			if p.bar != nil {
				p.bar.Finish()
				fmt.Fprintln(p.w)
			}
			p.gen, p.batch = e.Generation, key
			p.bar = gamesBar(p.w, max(e.GamesTotal, 1))
		}
		p.bar.Describe(desc)
		p.bar.Set(e.GamesDone)
		return
	}
	if e.GenDone {
		if spec.Short && time.Since(p.lastLog) < 5*time.Second && e.Generation != e.Generations {
			return // a line every few seconds, not one a step
		}
		head := fmt.Sprintf("%s %d%s", spec.Generation, e.Generation, gens)
		if spec.Short && e.Generations == 0 { // until a budget: the games say how far
			head = fmt.Sprintf("%s %d", spec.Generation, e.Generation)
		}
		busy := ""
		if e.SlotUtilisation > 0 {
			busy = fmt.Sprintf(", slots %.1f%% busy", 100*e.SlotUtilisation)
		}
		fmt.Fprintf(p.w, "%s saved: %s, elapsed %s%s, ETA %s\n", head, spec.SavedText(e), e.Elapsed.Round(time.Second), busy, etaText)
		p.lastLog = time.Now()
		return
	}
	if e.Verifying && time.Since(p.lastLog) >= 5*time.Second && e.GamesDone > 0 {
		fmt.Fprintf(p.w, "%s: games %d/%d%s\n", p.matchLabel, e.GamesDone, e.GamesTotal, rateText)
		p.lastLog = time.Now()
		return
	}
	if time.Since(p.lastLog) >= 5*time.Second && e.GamesDone > 0 && !spec.Short { // short generations: their saved lines above
		fmt.Fprintf(p.w, "generation %d%s%s: games %d/%d of this batch%s, ETA %s\n", e.Generation, gens, phaseText(e.Phase), e.GamesDone, e.GamesTotal, rateText, etaText)
		p.lastLog = time.Now()
		p.rateAt, p.rateEnded = p.lastLog, ended
	}
}

// Finish ends the bar being drawn (a terminal's line); log lines need no ending.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}

// phaseText is ", racing round 1" for Event.Phase "round 1", ", admission" for
// "admission", "" for none.
func phaseText(phase string) string {
	switch {
	case phase == "":
		return ""
	case strings.HasPrefix(phase, "round "):
		return ", racing " + phase
	}
	return ", " + phase
}

// gamesBar is a progress bar over total games.
func gamesBar(w io.Writer, total int) *progressbar.ProgressBar {
	return progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionShowCount(),
		progressbar.OptionShowIts(), progressbar.OptionSetItsString("games"), progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetWidth(30))
}

// Match is a Progress for a match's games: label names it in the lines ("match",
// "verification", a sensitivity probe's "k1 +").
type Match struct{ p *Progress }

// NewMatch is a Match writing to w.
func NewMatch(w io.Writer, label string) *Match {
	p := New(w)
	p.matchLabel = label
	return &Match{p: p}
}

// Update is match.Play's callback: done of total games played.
func (m *Match) Update(done, total int, _ stats.Result) {
	m.p.Update(record.Event{Verifying: true, GamesDone: done, GamesTotal: total})
}

// Finish ends the bar being drawn.
func (m *Match) Finish() { m.p.Finish() }
