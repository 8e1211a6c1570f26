// Package runview reads a run database into the views of `evotune serve` (a web
// dashboard) and `evotune plot` (SVG/PNG charts, plot.go): the runs list, a run's score, Elo and
// throughput per generation, its genes against the paper's values, an individual's
// lineage and any stored game replayed position by position. Everything it reads is data
// from a file that may come from someone else: the web page draws it as text only.
package runview

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"evotune/db"
	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/ladder"
	"evotune/tuner/runstore"
	"evotune/tuner/spsa"
	"evotune/tuner/stats"
)

// ErrNotFound is wrapped by errors about a run, individual or game the database lacks.
var ErrNotFound = db.ErrNotFound

// RunItem is one row of the runs list.
type RunItem struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Game string `json:"game"`
	// ColourNames name the first mover and the second in the game's own words (the games
	// tables' colour column says "black" for the first mover: chess calls it white).
	ColourNames     [2]string `json:"colour_names"`
	Status          string    `json:"status"`
	GenerationsDone int       `json:"generations_done"`
	BestIndividual  *string   `json:"best_individual"`
	BestScore       *float64  `json:"best_score"` // 1 - best fitness: the champion's score, or its last generation's best when it played none
	Champion        *string   `json:"champion"`   // after the last generation (hall of fame)
	Verified        *Elo      `json:"verified"`   // the final verification, null before it
	CreatedAt       string    `json:"created_at"`
	UpdatedAt       string    `json:"updated_at"`
	Error           *string   `json:"error"`
	// Outside is true for a run that tuned an outside engine from a layout file: its
	// baseline is the layout's defaults, not the paper's weights.
	Outside bool `json:"outside"`
	// Method is the run's search method ("spsa", "ga", "cmaes"; "ga" for runs stored
	// before the configuration named one) and MethodTerms its own words for the pages: its
	// title, what a generation, the champion and a generation's spread are called.
	Method      string         `json:"method"`
	MethodTerms *config.Method `json:"method_terms"`
	// Games is the run's distinct tuning games so far, BudgetGames its game budget (0:
	// none) and Generations the generations it was asked for (0: until a budget); ETAS is
	// the seconds left at the pace of its saved generations, for a running run with a game
	// budget (null otherwise). Filled by Runs.
	Games       int      `json:"games"`
	BudgetGames int      `json:"budget_games"`
	Generations int      `json:"generations"`
	ETAS        *float64 `json:"eta_s"`
}

// Elo is a strength estimate against the paper's weights: Elo and the half-width of its
// 95% interval (null when infinite: all wins or all losses), on Games games resting on
// Pairs distinct colour-swapped pairs.
type Elo struct {
	Champion string   `json:"champion"`
	Elo      *float64 `json:"elo"`
	CI95     *float64 `json:"elo_ci95"`
	Games    int      `json:"games"`
	Pairs    int      `json:"distinct_pairs"`
	Depth    int      `json:"depth"`
}

// GenerationPoint is one generation of a run's page. Scores are against the generation's
// reference set (tuner/selection.go); BestSE is the rank-1 individual's pentanomial
// standard error (null for databases older than schema 3).
type GenerationPoint struct {
	Generation  int      `json:"generation"`
	BestScore   float64  `json:"best_score"`
	BestSE      *float64 `json:"best_se"`
	MeanScore   float64  `json:"mean_score"`
	ScoreStd    float64  `json:"score_std"`
	Diversity   float64  `json:"diversity"`
	Games       int      `json:"games"`
	GamesPerSec *float64 `json:"games_per_s"` // games / time spent playing them
	// SlotUtilisation is the share of the generation's game-slot time its games filled
	// (db.GenerationRow.SlotUtilisation; null: not measured).
	SlotUtilisation *float64 `json:"slot_utilisation"`
	DurationMS      int64    `json:"duration_ms"`
	ElapsedMS       int64    `json:"elapsed_ms"`
	Best            string   `json:"best_individual"`
	Champion        *string  `json:"champion"`
	Checkpoint      *Elo     `json:"checkpoint"` // the held-out check after this generation (tune --verify-every)
	CreatedAt       string   `json:"created_at"`
	HallOfFameIn    *string  `json:"admitted"` // the individual admitted to the hall of fame in this generation
	// Admission is the generation's hall-of-fame test (the candidate against the reigning
	// member, paired games; nil: none was run).
	Admission *db.AdmissionRow `json:"admission"`
	// PlusScore and PlusSE are an SPSA step's result: θ+'s score against θ− and its
	// standard error (pentanomial); null in GA runs.
	PlusScore *float64 `json:"plus_score"`
	PlusSE    *float64 `json:"plus_se"`
}

// RunView is a run's page.
type RunView struct {
	Run RunItem `json:"run"`
	// Total is the number of generations in the window asked for; Sampled is true when
	// Generations holds a sample of them (Buckets), false when it holds them all.
	Total        int               `json:"total_generations"`
	Sampled      bool              `json:"sampled"`
	Config       json.RawMessage   `json:"config"`
	Generations  []GenerationPoint `json:"generations"`
	HallOfFame   []db.FamerRow     `json:"hall_of_fame"`
	Verification json.RawMessage   `json:"verification"`
	// Verifications are every stored verification of the run, oldest first; the headline
	// one is marked.
	Verifications []db.VerificationRow `json:"verifications"`
}

