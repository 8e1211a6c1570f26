// Package db is evotune's SQLite storage (github.com/mattn/go-sqlite3, which needs cgo; a
// build without cgo uses modernc.org/sqlite, the same SQLite translated to Go): the schema,
// embedded and versioned with PRAGMA user_version; WAL mode so readers never block the
// writer; one writer connection with immediate transactions; read-only connections for
// inspection; and typed writes and queries for runs, generations, individuals, games and
// lineage. Each generation is written in one transaction, so a crash loses at most the
// generation in progress.
package db

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

//go:embed schema/*.sql
var schemaFS embed.FS

// SchemaVersion is the schema version this program writes (PRAGMA user_version).
const SchemaVersion = 12

// MinReadableVersion is the oldest schema read-only commands read as it is: version 7
// renamed generations.rng_state to method_state, which every read of a generation selects,
// so an older file is refused with the command that upgrades it.
const MinReadableVersion = 7

// DB is an open evotune database.
type DB struct {
	sql      *sql.DB
	path     string
	readOnly bool
	cleanup  func() // removes a private copy (openSnapshot), if any
	// schema is a read-only file's schema version (MinReadableVersion or later), so that
	// readers leave out the columns it lacks; 0 for a file Open upgraded to SchemaVersion.
	schema int

	mu    sync.Mutex
	owner map[int64]int // run ID → the PID this connection created or claimed it under
}

// ErrNotFound is returned (wrapped, with the ID) when a run or individual does not exist.
var ErrNotFound = errors.New("not found")

// dsn is the data source name that opens path: read-only (immutable: without locks or
// shared memory) or for writing (WAL, immediate transactions, FULL synchronous), always
// with a busy timeout of 10 s and foreign keys on. The driver (driver_cgo.go,
// driver_nocgo.go) spells the connection settings its own way.
func dsn(path string, readOnly, immutable bool) string {
	q := url.Values{}
	setPragma(q, "busy_timeout", "10000")
	setPragma(q, "foreign_keys", "on")
	if readOnly {
		q.Set("mode", "ro")
		if immutable {
			q.Set("immutable", "1")
		}
	} else {
		setPragma(q, "journal_mode", "WAL")
		q.Set("_txlock", "immediate")
		// FULL: a committed generation survives a power cut (one fsync per generation).
		setPragma(q, "synchronous", "FULL")
	}
	// In a file: URI, '?' starts the query and '#' a fragment: escape them (and '%') so
	// that every file name means that file.
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + esc + "?" + q.Encode()
}

// SQLite's primary result codes (sqlite3.h) that explain and readOnlyError tell apart.
const (
	codeBusy     = 5
	codeLocked   = 6
	codeReadOnly = 8
	codeCorrupt  = 11
	codeCantOpen = 14
	codeNotADB   = 26
)

// checkPath refuses names that are not a database file: "" and ":memory:" open SQLite
// databases that vanish with the connection (every result lost, exit 0), and an existing
// path that is not a regular file (a directory, /dev/null) cannot hold one.
func checkPath(path string) error {
	if strings.TrimSpace(path) == "" || path == ":memory:" {
		return fmt.Errorf("database %q: not a file name (SQLite would keep the results in memory and lose them)", path)
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("database %s: not a regular file (%v)", path, fi.Mode().Type())
	}
	return nil
}

// Open opens (creating if needed) the database at path for writing and brings its schema
// up to date. Errors name the file: not a database, a schema newer than this program, a
// read-only file or directory.
func Open(ctx context.Context, path string) (*DB, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if dir := dirOf(path); dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("database %s: directory: %w", path, err)
		}
	}
	s, err := sql.Open(driverName, dsn(path, false, false))
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	s.SetMaxOpenConns(1) // one writer
	d := &DB{sql: s, path: path}
	// A connection that opens while another process closes the database's last connection
	// (SQLite then checkpoints and removes the WAL under an exclusive lock) or sets it to
	// WAL is told "busy" at once, before any busy timeout applies: tried again for up to
	// busyRetry.
	for deadline := time.Now().Add(busyRetry); ; {
		err = d.migrate(ctx)
		if err == nil {
			return d, nil
		}
		code, _ := sqliteCode(err)
		if (code != codeBusy && code != codeLocked) || time.Now().After(deadline) || ctx.Err() != nil {
			s.Close()
			return nil, fmt.Errorf("database %s: %w", path, explain(err))
		}
		time.Sleep(time.Duration(10+rand.IntN(40)) * time.Millisecond)
	}
}

// busyRetry is how long Open tries again a database that is busy as it opens.
const busyRetry = 10 * time.Second

// OpenReadOnly opens an existing database for reading: it never writes, and never waits
// for a running tune (WAL readers do not block). A database that cannot be written — the
// file or its directory read-only, or another user's, so that SQLite cannot create the
// WAL's shared-memory file — is opened immutable (SQLite's immutable=1: no locks, no
// shared memory); no process can be writing such a file. When such a database still has a
// write-ahead log (a writer killed before its checkpoint), immutable mode would not read
// the log, so the file and its log are copied to a private temporary directory, read
// there, and the copy removed by Close. Errors name the file.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	d, v, err := openRead(ctx, path, path, false)
	if err != nil && readOnlyError(err) && !writable(path) {
		if fi, werr := os.Stat(path + "-wal"); werr == nil && fi.Size() > 0 {
			d, v, err = openSnapshot(ctx, path)
		} else {
			d, v, err = openRead(ctx, path, path, true)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", path, explain(err))
	}
	s := d.sql
	switch {
	case v > SchemaVersion:
		s.Close()
		return nil, fmt.Errorf("database %s: schema version %d is newer than this program's (%d); upgrade evotune", path, v, SchemaVersion)
	case v == 0:
		s.Close()
		return nil, fmt.Errorf("database %s: not an evotune database (an SQLite file without evotune's tables); 'evotune tune --db %s' creates them", path, path)
	case v < MinReadableVersion:
		s.Close()
		return nil, fmt.Errorf("database %s: schema version %d is older than this program's (%d); open it once with 'evotune tune' to upgrade", path, v, SchemaVersion)
	}
	return d, nil
}

