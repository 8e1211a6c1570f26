// Package tuner runs a tuning run: an eaopt genetic algorithm (github.com/MaxHalford/eaopt
// v0.4.2) over a game's gene layout, with fitness from full alpha-beta self-play games
// played on a worker pool against an opponent pool (the paper's weights and the best
// champions so far), every generation saved through a Store in one transaction.
//
// Reproducibility: all randomness derives from the run's seed and the generation number
// (openings, the initial population, selection, crossover, mutation), games are searched
// to fixed depths with fresh transposition tables, and results are gathered by task index,
// so the same seed and configuration give the same genomes, games and fitness whatever
// the number of workers.
package tuner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"

	"gopkg.in/yaml.v3"

	"evotune/engine/protocol"
	"evotune/genomes"
)

// Config is a run's full configuration; it is stored with the run as JSON. YAML config
// files use the same keys.
type Config struct {
	Game string `json:"game" yaml:"game"`
	// Rule is a rule variant (Gomoku: freestyle or standard).
	Rule string `json:"rule,omitempty" yaml:"rule"`
	// Board is the board side (0 = the game's default).
	Board int `json:"board,omitempty" yaml:"board"`
	// Name labels the run (default "GAME-seedN").
	Name string `json:"name" yaml:"name"`
	Seed int64  `json:"seed" yaml:"seed"`
	// Population is the number of individuals per generation.
	Population int `json:"population" yaml:"population"`
	// Generations is the number of generations after generation 0 (the initial one).
	Generations int `json:"generations" yaml:"generations"`
	// Games is the number of games each individual plays per generation: Games/2 openings,
	// each played twice with colours swapped. Must be even and positive.
	Games int `json:"games" yaml:"games"`
	// Workers is the number of games played at once (default: the number of CPUs). It
	// never changes results.
	Workers int `json:"workers" yaml:"workers"`
	// Depth and Width are the search limits of every game (0 = the game's default).
	Depth int `json:"depth" yaml:"depth"`
	Width int `json:"width" yaml:"width"`
	// MaxPlies adjudicates a still-running game as a draw (0 = a per-game default).
	MaxPlies int `json:"max_plies" yaml:"max_plies"`
	// Elite individuals are carried unchanged into the next generation (generational
	// model with elitism).
	Elite int `json:"elite" yaml:"elite"`
	// Tournament is the number of contestants of tournament selection.
	Tournament int `json:"tournament" yaml:"tournament"`
	// CrossoverRate is the probability that a selected pair is crossed over.
	CrossoverRate float64 `json:"crossover_rate" yaml:"crossover_rate"`
	// MutationRate is the probability that an offspring is mutated.
	MutationRate float64 `json:"mutation_rate" yaml:"mutation_rate"`
	// Mutation sets the size of mutation steps.
	Mutation genomes.Mutation `json:"mutation" yaml:"mutation"`
	// Init is "perturb" (the baseline plus perturbations of it) or "random".
	Init string `json:"init" yaml:"init"`
	// Champions is the number of previous generations' best individuals in the opponent
	// pool besides the baseline.
	Champions int `json:"champions" yaml:"champions"`
	// Free lists fixed genes to tune anyway (e.g. value_6, threat_6 for Connect6).
	Free []string `json:"free,omitempty" yaml:"free"`
	// Opponents are external engines ("cmd:PATH ARGS") added to every generation's opponent
	// pool; their games depend on timing, so a run with them is not reproducible.
	Opponents []string `json:"opponents,omitempty" yaml:"opponents"`
	// OpponentMoveTime bounds each move of an external opponent (default 5 s).
	OpponentMoveTime float64 `json:"opponent_move_time,omitempty" yaml:"opponent_move_time"`
	// VerifyGames is the size of the final verification match of the champion against the
	// baseline on held-out openings (0 = none); it stops early when its SPRT decides.
	VerifyGames int `json:"verify_games" yaml:"verify_games"`
	// VerifyOpenings is "builtin", "random" or an opening file ("" = builtin for Gomoku,
	// random otherwise); openings used in tuning are always excluded.
	VerifyOpenings string `json:"verify_openings,omitempty" yaml:"verify_openings"`
}

