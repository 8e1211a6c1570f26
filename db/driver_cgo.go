//go:build cgo

package db

import (
	"errors"
	"net/url"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// driverName is github.com/mattn/go-sqlite3's database/sql driver: SQLite's C library
// through cgo, the driver of every release archive.
const driverName = "sqlite3"

// setPragma sets a connection setting as the driver's data source name spells it
// (go-sqlite3's _busy_timeout, _foreign_keys, _journal_mode, _synchronous).
func setPragma(q url.Values, pragma, value string) { q.Set("_"+pragma, value) }

// sqliteCode is err's SQLite primary result code, if err is the driver's error.
func sqliteCode(err error) (int, bool) {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return 0, false
	}
	return int(se.Code), true
}
