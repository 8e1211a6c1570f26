package outside

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"evotune/engine/protocol"
	"evotune/tuner/config"
	"evotune/tuner/match"
)

// ProbeEngines checks a run's outside engines before anything is stored: every --opponent
// and the engine under tuning (ProbeSubject) must start, answer its handshake and play a
// legal first move. Progress lines ("checking …") go to errOut; an error names the flag
// and the engine (--opponent 2: …).
func ProbeEngines(ctx context.Context, cfg config.Config, errOut io.Writer) error {
	if err := probeOpponents(ctx, cfg, errOut); err != nil {
		return err
	}
	if err := ProbeSubject(ctx, cfg, errOut); err != nil {
		return err
	}
	return ProbeLadder(ctx, cfg, errOut)
}

// ProbeLadder checks the verification ladder's other engines (VerifyOpponents) before
// anything is played or stored, as they will play: each must start, answer its handshake,
// take the options given (a UCI engine: options it declares, within their bounds) and play
// a legal first move. An error names the flag and the engine (--verify-opponent 1: …).
func ProbeLadder(ctx context.Context, cfg config.Config, errOut io.Writer) error {
	if len(cfg.VerifyOpponents) == 0 {
		return nil
	}
	plan, err := cfg.Plan()
	if err != nil {
		return err
	}
	var champ *protocol.ExternalSpec
	if cfg.Engine != "" {
		out, err := NewOutside(cfg, plan.Layout)
		if err != nil {
			return err
		}
		if champ, err = out.Spec(plan.Layout.Defaults()); err != nil {
			return err
		}
	}
	opts, err := match.ParseOptions("--verify-opponent-option", cfg.VerifyOpponentOptions)
	if err != nil {
		return err
	}
	oppSpec := cfg.LadderOpponentSpec(champ)
	for i, op := range cfg.VerifyOpponents {
		argv, _, err := protocol.ParseCommand(op)
		if err != nil {
			return fmt.Errorf("--verify-opponent %d: %w", i+1, err)
		}
		spec := oppSpec(argv, opts)
		if spec.MoveTime <= 0 {
			spec.MoveTime = 5 * time.Second
		}
		fmt.Fprintf(errOut, "checking %s: start-up and one move (at most %v)\n", spec.Name(), spec.MoveTime+protocol.StartupAllowance)
		if len(opts) > 0 {
			if err := protocol.CheckOptions(ctx, *spec, plan.Game); err != nil {
				return fmt.Errorf("--verify-opponent %d: %w", i+1, err)
			}
		}
		if err := protocol.Probe(ctx, *spec, plan.Game, cfg.Board); err != nil {
			return fmt.Errorf("--verify-opponent %d: %w", i+1, err)
		}
	}
	return nil
}

// probeOpponents checks every external opponent of a run before it starts: it must start,
// answer its handshake and play a legal first move (protocol.Probe). An engine that cannot
// play would otherwise forfeit every game and hand every individual a perfect score.
func probeOpponents(ctx context.Context, cfg config.Config, errOut io.Writer) error {
	plan, err := cfg.Plan()
	if err != nil {
		return err
	}
	for i, op := range cfg.Opponents {
		argv, _, err := protocol.ParseCommand(op)
		if err != nil {
			return fmt.Errorf("--opponent: %w", err)
		}
		spec := cfg.OpponentSpec(argv)
		if spec.MoveTime <= 0 {
			spec.MoveTime = 5 * time.Second
		}
		fmt.Fprintf(errOut, "checking %s: start-up and one move (at most %v)\n", spec.Name(), spec.MoveTime+protocol.StartupAllowance)
		if err := protocol.Probe(ctx, *spec, plan.Game, cfg.Board); err != nil {
			return fmt.Errorf("--opponent %d: %w", i+1, err)
		}
	}
	return nil
}

// ProbeSubject checks the outside engine under tuning before the run is created: with the
// layout's defaults it must start, answer its handshake (declaring the options the layout
// sets) and play a legal first move, under go nodes when the run sets --nodes (an engine
// that ignores node limits, as Toga II does, is named so, with the flags that work
// instead). Progress lines go to errOut; errors name --engine or --nodes.
func ProbeSubject(ctx context.Context, cfg config.Config, errOut io.Writer) error {
	if cfg.Engine == "" {
		return nil
	}
	plan, err := cfg.Plan()
	if err != nil {
		return err
	}
	g, l := plan.Game, plan.Layout
	out, err := NewOutside(cfg, l)
	if err != nil {
		return err
	}
	spec, err := out.Spec(l.Defaults())
	if err != nil {
		return err
	}
	fmt.Fprintf(errOut, "checking the engine under tuning %s with the layout's defaults: start-up and one move (at most %v)\n", spec.Name(), spec.MoveTime+spec.StartupTime)
	declared, _, err := protocol.DeclaredOptions(ctx, *spec, g)
	if err != nil {
		return fmt.Errorf("--engine: %w", err)
	}
	if err := out.CheckDeclared(declared); err != nil {
		return fmt.Errorf("--engine %s: %w", spec.Name(), err)
	}
	err = match.ProbeNodes(ctx, g, cfg.Board, spec) // under go nodes: says when the engine ignores them
	if spec.Nodes <= 0 {
		err = protocol.Probe(ctx, *spec, g, cfg.Board)
	}
	var ignored *match.NodesIgnoredError
	switch {
	case errors.As(err, &ignored):
		return fmt.Errorf("--nodes %d: %v; give it --depth D (go depth), --tc or --move-time instead", ignored.Nodes, err)
	case err != nil:
		return fmt.Errorf("--engine: %w", err)
	}
	return nil
}
