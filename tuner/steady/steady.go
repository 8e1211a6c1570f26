// Package steady is the steady-state GA (config.Config.Method "steady"), a search method on
// the tuner's run loop (search.Method): no generation barrier. The population of
// Population members changes one birth at a time, and births are played while earlier ones
// are still being decided, so the workers (local or cluster) always have games to play:
// none waits for the slowest game of a generation.
//
//   - Birth b < Population is the initial population's b-th member (the paper's weights,
//     then perturbations of them, as the GA's generation 0). Birth b ≥ Population is bred
//     from the population as it stood when birth max(b − Window, Population − 1)
//     was decided: two tournaments (Tournament) by score, uniform crossover
//     (CrossoverRate), mutation (MutationRate; always when the child would be its first
//     parent's copy).
//   - Each birth plays Games/2 fresh colour-swapped opening pairs against the paper's
//     weights, and its first parent (the rival) plays the same openings (common random
//     numbers: the two scores share the openings' noise). The rival's games add to its
//     record, so a member picked often because it looked good is measured again and
//     again (the winner's curse wears off).
//   - Births are decided in birth order, whatever order their games finish in, so a run
//     is the same for any number of workers or cluster machines: the child replaces its
//     rival when its score on their common games is higher; when the rival was replaced
//     in the meantime, it replaces the worst member if its score is higher than that
//     member's record.
//   - Every Population births are saved as a generation: the population ranked by its
//     records, the births and their games, and in the method state the births already
//     bred and in play, so a resumed run plays those same births.
//   - The champion is the centre of the better half of the population (the (μ/μ_w, λ)
//     recombination of evolution strategies: population.CentreWeights by rank, the best weighing
//     most, log genes in log space), a new genome of each generation (slot Population).
package steady

import (
	"fmt"
	"math"
	"sort"

	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/population"
	"evotune/tuner/record"
	"evotune/tuner/search"
)

// streamSteady is the random stream of birth b: its breeding (or initial perturbation)
// and its openings.
const streamSteady = 9

// OpCentre is the operator of the steady-state GA's champion, the centre of the
// better half of the population (parents: the best member and the last of the half).
const OpCentre = "steady-centre"

// Birth is a birth bred but not decided, as stored in the method state.
type Birth struct {
	ID         string             `json:"id"`
	Op         string             `json:"op"`
	Parents    []string           `json:"parents"`
	Genes      map[string]float64 `json:"genes"`
	Rival      string             `json:"rival,omitempty"` // the first parent ("": an initial member)
	RivalGenes map[string]float64 `json:"rival_genes,omitempty"`
}

// State is the method state of a saved generation (generations.method_state, JSON): how many births were decided,
// the members by slot (a child takes its rival's slot), and the births bred after them
// (in birth order), to be played again on resume.
type State struct {
	Births  int      `json:"births"`
	Members []string `json:"members"`
	Pending []Birth  `json:"pending"`
}

// birth is one birth in play: its number, the child and its rival (nil for an initial
// member; a copy that collects the birth's games of the rival).
type birth struct {
	n     int
	child *genomes.Genome
	rival *genomes.Genome
}

// steadyMethod is the steady-state GA on the run loop: round n is birth n, Window
// births in play at once (SteadyConfig).
type steadyMethod struct {
	a       *search.MethodEnv
	pop     []*genomes.Genome // the members, by slot
	decided int               // births decided
	pending []*birth          // births asked and not told, oldest first
	resumed []Birth           // births in play at the save a run resumes from, to be asked again
	ref     *genomes.Genome   // the paper's weights
	genBorn []*genomes.Genome // the births decided since the last save
}

// New is the steady-state GA on the run a describes (its layout and configuration:
// Population, SteadyParams), the method the tuner registers as "steady".
func New(a *search.MethodEnv) (search.Method, error) {
	c := a.Config
	if c.Games < 2 || c.Games%2 != 0 {
		return nil, config.Errorf("games", "", "%d, want an even number ≥ 2 (each birth's game pairs)", c.Games)
	}
	return &steadyMethod{a: a, pop: make([]*genomes.Genome, c.Population), ref: &genomes.Genome{Layout: a.Layout, X: a.Layout.Defaults(), ID: "baseline"}}, nil
}

