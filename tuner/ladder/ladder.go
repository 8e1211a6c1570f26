package ladder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/engine/protocol/wire"
	"evotune/tuner/arena"
	"evotune/tuner/match"
	"evotune/tuner/stats"
)

// Rung kinds: the conditions of a verification ladder. The first rung is always the
// tuning condition; then, as the user names them, a deeper search (RungDepth), a node
// count (RungNodes), a chess clock (RungTC), a fixed time per move (RungMoveTime) and
// other opponents (RungOpponent).
const (
	RungTuning   = "tuning"
	RungDepth    = "depth"
	RungNodes    = "nodes"
	RungTC       = "tc"
	RungMoveTime = "movetime"
	RungOpponent = "opponent"
)

// Rung is one condition of a verification ladder: a held-out, colour-swapped match of the
// champion against the baseline under that condition, or, for RungOpponent, of the
// champion and of the baseline each against another engine on the same openings.
type Rung struct {
	Kind string `json:"kind"`
	// Value is the condition's value: a depth in plies, a node count, a time control
	// (engine.ParseTimeControl's "60+0.6"), seconds per move, or an opponent's command
	// line ("cmd:PATH ARGS").
	Value string `json:"value,omitempty"`
	// Options are an opponent's options, "NAME=VALUE" each (UCI setoption, Gomocup INFO).
	Options []string `json:"options,omitempty"`
}

// Condition names the rung's condition as a summary says it: "the tuning condition",
// "depth 8", "nodes 5000", "tc 60+0.6", "movetime 0.5 s", "cmd:stockfish (Skill Level=3)".
func (r Rung) Condition() string {
	switch r.Kind {
	case RungTuning:
		return "the tuning condition"
	case RungMoveTime:
		return "movetime " + r.Value + " s"
	case RungOpponent:
		if len(r.Options) > 0 {
			return r.Value + " (" + strings.Join(r.Options, ", ") + ")"
		}
		return r.Value
	}
	return r.Kind + " " + r.Value
}

// apply sets the rung's condition on setup (the built-in players' limits and the games'
// clock) and on the outside engines' specs (each a copy the caller owns). The error names
// a condition an engine's protocol cannot carry.
func (r Rung) apply(setup *arena.GameSetup, specs ...*protocol.ExternalSpec) error {
	g := setup.Game
	for _, s := range specs {
		if s == nil {
			continue
		}
		p := s.ProtocolFor(g)
		switch r.Kind {
		case RungDepth, RungNodes:
			if p != protocol.UCI {
				return fmt.Errorf("%s: %s speaks %s, which has no %s limit", r.Condition(), s.Name(), p, r.Kind)
			}
		case RungTC:
			if p != protocol.UCI && p != protocol.Gomocup {
				return fmt.Errorf("%s: %s speaks %s, which tells an engine no clock", r.Condition(), s.Name(), p)
			}
		}
	}
	lim := &setup.Limits
	switch r.Kind {
	case RungTuning, RungOpponent:
		return nil
	case RungDepth:
		d, err := strconv.Atoi(r.Value)
		if err != nil || d < 1 {
			return fmt.Errorf("%s: not a depth", r.Condition())
		}
		lim.Depth, lim.Nodes, lim.Time, lim.SoftTime = d, 0, 0, 0
		setup.TimeControl = nil
		for _, s := range specs {
			if s != nil {
				s.Depth, s.Nodes, s.TimeControl, s.MoveTimeFixed = d, 0, nil, false
			}
		}
	case RungNodes:
		n, err := strconv.ParseInt(r.Value, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("%s: not a node count", r.Condition())
		}
		// Iterative deepening until the node count: the depth no longer bounds it.
		lim.Depth, lim.Nodes, lim.Time, lim.SoftTime = engine.MaxDepth, n, 0, 0
		setup.TimeControl = nil
		for _, s := range specs {
			if s != nil {
				s.Depth, s.Nodes, s.TimeControl, s.MoveTimeFixed = 0, n, nil, false
			}
		}
	case RungTC:
		tc, err := engine.ParseTimeControl(r.Value)
		if err != nil {
			return err
		}
		// The built-in players time each move from their clock (search.MoveTime); a clock
		// that runs out loses the game.
		lim.Depth, lim.Nodes, lim.Time, lim.SoftTime = engine.MaxDepth, 0, 0, 0
		setup.TimeControl, setup.Forfeit = &tc, true
		for _, s := range specs {
			if s != nil {
				s.Depth, s.Nodes, s.TimeControl, s.MoveTimeFixed = 0, 0, &tc, false
			}
		}
	case RungMoveTime:
		sec, err := strconv.ParseFloat(r.Value, 64)
		if err != nil || sec <= 0 {
			return fmt.Errorf("%s: not a number of seconds", r.Condition())
		}
		d := time.Duration(sec * float64(time.Second))
		lim.Depth, lim.Nodes, lim.Time, lim.SoftTime = engine.MaxDepth, 0, d, d/2
		setup.TimeControl = nil
		for _, s := range specs {
			if s != nil {
				s.Depth, s.Nodes, s.TimeControl, s.MoveTime, s.MoveTimeFixed = 0, 0, nil, d, true
			}
		}
	default:
		return fmt.Errorf("rung %q: unknown kind", r.Kind)
	}
	return nil
}

