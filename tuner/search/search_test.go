package search

import (
	"math"
	"strings"
	"testing"

	"evotune/genomes"
)

// TestStateEncoding: a method's state goes through EncodeState and comes back through
// DecodeState unchanged; a field the state does not have is refused naming the stored
// text, and a value JSON cannot hold (NaN) is refused when stored.
func TestStateEncoding(t *testing.T) {
	type state struct {
		Values []float64 `json:"values"`
		K      int       `json:"k"`
	}
	raw, err := EncodeState(state{Values: []float64{0.25, 0.5}, K: 3})
	if err != nil {
		t.Fatal(err)
	}
	var back state
	if err := DecodeState(raw, &back); err != nil || back.K != 3 || len(back.Values) != 2 || back.Values[1] != 0.5 {
		t.Fatalf("round trip of %s: %+v, %v", raw, back, err)
	}
	if err := DecodeState([]byte(`{"values":[],"k":1,"lag":2}`), &back); err == nil || !strings.Contains(err.Error(), `"lag"`) {
		t.Errorf("an unknown field: %v, want it refused by name", err)
	}
	if _, err := EncodeState(state{Values: []float64{math.NaN()}}); err == nil {
		t.Error("a NaN state encoded")
	}
}

// TestStreams: a generation's random stream depends on the seed, the generation and the
// stream number alone: drawn twice it repeats, and another generation or stream differs.
func TestStreams(t *testing.T) {
	draw := func(seed int64, gen int, stream uint64) [4]uint64 {
		r := Stream(seed, gen, stream)
		return [4]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()}
	}
	a := draw(7, 3, StreamOpenings)
	if draw(7, 3, StreamOpenings) != a {
		t.Fatal("the same stream drew two sequences")
	}
	for _, o := range [][4]uint64{draw(8, 3, StreamOpenings), draw(7, 4, StreamOpenings), draw(7, 3, StreamGA)} {
		if o == a {
			t.Errorf("another seed, generation or stream drew the same sequence %v", a)
		}
	}
	if StreamV1(7, 3, StreamGA).Int63() != StreamV1(7, 3, StreamGA).Int63() {
		t.Error("StreamV1 is not reproducible")
	}
}

// TestSearchCoordinates: a log gene's coordinate is ln x and a linear gene's x over a
// fifth of its range; GenesOfTheta maps them back inside the bounds, rounding integers.
func TestSearchCoordinates(t *testing.T) {
	l := &genomes.Layout{Genes: []genomes.Gene{
		{Name: "w", Min: 1, Max: 1000, Default: 100, Scale: genomes.Log},
		{Name: "n", Min: 0, Max: 10, Default: 4, Scale: genomes.Linear, Integer: true},
	}}
	u := Theta(l, []float64{100, 4})
	if math.Abs(u[0]-math.Log(100)) > 1e-12 || math.Abs(u[1]-2) > 1e-12 {
		t.Fatalf("coordinates %v, want [ln 100, 2]", u)
	}
	x := GenesOfTheta(l, []float64{math.Log(5000), 3.2})
	if x[0] != 1000 || x[1] != 6 {
		t.Errorf("genes %v, want [1000 (clamped), 6 (6.4 rounded)]", x)
	}
}
