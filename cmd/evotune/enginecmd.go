package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/engine/protocol/wire"
	"evotune/genomes"
	"evotune/tuner/config"
	"evotune/tuner/match"
)

type engineOpts struct {
	gameOpts
	weights     string
	lim         engine.Limits
	moveTime    time.Duration
	board       int
	keepRunning bool
	padFirst    bool
	proto       string
}

// pbrainName is the executable name Gomocup managers look for; invoked under it, evotune
// runs "engine --game G" for the game whose engines speak Gomocup (gomoku).
const pbrainName = "pbrain-evotune"

// pbrainArgs rewrites the arguments when the binary runs as pbrain-evotune: argv0 is a
// path with / or \ separators (a Windows manager passes C:\...\PBRAIN-EVOTUNE.EXE; names
// are compared without case and without ".exe", as Windows does).
func pbrainArgs(argv0 string, args []string) []string {
	base := strings.ToLower(argv0[strings.LastIndexAny(argv0, `/\`)+1:])
	if strings.TrimSuffix(base, ".exe") != pbrainName {
		return args
	}
	for _, n := range genomes.Names() {
		if e, _ := genomes.Lookup(n); protocol.DefaultProtocol(e.Game) == protocol.Gomocup {
			return append([]string{"engine", "--game", n}, args...)
		}
	}
	return args
}

func newEngineCmd() *cobra.Command {
	var o engineOpts
	c := &cobra.Command{
		Use:   "engine --game G [--weights FILE|default] [--depth D --width W] [--move-time T] [--protocol P]",
		Short: "Play as an engine on standard input/output in the game's protocol (" + gameProtocolsText() + ")",
		Long: "engine speaks the protocol managers use for the game (" + gameProtocolsText() + "; the first is the default).\n" +
			"Gomocup (Piskvork): managers look for an executable named pbrain-*: a link or copy of evotune\n" +
			"named pbrain-evotune runs this command for the game Gomocup carries (gomoku).\n" +
			"SAU: the olympiad text protocol of connect6 (--protocol botzone for Botzone's ConnectSix).\n" +
			"Botzone: the simple or JSON interaction (--keep-running for its keep-running mode).\n" +
			"UCI: chess, the weights' whole numbers as spin options.\n\n" +
			"Time: with a budget (Gomocup's timeout_turn and time_left share, else --move-time, else 1 s for\n" +
			"SAU and Botzone) iterative deepening goes as deep as the budget allows (no new iteration after\n" +
			"50%, cut at 85% less 25 ms); --depth caps it; the weights file's depth is used only without a\n" +
			"budget. Each move's depth, score, nodes, NPS, time and PV: a Gomocup MESSAGE line, else stderr.",
		Args: cobra.NoArgs,
		Example: "  evotune engine --game gomoku --weights best.json\n" +
			"  ln -s \"$(command -v evotune)\" pbrain-evotune    # for Piskvork and other Gomocup managers\n" +
			"  evotune engine --game connect6 --depth 3 --width 10\n" +
			"  evotune engine --game connect6 --protocol botzone --keep-running\n" +
			"  evotune engine --game amazons --board 8 --keep-running",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEngine(cmd.Context(), o, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addGameFlags(c, &o.gameOpts)
	c.Flags().StringVar(&o.weights, "weights", "default", "weights file or 'default' (the paper's)")
	addLimitFlags(c, &o.lim)
	c.Flags().DurationVar(&o.moveTime, "move-time", 0, "time per move (caps Gomocup's timeout_turn/time_left share; 0 = the protocol's: Gomocup's INFO, SAU 1s, Botzone 1s)")
	c.Flags().IntVar(&o.board, "board", 0, "board side where the protocol does not say it (amazons: 8 or 10)")
	c.Flags().BoolVar(&o.keepRunning, "keep-running", false, "Botzone: keep-running mode")
	c.Flags().StringVar(&o.proto, "protocol", "", strings.Join(protocol.Names(), ", ")+" (default: the game's: "+config.DefaultProtocolsText()+")")
	c.Flags().BoolVar(&o.padFirst, "pad-first-move", false, "connect6: write Black's one-stone first move as 'move JJ@@' (default 'move JJ'; both are read)")
	return c
}

func runEngine(ctx context.Context, o engineOpts, in io.Reader, out, errOut io.Writer) error {
	g, _, err := resolveGame(o.gameOpts)
	if err != nil {
		return err
	}
	if err := o.lim.Validate(); err != nil {
		return fmt.Errorf("--%w", err)
	}
	w, fl, err := match.LoadWeights(g, o.weights)
	if err != nil {
		return fmt.Errorf("--weights: %w", err)
	}
	if _, err := g.NewBoard(o.board); err != nil {
		return fmt.Errorf("--board: %w", err)
	}
	if o.moveTime < 0 {
		return fmt.Errorf("--move-time: %v is negative", o.moveTime)
	}
	// Under a clock the depth is a cap only when --depth is given; the weights file's or the
	// game's default depth is searched when no clock is known.
	merged := match.MergeLimits(g, o.lim, fl)
	lim := engine.Limits{Depth: o.lim.Depth, Width: merged.Width}
	cfg := wire.Config{Game: g, Weights: w, Limits: lim, FallbackDepth: merged.Depth, MoveTime: o.moveTime,
		Board: o.board, Name: "evotune", Version: version, PadFirstMove: o.padFirst}
	if e, err := genomes.Lookup(g.Name()); err == nil {
		cfg.OptionBounds = e.Layout.SpinBounds()
	}
	if err := protocol.CheckProtocol(g, o.proto); err != nil {
		return fmt.Errorf("--protocol: %w", err)
	}
	p := protocol.ExternalSpec{Protocol: o.proto}.ProtocolFor(g)
	if o.keepRunning && p != protocol.Botzone {
		return fmt.Errorf("--keep-running: Botzone's mode; %s is served over %s", g.Name(), p)
	}
	return protocol.Serve(ctx, p, cfg, in, out, errOut, o.keepRunning)
}

func init() { os.Args = append(os.Args[:1], pbrainArgs(os.Args[0], os.Args[1:])...) }

// gameProtocolsText lists every registered game with the protocols its engine speaks, its
// default first ("amazons: botzone; chess: uci; connect6: sau, botzone; …").
func gameProtocolsText() string {
	var parts []string
	for _, name := range genomes.Names() {
		e, _ := genomes.Lookup(name)
		if ps := protocol.Protocols(e.Game); len(ps) > 0 {
			parts = append(parts, name+": "+strings.Join(ps, ", "))
		}
	}
	return strings.Join(parts, "; ")
}
