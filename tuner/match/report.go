package match

import (
	"context"
	"errors"
	"fmt"
	"time"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/tuner/stats"
)

// Report is a match's result as `match --json` prints it: the same keys for every match,
// null where a value is unknown (no SPRT: sprt, llr and its bounds, verdict; no games:
// estimate).
type Report struct {
	Game           string          `json:"game"`
	A              string          `json:"a"`
	B              string          `json:"b"`
	AName          string          `json:"a_name"`
	BName          string          `json:"b_name"`
	Openings       string          `json:"openings"`
	Limits         engine.Limits   `json:"limits"`
	GamesRequested int             `json:"games_requested"`
	Deterministic  bool            `json:"deterministic"`
	RepeatedPairs  int             `json:"repeated_pairs"`
	UnplayedPairs  int             `json:"unplayed_pairs"`
	Unplayed       []Game          `json:"unplayed"`
	Warning        *string         `json:"warning"`
	Result         stats.Result    `json:"result"`
	Estimate       *stats.Estimate `json:"estimate"`
	SPRT           *stats.SPRT     `json:"sprt"`
	LLR            *float64        `json:"llr"`
	LLRLower       *float64        `json:"llr_lower"`
	LLRUpper       *float64        `json:"llr_upper"`
	Verdict        *string         `json:"verdict"`
	Seconds        float64         `json:"seconds"`
	Games          []Game          `json:"games"`
}

// With is m with match result r's fields filled in.
func (m Report) With(r Result) Report {
	m.GamesRequested, m.Deterministic, m.Result, m.Estimate, m.SPRT = r.Requested, r.Deterministic, r.Result, r.Estimate, r.SPRT
	m.Seconds, m.Games, m.RepeatedPairs = r.Duration.Seconds(), r.Games, r.RepeatedPairs
	m.UnplayedPairs, m.Unplayed = r.UnplayedPairs, r.Unplayed
	if m.Unplayed == nil {
		m.Unplayed = []Game{}
	}
	if m.Games == nil {
		m.Games = []Game{}
	}
	if r.Warning != "" {
		m.Warning = &r.Warning
	}
	if r.SPRT != nil {
		m.LLR, m.LLRLower, m.LLRUpper, m.Verdict = &r.LLR, &r.Lower, &r.Upper, &r.Verdict
	}
	return m
}

// LiveLine is a match's result so far, as a match prints it every few games: games ended
// of the total, W/D/L of the pairs whose two games ended, the pentanomial counts, Elo ±
// 95% and, under an SPRT, the LLR and its bounds (as fastchess prints it every
// -ratinginterval games).
func LiveLine(done, total int, r stats.Result, sprt *stats.SPRT) string {
	line := fmt.Sprintf("after %d of %d games: A W %d D %d L %d, pentanomial %v", done, total, r.Wins, r.Draws, r.Losses, r.Penta)
	if e, err := r.Estimate(); err == nil {
		line += ", Elo " + stats.FormatElo(e.Elo, e.EloLow, e.EloHigh)
	}
	if sprt != nil {
		lo, hi := sprt.Bounds()
		line += fmt.Sprintf(", LLR %.2f (%.2f, %.2f)", sprt.LLR(r), lo, hi)
	}
	return line
}

// NodesIgnoredError is ProbeNodes' finding: Engine played no move under go nodes Nodes
// within its move time MoveTime.
type NodesIgnoredError struct {
	Engine   string
	Nodes    int64
	MoveTime time.Duration
}

func (e *NodesIgnoredError) Error() string {
	return fmt.Sprintf("%s played no move under go nodes %d within its move time (%v): it ignores node limits (as Toga II and other Fruit descendants do)", e.Engine, e.Nodes, e.MoveTime)
}

// ProbeNodes plays one move of each outside engine with a node limit (spec.Nodes > 0)
// before its games: an engine that ignores node limits (Toga II and other Fruit
// descendants search on) would lose every game on time, and the match or run would count
// none. Such an engine is a *NodesIgnoredError; an engine that fails otherwise, the probe's
// error (protocol.Probe).
func ProbeNodes(ctx context.Context, g engine.Game, board int, specs ...*protocol.ExternalSpec) error {
	seen := map[string]bool{}
	for _, s := range specs {
		if s == nil || s.Nodes <= 0 || seen[s.Key()] {
			continue
		}
		seen[s.Key()] = true
		if err := protocol.Probe(ctx, *s, g, board); err != nil {
			if errors.Is(err, engine.ErrTimeLoss) {
				return &NodesIgnoredError{Engine: s.Name(), Nodes: s.Nodes, MoveTime: s.MoveTime}
			}
			return err
		}
	}
	return nil
}