// Window: SteadyConfig.Window births in play.
func (m *steadyMethod) Window() int { return m.a.Config.SteadyParams().Window }

// Restore takes up the population (with its records), the births decided and the births in
// play at the save.
func (m *steadyMethod) Restore(st record.ResumeState) (search.Leader, error) {
	c := m.a.Config
	if len(st.MethodStates) != st.LastGeneration+1 {
		return search.Leader{}, fmt.Errorf("resume: %d steady-state generation states for %d saved generations", len(st.MethodStates), st.LastGeneration+1)
	}
	var s State
	if err := search.DecodeState(st.MethodStates[st.LastGeneration], &s); err != nil {
		return search.Leader{}, fmt.Errorf("resume: steady-state generation %d: %w", st.LastGeneration, err)
	}
	if len(st.Population) != c.Population {
		return search.Leader{}, fmt.Errorf("resume: generation %d has %d members, the config says %d", st.LastGeneration, len(st.Population), c.Population)
	}
	if len(s.Members) != c.Population {
		return search.Leader{}, fmt.Errorf("resume: steady-state generation %d names %d members, the config says %d", st.LastGeneration, len(s.Members), c.Population)
	}
	byID := map[string]record.ResumeIndividual{}
	for _, r := range st.Population {
		byID[r.ID] = r
	}
	bySlot := make([]*genomes.Genome, c.Population)
	for k, id := range s.Members {
		r, ok := byID[id]
		if !ok {
			return search.Leader{}, fmt.Errorf("resume: steady-state generation %d: member %s is not in its population", st.LastGeneration, id)
		}
		x, err := m.a.Layout.FromNamed(r.Genes)
		if err != nil {
			return search.Leader{}, fmt.Errorf("resume: member %s: %w", r.ID, err)
		}
		bySlot[k] = &genomes.Genome{Layout: m.a.Layout, X: x, ID: r.ID, Op: r.Op, Parents: r.Parents, Born: r.Born, Stats: r.Stats, Mutation: c.Mutation}
	}
	m.pop, m.decided, m.resumed = bySlot, s.Births, s.Pending
	if s.Births%c.Population != 0 && len(s.Pending) == 0 {
		// The run ended inside a generation (its budget ran out there) and saved that
		// generation as it stood; given more games (resume --budget-games), its births go on
		// in the next generation, the unfilled slots left empty.
		m.decided = (st.LastGeneration + 1) * c.Population
	}
	rec, x := m.centre(st.LastGeneration)
	return search.Leader{ID: rec.ID, Genes: x, Score: math.NaN()}, nil
}

// Describe: the population, each birth's games and the window.
func (m *steadyMethod) Describe(length string) (string, []string) {
	c := m.a.Config
	return fmt.Sprintf(" by a steady-state GA: population %d, %s; each birth and its first parent play %d games against %s on the same openings, %d births in play at once (no generation barrier)",
		c.Population, length, c.Games, c.BaselineName(), c.SteadyParams().Window), nil
}

// Saved is the progress line of a saved generation (event e): its games, its best member,
// the mean score and the champion.
func Saved(e record.Event) string {
	return fmt.Sprintf("%d games, best member %s score %.3f, mean %.3f, champion %s (the centre of the better half), %s", e.GamesTotal, e.Best, e.BestScore, e.MeanScore, e.Champion, e.GamesText())
}

// Committed: every member of the initial population is born whatever the budgets (the
// first generation needs them all, and Validate refuses a game budget below it).
func (m *steadyMethod) Committed() bool { return m.decided+len(m.pending) < m.a.Config.Population }

