package config

import (
	"math"
	"strconv"

	"evotune/engine"
	"evotune/engine/protocol"
	"evotune/engine/protocol/wire"
	"evotune/tuner/ladder"
	"evotune/tuner/match"
)

// Rungs is the run's verification ladder: the tuning condition, then VerifyDepth,
// VerifyNodes, VerifyTC, VerifyMoveTime and each of VerifyOpponents (with
// VerifyOpponentOptions), those set, in that order.
func (c Config) Rungs() []ladder.Rung {
	rs := []ladder.Rung{{Kind: ladder.RungTuning}}
	if c.VerifyDepth > 0 {
		rs = append(rs, ladder.Rung{Kind: ladder.RungDepth, Value: strconv.Itoa(c.VerifyDepth)})
	}
	if c.VerifyNodes > 0 {
		rs = append(rs, ladder.Rung{Kind: ladder.RungNodes, Value: strconv.FormatInt(c.VerifyNodes, 10)})
	}
	if c.VerifyTC != "" {
		rs = append(rs, ladder.Rung{Kind: ladder.RungTC, Value: c.VerifyTC})
	}
	if c.VerifyMoveTime > 0 {
		rs = append(rs, ladder.Rung{Kind: ladder.RungMoveTime, Value: strconv.FormatFloat(c.VerifyMoveTime, 'f', -1, 64)})
	}
	for _, o := range c.VerifyOpponents {
		rs = append(rs, ladder.Rung{Kind: ladder.RungOpponent, Value: o, Options: c.VerifyOpponentOptions})
	}
	return rs
}

// RungGamesOf is the number of games of each rung after the first: VerifyRungGames, else
// VerifyDepthGames, else VerifyGames.
func (c Config) RungGamesOf() int {
	switch {
	case c.VerifyRungGames > 0:
		return c.VerifyRungGames
	case c.VerifyDepthGames > 0:
		return c.VerifyDepthGames
	}
	return c.VerifyGames
}

// checkLadder checks the ladder's settings against the run's subject: the outside engine
// speaking proto ("" for the built-in engines). Node and depth limits are UCI's (go nodes,
// go depth) and the built-in engines'; a chess clock is UCI's, Gomocup's (INFO time_left)
// and the built-in engines'; SAU and Botzone engines are told no clock, only a time per
// move. The error names the setting and says which rungs the engine can play.
func (c *Config) checkLadder(proto string) error {
	switch {
	case c.VerifyNodes < 0 || c.VerifyNodes > MaxNodes:
		return Errorf("verify_nodes", "", "%d, want 0 (none) to %d", c.VerifyNodes, int64(MaxNodes))
	case c.VerifyMoveTime < 0 || math.IsNaN(c.VerifyMoveTime) || c.VerifyMoveTime > 86400:
		return Errorf("verify_move_time", "", "%g, want 0 (none) to 86400 seconds", c.VerifyMoveTime)
	case c.VerifyRungGames < 0 || c.VerifyRungGames%2 != 0:
		return Errorf("verify_rung_games", "", "%d, want 0 (as verify_games) or a positive even number", c.VerifyRungGames)
	}
	if c.VerifyTC != "" {
		if _, err := engine.ParseTimeControl(c.VerifyTC); err != nil {
			return Errorf("verify_tc", "", "%w", err)
		}
	}
	if proto != "" && proto != protocol.UCI {
		if c.VerifyDepth > 0 || c.VerifyNodes > 0 {
			key := "verify_depth"
			if c.VerifyDepth == 0 {
				key = "verify_nodes"
			}
			return Errorf(key, "", "the engine speaks %s, which has no depth or node limit (UCI's go depth and go nodes); its longer rungs are --verify-move-time S%s", proto, map[bool]string{true: " and --verify-tc", false: ""}[proto == protocol.Gomocup])
		}
		if c.VerifyTC != "" && proto != protocol.Gomocup {
			return Errorf("verify_tc", "", "the engine speaks %s, which tells an engine no clock (UCI's go wtime, Gomocup's INFO time_left); use --verify-move-time S", proto)
		}
	}
	for i, o := range c.VerifyOpponents {
		argv, ok, err := protocol.ParseCommand(o)
		if !ok {
			return Errorf("verify_opponents", "", "%q (entry %d): want cmd:PATH ARGS, an engine's command line after cmd: (%q)", o, i+1, "cmd:"+o)
		}
		if err != nil {
			return Errorf("verify_opponents", "", "%w", err)
		}
		if len(argv) == 0 {
			return Errorf("verify_opponents", "", "%q (entry %d): no program after cmd:", o, i+1)
		}
	}
	if len(c.VerifyOpponentOptions) > 0 && len(c.VerifyOpponents) == 0 {
		return Errorf("verify_opponent_options", "", "no --verify-opponent to give them to")
	}
	if _, err := match.ParseOptions("verify-opponent-option", c.VerifyOpponentOptions); err != nil {
		return err
	}
	return nil
}

// LadderOpponentSpec makes an opponent rung's engine from its command line and options:
// under the tuning condition of a run whose champion plays as champ (an outside engine:
// the opponent speaks its protocol, with its move time, nodes, depth and clock), or, for
// the built-in engines (champ nil), the run's opponent move time and the game's protocol.
func (c Config) LadderOpponentSpec(champ *protocol.ExternalSpec) func(argv []string, opts []wire.Option) *protocol.ExternalSpec {
	return func(argv []string, opts []wire.Option) *protocol.ExternalSpec {
		s := c.OpponentSpec(argv)
		if champ != nil {
			s.Protocol, s.MoveTime, s.Nodes, s.Depth, s.TimeControl, s.MoveTimeFixed = champ.Protocol, champ.MoveTime, champ.Nodes, champ.Depth, champ.TimeControl, champ.MoveTimeFixed
			s.BotzoneJSON, s.BotzoneKeepRunning, s.Overhead, s.GameTime = champ.BotzoneJSON, champ.BotzoneKeepRunning, champ.Overhead, champ.GameTime
		}
		s.Options = opts
		return s
	}
}