// Ladder is a verification ladder to play: Base is the tuning condition's match (rung 0),
// Rungs every rung, the tuning condition first.
type Ladder struct {
	Base  VerifyConfig
	Rungs []Rung
	// RungGames is the number of games of each rung after the first (0 = Base.Games).
	RungGames int
	// OpponentSpec makes an opponent rung's engine from its command line and options,
	// under the tuning condition (the outside engine's limits, or the run's opponent move
	// time for the built-in engines).
	OpponentSpec func(argv []string, opts []wire.Option) *protocol.ExternalSpec
	// Done holds rungs already played and stored (a ladder that was stopped or killed),
	// by rung index: they are not played again.
	Done map[int]Verification
	// Save, if set, stores each rung as soon as it is played.
	Save func(Verification) error
	// Progress is told each rung's start (done 0) and its games as they end, with the
	// rung's result so far.
	Progress func(rung Rung, index, done, total int, r stats.Result)
}

// Play plays the ladder's rungs in order (those not Done) and returns rung 0's result with
// the others in its Ladder. A rung whose condition an engine cannot carry, or whose
// opponent cannot start, is an error naming the rung; the rungs stored before it stay.
func (l Ladder) Play(ctx context.Context) (Verification, error) {
	var out []Verification
	for i, r := range l.Rungs {
		if v, ok := l.Done[i]; ok {
			out = append(out, v)
			continue
		}
		v, err := l.play(ctx, i, r)
		if err != nil {
			return Verification{}, fmt.Errorf("rung %d (%s): %w", i, r.Condition(), err)
		}
		if l.Save != nil {
			if err := l.Save(v); err != nil {
				return Verification{}, err
			}
		}
		out = append(out, v)
	}
	head := out[0]
	head.Ladder = append([]Verification(nil), out[1:]...)
	return head, nil
}

