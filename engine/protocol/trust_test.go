package protocol

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestTrustPolicy: a command is allowed only when an entry names it whole: the same
// program (the same string, the same file through a symlink or a relative path, or a bare
// name found on PATH) and the same arguments; a stored spec that is not a command is an
// error naming it.
func TestTrustPolicy(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "pbrain-mine")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(prog, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	allowed := []string{"cmd:" + prog + " --params {weights}", "pbrain-mine --depth 3"}
	for _, c := range []struct {
		argv []string
		want bool
	}{
		{[]string{prog, "--params", "{weights}"}, true},
		{[]string{link, "--params", "{weights}"}, true},              // the same file through a symlink
		{[]string{"pbrain-mine", "--params", "{weights}"}, true},     // a bare name on PATH
		{[]string{prog, "--depth", "3"}, true},                       // the second entry, by PATH
		{[]string{prog, "--params", "other"}, false},                 // other arguments
		{[]string{prog, "--params", "{weights}", "--x"}, false},      // one argument more
		{[]string{prog}, false},                                      // fewer
		{[]string{"/usr/bin/touch", "--params", "{weights}"}, false}, // another program
	} {
		if got := CommandAllowed(c.argv, allowed); got != c.want {
			t.Errorf("CommandAllowed(%q) = %v, want %v", c.argv, got, c.want)
		}
	}
	missing, err := Disallowed([]string{"cmd:" + link + " --params {weights}", "cmd:/usr/bin/touch x"}, allowed)
	if err != nil || !slices.Equal(missing, []string{"cmd:/usr/bin/touch x"}) {
		t.Fatalf("Disallowed: %q, %v", missing, err)
	}
	if _, err := Disallowed([]string{"builtin"}, allowed); err == nil {
		t.Fatal("a spec that is not a command was accepted")
	}
	if _, err := ParseAllowed("   "); err == nil {
		t.Fatal("an empty allow-list entry was accepted")
	}
}
