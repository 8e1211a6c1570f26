package match

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"evotune/engine"
	"evotune/engine/chess"
	"evotune/engine/gomoku"
	"evotune/engine/protocol"
)

// memStore is a Store in memory that counts its writes.
type memStore struct {
	mu      sync.Mutex
	keys    []string
	status  []Status
	summary [][]byte
	games   map[int64][]Game
	writes  int
}

func (m *memStore) Latest(_ context.Context, key string, unfinished bool) (int64, Status, bool, error) {
	for i := len(m.keys) - 1; i >= 0; i-- {
		if m.keys[i] == key && (!unfinished || m.status[i] != Finished) {
			return int64(i + 1), m.status[i], true, nil
		}
	}
	return 0, "", false, nil
}

func (m *memStore) Create(_ context.Context, key, _, _, _ string, _ int) (int64, error) {
	m.writes++
	m.keys, m.status, m.summary = append(m.keys, key), append(m.status, Running), append(m.summary, nil)
	return int64(len(m.keys)), nil
}

func (m *memStore) SetStatus(_ context.Context, id int64, s Status, summary []byte) error {
	m.writes++
	m.status[id-1] = s
	if summary != nil {
		m.summary[id-1] = summary
	}
	return nil
}

func (m *memStore) SaveGame(_ context.Context, id int64, g Game) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes++
	if m.games == nil {
		m.games = map[int64][]Game{}
	}
	m.games[id] = append(m.games[id], g)
	return nil
}

func (m *memStore) Games(_ context.Context, id int64) ([]Game, error) { return m.games[id], nil }

func gomokuMatch(games int) Config {
	w := gomoku.DefaultWeights()
	ops := [][]string{{"h8", "h9", "h10"}, {"h8", "i9", "j10"}, {"h8", "i9", "g7"}, {"h8", "j9", "h10"}}
	return Config{Setup: gomokuSetup(), A: weakGomoku(), B: w, Games: games, Openings: ops, Workers: 2}
}

