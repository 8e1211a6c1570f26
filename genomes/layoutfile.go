package genomes

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"evotune/engine"
)

// LayoutFormat is the format tag of a layout file (LayoutFile.Format).
const LayoutFormat = "evotune.layout/v1"

// MaxLayoutGenes caps the number of genes of a layout file.
const MaxLayoutGenes = 1000

// maxGeneName caps a gene's name (bytes).
const maxGeneName = 64

// geneName is what a gene may be called: it goes into command lines ({NAME}), ini lines
// and Gomocup INFO lines, so it must need no quoting anywhere.
var geneName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)

// LayoutFile is a layout file: the parameters of any engine evotune can tune, in YAML
// (or JSON, the same keys). It is stored with a run (Config.Layout) so that a resumed run
// never reads the file again.
//
//	format: evotune.layout/v1
//	game: gomoku          # the rules evotune referees with
//	rule: freestyle       # gomoku only: freestyle, standard or renju
//	board: 15             # gomoku 5–22, amazons 8 or 10; 0 or absent: the game's default
//	genes:
//	  - {name: attack, min: 0.1, max: 10, default: 1, scale: log}
//	  - {name: depth_bonus, min: 0, max: 8, default: 2, integer: true, note: "plies"}
//
// Genes: name (letters, digits, _ and ., starting with a letter or _; at most 64 bytes;
// unique), min < max, min ≤ default ≤ max, scale log (needs min > 0) or linear (the
// default), integer (whole values: bounds and default must be whole), fixed (held at the
// default unless freed with --free), note, option (the engine's own name when it is no fit
// gene name, e.g. {name: King_Safety, option: King Safety}: printable, at most 128 bytes,
// unique), c_end and r_end (SPSA's per-gene final perturbation and learning rate, > 0, in
// the gene's units).
type LayoutFile struct {
	Format string     `json:"format" yaml:"format"`
	Game   string     `json:"game" yaml:"game"`
	Rule   string     `json:"rule,omitempty" yaml:"rule,omitempty"`
	Board  int        `json:"board,omitempty" yaml:"board,omitempty"`
	Genes  []GeneSpec `json:"genes" yaml:"genes"`
}

// GeneSpec is one gene of a layout file; see LayoutFile.
type GeneSpec struct {
	Name    string  `json:"name" yaml:"name"`
	Min     float64 `json:"min" yaml:"min"`
	Max     float64 `json:"max" yaml:"max"`
	Default float64 `json:"default" yaml:"default"`
	// Scale is "log" or "linear" ("" = linear).
	Scale   string `json:"scale,omitempty" yaml:"scale,omitempty"`
	Integer bool   `json:"integer,omitempty" yaml:"integer,omitempty"`
	Fixed   bool   `json:"fixed,omitempty" yaml:"fixed,omitempty"`
	Note    string `json:"note,omitempty" yaml:"note,omitempty"`
	// Option is the engine's own name of the parameter, when it is no fit gene name (UCI
	// options have blanks and capitals: "King Safety"); setoption and INFO send it verbatim.
	Option string `json:"option,omitempty" yaml:"option,omitempty"`
	// CEnd and REnd are the gene's SPSA c_end and r_end in its own units (OpenBench's
	// per-parameter columns); absent: the run's.
	CEnd float64 `json:"c_end,omitempty" yaml:"c_end,omitempty"`
	REnd float64 `json:"r_end,omitempty" yaml:"r_end,omitempty"`
}

// LayoutFileOf returns a built-in layout as a layout file (what `evotune weights layout
// --format yaml` writes): the template for an engine's own layout, and the fixture of the
// identity test (the built-in engine tuned through its own protocol).
func LayoutFileOf(l *Layout) LayoutFile {
	f := LayoutFile{Format: LayoutFormat, Game: l.Game}
	for _, g := range l.Genes {
		f.Genes = append(f.Genes, GeneSpec{Name: g.Name, Min: g.Min, Max: g.Max, Default: g.Default,
			Scale: g.Scale.String(), Integer: g.Integer, Fixed: g.Fixed, Note: g.Note})
	}
	return f
}

