package db

import (
	"encoding/json"
	"fmt"
)

// The rows evotune stores, a Go type per table (schema/*.sql), and the JSON columns'
// type with their decoders; the queries are in runs.go, generations.go, comparisons.go and
// views.go.

// Run is one tuning run (table runs).
type Run struct {
	ID              int64    `json:"id"`
	Name            string   `json:"name"`
	Game            string   `json:"game"`
	Status          string   `json:"status"`
	Seed            int64    `json:"seed"`
	Config          JSONText `json:"config"`
	ProgramVersion  string   `json:"program_version"`
	PID             int      `json:"pid"`
	CreatedAt       string   `json:"created_at"`
	UpdatedAt       string   `json:"updated_at"`
	FinishedAt      OptText  `json:"finished_at"`
	GenerationsDone int      `json:"generations_done"`
	BestIndividual  OptText  `json:"best_individual"`
	BestFitness     *float64 `json:"best_fitness"`
	Error           OptText  `json:"error"`
	Verification    JSONText `json:"verification"`
}

// JSONText is a column that holds JSON (a run's config, a genome's genes, a generation's
// openings): in Go a string, in JSON output the value itself (not a string holding it);
// "" is null.
type JSONText string

// MarshalJSON writes the JSON the text holds (null when empty; a string if it is not JSON).
func (t JSONText) MarshalJSON() ([]byte, error) {
	if t == "" {
		return []byte("null"), nil
	}
	if !json.Valid([]byte(t)) {
		return json.Marshal(string(t))
	}
	return []byte(t), nil
}

// UnmarshalJSON keeps the raw JSON.
func (t *JSONText) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*t = ""
		return nil
	}
	*t = JSONText(data)
	return nil
}

// OptText is a text column that may be empty: null in JSON output when it is.
type OptText string

// MarshalJSON writes the text, or null when it is empty.
func (t OptText) MarshalJSON() ([]byte, error) {
	if t == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(t))
}

// UnmarshalJSON reads a string or null.
func (t *OptText) UnmarshalJSON(data []byte) error {
	var s *string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*t = ""
	if s != nil {
		*t = OptText(*s)
	}
	return nil
}

// Run statuses.
const (
	StatusRunning     = "running"
	StatusFinished    = "finished"
	StatusStopped     = "stopped"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
)

// GenomeRow is one distinct individual (table genomes). Empty parents are NULL.
type GenomeRow struct {
	ID       string   `json:"id"`
	Born     int      `json:"born_generation"`
	Operator string   `json:"operator"`
	Parent1  string   `json:"parent1,omitempty"`
	Parent2  string   `json:"parent2,omitempty"`
	Genes    JSONText `json:"genes"`
}

// IndividualRow is an individual's results in one generation (table individuals): the
// games of that generation only.
type IndividualRow struct {
	Generation int     `json:"generation"`
	ID         string  `json:"id"`
	Rank       int     `json:"rank"`
	Round      int     `json:"round"` // last racing round played
	Fitness    float64 `json:"fitness"`
	Score      float64 `json:"score"`
	// ScoreSE, Elo and EloCI95 are the pentanomial standard error of Score and the Elo
	// against the generation's reference set with its 95% half-width (nil: unknown, e.g.
	// rows of schema version 2).
	ScoreSE *float64 `json:"score_se"`
	Elo     *float64 `json:"elo"`
	EloCI95 *float64 `json:"elo_ci95"`
	Games   int      `json:"games"`
	Wins    int      `json:"wins"`
	Draws   int      `json:"draws"`
	Losses  int      `json:"losses"`
	Penta   [5]int   `json:"penta"`
}

// AdmissionRow is one hall-of-fame test (table admissions).
type AdmissionRow struct {
	Generation int     `json:"generation"`
	Candidate  string  `json:"candidate"`
	Opponent   string  `json:"opponent"`
	Games      int     `json:"games"`
	Wins       int     `json:"wins"`
	Draws      int     `json:"draws"`
	Losses     int     `json:"losses"`
	Penta      [5]int  `json:"penta"`
	Score      float64 `json:"score"`
	ScoreSE    float64 `json:"score_se"`
	Elo        float64 `json:"elo"`
	EloSE      float64 `json:"elo_se"`
	OppScore   float64 `json:"opponent_score"`
	Diff       float64 `json:"diff"`
	DiffSE     float64 `json:"diff_se"`
	Admitted   bool    `json:"admitted"`
}

// FamerRow is a hall-of-fame member (table hall_of_fame).
type FamerRow struct {
	ID       string   `json:"id"`
	Admitted int      `json:"admitted"`
	Games    int      `json:"games"`
	Wins     int      `json:"wins"`
	Draws    int      `json:"draws"`
	Losses   int      `json:"losses"`
	Penta    [5]int   `json:"penta"`
	Elo      *float64 `json:"elo"`
	EloSE    *float64 `json:"elo_se"`
	EloLCB   *float64 `json:"elo_lcb"`
}

