package runstore

import (
	"context"
	"fmt"

	"evotune/db"
	"evotune/tuner/config"
)

// RunName picks the run's name: the user's, refused if a run of the database has it, or
// else the first free one of GAME-seedS, GAME-seedS-2, … (names are unique in the schema).
func RunName(ctx context.Context, d *db.DB, cfg config.Config) (string, error) {
	if cfg.Name != "" {
		id, err := d.RunNamed(ctx, cfg.Name)
		if err != nil {
			return "", err
		}
		if id != 0 {
			return "", fmt.Errorf("--name %q: run %d of %s already has this name; choose another, or continue that run with 'evotune resume %d'", cfg.Name, id, d.Path(), id)
		}
		return cfg.Name, nil
	}
	base := fmt.Sprintf("%s-seed%d", cfg.Game, cfg.Seed)
	for n := 1; ; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		id, err := d.RunNamed(ctx, name)
		if err != nil || id == 0 {
			return name, err
		}
	}
}
