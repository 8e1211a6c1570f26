package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"evotune/engine"
	"evotune/tuner/config"
)

// signedFlags are the numeric flags that may be negative (a seed is any int64).
var signedFlags = map[string]bool{"seed": true}

// dirFlag annotates an --out flag that names a directory (export-games), not a file.
const dirFlag = "evotune_directory"

// validateFlags is the first step of every command, before it opens a file or plays a
// move: every numeric flag is a finite number and, except signedFlags, not negative; every
// duration is not negative; --db names a file (an empty name would be SQLite's temporary
// database, losing every result); --out names a regular file, a link to one or a new file
// (never a device or a directory). Range checks particular to a flag stay with the command.
func validateFlags(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err == nil {
			err = validateFlag(f)
		}
	})
	return err
}

func validateFlag(f *pflag.Flag) error {
	v := f.Value.String()
	switch f.Value.Type() {
	case "int", "int64":
		n, _ := strconv.ParseInt(v, 10, 64)
		if n < 0 && !signedFlags[f.Name] {
			return fmt.Errorf("--%s: %d is negative", f.Name, n)
		}
	case "float64":
		x, _ := strconv.ParseFloat(v, 64)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("--%s: %s is not a finite number", f.Name, v)
		}
		if x < 0 && !signedFlags[f.Name] {
			return fmt.Errorf("--%s: %s is negative", f.Name, v)
		}
	case "duration":
		if d, _ := time.ParseDuration(v); d < 0 {
			return fmt.Errorf("--%s: %s is negative", f.Name, v)
		}
	}
	switch f.Name {
	case "workers":
		if n, _ := strconv.Atoi(v); n > config.MaxWorkers() {
			return fmt.Errorf("--workers %d: at most %d here (%s): games beyond the cores only wait for them and make every game slower", n, config.MaxWorkers(), config.MaxWorkersText())
		}
	case "book-start":
		if n, _ := strconv.Atoi(v); n < 1 {
			return fmt.Errorf("--book-start %d: want the number of the book's first entry to use, from 1", n)
		}
	case "db":
		if strings.TrimSpace(v) == "" || v == ":memory:" {
			return fmt.Errorf("--db: %q is not a database file name (SQLite would keep the results in memory and lose them); name a file, e.g. evotune.db", v)
		}
	case "out":
		if f.Changed && v != "" && v != "-" && f.Annotations[dirFlag] == nil {
			if _, err := engine.OutputTarget(v); err != nil {
				return fmt.Errorf("--out: %w", err)
			}
		}
	}
	return nil
}
