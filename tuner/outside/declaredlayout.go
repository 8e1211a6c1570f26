package outside

import (
	"context"
	"fmt"
	"strings"
	"time"

	"evotune/engine/protocol"
	"evotune/genomes"
	"evotune/tuner/config"
)

// LayoutOfEngine is what DeclaredLayout writes: Data in its format, What it is ("layout"
// or "OpenBench parameter list"), the spin options of the layout (Options) and how many of
// them are engine settings held fixed (Fixed), and the options left out with the reason.
type LayoutOfEngine struct {
	Data           []byte
	What           string
	Options, Fixed int
	LeftOut        []string
}

// DeclaredLayout starts the UCI engine command ("cmd:PROG ARGS"), reads the options it
// declares within startup, and writes the chess layout of its spin options (EngineLayout;
// options, comma-separated, picks some by name, "" = every one) in format: "yaml" (a
// layout file, checked as tune --layout reads it) or "openbench" (OpenBench's SPSA lines
// of the free genes). Errors name the flag: --engine (not a command, no handshake, only
// engine settings), --format, --startup-time, --options (a name the engine lacks); LeftOut
// is filled even when an error follows.
func DeclaredLayout(ctx context.Context, command, options, format string, startup time.Duration) (LayoutOfEngine, error) {
	var f LayoutOfEngine
	argv, ok, err := protocol.ParseCommand(command)
	if !ok || err != nil {
		return f, fmt.Errorf("--engine %q: want cmd:PROG [ARGS]", command)
	}
	if format != "yaml" && format != "openbench" {
		return f, fmt.Errorf("--format %q: with --engine, want yaml (a layout file) or openbench (OpenBench's SPSA lines)", format)
	}
	if startup <= 0 {
		return f, fmt.Errorf("--startup-time %v: want a positive duration", startup)
	}
	e, err := genomes.Lookup("chess")
	if err != nil {
		return f, err
	}
	declared, skipped, err := protocol.DeclaredOptions(ctx, protocol.ExternalSpec{Argv: argv, Protocol: protocol.UCI, StartupTime: startup}, e.Game)
	if err != nil {
		return f, fmt.Errorf("--engine: %w", err)
	}
	var want []string
	if options != "" {
		for _, n := range strings.Split(options, ",") {
			if n = strings.TrimSpace(n); n != "" {
				want = append(want, n)
			}
		}
	}
	lf, leftOut, err := EngineLayout(declared, want)
	f.LeftOut = append(skipped, leftOut...)
	if err != nil {
		flag := "--engine"
		if want != nil {
			flag = "--options"
		}
		return f, fmt.Errorf("%s: %s: %w", flag, command, err)
	}
	f.Data, f.What = lf.YAML(), "layout"
	if _, err := genomes.ParseLayoutFile(f.Data, "the written layout"); err != nil { // what tune --layout will read
		return f, err
	}
	if format == "openbench" {
		var free []genomes.Gene // OpenBench tunes every line it is given: no engine settings
		for _, g := range lf.Layout().Genes {
			if !g.Fixed {
				free = append(free, g)
			}
		}
		ps := OpenBenchParams(free, (&genomes.Layout{Genes: free}).Defaults(), config.DefaultSPSA)
		if len(ps) == 0 {
			return f, fmt.Errorf("--engine: every spin option %s declares is an engine setting (Hash, Threads…); name the ones to tune with --options", command)
		}
		f.Data, f.What = genomes.FormatOpenBench(ps), "OpenBench parameter list"
	}
	f.Options = len(lf.Genes)
	for _, g := range lf.Genes {
		if g.Fixed {
			f.Fixed++
		}
	}
	return f, nil
}
