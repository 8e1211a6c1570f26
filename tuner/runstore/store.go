// Package runstore is the SQLite side of a run: it writes a run's rows for the tuner
// (Store, the tuner's Store interface over package db) and reads a stored run back as the
// tuner's values — the state a resume continues from (LoadResume), the openings a run used
// (Openings, so matches can hold them out), an individual's weights file (Export). The
// tuner and db do not import each other; commands use this package instead of turning
// rows into tuner values themselves, so that commands stay thin.
package runstore

import (
	"context"
	"encoding/json"
	"fmt"

	"evotune/db"
	"evotune/tuner/ga"
	"evotune/tuner/ladder"
	"evotune/tuner/record"
	"evotune/tuner/stats"
)

// Store adapts the db package to the tuner's Store interface (the tuner declares what it
// needs; neither package imports the other): a run's rows written as record.Store asks.
type Store struct {
	d      *db.DB
	admitZ float64 // the run's AdmitZ, for the stored lower bounds
}

// New returns the Store of database d for a run whose Config.AdmitZ is admitZ (the
// hall of fame's stored lower bounds use it; 0 when only verifications are saved).
func New(d *db.DB, admitZ float64) Store { return Store{d: d, admitZ: admitZ} }

// CreateRun inserts a running run (record.Store).
func (s Store) CreateRun(ctx context.Context, r record.RunRecord) (int64, error) {
	return s.d.CreateRun(ctx, db.Run{Name: r.Name, Game: r.Game, Seed: r.Seed, Config: db.JSONText(r.Config), ProgramVersion: r.ProgramVersion, PID: r.PID})
}

// SetRunStatus records a run's status and error text (record.Store).
func (s Store) SetRunStatus(ctx context.Context, id int64, status, errText string) error {
	return s.d.SetRunStatus(ctx, id, status, errText)
}

// SaveVerification stores the champion's verification match at the end of a run as a new
// verification of the run, the run's headline when it has the most games (record.Store).
func (s Store) SaveVerification(ctx context.Context, id int64, v ladder.Verification) error {
	_, _, err := s.AddVerification(ctx, id, v, db.SourceTune, db.HeadlineLargest)
	return err
}

// SaveRung stores rung v of the run's ladder key as soon as it is played
// (record.RungStore).
func (s Store) SaveRung(ctx context.Context, id int64, key string, v ladder.Verification) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	kind := v.Kind
	if kind == "" {
		kind = ladder.RungTuning
	}
	return s.d.SaveRung(ctx, id, key, v.Rung, kind, v.Condition, string(data))
}

// StoredRungs returns the rungs of the run's ladder key stored by SaveRung and not yet part
// of a verification, by rung index (record.RungStore).
func (s Store) StoredRungs(ctx context.Context, id int64, key string) (map[int]ladder.Verification, error) {
	rows, err := s.d.PendingRungs(ctx, id, key)
	if err != nil {
		return nil, err
	}
	out := map[int]ladder.Verification{}
	for i, r := range rows {
		var v ladder.Verification
		if err := json.Unmarshal([]byte(r), &v); err != nil {
			return nil, fmt.Errorf("run %d: stored rung %d: %w", id, i, err)
		}
		out[i] = v
	}
	return out, nil
}

// SaveLadder stores the run's finished ladder v (its rungs stored under key) as a new
// verification, the run's headline when it has the most games (record.RungStore).
func (s Store) SaveLadder(ctx context.Context, id int64, key string, v ladder.Verification) error {
	_, _, err := s.AddLadder(ctx, id, v, db.SourceTune, db.HeadlineLargest, key)
	return err
}

// AddLadder is AddVerification for a ladder whose rungs SaveRung stored under key: they
// become the new verification's.
func (s Store) AddLadder(ctx context.Context, id int64, v ladder.Verification, source, policy, key string) (row, headline int64, err error) {
	data, err := json.Marshal(v)
	if err != nil {
		return 0, 0, err
	}
	return s.d.AddLadder(ctx, id, string(data), source, policy, key)
}

// AddVerification stores v as a new verification of run id from source (db.SourceTune,
// db.SourceVerify), the headline chosen by policy (db.HeadlineLargest, db.HeadlineLatest);
// it returns the new row's ID and the headline's.
func (s Store) AddVerification(ctx context.Context, id int64, v ladder.Verification, source, policy string) (row, headline int64, err error) {
	data, err := json.Marshal(v)
	if err != nil {
		return 0, 0, err
	}
	return s.d.AddVerification(ctx, id, string(data), source, policy)
}