// YAML returns f as YAML, one gene per line (flow mappings), notes quoted.
func (f LayoutFile) YAML() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "format: %s\ngame: %s\n", LayoutFormat, f.Game)
	if f.Rule != "" {
		fmt.Fprintf(&b, "rule: %s\n", f.Rule)
	}
	if f.Board != 0 {
		fmt.Fprintf(&b, "board: %d\n", f.Board)
	}
	b.WriteString("genes:\n")
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, g := range f.Genes {
		fmt.Fprintf(&b, "  - {name: %s, min: %s, max: %s, default: %s, scale: %s", g.Name, num(g.Min), num(g.Max), num(g.Default), g.Scale)
		if g.Integer {
			b.WriteString(", integer: true")
		}
		if g.Fixed {
			b.WriteString(", fixed: true")
		}
		if g.Option != "" {
			q, _ := yaml.Marshal(g.Option)
			fmt.Fprintf(&b, ", option: %s", strings.TrimSpace(string(q)))
		}
		if g.CEnd != 0 {
			fmt.Fprintf(&b, ", c_end: %s", num(g.CEnd))
		}
		if g.REnd != 0 {
			fmt.Fprintf(&b, ", r_end: %s", num(g.REnd))
		}
		if g.Note != "" {
			q, _ := yaml.Marshal(g.Note)
			fmt.Fprintf(&b, ", note: %s", strings.TrimSpace(string(q)))
		}
		b.WriteString("}\n")
	}
	return b.Bytes()
}

