package match

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/tuner/stats"

	"github.com/google/shlex"
)

// Entrant is one engine of a tournament, as fastchess's -engine keys give it: its name,
// the player (an outside engine "cmd:PROG ARGS", a weights file or "default"), its options
// (NAME=VALUE) and its own node and depth limits (0: the tournament's) and clock (TC,
// engine.ParseTimeControl's text; "": the tournament's). Its JSON is part of a stored
// tournament's key.
type Entrant struct {
	Name    string   `json:"name"`
	Player  string   `json:"player"`
	Options []string `json:"options"`
	Nodes   int64    `json:"nodes"`
	Depth   int      `json:"depth"`
	TC      string   `json:"tc"`
}

// Tournament is a round-robin (every pairing of its entrants) or a gauntlet (the first
// entrant against each other one) of Rounds colour-swapped pairs a pairing, every pairing a
// match of Base's settings with the pairing's entrants as A and B.
type Tournament struct {
	Entrants []Entrant
	Gauntlet bool
	Rounds   int
	// Base holds what every pairing shares: the game, board, limits, clocks, openings,
	// book, adjudication and seed (its A, B, AOptions, BOptions and Games are the
	// pairing's).
	Base Request
}

// Pairing is one pairing of a tournament: entrants A and B (indices into Entrants), its
// planned match and, once played, its result.
type Pairing struct {
	A, B   int
	Plan   Plan
	Result Result
}

// Pairings are t's pairings in the order they are played.
func (t Tournament) Pairings() []*Pairing {
	var out []*Pairing
	for i := range t.Entrants {
		for j := i + 1; j < len(t.Entrants); j++ {
			if !t.Gauntlet || i == 0 {
				out = append(out, &Pairing{A: i, B: j})
			}
		}
	}
	return out
}

// Request is pairing p's match: Base with p's entrants as A and B, their options, and
// 2·Rounds games; its errors name A and B, and their options, as the entrants
// ("--engine NAME", "--engine NAME option"), the rest as Base names them.
func (t Tournament) Request(p *Pairing) Request {
	r := t.Base
	a, b := t.Entrants[p.A], t.Entrants[p.B]
	r.A, r.B, r.AOptions, r.BOptions, r.Games = a.Player, b.Player, a.Options, b.Options, 2*t.Rounds
	base := t.Base
	r.Names = func(field string) string {
		switch field {
		case "a", "b":
			return "--engine " + map[string]string{"a": a.Name, "b": b.Name}[field]
		case "a_option", "b_option":
			return "--engine " + map[string]string{"a_option": a.Name, "b_option": b.Name}[field] + " option"
		}
		return base.name(field)
	}
	return r
}

// Key is what pairing p of t asks, as stored with its match: the tournament (game, rule,
// every entrant, gauntlet, rounds, seed, openings and their digest (p's planned ones),
// limits, clocks, book, adjudication) and the pairing. A tournament resumes the stored
// matches of its keys; the key is the same across builds.
func (t Tournament) Key(p *Pairing) string {
	r := t.Base
	b, _ := json.Marshal(struct {
		Tournament             []Entrant
		Pairing                [2]int
		Game, Rule             string
		Gauntlet               bool
		Rounds, Board          int
		MaxPlies               int
		Seed                   int64
		Openings, Digest       string
		Limits                 engine.Limits
		Nodes                  int64
		MoveTime               time.Duration
		TC, Resign, Draw, Book string
		MaxMoves, BookPlies    int
		BookOrder              string `json:",omitempty"`
		BookStart              int    `json:",omitempty"`
	}{t.Entrants, [2]int{p.A, p.B}, r.Game.Name(), engine.RuleOf(r.Game), t.Gauntlet, t.Rounds, r.Board, r.MaxPlies, r.Seed, r.Openings,
		openingsDigest(p.Plan.Config.Openings), r.Limits, r.Nodes, r.MoveTime, r.TimeControl, r.Resign, r.Draw, r.Book, r.MaxMoves, r.BookPlies,
		bookOrderKey(r.BookOrder), bookStartKey(r.BookStart)})
	return string(b)
}

// Standing is one entrant's line of a tournament's ranking: its record against the field
// (every game and colour-swapped pair it played, from its side), its score (nil: no game)
// and its Elo from that record (nil: no game, or a score of 0 or 1).
type Standing struct {
	Rank     int             `json:"rank"`
	Name     string          `json:"name"`
	Result   stats.Result    `json:"result"`
	Score    *float64        `json:"score"`
	Estimate *stats.Estimate `json:"estimate"`
}

