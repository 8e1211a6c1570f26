package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

func newDocsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "docs DIR",
		Short: "Write the reference of every command and flag as Markdown files into DIR (docs/reference in the repository)",
		Long: "docs writes one Markdown file per command (evotune.md, evotune_tune.md, …) from the commands themselves:\n" +
			"their usage, description, examples and every flag with its default. The repository keeps them in\n" +
			"docs/reference; a test fails when they differ from what the program says. Defaults that depend on\n" +
			"the machine (the number of CPUs) are written as such.",
		Args:    cobra.ExactArgs(1),
		Example: "  evotune docs docs/reference",
		RunE: func(cmd *cobra.Command, args []string) error {
			return writeReference(args[0], cmd.OutOrStdout())
		},
	}
}

// writeReference writes the reference of a fresh command tree into dir (created), one
// Markdown file per command, and removes the files of commands that no longer exist.
func writeReference(dir string, out io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("docs: %w", err)
	}
	root := referenceTree()
	old, _ := filepath.Glob(filepath.Join(dir, "evotune*.md"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return fmt.Errorf("docs: %w", err)
		}
	}
	if err := doc.GenMarkdownTree(root, dir); err != nil {
		return fmt.Errorf("docs: %w", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "evotune*.md"))
	fmt.Fprintf(out, "wrote the reference of %d commands to %s\n", len(files), dir)
	return nil
}

// referenceTree is the command tree as the reference shows it: no generation date, and
// defaults that are this machine's (its number of CPUs) named as such, so that every
// machine writes the same files.
func referenceTree() *cobra.Command {
	root := newRootCmd()
	root.DisableAutoGenTag = true
	cpus := strconv.Itoa(runtime.NumCPU())
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if f.DefValue == cpus && (f.Name == "workers" || f.Name == "concurrency" || strings.Contains(f.Usage, "CPU")) {
					f.DefValue = "this machine's CPUs"
				}
			})
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return root
}
