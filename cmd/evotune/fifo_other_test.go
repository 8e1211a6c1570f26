//go:build !unix

package main

import "testing"

// mkfifo skips the test where named pipes cannot be made in the file system (Windows).
func mkfifo(t *testing.T, path string) {
	t.Helper()
	t.Skip("no named pipes in the file system here:", path)
}
