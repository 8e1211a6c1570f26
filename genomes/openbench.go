package genomes

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The OpenBench/fishtest SPSA parameter list, the text chess engines print for their
// tuning runs: one parameter per line,
//
//	NAME, int|float, VALUE, MIN, MAX, C_END, R_END
//
// NAME is the engine's UCI option, VALUE its current value, C_END the perturbation and
// R_END the learning rate of SPSA's last step, both in the parameter's own units
// (OpenBench's SPSA input; fishtest's spsa_handler.py reads the same seven fields).
// Blank lines and lines starting with # are skipped.

// OpenBenchParam is one line of an OpenBench parameter list.
type OpenBenchParam struct {
	Name                        string
	Float                       bool // "float"; false: "int"
	Value, Min, Max, CEnd, REnd float64
}

// IsOpenBench reports whether data looks like an OpenBench parameter list: its first line
// that is neither blank nor a comment has comma-separated fields, the second int or float
// (ParseOpenBench then says what is wrong with a line of 6 or 8). A layout file (YAML or
// JSON) never does.
func IsOpenBench(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, ",")
		if len(f) < 3 {
			return false
		}
		t := strings.TrimSpace(f[1])
		return t == "int" || t == "float"
	}
	return false
}

// ParseOpenBench reads an OpenBench parameter list as a chess layout (every parameter a
// UCI option; "int" parameters integer genes). A gene is named as its line names the
// parameter when that is a fit gene name, else SafeGeneName of it with the name kept as
// the gene's option. name labels errors, which give the line: "tune.txt: line 3: 6 fields,
// want 7 (NAME, int|float, VALUE, MIN, MAX, C_END, R_END)". Wrong field counts, a type
// other than int or float, numbers that do not parse or are not finite, min ≥ max, a value
// outside [min, max], an int parameter's fractional bound, c_end or r_end ≤ 0, and a name
// given twice are errors. An int parameter's value is rounded (OpenBench keeps it
// fractional between steps and sends it rounded).
func ParseOpenBench(data []byte, name string) (LayoutFile, error) {
	f := LayoutFile{Format: LayoutFormat, Game: "chess"}
	fail := func(line int, format string, args ...any) (LayoutFile, error) {
		return LayoutFile{}, fmt.Errorf("%s: line %d: %s", name, line, fmt.Sprintf(format, args...))
	}
	seen, seenGene := map[string]int{}, map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		fields := strings.Split(l, ",")
		if len(fields) != 7 {
			return fail(line, "%d fields, want 7 (NAME, int|float, VALUE, MIN, MAX, C_END, R_END)", len(fields))
		}
		for i := range fields {
			fields[i] = strings.TrimSpace(fields[i])
		}
		p := OpenBenchParam{Name: fields[0]}
		switch fields[1] {
		case "int":
		case "float":
			p.Float = true
		default:
			return fail(line, "%s: type %q, want int or float", p.Name, fields[1])
		}
		if p.Name == "" || !fitOption(p.Name) {
			return fail(line, "name %q: want printable characters, at most %d bytes", p.Name, maxOptionName)
		}
		nums := []*float64{&p.Value, &p.Min, &p.Max, &p.CEnd, &p.REnd}
		for i, dst := range nums {
			v, err := strconv.ParseFloat(fields[i+2], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return fail(line, "%s: %s %q is not a finite number", p.Name, []string{"value", "min", "max", "c_end", "r_end"}[i], fields[i+2])
			}
			*dst = v
		}
		switch {
		case !(p.Min < p.Max):
			return fail(line, "%s: min %g must be below max %g", p.Name, p.Min, p.Max)
		case p.Value < p.Min || p.Value > p.Max:
			return fail(line, "%s: value %g outside [%g, %g]", p.Name, p.Value, p.Min, p.Max)
		case !p.Float && (p.Min != math.Trunc(p.Min) || p.Max != math.Trunc(p.Max)):
			return fail(line, "%s: an int parameter with a fractional min or max", p.Name)
		case !(p.CEnd > 0) || !(p.REnd > 0):
			return fail(line, "%s: c_end %g and r_end %g must be above 0", p.Name, p.CEnd, p.REnd)
		}
		if at := seen[strings.ToLower(p.Name)]; at > 0 {
			return fail(line, "%s: also on line %d (UCI option names ignore case)", p.Name, at)
		}
		seen[strings.ToLower(p.Name)] = line
		g := GeneSpec{Name: p.Name, Min: p.Min, Max: p.Max, Default: p.Value, Integer: !p.Float, CEnd: p.CEnd, REnd: p.REnd}
		if g.Integer {
			g.Default = math.Round(g.Default)
		}
		if !geneName.MatchString(g.Name) || len(g.Name) > maxGeneName {
			g.Name, g.Option = SafeGeneName(p.Name), p.Name
		}
		if at := seenGene[g.Name]; at > 0 {
			return fail(line, "%s: its gene name %s is also line %d's", p.Name, g.Name, at)
		}
		seenGene[g.Name] = line
		f.Genes = append(f.Genes, g)
	}
	if err := sc.Err(); err != nil {
		return LayoutFile{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(f.Genes) == 0 {
		return LayoutFile{}, fmt.Errorf("%s: no parameters (want lines NAME, int|float, VALUE, MIN, MAX, C_END, R_END)", name)
	}
	if len(f.Genes) > MaxLayoutGenes {
		return LayoutFile{}, fmt.Errorf("%s: %d parameters, at most %d", name, len(f.Genes), MaxLayoutGenes)
	}
	return f, nil
}

// FormatOpenBench writes params as an OpenBench parameter list, one line each, numbers in
// their shortest exact form (an int parameter's value and bounds as whole numbers).
func FormatOpenBench(params []OpenBenchParam) []byte {
	var b bytes.Buffer
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, p := range params {
		t := "int"
		v, lo, hi := p.Value, p.Min, p.Max
		if p.Float {
			t = "float"
		} else {
			v, lo, hi = math.Round(v), math.Round(lo), math.Round(hi)
		}
		fmt.Fprintf(&b, "%s, %s, %s, %s, %s, %s, %s\n", p.Name, t, num(v), num(lo), num(hi), num(p.CEnd), num(p.REnd))
	}
	return b.Bytes()
}
