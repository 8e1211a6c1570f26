package protocol

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The trust policy for engine commands that come from elsewhere (a stored run's
// configuration, a task published on a cluster broker): a command runs only if an
// allow-list entry names it whole, the same program and the same arguments.

// ParseAllowed reads an allow-list entry (--allow-engine): "cmd:PROG ARGS" or "PROG ARGS",
// as an argument vector; the error names an entry without a program.
func ParseAllowed(a string) ([]string, error) {
	if argv, ok, err := ParseCommand(a); ok {
		return argv, err
	}
	argv := strings.Fields(a)
	if len(argv) == 0 {
		return nil, fmt.Errorf("no program")
	}
	return argv, nil
}

// CommandAllowed reports whether argv is one of the allowed command lines, compared whole:
// the same program (the same file once paths are resolved, see ProgramAllowed) and the
// same arguments, one for one. Trusting "evotune engine --game gomoku" does not run
// "evotune match --a cmd:/usr/bin/touch …".
func CommandAllowed(argv []string, allowed []string) bool {
	for _, a := range allowed {
		want, err := ParseAllowed(a)
		if err != nil || len(want) != len(argv) || !ProgramAllowed(argv[0], want[:1]) {
			continue
		}
		if slices.Equal(want[1:], argv[1:]) {
			return true
		}
	}
	return false
}

// ProgramAllowed reports whether prog is one of allowed: the same string, or the same
// file (absolute paths with symlinks resolved, PATH lookups for bare names).
func ProgramAllowed(prog string, allowed []string) bool {
	resolve := func(p string) string {
		if lp, err := exec.LookPath(p); err == nil {
			p = lp
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return p
	}
	want := resolve(prog)
	for _, a := range allowed {
		if a == prog || resolve(a) == want {
			return true
		}
	}
	return false
}

// Disallowed returns the engine commands of specs ("cmd:PROG ARGS" each) that allowed
// does not name whole (CommandAllowed), in order; the error names a spec that is not such
// a command.
func Disallowed(specs, allowed []string) ([]string, error) {
	var out []string
	for _, s := range specs {
		argv, ok, err := ParseCommand(s)
		if err != nil || !ok {
			return nil, fmt.Errorf("engine %q: want cmd:PATH [ARGS]", s)
		}
		if !CommandAllowed(argv, allowed) {
			out = append(out, s)
		}
	}
	return out, nil
}
