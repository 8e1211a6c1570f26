package arena

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"

	"evotune/engine"
)

// Openings are lists of opening moves, played before the engines take over.
type Openings [][]string

// Key identifies an opening (its moves joined).
func Key(o []string) string { return strings.Join(o, " ") }

// Half is a half of the space of random openings. Tuning draws only from TuningHalf and
// held-out verification only from HeldOutHalf, so the two are disjoint by construction,
// whatever the seeds and however long the run.
type Half int8

const (
	// AnyHalf draws from the whole space.
	AnyHalf Half = iota
	// TuningHalf holds the openings tuning (racing and admission games) may use.
	TuningHalf
	// HeldOutHalf holds the openings of verification, checkpoints and random matches.
	HeldOutHalf
)

// HalfOf returns the half an opening belongs to: a bit of the FNV-1a hash of its key.
func HalfOf(o []string) Half {
	h := fnv.New64a()
	h.Write([]byte(Key(o)))
	if h.Sum64()>>17&1 == 0 {
		return TuningHalf
	}
	return HeldOutHalf
}

// RandomOpenings draws n openings from the game's random opening generator (engine.Opener)
// in the given half, skipping any whose key is in exclude and duplicates; after 100·n draws
// it returns what it has. The error names a game without openings. A game whose openings
// are checked candidates (engine.CheckedOpener: a shallow search of each) has the checks
// of the candidates it will take run at once, on up to GOMAXPROCS goroutines, and draws
// the same openings; rng is then left further on than the draws it took.
func RandomOpenings(g engine.Game, board, n int, rng *rand.Rand, half Half, exclude map[string]bool) (Openings, error) {
	op, ok := g.(engine.Opener)
	if !ok {
		return nil, fmt.Errorf("%s cannot make random openings", g.Name())
	}
	keep := func(seen map[string]bool, o []string) bool {
		k := Key(o)
		if seen[k] || exclude[k] || (half != AnyHalf && HalfOf(o) != half) {
			return false
		}
		seen[k] = true
		return true
	}
	if co, ok := op.(engine.CheckedOpener); ok && runtime.GOMAXPROCS(0) > 1 && n > 0 {
		b, err := g.NewBoard(board)
		if err != nil {
			return nil, err
		}
		return checkedOpenings(co, b, n, rng, keep), nil
	}
	seen := map[string]bool{}
	var out Openings
	for tries := 0; len(out) < n && tries < 100*n; tries++ {
		b, err := g.NewBoard(board)
		if err != nil {
			return nil, err
		}
		o := op.RandomOpening(b, rng)
		if keep(seen, o) {
			out = append(out, o)
		}
	}
	return out, nil
}

// checkedOpenings is RandomOpenings of a CheckedOpener with the candidates' checks run at
// once: it draws on b (a start position, not modified) as many candidates as openings are
// still wanted (each gives at most one), checks them on up to GOMAXPROCS goroutines, then
// takes them in order as engine.CheckedOpening would (an opening is the first candidate
// that passes, or the OpeningTries-th), until n are kept or 100·n openings were drawn.
func checkedOpenings(g engine.CheckedOpener, b engine.Board, n int, rng *rand.Rand, keep func(map[string]bool, []string) bool) Openings {
	seen := map[string]bool{}
	var out Openings
	tries, try := 0, 0 // openings drawn; candidates of the opening being drawn
	for len(out) < n && tries < 100*n {
		cs := make([][]string, n-len(out))
		for i := range cs {
			cs[i] = g.OpeningCandidate(b, rng)
		}
		pass := make([]bool, len(cs))
		next := make(chan int, len(cs))
		for i := range cs {
			next <- i
		}
		close(next)
		var wg sync.WaitGroup
		for range min(len(cs), runtime.GOMAXPROCS(0)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					pass[i] = g.OpeningCheck(b, cs[i])
				}
			}()
		}
		wg.Wait()
		for i, c := range cs {
			if try++; !pass[i] && try < engine.OpeningTries {
				continue
			}
			try = 0
			if tries++; keep(seen, c) {
				out = append(out, c)
			}
			if len(out) == n || tries == 100*n {
				break
			}
		}
	}
	return out
}

// builtinSeed fixes the "built-in" random suite of games without an opening book.
const builtinSeed = 0xB00C

// BuiltinOpenings returns the game's book (Gomoku: the 26 standard renju openings) or, for
// games without one, a fixed suite of 50 random openings from a constant seed.
func BuiltinOpenings(g engine.Game, board int) (Openings, error) {
	if book, ok := g.(engine.OpeningBook); ok {
		var out Openings
		for _, o := range book.BuiltinOpenings(board) {
			out = append(out, o.Moves)
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	return RandomOpenings(g, board, 50, rand.New(rand.NewPCG(builtinSeed, 0)), AnyHalf, nil)
}

// CheckOpening plays moves on a fresh board of side board (0 = the game's default): an
// illegal or unparsable move, a move after the game ended, or an opening that ends the
// game is an error naming the move's number.
func CheckOpening(g engine.Game, board int, moves []string) error {
	if len(moves) == 0 {
		return errors.New("an empty opening")
	}
	b, err := g.NewBoard(board)
	if err != nil {
		return err
	}
	for i, m := range moves {
		if b.Outcome() != engine.Ongoing {
			return fmt.Errorf("move %d (%s): the game is already over", i+1, m)
		}
		if err := b.Play(m); err != nil {
			return fmt.Errorf("move %d: %w", i+1, err)
		}
	}
	if b.Outcome() != engine.Ongoing {
		return errors.New("the opening ends the game")
	}
	return nil
}

// ParseOpenings reads an opening file: one opening per line, its moves separated by spaces
// or commas in the game's notation (Connect6 "J10 K9L11", Gomoku "h8 h9 h10", Amazons
// "d10-d5/d10 a4-b4/b8"), or in a format of the game's community that the game reads
// (engine.OpeningLineReader: Gomoku's Gomocup offset lines "0,0, 1,-1"); blank lines and
// everything after '#' are ignored. Every line is played on a fresh board: an illegal or
// unparsable move is an error naming the file, the line and the move.
func ParseOpenings(r io.Reader, name string, g engine.Game, board int) (Openings, error) {
	var out Openings
	reader, _ := g.(engine.OpeningLineReader)
	size := 0
	if reader != nil {
		b, err := g.NewBoard(board)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		size = b.Size()
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		moves := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\r' })
		if len(moves) == 0 {
			continue
		}
		if reader != nil {
			if m, ok, err := reader.ParseOpeningLine(text, size); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			} else if ok {
				moves = m
			}
		}
		if err := CheckOpening(g, board, moves); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		out = append(out, moves)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no openings", name)
	}
	return out, nil
}

// LoadOpenings reads an opening file (see ParseOpenings).
func LoadOpenings(path string, g engine.Game, board int) (Openings, error) {
	data, err := engine.ReadInputFile(path, "openings", engine.MaxOpeningsFileSize)
	if err != nil {
		return nil, err
	}
	return ParseOpenings(bytes.NewReader(data), path, g, board)
}

// SelectOpenings resolves an --openings value: "builtin", "random" (n openings from seed,
// drawn from the held-out half, so never one a run tuned on), "none" (every game from the
// start position) or a file name. Openings in exclude (e.g. a run's tuning openings, for
// held-out verification from a file or the book) are dropped; the error says when none are
// left.
func SelectOpenings(spec string, g engine.Game, board, n int, seed int64, exclude map[string]bool) (Openings, string, error) {
	var all Openings
	var err error
	label := spec
	switch spec {
	case "none":
		return Openings{nil}, "none", nil
	case "builtin":
		all, err = BuiltinOpenings(g, board)
	case "random":
		all, err = RandomOpenings(g, board, n, rand.New(rand.NewPCG(uint64(seed), 0x0E4)), HeldOutHalf, exclude)
	default:
		all, err = LoadOpenings(spec, g, board)
		label = "file " + spec
	}
	if err != nil {
		return nil, label, err
	}
	return HeldOut(all, label, exclude)
}

// HeldOut returns the openings of all whose keys are not in exclude (the tuning
// openings); none left is an error naming label.
func HeldOut(all Openings, label string, exclude map[string]bool) (Openings, string, error) {
	var out Openings
	for _, o := range all {
		if !exclude[Key(o)] {
			out = append(out, o)
		}
	}
	if len(out) == 0 {
		return nil, label, fmt.Errorf("openings %s: none left after excluding the %d tuning openings", label, len(exclude))
	}
	return out, label, nil
}

// Book orders (match.Request.BookOrder, --book-order): fastchess's -openings order=.
const (
	// BookRandom shuffles the book's entries by the seed (each book's order otherwise puts
	// similar openings together).
	BookRandom = "random"
	// BookSequential plays them in the book's order.
	BookSequential = "sequential"
)

// BookOrder says in which order a match takes a book's entries: from entry Start (from 1;
// 0 = 1) on, shuffled by the seed unless Sequential.
type BookOrder struct {
	Sequential bool
	Start      int
}

// SelectBook reads an opening book for a match or a verification: the game's own formats
// (engine.BookReader: chess's EPD and PGN, PGN games cut to plies plies), else an opening
// file (ParseOpenings); the entries before order.Start are skipped, the openings in exclude
// (a run's tuning openings) dropped, and the rest shuffled by seed unless order is
// sequential. The error names the file and line of a bad entry, or a Start past the
// book's end.
func SelectBook(path string, g engine.Game, board, plies int, seed int64, exclude map[string]bool, order BookOrder) (Openings, string, error) {
	label := "book " + path
	all, err := ReadBook(path, g, board, plies)
	if err != nil {
		return nil, label, err
	}
	if order.Start > 1 {
		if order.Start > len(all) {
			return nil, label, fmt.Errorf("--book-start %d: %s has %d entries", order.Start, path, len(all))
		}
		all = all[order.Start-1:]
		label += fmt.Sprintf(" from entry %d", order.Start)
	}
	out, label, err := HeldOut(all, label, exclude)
	if err != nil {
		return nil, label, err
	}
	if order.Sequential {
		return out, label + ", in order", nil
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0xB00C))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out, label, nil
}

// ReadBook reads an opening book in its order: the game's own formats (engine.BookReader:
// chess's EPD, and PGN games cut to plies plies), else an opening file (ParseOpenings). The
// error names the file and line of a bad entry.
func ReadBook(path string, g engine.Game, board, plies int) (Openings, error) {
	data, err := engine.ReadInputFile(path, "book", engine.MaxOpeningsFileSize)
	if err != nil {
		return nil, err
	}
	if br, ok := g.(engine.BookReader); ok {
		return br.ReadBook(path, data, plies)
	}
	return ParseOpenings(bytes.NewReader(data), path, g, board)
}

// DistinctInHalf is the number of distinct openings of book in half (AnyHalf: all): how
// many BookOpenings can draw at most.
func DistinctInHalf(book Openings, half Half) int {
	seen := map[string]bool{}
	for _, o := range book {
		if half == AnyHalf || HalfOf(o) == half {
			seen[Key(o)] = true
		}
	}
	return len(seen)
}

// BookOpenings draws up to n distinct openings of book in half (AnyHalf: either) that are
// not in exclude, in the order rng shuffles them: a run's tuning draws from the book's
// tuning half (Config.Book) as RandomOpenings draws from the generator's, so that the
// held-out half stays for verification.
func BookOpenings(book Openings, n int, rng *rand.Rand, half Half, exclude map[string]bool) Openings {
	var c Openings
	seen := map[string]bool{}
	for _, o := range book {
		k := Key(o)
		if seen[k] || exclude[k] || (half != AnyHalf && HalfOf(o) != half) {
			continue
		}
		seen[k] = true
		c = append(c, o)
	}
	rng.Shuffle(len(c), func(i, j int) { c[i], c[j] = c[j], c[i] })
	return c[:min(n, len(c))]
}

// Distinct returns o without its repeated openings, keeping the first of each, in order.
func (o Openings) Distinct() Openings {
	var out Openings
	seen := map[string]bool{}
	for _, x := range o {
		if k := Key(x); !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}
