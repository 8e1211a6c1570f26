// Package search is the ask-and-tell interface of a search method and the run loop that
// drives it (Loop, loop.go): the Method a method implements, the rounds it asks for (Round), what it stores
// when a round completes a generation (Told), its champion (Leader, HallView), its
// optional interfaces (Committer, SharedDraws, Guesser, BranchGuesser, Budgeter,
// Backlogger, Flusher), the run it sees (MethodEnv, with the run's derived random
// streams), and the one encoding of its stored state (EncodeState, DecodeState). The loop plays for a run it knows only as a
// Host (the tuner's run: the arena, budgets, summary, events and storage).
//
// A method on the loop (a Method: both forms of the GA, SPSA, CMA-ES, the steady-state
// GA) never plays a game, draws an opening or writes a row. It asks for rounds — its players, the opponents they
// play and how many colour-swapped opening pairs — and is told each round's results in the
// order it asked; when a told round completes one of its generations it says what to store
// and who the champion is. The loop owns the rest, with its Host: the worker pool or cluster and its game
// slots, the openings (every player of a round plays the same ones: common random
// numbers), crediting games to players, the budgets, checkpoints, saving each generation
// behind the next rounds' games (a told generation is stored once the rounds after it are
// asked and playing), progress and resume.
//
// Up to Window rounds are in play at once. The loop asks for the next round after each tell
// (and at the start) while fewer than Window are in play, so a method's k-th round is asked
// once its (k − Window)-th is told, never earlier: a method that asks from what it was told
// asks the same rounds whatever the number of workers or their speed. A method may also
// answer ErrAskLater (its next round needs a round in play told first: the loop asks again
// after the next tell). On resume it takes up its saved state and asks the rounds the
// uninterrupted run would have. With a window of 1 the loop is the classic one: ask, play,
// tell; a method whose next round so waits for the last games of the one in play may guess
// it (Guesser: CMA-ES; with a larger window, for the rounds it marks GuessNext: the GA's
// pairings), and the loop plays the guess ahead on the slots those games leave free,
// keeping it only when the round really asked is the same games.
//
// A new method is one type that implements Method and its constructor from the run's
// MethodEnv, registered by one line of the tuner's Methods (Loop: newX) or, from another
// package, one call of tuner.RegisterMethod (package tuner/randomsearch's test is such a
// method).
package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand"
	randv2 "math/rand/v2"
	"strings"

	"evotune/genomes"
	"evotune/tuner/arena"
	"evotune/tuner/config"
	"evotune/tuner/record"
	"evotune/tuner/schedule"
)

// MethodEnv is what a method on the run loop knows of its run.
type MethodEnv struct {
	// Layout is the run's genes (fixed ones included); Config its configuration.
	Layout *genomes.Layout
	Config config.Config
	// RunID is the run's ID, set by the loop before Restore and the first Ask (the run does
	// not exist yet when the method is made).
	RunID int64
	// OverBudget, set by the loop, reports whether the run's budget is spent counting
	// inPlay more distinct games than it has stored (for a Budgeter).
	OverBudget func(inPlay int) bool
	// DropsStopped, set by the loop when the search starts, reports whether the run's
	// games are played where a stopped round's games not yet begun are dropped (this
	// process's slots: arena.StopDropper), so that a round asked on a guess and Dropped
	// costs at most its games in play; elsewhere (a cluster) every queued game is played.
	DropsStopped bool
	// SlotsOverCores, set by the loop when the search starts, reports whether the run's
	// games share this process's slots and those outnumber its processors (Config.Workers
	// above runtime.NumCPU()): a game played for nothing there, as a wrong guess's, takes
	// processor time from the games that count.
	SlotsOverCores bool
}

// IndividualID is the ID of slot `slot` of generation gen of the run ("1-g3-07").
func (a *MethodEnv) IndividualID(gen, slot int) string {
	return genomes.IndividualID(a.RunID, gen, slot)
}

// Rand is random stream `stream` of generation gen, derived from the run's seed alone (the
// stream Stream), so any generation can be replayed.
func (a *MethodEnv) Rand(gen int, stream uint64) *randv2.Rand {
	return Stream(a.Config.Seed, gen, stream)
}

// RandV1 is random stream `stream` of generation gen as a math/rand source (
// StreamV1), for the genomes package's operators.
func (a *MethodEnv) RandV1(gen int, stream uint64) *rand.Rand {
	return StreamV1(a.Config.Seed, gen, stream)
}

