package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// keyPaths lists every key path of a JSON document: object keys joined by '.', array
// elements as "[]" (e.g. "games[].record.moves[]"), each once, sorted.
func keyPaths(v any) []string {
	set := map[string]bool{}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				p := k
				if at != "" {
					p = at + "." + k
				}
				set[p] = true
				walk(e, p)
			}
		case []any:
			for _, e := range x {
				walk(e, at+"[]")
			}
		}
	}
	walk(v, "")
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestJSONSchema: every command's --json output has exactly the keys docs/json.md lists
// for it (a key renamed, added or dropped fails here until the document says so). With
// EVOTUNE_UPDATE_JSON_DOC=1 it rewrites the lists instead.
func TestJSONSchema(t *testing.T) {
	dir := t.TempDir()
	tiny := []string{"tune", "--game", "gomoku", "--method", "ga", "--pop", "4", "--games", "4", "--generations", "1", "--verify-games", "4", "--admit-games", "4", "--depth", "2"}
	if _, stderr, code := runIn(t, dir, tiny...); code != 0 {
		t.Fatalf("setup tune: %s", stderr)
	}
	// Run 2 has no hall of fame: its champion is a race winner, so its verification is
	// played (run 1's champion is the paper's weights, which are never verified); seed 3
	// makes a tuned individual the race winner.
	if _, stderr, code := runIn(t, dir, append(tiny, "--admit-games", "0", "--seed", "3", "--name", "measured")...); code != 0 {
		t.Fatalf("setup tune: %s", stderr)
	}
	commands := []struct {
		name string
		args []string
	}{
		{"weights layout", []string{"weights", "layout", "--game", "gomoku", "--json"}},
		{"perft", []string{"perft", "--game", "gomoku", "--depth", "1", "--json"}},
		{"play", []string{"play", "--game", "gomoku", "--depth", "1", "--max-plies", "4", "--json"}},
		{"bench", []string{"bench", "--game", "gomoku", "--depth", "2", "--json"}},
		{"runs", []string{"runs", "--json"}},
		{"generations", []string{"generations", "1", "--json"}},
		{"individual", []string{"individual", "1-g0-00", "--json"}},
		{"lineage", []string{"lineage", "1-g1-02", "--json"}},
		{"match", []string{"match", "--game", "gomoku", "--games", "2", "--depth", "1", "--sprt", "--json"}},
		{"tournament", []string{"tournament", "--game", "gomoku", "--depth", "1", "--rounds", "1", "--engine", "weights=default", "--engine", "name=b weights=default", "--json"}},
		{"verify", []string{"verify", "2", "--games", "2", "--verify-depth", "2", "--json"}},
		{"sensitivity", []string{"sensitivity", "--game", "gomoku", "--genes", "k1", "--games", "2", "--depth", "1", "--json"}},
		{"compare", []string{"compare", "--game", "gomoku", "--depth", "1", "--seeds", "1", "--budget-games", "16", "--verify-games", "2", "--json"}},
	}
	got := map[string][]string{}
	for _, c := range commands {
		out, stderr, code := runIn(t, dir, c.args...)
		var v any
		if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
			t.Fatalf("%s: exit %d, %s %s", c.name, code, out, stderr)
		}
		got[c.name] = keyPaths(v)
	}
	const doc = "../../docs/json.md"
	text, err := os.ReadFile(doc)
	if err != nil && os.Getenv("EVOTUNE_UPDATE_JSON_DOC") == "" {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```keys ([a-z ]+)\n(.*?)```")
	if os.Getenv("EVOTUNE_UPDATE_JSON_DOC") != "" {
		s := string(text)
		for _, c := range commands {
			want := "```keys " + c.name + "\n" + strings.Join(got[c.name], "\n") + "\n```"
			re := regexp.MustCompile("(?s)```keys " + regexp.QuoteMeta(c.name) + "\n.*?```")
			if re.MatchString(s) {
				s = re.ReplaceAllLiteralString(s, want)
			} else {
				s += fmt.Sprintf("\n### `evotune %s --json`\n%s\n", c.name, want)
			}
		}
		if err := os.WriteFile(doc, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	documented := map[string][]string{}
	for _, m := range block.FindAllStringSubmatch(string(text), -1) {
		documented[m[1]] = strings.Fields(m[2])
	}
	for _, c := range commands {
		if strings.Join(got[c.name], " ") != strings.Join(documented[c.name], " ") {
			t.Errorf("evotune %s --json: keys differ from %s\nactual:\n%s\ndocumented:\n%s", c.name, doc, strings.Join(got[c.name], "\n"), strings.Join(documented[c.name], "\n"))
		}
	}
}
