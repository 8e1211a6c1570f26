//go:build !linux

package wire

import "os/exec"

// dieWithReferee: outside Linux there is no parent-death signal; an engine is stopped by
// closing its input and by Close's kill.
func dieWithReferee(*exec.Cmd) {}
