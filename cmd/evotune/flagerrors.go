package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagError words what the flag parser refused for people: a value of the wrong kind
// names the flag, the value and what it takes ("--budget-games abc: want a whole number"),
// and an unknown flag the known ones closest to it (cobra suggests commands, not flags).
func flagError(cmd *cobra.Command, err error) error {
	var invalid *pflag.InvalidValueError
	var unknown *pflag.NotExistError
	switch {
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		v := invalid.GetValue()
		if strings.TrimSpace(v) == "" {
			v = strconv.Quote(v)
		}
		if kind, ok := valueKind(f.Value.Type()); ok && !isOwnFlag(f) {
			return fmt.Errorf("--%s %s: want %s", f.Name, v, kind)
		}
		return fmt.Errorf("--%s: %w", f.Name, errors.Unwrap(invalid)) // a value of the program's own type says why
	case errors.As(err, &unknown) && unknown.GetSpecifiedName() != "":
		name := unknown.GetSpecifiedName()
		msg := fmt.Sprintf("unknown flag --%s for %q", name, cmd.CommandPath())
		if near := nearFlags(cmd, name); len(near) > 0 {
			msg += "; did you mean --" + strings.Join(near, " or --") + "?"
		}
		return fmt.Errorf("%s (see %s --help)", msg, cmd.CommandPath())
	}
	return err
}

// valueKind is what a flag of pflag's type typ takes, in words (ok false: a type of the
// program's own, whose parse error says it).
func valueKind(typ string) (kind string, ok bool) {
	switch typ {
	case "int", "int64", "int32", "uint", "uint64":
		return "a whole number", true
	case "float64", "float32":
		return "a number", true
	case "duration":
		return "a duration such as 90s, 5m or 1h30m", true
	case "bool":
		return "true or false", true
	case "intSlice":
		return "whole numbers separated by commas", true
	}
	return "", false
}

// nearFlags are cmd's flags (its own and those it inherits, hidden ones left out) within
// two edits of name, or that name is a prefix of, closest first.
func nearFlags(cmd *cobra.Command, name string) []string {
	best, out := 3, []string(nil)
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(name, f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		switch {
		case d < best:
			best, out = d, []string{f.Name}
		case d == best && len(out) < 3:
			out = append(out, f.Name)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return out
}

// editDistance is the Levenshtein distance between a and b (insertions, deletions and
// substitutions of bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// isOwnFlag reports whether f's value is of a type of this program (secondsFlag), whose
// parse errors say what is wrong better than a type's name.
func isOwnFlag(f *pflag.Flag) bool {
	_, ok := f.Value.(secondsFlag)
	return ok
}

// renamedAnnotation is the annotation of a flag that lists its earlier names (renameFlag).
const renamedAnnotation = "evotune_renamed_from"

// renameFlag keeps old, an earlier name of flag name, working: the same value, hidden from
// --help, and a note on stderr naming the new name when it is used, so that a script
// written for an earlier build still runs while every command shows one vocabulary.
func renameFlag(f *pflag.FlagSet, old, name string) {
	nf := f.Lookup(name)
	if nf == nil || old == "" {
		return
	}
	f.AddFlag(&pflag.Flag{Name: old, Usage: "the earlier name of --" + name, Value: nf.Value, DefValue: nf.DefValue,
		NoOptDefVal: nf.NoOptDefVal, Hidden: true, Deprecated: "it is now --" + name})
	if nf.Annotations == nil {
		nf.Annotations = map[string][]string{}
	}
	nf.Annotations[renamedAnnotation] = append(nf.Annotations[renamedAnnotation], old)
}

// flagChanged is f.Changed that also counts a flag given by an earlier name (renameFlag).
func flagChanged(f *pflag.FlagSet) func(name string) bool {
	return func(name string) bool {
		if f.Changed(name) {
			return true
		}
		if nf := f.Lookup(name); nf != nil {
			for _, old := range nf.Annotations[renamedAnnotation] {
				if f.Changed(old) {
					return true
				}
			}
		}
		return false
	}
}
