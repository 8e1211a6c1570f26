// Package gomocup is the Gomocup (Piskvork) protocol for Gomoku, both sides: Serve lets
// evotune's engine play under Piskvork or c-gomoku-cli (START, RECTSTART, RESTART, BEGIN,
// TURN, BOARD … DONE, INFO, SWAP2BOARD, TAKEBACK, ABOUT, END; UNKNOWN for unknown commands,
// ERROR for bad ones), and Client drives an outside engine the way those managers do.
// Coordinates are x,y from 0 at the top-left. A game speaks it by implementing Game.
package gomocup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol/wire"
	"evotune/engine/swap"
)

// Game is a game the Gomocup protocol carries (gomoku.Game): one stone a move on a
// square board, points named by column letter and row from the bottom ("h8", Gomocup's
// x,y from 0 at the top-left), the rule set by INFO rule's bits.
type Game interface {
	engine.Game
	// GomocupRule is the game's rule as INFO rule bits (0 freestyle, 1 exactly five, 4 renju).
	GomocupRule() int
	// WithGomocupRule returns the game under the rule INFO rule's bits select.
	WithGomocupRule(bits int64) engine.Game
}

// gomocup is the state of one Gomocup session.
type gomocup struct {
	cfg      wire.Config
	session  wire.Session // the player of the game in play
	out      io.Writer
	size     int
	game     Game    // under the rule of INFO rule
	stones   []stone // in play order
	turnMS   int64   // INFO timeout_turn
	matchMS  int64   // INFO timeout_match
	leftMS   int64   // INFO time_left
	started  bool
	gameRule string
}

type stone struct {
	x, y int
	own  bool
}

// Serve runs the Gomocup (Piskvork) protocol on in/out until END or end of input;
// cfg.Game must be a Game (else the error says so). Rules: INFO rule bit 4 selects
// renju (Black never plays a forbidden move), else bit 1 exactly-five (Standard),
// otherwise freestyle. Time: the per-move budget is the smaller of timeout_turn and, when
// the match has a limit, time_left/15 (capped by wire.Config.MoveTime; see wire.Config.LimitsFor for
// how much of it a move uses). Every answer is preceded by a MESSAGE line with the
// search's depth, score, nodes, NPS, time and PV.
func Serve(ctx context.Context, cfg wire.Config, in io.Reader, out io.Writer) error {
	gg, ok := cfg.Game.(Game)
	if !ok {
		return fmt.Errorf("the Gomocup protocol cannot carry %s", cfg.Game.Name())
	}
	s := &gomocup{cfg: cfg, out: out, game: gg.WithGomocupRule(0).(Game)}
	ls := wire.NewLines(in)
	for {
		line, ok := ls.Next()
		if !ok {
			return nil
		}
		cmd, arg, _ := strings.Cut(line, " ")
		arg = strings.TrimSpace(arg)
		switch strings.ToUpper(cmd) {
		case "START":
			n, err := strconv.Atoi(arg)
			switch {
			case err != nil:
			case n < 1: // NewBoard(0) is the game's default board; a protocol size is a size
				err = errors.New("not a board side")
			default:
				_, err = s.game.NewBoard(n)
			}
			if err != nil {
				wire.WriteLine(out, "ERROR unsupported board size %q (%v)", arg, err)
				continue
			}
			s.size, s.stones, s.started = n, nil, true
			s.session.NewGame(cfg)
			wire.WriteLine(out, "OK")
		case "RECTSTART":
			w, h, ok := strings.Cut(arg, ",")
			wi, e1 := strconv.Atoi(strings.TrimSpace(w))
			hi, e2 := strconv.Atoi(strings.TrimSpace(h))
			var err error
			switch {
			case !ok || e1 != nil || e2 != nil || wi != hi:
				err = errors.New("only square boards")
			case wi < 1:
				err = errors.New("not a board side")
			default:
				_, err = s.game.NewBoard(wi)
			}
			if err != nil {
				wire.WriteLine(out, "ERROR unsupported board %q (%v)", arg, err)
				continue
			}
			s.size, s.stones, s.started = wi, nil, true
			s.session.NewGame(cfg)
			wire.WriteLine(out, "OK")
		case "RESTART":
			s.stones = nil
			s.session.NewGame(cfg)
			wire.WriteLine(out, "OK")
		case "INFO":
			s.info(arg)
		case "BEGIN":
			if !s.ready() {
				continue
			}
			if len(s.stones) != 0 {
				wire.WriteLine(out, "ERROR BEGIN on a board that is not empty")
				continue
			}
			s.play(ctx)
		case "TURN":
			if !s.ready() {
				continue
			}
			x, y, err := s.parseXY(arg)
			if err == nil {
				err = s.add(stone{x, y, false})
			}
			if err != nil {
				wire.WriteLine(out, "ERROR %v", err)
				continue
			}
			s.play(ctx)
		case "BOARD":
			if !s.ready() {
				continue
			}
			s.stones = nil
			var bad error
			block, ok := ls.UntilDone()
			if !ok {
				return nil
			}
			for _, l := range block {
				f := strings.Split(l, ",")
				if len(f) != 3 {
					bad = fmt.Errorf("board line %q: want x,y,field", l)
					continue
				}
				x, y, err := s.parseXY(f[0] + "," + f[1])
				field, ferr := strconv.Atoi(strings.TrimSpace(f[2]))
				if err != nil || ferr != nil || field < 1 || field > 3 {
					bad = fmt.Errorf("board line %q: bad stone", l)
					continue
				}
				s.stones = append(s.stones, stone{x, y, field == 1})
			}
			if bad == nil {
				_, bad = s.board()
			}
			if bad != nil {
				s.stones = nil
				wire.WriteLine(out, "ERROR %v", bad)
				continue
			}
			s.play(ctx)
		case "SWAP2BOARD":
			if !s.ready() {
				continue
			}
			var moves []string
			var bad error
			block, ok := ls.UntilDone()
			if !ok {
				return nil
			}
			for _, l := range block {
				x, y, err := s.parseXY(l)
				if err != nil {
					bad = fmt.Errorf("SWAP2BOARD line %q: %v", l, err)
					continue
				}
				moves = append(moves, s.notation(x, y))
			}
			if bad == nil {
				bad = s.swap2(ctx, moves)
			}
			if bad != nil {
				wire.WriteLine(out, "ERROR %v", bad)
			}
		case "TAKEBACK":
			x, y, err := s.parseXY(arg)
			if err != nil || len(s.stones) == 0 || s.stones[len(s.stones)-1].x != x || s.stones[len(s.stones)-1].y != y {
				wire.WriteLine(out, "ERROR TAKEBACK %s: not the last stone played", arg)
				continue
			}
			s.stones = s.stones[:len(s.stones)-1]
			wire.WriteLine(out, "OK")
		case "ABOUT":
			wire.WriteLine(out, `name="%s", version="%s", author="evotune", country="", www="", email=""`, s.cfg.Name, s.cfg.Version)
		case "END":
			return nil
		default:
			wire.WriteLine(out, "UNKNOWN command %q", cmd)
		}
	}
}