// Standings ranks the entrants by score against the field over pairings (ties: in entry
// order).
func Standings(entrants []Entrant, pairings []*Pairing) []Standing {
	rec := make([]stats.Result, len(entrants))
	for _, p := range pairings {
		rec[p.A] = rec[p.A].Plus(p.Result.Result)
		rec[p.B] = rec[p.B].Plus(p.Result.Result.Reversed())
	}
	var out []Standing
	for i, e := range entrants {
		s := Standing{Name: e.Name, Result: rec[i]}
		if rec[i].Games() > 0 {
			score := rec[i].Score()
			s.Score = &score
		}
		if est, err := rec[i].Estimate(); err == nil {
			s.Estimate = &est
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		si, sj := out[i].Score, out[j].Score
		if si == nil || sj == nil {
			return si != nil && sj == nil
		}
		return *si > *sj
	})
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// WriteTable writes the ranking (Elo against the field ± 95%, games, score, draws) and the
// crosstable: the points the row's entrant scored against the column's, of the games they
// played (colour-swapped pairs whose two games ended).
func WriteTable(out io.Writer, entrants []Entrant, pairings []*Pairing) {
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tname\tElo ± 95%\tgames\tscore\tdraws\t")
	for _, s := range Standings(entrants, pairings) {
		elo, score, draws := "—", "—", "—"
		if s.Estimate != nil {
			elo = stats.FormatElo(s.Estimate.Elo, s.Estimate.EloLow, s.Estimate.EloHigh)
		}
		if n := s.Result.Games(); n > 0 {
			score = fmt.Sprintf("%.1f%%", 100**s.Score)
			draws = fmt.Sprintf("%.1f%%", 100*float64(s.Result.Draws)/float64(n))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t\n", s.Rank, s.Name, elo, s.Result.Games(), score, draws)
	}
	tw.Flush()
	fmt.Fprintln(out, "crosstable (the row's points against the column, of the games they played):")
	cell := map[[2]int]string{}
	pts := func(r stats.Result) string {
		return strconv.FormatFloat(float64(r.Wins)+float64(r.Draws)/2, 'f', -1, 64) + "/" + strconv.Itoa(r.Games())
	}
	for _, p := range pairings {
		r := p.Result.Result
		cell[[2]int{p.A, p.B}], cell[[2]int{p.B, p.A}] = pts(r), pts(r.Reversed())
	}
	tw = tabwriter.NewWriter(out, 2, 4, 2, ' ', tabwriter.AlignRight)
	head := "\t"
	for _, e := range entrants {
		head += e.Name + "\t"
	}
	fmt.Fprintln(tw, head)
	for i, e := range entrants {
		line := e.Name + "\t"
		for j := range entrants {
			c, ok := cell[[2]int{i, j}]
			switch {
			case i == j:
				c = "—"
			case !ok:
				c = "·"
			}
			line += c + "\t"
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

// TournamentReport is a tournament's result as `tournament --json` prints it: the
// entrants, each pairing's result from its first entrant's side, the ranking and the
// seconds it took.
type TournamentReport struct {
	Game     string          `json:"game"`
	Gauntlet bool            `json:"gauntlet"`
	Engines  []Entrant       `json:"engines"`
	Pairings []PairingReport `json:"pairings"`
	Ranking  []Standing      `json:"ranking"`
	Seconds  float64         `json:"seconds"`
}

// PairingReport is one pairing of a TournamentReport: A's and B's names, A's result and its
// estimate (null: no game), and the match's warning (null: none).
type PairingReport struct {
	A        string          `json:"a"`
	B        string          `json:"b"`
	Result   stats.Result    `json:"result"`
	Estimate *stats.Estimate `json:"estimate"`
	Warning  *string         `json:"warning"`
}

// Report is t's result after its pairings were played, in took.
func (t Tournament) Report(pairings []*Pairing, took time.Duration) TournamentReport {
	r := TournamentReport{Game: t.Base.Game.Name(), Gauntlet: t.Gauntlet, Engines: append([]Entrant(nil), t.Entrants...),
		Ranking: Standings(t.Entrants, pairings), Seconds: took.Seconds()}
	for i := range r.Engines {
		if r.Engines[i].Options == nil {
			r.Engines[i].Options = []string{}
		}
	}
	for _, p := range pairings {
		pr := PairingReport{A: t.Entrants[p.A].Name, B: t.Entrants[p.B].Name, Result: p.Result.Result, Estimate: p.Result.Estimate}
		if w := p.Result.Warning; w != "" {
			pr.Warning = &w
		}
		r.Pairings = append(r.Pairings, pr)
	}
	return r
}

// EntrantError is an entrant's setting that its player cannot take (a built-in player's
// own limits): Name is the entrant's.
type EntrantError struct {
	Name string
	Err  error
}

func (e *EntrantError) Error() string { return "engine " + e.Name + ": " + e.Err.Error() }

func (e *EntrantError) Unwrap() error { return e.Err }

// Plan checks pairing p and resolves it into p.Plan (Prepare of t.Request(p)), each
// entrant's own limits and clock in place of the tournament's: an engine that ignores go
// nodes plays at its depth= while the others play at the tournament's nodes, and the
// referee keeps each side's clock by its own control. An outside engine's settings that a
// built-in player cannot take are an *EntrantError; Prepare's errors come as they are.
func (t Tournament) Plan(ctx context.Context, p *Pairing) error {
	plan, err := Prepare(ctx, t.Request(p))
	if err != nil {
		return err
	}
	for _, side := range []struct {
		e   Entrant
		ext *protocol.ExternalSpec
	}{{t.Entrants[p.A], plan.Config.AExt}, {t.Entrants[p.B], plan.Config.BExt}} {
		if side.e.Nodes == 0 && side.e.Depth == 0 && side.e.TC == "" {
			continue
		}
		if side.ext == nil {
			return &EntrantError{side.e.Name, errors.New("nodes=, depth= and tc= are an outside engine's limits (cmd=); a built-in player searches at the tournament's depth, nodes and clock")}
		}
		if side.e.Nodes > 0 || side.e.Depth > 0 {
			side.ext.Nodes, side.ext.Depth = side.e.Nodes, side.e.Depth
		}
		if side.e.TC != "" {
			tc, err := engine.ParseTimeControl(side.e.TC)
			if err != nil {
				return &EntrantError{side.e.Name, fmt.Errorf("tc=%s: %w", side.e.TC, err)}
			}
			tc.Margin = t.Base.TimeMargin
			side.ext.TimeControl = &tc
		}
	}
	p.Plan = plan
	return nil
}

// ParseEntrant reads one entrant's spec, fastchess's -engine keys: name=, cmd= (args=) or
// weights=, option.NAME=VALUE (repeatable), nodes=, depth= and tc=; a value with blanks is
// quoted ("option.Skill Level=3"). The name defaults to the command's base name or the
// weights file. The error names the key and value at fault.
func ParseEntrant(spec string) (Entrant, error) {
	var e Entrant
	words, err := shlex.Split(spec)
	if err != nil {
		return e, err
	}
	var cmd, args, weights string
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			return e, fmt.Errorf("%q is not KEY=VALUE (keys: name, cmd, args, weights, option.NAME, nodes, depth, tc)", w)
		}
		switch {
		case k == "name":
			if strings.TrimSpace(v) == "" {
				return e, fmt.Errorf("name= is empty: give the engine a name, or leave name= out for the program's or file's name")
			}
			e.Name = v
		case k == "cmd":
			cmd = v
		case k == "args":
			args = v
		case k == "weights":
			weights = v
		case strings.HasPrefix(k, "option."):
			if strings.TrimPrefix(k, "option.") == "" {
				return e, fmt.Errorf("%q: no option name after option.", w)
			}
			e.Options = append(e.Options, strings.TrimPrefix(k, "option.")+"="+v)
		case k == "nodes":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 {
				return e, fmt.Errorf("nodes=%s: want a positive whole number", v)
			}
			e.Nodes = n
		case k == "depth":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > engine.MaxDepth {
				return e, fmt.Errorf("depth=%s: want 1 to %d", v, engine.MaxDepth)
			}
			e.Depth = n
		case k == "tc":
			if _, err := engine.ParseTimeControl(v); err != nil {
				return e, fmt.Errorf("tc=%s: %w", v, err)
			}
			e.TC = v
		default:
			return e, fmt.Errorf("unknown key %q (keys: name, cmd, args, weights, option.NAME, nodes, depth, tc)", k)
		}
	}
	switch {
	case cmd != "" && weights != "":
		return e, fmt.Errorf("cmd= and weights= both given: an engine is one or the other")
	case cmd != "":
		e.Player = strings.TrimSpace("cmd:" + cmd + " " + args)
	case args != "":
		return e, fmt.Errorf("args= without cmd=")
	case weights != "":
		e.Player = weights
	default:
		return e, fmt.Errorf("no cmd= (an outside engine) or weights= (a weights file or default)")
	}
	if e.Name == "" {
		e.Name = filepath.Base(cmd)
		if cmd == "" {
			e.Name = weights
		}
	}
	if strings.ContainsFunc(e.Name, func(r rune) bool { return r < 0x20 || r == 0x7f }) || len(e.Name) > 200 {
		return e, fmt.Errorf("name=%q: at most 200 characters, without control characters (it heads PGN tags)", e.Name)
	}
	return e, nil
}
