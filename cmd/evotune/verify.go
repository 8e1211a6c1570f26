package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"evotune/db"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/progress"
	"evotune/tuner/runstore"
	"evotune/tuner/stats"
)

// verifyOpts are the verify command's flags: the run's database, the individual, the
// games and SPRT of each rung, the openings, workers, output and the headline choice.
type verifyOpts struct {
	dbPath     string
	individual string
	games      int
	sprt       string
	openings   string
	workers    int
	json       bool
	headline   string
	allow      []string
	cluster    clusterOpts
	// the ladder's rungs after the tuning condition
	depth     int
	nodes     int64
	tc        string
	moveTime  time.Duration
	opponents []string
	oppOpts   []string
	logDir    string
}

func newVerifyCmd() *cobra.Command {
	var o verifyOpts
	c := &cobra.Command{
		Use:   "verify RUN [--games N] [--sprt …] [--openings builtin|random|FILE] [--verify-tc TC] [--verify-opponent cmd:…] [--db FILE]",
		Short: "Play a run's champion against the paper's weights on held-out openings, under the tuning condition and the rungs named, and store the ladder",
		Long: "verify plays a verification ladder: the champion (or --individual) against the baseline (the paper's weights, or an outside\n" +
			"engine's layout defaults) on openings the run never played, first under the tuning condition, then under each rung named:\n" +
			"a deeper search (--verify-depth), a node count (--verify-nodes), a chess clock (--verify-tc), a time per move\n" +
			"(--verify-move-time), and other engines (--verify-opponent, each played by the champion and by the baseline on the\n" +
			"same openings: the rung is the champion's Elo gain against it). Each rung is stored as soon as it is played; the same\n" +
			"command after an interruption continues from the stored rungs.",
		Args: cobra.ExactArgs(1),
		Example: "  evotune verify 1 --games 200\n" +
			"  evotune verify 1 --individual 1-g4-02 --games 400 --sprt elo0=0,elo1=20\n" +
			"  evotune verify 3 --games 200 --verify-tc 10+0.1 --verify-opponent cmd:/usr/games/stockfish --verify-opponent-option 'Skill Level=3' --allow-engine cmd:/usr/games/toga2\n" +
			"  evotune verify 1 --games 400 --verify-depth 5",
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd.Context(), o, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := c.Flags()
	f.StringVar(&o.dbPath, "db", "evotune.db", "SQLite database file")
	f.StringVar(&o.individual, "individual", "", "verify this individual instead of the run's best")
	f.IntVar(&o.games, "games", config.DefaultVerifyGames, "games at most (even); fewer if the SPRT decides")
	f.StringVar(&o.sprt, "sprt", sprtDefault, "SPRT parameters")
	f.StringVar(&o.openings, "openings", "", "random (default: the held-out half of the opening space), builtin or an opening file; the run's openings are always excluded")
	f.IntVar(&o.workers, "workers", runtime.NumCPU(), "games played at once")
	f.BoolVar(&o.json, "json", false, "print JSON")
	f.StringArrayVar(&o.allow, "allow-engine", nil, "an outside engine's run: its engine command line ('cmd:PROG ARGS', compared whole), which this machine may run (a database can come from someone else)")
	f.StringVar(&o.headline, "headline", db.HeadlineLargest, "which stored verification heads the run (runs, the dashboard, exports): largest (the most games) or latest (this one); every verification is kept either way")
	f.IntVar(&o.depth, "verify-depth", 0, "a rung at this search depth (the built-in engines; UCI go depth)")
	f.Int64Var(&o.nodes, "verify-nodes", 0, "a rung at this many nodes per move (UCI go nodes; the built-in engines' node limit)")
	f.StringVar(&o.tc, "verify-tc", "", "a rung under this chess clock, e.g. 60+0.6 (UCI, Gomocup and the built-in engines)")
	f.DurationVar(&o.moveTime, "verify-move-time", 0, "a rung at this time per move, e.g. 500ms (every engine)")
	f.StringArrayVar(&o.opponents, "verify-opponent", nil, "a rung against this engine, cmd:PATH ARGS: the champion and the baseline each play it on the same openings (repeatable)")
	f.StringArrayVar(&o.oppOpts, "verify-opponent-option", nil, "an option of every --verify-opponent, NAME=VALUE (repeatable)")
	f.StringVar(&o.logDir, "engine-log", "", "keep each outside engine's transcript of each game in DIR/rungR/pairNNNN-gameJ-COLOUR.log, headed by the values it played with (DIR is created; each game then starts its engines anew)")
	addClusterFlags(c, &o.cluster)
	return c
}

func runVerify(ctx context.Context, o verifyOpts, arg string, out, errOut io.Writer) error {
	runID, err := parseRunID(arg)
	if err != nil {
		return err
	}
	prog := progress.NewMatch(errOut, "verification")
	req := runstore.VerifyRequest{Individual: o.individual, Games: o.games, SPRT: o.sprt,
		Openings: o.openings, Workers: o.workers, Progress: prog.Update, Log: errOut, Headline: o.headline, Allow: o.allow, Command: commandLine(),
		Depth: o.depth, Nodes: o.nodes, TC: o.tc, MoveTime: o.moveTime.Seconds(), Opponents: o.opponents, OpponentOptions: o.oppOpts, EngineLogDir: o.logDir,
		Alive: processAlive,
		RungStart: func(r ladder.Rung, i, n, games int) {
			if n > 1 {
				prog.Finish()
				fmt.Fprintf(errOut, "rung %d/%d: %s, %d games\n", i+1, n, r.Condition(), games)
			}
		},
		Attach: func(s *arena.GameSetup) (func(), error) {
			return o.cluster.attach(ctx, errOut, func(r arena.BatchRunner) { s.Runner = r })
		}}
	if _, err := req.Check(); err != nil { // before the database is opened
		return err
	}
	d, run, err := openRun(ctx, o.dbPath, runID)
	if err != nil {
		return err
	}
	defer d.Release() // no end-of-process checkpoint while readers may be reading
	req.Run = run
	start := time.Now()
	ver, id, err := runstore.Verify(ctx, d, req)
	prog.Finish()
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(out, verifyJSON{ver, rungRows(ver)})
	}
	fmt.Fprintf(out, "verify run %d: %s vs baseline, %d games (%d distinct pairs) on %s, %.1fs\n", runID, id, ver.Games, ver.Pairs, ver.Openings, time.Since(start).Seconds())
	if ver.Warning != "" {
		fmt.Fprintln(out, "warning: "+ver.Warning)
	}
	printVerification(out, ver)
	for _, r := range ver.Ladder {
		printRung(out, r)
	}
	if len(ver.Ladder) > 0 {
		printLadder(out, ver)
	}
	fmt.Fprintf(out, "stored as verification %d of run %d; %s\n", ver.ID, runID, ver.Headline)
	return nil
}

