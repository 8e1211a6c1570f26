//go:build !unix

package db

import "os"

// writable reports whether this process may write path (opened for writing and closed at
// once; nothing is written). Systems without access(2) (Windows) have no cheaper test; the
// directory is taken as writable, as SQLite finds out when it creates the -wal file.
func writable(path string) bool {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
