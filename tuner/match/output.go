package match

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/tuner/stats"
)

// CheckName checks a player's display name (a PGN tag's value, a table's heading): at most
// 200 characters on one line, without control characters.
func CheckName(name string) error {
	if strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) || len(name) > 200 {
		return fmt.Errorf("%q: a name of at most 200 characters, on one line without control characters (it heads PGN tags)", name)
	}
	return nil
}

// WriteText writes match result res of plan p as the match command prints it: a header
// (the game, the players' names, games and distinct pairs, openings, the limits as
// arena.GameSetup.LimitsText says them with goDepth an outside engine's go depth, seconds),
// the warning, stats.Report's lines, think times, terminations and the forfeits, each
// forfeit's text (an engine's words) passed through safe first.
func (p Plan) WriteText(out io.Writer, g engine.Game, aName, bName string, goDepth int, res Result, safe func(string) string) {
	mc := p.Config
	ext := mc.AExt != nil || mc.BExt != nil
	fmt.Fprintf(out, "match %s: A = %s, B = %s; %d games (%d distinct colour-swapped pairs), openings %s (%d), %s, %.1fs\n",
		g.Name(), aName, bName, res.Result.Games(), res.Result.Pairs(), p.OpeningsLabel, len(mc.Openings),
		mc.Setup.LimitsText(ext, mc.AExt != nil && mc.BExt != nil, goDepth), res.Duration.Seconds())
	if res.Warning != "" {
		fmt.Fprintln(out, "warning: "+res.Warning)
	}
	fmt.Fprint(out, stats.Report(res.Result, res.Estimate, res.SPRT, res.LLR, res.Lower, res.Upper, res.Verdict))
	fmt.Fprintln(out, res.ThinkTimes())
	if t := Terminations(res.Games); t != "" {
		fmt.Fprintln(out, "terminations: "+t)
	}
	if f := Forfeits(g, res.Games); len(f) > 0 {
		fmt.Fprintf(out, "%d games lost by forfeit:\n", len(f))
		for _, l := range f {
			fmt.Fprintln(out, "  "+safe(l))
		}
	}
	if f := Forfeits(g, res.Unplayed); len(f) > 0 {
		fmt.Fprintf(out, "%d pairs not counted, %d of their games forfeited before the forfeiting engine's first move:\n", res.UnplayedPairs, len(f))
		for _, l := range f {
			fmt.Fprintln(out, "  "+safe(l))
		}
	}
}

// ErrFewEntrants is ParseEntrants' error (wrapped, with the number given) for fewer than two
// entrants.
var ErrFewEntrants = errors.New("a tournament needs at least two")

// ParseEntrants reads a tournament's entrants, one ParseEntrant spec each. Errors name the
// entrant by its place from 1 and its spec; two entrants may not share a name (each heads a
// row of the crosstable and PGN tags). At least two are needed (ErrFewEntrants).
func ParseEntrants(specs []string) ([]Entrant, error) {
	if len(specs) < 2 {
		return nil, fmt.Errorf("%d given, %w", len(specs), ErrFewEntrants)
	}
	var out []Entrant
	seen := map[string]int{}
	for i, spec := range specs {
		e, err := ParseEntrant(spec)
		if err != nil {
			return nil, fmt.Errorf("%d (%q): %w", i+1, spec, err)
		}
		if j, ok := seen[e.Name]; ok {
			return nil, fmt.Errorf("%d and %d are both named %q: give each a name= of its own", j+1, i+1, e.Name)
		}
		seen[e.Name] = i
		out = append(out, e)
	}
	return out, nil
}

// OwnLimits says e's own limits as a tournament's header lists them (" tc 10+0.1 nodes 1000
// depth 6"; "" when it plays at the tournament's).
func (e Entrant) OwnLimits() string {
	s := ""
	if e.TC != "" {
		s += " tc " + e.TC
	}
	if e.Nodes > 0 {
		s += fmt.Sprintf(" nodes %d", e.Nodes)
	}
	if e.Depth > 0 {
		s += fmt.Sprintf(" depth %d", e.Depth)
	}
	return s
}

// Clock is pairing p's clock as its PGN's TimeControl tag gives it: the control both
// engines play under, nil (no tag) when they play under none or under different ones.
func (p *Pairing) Clock() *engine.TimeControl {
	mc := p.Plan.Config
	var tcs [2]*engine.TimeControl
	for i, ext := range []*protocol.ExternalSpec{mc.AExt, mc.BExt} {
		tcs[i] = mc.Setup.TimeControl
		if ext != nil && ext.TimeControl != nil {
			tcs[i] = ext.TimeControl
		}
	}
	if tcs[0] == nil || tcs[1] == nil || tcs[0].String() != tcs[1].String() {
		return nil
	}
	return tcs[0]
}

