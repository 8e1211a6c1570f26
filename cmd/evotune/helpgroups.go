package main

import (
	"evotune/tuner/config"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// groupAnnotation is the flag annotation naming the concern --help shows a flag under.
const groupAnnotation = "evotune_group"

// setGroup puts flag name of fs under group in --help.
func setGroup(fs *pflag.FlagSet, name, group string) {
	fs.SetAnnotation(name, groupAnnotation, []string{group})
}

// groupedUsageTemplate is cobra's usage template with the command's own flags shown by
// concern (groupedFlags) instead of in one alphabetical block.
const groupedUsageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableLocalFlags}}{{groupedFlags .LocalFlags}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}
`

func init() { cobra.AddTemplateFunc("groupedFlags", groupedFlags) }

// groupFlags makes c's --help show its flags by concern: the groups of config.Groups, in
// that order, then "several machines" and "other" for flags of no group.
func groupFlags(c *cobra.Command) { c.SetUsageTemplate(groupedUsageTemplate) }

// groupedFlags writes fs's flags under a heading per group ("Budget flags:"), the groups
// in config.Groups' order, then the cluster's, then the flags of no group.
func groupedFlags(fs *pflag.FlagSet) string {
	order := append(append([]string(nil), config.Groups...), clusterGroup, "")
	byGroup := map[string]*pflag.FlagSet{}
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		g := ""
		if a := f.Annotations[groupAnnotation]; len(a) > 0 {
			g = a[0]
		}
		if byGroup[g] == nil {
			byGroup[g] = pflag.NewFlagSet(g, pflag.ContinueOnError)
			byGroup[g].SortFlags = fs.SortFlags
		}
		byGroup[g].AddFlag(f)
	})
	var b strings.Builder
	for _, g := range order {
		set := byGroup[g]
		if set == nil {
			continue
		}
		title := "Other flags"
		if g != "" {
			title = strings.ToUpper(g[:1]) + g[1:] + " flags"
		}
		b.WriteString("\n\n" + title + ":\n" + strings.TrimRight(set.FlagUsages(), " \n"))
	}
	return b.String()
}

// clusterGroup is the group of the flags that spread games over several machines.
const clusterGroup = "several machines"