// Ask breeds the next birth (or takes up one in play at the save resumed from): an initial
// member, or a child of the population as it stands once the initial population is decided
// (ErrAskLater before), within Generations (generation 0 and Generations more).
func (m *steadyMethod) Ask() (*search.Round, error) {
	c := m.a.Config
	n := m.decided + len(m.pending)
	pop := c.Population
	var bt *birth
	switch {
	case len(m.resumed) > 0:
		var err error
		if bt, err = m.restoreBirth(m.resumed[0], n); err != nil {
			return nil, err
		}
		m.resumed = m.resumed[1:]
	case n >= pop && m.decided < pop:
		return nil, search.ErrAskLater // a child is bred from the whole initial population
	case n >= pop && c.Generations > 0 && n >= (c.Generations+1)*pop:
		return nil, nil
	default:
		bt = m.breed(n)
	}
	m.pending = append(m.pending, bt)
	players := []*genomes.Genome{bt.child}
	if bt.rival != nil {
		players = append(players, bt.rival)
	}
	return &search.Round{Gen: n / pop, Draw: n, Stream: streamSteady, Players: players, Opponents: []*genomes.Genome{m.ref}, Pairs: c.Games / 2,
		Label: fmt.Sprintf("birth %s", bt.child.ID)}, nil
}

// breed makes birth n: an initial member, or a child of the population as it stands.
func (m *steadyMethod) breed(n int) *birth {
	c, l := m.a.Config, m.a.Layout
	pop := c.Population
	rng := m.a.RandV1(n, streamSteady)
	child := &genomes.Genome{Layout: l, ID: m.a.IndividualID(n/pop, n%pop), Born: n / pop, Mutation: c.Mutation}
	bt := &birth{n: n, child: child}
	switch {
	case n == 0:
		child.X, child.Op = l.Defaults(), genomes.OpBaseline
	case n < pop && c.Init == "random":
		child.X, child.Op = l.Random(rng), genomes.OpInitial
	case n < pop:
		child.X, child.Op = l.Perturb(c.Mutation, rng), genomes.OpInitial
	default:
		ranked := m.ranked()
		k := max(1, min(c.Tournament, pop-1))
		a, b := ranked[population.Tournament(rng, pop, k)], ranked[population.Tournament(rng, pop, k)]
		child.X, child.Parents, child.Op = append([]float64(nil), a.X...), []string{a.ID}, genomes.OpClone
		if rng.Float64() < c.CrossoverRate && b != a {
			mate := b.Clone().(*genomes.Genome)
			child.ID, child.Op = a.ID, ""
			child.Crossover(mate, rng)
			child.ID = m.a.IndividualID(n/pop, n%pop)
		}
		if rng.Float64() < c.MutationRate || fmt.Sprint(child.X) == fmt.Sprint(a.X) {
			child.Mutate(rng)
		}
		// A crossover's child holds fixed genes at their values too (a gene frozen while
		// the run went on, whose parents may predate the freeze).
		l.Clamp(child.X)
		bt.rival = &genomes.Genome{Layout: l, X: append([]float64(nil), a.X...), ID: a.ID}
	}
	return bt
}

// restoreBirth rebuilds birth n, in play at the save, from the method state.
func (m *steadyMethod) restoreBirth(sb Birth, n int) (*birth, error) {
	c, l := m.a.Config, m.a.Layout
	x, err := l.FromNamed(sb.Genes)
	if err != nil {
		return nil, fmt.Errorf("resume: birth %s: %w", sb.ID, err)
	}
	bt := &birth{n: n, child: &genomes.Genome{Layout: l, X: x, ID: sb.ID, Op: sb.Op, Parents: sb.Parents, Born: n / c.Population, Mutation: c.Mutation}}
	if sb.ID != m.a.IndividualID(n/c.Population, n%c.Population) {
		return nil, fmt.Errorf("resume: birth %s is not birth %d of the run", sb.ID, n)
	}
	if sb.Rival != "" {
		rx, err := l.FromNamed(sb.RivalGenes)
		if err != nil {
			return nil, fmt.Errorf("resume: birth %s: rival %s: %w", sb.ID, sb.Rival, err)
		}
		bt.rival = &genomes.Genome{Layout: l, X: rx, ID: sb.Rival}
	}
	return bt, nil
}