// DefaultConfig returns a small real run that finishes in a few minutes on two cores.
func DefaultConfig(game string) Config {
	return Config{
		Game: game, Seed: 1, Population: 10, Generations: 5, Games: 8,
		Workers: runtime.NumCPU(), Elite: 1, Tournament: 3,
		CrossoverRate: 0.5, MutationRate: 0.8, Mutation: genomes.DefaultMutation,
		Init: "perturb", Champions: 2, VerifyGames: 20,
	}
}

// Validate checks every field; the error names the field and the wrong value.
func (c *Config) Validate() error {
	if _, err := genomes.Lookup(c.Game); err != nil {
		return fmt.Errorf("game: %w", err)
	}
	switch {
	case c.Population < 2:
		return fmt.Errorf("population: %d, want at least 2", c.Population)
	case c.Population > 10000:
		return fmt.Errorf("population: %d, want at most 10000", c.Population)
	case c.Generations < 1:
		return fmt.Errorf("generations: %d, want at least 1", c.Generations)
	case c.Games < 2 || c.Games%2 != 0:
		return fmt.Errorf("games: %d, want a positive even number (each opening is played twice, colours swapped)", c.Games)
	case c.Workers < 1:
		return fmt.Errorf("workers: %d, want at least 1", c.Workers)
	case c.Depth < 0 || c.Depth > 20:
		return fmt.Errorf("depth: %d, want 0 (game default) to 20", c.Depth)
	case c.Width < 0:
		return fmt.Errorf("width: %d, want 0 (game default) or more", c.Width)
	case c.MaxPlies < 0:
		return fmt.Errorf("max_plies: %d is negative", c.MaxPlies)
	case c.Elite < 0 || c.Elite >= c.Population:
		return fmt.Errorf("elite: %d, want 0 to population-1 (%d)", c.Elite, c.Population-1)
	case c.Tournament < 1:
		return fmt.Errorf("tournament: %d, want at least 1", c.Tournament)
	case c.CrossoverRate < 0 || c.CrossoverRate > 1:
		return fmt.Errorf("crossover_rate: %g, want 0–1", c.CrossoverRate)
	case c.MutationRate < 0 || c.MutationRate > 1:
		return fmt.Errorf("mutation_rate: %g, want 0–1", c.MutationRate)
	case c.Mutation.GeneRate <= 0 || c.Mutation.GeneRate > 1:
		return fmt.Errorf("mutation.gene_rate: %g, want (0, 1]", c.Mutation.GeneRate)
	case c.Mutation.LogSigma < 0 || c.Mutation.LinearSigma < 0:
		return errors.New("mutation: sigmas must not be negative")
	case c.Init != "perturb" && c.Init != "random":
		return fmt.Errorf("init: %q, want perturb or random", c.Init)
	case c.Champions < 0:
		return fmt.Errorf("champions: %d is negative", c.Champions)
	case c.VerifyGames < 0 || c.VerifyGames%2 != 0:
		return fmt.Errorf("verify_games: %d, want 0 or a positive even number", c.VerifyGames)
	}
	for _, o := range c.Opponents {
		if _, ok, err := protocol.ParseCommand(o); !ok || err != nil {
			return fmt.Errorf("opponents: %q: want cmd:PATH [ARGS]", o)
		}
	}
	e, _ := genomes.Lookup(c.Game)
	if _, err := e.Layout.Free(c.Free...); err != nil {
		return fmt.Errorf("free: %w", err)
	}
	return nil
}

// LoadConfigFile reads a YAML config file over base (keys as in Config's yaml tags).
// Unknown keys and wrong types are errors naming the file, line and key.
func LoadConfigFile(path string, base Config) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return base, fmt.Errorf("config: %w", err)
	}
	return ParseConfig(data, path, base)
}

// ParseConfig decodes YAML config data over base; name is used in error messages.
func ParseConfig(data []byte, name string, base Config) (Config, error) {
	c := base
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && err.Error() != "EOF" {
		return base, fmt.Errorf("config %s: %w", name, err)
	}
	return c, nil
}