// GeneInfo describes one gene of the run's layout (genomes/layout.go).
type GeneInfo struct {
	Name    string  `json:"name"`
	Default float64 `json:"default"` // the paper's value
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
	Scale   string  `json:"scale"` // "log" (shown as value/default on a log axis) or "linear" (value - default)
	Note    string  `json:"note"`
	Fixed   bool    `json:"fixed"` // held at its default in this run
}

// GenesView holds every gene's trajectory: Best[g][i] is gene g of the champion after
// generation Generations[i] (the hall of fame's reigning member, SPSA's θ; the rank-1 race
// winner where the generation records no champion), Min and Max the population's extremes,
// all in the gene's own units (nil where a genome lacks the gene).
type GenesView struct {
	Run         RunItem      `json:"run"`
	Total       int          `json:"total_generations"` // in the window asked for
	Sampled     bool         `json:"sampled"`           // Generations is a sample of them (Buckets)
	Genes       []GeneInfo   `json:"genes"`
	Generations []int        `json:"generations"`
	Best        [][]*float64 `json:"best"`
	Min         [][]*float64 `json:"min"`
	Max         [][]*float64 `json:"max"`
}

// LineageNode is one genome of a lineage: the individual itself, then ancestors.
type LineageNode struct {
	ID       string             `json:"id"`
	Born     int                `json:"born_generation"`
	Operator string             `json:"operator"`
	Parents  []string           `json:"parents"`
	Depth    int                `json:"depth"` // generations of descent from the individual (shortest)
	Genes    map[string]float64 `json:"genes"`
	// Score is its score in the first generation it played (against that generation's
	// references), and Generation that generation; nil: it played in none.
	Score      *float64 `json:"score"`
	Generation *int     `json:"generation"`
}

// LineageView is an individual's ancestry, at most MaxLineage nodes.
type LineageView struct {
	Run       RunItem       `json:"run"`
	ID        string        `json:"id"`
	Nodes     []LineageNode `json:"nodes"`
	Truncated bool          `json:"truncated"`
}

// MaxLineage bounds a lineage view (older ancestors are left out and Truncated is set).
const MaxLineage = 400

// GameItem is one row of a generation's games.
type GameItem = db.GameSummary

// GameView is a stored game replayed: Frames[k] is the position after k plies (Frames[0]
// the start), each as Size rows from the top, one character per point: '.' empty, 'B'
// Black's stone or amazon, 'W' White's, 'x' an arrow. Error says where the replay stopped
// if a stored move is not legal (a forfeit by an illegal move, or a damaged database).
// WinningLine is the winner's line in the final position (engine.LineWinner: Gomoku's
// five, Connect6's six), points in lower case ("h8"), empty when the game was not won by
// one.
type GameView struct {
	Run RunItem `json:"run"`
	// Match is the stored match of a match's game (MatchGame; Run is then empty), null
	// for a run's game.
	Match    *MatchItem `json:"match"`
	Game     GameItem   `json:"game"`
	GameName string     `json:"game_name"`
	Size     int        `json:"size"`
	Black    string     `json:"black"`
	White    string     `json:"white"`
	Moves    []string   `json:"moves"`
	// Notation names each move as the game's records write it (engine.MoveNamer: chess's
	// SAN, "" for a set-up move), in Moves' order; empty for games whose records write the
	// moves as played.
	Notation     []string   `json:"notation"`
	OpeningPlies int        `json:"opening_plies"`
	Frames       [][]string `json:"frames"`
	WinningLine  []string   `json:"winning_line"`
	Error        *string    `json:"error"`
	// Squares is set when the pieces stand on squares (engine.FENBoard: chess): pieces on
	// squares, a frame's characters the game's piece letters; FENs are the frames' FENs
	// and PGN the game as a record (chess), else empty and null.
	Squares bool `json:"squares"`
	// OnSquares is set when the game's pieces stand on squares (engine.OnSquares: Amazons,
	// chess), not on intersections: the viewer draws squares.
	OnSquares bool     `json:"on_squares"`
	FENs      []string `json:"fens"`
	PGN       *string  `json:"pgn"`
	// ColourNames name the first mover (Black, White's places in this view) and the second
	// in the game's own words (chess: white, black).
	ColourNames [2]string `json:"colour_names"`
}

// runItem converts a stored run.
func runItem(r db.Run) RunItem {
	it := RunItem{ID: r.ID, Name: r.Name, Game: r.Game, Status: r.Status, GenerationsDone: r.GenerationsDone,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ColourNames: [2]string{"black", "white"}}
	if e, err := genomes.Lookup(r.Game); err == nil {
		it.ColourNames = [2]string{engine.ColourName(e.Game, engine.Black), engine.ColourName(e.Game, engine.White)}
	}
	if r.BestIndividual != "" {
		s := string(r.BestIndividual)
		it.BestIndividual = &s
	}
	if r.BestFitness != nil {
		s := 1 - *r.BestFitness
		it.BestScore = &s
	}
	if r.Error != "" {
		s := string(r.Error)
		it.Error = &s
	}
	var cfg struct {
		Layout json.RawMessage `json:"layout"`
		Method string          `json:"method"`
	}
	if json.Unmarshal([]byte(r.Config), &cfg) == nil && len(cfg.Layout) > 0 && string(cfg.Layout) != "null" {
		it.Outside = true
	}
	if m, ok := config.MethodOf(cfg.Method); ok {
		it.Method, it.MethodTerms = m.Name, &m
	} else {
		it.Method = cfg.Method // a method of a later version: named, without terms
	}
	if r.Verification != "" {
		var v struct {
			Champion string   `json:"champion"`
			Games    int      `json:"games"`
			Pairs    int      `json:"distinct_pairs"`
			Elo      *float64 `json:"elo"`
			CI       *float64 `json:"elo_ci95"`
			Limits   struct {
				Depth int `json:"depth"`
			} `json:"limits"`
		}
		if json.Unmarshal([]byte(r.Verification), &v) == nil && v.Games > 0 {
			e := Elo{Champion: v.Champion, Games: v.Games, Pairs: v.Pairs, Depth: v.Limits.Depth}
			if v.Elo != nil {
				e.Elo = stats.Finite(*v.Elo)
			}
			if v.CI != nil && e.Elo != nil {
				e.CI95 = stats.Finite(*v.CI)
			}
			it.Verified = &e
		}
	}
	return it
}

