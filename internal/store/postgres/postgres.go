// Package postgres keeps the result history in PostgreSQL, for a lab whose
// many machines save into one place: the store contract of package store
// over jackc/pgx, in a schema "thruput" of its own, created and migrated
// by the program.
package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/thruput/thruput/internal/store"
)

// ErrUnreachable marks a server that could not be reached or refused the
// login: a failure of the store, not of the value the user gave.
var ErrUnreachable = errors.New("cannot reach the result store")

// Parse checks a URL or a keyword/value string (libpq's keywords such as
// sslmode and host, and the PG* environment variables fill what it leaves
// out) without connecting.
func Parse(db string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(db)
	if err != nil {
		// pgx's message may quote the URL, password and all.
		return nil, fmt.Errorf("%w: %s is not a PostgreSQL URL libpq would take", store.ErrLocation, store.Redact(db))
	}
	return cfg, nil
}

// connectTimeout bounds the first contact when the URL sets none: an
// unreachable store must fail in the first second of a run, before
// anything is measured.
const connectTimeout = time.Second

// The PostgreSQL backend of store.Open, for every location that is a URL
// or a libpq string: a store that must exist is one with thruput's schema,
// which only ReadOnly checks without creating it.
func init() {
	store.Register(store.SchemePostgres, func(loc store.Location, m store.Mode) (store.Store, error) {
		if m == store.ReadOnly {
			return OpenRead(loc.URL)
		}
		return Open(loc.URL)
	})
}

// Open connects, creates or migrates the schema and returns the store.
// A server that cannot be reached or refuses the login is ErrUnreachable.
func Open(db string) (*store.DB, error) { return open(db, false) }

// OpenRead opens an existing store only to read it, as the source of a
// copy: every transaction is read-only and nothing is created or
// migrated. A database without thruput's schema is ErrLocation.
func OpenRead(db string) (*store.DB, error) { return open(db, true) }

func open(db string, readOnly bool) (*store.DB, error) {
	cfg, err := Parse(db)
	if err != nil {
		return nil, err
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	cfg.RuntimeParams["search_path"] = schema
	cfg.RuntimeParams["application_name"] = "thruput"
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	loc := store.Location{URL: db}
	name := loc.Name()
	sdb := stdlib.OpenDB(*cfg)
	// A CLI does one thing at a time; serve reads with a few.
	sdb.SetMaxOpenConns(4)
	sdb.SetConnMaxIdleTime(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ConnectTimeout+time.Second)
	defer cancel()
	if err := sdb.PingContext(ctx); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("%w %s: %s", ErrUnreachable, name, reason(err))
	}
	if readOnly {
		err = checkCurrent(context.Background(), sdb, name)
	} else {
		err = migrate(context.Background(), sdb, name)
	}
	if err != nil {
		sdb.Close()
		return nil, err
	}
	return store.NewDB(sdb, loc, store.PostgreSQL), nil
}

// reason is the server's or the network's words, without pgx's preamble
// that repeats the connection parameters. pgx tries a host twice under
// sslmode=prefer (with TLS, then without), and says each failure: the
// same words are given once.
func reason(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return err.Error()
	}
	u := errors.Unwrap(ce)
	if u == nil {
		return err.Error()
	}
	joined, ok := u.(interface{ Unwrap() []error })
	if !ok {
		return u.Error()
	}
	var words []string
	for _, e := range joined.Unwrap() {
		if w := e.Error(); !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	return strings.Join(words, "; ")
}

// schema holds thruput's tables, apart from whatever else the database
// keeps.
const schema = "thruput"

// A migration takes the schema from version i to i+1 (index plus one):
// statements, then optionally Go code for what SQL cannot derive (facts
// inside the JSON documents). Each runs in the transaction that records
// the version, under an advisory lock, so two processes starting at once
// migrate once. Released migrations are never edited, only appended to.
// The tables are those of the SQLite store's current version; ids and
// label text sort bytewise (COLLATE "C") as the prefix queries expect.
type migration struct {
	sql string
	fn  func(ctx context.Context, tx *sql.Tx) error
}

