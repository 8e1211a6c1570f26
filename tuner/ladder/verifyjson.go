package ladder

import (
	"encoding/json"
	"evotune/tuner/stats"
	"fmt"
)

// infElo is the value stats holds an infinite Elo as (±1e9); a value this large or more
// (a half-width from an infinite end, 5·10⁸) means "infinite".
const infElo = 1e9

// jsonNumber is x as JSON: null where it is not a measurement (measured false: no game
// was played) or infinite (stats.Finite), else x.
func jsonNumber(x float64, measured bool) *float64 {
	if !measured {
		return nil
	}
	return stats.Finite(x)
}

// verificationNumbers are a Verification's numbers that JSON writes as null where they
// are infinite or not measured; they shadow the struct's own fields of the same names.
type verificationNumbers struct {
	Score   *float64 `json:"score"`
	Elo     *float64 `json:"elo"`
	EloCI95 *float64 `json:"elo_ci95"`
	EloLow  *float64 `json:"elo_low"`
	EloHigh *float64 `json:"elo_high"`
	LOS     *float64 `json:"los"`
	// ChampionElo and BaselineElo: an opponent rung's (a nil interface omits them; a nil
	// *float64 in it writes null).
	ChampionElo any `json:"champion_elo,omitempty"`
	BaselineElo any `json:"baseline_elo,omitempty"`
}

// MarshalJSON writes v as it is stored and printed (verify --json, the run's pages), its
// keys in alphabetical order: an Elo, bound or half-width that is infinite is null, never
// ±1e9 or 5·10⁸, and a rung not measured (no game) has null for its score, Elo, bounds and
// LOS, as docs/json.md says of every command.
func (v Verification) MarshalJSON() ([]byte, error) {
	type plain Verification // no methods: no recursion
	b, err := json.Marshal(plain(v))
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	m := v.Games > 0 || v.Baseline
	n := verificationNumbers{Score: jsonNumber(v.Score, m), Elo: jsonNumber(v.Elo, m), EloCI95: jsonNumber(v.EloCI95, m),
		EloLow: jsonNumber(v.EloLow, m), EloHigh: jsonNumber(v.EloHigh, m), LOS: jsonNumber(v.LOS, m)}
	if v.ChampionMatch != nil || v.ChampionElo != 0 || v.BaselineElo != 0 {
		n.ChampionElo, n.BaselineElo = jsonNumber(v.ChampionElo, m), jsonNumber(v.BaselineElo, m)
	}
	nb, err := json.Marshal(n)
	if err != nil {
		return nil, err
	}
	var over map[string]json.RawMessage
	if err := json.Unmarshal(nb, &over); err != nil {
		return nil, err
	}
	delete(fields, "champion_elo")
	delete(fields, "baseline_elo")
	for k, x := range over {
		fields[k] = x
	}
	return json.Marshal(fields)
}

// UnmarshalJSON reads a verification as MarshalJSON writes it, as stored before (±1e9
// for an infinite value), and as stored before verification ladders, whose match at
// Config.VerifyDepth was its "deep" object: that match becomes the ladder's depth rung. A
// null number of a measured verification is infinite again: an Elo signed by its score (a
// champion's or baseline's Elo by its match's), a lower bound −∞, an upper bound and a
// half-width +∞, so that Bounded and the printed Elo read as they did.
func (v *Verification) UnmarshalJSON(b []byte) error {
	type plain Verification // no methods: no recursion
	var raw struct {
		verificationNumbers
		Deep *Verification `json:"deep"`
	}
	*v = Verification{}
	if err := json.Unmarshal(b, (*plain)(v)); err != nil { // a null number leaves the field 0
		return err
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	n := raw.verificationNumbers
	m := v.Games > 0
	or := func(p *float64, inf float64) float64 {
		switch {
		case p != nil:
			return *p
		case m:
			return inf
		}
		return 0
	}
	signed := func(score float64) float64 {
		if score < 0.5 {
			return -infElo
		}
		return infElo
	}
	v.Score = or(n.Score, 0)
	v.Elo = or(n.Elo, signed(v.Score))
	v.EloCI95, v.EloLow, v.EloHigh, v.LOS = or(n.EloCI95, infElo), or(n.EloLow, -infElo), or(n.EloHigh, infElo), or(n.LOS, 0)
	side := func(x any, match *Verification) float64 {
		p, ok := x.(float64)
		switch {
		case ok:
			return p
		case x == nil && match != nil && match.Games > 0:
			return signed(match.Score)
		}
		return 0
	}
	if v.ChampionMatch != nil {
		v.ChampionElo, v.BaselineElo = side(n.ChampionElo, v.ChampionMatch), side(n.BaselineElo, v.BaselineMatch)
	} else {
		v.ChampionElo, v.BaselineElo = side(n.ChampionElo, nil), side(n.BaselineElo, nil)
	}
	if d := raw.Deep; d != nil && v.RungOf(RungDepth) == nil {
		r := *d
		r.Rung, r.Kind, r.Condition = len(v.Ladder)+1, RungDepth, fmt.Sprintf("depth %d", r.Limits.Depth)
		r.Holds = r.holds()
		v.Ladder = append(v.Ladder, r)
	}
	if v.Kind == "" {
		v.Kind, v.Condition = RungTuning, Rung{Kind: RungTuning}.Condition()
		v.Holds = v.holds()
	}
	return nil
}
