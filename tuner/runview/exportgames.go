package runview

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"evotune/db"
	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/config"
)

// ExportGames writes the games of stored run run (of generation generation, −1 = every
// generation; credited to individual, "" = anyone's) to directory dir, a file per game
// named RUN-gGEN-NNNNN.FORMAT, in format: psq (Piskvork, Gomoku), sgf (Gomoku, Amazons),
// pgn (chess; a generation's opening plies marked as the book's) or json (engine.SavedGame).
// It returns how many it wrote. Errors name the flag: a format the game has no records of
// (--format), a generation the run lacks (--generation), an individual with no game
// (--individual), a directory that cannot be written (--out).
func ExportGames(ctx context.Context, d *db.DB, run db.Run, format string, generation int, individual, dir string) (int, error) {
	runID := run.ID
	cfg, err := config.DecodeConfig(string(run.Config))
	if err != nil {
		return 0, fmt.Errorf("run %d: %w", runID, err)
	}
	e, err := genomes.Lookup(run.Game)
	if err != nil {
		return 0, fmt.Errorf("run %d: %w", runID, err)
	}
	game, err := engine.WithRule(e.Game, cfg.Rule)
	if err != nil {
		return 0, fmt.Errorf("run %d: %w", runID, err)
	}
	sgf, hasSGF := game.(engine.SGFWriter)
	psq, hasPSQ := game.(engine.PSQRecorder)
	pgn, hasPGN := game.(engine.PGNWriter)
	switch {
	case format != "psq" && format != "sgf" && format != "json" && format != "pgn":
		return 0, fmt.Errorf("--format %q: want psq, sgf, pgn or json", format)
	case format == "pgn" && !hasPGN:
		return 0, fmt.Errorf("--format pgn: PGN records hold %s games; run %d is %s (use --format json)", strings.Join(genomes.Offering[engine.PGNWriter](), ", "), runID, run.Game)
	case format == "psq" && !hasPSQ:
		return 0, fmt.Errorf("--format psq: Piskvork records hold Gomoku games; run %d is %s (use --format json)", runID, run.Game)
	case format == "sgf" && !hasSGF:
		return 0, fmt.Errorf("--format sgf: %s has no SGF game number (the SGF specification numbers Gomoku 4 and Amazons 18); use --format json", run.Game)
	}
	b, err := game.NewBoard(cfg.Board)
	if err != nil {
		return 0, fmt.Errorf("run %d: board %d: %w", runID, cfg.Board, err)
	}
	size := b.Size()
	gens, err := d.Generations(ctx, runID)
	if err != nil {
		return 0, err
	}
	if generation >= len(gens) {
		return 0, fmt.Errorf("--generation %d: run %d has generations 0 to %d", generation, runID, len(gens)-1)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("--out: %w", err)
	}
	written := 0
	for _, g := range gens {
		if generation >= 0 && g.Generation != generation {
			continue
		}
		games, err := d.Games(ctx, runID, g.Generation)
		if err != nil {
			return 0, err
		}
		openings, _ := g.Openings.Openings() // the generation's openings: the PGN marks their plies as the book's
		for i, gm := range games {
			if individual != "" && gm.Individual != individual {
				continue
			}
			moves, err := gm.Moves.Moves()
			if err != nil {
				return 0, fmt.Errorf("run %d generation %d game %d: %w", runID, g.Generation, i, err)
			}
			black, white := gm.Individual, gm.Opponent
			if gm.Colour == "white" {
				black, white = white, black
			}
			var data []byte
			switch format {
			case "psq":
				data, err = psq.FormatPSQ(size, moves, nil, black, white)
			case "sgf":
				data, err = sgf.SGF(size, moves, black, white, gm.Result)
			case "pgn":
				data, err = pgn.PGN(engine.PGNGame{Event: fmt.Sprintf("evotune run %d", runID), Site: "evotune", Date: pgnDate(g.CreatedAt),
					Round: fmt.Sprintf("%d.%d", g.Generation, i+1), White: black, Black: white, Result: gm.Result, Moves: moves,
					StatsFrom: openingPlies(openings, gm.Opening), Comment: forfeitComment(gm)})
			case "json":
				var values json.RawMessage
				if gm.ForfeitValues != "" {
					values = json.RawMessage(gm.ForfeitValues)
				}
				data, err = json.MarshalIndent(engine.SavedGame{Format: engine.GameFileFormat, Game: run.Game, Board: size, Rule: cfg.Rule, Black: black, White: white,
					Moves: moves, Result: gm.Result, Plies: gm.Plies, Forfeit: string(gm.Forfeit), ForfeitBy: string(gm.ForfeitBy), ForfeitValues: values, Created: g.CreatedAt}, "", "  ")
				data = append(data, '\n')
			}
			if err != nil {
				return 0, fmt.Errorf("run %d generation %d game %d: %w", runID, g.Generation, i, err)
			}
			name := filepath.Join(dir, fmt.Sprintf("%d-g%d-%05d.%s", runID, g.Generation, i, format))
			if err := engine.WriteFileAtomic(name, data); err != nil {
				return written, fmt.Errorf("--out: %w", err)
			}
			written++
		}
	}
	if individual != "" && written == 0 {
		return 0, fmt.Errorf("--individual %s: no game of run %d (or of the generation asked) is credited to it", individual, runID)
	}
	return written, nil
}

// pgnDate is PGN's Date tag ("2026.11.24") of an RFC 3339 time, "????.??.??" if it is not one.
func pgnDate(t string) string {
	if d, err := time.Parse(time.RFC3339, t); err == nil {
		return d.UTC().Format("2006.01.02")
	}
	return "????.??.??"
}

// openingPlies is the length of opening i of a generation's openings (0 when unknown).
func openingPlies(openings [][]string, i int) int {
	if i >= 0 && i < len(openings) {
		return len(openings[i])
	}
	return 0
}

// forfeitComment is a forfeited game's comment in its PGN: why, and the values of the
// player that forfeited ("" for a game played to its end).
func forfeitComment(gm db.GameRow) string {
	c := string(gm.Forfeit)
	if c != "" && gm.ForfeitValues != "" {
		c += fmt.Sprintf(" (%s played with %s)", gm.ForfeitBy, gm.ForfeitValues)
	}
	return c
}
