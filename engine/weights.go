package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// WeightsFormat is the format tag every weights file carries (DESIGN.md "Weights file").
const WeightsFormat = "evotune.weights/v1"

// WeightsFile is the JSON envelope shared by all games:
//
//	{"format": "evotune.weights/v1", "game": "connect6",
//	 "weights": {...game-specific...},
//	 "search": {"depth": 3, "width": 10},
//	 "provenance": {"run": 7, "individual": "...", "generation": 42, ...}}
//
// "format", "game" and "weights" are required; "search" and "provenance" are optional.
type WeightsFile struct {
	Format     string          `json:"format"`
	Game       string          `json:"game"`
	Weights    json.RawMessage `json:"weights"`
	Search     *Limits         `json:"search,omitempty"`
	Provenance *Provenance     `json:"provenance,omitempty"`
}

// Provenance records where exported weights came from, so that a file found later can be
// traced back to its run, individual and verification result.
type Provenance struct {
	Program    string   `json:"program,omitempty"`
	Created    string   `json:"created,omitempty"`
	Run        int64    `json:"run,omitempty"`
	RunName    string   `json:"run_name,omitempty"`
	Individual string   `json:"individual,omitempty"`
	Generation int      `json:"generation,omitempty"`
	Fitness    *float64 `json:"fitness,omitempty"`
	Games      int      `json:"games,omitempty"`
	// EloVsBaseline and EloCI95 are the verification match result, when one was played.
	EloVsBaseline *float64 `json:"elo_vs_baseline,omitempty"`
	EloCI95       *float64 `json:"elo_ci95,omitempty"`
	Note          string   `json:"note,omitempty"`
}

// DecodeStrict decodes data into v, rejecting unknown keys and trailing data. Errors name
// the offending key or position.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return cleanJSONError(err)
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

func cleanJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("field %s: cannot use JSON %s as %s", te.Field, te.Value, te.Type)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, err)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return errors.New(msg)
}

// ParseWeightsFile decodes a weights file for game g: the envelope strictly, then the
// "weights" object with g.DecodeWeights. It returns the validated weights and the
// envelope. Errors name the field: "game: file is for gomoku, not connect6",
// "weights.value[2]: ...".
func ParseWeightsFile(data []byte, g Game) (Weights, *WeightsFile, error) {
	var f WeightsFile
	if err := DecodeStrict(data, &f); err != nil {
		return nil, nil, err
	}
	if f.Format != WeightsFormat {
		return nil, nil, fmt.Errorf("format: %q is not %q", f.Format, WeightsFormat)
	}
	if f.Game != g.Name() {
		return nil, nil, fmt.Errorf("game: file is for %q, not %q", f.Game, g.Name())
	}
	if len(f.Weights) == 0 {
		return nil, nil, errors.New("weights: missing")
	}
	if err := rejectNulls(f.Weights, ""); err != nil {
		return nil, nil, fmt.Errorf("weights%w", err)
	}
	w, err := g.DecodeWeights(f.Weights)
	if err != nil {
		return nil, nil, fmt.Errorf("weights.%w", err)
	}
	if f.Search != nil {
		if err := f.Search.Validate(); err != nil {
			return nil, nil, fmt.Errorf("search.%w", err)
		}
	}
	return w, &f, nil
}

// rejectNulls reports the first JSON null in raw, by its path (".value[2]", ".k1"):
// encoding/json leaves a Go value unchanged on null, so a null weight would silently keep
// the default instead of failing.
func rejectNulls(raw json.RawMessage, at string) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf(": %w", cleanJSONError(err))
	}
	var walk func(v any, at string) error
	walk = func(v any, at string) error {
		switch x := v.(type) {
		case nil:
			return fmt.Errorf("%s: null is not a number", at)
		case map[string]any:
			for k, e := range x {
				if err := walk(e, at+"."+k); err != nil {
					return err
				}
			}
		case []any:
			for i, e := range x {
				if err := walk(e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(v, at); err != nil {
		if v == nil {
			return errors.New(": null, want an object")
		}
		return err
	}
	return nil
}

// LoadWeightsFile reads and parses a weights file (see ParseWeightsFile); errors start
// with the path.
func LoadWeightsFile(path string, g Game) (Weights, *WeightsFile, error) {
	data, err := ReadInputFile(path, "weights file", MaxWeightsFileSize)
	if err != nil {
		return nil, nil, err
	}
	w, f, err := ParseWeightsFile(data, g)
	if err != nil {
		return nil, nil, fmt.Errorf("weights file %s: %w", path, err)
	}
	return w, f, nil
}

// MarshalWeightsFile builds the JSON of a weights file (indented, newline-terminated).
// The weights are validated first.
func MarshalWeightsFile(w Weights, search *Limits, prov *Provenance) ([]byte, error) {
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("weights.%w", err)
	}
	raw, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	f := WeightsFile{Format: WeightsFormat, Game: w.Game(), Weights: raw, Search: search, Provenance: prov}
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// Validate checks that limits are non-negative; the error names the field.
func (l Limits) Validate() error {
	switch {
	case l.Depth < 0 || l.Depth > 64:
		return fmt.Errorf("depth: %d is outside [0, 64]", l.Depth)
	case l.Width < 0:
		return fmt.Errorf("width: %d is negative", l.Width)
	case l.Nodes < 0:
		return fmt.Errorf("nodes: %d is negative", l.Nodes)
	case l.Time < 0:
		return fmt.Errorf("time: %v is negative", l.Time)
	case l.SoftTime < 0:
		return fmt.Errorf("soft time: %v is negative", l.SoftTime)
	}
	return nil
}

// CheckVector validates one weight vector: exact length n, every entry finite and within
// [lo, hi]. Errors read "name: want 6 entries, got 5" or "name[3]: 2e+12 is above the
// maximum 1e+09".
func CheckVector(name string, v []float64, n int, lo, hi float64) error {
	if len(v) != n {
		return fmt.Errorf("%s: want %d entries, got %d", name, n, len(v))
	}
	for i, x := range v {
		if err := CheckValue(fmt.Sprintf("%s[%d]", name, i), x, lo, hi); err != nil {
			return err
		}
	}
	return nil
}

// CheckValue validates one weight: finite and within [lo, hi]; the error names it.
func CheckValue(name string, x, lo, hi float64) error {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Errorf("%s: %v is not a finite number", name, x)
	case x < lo:
		return fmt.Errorf("%s: %g is below the minimum %g", name, x, lo)
	case x > hi:
		return fmt.Errorf("%s: %g is above the maximum %g", name, x, hi)
	}
	return nil
}

// WeightsAs returns w as the game's own weights type W, validated: the common first step of
// every game's NewPlayer and Reset. The error names weights of another game (e.g.
// "gomoku: weights are for amazons") or the invalid field.
func WeightsAs[W Weights](game string, w Weights) (W, error) {
	gw, ok := w.(W)
	if !ok {
		var zero W
		return zero, fmt.Errorf("%s: weights are for %s", game, w.Game())
	}
	if err := gw.Validate(); err != nil {
		var zero W
		return zero, err
	}
	return gw, nil
}

// PlayerLimits validates lim and fills a zero depth with def's depth (the game's default).
// The error names the bad field.
func PlayerLimits(lim, def Limits) (Limits, error) {
	if err := lim.Validate(); err != nil {
		return lim, err
	}
	if lim.Depth == 0 {
		lim.Depth = def.Depth
	}
	return lim, nil
}