func (s *gomocup) ready() bool {
	if !s.started {
		wire.WriteLine(s.out, "ERROR no START yet")
	}
	return s.started
}

func (s *gomocup) info(arg string) {
	key, val, _ := strings.Cut(arg, " ")
	n, _ := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
	switch strings.ToLower(key) {
	case "timeout_turn":
		s.turnMS = n
	case "timeout_match":
		s.matchMS = n
	case "time_left":
		s.leftMS = n
	case "rule":
		s.game = s.game.WithGomocupRule(n).(Game)
	}
}

func (s *gomocup) parseXY(arg string) (int, int, error) {
	a, b, ok := strings.Cut(arg, ",")
	x, e1 := strconv.Atoi(strings.TrimSpace(a))
	y, e2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || e1 != nil || e2 != nil {
		return 0, 0, fmt.Errorf("coordinates %q: want x,y", arg)
	}
	if x < 0 || y < 0 || x >= s.size || y >= s.size {
		return 0, 0, fmt.Errorf("coordinates %d,%d: off the %d×%d board", x, y, s.size, s.size)
	}
	return x, y, nil
}

// notation converts Gomocup x,y (top-left origin) to evotune's "h8" (row 1 at the bottom).
func (s *gomocup) notation(x, y int) string { return fmt.Sprintf("%c%d", 'a'+rune(x), s.size-y) }

func (s *gomocup) add(st stone) error {
	s.stones = append(s.stones, st)
	if _, err := s.board(); err != nil {
		s.stones = s.stones[:len(s.stones)-1]
		return err
	}
	return nil
}