// Tell decides the oldest birth in play (see the method's comment): the child's games are
// its record, its rival's are added to the rival's; every Population births make a
// generation to store.
func (m *steadyMethod) Tell(r *search.Round) (*search.Told, error) {
	bt := m.pending[0]
	m.pending = m.pending[1:]
	if r.Players[0] != bt.child {
		return nil, fmt.Errorf("birth %s told, %s expected", r.Players[0].ID, bt.child.ID)
	}
	m.genBorn = append(m.genBorn, bt.child)
	m.decided++
	if bt.rival == nil {
		m.pop[bt.n] = bt.child
	} else {
		score := func(g *genomes.Genome) float64 { return float64(g.Stats.Wins) + float64(g.Stats.Draws)/2 }
		slot := -1
		for i, g := range m.pop {
			if g.ID == bt.rival.ID {
				slot = i
				g.Stats = g.Stats.Add(bt.rival.Stats)
			}
		}
		switch {
		case slot >= 0 && score(bt.child) > score(bt.rival):
			m.pop[slot] = bt.child
		case slot < 0:
			worst := m.ranked()[len(m.pop)-1]
			if bt.child.Stats.Score() > worst.Stats.Score() {
				for i, g := range m.pop {
					if g == worst {
						m.pop[i] = bt.child
					}
				}
			}
		}
	}
	if m.decided%m.a.Config.Population != 0 {
		return nil, nil
	}
	return m.generation()
}

// Flush stores the generation of the births decided since the last save when the run ends
// inside it.
func (m *steadyMethod) Flush() (*search.Told, error) { return m.generation() }

// ranked returns the members best first: by score, then more games, then ID.
func (m *steadyMethod) ranked() []*genomes.Genome {
	r := append([]*genomes.Genome(nil), m.pop...)
	sort.SliceStable(r, func(i, j int) bool {
		a, b := r[i], r[j]
		if sa, sb := a.Stats.Score(), b.Stats.Score(); sa != sb {
			return sa > sb
		}
		if a.Stats.Games() != b.Stats.Games() {
			return a.Stats.Games() > b.Stats.Games()
		}
		return a.ID < b.ID
	})
	return r
}

// centre is the champion after generation gen: the centre of the better half of the
// population, best weighing most (centreWeights in rank order), its genome record and
// genes.
func (m *steadyMethod) centre(gen int) (record.GenomeRecord, []float64) {
	l := m.a.Layout
	ranked := m.ranked()
	x, last := population.BetterHalfCentre(l, ranked)
	rec := record.GenomeRecord{ID: m.a.IndividualID(gen, m.a.Config.Population), Born: gen, Operator: OpCentre,
		Parents: []string{ranked[0].ID, last}, Genes: l.Named(x)}
	return rec, x
}

// generation is the generation of the births decided since the last save: the population
// ranked by its records, the births, the champion, and the method state (the births
// decided, the members by slot, the births in play).
func (m *steadyMethod) generation() (*search.Told, error) {
	l := m.a.Layout
	gen := (m.decided - 1) / m.a.Config.Population
	champ, cx := m.centre(gen)
	st := State{Births: m.decided, Pending: []Birth{}}
	for _, g := range m.pop {
		st.Members = append(st.Members, g.ID)
	}
	// The births in play when the generation is stored: those bred after it are bred from
	// the population it stores, the same births a resumed run breeds.
	state := func() any {
		for _, bt := range m.pending {
			sb := Birth{ID: bt.child.ID, Op: bt.child.Op, Parents: bt.child.Parents, Genes: l.Named(bt.child.X)}
			if bt.rival != nil {
				sb.Rival, sb.RivalGenes = bt.rival.ID, l.Named(bt.rival.X)
			}
			st.Pending = append(st.Pending, sb)
		}
		return st
	}
	ranked := m.ranked()
	rec := record.GenerationRecord{Opponents: []string{m.ref.ID}, Best: ranked[0].ID, Champion: champ.ID}
	for _, g := range m.genBorn {
		rec.NewGenomes = append(rec.NewGenomes, record.GenomeRecord{ID: g.ID, Born: g.Born, Operator: g.Op, Parents: g.Parents, Genes: l.Named(g.X)})
	}
	rec.NewGenomes = append(rec.NewGenomes, champ)
	population.RankedFields(&rec, l, ranked)
	m.genBorn = nil
	return &search.Told{Record: rec, State: state, Champion: search.Leader{ID: champ.ID, Genes: cx, Score: math.NaN()},
		BestPlayer: ranked[0].ID, BestScore: ranked[0].Stats.Score(), MeanScore: 1 - rec.FitMean}, nil
}