// ParseLayoutFile decodes and validates a layout file (YAML or JSON); name labels errors,
// which name the line and the field: "layout g.yaml: line 7: genes[2] (attack): min 5 ≥
// max 1". Unknown keys, a wrong format tag, an unknown game, duplicate names, bounds out of
// order, a default outside them, log scale with min ≤ 0, integer genes with fractional
// bounds and names unfit for a command line are errors.
func ParseLayoutFile(data []byte, name string) (LayoutFile, error) {
	var f LayoutFile
	fail := func(line int, format string, args ...any) (LayoutFile, error) {
		at := ""
		if line > 0 {
			at = fmt.Sprintf(" line %d:", line)
		}
		return LayoutFile{}, fmt.Errorf("layout %s:%s %s", name, at, fmt.Sprintf(format, args...))
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return fail(0, "%v", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return fail(0, "%v", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	geneLines := map[int]int{} // gene index → line
	keyLine := map[string]int{}
	if len(root.Content) == 1 && root.Content[0].Kind == yaml.MappingNode {
		m := root.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			keyLine[m.Content[i].Value] = m.Content[i].Line
			if m.Content[i].Value == "genes" && m.Content[i+1].Kind == yaml.SequenceNode {
				for j, g := range m.Content[i+1].Content {
					geneLines[j] = g.Line
				}
			}
		}
	}
	if f.Format != LayoutFormat {
		return fail(keyLine["format"], "format %q, want %s", f.Format, LayoutFormat)
	}
	e, err := Lookup(f.Game)
	if err != nil {
		return fail(keyLine["game"], "game: %v", err)
	}
	if _, err := f.EngineGame(e.Game); err != nil {
		return fail(keyLine["rule"], "%v", err)
	}
	if len(f.Genes) == 0 {
		return fail(keyLine["genes"], "genes: none (a layout needs at least one gene)")
	}
	if len(f.Genes) > MaxLayoutGenes {
		return fail(keyLine["genes"], "genes: %d, at most %d", len(f.Genes), MaxLayoutGenes)
	}
	seen, seenOption := map[string]int{}, map[string]int{}
	for i, g := range f.Genes {
		line := geneLines[i]
		at := fmt.Sprintf("genes[%d] (%s)", i, g.Name)
		switch {
		case !geneName.MatchString(g.Name) || len(g.Name) > maxGeneName:
			return fail(line, "genes[%d]: name %q: want letters, digits, _ and . (starting with a letter or _), at most %d bytes", i, g.Name, maxGeneName)
		case seen[g.Name] > 0:
			return fail(line, "%s: duplicate name (also on line %d)", at, seen[g.Name])
		case !finite(g.Min, g.Max, g.Default):
			return fail(line, "%s: min, max and default must be finite numbers", at)
		case !(g.Min < g.Max):
			return fail(line, "%s: min %g must be below max %g", at, g.Min, g.Max)
		case g.Default < g.Min || g.Default > g.Max:
			return fail(line, "%s: default %g outside [%g, %g]", at, g.Default, g.Min, g.Max)
		case g.Scale != "" && g.Scale != "log" && g.Scale != "linear":
			return fail(line, "%s: scale %q, want log or linear", at, g.Scale)
		case g.Scale == "log" && g.Min <= 0:
			return fail(line, "%s: log scale needs min > 0, got %g", at, g.Min)
		case g.Integer && (g.Min != math.Trunc(g.Min) || g.Max != math.Trunc(g.Max) || g.Default != math.Trunc(g.Default)):
			return fail(line, "%s: integer gene with a fractional bound or default", at)
		case g.Option != "" && !fitOption(g.Option):
			return fail(line, "%s: option %q: want printable characters (no control characters, no blank at either end), at most %d bytes", at, g.Option, maxOptionName)
		case g.Option != "" && seenOption[strings.ToLower(g.Option)] > 0:
			return fail(line, "%s: option %q also on line %d", at, g.Option, seenOption[strings.ToLower(g.Option)])
		case !finite(g.CEnd, g.REnd) || g.CEnd < 0 || g.REnd < 0:
			return fail(line, "%s: c_end and r_end must be positive numbers (or absent)", at)
		}
		seen[g.Name] = max(line, 1)
		if g.Option != "" {
			seenOption[strings.ToLower(g.Option)] = max(line, 1)
		}
	}
	return f, nil
}

// maxOptionName caps an engine's own option name (bytes).
const maxOptionName = 128

// fitOption reports whether s can be sent as an option name on one protocol line:
// printable, no blank at either end.
func fitOption(s string) bool {
	if len(s) > maxOptionName || strings.TrimSpace(s) != s || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// SafeGeneName turns an engine's option name into a gene name: every character that a gene
// name cannot hold becomes _, and a leading digit gets a _ before it ("King Safety" →
// "King_Safety", "2ndRank" → "_2ndRank"); cut at 64 bytes.
func SafeGeneName(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r == '_':
		case r >= '0' && r <= '9', r == '.':
			if i == 0 {
				b.WriteByte('_')
			}
		default:
			r = '_'
		}
		b.WriteRune(r)
	}
	n := b.String()
	if n == "" {
		n = "_"
	}
	if len(n) > maxGeneName {
		n = n[:maxGeneName]
	}
	return n
}

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// LoadLayoutFile reads and validates a layout file the user named (at most 1 MB): a
// layout file (YAML or JSON), or an OpenBench parameter list (IsOpenBench, ParseOpenBench).
func LoadLayoutFile(path string) (LayoutFile, error) {
	data, err := engine.ReadInputFile(path, "layout", engine.MaxConfigFileSize)
	if err != nil {
		return LayoutFile{}, err
	}
	if IsOpenBench(data) {
		return ParseOpenBench(data, path)
	}
	return ParseLayoutFile(data, path)
}

// EngineGame is the referee's game for f: the registered game with f's rule variant.
func (f LayoutFile) EngineGame(g engine.Game) (engine.Game, error) {
	g, err := engine.WithRule(g, f.Rule)
	if err != nil {
		return nil, fmt.Errorf("rule: %w", err)
	}
	return g, nil
}

// Layout returns f's genes as a Layout for the GA. It has no mapping to built-in engine
// weights (Weights returns an error): its values reach an outside engine as named values.
func (f LayoutFile) Layout() *Layout {
	l := &Layout{Game: f.Game}
	for _, g := range f.Genes {
		s := Linear
		if g.Scale == "log" {
			s = Log
		}
		l.Genes = append(l.Genes, Gene{Name: g.Name, Min: g.Min, Max: g.Max, Default: g.Default, Scale: s,
			Integer: g.Integer, Fixed: g.Fixed, Note: g.Note, Option: g.Option, CEnd: g.CEnd, REnd: g.REnd})
	}
	return l
}

// ErrNoBuiltinWeights is returned by Layout.Weights for a layout read from a layout file:
// its genes have no built-in engine weights type.
var ErrNoBuiltinWeights = errors.New("the layout's genes are an outside engine's parameters, not built-in weights")

// BuiltinWeights maps named values of a layout file whose game is built in to that
// engine's weights: every name must be one of the built-in layout's genes; genes the file
// leaves out keep the built-in default. This is the `--weights-format evotune` file of an
// outside subject (the identity test tunes the built-in engine through its protocol).
func BuiltinWeights(game string, named map[string]float64) (engine.Weights, error) {
	e, err := Lookup(game)
	if err != nil {
		return nil, err
	}
	full := e.Layout.Named(e.Layout.Defaults())
	for k, v := range named {
		if _, ok := full[k]; !ok {
			return nil, fmt.Errorf("gene %s is not a built-in %s weight (see 'evotune weights layout --game %s')", k, game, game)
		}
		full[k] = v
	}
	x, err := e.Layout.FromNamed(full)
	if err != nil {
		return nil, err
	}
	free, _ := e.Layout.Free(allNames(e.Layout)...)
	return free.Weights(x)
}

func allNames(l *Layout) []string {
	var n []string
	for _, g := range l.Genes {
		n = append(n, g.Name)
	}
	return n
}
