package match

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"evotune/engine"
	"evotune/tuner/arena"
	"evotune/tuner/stats"
)

// Status is a stored match's state: Running while it plays, then Finished, Stopped (its
// context ended: Ctrl-C) or Failed.
type Status string

// The statuses of a stored match.
const (
	Running  Status = "running"
	Stopped  Status = "stopped"
	Finished Status = "finished"
	Failed   Status = "failed"
)

// Store keeps matches and their games (package runstore's Matches, over the database). A
// match is found again by its key: what it asked (Request.Key, Tournament.Key).
type Store interface {
	// Latest returns the newest match stored under key (with unfinished, the newest not
	// finished) and its status; found false when there is none.
	Latest(ctx context.Context, key string, unfinished bool) (id int64, status Status, found bool, err error)
	// Create stores a new Running match of key between players a and b (as given) of the
	// named game, games asked.
	Create(ctx context.Context, key, game, a, b string, games int) (int64, error)
	// SetStatus stores match id's status and, when summary is not nil, its result summary
	// (JSON).
	SetStatus(ctx context.Context, id int64, status Status, summary []byte) error
	// SaveGame stores a finished game of match id (a game stored again replaces it).
	SaveGame(ctx context.Context, id int64, g Game) error
	// Games returns match id's stored games in pair and game order.
	Games(ctx context.Context, id int64) ([]Game, error)
}

// ErrNotStored is Open's answer to a resume when the store holds no match of the key.
var ErrNotStored = errors.New("no match of this key is stored")

// Spec says which stored match a Session is: its key, and for a new one the game's name,
// the players as given and the games asked. Resume takes up the newest match stored under
// Key (Unfinished: the newest not finished; else whatever its status, a finished one kept
// as it is).
type Spec struct {
	Key        string
	Game, A, B string
	Games      int
	Resume     bool
	Unfinished bool
}

// Session is one stored match as a command plays it: found again by its key (resume:
// its finished pairs are not played again) or created, every game stored as it ends (and
// appended to a PGN), and its end stored with a summary of its result. Match, tournament
// (a session a pairing) and verify play through sessions.
type Session struct {
	store  Store
	id     int64
	status Status // as stored when the session opened; "" for a new match
	done   map[int][2]engine.GameRecord
}

// Open finds the match of spec.Key (spec.Resume) or creates it. A resume writes nothing
// (Begin marks the match Running once it plays); one that finds no match returns
// ErrNotStored.
func Open(ctx context.Context, st Store, spec Spec) (*Session, error) {
	s := &Session{store: st}
	if !spec.Resume {
		id, err := st.Create(ctx, spec.Key, spec.Game, spec.A, spec.B, spec.Games)
		if err != nil {
			return nil, err
		}
		s.id = id
		return s, nil
	}
	id, status, found, err := st.Latest(ctx, spec.Key, spec.Unfinished)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrNotStored
	}
	s.id, s.status = id, status
	if s.done, err = storedPairs(ctx, st, id); err != nil {
		return nil, err
	}
	return s, nil
}

// Begin marks a resumed match that is not finished Running again, as its games are about
// to be played (a new match is stored Running).
func (s *Session) Begin(ctx context.Context) error {
	if s.status == "" || s.status == Finished || s.status == Running {
		return nil
	}
	return s.store.SetStatus(ctx, s.id, Running, nil)
}

// ID is the stored match's ID.
func (s *Session) ID() int64 { return s.id }

// Done is the resumed match's pairs whose two games ended, by pair index (Config.Done);
// nil for a new match.
func (s *Session) Done() map[int][2]engine.GameRecord { return s.done }

// Finished reports whether the session took up a match already finished (a tournament's
// pairing played before it stopped): its games are all there.
func (s *Session) Finished() bool { return s.status == Finished }

// storedPairs reads match id's stored games back as the pairs whose two games ended (a
// pair with one game is played again).
func storedPairs(ctx context.Context, st Store, id int64) (map[int][2]engine.GameRecord, error) {
	games, err := st.Games(ctx, id)
	if err != nil {
		return nil, err
	}
	half := map[int]*[2]*engine.GameRecord{}
	for _, g := range games {
		if g.Game != 1 && g.Game != 2 {
			return nil, fmt.Errorf("match %d pair %d: game %d stored, want 1 or 2", id, g.Pair, g.Game)
		}
		if half[g.Pair] == nil {
			half[g.Pair] = &[2]*engine.GameRecord{}
		}
		rec := g.Record
		half[g.Pair][g.Game-1] = &rec
	}
	out := map[int][2]engine.GameRecord{}
	for k, p := range half {
		if p[0] != nil && p[1] != nil {
			out[k] = [2]engine.GameRecord{*p[0], *p[1]}
		}
	}
	return out, nil
}

