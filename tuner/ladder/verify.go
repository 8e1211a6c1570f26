package ladder

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/tuner/arena"
	"evotune/tuner/match"
	"evotune/tuner/stats"
)

// Verification is a champion's match against the paper's weights on held-out openings,
// stored with the run as JSON.
type Verification struct {
	// SlotTime is the sum of the time its games held their slots (engine.GameRecord.SlotTime:
	// a cluster worker's measure, else each game's wall time; a run's slot utilisation counts a
	// checkpoint's games); not stored.
	SlotTime time.Duration `json:"-"`
	Champion string        `json:"champion"`
	Opponent string        `json:"opponent"`
	Openings string        `json:"openings"`
	Limits   engine.Limits `json:"limits"`
	Games    int           `json:"games"`
	// Pairs is the number of distinct colour-swapped pairs the estimate rests on.
	Pairs int `json:"distinct_pairs"`
	// Generation and Elapsed place a checkpoint (Config.VerifyEvery) in the run.
	Generation int           `json:"generation,omitempty"`
	Elapsed    time.Duration `json:"elapsed_ns,omitempty"`
	Warning    string        `json:"warning,omitempty"`
	// Baseline is true when the champion is the baseline itself: no game was played (the
	// paper's weights against themselves measure nothing) and its Elo against the baseline
	// is 0 by identity, not by measurement.
	Baseline bool `json:"baseline,omitempty"`
	stats.Result
	Score    float64     `json:"score"`
	Elo      float64     `json:"elo"`
	EloCI95  float64     `json:"elo_ci95"`
	EloLow   float64     `json:"elo_low"`
	EloHigh  float64     `json:"elo_high"`
	LOS      float64     `json:"los"`
	SPRT     *stats.SPRT `json:"sprt,omitempty"`
	LLR      float64     `json:"llr"`
	LLRLower float64     `json:"llr_lower"`
	LLRUpper float64     `json:"llr_upper"`
	Verdict  string      `json:"verdict,omitempty"`
	// Rung is the verification's place in its ladder (0: the tuning condition), Kind
	// the rung's kind (RungTuning, RungDepth, …), Condition its condition in words ("tc
	// 60+0.6") and Holds whether the champion's gain holds there (HoldsYes, HoldsNo,
	// HoldsUnproven, HoldsUnmeasured).
	Rung      int    `json:"rung"`
	Kind      string `json:"kind,omitempty"`
	Condition string `json:"condition,omitempty"`
	Holds     string `json:"holds,omitempty"`
	// Ladder, in the first rung only, holds the ladder's other rungs, in order.
	Ladder []Verification `json:"ladder,omitempty"`
	// An opponent rung (RungOpponent) measures the champion against Opponent and the
	// baseline against it on the same openings: the fields above are the champion's
	// match, except Elo, EloCI95, EloLow and EloHigh, which are the champion's gain over
	// the baseline (ChampionElo − BaselineElo, the interval of the difference of two
	// independent matches); ChampionMatch and BaselineMatch are the two matches.
	ChampionElo   float64       `json:"champion_elo,omitempty"`
	BaselineElo   float64       `json:"baseline_elo,omitempty"`
	ChampionMatch *Verification `json:"champion_match,omitempty"`
	BaselineMatch *Verification `json:"baseline_match,omitempty"`
	// Unbounded is set on an opponent rung whose matches have no finite interval (one side
	// scored all but every game): its gain is not measured (Warning says why).
	Unbounded bool `json:"unbounded,omitempty"`
	// ID is the verification's row once stored (each verification is kept); Headline,
	// in a run's headline copy, says why it heads the run ("the largest of 2
	// verifications (1000 games)").
	ID       int64  `json:"verification_id,omitempty"`
	Headline string `json:"headline,omitempty"`
}

