//go:build unix

package main

import (
	"syscall"
	"testing"
)

// mkfifo makes a named pipe at path for the tests that write to non-regular files.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}
