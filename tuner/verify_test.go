package tuner

import (
	"context"
	"strings"
	"testing"

	"evotune/engine/gomoku"
	"evotune/tuner/arena"
	"evotune/tuner/ga"
)

// TestVerificationIsHeldOut: the verification match never uses a tuning opening.
func TestVerificationIsHeldOut(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	cfg.VerifyGames = 20
	cfg.AdmitGames = 0 // the champion is the race winner, not the paper's weights (which play no verification)
	st := runSmall(t, cfg)
	v := st.verification
	if v == nil || v.Games == 0 || v.Champion == "" || v.Opponent != "baseline" {
		t.Fatalf("verification %+v", v)
	}
	tuning := map[string]bool{}
	for _, g := range st.gens {
		for _, o := range g.Openings {
			tuning[arena.Key(o)] = true
		}
	}
	// Recompute the verification's openings the way Verify chooses them.
	ops, _, err := arena.SelectOpenings("builtin", gomoku.Game{}, 0, 10, cfg.Seed, tuning)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ops {
		if tuning[arena.Key(o)] {
			t.Fatalf("opening %v used in tuning and verification", o)
		}
	}
	// Exclusion really removes: excluding every builtin opening leaves none.
	all, _ := arena.BuiltinOpenings(gomoku.Game{}, 0)
	ex := map[string]bool{}
	for _, o := range all {
		ex[arena.Key(o)] = true
	}
	if _, _, err := arena.SelectOpenings("builtin", gomoku.Game{}, 0, 10, 1, ex); err == nil {
		t.Fatal("no error with every opening excluded")
	}
	rnd, _, _ := arena.SelectOpenings("random", gomoku.Game{}, 0, 30, 1, tuning)
	for _, o := range rnd {
		if tuning[arena.Key(o)] {
			t.Fatalf("random verification opening %v was a tuning opening", o)
		}
	}

}

// TestBaselineChampionIsNotVerified: a run in which no candidate beat the paper's weights
// (an admission z no candidate meets) plays no verification games — the paper's weights
// against themselves measure nothing — and stores a verification with 0 games, which
// readers show as not measured; the summary says the champion is the baseline and names
// the closest hall-of-fame test.
func TestBaselineChampionIsNotVerified(t *testing.T) {
	cfg := smallConfig("gomoku", 2)
	cfg.VerifyGames, cfg.VerifyDepth = 20, 2
	cfg.AdmitGames, cfg.AdmitZ = 8, 10
	st := &memStore{}
	tu, err := New(cfg, st, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := tu.Run(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	v := st.verification
	if !sum.BaselineChampion || v == nil || v.Games != 0 || len(v.Ladder) != 0 || !strings.Contains(v.Openings, "baseline") {
		t.Fatalf("baseline champion %v, stored verification %+v", sum.BaselineChampion, v)
	}
	tested := tu.method.(*loopMethod).l.Method().(*ga.Generational).Tested()
	if sum.Tests == 0 || sum.Closest == nil || sum.Closest.Admitted || sum.Tests != tested {
		t.Fatalf("%d tests, closest %+v (tested %d)", sum.Tests, sum.Closest, tested)
	}
}