// SaveGeneration writes one generation in one transaction (record.Store, db.SaveGeneration).
func (s Store) SaveGeneration(ctx context.Context, g record.GenerationRecord) error {
	opp, _ := json.Marshal(g.Opponents)
	op, _ := json.Marshal(g.Openings)
	data := db.GenerationData{RunID: g.RunID, Generation: db.GenerationRow{
		Generation: g.Generation, FitMin: g.FitMin, FitMean: g.FitMean, FitMax: g.FitMax, FitStd: g.FitStd,
		Diversity: g.Diversity, Games: g.Games, DurationMS: g.Duration.Milliseconds(), GamesMS: g.GamesTime.Milliseconds(),
		Best: g.Best, Champion: g.Champion, ElapsedMS: g.Elapsed.Milliseconds(), Opponents: db.JSONText(opp), Openings: db.JSONText(op), MethodState: db.JSONText(methodState(g.MethodState)),
	}}
	if g.Slots > 0 {
		ms, slots := g.SlotTime.Milliseconds(), g.Slots
		data.Generation.SlotMS, data.Generation.Slots = &ms, &slots
	}
	if a := g.Admission; a != nil {
		data.Admission = &db.AdmissionRow{Generation: g.Generation, Candidate: a.Candidate, Opponent: a.Opponent, Games: a.Games(),
			Wins: a.Wins, Draws: a.Draws, Losses: a.Losses, Penta: a.Penta, Score: a.Score, ScoreSE: a.ScoreSE, Elo: a.Elo, EloSE: a.EloSE,
			OppScore: a.OpponentScore, Diff: a.Diff, DiffSE: a.DiffSE, Admitted: a.Admitted}
	}
	z := ga.FamilyZ(len(g.HallOfFame), s.admitZ)
	for _, h := range g.HallOfFame {
		row := db.FamerRow{ID: h.ID, Admitted: h.Generation, Games: h.Stats.Games(), Wins: h.Stats.Wins, Draws: h.Stats.Draws,
			Losses: h.Stats.Losses, Penta: h.Stats.Penta}
		if elo, se, ok := h.Estimate(); ok {
			lcb := elo - z*se
			row.Elo, row.EloSE, row.EloLCB = &elo, &se, &lcb
		}
		data.HallOfFame = append(data.HallOfFame, row)
	}
	if c := g.Checkpoint; c != nil {
		row := &db.CheckpointRow{Generation: g.Generation, ElapsedMS: c.Elapsed.Milliseconds(), Champion: c.Champion, Depth: c.Limits.Depth,
			Games: c.Games, Pairs: c.Pairs, Wins: c.Wins, Draws: c.Draws, Losses: c.Losses}
		if c.Games > 0 { // else NULL: nothing was measured (the champion is the paper's weights)
			row.Score, row.Elo, row.EloCI95 = &c.Score, &c.Elo, &c.EloCI95
		}
		data.Checkpoint = row
	}
	for _, gn := range g.NewGenomes {
		genes, _ := json.Marshal(gn.Genes)
		row := db.GenomeRow{ID: gn.ID, Born: gn.Born, Operator: gn.Operator, Genes: db.JSONText(genes)}
		if len(gn.Parents) > 0 {
			row.Parent1 = gn.Parents[0]
		}
		if len(gn.Parents) > 1 {
			row.Parent2 = gn.Parents[1]
		}
		data.NewGenomes = append(data.NewGenomes, row)
	}
	for _, in := range g.Individuals {
		row := db.IndividualRow{Generation: g.Generation, ID: in.ID, Rank: in.Rank, Round: in.Round,
			Fitness: in.Fitness, Score: in.Stats.Score(), Games: in.Stats.Games(), Wins: in.Stats.Wins, Draws: in.Stats.Draws,
			Losses: in.Stats.Losses, Penta: in.Stats.Penta}
		if e, err := (stats.Result{Wins: in.Stats.Wins, Draws: in.Stats.Draws, Losses: in.Stats.Losses, Penta: in.Stats.Penta}).Estimate(); err == nil {
			row.ScoreSE, row.Elo, row.EloCI95 = &e.StdErr, &e.Elo, &e.CI95
		}
		data.Individuals = append(data.Individuals, row)
	}
	for _, gr := range g.GameResults {
		moves, _ := json.Marshal(gr.Record.Moves)
		data.Games = append(data.Games, db.GameRow{Generation: g.Generation, Individual: gr.Individual, Opponent: gr.Opponent,
			Opening: gr.Opening, Colour: gr.Colour.String(), Result: gr.Record.Outcome.String(), Score: gr.Score,
			Plies: gr.Record.Plies, Moves: db.JSONText(moves), Nodes: gr.Record.Nodes, DurationMS: gr.Record.Duration.Milliseconds(),
			Forfeit: db.OptText(gr.Record.Forfeit), Depth: gr.Depth, Round: gr.Round})
	}
	return s.d.SaveGeneration(ctx, data)
}

// methodState is a generation's method state as stored: {} when the method keeps none.
func methodState(b []byte) string {
	if len(b) == 0 {
		return "{}"
	}
	return string(b)
}