// CheckpointRow is one held-out check of the champion (table checkpoints).
type CheckpointRow struct {
	Generation int      `json:"generation"`
	ElapsedMS  int64    `json:"elapsed_ms"`
	Champion   string   `json:"champion"`
	Depth      int      `json:"depth"`
	Games      int      `json:"games"`
	Pairs      int      `json:"distinct_pairs"`
	Wins       int      `json:"wins"`
	Draws      int      `json:"draws"`
	Losses     int      `json:"losses"`
	Score      *float64 `json:"score"`
	Elo        *float64 `json:"elo"`
	EloCI95    *float64 `json:"elo_ci95"`
}

// GameRow is one played game (table games).
type GameRow struct {
	Generation int    `json:"generation"`
	Individual string `json:"individual"`
	Opponent   string `json:"opponent"`
	Opening    int    `json:"opening"`
	// Colour is the individual's colour in the engines' convention (black moves first, in
	// every game); Side is its side in the game's own names (chess: white moves first)
	// and MovedFirst whether it moved first. SaveGeneration derives both from Colour and
	// the run's game.
	Colour     string   `json:"colour"`
	Side       string   `json:"side"`
	MovedFirst bool     `json:"moved_first"`
	Result     string   `json:"result"`
	Score      float64  `json:"score"`
	Plies      int      `json:"plies"`
	Moves      JSONText `json:"moves"`
	Nodes      int64    `json:"nodes"`
	DurationMS int64    `json:"duration_ms"`
	Forfeit    OptText  `json:"forfeit"`
	Depth      int      `json:"depth"` // 0 = the run's depth
	Round      int      `json:"round"` // racing round; -1 = hall-of-fame admission test, -2 = the champion's defence games
	// ForfeitBy names who lost a forfeited game (the individual, or its opponent), and
	// ForfeitValues holds that player's genes (null: not a genome of the run).
	ForfeitBy     OptText  `json:"forfeit_by"`
	ForfeitValues JSONText `json:"forfeit_values"`
}

// GenerationRow is one generation's summary (table generations).
type GenerationRow struct {
	Generation int      `json:"generation"`
	FitMin     float64  `json:"fitness_min"`
	FitMean    float64  `json:"fitness_mean"`
	FitMax     float64  `json:"fitness_max"`
	FitStd     float64  `json:"fitness_std"`
	Diversity  float64  `json:"diversity"`
	Games      int      `json:"games"`
	DurationMS int64    `json:"duration_ms"`
	GamesMS    int64    `json:"games_ms"`
	Best       string   `json:"best_individual"`
	ElapsedMS  int64    `json:"elapsed_ms"` // the run's wall time at the generation's end
	Champion   string   `json:"champion"`   // the champion after the generation
	Opponents  JSONText `json:"opponents"`
	Openings   JSONText `json:"openings"`
	// MethodState is the search method's own state after the generation (JSON; {} for
	// the GA): SPSA's step result and gains, CMA-ES's told values and mean.
	MethodState JSONText `json:"method_state"`
	CreatedAt   string   `json:"created_at"`
	// SlotMS is the busy slot time of the generation's games (the sum of their wall times)
	// and Slots the game slots the run had (its workers); nil: not measured (saved before
	// schema 11, or played by a cluster). SlotUtilisation divides them.
	SlotMS *int64 `json:"slot_ms"`
	Slots  *int   `json:"slots"`
}

// SlotUtilisation is the share of the generation's game-slot time that games filled,
// SlotMS / (DurationMS × Slots), in [0, 1] but for timing noise; nil when not measured.
func (g GenerationRow) SlotUtilisation() *float64 {
	if g.SlotMS == nil || g.Slots == nil || *g.Slots <= 0 || g.DurationMS <= 0 {
		return nil
	}
	u := float64(*g.SlotMS) / float64(g.DurationMS*int64(*g.Slots))
	return &u
}

// GenerationData is everything one generation writes, in one transaction.
type GenerationData struct {
	RunID       int64
	Generation  GenerationRow
	NewGenomes  []GenomeRow
	Individuals []IndividualRow
	Games       []GameRow
	Admission   *AdmissionRow  // nil: no hall-of-fame test this generation
	HallOfFame  []FamerRow     // the hall of fame after the generation (replaces the stored one)
	Checkpoint  *CheckpointRow // nil: no checkpoint this generation
}

// Genes decodes a genes column (genomes.genes: a JSON object of gene name → value). The
// error names the column.
func (t JSONText) Genes() (map[string]float64, error) {
	var m map[string]float64
	if err := json.Unmarshal([]byte(t), &m); err != nil {
		return nil, fmt.Errorf("genes: %w", err)
	}
	return m, nil
}

// Moves decodes a moves column (games.moves: a JSON array of moves in the game's
// notation). The error names the column.
func (t JSONText) Moves() ([]string, error) {
	var m []string
	if err := json.Unmarshal([]byte(t), &m); err != nil {
		return nil, fmt.Errorf("moves: %w", err)
	}
	return m, nil
}

// Openings decodes an openings column (generations.openings: a JSON array of openings,
// each an array of moves). The error names the column.
func (t JSONText) Openings() ([][]string, error) {
	var o [][]string
	if err := json.Unmarshal([]byte(t), &o); err != nil {
		return nil, fmt.Errorf("openings: %w", err)
	}
	return o, nil
}