// Runs lists every run of the database, newest first.
func Runs(ctx context.Context, d *db.DB) ([]RunItem, error) {
	runs, err := d.Runs(ctx)
	if err != nil {
		return nil, err
	}
	champ, err := d.LastChampions(ctx)
	if err != nil {
		return nil, err
	}
	prog, err := d.RunsProgress(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]RunItem, 0, len(runs))
	for _, r := range runs {
		out = append(out, listed(r, champ, prog))
	}
	return out, nil
}

// listed is run r as the runs list and a run's own page show it (one answer for both):
// runItem with its champion after the last generation, its games, budget and ETA, and,
// for a champion made and not played (a centre), the last generation's best score.
func listed(r db.Run, champ map[int64]string, prog map[int64]db.RunProgress) RunItem {
	it := runItem(r)
	if c, ok := champ[r.ID]; ok && c != "" {
		it.Champion = &c
	}
	var cfg struct {
		BudgetGames int `json:"budget_games"`
		Generations int `json:"generations"`
	}
	json.Unmarshal([]byte(r.Config), &cfg)
	p, saved := prog[r.ID]
	it.Games, it.BudgetGames, it.Generations = p.Games, cfg.BudgetGames, cfg.Generations
	if it.BestScore == nil && saved { // a champion made, not played (a centre): the generation's best
		s := 1 - p.LastFitnessMin
		it.BestScore = &s
	}
	if r.Status == db.StatusRunning && cfg.BudgetGames > 0 && p.Games > 0 && p.ElapsedMS > 0 {
		eta := float64(p.ElapsedMS) / 1000 / float64(p.Games) * float64(max(0, cfg.BudgetGames-p.Games))
		it.ETAS = &eta
	}
	return it
}

// verificationJSON is a stored verification as the pages give it: written again through
// ladder.Verification, so that one stored before infinite values were null reads with
// null, not ±1e9; text it cannot read is given as it is ("null" for none).
func verificationJSON(text string) json.RawMessage {
	if text == "" {
		return json.RawMessage("null")
	}
	var v ladder.Verification
	if json.Unmarshal([]byte(text), &v) != nil {
		return json.RawMessage(text)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(text)
	}
	return b
}

// getRun loads one run; an unknown ID wraps ErrNotFound.
func getRun(ctx context.Context, d *db.DB, id int64) (db.Run, error) {
	return d.Run(ctx, id)
}

// Buckets is how many ranges a long run's generations are cut into for a chart
// (db.SampleGenerations: the best, the worst and the last of each, and every checkpoint):
// at most about 3·Buckets points however long the run, so that an overnight run's page
// stays small (a 200 000-step SPSA run: under 1 MB) and a poll stays fast.
const Buckets = 650

// Run returns run id's page: per-generation scores with their uncertainty, throughput,
// diversity, champions and held-out checkpoints; a long run's generations sampled
// (RunWindow over all of them).
func Run(ctx context.Context, d *db.DB, id int64) (RunView, error) {
	return RunWindow(ctx, d, id, db.Window{From: 0, To: -1})
}

