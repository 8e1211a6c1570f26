package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"evotune/engine"
	"evotune/engine/protocol"
)

type engineOpts struct {
	gameOpts
	weights     string
	lim         engine.Limits
	moveTime    time.Duration
	board       int
	keepRunning bool
	padFirst    bool
}

// pbrainName is the executable name Gomocup managers look for; invoked under it, evotune
// runs "engine --game gomoku".
const pbrainName = "pbrain-evotune"

// pbrainArgs rewrites the arguments when the binary runs as pbrain-evotune.
func pbrainArgs(argv0 string, args []string) []string {
	if strings.TrimSuffix(filepath.Base(argv0), ".exe") != pbrainName {
		return args
	}
	return append([]string{"engine", "--game", "gomoku"}, args...)
}

func newEngineCmd() *cobra.Command {
	var o engineOpts
	c := &cobra.Command{
		Use:   "engine --game G [--weights FILE|default] [--depth D --width W] [--move-time T]",
		Short: "Play as an engine on standard input/output: Gomocup (gomoku), SAU (connect6), Botzone (amazons)",
		Long: "engine speaks the protocol managers use for the game: the Gomocup (Piskvork) protocol for\n" +
			"gomoku, the SAU / olympiad text protocol for connect6, Botzone's simple interaction for\n" +
			"amazons (--keep-running for its keep-running mode). Gomocup managers look for an executable\n" +
			"named pbrain-*: a link or copy of evotune named pbrain-evotune runs this command for gomoku.",
		Args: cobra.NoArgs,
		Example: "  evotune engine --game gomoku --weights best.json\n" +
			"  ln -s \"$(command -v evotune)\" pbrain-evotune    # for Piskvork and other Gomocup managers\n" +
			"  evotune engine --game connect6 --depth 3 --width 10\n" +
			"  evotune engine --game amazons --board 8 --keep-running",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEngine(cmd.Context(), o, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addGameFlags(c, &o.gameOpts)
	c.Flags().StringVar(&o.weights, "weights", "default", "weights file or 'default' (the paper's)")
	addLimitFlags(c, &o.lim)
	c.Flags().DurationVar(&o.moveTime, "move-time", 0, "at most this long per move (iterative deepening stops in time; 0 = depth only)")
	c.Flags().IntVar(&o.board, "board", 0, "board side where the protocol does not say it (amazons: 8 or 10)")
	c.Flags().BoolVar(&o.keepRunning, "keep-running", false, "amazons: Botzone keep-running mode")
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
	w, fl, err := loadWeights(g, o.weights)
	if err != nil {
		return fmt.Errorf("--weights: %w", err)
	}
	if _, err := g.NewBoard(o.board); err != nil {
		return fmt.Errorf("--board: %w", err)
	}
	lim := mergeLimits(g, o.lim, fl)
	lim.Time = o.moveTime
	cfg := protocol.Config{Game: g, Weights: w, Limits: lim, Board: o.board, Name: "evotune", Version: version, PadFirstMove: o.padFirst}
	switch g.Name() {
	case "gomoku":
		return protocol.ServeGomocup(ctx, cfg, in, out)
	case "connect6":
		return protocol.ServeSAU(ctx, cfg, in, out)
	case "amazons":
		return protocol.ServeBotzone(ctx, cfg, in, out, errOut, o.keepRunning)
	}
	return fmt.Errorf("%s has no engine protocol", g.Name())
}

func init() { os.Args = append(os.Args[:1], pbrainArgs(os.Args[0], os.Args[1:])...) }
