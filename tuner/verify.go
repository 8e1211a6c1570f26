package tuner

import (
	"fmt"

	"evotune/engine"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/record"
	"evotune/tuner/search"
	"evotune/tuner/stats"
)

// ProofOpenings are the openings the verifications of a run of configuration c drew, given
// its tuning openings (tuning), the generations of its stored checkpoints and the most
// games any stored verification of it played (0: none stored): the final verification's,
// its ladder's rungs' and a later verify's (the run's seed, the longest of their lengths)
// and each checkpoint's (its generation's seed). A proof after the run (match
// --exclude-run) leaves them out, so that it does not replay the run's own verification.
// A verification of G games plays the first G/2 openings of its list (a book's or an
// opening file's held-out half holds all of them), so only those count: a run that
// verified nothing leaves the proof a book's whole held-out half but one opening.
// The error names what of c cannot be resolved.
func ProofOpenings(c config.Config, tuning map[string]bool, checkpoints []int, games int) (arena.Openings, error) {
	plan, err := c.Plan()
	if err != nil {
		return nil, err
	}
	games = max(games, c.VerifyGames, c.VerifyDepthGames, c.VerifyRungGames, 2)
	vc := ladder.VerifyConfig{Setup: arena.GameSetup{Game: plan.Game, Board: c.Board}, OpeningSpec: c.VerifyOpenings, OpeningList: c.VerifyOpeningList,
		Book: c.BookList, BookLabel: c.Book, Exclude: tuning, Games: games, Seed: c.Seed}
	var out arena.Openings
	seeds := []int64{c.Seed}
	for _, gen := range checkpoints {
		seeds = append(seeds, checkpointSeed(c.Seed, gen))
	}
	for i, seed := range seeds {
		vc.Seed = seed
		if i > 0 {
			vc.Games = max(c.VerifyGames, 2)
		}
		ops, _, err := vc.Openings()
		if err != nil {
			return nil, err
		}
		out = append(out, ops[:min(len(ops), max(vc.Games/2, 1))]...)
	}
	return out.Distinct(), nil
}

// checkpointSeed is the seed of the openings of generation gen's checkpoint in a run
// seeded with seed.
func checkpointSeed(seed int64, gen int) int64 {
	return int64(search.Mix(uint64(seed)^search.Mix(uint64(gen)<<8|search.StreamCheck)) >> 1)
}

// verifyChampion plays the run's champion against the paper's weights on held-out
// openings drawn from seed, with setup's limits.
func (t *Tuner) verifyChampion(setup arena.GameSetup, seed int64, games int, sprt *stats.SPRT) (ladder.Verification, error) {
	champ, champExt, err := t.side(t.rep.summary.BestGenes)
	if err != nil {
		return ladder.Verification{}, err
	}
	base, err := t.baselineRef()
	if err != nil {
		return ladder.Verification{}, err
	}
	t.report(record.Event{Verifying: true, GamesTotal: games, Champion: t.rep.summary.Best, VerifyDepth: setup.Limits.Depth})
	return ladder.Verify(t.ctx, ladder.VerifyConfig{Setup: setup, Champion: champ, ChampionID: t.rep.summary.Best, Games: games,
		ChampionExt: champExt, BaselineExt: base.Ext,
		OpeningSpec: t.cfg.VerifyOpenings, OpeningList: t.cfg.VerifyOpeningList, Book: t.cfg.BookList, BookLabel: t.cfg.Book,
		Exclude: t.draws.tuningOpenings, Seed: seed, SPRT: sprt, Workers: t.cfg.Workers},
		func(done, total int, _ stats.Result) {
			t.report(record.Event{Verifying: true, GamesDone: done, GamesTotal: total})
		})
}

// championIsBaseline reports whether the champion's genes are the baseline's (the paper's
// weights or the layout's defaults): a match against them would measure nothing.
func (t *Tuner) championIsBaseline() bool {
	return fmt.Sprint(t.rep.summary.BestGenes) == fmt.Sprint(t.plan.Layout.Defaults())
}

// unmeasured is the verification of a champion that is the baseline: no games, stored
// so that every reader shows "not measured" (NULL), never a measured Elo of 0.
func (t *Tuner) unmeasured(lim engine.Limits) ladder.Verification {
	return ladder.Verification{Champion: t.rep.summary.Best, Opponent: "baseline", Openings: "none: the champion is the baseline", Limits: lim, Baseline: true}
}

// checkpoint plays the held-out check of the current champion (VerifyGames games, no
// SPRT, openings from the generation's own seed). A champion that is still the paper's
// weights is Elo 0 exactly and plays no games.
func (t *Tuner) checkpoint() (*ladder.Verification, error) {
	var v ladder.Verification
	if t.championIsBaseline() {
		v = t.unmeasured(t.setup.Limits)
	} else {
		var sprt *stats.SPRT
		if t.cfg.StopWhenProven > 0 {
			def := stats.DefaultSPRT // a copy: the match fills in its own
			sprt = &def
		}
		var err error
		if v, err = t.verifyChampion(t.setup, checkpointSeed(t.cfg.Seed, t.gen), t.cfg.VerifyGames, sprt); err != nil {
			return nil, fmt.Errorf("checkpoint: %w", err)
		}
	}
	v.Generation, v.Elapsed = t.gen, t.elapsed()
	if v.Games > 0 {
		t.proof.elos = append(t.proof.elos, v.Elo)
		if k := t.cfg.StopWhenProven; k > 0 && v.Verdict == stats.AcceptH1 && ladder.Plateau(t.proof.elos, k) {
			p := v
			t.proof.proven.Store(&p)
		}
	}
	return &v, nil
}
