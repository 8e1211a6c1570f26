package match

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol/wire"
)

// WritePGN writes every game of res (the counted and the unplayed) as PGN to path,
// atomically, with w (the game's PGN writer): White and Black are a's and b's names (the
// contestants A and B) by the colours they had, Round the pair and game ("3.2"),
// TimeControl tc's (nil: none), a forfeit or the termination as the game's comment.
func (res Result) WritePGN(path string, w engine.PGNWriter, a, b string, tc *engine.TimeControl) error {
	text, err := res.PGNText(w, "evotune match", a, b, tc)
	if err != nil {
		return err
	}
	return engine.WriteFileAtomic(path, []byte(text))
}

// PGNText is every game of res (the counted and the unplayed) as PGN, in pair and game
// order, with Event event; the rest as WritePGN.
func (res Result) PGNText(w engine.PGNWriter, event, a, b string, tc *engine.TimeControl) (string, error) {
	var buf strings.Builder
	date := time.Now().UTC().Format("2006.01.02")
	games := append(append([]Game(nil), res.Games...), res.Unplayed...)
	sort.SliceStable(games, func(i, j int) bool { return games[i].Pair < games[j].Pair })
	round := map[int]int{}
	for _, mg := range games {
		round[mg.Pair]++
		if mg.Game == 0 {
			mg.Game = round[mg.Pair]
		}
		data, err := mg.PGN(w, event, a, b, tc, date)
		if err != nil {
			return "", err
		}
		buf.Write(data)
	}
	return buf.String(), nil
}

// PGN writes the game as PGN with w: its Event is event ("evotune match"), its Round
// "PAIR.GAME" (both from 1), a and b name A and B, tc is the clock (nil: none) and date the
// PGN date ("2026.11.26").
func (mg Game) PGN(w engine.PGNWriter, event, a, b string, tc *engine.TimeControl, date string) ([]byte, error) {
	first, second := a, b
	if mg.AColour != engine.Black.String() {
		first, second = b, a
	}
	tcText := ""
	if tc != nil {
		tcText = tc.String()
	}
	rec := mg.Record
	comment := rec.Forfeit
	if comment == "" && rec.Termination != "" {
		comment = rec.Termination
	}
	return w.PGN(engine.PGNGame{Event: event, Site: "evotune", Date: date,
		Round: fmt.Sprintf("%d.%d", mg.Pair+1, mg.Game), White: first, Black: second,
		Result: rec.Outcome.String(), Moves: rec.Moves, StatsFrom: len(rec.Moves) - len(rec.Stats), Stats: rec.Stats,
		Termination: rec.Termination, TimeControl: tcText, Comment: comment})
}

// WithOptions names a contestant with its options: "cmd:stockfish (Skill Level=5)".
func WithOptions(name string, opts []wire.Option) string {
	if len(opts) == 0 {
		return name
	}
	var kv []string
	for _, o := range opts {
		kv = append(kv, o.Name+"="+o.Value)
	}
	return name + " (" + strings.Join(kv, ", ") + ")"
}
