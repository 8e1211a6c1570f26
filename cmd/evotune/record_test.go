package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"evotune/db"
	"evotune/tuner/record"
)

// TestHallOfFameRecordReplays: a hall-of-fame member's Elo record (its defence games,
// round −2) is what `match` plays from the same openings with the exported weights — tune
// and match play the same games, so the record can be checked by anyone with the
// database (the 1 024 defence openings of a 30-minute gomoku run
// replayed to the record's score exactly).
func TestHallOfFameRecordReplays(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hof.db")
	// admit-z 0: any candidate that scores above the reigning champion is admitted, so
	// the short run has members that reign and defend.
	args := []string{"tune", "--game", "gomoku", "--method", "ga", "--pop", "6", "--generations", "8", "--games", "4",
		"--race-rounds", "0", "--admit-games", "8", "--admit-z", "0", "--depth", "2", "--width", "6",
		"--seed", "5", "--verify-games", "0", "--db", path}
	if out, stderr, code := runIn(t, dir, args...); code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, out, stderr)
	}
	ctx := context.Background()
	d, err := db.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	famers, err := d.HallOfFame(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	gens, err := d.Generations(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Each member's defence openings as text lines, each once (two games, colours
	// swapped, per opening), in the order they were played.
	defence := map[string][]string{}
	for _, g := range gens {
		var openings [][]string
		if err := json.Unmarshal([]byte(g.Openings), &openings); err != nil {
			t.Fatalf("generation %d openings: %v", g.Generation, err)
		}
		games, err := d.Games(ctx, 1, g.Generation)
		if err != nil {
			t.Fatal(err)
		}
		type pair struct {
			individual string
			opening    int
		}
		seen := map[pair]bool{}
		for _, gm := range games {
			if k := (pair{gm.Individual, gm.Opening}); gm.Round == record.DefenceRound && !seen[k] {
				seen[k] = true
				defence[gm.Individual] = append(defence[gm.Individual], strings.Join(openings[gm.Opening], " "))
			}
		}
	}
	var members []db.FamerRow
	for _, h := range famers {
		if h.Games > 0 {
			members = append(members, h)
		}
	}
	if len(members) == 0 {
		t.Fatal("no hall-of-fame member has a record: the run never tested a reigning champion")
	}
	wdl := regexp.MustCompile(`A: W (\d+)\s+D (\d+)\s+L (\d+)`)
	for _, m := range members {
		lines := defence[m.ID]
		if 2*len(lines) != m.Games {
			t.Fatalf("%s: record of %d games, %d defence openings stored", m.ID, m.Games, len(lines))
		}
		file := writeFile(t, dir, m.ID+".txt", strings.Join(lines, "\n")+"\n")
		weights := filepath.Join(dir, m.ID+".json")
		if _, stderr, code := runIn(t, dir, "export", "1", "--individual", m.ID, "--out", weights, "--db", path); code != 0 {
			t.Fatalf("export %s: %s", m.ID, stderr)
		}
		out, stderr, code := runIn(t, dir, "match", "--game", "gomoku", "--a", weights, "--b", "default",
			"--openings", file, "--games", fmt.Sprint(m.Games), "--depth", "2", "--width", "6")
		got := wdl.FindStringSubmatch(out)
		if code != 0 || got == nil {
			t.Fatalf("match %s: exit %d\n%s\n%s", m.ID, code, out, stderr)
		}
		if want := fmt.Sprintf("W %d D %d L %d", m.Wins, m.Draws, m.Losses); fmt.Sprintf("W %s D %s L %s", got[1], got[2], got[3]) != want {
			t.Errorf("%s: record %s, match on its defence openings %s", m.ID, want, got[0])
		}
	}
	t.Logf("%d members' records replayed", len(members))
}
