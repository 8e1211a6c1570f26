package runstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"evotune/db"
	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/outside"
	"evotune/tuner/stats"
)

// VerifyRequest is a verification ladder of a stored run as `evotune verify` states it: the run,
// the individual (--individual; "" = the run's champion), Games (--games, even, at most;
// fewer when the SPRT decides), SPRT (--sprt, stats.ParseSPRT's text), Openings
// (--openings: random, builtin or a file; the run's own openings are always left out) and
// Workers (--workers).
type VerifyRequest struct {
	Run        db.Run
	Individual string
	Games      int
	SPRT       string
	Openings   string
	Workers    int
	// Attach, if set, is called with the games' setup before they are played (to set a
	// cluster runner); it returns what to call when the games are over.
	Attach func(*arena.GameSetup) (func(), error)
	// Progress is told the games played so far in the current rung (nil: nothing);
	// RungStart, if set, is told each rung as it starts: rung i of n, of games games.
	Progress  func(done, total int, r stats.Result)
	RungStart func(rung ladder.Rung, i, n, games int)
	// Log gets notes (a run's outside opponents, which a verification does not start).
	Log io.Writer
	// Allow lists the outside engine command lines this machine may run (an outside
	// engine's run: its engine must be among them, compared whole, as resume's
	// --allow-engine).
	Allow []string
	// Command is the command line as the user typed it ("evotune verify 1 --games 4 …"):
	// a refusal's suggestion repeats it whole with what to add ("" : the request's own
	// flags, as verifyCommand gives them).
	Command string
	// Headline picks the run's headline verification once this one is stored:
	// db.HeadlineLargest ("" too) or db.HeadlineLatest.
	Headline string
	// Depth, Nodes, TC, MoveTime and Opponents (with OpponentOptions) are the ladder's
	// rungs after the tuning condition (--verify-depth, --verify-nodes, --verify-tc,
	// --verify-move-time, --verify-opponent, --verify-opponent-option; config.Config's
	// VerifyDepth … VerifyOpponentOptions), each of Games games.
	Depth           int
	Nodes           int64
	TC              string
	MoveTime        float64
	Opponents       []string
	OpponentOptions []string
	// EngineLogDir, if set, keeps each outside engine's transcript of each game in
	// DIR/rungR/pairNNNN-gameJ-COLOUR.log (verify --engine-log), each headed by the values
	// the engine played with; each game then starts its engines anew.
	EngineLogDir string
	// Alive says whether a process lives: a ladder claimed by a live process (another
	// verify of the same ladder, db.ClaimLadder) is refused, one claimed by a dead process
	// taken over. nil: every other claimant counts as alive.
	Alive func(pid int) bool
}

// Check checks the request's own flags (--games, --sprt) before any file is opened, and
// returns the SPRT.
func (r VerifyRequest) Check() (stats.SPRT, error) {
	if r.Games < 2 || r.Games%2 != 0 {
		return stats.SPRT{}, fmt.Errorf("--games %d: want a positive even number", r.Games)
	}
	if r.Headline != "" && r.Headline != db.HeadlineLargest && r.Headline != db.HeadlineLatest {
		return stats.SPRT{}, fmt.Errorf("--headline %q: want %s (the verification of the most games heads the run) or %s", r.Headline, db.HeadlineLargest, db.HeadlineLatest)
	}
	sprt, err := stats.ParseSPRT(r.SPRT)
	if err != nil {
		return sprt, fmt.Errorf("--sprt: %w", err)
	}
	return sprt, nil
}

