package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
)

// WeightsFormat is the format tag every weights file carries (see docs/json.md and MarshalWeightsFile).
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
	// Proof is the verification ladder of the individual, when one was played: one rung
	// per condition (the tuning condition first), each with its games, Elo gain and
	// whether it holds.
	Proof []ProofRung `json:"proof,omitempty"`
	Note  string      `json:"note,omitempty"`
}

// ProofRung is one rung of a verification ladder in a weights file's provenance: the
// condition in words ("the tuning condition", "tc 60+0.6", "cmd:stockfish (Skill
// Level=3)"), the games the champion played, its Elo gain against the baseline with the
// 95% half-width (null: not measured), and "holds", "does not hold", "not proven" or "not
// measured".
type ProofRung struct {
	Condition string   `json:"condition"`
	Games     int      `json:"games"`
	Elo       *float64 `json:"elo"`
	EloCI95   *float64 `json:"elo_ci95"`
	Holds     string   `json:"holds"`
}

// Comment writes p as comment lines ("# …", each ending in a newline) for text formats
// that have no other place for it (an OpenBench parameter list, setoption lines).
func (p *Provenance) Comment() string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("# " + p.Program)
	if p.Run > 0 {
		fmt.Fprintf(&b, ", run %d", p.Run)
		if p.RunName != "" {
			fmt.Fprintf(&b, " (%s)", p.RunName)
		}
	}
	if p.Individual != "" {
		b.WriteString(", individual " + p.Individual)
	}
	if p.Created != "" {
		b.WriteString(", exported " + p.Created)
	}
	b.WriteString("\n")
	for i, r := range p.Proof {
		elo := "not measured"
		if r.Elo != nil && r.EloCI95 != nil {
			elo = fmt.Sprintf("%+.1f ± %.1f Elo", *r.Elo, *r.EloCI95)
		}
		fmt.Fprintf(&b, "# proof rung %d, %s: %s over %d games, %s\n", i, r.Condition, elo, r.Games, r.Holds)
	}
	return b.String()
}

// DecodeStrict decodes data into v, rejecting unknown keys, duplicate keys (see
// CheckDuplicateKeys) and trailing data. Errors name the offending key or position.
func DecodeStrict(data []byte, v any) error {
	if err := CheckDuplicateKeys(data); err != nil {
		return err
	}
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

// CheckDuplicateKeys refuses a JSON document in which an object has one key twice
// (encoding/json would keep the last silently; RFC 8259 §4 leaves the meaning open). The
// error names the key and its path, e.g. `duplicate key "live_four" in weights`. Syntax
// errors are left to the decoder that follows.
func CheckDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		keys   map[string]bool // nil for an array
		path   string
		expect bool // an object expects a key next
	}
	var stack []*frame
	where := func() string {
		if len(stack) == 0 || stack[len(stack)-1].path == "" {
			return "at the top level"
		}
		return "in " + stack[len(stack)-1].path
	}
	var lastKey string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil // a syntax error: the decoder reports it with its position
		}
		if len(stack) > MaxJSONDepth {
			return fmt.Errorf("JSON nested deeper than %d levels", MaxJSONDepth)
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if key, isKey := tok.(string); isKey && top != nil && top.keys != nil && top.expect {
			if top.keys[key] {
				return fmt.Errorf("duplicate key %q %s", key, where())
			}
			top.keys[key] = true
			top.expect = false
			lastKey = key
			continue
		}
		child := ""
		if top != nil {
			switch {
			case top.keys != nil && top.path == "":
				child = lastKey
			case top.keys != nil:
				child = top.path + "." + lastKey
			default:
				child = top.path + "[]"
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, path: child, expect: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{path: child})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].expect = true // a value ended: a key (or '}') comes next
		}
	}
}

// jsonKind names a Go type as JSON calls it: number, string, true or false, array, object.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return "object"
}

// MaxJSONDepth bounds the nesting of JSON input files (weights, game records).
const MaxJSONDepth = 32

func cleanJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := "field " + te.Field
		if te.Field == "" {
			field = fmt.Sprintf("at byte %d", te.Offset)
		}
		if strings.HasPrefix(te.Value, "number ") && (te.Type.Kind() == reflect.Float64 || te.Type.Kind() == reflect.Float32) {
			return fmt.Errorf("%s: %s is out of range (not a finite number)", field, strings.TrimPrefix(te.Value, "number "))
		}
		return fmt.Errorf("%s: a JSON %s where a %s belongs", field, te.Value, jsonKind(te.Type))
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
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return nil, nil, errors.New("the file is empty (want a JSON weights file: 'evotune weights default --game " + g.Name() + "' writes one)")
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}), bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return nil, nil, errors.New("the file is UTF-16 text: save it as UTF-8")
	}
	data = bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF}) // a UTF-8 byte-order mark, as some editors write
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
		// "weights.value[2]: …" when the error starts with a field's path, else "weights: …".
		msg := err.Error()
		if c, sp := strings.IndexByte(msg, ':'), strings.IndexByte(msg, ' '); c > 0 && (sp < 0 || c < sp) {
			return nil, nil, fmt.Errorf("weights.%w", err)
		}
		return nil, nil, fmt.Errorf("weights: %w", err)
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

// MaxDepth is the deepest search any command, configuration or weights file may ask for,
// in plies (Connect6: moves of two stones). Every game's search at that depth takes hours
// per move; one limit for all, so that what tune accepts, play, match and the weights
// files accept too.
const MaxDepth = 20

// Validate checks that limits are non-negative and the depth at most MaxDepth; the error
// names the field.
func (l Limits) Validate() error {
	switch {
	case l.Depth < 0 || l.Depth > MaxDepth:
		return fmt.Errorf("depth: %d is outside [0, %d] (0 = the game's default)", l.Depth, MaxDepth)
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

// SetPlayerLimits is a player's LimitSetter: it stores PlayerLimits(lim, def) in *dst, or
// leaves *dst unchanged and returns the error naming the bad field.
func SetPlayerLimits(dst *Limits, lim, def Limits) error {
	lim, err := PlayerLimits(lim, def)
	if err == nil {
		*dst = lim
	}
	return err
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
