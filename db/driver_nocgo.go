//go:build !cgo

package db

import (
	"errors"
	"net/url"

	"modernc.org/sqlite"
)

// driverName is modernc.org/sqlite's database/sql driver: SQLite translated to Go, for a
// build without cgo (CGO_ENABLED=0, as a macOS binary cross-built without Apple's SDK).
const driverName = "sqlite"

// setPragma sets a connection setting as the driver's data source name spells it
// (modernc.org/sqlite's _pragma=NAME(VALUE), run on every new connection).
func setPragma(q url.Values, pragma, value string) { q.Add("_pragma", pragma+"("+value+")") }

// sqliteCode is err's SQLite primary result code (the low byte of the extended code the
// driver keeps), if err is the driver's error.
func sqliteCode(err error) (int, bool) {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return 0, false
	}
	return se.Code() & 0xff, true
}