// Recorder returns a Config.OnGame that stores each game as it ends (even while the match
// is being stopped: ctx's values without its cancellation) and, when pgn is not nil,
// appends it to pgn as text writes it. The first failure of each is told to warn once,
// as "store: …" or "PGN FILE: …"; the games go on (the final report, and the PGN written
// again at the end, keep them).
func (s *Session) Recorder(ctx context.Context, pgn *PGN, text func(Game) ([]byte, error), warn func(error)) func(Game) {
	var storeFailed, pgnFailed bool
	return func(g Game) {
		if err := s.store.SaveGame(context.WithoutCancel(ctx), s.id, g); err != nil && !storeFailed {
			storeFailed = true
			warn(fmt.Errorf("store: %w", err))
		}
		if pgn == nil {
			return
		}
		data, err := text(g)
		if err == nil {
			err = pgn.Append(data)
		}
		if err != nil && !pgnFailed {
			pgnFailed = true
			warn(fmt.Errorf("PGN %s: %w", pgn.Path(), err))
		}
	}
}

// Play plays mc through the session: the resumed match's finished pairs not played again
// (Done), each game stored and appended to pgn (when not nil) as text writes it as it ends
// (warn told of the first failure of each), the match marked Running (Begin), then played
// (the package's Play, progress told of each game) and its end stored (End). The result and
// error are Play's, or the store's.
func (s *Session) Play(ctx context.Context, mc Config, pgn *PGN, text func(Game) ([]byte, error), warn func(error), progress func(done, total int, r stats.Result)) (Result, error) {
	if s.done != nil {
		mc.Done = s.done
	}
	mc.OnGame = s.Recorder(ctx, pgn, text, warn)
	if err := s.Begin(ctx); err != nil {
		return Result{}, err
	}
	res, err := Play(ctx, mc, progress)
	return res, s.End(ctx, res, err)
}

// End stores the match's status after Play returned res and err (Finished, Stopped when
// res.Interrupted, else Failed) with its summary, and returns err, or the store's error
// when err is nil. ctx may be cancelled: the status is written regardless.
func (s *Session) End(ctx context.Context, res Result, err error) error {
	status := Finished
	switch {
	case err != nil && res.Interrupted:
		status = Stopped
	case err != nil:
		status = Failed
	}
	summary, _ := json.Marshal(Summary(res))
	if serr := s.store.SetStatus(context.WithoutCancel(ctx), s.id, status, summary); serr != nil && err == nil {
		return serr
	}
	return err
}

// Summary is a match's result as stored with it: games, W/D/L, pentanomial, Elo ± 95%
// (null when unknown or infinite), LLR and verdict under an SPRT, and whether it was
// interrupted.
func Summary(res Result) any {
	s := struct {
		Games       int          `json:"games"`
		Result      stats.Result `json:"result"`
		Elo         *float64     `json:"elo"`
		EloCI95     *float64     `json:"elo_ci95"`
		LLR         *float64     `json:"llr,omitempty"`
		Verdict     string       `json:"verdict,omitempty"`
		Interrupted bool         `json:"interrupted,omitempty"`
	}{Games: res.Result.Games(), Result: res.Result, Verdict: res.Verdict, Interrupted: res.Interrupted}
	if e := res.Estimate; e != nil && math.Abs(e.Elo) < 1e8 {
		elo, ci := e.Elo, e.CI95
		s.Elo, s.EloCI95 = &elo, &ci
	}
	if res.SPRT != nil {
		llr := res.LLR
		s.LLR = &llr
	}
	return s
}

// PGN is the PGN file of a match or tournament: each game appended as it ends, the whole
// file written again, in pair order, at the end.
type PGN struct {
	path string
	f    *os.File
}

// PGNExistsError is OpenPGN's refusal of a file that already holds games: replacing it
// would lose them without a word.
type PGNExistsError struct {
	Path  string
	Games int
}