// play plays rung i.
func (l Ladder) play(ctx context.Context, i int, r Rung) (Verification, error) {
	vc := l.Base
	if i > 0 && l.RungGames > 0 {
		vc.Games = l.RungGames
	}
	progress := func(done, total int, res stats.Result) {
		if l.Progress != nil {
			l.Progress(r, i, done, total, res)
		}
	}
	progress(0, vc.Games, stats.Result{})
	if vc.Setup.EngineLogDir != "" { // each rung's transcripts in a folder of its own
		vc.Setup.EngineLogDir = filepath.Join(vc.Setup.EngineLogDir, fmt.Sprintf("rung%d", i))
		if err := os.MkdirAll(vc.Setup.EngineLogDir, 0o755); err != nil {
			return Verification{}, fmt.Errorf("engine log: %w", err)
		}
	}
	vc.ChampionExt, vc.BaselineExt = cloneSpec(vc.ChampionExt), cloneSpec(vc.BaselineExt)
	if err := r.apply(&vc.Setup, vc.ChampionExt, vc.BaselineExt); err != nil {
		return Verification{}, err
	}
	if s := vc.ChampionExt; s != nil && (r.Kind == RungNodes || r.Kind == RungDepth) {
		// An engine that ignores the limit searches until its move time runs out and would
		// lose every game on time: one move under the condition tells before any game.
		if err := protocol.Probe(ctx, *s, vc.Setup.Game, vc.Setup.Board); err != nil {
			if errors.Is(err, engine.ErrTimeLoss) {
				// Its output is its banner and the search it went on with: nothing to show.
				return Verification{}, fmt.Errorf("%s played no move under go %s within its move time (%v): it ignores %s limits (as Toga II and other Fruit descendants ignore go nodes); verify it longer with --verify-depth D, --verify-tc or --verify-move-time S",
					s.Name(), r.Condition(), s.MoveTime, r.Kind)
			}
			return Verification{}, fmt.Errorf("%s under go %s: %w", s.Name(), r.Condition(), err)
		}
	}
	if r.Kind != RungOpponent {
		v, err := Verify(ctx, vc, progress)
		if err != nil {
			return Verification{}, err
		}
		v.mark(i, r)
		return v, nil
	}
	argv, _, err := protocol.ParseCommand(r.Value)
	if err != nil {
		return Verification{}, err
	}
	opts, err := match.ParseOptions("verify-opponent-option", r.Options)
	if err != nil {
		return Verification{}, err
	}
	opp := l.OpponentSpec(argv, opts)
	if err := protocol.CheckProgram(opp.Argv); err != nil {
		return Verification{}, err
	}
	vc.Setup.Forfeit = true
	// The champion, then the baseline, each against the opponent on the same openings
	// (the same seed draws them).
	champ := vc
	champ.Opponent, champ.OpponentExt = opp.Name(), opp
	cv, err := Verify(ctx, champ, progress)
	if err != nil {
		return Verification{}, err
	}
	base := vc
	base.Champion, base.ChampionExt, base.ChampionID = nil, vc.BaselineExt, "baseline"
	if base.ChampionExt == nil {
		base.Champion = vc.Setup.Game.DefaultWeights()
	}
	base.Opponent, base.OpponentExt = opp.Name(), opp
	bv, err := Verify(ctx, base, func(done, total int, res stats.Result) { progress(vc.Games+done, 2*vc.Games, res) })
	if err != nil {
		return Verification{}, err
	}
	v := cv
	v.ChampionElo, v.BaselineElo = cv.Elo, bv.Elo
	cv.mark(i, r)
	bv.mark(i, r)
	v.ChampionMatch, v.BaselineMatch = &cv, &bv
	// The champion's gain against the opponent: the difference of two independent
	// matches, its interval the root of the sum of their squared half-widths. A match
	// scored all but entirely one way has no finite interval: the gain is not measured.
	v.Elo = cv.Elo - bv.Elo
	v.EloCI95 = math.Hypot(cv.EloCI95, bv.EloCI95)
	v.EloLow, v.EloHigh = v.Elo-v.EloCI95, v.Elo+v.EloCI95
	v.SPRT, v.LLR, v.LLRLower, v.LLRUpper, v.Verdict = nil, 0, 0, 0, ""
	if !cv.Bounded() || !bv.Bounded() {
		v.Unbounded = true
		v.Elo, v.EloCI95, v.EloLow, v.EloHigh = 0, 0, 0, 0
		v.Warning = fmt.Sprintf("the champion scored %.0f%% and the baseline %.0f%% against it, too near 0%% or 100%% for an Elo interval: choose an opponent nearer their strength (or another setting of it)",
			100*cv.Score, 100*bv.Score)
	}
	v.mark(i, r)
	return v, nil
}

// mark names v as rung i of its ladder and says whether the champion's gain holds there.
func (v *Verification) mark(i int, r Rung) {
	v.Rung, v.Kind, v.Condition = i, r.Kind, r.Condition()
	if r.Kind == RungOpponent {
		v.Opponent = r.Condition()
	}
	v.Holds = v.holds()
}

// Proof verdicts of a rung (Verification.Holds).
const (
	// HoldsYes: the SPRT accepted H1, or the 95% interval of the Elo gain is above 0.
	HoldsYes = "holds"
	// HoldsNo: the SPRT accepted H0, or the Elo gain measured is 0 or below.
	HoldsNo = "does not hold"
	// HoldsUnproven: a gain above 0 whose interval reaches 0: more games would tell.
	HoldsUnproven = "not proven"
	// HoldsUnmeasured: no game was played (the champion is the baseline).
	HoldsUnmeasured = "not measured"
)

// holds is the rung's proof verdict.
func (v Verification) holds() string {
	switch {
	case v.Baseline || v.Games == 0 || v.Unbounded:
		return HoldsUnmeasured
	case v.Verdict == stats.AcceptH1:
		return HoldsYes
	case v.Verdict == stats.AcceptH0 || v.Elo <= 0:
		return HoldsNo
	case v.EloLow > 0:
		return HoldsYes
	}
	return HoldsUnproven
}

