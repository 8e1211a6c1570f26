//go:build unix

package db

import "golang.org/x/sys/unix"

// writable reports whether this process may write both path and its directory (where
// SQLite creates the -wal and -shm files).
func writable(path string) bool {
	dir := dirOf(path)
	if dir == "" {
		dir = "."
	}
	return unix.Access(path, unix.W_OK) == nil && unix.Access(dir, unix.W_OK) == nil
}