// PlanAll plans every pairing (Plan) before the first game, so that a typo in the last
// engine's option is found now, not after hours of play, and asks each outside engine with
// a node limit once whether it honours go nodes (ProbeNodes). An entrant's setting its
// player cannot take is an *EntrantError, an engine that ignores go nodes a
// *NodesIgnoredError; other errors name the pairing ("pairing A vs B: …"), or Rounds (below
// 1) as Base names it.
func (t Tournament) PlanAll(ctx context.Context, pairings []*Pairing) error {
	if t.Rounds < 1 {
		return fmt.Errorf("%s %d: want at least 1 (colour-swapped pairs per pairing)", t.Base.name("rounds"), t.Rounds)
	}
	probed := map[string]bool{}
	for _, p := range pairings {
		err := t.Plan(ctx, p)
		var ee *EntrantError
		switch {
		case errors.As(err, &ee):
			return ee
		case err != nil:
			return fmt.Errorf("pairing %s vs %s: %w", t.Entrants[p.A].Name, t.Entrants[p.B].Name, err)
		}
		mc := p.Plan.Config
		for _, ext := range []*protocol.ExternalSpec{mc.AExt, mc.BExt} {
			if ext != nil && ext.Nodes > 0 && !probed[ext.Key()] {
				probed[ext.Key()] = true
				if err := ProbeNodes(ctx, t.Base.Game, mc.Setup.Board, ext); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Resume opens the stored matches of t's pairings for a resumed tournament (Open with
// Resume: nothing is written): a nil session where a pairing was not stored. ErrNotStored
// when none of them was: the command differs from the stopped tournament's.
func (t Tournament) Resume(ctx context.Context, st Store, pairings []*Pairing) ([]*Session, error) {
	sessions := make([]*Session, len(pairings))
	found := false
	for k, p := range pairings {
		s, err := Open(ctx, st, Spec{Key: t.Key(p), Resume: true})
		if err != nil && !errors.Is(err, ErrNotStored) {
			return nil, err
		}
		sessions[k], found = s, found || s != nil
	}
	if !found {
		return nil, ErrNotStored
	}
	return sessions, nil
}

// PGNText is every pairing's games as PGN text, pairing after pairing, each in pair order
// (Result.PGNText with the entrants' names and the pairing's Clock).
func (t Tournament) PGNText(pairings []*Pairing) (string, error) {
	var all strings.Builder
	for _, p := range pairings {
		text, err := p.Result.PGNText(p.Plan.PGN, "evotune tournament", t.Entrants[p.A].Name, t.Entrants[p.B].Name, p.Clock())
		if err != nil {
			return "", err
		}
		all.WriteString(text)
	}
	return all.String(), nil
}

// WriteText writes t's result after its pairings were played in took, as the tournament
// command prints it: a header (the game, engines, kind, pairings, games a pairing, the
// first pairing's openings and limits, goDepth an outside engine's go depth), each
// entrant's own limits, the pairings' warnings, the ranking and crosstable (WriteTable)
// and the forfeits, each forfeit's text passed through safe first.
func (t Tournament) WriteText(out io.Writer, pairings []*Pairing, goDepth int, took time.Duration, safe func(string) string) {
	kind := "round-robin"
	if t.Gauntlet {
		kind = "gauntlet of " + t.Entrants[0].Name
	}
	first := pairings[0].Plan
	mc := first.Config
	fmt.Fprintf(out, "tournament %s: %d engines, %s, %d pairings of %d games, openings %s, %s, %.1fs\n", t.Base.Game.Name(), len(t.Entrants), kind,
		len(pairings), 2*t.Rounds, first.OpeningsLabel, mc.Setup.LimitsText(mc.AExt != nil || mc.BExt != nil, mc.AExt != nil && mc.BExt != nil, goDepth), took.Seconds())
	for _, e := range t.Entrants {
		if l := e.OwnLimits(); l != "" {
			fmt.Fprintf(out, "%s plays at its own limits:%s\n", e.Name, l)
		}
	}
	for _, p := range pairings {
		if p.Result.Warning != "" {
			fmt.Fprintf(out, "warning: %s vs %s: %s\n", t.Entrants[p.A].Name, t.Entrants[p.B].Name, p.Result.Warning)
		}
	}
	WriteTable(out, t.Entrants, pairings)
	for _, p := range pairings {
		for _, l := range append(Forfeits(t.Base.Game, p.Result.Games), Forfeits(t.Base.Game, p.Result.Unplayed)...) {
			fmt.Fprintf(out, "forfeit, %s vs %s: %s\n", t.Entrants[p.A].Name, t.Entrants[p.B].Name, safe(l))
		}
	}
}

// WriteInterrupted writes the result of a match stopped after played games ended: the
// pairs whose two games ended (stats.Report's lines) and, when pgn names the match's PGN
// file (not ""), that every game that ended is in it.
func (res Result) WriteInterrupted(out io.Writer, played int, pgn string) {
	fmt.Fprintf(out, "match interrupted after %d games: the result of the %d pairs whose two games ended:\n", played, res.Result.Pairs())
	fmt.Fprint(out, stats.Report(res.Result, res.Estimate, res.SPRT, res.LLR, res.Lower, res.Upper, res.Verdict))
	if pgn != "" {
		fmt.Fprintf(out, "all %d games that ended are in %s, in the order they ended\n", played, pgn)
	}
}

// NothingCounted is nil when res counted a game, else the error that says why none was:
// every pair had a game forfeited before the forfeiting engine's first move.
func (res Result) NothingCounted() error {
	if res.Result.Games() > 0 {
		return nil
	}
	return fmt.Errorf("no game was counted: %d pairs had a game forfeited before the forfeiting engine's first move (it did not start, or did not answer in time); the forfeits above say which engine and why", res.UnplayedPairs)
}