func (e *PGNExistsError) Error() string {
	if e.Games == 0 {
		return fmt.Sprintf("%s exists and is not empty", e.Path)
	}
	return fmt.Sprintf("%s already holds %d games", e.Path, e.Games)
}

// OpenPGN opens path for a match's games as they end. A file that already holds games is
// refused (*PGNExistsError) unless resume (a stopped match continued: its games are
// appended to) or force (the file is replaced); an empty or missing one is written. The
// error names the path (engine.OutputTarget: a path that is a folder, a link to one, or a
// special file is refused).
func OpenPGN(path string, resume, force bool) (*PGN, error) {
	target, err := engine.OutputTarget(path)
	if err != nil {
		return nil, err
	}
	if !resume && !force {
		if data, err := os.ReadFile(target); err == nil {
			if n := strings.Count(string(data), "[Event "); n > 0 || len(strings.TrimSpace(string(data))) > 0 {
				return nil, &PGNExistsError{Path: path, Games: n}
			}
		}
	}
	mode := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if resume {
		mode = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(target, mode, 0o644)
	if err != nil {
		return nil, err
	}
	return &PGN{path: path, f: f}, nil
}

// Path is the file's path as given.
func (p *PGN) Path() string { return p.path }

// Append adds one game's text.
func (p *PGN) Append(data []byte) error {
	_, err := p.f.Write(data)
	return err
}

// Replace closes the file and writes text in its place, atomically (engine.WriteFileAtomic):
// the games in pair order once the match is over.
func (p *PGN) Replace(text string) error {
	p.f.Close()
	return engine.WriteFileAtomic(p.path, []byte(text))
}

// Close closes the file (the games appended stay).
func (p *PGN) Close() error { return p.f.Close() }

// openingsDigest is the first 8 bytes of the SHA-256 of a match's openings, in hex: a key
// names the same file's openings, not its path.
func openingsDigest(o arena.Openings) string {
	sum := sha256.Sum256([]byte(fmt.Sprint(o)))
	return hex.EncodeToString(sum[:8])
}

// bookOrderKey and bookStartKey are the book's order and first entry as a stored match's
// key holds them: "" and 0 at their defaults, so the keys of matches stored before those
// settings existed stay the same.
func bookOrderKey(order string) string {
	if order == arena.BookRandom {
		return ""
	}
	return order
}

func bookStartKey(start int) int {
	if start == 1 {
		return 0
	}
	return start
}

// Key is what match r asks, as stored with it: the game and rule, the players and their
// options, the games, seed, SPRT, openings (cfg's, by digest: the same file's openings),
// limits (cfg's, resolved), clocks and adjudication. A match resumes the stored one of
// its key; the key of a request is the same across builds (its JSON keys never change).
func (r Request) Key(cfg *Config) string {
	b, _ := json.Marshal(struct {
		Game, Rule, A, B         string
		AOptions, BOptions       []string
		Games, Board, MaxPlies   int
		Seed                     int64
		SPRT, Openings, SwapRule string
		OpeningsDigest           string
		Limits                   engine.Limits
		Nodes                    int64
		MoveTime, GameTime       time.Duration
		TC, Resign, Draw, Book   string
		MaxMoves, BookPlies      int
		ExcludeRun               int64
		Protocol                 string
		BookOrder                string `json:",omitempty"`
		BookStart                int    `json:",omitempty"`
	}{r.Game.Name(), engine.RuleOf(r.Game), r.A, r.B, r.AOptions, r.BOptions, r.Games, r.Board, r.MaxPlies, r.Seed, r.SPRT, r.Openings, r.SwapRule,
		openingsDigest(cfg.Openings), cfg.Setup.Limits, r.Nodes, r.MoveTime, r.GameTime, r.TimeControl, r.Resign, r.Draw, r.Book,
		r.MaxMoves, r.BookPlies, r.ExcludeRun, r.Protocol, bookOrderKey(r.BookOrder), bookStartKey(r.BookStart)})
	return string(b)
}

// WarnTo returns a Recorder's warn that writes each warning to w as one line.
func WarnTo(w io.Writer) func(error) {
	return func(err error) {
		fmt.Fprintf(w, "warning: %v (the games go on; the final report keeps them)\n", err)
	}
}