// ProofText says in words whether the champion's gain holds at the rung, as a sentence
// about "the champion's gain": "holds at tc 60+0.6: +12.3 ± 8.0", "does not hold at tc
// 60+0.6: −3.1 ± 6.0", "is not proven at depth 8: +2.0 ± 6.0 (more games would tell)"; an
// opponent rung speaks of the gain against it, or says why it could not be measured.
func (v Verification) ProofText() string {
	where := "at " + v.Condition
	if v.Kind == RungOpponent {
		where = "against " + v.Condition
	}
	if v.Kind == "" || v.Kind == RungTuning {
		where = "at the tuning condition"
	}
	num := fmt.Sprintf("%s ± %.1f", signed(v.Elo), v.EloCI95)
	if !v.Bounded() && !v.Unbounded && v.Games > 0 {
		num = stats.FormatElo(v.Elo, v.EloLow, v.EloHigh)
	}
	if v.Kind == RungOpponent {
		num += fmt.Sprintf(" (champion %s, baseline %s against it)", signed(v.ChampionElo), signed(v.BaselineElo))
	}
	switch v.holds() {
	case HoldsUnmeasured:
		if v.Unbounded {
			return "is not measured " + where + ": " + v.Warning
		}
		return "is not measured " + where + ": the champion is the baseline"
	case HoldsUnproven:
		return "is not proven " + where + ": " + num + " (more games would tell)"
	case HoldsNo:
		return "does not hold " + where + ": " + num
	}
	return "holds " + where + ": " + num
}

// signed writes x with its sign, "+12.3" or "−3.1" (a minus sign, as the Elo tables).
func signed(x float64) string {
	if x < 0 {
		return fmt.Sprintf("−%.1f", -x)
	}
	return fmt.Sprintf("+%.1f", x)
}

// Rungs is v's ladder in rung order: v itself (the tuning condition), then v.Ladder.
func (v Verification) Rungs() []Verification {
	head := v
	head.Ladder = nil
	if head.Kind == "" {
		head.Kind, head.Condition = RungTuning, Rung{Kind: RungTuning}.Condition()
		head.Holds = head.holds()
	}
	return append([]Verification{head}, v.Ladder...)
}

// RungOf is v's first rung of kind (v itself for RungTuning), or nil.
func (v *Verification) RungOf(kind string) *Verification {
	if v == nil {
		return nil
	}
	if kind == RungTuning {
		return v
	}
	for i := range v.Ladder {
		if v.Ladder[i].Kind == kind {
			return &v.Ladder[i]
		}
	}
	return nil
}

// Failing is the rungs of v whose gain does not hold or is not proven, in words
// (ProofText), for a summary.
func (v Verification) Failing() []string {
	var out []string
	for _, r := range v.Rungs() {
		if h := r.holds(); h == HoldsNo || h == HoldsUnproven {
			out = append(out, r.ProofText())
		}
	}
	return out
}

// Key identifies a ladder request, so that a stopped or killed ladder continues
// from its stored rungs and a new request starts anew: the individual, the rungs, the
// games and the SPRT.
func Key(champion string, rungs []Rung, games, rungGames int, sprt *stats.SPRT, openings string) string {
	b, _ := json.Marshal(struct {
		Champion  string      `json:"champion"`
		Rungs     []Rung      `json:"rungs"`
		Games     int         `json:"games"`
		RungGames int         `json:"rung_games"`
		SPRT      *stats.SPRT `json:"sprt"`
		Openings  string      `json:"openings"`
	}{champion, rungs, games, rungGames, sprt, openings})
	return string(b)
}

// cloneSpec is a copy of s the caller may change (nil for nil).
func cloneSpec(s *protocol.ExternalSpec) *protocol.ExternalSpec {
	if s == nil {
		return nil
	}
	c := *s
	return &c
}

// Bounded reports whether v's Elo interval is finite: a match scored all but entirely one
// way, or of too few games, has an open end and a half-width without meaning (stats holds
// an infinite Elo as ±1e9).
func (v Verification) Bounded() bool {
	finite := func(x float64) bool { return !math.IsInf(x, 0) && math.Abs(x) < 1e8 } // stats holds ±∞ as ±1e9
	return v.Games > 0 && finite(v.Elo) && finite(v.EloLow) && finite(v.EloHigh) && v.EloCI95 < 1000
}
