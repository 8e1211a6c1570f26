package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"evotune/db"
	"evotune/engine"
	"evotune/genomes"
	"evotune/tuner/runview"
)

// installCompletions adds dynamic shell completion ('evotune completion bash|zsh|fish|
// powershell' prints the script): game names and rule variants for --game and --rule,
// choices of enumerated flags, run IDs (with name, game and status) for commands that take
// RUN, and individual IDs for commands that take ID, read from the --db file (read-only).
// ruleNames lists the rule variants of every registered game (engine.Ruled), once each.
func ruleNames() []string {
	var names []string
	for _, n := range genomes.Offering[engine.Ruled]() {
		e, _ := genomes.Lookup(n)
		for _, rule := range e.Game.(engine.Ruled).Rules() {
			if !slices.Contains(names, rule) {
				names = append(names, rule)
			}
		}
	}
	return names
}

func installCompletions(root *cobra.Command) {
	choices := map[string][]string{
		"game":         genomes.Names(),
		"rule":         ruleNames(),
		"table":        runview.ExportTables,
		"format":       {"csv", "jsonl"},
		"opening-rule": {"swap2", "swap3"},
		"init":         {"perturb", "random"},
		"scan":         {"global", "local", "both"},
		"what":         runview.Plots,
	}
	runArg := map[string]bool{"generations": true, "export": true, "verify": true, "resume": true, "export-data": true, "export-games": true, "plot": true}
	idArg := map[string]bool{"individual": true, "lineage": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name, values := range choices {
			if c.Flags().Lookup(name) != nil {
				vals := values
				c.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
					return vals, cobra.ShellCompDirectiveNoFileComp
				})
			}
		}
		// Gene lists (sensitivity --genes, tune --fix/--free): the --game's layout.
		for _, name := range []string{"genes", "fix", "free"} {
			if c.Flags().Lookup(name) != nil && c.Flags().Lookup("game") != nil {
				c.RegisterFlagCompletionFunc(name, geneNames)
			}
		}
		switch {
		case runArg[c.Name()]:
			c.ValidArgsFunction = fromDB(runIDs)
		case idArg[c.Name()]:
			c.ValidArgsFunction = fromDB(individualIDs)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// geneNames completes a gene list flag with the genes of the command's --layout file, or
// else of its --game.
func geneNames(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	var layout *genomes.Layout
	if path, _ := cmd.Flags().GetString("layout"); path != "" {
		if f, err := genomes.LoadLayoutFile(path); err == nil {
			layout = f.Layout()
		}
	} else {
		game, _ := cmd.Flags().GetString("game")
		if e, err := genomes.Lookup(game); err == nil {
			layout = e.Layout
		}
	}
	if layout == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, g := range layout.Genes {
		names = append(names, g.Name)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// completionDB opens the command's --db read-only (nil when it cannot).
func completionDB(cmd *cobra.Command) *db.DB {
	path, err := cmd.Flags().GetString("db")
	if err != nil || path == "" {
		path = "evotune.db"
	}
	d, err := db.OpenReadOnly(context.Background(), path)
	if err != nil {
		return nil
	}
	return d
}

// fromDB completes the first argument from the command's database with list (nothing
// when there is no database or the argument is given).
func fromDB(list func(d *db.DB, toComplete string) []string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		d := completionDB(cmd)
		if d == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer d.Close()
		return list(d, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// runIDs are the runs whose ID starts with toComplete, described by name, game and status.
func runIDs(d *db.DB, toComplete string) []string {
	runs, err := d.Runs(context.Background())
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range runs {
		if id := fmt.Sprint(r.ID); strings.HasPrefix(id, toComplete) {
			out = append(out, fmt.Sprintf("%s\t%s (%s, %s)", id, r.Name, r.Game, r.Status))
		}
	}
	return out
}

// individualIDs are the individuals whose ID starts with toComplete, with their operator.
func individualIDs(d *db.DB, toComplete string) []string {
	ids, err := d.IndividualIDs(context.Background(), toComplete, 1000)
	if err != nil {
		return nil
	}
	var out []string
	for _, x := range ids {
		out = append(out, x[0]+"\t"+x[1])
	}
	return out
}

// gameFlagHelp is the --game flag's help, naming the registered games (genomes.Names).
func gameFlagHelp() string {
	names := genomes.Names()
	if len(names) < 2 {
		return "game: " + strings.Join(names, "")
	}
	return "game: " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
