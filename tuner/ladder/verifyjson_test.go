package ladder

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"evotune/tuner/stats"
)

// TestVerificationJSON: an infinite Elo, bound or half-width is written as null (never
// ±1e9 or 5·10⁸), in an opponent rung's matches too; a rung not measured has null numbers;
// each reads back as it was (infinite again, signed by its score), and a finite
// verification round-trips unchanged.
func TestVerificationJSON(t *testing.T) {
	allWins := Verification{Champion: "c", Games: 8, Pairs: 4, Result: stats.Result{Wins: 8, Penta: [5]int{0, 0, 0, 0, 4}},
		Score: 1, Elo: 1e9, EloCI95: 1e9, EloLow: -1e9, EloHigh: 1e9, LOS: 0.99, Rung: 0, Kind: RungTuning, Holds: HoldsUnproven}
	finite := Verification{Champion: "c", Games: 100, Pairs: 50, Result: stats.Result{Wins: 50, Draws: 10, Losses: 40, Penta: [5]int{1, 9, 20, 10, 10}},
		Score: 0.55, Elo: 34.9, EloCI95: 60.1, EloLow: -25.2, EloHigh: 95, LOS: 0.87, Kind: RungTuning, Holds: HoldsUnproven}
	lost := allWins
	lost.Score, lost.Elo, lost.Result = 0, -1e9, stats.Result{Losses: 8, Penta: [5]int{4, 0, 0, 0, 0}}
	opp := Verification{Champion: "c", Opponent: "cmd:x", Games: 8, Pairs: 4, Score: 1, Elo: 12, EloCI95: 1e9, EloLow: -1e9, EloHigh: 1e9,
		Rung: 2, Kind: RungOpponent, ChampionElo: 1e9, BaselineElo: 300, ChampionMatch: &allWins, BaselineMatch: &finite}
	unmeasured := Verification{Rung: 1, Kind: RungDepth, Condition: "depth 8", Holds: HoldsUnmeasured}
	head := finite
	head.Ladder = []Verification{unmeasured, opp}

	b, err := json.Marshal(head)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	half := allWins
	half.EloCI95 = 499999941.29 // a half-width with one infinite end
	hb, _ := json.Marshal(half)
	for _, bad := range []string{"e+09", "1000000000", "499999941", "e+08"} {
		if strings.Contains(text, bad) || strings.Contains(string(hb), bad) {
			t.Errorf("JSON holds %s: %s %s", bad, text, hb)
		}
	}
	var generic struct {
		Elo    *float64 `json:"elo"`
		Ladder []struct {
			Score, Elo, EloCI95 *float64
			ChampionElo         *float64 `json:"champion_elo"`
			BaselineElo         *float64 `json:"baseline_elo"`
			ChampionMatch       *struct {
				Elo     *float64 `json:"elo"`
				EloCI95 *float64 `json:"elo_ci95"`
				EloLow  *float64 `json:"elo_low"`
			} `json:"champion_match"`
		} `json:"ladder"`
	}
	if err := json.Unmarshal(b, &generic); err != nil {
		t.Fatal(err)
	}
	if generic.Elo == nil || *generic.Elo != 34.9 || len(generic.Ladder) != 2 {
		t.Fatalf("finite head or ladder lost: %s", text)
	}
	if u := generic.Ladder[0]; u.Score != nil || u.Elo != nil || u.EloCI95 != nil {
		t.Errorf("a rung not measured has numbers: %s", text)
	}
	o := generic.Ladder[1]
	if o.ChampionMatch == nil || o.ChampionMatch.Elo != nil || o.ChampionMatch.EloCI95 != nil || o.ChampionMatch.EloLow != nil || o.ChampionElo != nil ||
		o.BaselineElo == nil || *o.BaselineElo != 300 || o.Elo == nil || *o.Elo != 12 {
		t.Errorf("opponent rung: %s", text)
	}
	if !strings.Contains(text, `"champion_elo":null`) {
		t.Errorf("an opponent rung's infinite champion_elo dropped instead of null: %s", text)
	}

	var back Verification
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, head) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, head)
	}
	for _, v := range []Verification{allWins, lost} {
		b, _ := json.Marshal(v)
		var r Verification
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if r.Bounded() || r.Elo != v.Elo || stats.FormatElo(r.Elo, r.EloLow, r.EloHigh) != stats.FormatElo(v.Elo, v.EloLow, v.EloHigh) {
			t.Errorf("score %g: read back Elo %g (%s), want %g (%s)", v.Score, r.Elo, stats.FormatElo(r.Elo, r.EloLow, r.EloHigh), v.Elo, stats.FormatElo(v.Elo, v.EloLow, v.EloHigh))
		}
	}
}
