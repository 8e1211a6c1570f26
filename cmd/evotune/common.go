package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/runview"
)

// gameOpts are the flags every game command shares.
type gameOpts struct {
	game string
	rule string
}

// resolveGame looks the game up and applies a rule variant.
func resolveGame(o gameOpts) (engine.Game, genomes.Entry, error) {
	if o.game == "" {
		return nil, genomes.Entry{}, fmt.Errorf("--game is required (one of %v)", genomes.Names())
	}
	e, err := genomes.Lookup(o.game)
	if err != nil {
		return nil, e, err
	}
	g, err := engine.WithRule(e.Game, o.rule)
	if err != nil {
		return nil, e, fmt.Errorf("--rule: %w", err)
	}
	return g, e, nil
}

func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	// encoding/json escapes C0 controls but writes C1 controls and format characters
	// (U+202E and the other bidirectional controls) raw: write them as \uXXXX too, the
	// same JSON value, harmless on a terminal.
	_, err := io.WriteString(w, runview.SafeJSON(buf.String()))
	return err
}