// RunWindow is Run over the generations of window w only (a zoomed chart: sampled again
// within the window, so that a narrow window is at full resolution).
func RunWindow(ctx context.Context, d *db.DB, id int64, w db.Window) (RunView, error) {
	r, err := getRun(ctx, d, id)
	if err != nil {
		return RunView{}, err
	}
	champ, err := d.LastChampions(ctx)
	if err != nil {
		return RunView{}, err
	}
	prog, err := d.RunsProgress(ctx)
	if err != nil {
		return RunView{}, err
	}
	v := RunView{Run: listed(r, champ, prog), Config: json.RawMessage(nonEmpty(string(r.Config))), Verification: verificationJSON(string(r.Verification))}
	if v.Verifications, err = d.Verifications(ctx, id); err != nil {
		return v, err
	}
	for i := range v.Verifications {
		v.Verifications[i].Result = db.JSONText(verificationJSON(string(v.Verifications[i].Result)))
	}
	sample, total, err := d.SampleGenerations(ctx, id, Buckets, w)
	if err != nil {
		return v, err
	}
	v.Total, v.Sampled = total, sample != nil
	gens, err := d.GenerationsIn(ctx, id, sample, w)
	if err != nil {
		return v, err
	}
	se := map[int]*float64{}
	type scored struct{ score, se *float64 }
	plus := map[int]scored{} // SPSA: θ+ of each step, by its ID
	isSPSA := v.Run.Method == config.MethodSPSA
	ranks, err := d.TopRanksIn(ctx, id, sample, w)
	if err != nil {
		return v, err
	}
	for _, rs := range ranks {
		switch {
		case rs.Rank == 1:
			se[rs.Generation] = rs.SE
		case isSPSA && rs.ID == spsa.PlusID(id, rs.Generation):
			plus[rs.Generation] = scored{rs.Score, rs.SE}
		}
	}
	cps, err := d.Checkpoints(ctx, id)
	if err != nil {
		return v, err
	}
	cp := map[int]*Elo{}
	for _, c := range cps {
		e := Elo{Champion: c.Champion, Games: c.Games, Pairs: c.Pairs, Depth: c.Depth}
		if c.Elo != nil {
			e.Elo = stats.Finite(*c.Elo)
			if c.EloCI95 != nil && e.Elo != nil {
				e.CI95 = stats.Finite(*c.EloCI95)
			}
		}
		cp[c.Generation] = &e
	}
	adm, err := d.Admissions(ctx, id)
	if err != nil {
		return v, err
	}
	admitted := map[int]string{}
	tests := map[int]*db.AdmissionRow{}
	for i, a := range adm {
		if a.Admitted {
			admitted[a.Generation] = a.Candidate
		}
		if tests[a.Generation] == nil || a.Admitted {
			tests[a.Generation] = &adm[i]
		}
	}
	for _, g := range gens {
		p := GenerationPoint{Generation: g.Generation, BestScore: 1 - g.FitMin, BestSE: se[g.Generation], MeanScore: 1 - g.FitMean,
			ScoreStd: g.FitStd, Diversity: g.Diversity, Games: g.Games, DurationMS: g.DurationMS, ElapsedMS: g.ElapsedMS,
			Best: g.Best, Checkpoint: cp[g.Generation], CreatedAt: g.CreatedAt, SlotUtilisation: g.SlotUtilisation()}
		if g.GamesMS > 0 {
			x := float64(g.Games) / (float64(g.GamesMS) / 1000)
			p.GamesPerSec = &x
		}
		if g.Champion != "" {
			c := g.Champion
			p.Champion = &c
		}
		if a, ok := admitted[g.Generation]; ok {
			p.HallOfFameIn = &a
		}
		p.Admission = tests[g.Generation]
		if isSPSA {
			p.PlusScore, p.PlusSE = plus[g.Generation].score, plus[g.Generation].se
		}
		v.Generations = append(v.Generations, p)
	}
	if v.Generations == nil {
		v.Generations = []GenerationPoint{}
	} else {
		v.Run.Champion = v.Generations[len(v.Generations)-1].Champion
	}
	if v.HallOfFame, err = d.HallOfFame(ctx, id); err != nil {
		return v, err
	}
	if v.HallOfFame == nil {
		v.HallOfFame = []db.FamerRow{}
	}
	return v, nil
}