// VerifyConfig describes a verification match.
type VerifyConfig struct {
	Setup      arena.GameSetup
	Champion   engine.Weights
	ChampionID string
	// ChampionExt and BaselineExt, when set, play the champion and the baseline as
	// external engines (an outside engine under tuning: its values and its defaults).
	ChampionExt, BaselineExt *protocol.ExternalSpec
	// Opponent and OpponentExt, when OpponentExt is set, replace the baseline as the
	// champion's opponent (a ladder's opponent rung).
	Opponent    string
	OpponentExt *protocol.ExternalSpec
	Games       int
	// OpeningSpec is "builtin", "random" or a file; "" means builtin for games with an
	// opening book, random otherwise.
	OpeningSpec string
	// OpeningList, if set, holds the openings of the OpeningSpec file, read when the run
	// started (Config.VerifyOpeningList): the file is not opened again.
	OpeningList arena.Openings
	// Book, if set (the run's Config.BookList), replaces the "random" openings: its
	// held-out half (HalfOf), in an order shuffled by Seed. BookLabel names it.
	Book      arena.Openings
	BookLabel string
	// Exclude holds the keys of the openings used in tuning, so verification is held out.
	Exclude map[string]bool
	Seed    int64
	SPRT    *stats.SPRT
	Workers int
}

// Verify plays the champion (A) against the game's default weights (B) and summarises
// the match.
func Verify(ctx context.Context, vc VerifyConfig, progress func(done, total int, r stats.Result)) (Verification, error) {
	openings, label, err := vc.Openings()
	if err != nil {
		return Verification{}, err
	}
	var base engine.Weights
	bext, opponent := vc.BaselineExt, "baseline"
	if vc.OpponentExt != nil {
		bext, opponent = vc.OpponentExt, vc.Opponent
	}
	if bext == nil {
		base = vc.Setup.Game.DefaultWeights()
	}
	res, err := match.Play(ctx, match.Config{Setup: vc.Setup, A: vc.Champion, B: base, AExt: vc.ChampionExt, BExt: bext,
		Games: vc.Games, Openings: openings, SPRT: vc.SPRT, Workers: vc.Workers}, progress)
	if err != nil {
		return Verification{}, fmt.Errorf("verification: %w", err)
	}
	v := Verification{Champion: vc.ChampionID, Opponent: opponent, Limits: vc.Setup.Limits,
		Openings: fmt.Sprintf("%s (%d held out, %d tuning openings excluded)", label, len(openings), len(vc.Exclude)),
		Games:    res.Result.Games(), Pairs: res.Result.Pairs(), Warning: res.Warning, Result: res.Result, SPRT: res.SPRT, LLR: res.LLR, LLRLower: res.Lower, LLRUpper: res.Upper, Verdict: res.Verdict}
	if e := res.Estimate; e != nil {
		v.Score, v.Elo, v.EloCI95, v.EloLow, v.EloHigh, v.LOS = e.Score, e.Elo, e.CI95, e.EloLow, e.EloHigh, e.LOS
	}
	for _, g := range res.Games {
		v.SlotTime += g.Record.SlotTime()
	}
	return v, nil
}

// Openings are the held-out openings a verification of vc plays, in order, and their
// label: an opening file's (OpeningList) held-out half, a book's held-out half shuffled by
// Seed, or OpeningSpec's (random: the held-out half of the opening space, drawn by Seed),
// never one of Exclude.
func (vc VerifyConfig) Openings() (arena.Openings, string, error) {
	spec := vc.OpeningSpec
	if spec == "" {
		spec = "random" // the held-out half: disjoint from every tuning opening by construction
	}
	switch {
	case vc.OpeningList != nil:
		return arena.HeldOut(vc.OpeningList, "file "+spec, vc.Exclude)
	case vc.Book != nil && spec == "random":
		label := "book " + vc.BookLabel + ", its held-out half"
		openings := arena.BookOpenings(vc.Book, len(vc.Book), rand.New(rand.NewPCG(uint64(vc.Seed), 0xB00C)), arena.HeldOutHalf, vc.Exclude)
		if len(openings) == 0 {
			return nil, label, fmt.Errorf("openings %s: none", label)
		}
		return openings, label, nil
	}
	return arena.SelectOpenings(spec, vc.Setup.Game, vc.Setup.Board, max(vc.Games/2, 1), vc.Seed, vc.Exclude)
}

// Plateau reports whether the last k of elos (checkpoints' Elo, oldest first) are no
// better than the best before them: at least k+1 checkpoints, and the largest of the last
// k at most the largest of the others. Config.StopWhenProven ends a run there once a
// checkpoint's SPRT has accepted H1: proven, and no longer improving.
func Plateau(elos []float64, k int) bool {
	n := len(elos)
	if k < 1 || n < k+1 {
		return false
	}
	return slices.Max(elos[n-k:]) <= slices.Max(elos[:n-k])
}
