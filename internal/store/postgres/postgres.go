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
	"net/url"
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

// IsURL says whether db names a PostgreSQL store.
func IsURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// Redact is the URL as messages show it: the password replaced.
func Redact(db string) string {
	if u, err := url.Parse(db); err == nil {
		return u.Redacted()
	}
	return "postgres://..."
}

// Parse checks a URL (libpq's query keywords such as sslmode and host, and
// the PG* environment variables fill what it leaves out) without
// connecting.
func Parse(db string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(db)
	if err != nil {
		// pgx's message may quote the URL, password and all.
		return nil, fmt.Errorf("%w: %s is not a PostgreSQL URL libpq would take", store.ErrLocation, Redact(db))
	}
	return cfg, nil
}

// connectTimeout bounds the first contact when the URL sets none: an
// unreachable store must fail before a measurement starts, not after.
const connectTimeout = 3 * time.Second

// Open connects, creates or migrates the schema and returns the store.
// A server that cannot be reached or refuses the login is ErrUnreachable.
func Open(db string) (*store.DB, error) {
	cfg, err := Parse(db)
	if err != nil {
		return nil, err
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	cfg.RuntimeParams["search_path"] = schema
	cfg.RuntimeParams["application_name"] = "thruput"
	name := Redact(db)
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
	if err := migrate(context.Background(), sdb, name); err != nil {
		sdb.Close()
		return nil, err
	}
	return store.NewDB(sdb, name, store.PostgreSQL), nil
}

// reason is the server's or the network's words, without pgx's preamble
// that repeats the connection parameters.
func reason(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		if u := errors.Unwrap(ce); u != nil {
			return u.Error()
		}
	}
	return err.Error()
}

// schema holds thruput's tables, apart from whatever else the database
// keeps.
const schema = "thruput"

// migrations take the schema from version i to i+1 (index plus one). Each
// runs in the transaction that records the version, under an advisory
// lock, so two processes starting at once migrate once. Released
// migrations are never edited, only appended to. The tables are those of
// the SQLite store's current version; ids and label text sort bytewise
// (COLLATE "C") as the prefix queries expect.
var migrations = []string{`
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
`}

// lockKey is the advisory lock migrations take: any number, the same in
// every thruput.
const lockKey = 0x7468727570757421 // "thruput!"

func migrate(ctx context.Context, db *sql.DB, name string) error {
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
	var version int
	err = tx.QueryRowContext(ctx, `SELECT version FROM `+schema+`.schema_version`).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		_, err = tx.ExecContext(ctx, `INSERT INTO `+schema+`.schema_version VALUES (0)`)
	}
	if err != nil {
		return fmt.Errorf("result store %s: %s", name, reason(err))
	}
	if version > len(migrations) {
		return fmt.Errorf("%s: result store %w (schema version %d, this thruput knows %d); left untouched", name, store.ErrNewer, version, len(migrations))
	}
	if version == len(migrations) {
		return nil
	}
	for i := version; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, `SET LOCAL search_path = `+schema+`; `+migrations[i]); err != nil {
			return fmt.Errorf("result store %s: migrating to version %d: %s", name, i+1, reason(err))
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE `+schema+`.schema_version SET version = $1`, len(migrations)); err != nil {
		return fmt.Errorf("result store %s: %s", name, reason(err))
	}
	return tx.Commit()
}