func nonEmpty(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// layoutOf returns the run's gene layout (an outside engine's layout file, stored with
// the run, or the built-in game's); the error names an unknown game.
func layoutOf(r db.Run) (*genomes.Layout, error) {
	cfg, err := config.DecodeConfig(string(r.Config))
	if err != nil || cfg.Game == "" {
		cfg = config.Config{RunSettings: config.RunSettings{Game: r.Game}}
	}
	return cfg.GeneLayout()
}

// chartValue is a gene's value as the genes chart of a long run needs it (sampled): 7
// significant digits (a chart is a few hundred pixels tall), which keeps the page small;
// other runs' values are exact.
func chartValue(x float64, sampled bool) float64 {
	if x == 0 || !sampled {
		return x
	}
	p := math.Pow(10, 6-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

// Genes returns every gene's per-generation best value and population range.
func Genes(ctx context.Context, d *db.DB, id int64) (GenesView, error) {
	return GenesWindow(ctx, d, id, db.Window{From: 0, To: -1})
}

// GenesWindow is Genes over the generations of window w, sampled as RunWindow samples them.
func GenesWindow(ctx context.Context, d *db.DB, id int64, w db.Window) (GenesView, error) {
	r, err := getRun(ctx, d, id)
	if err != nil {
		return GenesView{}, err
	}
	lay, err := layoutOf(r)
	if err != nil {
		return GenesView{}, fmt.Errorf("run %d: %w", id, err)
	}
	v := GenesView{Run: runItem(r), Generations: []int{}}
	index := map[string]int{}
	for i, g := range lay.Genes {
		v.Genes = append(v.Genes, GeneInfo{Name: g.Name, Default: g.Default, Min: g.Min, Max: g.Max, Scale: g.Scale.String(), Note: g.Note, Fixed: g.Fixed})
		index[g.Name] = i
	}
	n := len(lay.Genes)
	v.Best, v.Min, v.Max = make([][]*float64, n), make([][]*float64, n), make([][]*float64, n)
	sample, total, err := d.SampleGenerations(ctx, id, Buckets, w)
	if err != nil {
		return v, err
	}
	v.Total, v.Sampled = total, sample != nil
	grows, err := d.GeneRowsIn(ctx, id, sample, w)
	if err != nil {
		return v, err
	}
	for _, gr := range grows {
		gen, rank, genes := gr.Generation, gr.Rank, gr.Genes
		if len(v.Generations) == 0 || v.Generations[len(v.Generations)-1] != gen {
			v.Generations = append(v.Generations, gen)
			for i := 0; i < n; i++ {
				v.Best[i], v.Min[i], v.Max[i] = append(v.Best[i], nil), append(v.Min[i], nil), append(v.Max[i], nil)
			}
		}
		m, err := db.JSONText(genes).Genes()
		if err != nil {
			continue // a damaged row: left out, not fatal to the view
		}
		k := len(v.Generations) - 1
		for name, x := range m {
			i, ok := index[name]
			if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
				continue
			}
			x := chartValue(x, v.Sampled)
			if rank == 1 {
				v.Best[i][k] = &x
			}
			if v.Min[i][k] == nil || x < *v.Min[i][k] {
				v.Min[i][k] = &x
			}
			if v.Max[i][k] == nil || x > *v.Max[i][k] {
				v.Max[i][k] = &x
			}
		}
	}
	// The line follows the champion where the generation names one.
	gens, err := d.GenerationsIn(ctx, id, sample, w)
	if err != nil {
		return v, err
	}
	pos := map[int]int{}
	for k, g := range v.Generations {
		pos[g] = k
	}
	cache := map[string]map[string]float64{}
	for _, g := range gens {
		k, ok := pos[g.Generation]
		if !ok || g.Champion == "" {
			continue
		}
		genes, ok := cache[g.Champion]
		if !ok {
			gm, err := d.Genome(ctx, id, g.Champion)
			if err != nil {
				return v, err
			}
			genes, _ = gm.Genes.Genes() // a damaged row: no line, not fatal to the view
			cache[g.Champion] = genes
		}
		for name, x := range genes {
			if i, ok := index[name]; ok && !math.IsNaN(x) && !math.IsInf(x, 0) {
				x := chartValue(x, v.Sampled)
				v.Best[i][k] = &x
			}
		}
	}
	return v, nil
}

// Lineage returns individual ind and its ancestors, nearest first, at most MaxLineage.
func Lineage(ctx context.Context, d *db.DB, id int64, ind string) (LineageView, error) {
	r, err := getRun(ctx, d, id)
	if err != nil {
		return LineageView{}, err
	}
	v := LineageView{Run: runItem(r), ID: ind}
	first, err := d.FirstPlayed(ctx, id)
	if err != nil {
		return v, err
	}
	type item struct {
		id    string
		depth int
	}
	seen := map[string]bool{ind: true}
	queue := []item{{ind, 0}}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		g, err := d.Genome(ctx, id, cur.id)
		if err != nil {
			return v, fmt.Errorf("run %d: %w", id, err)
		}
		node := LineageNode{ID: g.ID, Born: g.Born, Operator: g.Operator, Depth: cur.depth, Parents: []string{}}
		if f, ok := first[g.ID]; ok {
			gen := f.Generation
			node.Score, node.Generation = f.Score, &gen
		}
		node.Genes, _ = g.Genes.Genes() // a damaged row: a box without genes
		for _, p := range []string{g.Parent1, g.Parent2} {
			if p == "" {
				continue
			}
			node.Parents = append(node.Parents, p)
			if !seen[p] {
				if len(seen) >= MaxLineage {
					v.Truncated = true
					continue
				}
				seen[p] = true
				queue = append(queue, item{p, cur.depth + 1})
			}
		}
		v.Nodes = append(v.Nodes, node)
	}
	return v, nil
}

// Games lists the games of one generation of run id (all generations if gen < 0), at most
// limit rows (0: no limit).
func Games(ctx context.Context, d *db.DB, id int64, gen, limit int) ([]GameItem, error) {
	if _, err := getRun(ctx, d, id); err != nil {
		return nil, err
	}
	return d.GameSummaries(ctx, id, gen, limit)
}

// Game replays stored game gameID of run id with the game's own rules (engine.Board.Play),
// so every frame is a position the engine accepted.
func Game(ctx context.Context, d *db.DB, id, gameID int64) (GameView, error) {
	r, err := getRun(ctx, d, id)
	if err != nil {
		return GameView{}, err
	}
	v := GameView{Run: runItem(r), GameName: r.Game, Moves: []string{}, Frames: [][]string{}}
	gm, err := d.Game(ctx, id, gameID)
	if err != nil {
		return v, err
	}
	v.Game = gm.GameSummary
	if v.Moves, err = db.JSONText(gm.Moves).Moves(); err != nil {
		return v, fmt.Errorf("game %d of run %d: %w", gameID, id, err)
	}
	v.OpeningPlies = min(gm.OpeningPlies, len(v.Moves))
	if v.Game.Colour == "black" {
		v.Black, v.White = v.Game.Individual, v.Game.Opponent
	} else {
		v.Black, v.White = v.Game.Opponent, v.Game.Individual
	}
	cfg, err := config.DecodeConfig(string(r.Config))
	if err != nil {
		return v, fmt.Errorf("run %d: %w", id, err)
	}
	plan, err := cfg.Plan()
	if err != nil {
		return v, fmt.Errorf("run %d: %w", id, err)
	}
	if err := replay(&v, plan.Game, cfg.Board, engine.PGNGame{Event: fmt.Sprintf("evotune run %d", id), Site: "evotune", Round: fmt.Sprint(gameID),
		White: v.Black, Black: v.White, Result: gm.Result, Comment: deref(gm.Forfeit)}); err != nil {
		return v, fmt.Errorf("run %d: %w", id, err)
	}
	return v, nil
}

// replay fills v's board, frames, notation, winning line and PGN (pgn's moves and
// statistics are v.Moves') by playing v.Moves with game g's rules on a board of side board
// (0: the game's): an illegal move stops the frames there (v.Error). Only a board that
// cannot be made is an error.
func replay(v *GameView, g engine.Game, board int, pgn engine.PGNGame) error {
	b, err := g.NewBoard(board)
	if err != nil {
		return err
	}
	v.Size = b.Size()
	v.ColourNames = [2]string{engine.ColourName(g, engine.Black), engine.ColourName(g, engine.White)}
	v.FENs = []string{}
	_, v.Squares = b.(engine.FENBoard)
	_, v.OnSquares = g.(engine.OnSquares)
	add := func() {
		v.Frames = append(v.Frames, Frame(b))
		if p, ok := b.(engine.FENBoard); ok {
			v.FENs = append(v.FENs, p.FEN())
		}
	}
	add()
	v.Notation = []string{}
	namer, names := b.(engine.MoveNamer)
	for k, m := range v.Moves {
		if names {
			name, _ := namer.MoveName(m)
			v.Notation = append(v.Notation, name)
		}
		if err := b.Play(m); err != nil {
			s := fmt.Sprintf("ply %d (%s): %v", k+1, m, err)
			v.Error = &s
			break
		}
		add()
	}
	if w, ok := g.(engine.PGNWriter); ok && v.Error == nil {
		pgn.Moves, pgn.StatsFrom = v.Moves, len(v.Moves)
		if data, err := w.PGN(pgn); err == nil {
			s := string(data)
			v.PGN = &s
		}
	}
	v.WinningLine = []string{}
	if lw, ok := b.(engine.LineWinner); ok && v.Error == nil {
		for _, pt := range lw.WinningLine() {
			v.WinningLine = append(v.WinningLine, strings.ToLower(pt))
		}
	}
	return nil
}

// Frame is a position as the page draws it: the board's own picture (engine.Pictured: rows
// from the top, '.' empty, 'B' and 'W' the two sides' stones or amazons, 'x' an arrow;
// chess FEN's piece letters); nil for a board that does not draw itself.
func Frame(b engine.Board) []string {
	if p, ok := b.(engine.Pictured); ok {
		return p.Picture()
	}
	return nil
}

// MaxIndividualGames caps the games an individual's page lists.
const MaxIndividualGames = 500

// IndividualGene is one gene of an individual beside the baseline's value (the paper's, or
// an outside engine's layout default) and its scale (log or linear).
type IndividualGene struct {
	Name    string  `json:"name"`
	Value   float64 `json:"value"`
	Default float64 `json:"default"`
	Scale   string  `json:"scale"`
	Fixed   bool    `json:"fixed"`
}

// IndividualView is one individual of a run: how it was made (generation, operator,
// parents), its genes beside the baseline's, its rows in the generations it played (rank,
// score ± SE, Elo ± 95% against that generation's references), its hall-of-fame record
// (null: not a member) and the games it played, as candidate or as opponent (at most
// MaxIndividualGames, oldest first; GamesTruncated says when there were more).
type IndividualView struct {
	Run            RunItem            `json:"run"`
	ID             string             `json:"id"`
	Born           int                `json:"born"`
	Operator       string             `json:"operator"`
	Parents        []string           `json:"parents"`
	Genes          []IndividualGene   `json:"genes"`
	History        []db.IndividualRow `json:"history"`
	HallOfFame     *db.FamerRow       `json:"hall_of_fame"`
	Games          []GameItem         `json:"games"`
	GamesTruncated bool               `json:"games_truncated"`
}

// Individual returns individual ind of run id; an unknown one wraps ErrNotFound.
func Individual(ctx context.Context, d *db.DB, id int64, ind string) (IndividualView, error) {
	r, err := getRun(ctx, d, id)
	if err != nil {
		return IndividualView{}, err
	}
	if run, err := genomes.RunOfIndividual(ind); err != nil || run != id {
		return IndividualView{}, fmt.Errorf("run %d: individual %q: %w", id, ind, ErrNotFound)
	}
	in, err := runstore.LoadIndividual(ctx, d, ind)
	if err != nil {
		return IndividualView{}, fmt.Errorf("run %d: %w", id, err)
	}
	g := in.Genome
	v := IndividualView{Run: runItem(r), ID: g.ID, Born: g.Born, Operator: g.Operator, Parents: []string{}, Genes: []IndividualGene{},
		History: in.History, HallOfFame: in.Famer}
	for _, p := range []string{g.Parent1, g.Parent2} {
		if p != "" {
			v.Parents = append(v.Parents, p)
		}
	}
	lay, err := layoutOf(r)
	if err != nil {
		return v, fmt.Errorf("run %d: %w", id, err)
	}
	for _, gene := range lay.Genes {
		x, ok := in.Genes[gene.Name]
		if !ok {
			continue
		}
		v.Genes = append(v.Genes, IndividualGene{Name: gene.Name, Value: x, Default: gene.Default, Scale: gene.Scale.String(), Fixed: gene.Fixed})
	}
	games, err := d.GamesOf(ctx, id, ind, MaxIndividualGames+1)
	if err != nil {
		return v, err
	}
	v.Games = games
	if len(games) > MaxIndividualGames {
		v.Games, v.GamesTruncated = games[:MaxIndividualGames], true
	}
	// Lists are [] when empty, never null: a centre champion (made, never played) has no
	// history and no games, and the page reads their length.
	if v.History == nil {
		v.History = []db.IndividualRow{}
	}
	if v.Games == nil {
		v.Games = []GameItem{}
	}
	return v, nil
}

// AnalysisMethod names how AnalysisView measures each gene's importance.
const AnalysisMethod = "least squares of each individual's score on its genes within each generation " +
	"(a constant per generation: scores are against that generation's references), log-scale genes in ln units, " +
	"each effect per within-generation SD of the gene with a 95% t interval (Wooldridge, Econometric Analysis of " +
	"Cross Section and Panel Data, 2010, §10.5)"

// AnalysisGene is one gene in a run's analysis: its effect on the score per within-generation
// SD (Coef ± CI95, score units; see AnalysisMethod; null when the regression could not be
// fitted), that SD in the gene's units (ln units for log genes), and its slice: every
// individual-generation row's value of the gene and score, by value.
type AnalysisGene struct {
	Name   string    `json:"name"`
	Scale  string    `json:"scale"`
	Fixed  bool      `json:"fixed"`
	Min    float64   `json:"min"` // the layout's bounds: the axis of parallel coordinates
	Max    float64   `json:"max"`
	Coef   *float64  `json:"coef"`
	CI95   *float64  `json:"ci95"`
	SD     *float64  `json:"sd"`
	Values []float64 `json:"values"`
	Scores []float64 `json:"scores"`
}

// AnalysisView is the parameter importance and slice data of run id, from every individual
// row that played games (GA individuals per generation; SPSA's θ+ and θ− per step). Error
// says why the regression could not be fitted (too few rows, no variation); the slices
// are there anyway.
type AnalysisView struct {
	Run    RunItem        `json:"run"`
	Method string         `json:"method"`
	Rows   int            `json:"rows"`
	Groups int            `json:"groups"`
	R2     *float64       `json:"r2"`
	Genes  []AnalysisGene `json:"genes"`
	Error  *string        `json:"error"`
	// Note, when set instead of an importance, says why the run's method has none
	// (config.Method.NoImportance).
	Note *string `json:"note"`
	// Lines are the rows for parallel coordinates, the latest MaxParallelLines of them in
	// generation order: each row's genes in the layout's order (Values) and its score.
	Lines []ParallelLine `json:"lines"`
	// TotalRows is how many individual rows of the run played games; Stride says which
	// generations the analysis read (every Stride-th, counted back from the last: 1 reads
	// them all), so that it reads at most about MaxAnalysisRows rows however long the run.
	TotalRows int `json:"total_rows"`
	Stride    int `json:"stride"`
	// SliceRows is how many of the rows read each gene's slice shows (evenly spaced in
	// generation order, at most MaxSliceRows).
	SliceRows int `json:"slice_rows"`
}

// ParallelLine is one individual row for parallel coordinates.
type ParallelLine struct {
	Generation int       `json:"generation"`
	Values     []float64 `json:"values"`
	Score      float64   `json:"score"`
}

// Bounds of a run's analysis, so that its response stays under 1 MB and its reading under
// a second however long the run (an overnight SPSA run has 100 000 rows and more):
// MaxAnalysisRows rows are read for the regression (whole generations, evenly spaced),
// MaxSliceRows of them drawn in each gene's slice and MaxParallelLines as parallel
// coordinates (the latest).
const (
	MaxAnalysisRows  = 20000
	MaxSliceRows     = 600
	MaxParallelLines = 1000
)

// analysisCache keeps the latest analyses by run and the run's state (generations saved,
// last update): a page that polls a running tune recomputes only after a new generation.
var analysisCache struct {
	sync.Mutex
	views map[analysisKey]AnalysisView
}

type analysisKey struct {
	d         *db.DB
	run       int64
	gens      int
	updatedAt string
}

// maxCachedAnalyses bounds analysisCache (a dashboard shows a handful of runs).
const maxCachedAnalyses = 16

// Analysis returns run id's parameter importance and slices (AnalysisView), from a cache
// while the run has saved no new generation since the last call.
func Analysis(ctx context.Context, d *db.DB, id int64) (AnalysisView, error) {
	r, err := getRun(ctx, d, id)
	if err != nil {
		return AnalysisView{}, err
	}
	key := analysisKey{d, id, r.GenerationsDone, r.UpdatedAt}
	analysisCache.Lock()
	v, ok := analysisCache.views[key]
	analysisCache.Unlock()
	if ok {
		return v, nil
	}
	v, err = analysis(ctx, d, r)
	if err != nil {
		return v, err
	}
	analysisCache.Lock()
	defer analysisCache.Unlock()
	if analysisCache.views == nil || len(analysisCache.views) >= maxCachedAnalyses {
		analysisCache.views = map[analysisKey]AnalysisView{}
	}
	analysisCache.views[key] = v
	return v, nil
}

// analysis computes run r's AnalysisView from at most about MaxAnalysisRows of its rows.
func analysis(ctx context.Context, d *db.DB, r db.Run) (AnalysisView, error) {
	id := r.ID
	lay, err := layoutOf(r)
	if err != nil {
		return AnalysisView{}, fmt.Errorf("run %d: %w", id, err)
	}
	v := AnalysisView{Run: runItem(r), Method: AnalysisMethod, Genes: []AnalysisGene{}}
	if m := v.Run.MethodTerms; m != nil && m.NoImportance != "" {
		v.Note = &m.NoImportance
	}
	total, last, err := d.PlayedRowCount(ctx, id)
	if err != nil {
		return v, err
	}
	v.TotalRows, v.Stride = total, max(1, (total+MaxAnalysisRows-1)/MaxAnalysisRows)
	grows, err := d.PlayedGeneRowsEvery(ctx, id, last, v.Stride)
	if err != nil {
		return v, err
	}
	var x [][]float64
	var y []float64
	var group []int
	for _, gr := range grows {
		m, err := db.JSONText(gr.Genes).Genes()
		if err != nil {
			continue
		}
		row := make([]float64, len(lay.Genes))
		ok := true
		for j, g := range lay.Genes {
			val, has := m[g.Name]
			if !has || math.IsNaN(val) || math.IsInf(val, 0) || (g.Scale == genomes.Log && val <= 0) {
				ok = false
				break
			}
			row[j] = val
		}
		if ok {
			x, y, group = append(x, row), append(y, gr.Score), append(group, gr.Generation)
		}
	}
	v.Rows = len(y)
	v.Lines = []ParallelLine{}
	for i := max(0, len(y)-MaxParallelLines); i < len(y); i++ {
		v.Lines = append(v.Lines, ParallelLine{Generation: group[i], Values: x[i], Score: y[i]})
	}
	seen := map[int]bool{}
	for _, g := range group {
		seen[g] = true
	}
	v.Groups = len(seen)
	// Each slice shows at most MaxSliceRows of the rows, evenly spaced in generation order.
	shown := make([]int, 0, min(len(y), MaxSliceRows))
	for k := 0; k < min(len(y), MaxSliceRows); k++ {
		shown = append(shown, k*len(y)/min(len(y), MaxSliceRows))
	}
	v.SliceRows = len(shown)
	// The regression uses the genes that vary; its predictors are ln values for log genes.
	var used []int
	for j, g := range lay.Genes {
		ag := AnalysisGene{Name: g.Name, Scale: g.Scale.String(), Fixed: g.Fixed, Min: g.Min, Max: g.Max, Values: []float64{}, Scores: []float64{}}
		order := append([]int(nil), shown...)
		sort.SliceStable(order, func(a, b int) bool { return x[order[a]][j] < x[order[b]][j] })
		for _, i := range order {
			ag.Values = append(ag.Values, x[i][j])
			ag.Scores = append(ag.Scores, y[i])
		}
		varies := false
		for i := range y {
			varies = varies || x[i][j] != x[0][j]
		}
		if varies && !g.Fixed {
			used = append(used, j)
		}
		v.Genes = append(v.Genes, ag)
	}
	px := make([][]float64, len(y))
	for i := range y {
		px[i] = make([]float64, len(used))
		for k, j := range used {
			px[i][k] = x[i][j]
			if lay.Genes[j].Scale == genomes.Log {
				px[i][k] = math.Log(x[i][j])
			}
		}
	}
	if len(used) == 0 {
		s := "no gene varies between the individuals"
		v.Error = &s
		return v, nil
	}
	if v.Note != nil {
		return v, nil // the method's runs have no importance to fit (the note says why)
	}
	eff, r2, err := stats.Within(px, y, group)
	if err != nil {
		s := err.Error()
		v.Error = &s
		return v, nil
	}
	v.R2 = &r2
	for k, j := range used {
		e := eff[k]
		v.Genes[j].Coef, v.Genes[j].CI95, v.Genes[j].SD = &e.Coef, &e.CI95, &e.SD
	}
	return v, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// GenerationRow is one generation as `evotune generations` shows it: the stored row, its
// race winner's score with its standard error and games, its hall-of-fame test and
// checkpoint, and its individuals.
type GenerationRow struct {
	db.GenerationRow
	BestScore   float64           `json:"best_score"`
	BestScoreSE *float64          `json:"best_score_se"`
	BestGames   int               `json:"best_games"`
	Admission   *db.AdmissionRow  `json:"admission"`
	Checkpoint  *db.CheckpointRow `json:"checkpoint"`
	// Individuals are the generation's rows, best first (not part of the JSON).
	Individuals []db.IndividualRow `json:"-"`
}

// GenerationTable reads every generation of run runID with its race winner, hall-of-fame
// test and checkpoint: four queries, whatever the run's length.
func GenerationTable(ctx context.Context, d *db.DB, runID int64) ([]GenerationRow, error) {
	gens, err := d.Generations(ctx, runID)
	if err != nil {
		return nil, err
	}
	adms, err := d.Admissions(ctx, runID)
	if err != nil {
		return nil, err
	}
	checks, err := d.Checkpoints(ctx, runID)
	if err != nil {
		return nil, err
	}
	inds, err := d.RunIndividuals(ctx, runID) // by generation, best first
	if err != nil {
		return nil, err
	}
	views := make([]GenerationRow, len(gens))
	at := map[int]int{} // generation → its view
	for i, g := range gens {
		views[i].GenerationRow, at[g.Generation] = g, i
	}
	for _, in := range inds {
		if i, ok := at[in.Generation]; ok {
			views[i].Individuals = append(views[i].Individuals, in)
		}
	}
	for i := range views {
		if inds := views[i].Individuals; len(inds) > 0 {
			views[i].BestScore, views[i].BestScoreSE, views[i].BestGames = inds[0].Score, inds[0].ScoreSE, inds[0].Games
		}
	}
	for i := range adms {
		if g := adms[i].Generation; g < len(views) {
			views[g].Admission = &adms[i]
		}
	}
	for i := range checks {
		if g := checks[i].Generation; g < len(views) {
			views[g].Checkpoint = &checks[i]
		}
	}
	return views, nil
}
