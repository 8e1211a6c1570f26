// Package db is evotune's SQLite storage (github.com/mattn/go-sqlite3): the schema,
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
	"io/fs"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

//go:embed schema/*.sql
var schemaFS embed.FS

// SchemaVersion is the schema version this program writes (PRAGMA user_version).
const SchemaVersion = 4

// DB is an open evotune database.
type DB struct {
	sql      *sql.DB
	path     string
	readOnly bool

	mu    sync.Mutex
	owner map[int64]int // run ID → the PID this connection created or claimed it under
}

// ErrNotFound is returned (wrapped, with the ID) when a run or individual does not exist.
var ErrNotFound = errors.New("not found")

func dsn(path string, readOnly bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", "10000")
	q.Set("_foreign_keys", "on")
	if readOnly {
		q.Set("mode", "ro")
	} else {
		q.Set("_journal_mode", "WAL")
		q.Set("_txlock", "immediate")
		// FULL: a committed generation survives a power cut (one fsync per generation).
		q.Set("_synchronous", "FULL")
	}
	// In a file: URI, '?' starts the query and '#' a fragment: escape them (and '%') so
	// that every file name means that file.
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + esc + "?" + q.Encode()
}

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
	s, err := sql.Open("sqlite3", dsn(path, false))
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	s.SetMaxOpenConns(1) // one writer
	d := &DB{sql: s, path: path}
	if err := d.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("database %s: %w", path, explain(err))
	}
	return d, nil
}

// OpenReadOnly opens an existing database for reading: it never writes, and never waits
// for a running tune (WAL readers do not block). Errors name the file.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	s, err := sql.Open("sqlite3", dsn(path, true))
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	d := &DB{sql: s, path: path, readOnly: true}
	v, err := d.version(ctx)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("database %s: %w", path, explain(err))
	}
	switch {
	case v > SchemaVersion:
		s.Close()
		return nil, fmt.Errorf("database %s: schema version %d is newer than this program's (%d); upgrade evotune", path, v, SchemaVersion)
	case v == 0:
		s.Close()
		return nil, fmt.Errorf("database %s: not an evotune database (an SQLite file without evotune's tables); 'evotune tune --db %s' creates them", path, path)
	case v < SchemaVersion:
		s.Close()
		return nil, fmt.Errorf("database %s: schema version %d is older than this program's (%d); open it once with 'evotune tune' to upgrade", path, v, SchemaVersion)
	}
	return d, nil
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
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrNotADB:
			return fmt.Errorf("not an SQLite database (or it is corrupt): %w", err)
		case sqlite3.ErrCorrupt:
			return fmt.Errorf("the database is corrupt or truncated: %w", err)
		case sqlite3.ErrReadonly:
			return fmt.Errorf("the database or its directory is read-only: %w", err)
		case sqlite3.ErrCantOpen:
			return fmt.Errorf("cannot open the database file (missing directory or no permission): %w", err)
		case sqlite3.ErrBusy, sqlite3.ErrLocked:
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
func (d *DB) Close() error { return d.sql.Close() }

// Release is for a process about to exit: it does not close the writer connection, so no
// end-of-process checkpoint takes an exclusive lock while other processes read (see Close).
// Every write is already committed; nothing is lost. Read-only databases are closed.
func (d *DB) Release() {
	if d.readOnly {
		d.sql.Close()
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
// transaction that also sets the version.
func (d *DB) migrate(ctx context.Context) error {
	v, err := d.version(ctx)
	if err != nil {
		return err
	}
	if v > SchemaVersion {
		return fmt.Errorf("schema version %d is newer than this program's (%d); upgrade evotune", v, SchemaVersion)
	}
	files, err := fs.Glob(schemaFS, "schema/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(files)
	for i, f := range files {
		n := i + 1
		if n <= v {
			continue
		}
		body, err := schemaFS.ReadFile(f)
		if err != nil {
			return err
		}
		tx, err := d.sql.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("schema %s: %w", f, err)
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", n)); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }
