package runstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"evotune/db"
	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/outside"
	"evotune/tuner/record"
	"evotune/tuner/stats"
)

// LoadResume reads what tuner.Resume needs of run runID from d: the openings of every
// generation, the last generation's population (genes, parents, operator, results), the
// hall of fame and the admission tests (admitZ, the run's Config.AdmitZ, ranks them for
// ResumeState.Closest), the games and time so far, and every generation's method state. A run
// with no saved generation gives LastGeneration −1. Errors name the run and the row.
func LoadResume(ctx context.Context, d *db.DB, runID int64, admitZ float64) (record.ResumeState, error) {
	st := record.ResumeState{RunID: runID, LastGeneration: -1}
	gens, err := d.Generations(ctx, runID)
	if err != nil {
		return st, err
	}
	for i, g := range gens {
		if g.Generation != i {
			return st, fmt.Errorf("run %d: generation %d is missing", runID, i)
		}
		ops, err := g.Openings.Openings()
		if err != nil {
			return st, fmt.Errorf("run %d generation %d: %w", runID, i, err)
		}
		st.Openings = append(st.Openings, ops...)
	}
	if len(gens) == 0 {
		return st, nil
	}
	st.LastGeneration = len(gens) - 1
	checks, err := d.Checkpoints(ctx, runID)
	if err != nil {
		return st, err
	}
	for _, c := range checks {
		if c.Games > 0 && c.Elo != nil {
			st.CheckElos = append(st.CheckElos, *c.Elo)
		}
	}
	all, err := d.Genomes(ctx, runID)
	if err != nil {
		return st, err
	}
	byID := map[string]db.GenomeRow{}
	for _, g := range all {
		byID[g.ID] = g
	}
	ind := func(id string, r db.IndividualRow) (record.ResumeIndividual, error) {
		g, ok := byID[id]
		if !ok {
			return record.ResumeIndividual{}, fmt.Errorf("run %d: individual %s has no genome", runID, id)
		}
		out := record.ResumeIndividual{ID: id, Op: g.Operator, Born: g.Born, Round: r.Round,
			Stats: genomes.Stats{Wins: r.Wins, Draws: r.Draws, Losses: r.Losses, Penta: r.Penta}}
		for _, p := range []string{g.Parent1, g.Parent2} {
			if p != "" {
				out.Parents = append(out.Parents, p)
			}
		}
		var err error
		if out.Genes, err = g.Genes.Genes(); err != nil {
			return out, fmt.Errorf("run %d: individual %s: %w", runID, id, err)
		}
		return out, nil
	}
	for _, g := range gens {
		st.Elapsed = time.Duration(g.ElapsedMS) * time.Millisecond
		st.Games += g.Games
		st.GamesTime += time.Duration(g.GamesMS) * time.Millisecond
		if g.SlotMS != nil && g.Slots != nil && *g.Slots > 0 {
			st.SlotTime += time.Duration(*g.SlotMS) * time.Millisecond
			st.SlotCapacity += time.Duration(g.DurationMS*int64(*g.Slots)) * time.Millisecond
		}
	}
	if st.GameRecords, err = d.CountGames(ctx, runID); err != nil {
		return st, err
	}
	adms, err := d.Admissions(ctx, runID)
	if err != nil {
		return st, err
	}
	for _, a := range adms {
		st.Tested = append(st.Tested, a.Candidate)
		t := &record.Admission{Candidate: a.Candidate, Opponent: a.Opponent, Generation: a.Generation, Score: a.Score, ScoreSE: a.ScoreSE,
			Elo: a.Elo, EloSE: a.EloSE, OpponentScore: a.OppScore, Diff: a.Diff, DiffSE: a.DiffSE, Admitted: a.Admitted,
			Result: stats.Result{Wins: a.Wins, Draws: a.Draws, Losses: a.Losses, Penta: a.Penta}}
		if st.Closest == nil || t.LowerBound(admitZ) > st.Closest.LowerBound(admitZ) {
			st.Closest = t
		}
	}
	hof, err := d.HallOfFame(ctx, runID)
	if err != nil {
		return st, err
	}
	for _, h := range hof {
		in, err := ind(h.ID, db.IndividualRow{})
		if err != nil {
			return st, err
		}
		st.HallOfFame = append(st.HallOfFame, record.ResumeFamer{ID: h.ID, Generation: h.Admitted, Genes: in.Genes,
			Stats: genomes.Stats{Wins: h.Wins, Draws: h.Draws, Losses: h.Losses, Penta: h.Penta}})
	}
	for _, g := range gens {
		st.MethodStates = append(st.MethodStates, []byte(g.MethodState))
	}
	rows, err := d.Individuals(ctx, runID, st.LastGeneration)
	if err != nil {
		return st, err
	}
	for _, r := range rows {
		in, err := ind(r.ID, r)
		if err != nil {
			return st, err
		}
		st.Population = append(st.Population, in)
	}
	return st, nil
}

// Openings returns the keys (arena.Key) of every opening run runID's generations used
// (racing, admission): the openings a fair verification or match of its individuals holds
// out. The error names a generation whose openings do not decode.
func Openings(ctx context.Context, d *db.DB, runID int64) (map[string]bool, error) {
	gens, err := d.Generations(ctx, runID)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, g := range gens {
		ops, err := g.Openings.Openings()
		if err != nil {
			return nil, fmt.Errorf("run %d generation %d: %w", runID, g.Generation, err)
		}
		for _, op := range ops {
			out[arena.Key(op)] = true
		}
	}
	return out, nil
}

// OpeningsAt opens the database at path read-only and returns Openings of run runID,
// which must be a run of game (the error says whose it is).
func OpeningsAt(ctx context.Context, path string, runID int64, game string) (map[string]bool, error) {
	d, err := db.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	run, err := d.Run(ctx, runID)
	if err != nil {
		return nil, err
	}
	if run.Game != game {
		return nil, fmt.Errorf("run %d is a %s run, not %s", runID, run.Game, game)
	}
	return Openings(ctx, d, runID)
}

// ProofExclusion opens the database at path read-only and returns what a proof after run
// runID (which must be a run of game) leaves out, as opening keys: the run's tuning
// openings and the openings its verifications drew (tuner.ProofOpenings: the final
// verification, the ladder, checkpoints and later verifies), and how many of each.
func ProofExclusion(ctx context.Context, path string, runID int64, game string) (exclude map[string]bool, tuning, verified int, err error) {
	d, err := db.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer d.Close()
	run, err := d.Run(ctx, runID)
	if err != nil {
		return nil, 0, 0, err
	}
	if run.Game != game {
		return nil, 0, 0, fmt.Errorf("run %d is a %s run, not %s", runID, run.Game, game)
	}
	if exclude, err = Openings(ctx, d, runID); err != nil {
		return nil, 0, 0, err
	}
	tuning = len(exclude)
	cfg, err := config.DecodeConfig(string(run.Config))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("run %d: %w", runID, err)
	}
	cps, err := d.Checkpoints(ctx, runID)
	if err != nil {
		return nil, 0, 0, err
	}
	var gens []int
	for _, c := range cps {
		gens = append(gens, c.Generation)
	}
	vs, err := d.Verifications(ctx, runID)
	if err != nil {
		return nil, 0, 0, err
	}
	most := 0
	for _, v := range vs {
		var r struct{ Games int }
		if json.Unmarshal([]byte(v.Result), &r) == nil {
			most = max(most, 2*r.Games)
		}
	}
	ops, err := tuner.ProofOpenings(cfg, exclude, gens, most)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("run %d's verification openings: %w", runID, err)
	}
	for _, o := range ops {
		if k := arena.Key(o); !exclude[k] {
			exclude[k] = true
			verified++
		}
	}
	return exclude, tuning, verified, nil
}

// Individual is one stored individual: its genome row with the genes decoded, its results
// in every generation it played (oldest first) and its hall-of-fame row (nil: not a
// member).
type Individual struct {
	Run     int64              `json:"run"`
	Genome  db.GenomeRow       `json:"genome"`
	Genes   map[string]float64 `json:"genes"`
	History []db.IndividualRow `json:"history"`
	// Famer is its hall-of-fame entry (null: not a member).
	Famer *db.FamerRow `json:"hall_of_fame"`
}

// LoadIndividual reads individual id (such as "3-g2-05"; its run is in the ID) from d.
// The error names a malformed ID, an unknown individual or genes that do not decode.
func LoadIndividual(ctx context.Context, d *db.DB, id string) (Individual, error) {
	run, err := genomes.RunOfIndividual(id)
	if err != nil {
		return Individual{}, err
	}
	g, err := d.Genome(ctx, run, id)
	if err != nil {
		return Individual{}, err
	}
	v := Individual{Run: run, Genome: g}
	if v.Genes, err = g.Genes.Genes(); err != nil {
		return v, fmt.Errorf("individual %s: %w", id, err)
	}
	if v.History, err = d.History(ctx, run, id); err != nil {
		return v, err
	}
	v.Famer, err = d.HallOfFameMember(ctx, run, id)
	return v, err
}

// Exported is an individual's weights as a file: Data, in the weights-file format of
// engine.MarshalWeightsFile (a built-in engine's run) or the outside engine's own values
// format (json, evotune or ini: the file its {weights} argument reads), and What, a
// description of it for the user ("gomoku weights of individual 1-g3-02 (run 1)").
type Exported struct {
	Data []byte
	What string
	// Provenance, for a format with no room for it (setoption lines), is the provenance
	// and proof as comment lines, for the command to show beside the data.
	Provenance string
}

// Export turns individual id of run (its best, the champion, when id is "") into the
// file the run's engine loads. A built-in engine's file carries the search limits the
// run's verification played (config.Plan.Limits) and its provenance: program, run,
// individual, its last generation's games and fitness, and the verification's Elo when
// this individual is the verified champion. The error names a run with no finished
// generation, an individual of another run, or a stored row that does not decode.
// format "" writes that file; an outside engine's run may ask for outside.ExportOpenBench or
// outside.ExportSetoption instead (Outside.ValuesIn).
func Export(ctx context.Context, d *db.DB, run db.Run, id, program, format string) (Exported, error) {
	if id == "" {
		if run.BestIndividual == "" {
			return Exported{}, fmt.Errorf("run %d has no finished generation yet", run.ID)
		}
		id = string(run.BestIndividual)
	}
	if r, err := genomes.RunOfIndividual(id); err != nil {
		return Exported{}, err
	} else if r != run.ID {
		return Exported{}, fmt.Errorf("--individual %s belongs to run %d, not %d", id, r, run.ID)
	}
	v, err := LoadIndividual(ctx, d, id)
	if err != nil {
		return Exported{}, err
	}
	cfg, err := config.DecodeConfig(string(run.Config))
	if err != nil {
		return Exported{}, fmt.Errorf("run %d: %w", run.ID, err)
	}
	plan, err := cfg.Plan()
	if err != nil {
		return Exported{}, fmt.Errorf("run %d: %w", run.ID, err)
	}
	if format != "" && cfg.Engine == "" {
		return Exported{}, fmt.Errorf("--format %s: run %d tuned the built-in %s engine, whose values are a weights file (leave --format out)", format, run.ID, run.Game)
	}
	if cfg.Engine != "" {
		x, err := plan.Layout.FromNamed(v.Genes)
		if err != nil {
			return Exported{}, err
		}
		o, err := outside.NewOutside(cfg, plan.Layout)
		if err != nil {
			return Exported{}, err
		}
		prov := &engine.Provenance{Program: program, Run: run.ID, Individual: id, Proof: proofOf(string(run.Verification), id)}
		data, err := o.ValuesIn(format, x, cfg.SPSAParams(), prov)
		note := ""
		if err == nil && (format == outside.ExportOpenBench || format == outside.ExportSetoption) {
			prov.RunName, prov.Created = run.Name, time.Now().UTC().Format(time.RFC3339)
			if format == outside.ExportOpenBench {
				// An OpenBench list skips # lines: the provenance and the proof head it.
				data = append([]byte(prov.Comment()), data...)
			} else {
				// UCI has no comment: setoption lines go to the engine as they are, and the
				// provenance is told beside them.
				note = prov.Comment()
			}
		}
		if format == "" {
			format = cfg.WeightsFormat
		}
		if format == "" {
			format = outside.FormatJSON
		}
		return Exported{Data: data, What: fmt.Sprintf("values of individual %s (run %d) for %s, as %s", id, run.ID, cfg.Engine, format), Provenance: note}, err
	}
	w, err := plan.Weights(v.Genes)
	if err != nil {
		return Exported{}, err
	}
	lim := plan.Limits // the limits the run's verification played
	prov := &engine.Provenance{Program: program, Created: time.Now().UTC().Format(time.RFC3339),
		Run: run.ID, RunName: run.Name, Individual: id}
	if n := len(v.History); n > 0 {
		last := v.History[n-1]
		prov.Generation, prov.Games = last.Generation, last.Games
		f := last.Fitness
		prov.Fitness = &f
	}
	if run.Verification != "" {
		var ver struct { // ladder.Verification's fields, null where nothing was measured
			Champion string   `json:"champion"`
			Elo      *float64 `json:"elo"`
			CI95     *float64 `json:"elo_ci95"`
			Games    int      `json:"games"`
		}
		// Only the verified individual gets the verification's Elo.
		if json.Unmarshal([]byte(run.Verification), &ver) == nil && ver.Champion == id && ver.Games > 0 {
			prov.EloVsBaseline, prov.EloCI95 = ver.Elo, ver.CI95
		}
	}
	prov.Proof = proofOf(string(run.Verification), id)
	data, err := engine.MarshalWeightsFile(w, &lim, prov)
	return Exported{Data: data, What: fmt.Sprintf("%s weights of individual %s (run %d)", run.Game, id, run.ID)}, err
}

// proofOf is headline verification ver (a run's stored JSON) as a weights file's
// provenance gives it, rung by rung — the tuning condition first, then the ladder's rungs
// — when individual id is the one verified (nil otherwise). Every export carries it: an
// OpenBench list or setoption lines, whose comment has no other Elo, as well as a weights
// file.
func proofOf(ver, id string) []engine.ProofRung {
	if ver == "" {
		return nil
	}
	var v ladder.Verification
	if json.Unmarshal([]byte(ver), &v) != nil || v.Champion != id {
		return nil
	}
	var out []engine.ProofRung
	for _, r := range v.Rungs() {
		p := engine.ProofRung{Condition: r.Condition, Games: r.Games, Holds: r.Holds}
		if r.Games > 0 && !r.Unbounded {
			e, ci := r.Elo, r.EloCI95
			p.Elo, p.EloCI95 = &e, &ci
		}
		out = append(out, p)
	}
	return out
}