// Verify plays the champion (or the named individual) of stored run r.Run against the
// paper's weights (an outside engine's run: its layout's defaults) on openings the run
// never played, under the run's game, rule and limits, and stores the result as the run's
// verification. It returns the verification and the individual's ID. Errors name what is
// wrong: --games not even, --sprt, an individual of another run or the baseline, a run
// with no saved generation, a stored configuration this build refuses.
func Verify(ctx context.Context, d *db.DB, r VerifyRequest) (ladder.Verification, string, error) {
	var none ladder.Verification
	runID := r.Run.ID
	sprt, err := r.Check()
	if err != nil {
		return none, "", err
	}
	cfg, err := config.DecodeConfig(string(r.Run.Config))
	if err != nil {
		return none, "", fmt.Errorf("run %d: %w", runID, err)
	}
	cfg.Workers = r.Workers
	if len(cfg.Opponents) > 0 && r.Log != nil {
		// Verification plays the champion against the paper's weights only: the external
		// engines the stored configuration names are neither needed nor started.
		fmt.Fprintf(r.Log, "run %d's external opponents are not part of a verification and are not run: %s\n", runID, strings.Join(cfg.Opponents, "; "))
	}
	cfg.Opponents = nil
	// verify plays on --openings: the run's own verification openings are not used.
	cfg.VerifyOpenings, cfg.VerifyOpeningList = "", nil
	id := r.Individual
	if id == "" {
		id = string(r.Run.BestIndividual)
	}
	if id == "" {
		return none, "", fmt.Errorf("run %d has no saved generation to verify", runID)
	}
	v, err := LoadIndividual(ctx, d, id)
	if err != nil {
		return none, id, err
	}
	if v.Run != runID {
		return none, id, fmt.Errorf("--individual %s belongs to run %d, not %d", id, v.Run, runID)
	}
	if v.Genome.Operator == genomes.OpBaseline {
		return none, id, fmt.Errorf("run %d: %s is the baseline (the paper's weights, or the layout's defaults): a match against themselves measures nothing; name another individual with --individual ID", runID, id)
	}
	// The ladder asked for now, not the run's own.
	cfg.VerifyGames, cfg.VerifyDepth, cfg.VerifyDepthGames, cfg.VerifyRungGames = r.Games, r.Depth, 0, r.Games
	cfg.VerifyNodes, cfg.VerifyTC, cfg.VerifyMoveTime = r.Nodes, r.TC, r.MoveTime
	cfg.VerifyOpponents, cfg.VerifyOpponentOptions = r.Opponents, r.OpponentOptions
	cfg.Resolve()
	if err := cfg.Check(); err != nil {
		// A rung verify was asked for is named by its flag.
		var se *config.SettingError
		if errors.As(err, &se) && strings.HasPrefix(se.Key, "verify_") {
			if s, ok := config.LookupSetting(se.Key); ok && s.Flag != "" {
				return none, id, fmt.Errorf("--%s: %w", s.Flag, se.Err)
			}
		}
		return none, id, fmt.Errorf("run %d: %w", runID, err)
	}
	if cfg.Engine != "" {
		if err := allowEngines(runID, cmp.Or(r.Command, verifyCommand(runID, d.Path(), r)), []string{cfg.Engine}, r.Allow); err != nil {
			return none, id, err
		}
	}
	plan, setup, ext, err := tuner.Setup(cfg)
	if err != nil {
		return none, id, fmt.Errorf("run %d: %w", runID, err)
	}
	log := r.Log
	if log == nil {
		log = io.Discard
	}
	if err := outside.ProbeLadder(ctx, cfg, log); err != nil {
		return none, id, err // before any rung is played or stored
	}
	if r.Attach != nil {
		detach, err := r.Attach(&setup)
		if err != nil {
			return none, id, err
		}
		defer detach()
	}
	var champ engine.Weights
	var champExt, baseExt *protocol.ExternalSpec
	if ext != nil {
		// An outside engine's run: the engine with the individual's values against itself
		// with the layout's defaults.
		x, err := plan.Layout.FromNamed(v.Genes)
		if err != nil {
			return none, id, err
		}
		if champExt, err = ext.Spec(x); err != nil {
			return none, id, err
		}
		if baseExt, err = ext.Spec(plan.Layout.Defaults()); err != nil {
			return none, id, err
		}
	} else if champ, err = plan.Weights(v.Genes); err != nil {
		return none, id, err
	}
	exclude, err := Openings(ctx, d, runID)
	if err != nil {
		return none, id, err
	}
	rungs := cfg.Rungs()
	store := New(d, 0)
	key := ladder.Key(id, rungs, r.Games, r.Games, &sprt, r.Openings)
	policy := r.Headline
	if policy == "" {
		policy = db.HeadlineLargest
	}
	// One process plays a ladder at a time: a second verify of the same ladder would replace
	// the first's pending rungs with its own.
	alive := r.Alive
	if alive == nil {
		alive = func(int) bool { return true }
	}
	pid := os.Getpid()
	if err := d.ClaimLadder(ctx, runID, key, pid, alive); err != nil {
		var locked *db.LadderLockedError
		if errors.As(err, &locked) {
			return none, id, fmt.Errorf("%w (another evotune verify of the same champion, rungs, games and openings); wait for it to end: the same command then shows its result without playing a game", err)
		}
		return none, id, err
	}
	defer d.ReleaseLadder(context.WithoutCancel(ctx), runID, key, pid)
	// The same ladder asked again (the same champion, rungs, games, SPRT and openings) would
	// replay the same openings: it is not played again; only the headline is chosen.
	if row, head, result, found, err := d.ReuseLadder(ctx, runID, key, policy); err != nil {
		return none, id, err
	} else if found {
		var ver ladder.Verification
		if err := json.Unmarshal([]byte(result), &ver); err != nil {
			return none, id, fmt.Errorf("run %d: verification %d: %w", runID, row, err)
		}
		ver.ID = row
		ver.Headline = headlineText(row, head, policy)
		if r.Log != nil {
			fmt.Fprintf(r.Log, "run %d: this ladder was played as verification %d (the same champion, rungs, games, SPRT and openings): no game played again; other --games or --openings play another\n", runID, row)
		}
		return ver, id, nil
	}
	done, err := store.StoredRungs(ctx, runID, key)
	if err != nil {
		return none, id, err
	}
	if r.EngineLogDir != "" {
		setup.EngineLogDir = r.EngineLogDir
	}
	if len(done) > 0 && r.Log != nil {
		fmt.Fprintf(r.Log, "run %d: %d of this ladder's %d rungs were played before it stopped; they are kept, not played again\n", runID, len(done), len(rungs))
	}
	l := ladder.Ladder{Base: ladder.VerifyConfig{Setup: setup, Champion: champ, ChampionID: id, Games: r.Games, ChampionExt: champExt, BaselineExt: baseExt,
		OpeningSpec: r.Openings, Book: cfg.BookList, BookLabel: cfg.Book, Exclude: exclude, Seed: cfg.Seed, SPRT: &sprt, Workers: r.Workers},
		Rungs: rungs, RungGames: r.Games, OpponentSpec: cfg.LadderOpponentSpec(champExt), Done: done,
		Save: func(v ladder.Verification) error { return store.SaveRung(ctx, runID, key, v) }}
	if r.Progress != nil || r.RungStart != nil {
		l.Progress = func(rung ladder.Rung, i, d, total int, res stats.Result) {
			if d == 0 && r.RungStart != nil {
				r.RungStart(rung, i, len(rungs), total)
			}
			if r.Progress != nil {
				r.Progress(d, total, res)
			}
		}
	}
	ver, err := l.Play(ctx)
	if err != nil {
		return none, id, err
	}
	row, head, err := store.AddLadder(ctx, runID, ver, db.SourceVerify, policy, key)
	if err != nil {
		return ver, id, err
	}
	ver.ID = row
	ver.Headline = headlineText(row, head, policy)
	return ver, id, nil
}

// headlineText says which verification heads the run once verification row is stored (or
// taken up again) under policy: row, or head, which stays.
func headlineText(row, head int64, policy string) string {
	if head != row {
		return fmt.Sprintf("verification %d stays the run's headline (%s: it has more games; --headline %s makes the newest one the headline)", head, policy, db.HeadlineLatest)
	}
	return "this verification is now the run's headline"
}

// verifyCommand is the verify command line of request r, as a suggestion prints it (the
// flags that change what is played, then --db).
func verifyCommand(runID int64, dbPath string, r VerifyRequest) string {
	c := fmt.Sprintf("evotune verify %d --games %d", runID, r.Games)
	if r.Individual != "" {
		c += " --individual " + r.Individual
	}
	if r.Openings != "" {
		c += " --openings " + protocol.ShellQuote(r.Openings)
	}
	return c + " --db " + protocol.ShellQuote(dbPath)
}
