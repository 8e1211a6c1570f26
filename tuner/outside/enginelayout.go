package outside

import (
	"fmt"
	"strconv"
	"strings"

	"evotune/engine/protocol/uci"
	"evotune/genomes"
)

// engineSettings are words of UCI options that set up an engine rather than weigh its
// evaluation or search (Hash, Threads, MultiPV, Move Overhead, Skill Level, UCI_Elo,
// SyzygyPath…): EngineLayout writes them as fixed genes, so that a layout of every spin
// option tunes only the engine's parameters unless the user frees them.
var engineSettings = []string{"hash", "thread", "multipv", "overhead", "skill", "uci_", "syzygy", "ponder", "slowmover", "slow mover", "minimum thinking", "nodestime", "move time", "contempt", "book", "log", "search time", "search depth", "cache"}

// EngineLayout is the chess layout of a UCI engine's spin options (declared: the options
// of its handshake): one whole-number linear gene per option named in names (nil: every
// spin option, with engine settings such as Hash or Threads fixed), its range and default
// the option's. An option whose line lacks a whole default, min or max, or whose min equals
// its max, is left out and said so in leftOut. Errors: a name the engine does not declare
// or that is not a spin option, two options that make one gene name, no option left.
func EngineLayout(declared []uci.Option, names []string) (lf genomes.LayoutFile, leftOut []string, err error) {
	var picked []uci.Option
	if names != nil {
		for _, n := range names {
			d := uci.Find(declared, n)
			switch {
			case d == nil:
				return lf, nil, fmt.Errorf("%q: the engine declares no such option (it has: %s)", n, OptionNames(declared))
			case d.Type != "spin":
				return lf, nil, fmt.Errorf("%q is a %s option; only spin options (whole numbers with min and max) can be genes", d.Name, d.Type)
			}
			picked = append(picked, *d)
		}
	} else {
		for _, d := range declared {
			if d.Type == "spin" {
				picked = append(picked, d)
			}
		}
	}
	lf = genomes.LayoutFile{Format: genomes.LayoutFormat, Game: "chess"}
	seen := map[string]string{}
	for _, d := range picked {
		def, err := strconv.ParseInt(d.Default, 10, 64)
		if d.Min == nil || d.Max == nil || err != nil {
			leftOut = append(leftOut, fmt.Sprintf("%q: its option line gives no whole default, min and max", d.Name))
			continue
		}
		if *d.Min >= *d.Max {
			leftOut = append(leftOut, fmt.Sprintf("%q: min %d = max %d, nothing to tune", d.Name, *d.Min, *d.Max))
			continue
		}
		g := genomes.GeneSpec{Name: genomes.SafeGeneName(d.Name), Min: float64(*d.Min), Max: float64(*d.Max),
			Default: float64(min(max(def, *d.Min), *d.Max)), Scale: "linear", Integer: true}
		if g.Name != d.Name {
			g.Option = d.Name
		}
		if other, dup := seen[g.Name]; dup {
			return lf, nil, fmt.Errorf("options %q and %q both make the gene name %s: pick one", other, d.Name, g.Name)
		}
		seen[g.Name] = d.Name
		low := strings.ToLower(d.Name)
		for _, w := range engineSettings {
			if names == nil && strings.Contains(low, w) {
				g.Fixed, g.Note = true, "an engine setting, not a parameter: fixed (tune it anyway with --free "+g.Name+")"
				break
			}
		}
		lf.Genes = append(lf.Genes, g)
	}
	if len(lf.Genes) == 0 {
		return lf, leftOut, fmt.Errorf("the engine declares no spin option to tune (it has: %s)", OptionNames(declared))
	}
	return lf, leftOut, nil
}

// OptionNames lists declared options as "Name (type), …" ("no options" for none).
func OptionNames(ds []uci.Option) string {
	var n []string
	for _, d := range ds {
		n = append(n, fmt.Sprintf("%s (%s)", d.Name, d.Type))
	}
	if len(n) == 0 {
		return "no options"
	}
	return strings.Join(n, ", ")
}