// openRead opens file read-only (immutable: without locks or shared memory) and reads its
// schema version; path is the name the user gave.
func openRead(ctx context.Context, path, file string, immutable bool) (*DB, int, error) {
	s, err := sql.Open(driverName, dsn(file, true, immutable))
	if err != nil {
		return nil, 0, err
	}
	d := &DB{sql: s, path: path, readOnly: true}
	v, err := d.version(ctx)
	if err != nil {
		s.Close()
		return nil, 0, err
	}
	d.schema = v
	return d, v, nil
}

// openSnapshot copies path and its -wal file to a new temporary directory and opens the
// copy read-only; Close removes the directory.
func openSnapshot(ctx context.Context, path string) (*DB, int, error) {
	dir, err := os.MkdirTemp("", "evotune-read-")
	if err != nil {
		return nil, 0, err
	}
	file := filepath.Join(dir, "snapshot.db")
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(path+suffix, file+suffix); err != nil {
			os.RemoveAll(dir)
			return nil, 0, fmt.Errorf("reading a copy of the read-only database and its log: %w", err)
		}
	}
	d, v, err := openRead(ctx, path, file, false)
	if err != nil {
		os.RemoveAll(dir)
		return nil, 0, err
	}
	d.cleanup = func() { os.RemoveAll(dir) }
	return d, v, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// readOnlyError reports whether err is SQLite's "attempt to write a readonly database" or
// "unable to open database file", what a WAL reader gets when it may not create the -shm
// file.
func readOnlyError(err error) bool {
	code, ok := sqliteCode(err)
	return ok && (code == codeReadOnly || code == codeCantOpen)
}

func dirOf(path string) string {
	i := strings.LastIndex(path, "/")
	if i <= 0 {
		return ""
	}
	return path[:i]
}

// explain turns SQLite's terse errors into messages a user can act on.
func explain(err error) error {
	if code, ok := sqliteCode(err); ok {
		switch code {
		case codeNotADB:
			return fmt.Errorf("not an SQLite database (or it is corrupt): %w", err)
		case codeCorrupt:
			return fmt.Errorf("the database is corrupt or truncated: %w", err)
		case codeReadOnly:
			return fmt.Errorf("the database or its directory is read-only: %w", err)
		case codeCantOpen:
			return fmt.Errorf("cannot open the database file (missing directory or no permission): %w", err)
		case codeBusy, codeLocked:
			return fmt.Errorf("the database is busy: %w", err)
		}
	}
	return err
}

// Close closes the database. When the last connection to a WAL database closes, SQLite
// checkpoints and removes the WAL under an exclusive lock; a reader without a busy timeout
// (a plain sqlite3 shell) that starts in that instant fails with "database is locked". A
// process that is about to exit after its last commit may therefore leave a writer open
// (see Release): the WAL stays valid and the next connection reads it.
func (d *DB) Close() error {
	err := d.sql.Close()
	if d.cleanup != nil {
		d.cleanup()
	}
	return err
}

// Release is for a process about to exit: it does not close the writer connection, so no
// end-of-process checkpoint takes an exclusive lock while other processes read (see Close).
// Every write is already committed; nothing is lost. Read-only databases are closed.
func (d *DB) Release() {
	if d.readOnly {
		d.Close()
		return
	}
	// Copy the WAL into the main file (a passive checkpoint never takes the exclusive
	// lock), so a copy of the .db file alone holds every committed generation.
	d.sql.Exec("PRAGMA wal_checkpoint(PASSIVE)")
}

// Path returns the file name.
func (d *DB) Path() string { return d.path }

// SQL exposes the connection pool for read-only ad-hoc queries in tests and tools.
func (d *DB) SQL() *sql.DB { return d.sql }

func (d *DB) version(ctx context.Context) (int, error) {
	var v int
	err := d.sql.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// migrate applies schema/NNN_*.sql files above the current user_version, each in one
// immediate transaction that reads the version, applies the next file and sets the version:
// several processes opening one new database at once take turns, and each file is applied
// once (the version read outside the transaction let two apply the same file).
func (d *DB) migrate(ctx context.Context) error {
	// A database already at this program's schema takes no write lock (one that cannot be
	// written still opens, as before).
	if v, err := d.version(ctx); err == nil && v == SchemaVersion {
		return nil
	}
	files, err := fs.Glob(schemaFS, "schema/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(files)
	for {
		done, err := d.migrateStep(ctx, files)
		if err != nil || done {
			return err
		}
	}
}

// migrateStep applies the file after the database's user_version in one transaction, or
// reports done when the schema is this program's.
func (d *DB) migrateStep(ctx context.Context, files []string) (done bool, err error) {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback() // after Commit, a no-op
	// BEGIN IMMEDIATE (dsn's _txlock): the version is read under the write lock.
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return false, err
	}
	switch {
	case v > SchemaVersion:
		return false, fmt.Errorf("schema version %d is newer than this program's (%d); upgrade evotune", v, SchemaVersion)
	case v >= len(files):
		return true, nil
	}
	f := files[v]
	body, err := schemaFS.ReadFile(f)
	if err != nil {
		return false, err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return false, fmt.Errorf("schema %s: %w", f, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v+1)); err != nil {
		return false, err
	}
	return false, tx.Commit()
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }
