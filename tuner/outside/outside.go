package outside

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/engine/protocol/uci"
	"evotune/engine/protocol/wire"
	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/search"
	"evotune/tuner/spsa"
)

// The subject of a run is what its gene vectors play as:
// the game's built-in engine (genes → its weights type, Layout.Weights), or an outside
// engine (Config.Layout and Config.Engine): every individual, the baseline (the layout's
// defaults) and every hall-of-fame member play through that program with their own values.
// Nothing else in the tuner cares which: side turns a gene vector into one side of a game
// task either way.

// Ways an outside engine reads a candidate's values from the file named by {weights}
// (Config.WeightsFormat).
const (
	// FormatJSON is a flat JSON object {"name": value, …} in layout order.
	FormatJSON = "json"
	// FormatEvotune is evotune's weights file (evotune.weights/v1), which the built-in
	// engines read: the layout's genes must be built-in weights of the game.
	FormatEvotune = "evotune"
	// FormatINI is one "name=value" line per gene.
	FormatINI = "ini"
)

// placeholder is {NAME} in an engine's arguments.
var placeholder = protocol.ArgPlaceholder

// Outside is an outside engine under tuning: its command line, how values reach it, and
// its clocks. Make it with NewOutside.
type Outside struct {
	argv     []string
	game     string
	layout   *genomes.Layout
	format   string
	info     bool
	moveTime time.Duration
	startup  time.Duration
	file     bool // argv has {weights}
	// proto, bzKeep and bzJSON are Config.EngineProtocol, BotzoneKeepRunning, BotzoneJSON.
	proto          string
	bzKeep, bzJSON bool
	// fixed are Config.EngineOptions; nodes, depth and tc Config.Nodes, EngineDepth and TC
	// (0 and nil: none).
	fixed []wire.Option
	nodes int64
	depth int
	tc    *engine.TimeControl
}

// NewOutside checks cfg's outside engine (Config.Engine over Config.Layout) and returns
// it; the error names the setting: an engine that is not "cmd:PROG ARGS", a {NAME} that is
// not a gene of the layout, a weights format the game cannot take, or an engine that gets
// no values at all (no {weights}, no {NAME} and no Gomocup INFO lines).
func NewOutside(cfg config.Config, layout *genomes.Layout) (*Outside, error) {
	argv, ok, err := protocol.ParseCommand(cfg.Engine)
	if !ok || err != nil {
		return nil, fmt.Errorf("engine: %q: want cmd:PROG [ARGS] (with {weights} or {NAME} where values go)", cfg.Engine)
	}
	o := &Outside{argv: argv, game: cfg.Game, layout: layout, format: cfg.WeightsFormat, info: cfg.GomocupInfo,
		moveTime: config.Seconds(cfg.EngineMoveTime, config.DefaultEngineMoveTime), startup: config.Seconds(cfg.StartupTime, config.DefaultStartupTime),
		proto: cfg.EngineProtocol, bzKeep: cfg.BotzoneKeepRunning, bzJSON: cfg.BotzoneJSON}
	if o.format == "" {
		o.format = FormatJSON
	}
	e, err := genomes.Lookup(cfg.Game)
	if err != nil {
		return nil, config.Errorf("game", "", "%w", err)
	}
	proto := (protocol.ExternalSpec{Protocol: cfg.EngineProtocol}).ProtocolFor(e.Game)
	// A UCI engine reads its parameters as options: setoption is how values reach it.
	o.info = o.info || proto == protocol.UCI
	if o.fixed, err = cfg.FixedEngineOptions(); err != nil {
		return nil, err
	}
	o.nodes, o.depth = cfg.Nodes, cfg.EngineDepth
	if cfg.TC != "" {
		tc, err := engine.ParseTimeControl(cfg.TC)
		if err != nil {
			return nil, fmt.Errorf("tc: %w", err)
		}
		o.tc = &tc
	}
	names := 0
	for _, a := range argv[1:] {
		if strings.Contains(a, protocol.WeightsPlaceholder) {
			o.file = true
		}
		for _, m := range placeholder.FindAllStringSubmatch(a, -1) {
			if m[1] == "weights" {
				continue
			}
			if !slices.ContainsFunc(layout.Genes, func(g genomes.Gene) bool { return g.Name == m[1] }) {
				return nil, fmt.Errorf("engine: {%s} is not a gene of the layout", m[1])
			}
			names++
		}
	}
	switch o.format {
	case FormatJSON, FormatINI:
	case FormatEvotune:
		if _, err := genomes.BuiltinWeights(cfg.Game, layout.Named(layout.Defaults())); err != nil {
			return nil, fmt.Errorf("weights_format evotune: %w", err)
		}
		// A free gene's whole range must be weights the engine accepts: a candidate drawn
		// near a bound the built-in weight does not allow would be refused mid-run.
		for _, g := range layout.Genes {
			if g.Fixed {
				continue
			}
			for _, b := range e.Layout.Genes {
				if b.Name == g.Name && (g.Min < b.Min || g.Max > b.Max) {
					return nil, fmt.Errorf("weights_format evotune: layout gene %s ranges %g–%g, outside the built-in %s weight's %g–%g: a candidate there would be refused by the engine (narrow min/max in the layout)", g.Name, g.Min, g.Max, cfg.Game, b.Min, b.Max)
				}
			}
		}
	default:
		return nil, config.Errorf("weights_format", "", "%q, want json, evotune or ini", o.format)
	}
	if o.info && !slices.Contains(protocol.OptionsProtocols(e.Game), proto) {
		return nil, config.Errorf("gomocup_info", "", "the engine speaks %s, which has no INFO lines (Gomocup's, gomoku)", proto)
	}
	if o.info {
		for _, g := range layout.Genes {
			if err := wire.CheckLine(g.OptionName(), "0"); err != nil {
				return nil, fmt.Errorf("layout: gene %s: %w", g.Name, err)
			}
		}
	}
	if !o.file && names == 0 && !o.info {
		return nil, fmt.Errorf("engine: %s gets no values: put {weights} (a file) or {NAME} (one gene) in its arguments, or use gomocup_info", cfg.Engine)
	}
	return o, nil
}