// Round is the games a method asks for: every player plays Pairs colour-swapped pairs of
// fresh tuning openings, opening pair k against Opponents[k mod len(Opponents)] (OneEach:
// player i against Opponents[i] alone), at that pair's depth (config.Plan.DepthOf). The
// loop adds each player's games to its Stats (wins, draws, losses, pentanomial pairs)
// before Tell; an opponent's Stats are the method's to credit (the GA's peers: the mirror
// of its player's).
type Round struct {
	// Gen is the generation the round belongs to (its games are saved with that
	// generation). Its openings are draw Draw of random stream Stream (0: StreamOpenings):
	// the same openings whatever was drawn before.
	Gen    int
	Draw   int
	Stream uint64
	// Exclusive draws the round's openings after those of its generation's Exclusive
	// rounds asked before it, none of those (the draw keyed by Gen, Stream, Pairs and how
	// many were drawn before: arena.DrawKey's After); Draw is then unused. So a
	// generation's rounds never play an opening twice, and each draw is the same whatever
	// other generations drew (the generational GA's racing rounds and admission tests).
	Exclusive bool
	// Streams, for an Exclusive round of one opponent each, splits it into len(Streams)
	// pairings: its players (and their opponents) in len(Streams) equal groups in order,
	// group d playing Pairs opening pairs of its own, drawn from stream Streams[d] after
	// group d−1's, its games stored as game round GameRound+d (the generational GA's
	// pairings of peers, a generation's in one round). Nil: one draw, of Stream.
	Streams []uint64
	// Players are the genomes measured; Opponents the references they play (genomes of the
	// run, identical ones never play each other: such a pair counts as two draws).
	Players   []*genomes.Genome
	Opponents []*genomes.Genome
	// Outside are references that are no genomes of the run (--opponent engines), after
	// Opponents in the turn of opening pairs.
	Outside []schedule.Opponent
	Pairs   int
	// OneEach has player i play Opponents[i] on every one of the Pairs opening pairs (as
	// many opponents as players): a pairing of peers, its pairs in turn on the same
	// openings.
	OneEach bool
	// GuessNext lets the loop play ahead, while the round's last games play, the round the
	// method (a Guesser) would ask next were it told this one, whatever else is in play
	// (the generational GA's pairings, with admission tests in play); with a window of 1
	// every round is so guessed. Held are the genomes (IDs) whose games a round played
	// ahead leaves out (the GA's surrogate child, fitted to every game): the round asked
	// adopts the games ahead when its other games are the same, and plays the held ones
	// behind them.
	GuessNext bool
	Held      []string
	// Dropped, set by the method (in a Tell) on a round it asked and no longer wants (the
	// GA's admission test planned ahead, whose defender changed): the loop stops its games
	// and never tells it, and an Exclusive round's draws are undone (its generation's next
	// round draws them again). Only on a runner that drops a stopped batch's games not yet
	// begun (MethodEnv.DropsStopped) does dropping save games.
	Dropped bool
	// DrawAhead are draws the method will ask next (Exclusive rounds' keys, After
	// included), made while the round plays: those of the round's generation each excluding
	// its openings drawn so far and the ones before it in the list, those of a later
	// generation each excluding the ones before it of that generation.
	DrawAhead []arena.DrawKey
	// Label names the round in progress lines and errors ("generation 3").
	Label string
	// GameRound is the Round its games are stored with (GameResult.Round): 0, or
	// AdmissionRound and DefenceRound for a hall-of-fame test's.
	GameRound int
	// PairScores, filled by the loop before Tell, are each player's points (0 to 2) on each
	// of the round's opening pairs: [player][pair], pair k the same openings for every
	// player (a paired test's differences).
	PairScores [][]float64
	// Games, filled by the loop before Tell, are the rows of the round's games as its
	// generation stores them (a peers' surrogate model is fitted to them).
	Games []record.GameResult
	// Distinct, filled by the loop before Tell, is how many distinct games the round played
	// (a game two identical players share is one).
	Distinct int
	// Own is the method's own data for the round, untouched by the loop.
	Own any
}

// Leader is the run's champion as a method names it: its genome ID, its genes and the
// score the summary shows for it (NaN: none of its own), and the method's hall of fame
// (nil: it keeps none).
type Leader struct {
	ID    string
	Genes []float64
	Score float64
	Hall  *HallView
}

// HallView is what the summary shows of a method's hall of fame: its members in order of
// admission, the member it names as champion (nil: none; with CentreOf the member with
// the best lower bound), the members whose centre is the champion (nil: one member is),
// the tests played and the closest of them (Summary's fields of the same names).
type HallView struct {
	HallOfFame []record.HallOfFamer
	Champion   *record.HallOfFamer
	CentreOf   []string
	Tests      int
	Closest    *record.Admission
}

// Told is what a method stores when a told round completes one of its generations.
type Told struct {
	// Record holds the method's fields of the generation's row: Best, Champion, Opponents,
	// NewGenomes, Individuals (ranked), FitMin, FitMean, FitMax, FitStd, Diversity. The loop
	// fills the rest (run, number, games, openings, times, checkpoint, method state).
	Record record.GenerationRecord
	// State returns the method's own state after the generation (JSON-encoded into
	// Record's MethodState; Restore reads it back; nil: none stored). The loop calls it
	// when it stores the generation, after the rounds that follow are asked, so a state
	// that lists the rounds in play (the steady-state GA's births) holds them.
	State func() any
	// Champion is the run's champion after the generation.
	Champion Leader
	// BestPlayer, BestScore and MeanScore are the progress line's: the best player and its
	// score, and the players' mean score.
	BestPlayer           string
	BestScore, MeanScore float64
	// CentreOf and ChampionElo are the progress line's champion: how many hall-of-fame
	// members it is the centre of (0: none) and its Elo against the baseline (nil: none
	// shown).
	CentreOf    int
	ChampionElo *float64
}

// Method is a search method on the run loop, the ask-and-tell interface of a method: the
// loop asks it for rounds of games (Ask), plays them and tells it their results (Tell) in
// the order asked, and stores what it returns. A method made outside this package is
// registered by RegisterMethod; its optional interfaces are Committer, SharedDraws,
// Guesser, BranchGuesser and Flusher.
type Method interface {
	// Window is how many rounds may be in play at once (≥ 1): a constant of the method,
	// never of the machine.
	Window() int
	// Restore takes up a stored run after its saved generation st.LastGeneration (≥ 0) from
	// every saved generation's method state (st.MethodStates, in order), so that it asks
	// the rounds the uninterrupted run would have; it returns the champion then. The error
	// names what does not fit the configuration.
	Restore(st record.ResumeState) (Leader, error)
	// Ask returns the method's next round, nil when it has no more (its Generations), or
	// ErrAskLater. The loop has checked the budgets.
	Ask() (*Round, error)
	// Tell gives the method round r, its players' Stats now holding the round's games, in
	// the order the rounds were asked. It returns what to store when r completes a
	// generation, else nil.
	Tell(r *Round) (*Told, error)
	// Describe says how the method will search, after "tuning GAME" in tune's header,
	// given the run's length, and notes for lines of their own.
	Describe(length string) (string, []string)
}

// ErrAskLater is a method's answer to Ask when its next round needs a round in play told
// first.
var ErrAskLater = errors.New("ask again after the next tell")

// Committer is a method with rounds it plays whatever the budgets.
type Committer interface {
	// Committed reports whether the next round is played whatever the budgets (the
	// steady-state GA's first population: a generation needs every member).
	Committed() bool
}

// SharedDraws is a method whose rounds share draws of openings (the GA with generations in
// play: the pairs of a pairing): DrawsInPlay is how many distinct draws its Window rounds
// hold, the draws the loop makes ahead (else Window).
type SharedDraws interface {
	DrawsInPlay() int
}

// Guesser is a method on the loop whose next round depends on the round before it, told
// (a window of 1, or a round marked GuessNext): Guess returns the round it would ask next
// were it told r (r's players' Stats and PairScores as the loop would fill them: the games
// the loop still waits for taken as draws), without changing its own state (nil: none).
// The loop plays that round ahead on the slots r's last games leave free (but for the
// games of its Held genomes) and keeps it when the method really asks the same games; a
// round asked stops the rounds ahead of its generation or older that it does not adopt.
type Guesser interface {
	Guess(r *Round) (*Round, error)
}

// BranchGuesser is a Guesser whose next round reads only part of what a round's games give
// (CMA-ES: the order of its candidates' values): GuessKey is that part of r (r as Guess
// takes it, but for its PairScores, unset), the same for two rounds exactly when Guess
// would return the same round for both. The loop weighs the ways the games in play may end
// by their keys and plays ahead the rounds of the likeliest.
type BranchGuesser interface {
	Guesser
	GuessKey(r *Round) string
}

// Budgeter is a method that keeps the run's budget itself: the loop asks it whatever the
// budget, and its Ask returns nil once MethodEnv.OverBudget says the budget is spent,
// counting what the method has in play its own way (the generational GA: its admission
// tests in play at a size the games' speed never changes).
type Budgeter interface {
	KeepsBudget()
}

// Backlogger is a method whose tell may complete several generations in order (the
// generational GA: a generation whose admission test is judged, then the generations after
// it that have none): after storing the told one, the loop stores each Backlog returns,
// generation gen, until it returns nil.
type Backlogger interface {
	Backlog() (gen int, out *Told, err error)
}

// Flusher is a method whose generations span several rounds: when the run ends with told
// rounds not yet stored, Flush returns the generation as it stands.
type Flusher interface {
	Flush() (*Told, error)
}

// EncodeState is a method's state for the generations table's method_state column (the
// error: a value JSON cannot hold, such as NaN).
func EncodeState(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("method state %T: %w", v, err)
	}
	return b, nil
}

// DecodeState reads a stored method state into v, refusing unknown fields: the one decoder
// of every method's state.
func DecodeState(raw []byte, v any) error {
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("method state %s: %w", raw, err)
	}
	return nil
}

// Streams of derived random numbers: each generation's openings, selection and variation
// come from their own stream, so any generation can be replayed from the seed alone.
// Racing round r draws its openings from stream StreamOpenings + r<<4.
const (
	StreamInit     = 1
	StreamOpenings = 2
	StreamGA       = 3
	StreamAdmit    = 4
	StreamCheck    = 5
	StreamDefence  = 6
	// StreamCalibration draws SPSA's calibration openings: never tuned on.
	StreamCalibration = 7
	// StreamPairing draws the GA's pairings of peers (Config.Selection SelectionPeers).
	StreamPairing = 8
)

func Mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Stream is random stream `stream` of generation gen of a run seeded with seed: a PCG
// whose state depends on nothing else, so any generation can be replayed.
func Stream(seed int64, gen int, stream uint64) *randv2.Rand {
	return randv2.New(randv2.NewPCG(uint64(seed), Mix(uint64(gen)<<8|stream)))
}

// StreamV1 is Stream's stream as a math/rand source (for eaopt and the genomes package).
func StreamV1(seed int64, gen int, stream uint64) *rand.Rand {
	return rand.New(rand.NewSource(int64(Mix(uint64(seed)^Mix(uint64(gen)<<8|stream)) >> 1)))
}

// The search coordinates SPSA and CMA-ES move in: ln x for a log gene, x over a fifth of
// its range for a linear one, so that one step means about as much for every gene.

// Unit is the size of one unit of linear gene g in search coordinates: a fifth of its
// range.
func Unit(g genomes.Gene) float64 { return (g.Max - g.Min) / 5 }

// Theta maps gene vector x of layout l to search coordinates: ln x for a log gene, x over
// a fifth of the range (Unit) for a linear one.
func Theta(l *genomes.Layout, x []float64) []float64 {
	u := make([]float64, len(x))
	for i, g := range l.Genes {
		u[i] = ThetaOfGene(g, x[i])
	}
	return u
}

// ThetaOfGene is gene g's value x in search coordinates.
func ThetaOfGene(g genomes.Gene, x float64) float64 {
	if g.Scale == genomes.Log && x > 0 {
		return math.Log(x)
	}
	return x / Unit(g)
}

// GeneOfTheta is gene g's value at search coordinate u, not clamped or rounded.
func GeneOfTheta(g genomes.Gene, u float64) float64 {
	if g.Scale == genomes.Log && g.Min > 0 {
		return math.Exp(u)
	}
	return u * Unit(g)
}

// GenesOfTheta maps search coordinates u back to a gene vector of layout l inside its
// bounds (integer genes rounded, fixed genes at their defaults: Layout.Clamp).
func GenesOfTheta(l *genomes.Layout, u []float64) []float64 {
	x := make([]float64, len(u))
	for i, g := range l.Genes {
		x[i] = GeneOfTheta(g, u[i])
	}
	l.Clamp(x)
	return x
}
