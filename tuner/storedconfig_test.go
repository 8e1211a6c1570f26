package tuner

import (
	"encoding/json"
	"evotune/tuner/config"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestStoredConfigsLoad reads configurations as runs stored them — testdata/configs holds
// the runs table's config column written by the builds that introduced each database
// schema (schemaN.json) and by this layout of Config's sections for every method, an
// Amazons run, an outside Gomocup engine and a UCI engine (runN.json). Each decodes; every
// stored key reads back with its value when the configuration is encoded again, and a key
// the old build did not write is encoded as its zero value; a built-in game's
// configuration validates and plans.
func TestStoredConfigsLoad(t *testing.T) {
	files, err := filepath.Glob("testdata/configs/*.json")
	if err != nil || len(files) < 14 {
		t.Fatalf("%d stored configurations (%v), want the 9 schemas' and the 7 runs'", len(files), err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			c, err := config.DecodeConfig(string(data))
			if err != nil {
				t.Fatal(err)
			}
			again, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			var stored, encoded map[string]any
			if err := json.Unmarshal(data, &stored); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(again, &encoded); err != nil {
				t.Fatal(err)
			}
			for k, v := range stored {
				if !reflect.DeepEqual(encoded[k], v) {
					t.Errorf("key %s: stored %v, encoded again %v", k, v, encoded[k])
				}
			}
			for k, v := range encoded {
				if _, ok := stored[k]; !ok && v != nil && !reflect.ValueOf(v).IsZero() {
					t.Errorf("key %s: not stored, encoded as %v (want its zero value)", k, v)
				}
			}
			if c.Engine != "" {
				return // the engine's program is not here to check
			}
			c.Resolve()
			if err := c.Validate(); err != nil {
				t.Fatalf("validate: %v", err)
			}
			if _, err := c.Plan(); err != nil {
				t.Fatalf("plan: %v", err)
			}
		})
	}
}