// TestSessionResumesWhereItStopped: a session stores every game and its end; a match
// stopped with a pair half played resumes with its finished pairs kept (the half pair
// played again) and ends as the uninterrupted match; a resume of a key the store does not
// hold writes nothing.
func TestSessionResumesWhereItStopped(t *testing.T) {
	ctx := context.Background()
	st := &memStore{}
	if _, err := Open(ctx, st, Spec{Key: "k", Resume: true, Unfinished: true}); !errors.Is(err, ErrNotStored) || st.writes != 0 {
		t.Fatalf("resume of nothing: %v, %d writes; want ErrNotStored and none", err, st.writes)
	}
	full, err := Open(ctx, st, Spec{Key: "k", Game: "gomoku", A: "default", B: "default", Games: 8})
	if err != nil {
		t.Fatal(err)
	}
	want, err := full.Play(ctx, gomokuMatch(8), nil, nil, func(err error) { t.Error(err) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.games[1]) != 8 || st.status[0] != Finished || !strings.Contains(string(st.summary[0]), `"games":8`) {
		t.Fatalf("stored: %d games, status %s, summary %s", len(st.games[1]), st.status[0], st.summary[0])
	}

	// A second match of the key, stopped after pairs 0 and 1 and game 1 of pair 2.
	id, _ := st.Create(ctx, "k", "gomoku", "default", "default", 8)
	for _, g := range st.games[1] {
		if g.Pair < 2 || (g.Pair == 2 && g.Game == 1) {
			st.games[id] = append(st.games[id], g)
		}
	}
	st.status[id-1] = Stopped
	writes := st.writes
	resumed, err := Open(ctx, st, Spec{Key: "k", Resume: true, Unfinished: true})
	if err != nil || resumed.ID() != id || st.writes != writes {
		t.Fatalf("resume: match %d, %v, %d writes; want match %d and none", resumed.ID(), err, st.writes-writes, id)
	}
	if len(resumed.Done()) != 2 || resumed.Finished() {
		t.Fatalf("resumed with %d finished pairs (finished %v), want 2", len(resumed.Done()), resumed.Finished())
	}
	got, err := resumed.Play(ctx, gomokuMatch(8), nil, nil, func(err error) { t.Error(err) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Result != want.Result || st.status[id-1] != Finished {
		t.Fatalf("resumed match: %+v, status %s; uninterrupted %+v", got.Result, st.status[id-1], want.Result)
	}
	// The unfinished resume skips the finished match; a resume of any status finds it.
	if _, _, found, _ := st.Latest(ctx, "k", true); found {
		t.Fatal("an unfinished match found after both finished")
	}
	if s, err := Open(ctx, st, Spec{Key: "k", Resume: true}); err != nil || !s.Finished() || len(s.Done()) != 4 {
		t.Fatalf("resume of a finished match: %v, finished %v, %d pairs", err, s != nil && s.Finished(), len(s.Done()))
	}
}

// TestOpenPGN: a PGN that holds games (or any text) is refused unless the match resumes
// (appended to) or is forced (replaced); a missing or empty file is written; Replace
// writes the file anew.
func TestOpenPGN(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.pgn")
	games := "[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n\n"
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func() string { b, _ := os.ReadFile(path); return string(b) }
	write(games)
	var exists *PGNExistsError
	if _, err := OpenPGN(path, false, false); !errors.As(err, &exists) || exists.Games != 2 || !strings.Contains(err.Error(), "already holds 2 games") {
		t.Fatalf("a PGN of 2 games: %v, want it refused", err)
	}
	if read() != games {
		t.Fatal("a refused PGN changed")
	}
	write("notes\n")
	if _, err := OpenPGN(path, false, false); !errors.As(err, &exists) || !strings.Contains(err.Error(), "exists and is not empty") {
		t.Fatalf("a PGN of other text: %v, want it refused", err)
	}
	write(games)
	p, err := OpenPGN(path, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Append([]byte("[Event \"c\"]\n\n1. c4 *\n\n")); err != nil {
		t.Fatal(err)
	}
	p.Close()
	if strings.Count(read(), "[Event ") != 3 {
		t.Fatalf("resumed: %q, want the third game appended", read())
	}
	if p, err = OpenPGN(path, false, true); err != nil {
		t.Fatal(err)
	}
	p.Close()
	if read() != "" {
		t.Fatalf("forced: %q, want the file replaced", read())
	}
	if p, err = OpenPGN(path, false, false); err != nil {
		t.Fatalf("an empty PGN: %v", err)
	}
	if err := p.Replace("[Event \"d\"]\n"); err != nil || read() != "[Event \"d\"]\n" {
		t.Fatalf("Replace: %v, %q", err, read())
	}
}

// TestKeyUnchanged: the key of a match is the one earlier builds stored (a chess match,
// default against default at depth 2, 300 games), so that a match they stopped resumes.
func TestKeyUnchanged(t *testing.T) {
	r := Request{Game: chess.Game{}, A: "default", B: "default", Games: 300, Workers: 1, Seed: 1, MaxPlies: 400, BookPlies: 8,
		Limits: engine.Limits{Depth: 2}, MoveTime: 5e9, Startup: protocol.StartupAllowance, Overhead: protocol.DefaultMoveOverhead, BookOrder: "random", BookStart: 1}
	plan, err := Prepare(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	const stored = `{"Game":"chess","Rule":"","A":"default","B":"default","AOptions":null,"BOptions":null,"Games":300,"Board":0,"MaxPlies":400,"Seed":1,"SPRT":"","Openings":"","SwapRule":"","OpeningsDigest":"8706af5204058106","Limits":{"depth":2,"width":0},"Nodes":0,"MoveTime":5000000000,"GameTime":0,"TC":"","Resign":"","Draw":"","Book":"","MaxMoves":0,"BookPlies":8,"ExcludeRun":0,"Protocol":""}`
	if got := r.Key(&plan.Config); got != stored {
		t.Fatalf("key\n%s\nwant the stored\n%s", got, stored)
	}
}
