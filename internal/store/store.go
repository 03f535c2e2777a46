// Package store keeps the history of runs: every result document thruput
// produces (or imports) goes into a store, so that runs can be listed,
// filtered by method, host, labels and time, shown again, exported and
// compared long after they were made. Its backends (store/sqlite, a file
// of one's own; store/postgres, a lab's shared server) keep one contract,
// Store, over the SQL they share, DB.
//
// The whole document is kept as JSON, so nothing a run recorded is lost to a
// schema; the few facts that lists and filters need (method, host, start,
// status, first target, labels, a one-line summary, the run's series) are
// copied into columns when a run is saved, so listing thousands of runs
// decodes no JSON, and the run's point (result.Point: the figures an alert
// rule judges) is kept beside it, so judging thousands decodes no document.
package store

import (
	"database/sql"
	"errors"
)

var (
	// ErrExists is returned (wrapped with the id) when a run's id is
	// already stored.
	ErrExists = errors.New("already in the store")
	// ErrNotFound is returned (wrapped) when no stored run matches an id or
	// prefix.
	ErrNotFound = errors.New("not in the store")
	// ErrAmbiguous is returned (wrapped, with the candidates) when an id
	// prefix matches several runs.
	ErrAmbiguous = errors.New("ambiguous id prefix")
	// ErrNotStore is returned (wrapped) by a backend's Open for a file
	// that is not a thruput store, or is damaged; the file has not been
	// modified.
	ErrNotStore = errors.New("not a thruput result store")
	// ErrNewer is returned (wrapped) by a backend's Open for a store whose
	// schema is newer than this thruput knows; the store has not been
	// modified.
	ErrNewer = errors.New("made by a newer thruput")
)

// DB is the SQL both backends share: a store is a *DB over SQLite or
// PostgreSQL, which differ in their schema, their migrations and a few
// words of SQL (Dialect). Its methods may be called from several
// goroutines.
type DB struct {
	db      *sql.DB
	path    string
	key     string
	dialect Dialect
}

// Dialect is the SQL a DB speaks.
type Dialect int

const (
	SQLite Dialect = iota
	PostgreSQL
)

// NewDB makes a store of an open, migrated database; loc is where it is.
func NewDB(db *sql.DB, loc Location, d Dialect) *DB {
	return &DB{db: db, path: loc.Name(), key: loc.Key(), dialect: d}
}

// Path names the store: the SQLite file, absolute, or the PostgreSQL URL
// with its password hidden.
func (s *DB) Path() string { return s.path }

// Key is the store's Location.Key, what the spool records runs for it by.
func (s *DB) Key() string { return s.key }

// Close closes the store. The last connection to close checkpoints the WAL
// into the main file and removes it.
func (s *DB) Close() error { return s.db.Close() }