// CheckDeclared checks the run's options against the options the engine declares (its UCI
// handshake, protocol.DeclaredOptions; nil for a protocol whose engines declare none,
// which passes): every gene must be a spin option the engine declares, integer, within the
// engine's min…max (or, a gene that is not integer, a string option: a float parameter);
// every fixed option declared and its value one the engine takes. The
// error names the gene or option and the reason.
func (o *Outside) CheckDeclared(declared []uci.Option) error {
	if declared == nil || !o.info {
		return nil
	}
	if err := uci.CheckOptions(declared, o.fixed); err != nil {
		return config.Errorf("engine_options", "", "%w", err)
	}
	for _, g := range o.layout.Genes {
		d := uci.Find(declared, g.OptionName())
		switch {
		case d == nil:
			var names []string
			for _, x := range declared {
				if x.Type == "spin" {
					names = append(names, x.Name)
				}
			}
			return config.Errorf("layout", "", "gene %s: the engine declares no option %q (its spin options: %s)", g.Name, g.OptionName(), strings.Join(names, ", "))
		case d.Type == "string" && !g.Integer:
			// A float parameter (OpenBench's "float" lines): engines declare it as a string
			// option and parse the decimal they are sent.
		case d.Type != "spin":
			return config.Errorf("layout", "", "gene %s: option %q is a %s option; only spin options (whole numbers with min and max) can be genes, and string options for genes that are not integer", g.Name, d.Name, d.Type)
		case !g.Integer:
			return config.Errorf("layout", "", "gene %s: option %q is a spin (whole numbers): make the gene integer: true", g.Name, d.Name)
		case d.Min != nil && g.Min < float64(*d.Min), d.Max != nil && g.Max > float64(*d.Max):
			return config.Errorf("layout", "", "gene %s: bounds [%g, %g] outside the engine's %q min %s max %s", g.Name, g.Min, g.Max, d.Name, optBound(d.Min), optBound(d.Max))
		}
	}
	return nil
}

func optBound(p *int64) string {
	if p == nil {
		return "(none)"
	}
	return strconv.FormatInt(*p, 10)
}

// Export formats of an outside engine's values besides its weights format (ValuesIn).
const (
	// ExportOpenBench is the OpenBench/fishtest SPSA parameter list (genomes.ParseOpenBench):
	// the values as VALUE, the layout's bounds, each gene's c_end and r_end (its own, or the
	// run's SPSA c_end in the gene's units and r_end) — the input of the next tuning run.
	ExportOpenBench = "openbench"
	// ExportSetoption is one UCI "setoption name N value V" line per fixed option and gene,
	// for an engine's start-up script or a GUI.
	ExportSetoption = "setoption"
)

// ValuesIn returns the values of x in format: "" (the run's weights format, ValuesFile),
// ExportOpenBench or ExportSetoption, with sp the run's SPSA parameters; the error names
// an unknown format or one the engine cannot take (setoption lines for an engine that
// gets no options).
func (o *Outside) ValuesIn(format string, x []float64, sp config.SPSAConfig, prov *engine.Provenance) ([]byte, error) {
	switch format {
	case "":
		data, _, err := o.ValuesFile(x, prov)
		return data, err
	case ExportOpenBench:
		return genomes.FormatOpenBench(OpenBenchParams(o.layout.Genes, x, sp)), nil
	case ExportSetoption:
		if !o.info {
			return nil, fmt.Errorf("--format setoption: the engine reads its values from %s, not from options", strings.Join(o.argv, " "))
		}
		var b strings.Builder
		for _, f := range o.fixed {
			fmt.Fprintf(&b, "setoption name %s value %s\n", f.Name, f.Value)
		}
		for i, g := range o.layout.Genes {
			fmt.Fprintf(&b, "setoption name %s value %s\n", g.OptionName(), formatValue(g, x[i]))
		}
		return []byte(b.String()), nil
	}
	return nil, fmt.Errorf("--format %q: want %s or %s (or none: the run's weights format)", format, ExportOpenBench, ExportSetoption)
}