func printVerification(out io.Writer, v ladder.Verification) {
	e := &stats.Estimate{Score: v.Score, Elo: v.Elo, CI95: v.EloCI95, EloLow: v.EloLow, EloHigh: v.EloHigh, LOS: v.LOS, Model: "pentanomial"}
	if v.Games == 0 {
		e = nil
	}
	fmt.Fprint(out, stats.Report(v.Result, e, v.SPRT, v.LLR, v.LLRLower, v.LLRUpper, v.Verdict))
}

// printRung prints a ladder's rung after the first: its condition, games and warning, and
// its match (an opponent rung: the champion's match against the opponent, then the
// baseline's).
func printRung(out io.Writer, r ladder.Verification) {
	fmt.Fprintf(out, "rung %d, %s: %d games (%d distinct pairs)\n", r.Rung, r.Condition, r.Games, r.Pairs)
	if r.Warning != "" {
		fmt.Fprintln(out, "warning: "+r.Warning)
	}
	if r.ChampionMatch == nil || r.BaselineMatch == nil {
		printVerification(out, r)
		return
	}
	fmt.Fprintf(out, "the champion against %s:\n", r.Condition)
	printVerification(out, *r.ChampionMatch)
	fmt.Fprintf(out, "the baseline against %s:\n", r.Condition)
	printVerification(out, *r.BaselineMatch)
}

// printLadder prints verification v's ladder as a table (rung, condition, games, Elo ±
// 95% CI, whether the champion's gain holds) and, after it, each rung that does not hold
// or is not proven in words a user acts on.
func printLadder(out io.Writer, v ladder.Verification) {
	fmt.Fprintf(out, "proof ladder of %s:\n", v.Champion)
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  rung\tcondition\tgames\tElo ± 95% CI\tholds")
	for _, r := range v.Rungs() {
		elo := "—"
		if r.Games > 0 && !r.Unbounded {
			elo = stats.FormatElo(r.Elo, r.EloLow, r.EloHigh)
		}
		games := strconv.Itoa(r.Games)
		if b := r.BaselineMatch; b != nil {
			games += "+" + strconv.Itoa(b.Games)
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\n", r.Rung, r.Condition, games, elo, r.Holds)
	}
	tw.Flush()
	for _, f := range v.Failing() {
		fmt.Fprintln(out, "warning: the champion's gain "+f)
	}
}

// verifyJSON is verify --json's object: the verification (its first rung at the top, the
// others in ladder) and rungs, one short row per rung.
type verifyJSON struct {
	ladder.Verification
	Rungs []rungRow `json:"rungs"`
}

// MarshalJSON writes the verification's own JSON (ladder.Verification's: infinite values
// null) with rungs added.
func (v verifyJSON) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(v.Verification)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	if fields["rungs"], err = json.Marshal(v.Rungs); err != nil {
		return nil, err
	}
	return json.Marshal(fields)
}

// rungRow is one rung of a verification ladder as verify --json and exports list it.
type rungRow struct {
	Rung      int      `json:"rung"`
	Kind      string   `json:"kind"`
	Condition string   `json:"condition"`
	Games     int      `json:"games"`
	Elo       *float64 `json:"elo"`
	EloCI95   *float64 `json:"elo_ci95"`
	Holds     string   `json:"holds"`
}

// rungRows lists v's rungs; elo and elo_ci95 are null where no game was played or they
// are infinite (ladder.Verification.Bounded).
func rungRows(v ladder.Verification) []rungRow {
	var out []rungRow
	for _, r := range v.Rungs() {
		row := rungRow{Rung: r.Rung, Kind: r.Kind, Condition: r.Condition, Games: r.Games, Holds: r.Holds}
		if r.Games > 0 && !r.Unbounded && math.Abs(r.Elo) < 1e8 {
			e := r.Elo
			row.Elo = &e
			if r.Bounded() {
				ci := r.EloCI95
				row.EloCI95 = &ci
			}
		}
		out = append(out, row)
	}
	return out
}