var migrations = []migration{{sql: `
CREATE TABLE runs (
	id         TEXT COLLATE "C" PRIMARY KEY,
	method     TEXT COLLATE "C" NOT NULL,
	host       TEXT NOT NULL,
	-- Unix nanoseconds, UTC; 0 when the document has no start time.
	started_at BIGINT NOT NULL,
	status     TEXT NOT NULL,
	target     TEXT NOT NULL DEFAULT '',
	fs_type    TEXT NOT NULL DEFAULT '',
	summary    TEXT NOT NULL DEFAULT '',
	imported   TEXT NOT NULL DEFAULT ''
);
CREATE TABLE documents (
	run_id TEXT COLLATE "C" PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
	-- The result document as JSON, exactly as saved.
	json   TEXT NOT NULL
);
CREATE TABLE labels (
	run_id TEXT COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	key    TEXT COLLATE "C" NOT NULL,
	value  TEXT COLLATE "C" NOT NULL,
	PRIMARY KEY (run_id, key)
);
CREATE INDEX runs_started ON runs (started_at, id);
CREATE INDEX runs_method ON runs (method, started_at);
CREATE INDEX runs_host ON runs (host, started_at);
CREATE INDEX labels_key_value ON labels (key, value);
`},
	// The hardware ids of what each run measured, space-separated; runs
	// stored before have none, as their documents hold none.
	{sql: `ALTER TABLE runs ADD COLUMN device_ids TEXT NOT NULL DEFAULT '';`},
	// Each run's series and point (SQLite's version 4 says why), from
	// their documents for the runs stored before.
	{sql: `
ALTER TABLE runs ADD COLUMN series_target TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN series_direction TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN series_interface TEXT NOT NULL DEFAULT '';
CREATE TABLE points (
	run_id TEXT COLLATE "C" PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
	json   TEXT NOT NULL
);
`, fn: func(ctx context.Context, tx *sql.Tx) error { return store.BackfillSeries(ctx, tx, store.PostgreSQL) }},
}

// lockKey is the advisory lock migrations take: any number, the same in
// every thruput.
const lockKey = 0x7468727570757421 // "thruput!"

// version is the schema's version, read without a lock or a write, so
// that a role that may only read, or a hot standby, opens a current
// store; 0 when there is no schema yet.
func version(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, name string) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, `SELECT version FROM `+schema+`.schema_version`).Scan(&v)
	var pe *pgconn.PgError
	switch {
	case err == nil:
	case errors.Is(err, sql.ErrNoRows), errors.As(err, &pe) && (pe.Code == "42P01" || pe.Code == "3F000"):
		// No row, no table or no schema: nothing was made yet.
		return 0, nil
	default:
		return 0, fmt.Errorf("result store %s: %s", name, reason(err))
	}
	if v > len(migrations) {
		return 0, fmt.Errorf("%s: result store %w (schema version %d, this thruput knows %d); left untouched", name, store.ErrNewer, v, len(migrations))
	}
	return v, nil
}

// checkCurrent refuses to read a database without the current schema.
func checkCurrent(ctx context.Context, db *sql.DB, name string) error {
	v, err := version(ctx, db, name)
	switch {
	case err != nil:
		return err
	case v == 0:
		return fmt.Errorf("%w: no result store at %s (no schema %q there)", store.ErrLocation, name, schema)
	case v < len(migrations):
		return fmt.Errorf("%w: %s is a result store of an older thruput (schema version %d of %d); saving a run into it upgrades it", store.ErrLocation, name, v, len(migrations))
	}
	return nil
}

// migrate brings the schema to the current version. A current one is only
// read; anything else is done under the lock, after reading the version
// again.
func migrate(ctx context.Context, db *sql.DB, name string) error {
	if v, err := version(ctx, db, name); err != nil || v == len(migrations) {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%w %s: %s", ErrUnreachable, name, reason(err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(lockKey)); err != nil {
		return fmt.Errorf("result store %s: %s", name, reason(err))
	}
	if _, err := tx.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS `+schema+`;
		CREATE TABLE IF NOT EXISTS `+schema+`.schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("result store %s: creating the schema %q: %s", name, schema, reason(err))
	}
	var have int
	err = tx.QueryRowContext(ctx, `SELECT version FROM `+schema+`.schema_version`).Scan(&have)
	if errors.Is(err, sql.ErrNoRows) {
		_, err = tx.ExecContext(ctx, `INSERT INTO `+schema+`.schema_version VALUES (0)`)
	}
	if err != nil {
		return fmt.Errorf("result store %s: %s", name, reason(err))
	}
	if have > len(migrations) {
		return fmt.Errorf("%s: result store %w (schema version %d, this thruput knows %d); left untouched", name, store.ErrNewer, have, len(migrations))
	}
	if have == len(migrations) {
		return nil
	}
	for i := have; i < len(migrations); i++ {
		m := migrations[i]
		if _, err := tx.ExecContext(ctx, `SET LOCAL search_path = `+schema+`; `+m.sql); err != nil {
			return fmt.Errorf("result store %s: migrating to version %d: %s", name, i+1, reason(err))
		}
		if m.fn == nil {
			continue
		}
		if err := m.fn(ctx, tx); err != nil {
			return fmt.Errorf("result store %s: migrating to version %d: %s", name, i+1, reason(err))
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE `+schema+`.schema_version SET version = $1`, len(migrations)); err != nil {
		return fmt.Errorf("result store %s: %s", name, reason(err))
	}
	return tx.Commit()
}