// board replays the stones: Black moved first, so the side with more stones (or, when
// equal, the side not to move: the opponent of whoever moves now) is Black. evotune is to
// move.
func (s *gomocup) board() (engine.Board, error) {
	b, err := s.game.NewBoard(s.size)
	if err != nil {
		return nil, err
	}
	var own, opp []stone
	for _, st := range s.stones {
		if st.own {
			own = append(own, st)
		} else {
			opp = append(opp, st)
		}
	}
	black, white := own, opp // equal counts: evotune (to move) is Black
	switch {
	case len(opp) == len(own)+1:
		black, white = opp, own
	case len(opp) != len(own):
		return nil, fmt.Errorf("the board has %d own and %d opponent stones: not evotune's turn", len(own), len(opp))
	}
	// A position does not depend on the order of BOARD's lines, but replaying stones in
	// their order may pass through a five (or, in renju, a forbidden point) that a later
	// stone turns into an overline or blocks. Place stones in an order that keeps the game
	// going: for each colour in turn, the first of its remaining stones that does not end
	// the game. Only a position every order ends (one holding a five) is refused.
	left := [2][]stone{black, white}
	for n := len(black) + len(white); n > 0; n-- {
		c := b.Ply() % 2
		placed := false
		for i, st := range left[c] {
			next := b.Clone()
			if err := next.Play(s.notation(st.x, st.y)); err != nil {
				return nil, fmt.Errorf("stone %d,%d: %v", st.x, st.y, err)
			}
			if next.Outcome() == engine.Ongoing || n == 1 {
				b, placed = next, true
				left[c] = append(left[c][:i:i], left[c][i+1:]...)
				break
			}
		}
		if !placed {
			return nil, errors.New("the game is already over: the position holds a five")
		}
	}
	if b.Outcome() != engine.Ongoing {
		return nil, fmt.Errorf("the game is already over (%v)", b.Outcome())
	}
	return b, nil
}

// budget is the time for one move from the manager's INFO: timeout_turn, and when the
// match has a limit, a share of time_left (1/matchShare, so the clock lasts the game);
// 0 when neither is known (timeout_turn 0 means "as fast as possible").
func (s *gomocup) budget() time.Duration {
	b := time.Duration(s.turnMS) * time.Millisecond
	if s.matchMS > 0 && s.leftMS > 0 {
		if t := time.Duration(s.leftMS) * time.Millisecond / matchShare; b == 0 || t < b {
			b = t
		}
	}
	return b
}

// matchShare: a move may use 1/matchShare of the match time left.
const matchShare = 15

// play answers with evotune's move and records it.
// swap2 answers SWAP2BOARD (Gomocup's Swap2 opening) on the stones given in order, Black
// first: three stones on an empty board, then SWAP or the next move (swap.Builtin with this
// engine's search and the opening book's three-stone openings as proposals).
func (s *gomocup) swap2(ctx context.Context, moves []string) error {
	b, err := s.game.NewBoard(s.size)
	if err != nil {
		return err
	}
	for _, m := range moves {
		if err := b.Play(m); err != nil {
			return fmt.Errorf("stone %s: %v", m, err)
		}
	}
	if n := len(moves); n != 0 && n != 3 && n != 5 {
		return fmt.Errorf("%d stones: Swap2 asks after 0, 3 or 5", n)
	}
	if b.Outcome() != engine.Ongoing {
		return errors.New("the game is already over")
	}
	var proposals [][]string
	if book, ok := s.cfg.Game.(engine.OpeningBook); ok {
		for _, o := range book.BuiltinOpenings(s.size) {
			proposals = append(proposals, o.Moves)
		}
	}
	budget := s.cfg.BudgetFor(s.budget())
	if len(moves) == 0 {
		budget /= time.Duration(max(1, len(proposals))) // proposing searches every proposal
	}
	p, err := s.cfg.Game.NewPlayer(s.cfg.Weights, s.cfg.LimitsFor(budget))
	if err != nil {
		return err
	}
	swap, stones, err := swap.Builtin{Player: p, Proposals: proposals}.SwapAnswer(ctx, b)
	if err != nil {
		return err
	}
	if swap {
		wire.WriteLine(s.out, "SWAP")
		return nil
	}
	var xy []string
	for _, m := range stones {
		x, y := XY(m, s.size)
		xy = append(xy, fmt.Sprintf("%d,%d", x, y))
	}
	wire.WriteLine(s.out, "%s", strings.Join(xy, " "))
	return nil
}

func (s *gomocup) play(ctx context.Context) {
	b, err := s.board()
	if err != nil {
		wire.WriteLine(s.out, "ERROR %v", err)
		return
	}
	m, st, err := s.session.Think(ctx, s.cfg, b, s.cfg.BudgetFor(s.budget()))
	if err != nil {
		wire.WriteLine(s.out, "ERROR %v", err)
		return
	}
	wire.WriteLine(s.out, "MESSAGE %s", wire.Info(st))
	x := int(m[0] - 'a')
	row, _ := strconv.Atoi(m[1:])
	y := s.size - row
	s.stones = append(s.stones, stone{x, y, true})
	wire.WriteLine(s.out, "%d,%d", x, y)
}