// OpenBenchParams returns genes at values x as OpenBench parameter lines: the engine's
// names, the bounds, and each gene's c_end and r_end — its own, or sp's c_end in the gene's
// units (a fifth of the range per SPSA unit; the default's fraction for a log gene; to 12
// significant digits) and sp's r_end.
func OpenBenchParams(genes []genomes.Gene, x []float64, sp config.SPSAConfig) []genomes.OpenBenchParam {
	var ps []genomes.OpenBenchParam
	for i, g := range genes {
		c, r := g.CEnd, g.REnd
		if c <= 0 {
			c = spsa.GeneCEnd(g, sp) * search.Unit(g)
			if g.Scale == genomes.Log && g.Min > 0 {
				c = spsa.GeneCEnd(g, sp) * g.Default
			}
			// A derived step, to 12 significant digits: 0.2 × 2/5 is written 0.08, not
			// the product's 0.08000000000000002.
			c, _ = strconv.ParseFloat(strconv.FormatFloat(c, 'g', 12, 64), 64)
		}
		if r <= 0 {
			r = sp.REnd
		}
		ps = append(ps, genomes.OpenBenchParam{Name: g.OptionName(), Float: !g.Integer, Value: x[i], Min: g.Min, Max: g.Max, CEnd: c, REnd: r})
	}
	return ps
}

// TimeControl is the games' chess clock (Config.TC), nil for none.
func (o *Outside) TimeControl() *engine.TimeControl { return o.tc }

// Program is the engine's program (argv[0]), what --allow-engine must name.
func (o *Outside) Program() string { return o.argv[0] }

// formatValue writes a gene's value as the engine reads it: whole numbers for integer
// genes, the shortest exact decimal otherwise.
func formatValue(g genomes.Gene, v float64) string {
	if g.Integer {
		return strconv.FormatInt(int64(math.Round(v)), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// ValuesFile returns the values of x in the engine's weights format (the {weights} file,
// and what `export` writes for the run) and the file's extension.
func (o *Outside) ValuesFile(x []float64, prov *engine.Provenance) ([]byte, string, error) {
	switch o.format {
	case FormatINI:
		var b strings.Builder
		for i, g := range o.layout.Genes {
			fmt.Fprintf(&b, "%s=%s\n", g.Name, formatValue(g, x[i]))
		}
		return []byte(b.String()), ".ini", nil
	case FormatEvotune:
		w, err := genomes.BuiltinWeights(o.game, o.layout.Named(x))
		if err != nil {
			return nil, "", err
		}
		data, err := engine.MarshalWeightsFile(w, nil, prov)
		return data, ".json", err
	}
	var b strings.Builder
	b.WriteString("{")
	for i, g := range o.layout.Genes {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := json.Marshal(g.Name)
		fmt.Fprintf(&b, "%s: %s", k, formatValue(g, x[i]))
	}
	b.WriteString("}\n")
	return []byte(b.String()), ".json", nil
}

// Spec returns the external engine that plays the gene vector x: {NAME} replaced by the
// gene's value, the weights file's content (for {weights}) and the INFO lines.
func (o *Outside) Spec(x []float64) (*protocol.ExternalSpec, error) {
	if len(x) != len(o.layout.Genes) {
		return nil, fmt.Errorf("outside engine: want %d genes, got %d", len(o.layout.Genes), len(x))
	}
	idx := map[string]int{}
	for i, g := range o.layout.Genes {
		idx[g.Name] = i
	}
	// Argv stays the user's command line; the values of its {NAME}s travel apart and are put
	// in by the process that starts the engine (as {weights}, the file's path).
	spec := &protocol.ExternalSpec{Argv: append([]string(nil), o.argv...), MoveTime: o.moveTime, StartupTime: o.startup,
		Protocol: o.proto, BotzoneKeepRunning: o.bzKeep, BotzoneJSON: o.bzJSON, Nodes: o.nodes, Depth: o.depth, TimeControl: o.tc}
	spec.Options = append(spec.Options, o.fixed...)
	vals := make([]string, len(o.layout.Genes))
	for i, g := range o.layout.Genes {
		vals[i] = g.Name + "=" + formatValue(g, x[i])
	}
	spec.Values = strings.Join(vals, ", ")
	for _, a := range o.argv[1:] {
		for _, m := range placeholder.FindAllStringSubmatch(a, -1) {
			if i, ok := idx[m[1]]; ok {
				if spec.ArgValues == nil {
					spec.ArgValues = map[string]string{}
				}
				spec.ArgValues[m[1]] = formatValue(o.layout.Genes[i], x[i])
			}
		}
	}
	if o.file {
		data, ext, err := o.ValuesFile(x, nil)
		if err != nil {
			return nil, err
		}
		spec.WeightsFile, spec.WeightsExt = data, ext
	}
	if o.info {
		for i, g := range o.layout.Genes {
			spec.Options = append(spec.Options, wire.Option{Name: g.OptionName(), Value: formatValue(g, x[i])})
		}
	}
	return spec, nil
}
