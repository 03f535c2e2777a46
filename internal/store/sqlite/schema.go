package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
)

// A migration takes a store from version i to i+1 (its index plus one):
// statements, then optionally Go code for what SQL cannot derive (facts
// inside the JSON documents). Each runs in the transaction that sets
// PRAGMA user_version, so a store is at one version or the next, never
// between. Released migrations are never edited, only appended to.
type migration struct {
	sql string
	fn  func(ctx context.Context, tx *sql.Tx) error
}

var migrations = []migration{
	// Version 1: one table, the document inline, labels only inside the
	// JSON.
	{sql: `
CREATE TABLE runs (
	id         TEXT PRIMARY KEY NOT NULL,
	method     TEXT NOT NULL,
	host       TEXT NOT NULL,
	started_at INTEGER NOT NULL,
	status     TEXT NOT NULL,
	doc        TEXT NOT NULL
);
CREATE INDEX runs_started ON runs (started_at, id);
`},
	// Version 2: the documents move to their own table, so that a list
	// scans a narrow runs table (a few MB for ten thousand runs, not the
	// hundreds the JSON takes: an SD card reads that in seconds); labels get
	// a table so that filtering on them is an index lookup; the first
	// target, the importing tool and the summary line become columns.
	{sql: `
ALTER TABLE runs RENAME TO runs_v1;
CREATE TABLE runs (
	id         TEXT PRIMARY KEY NOT NULL,
	method     TEXT NOT NULL,
	host       TEXT NOT NULL,
	-- Unix nanoseconds, UTC; 0 when the document has no start time.
	started_at INTEGER NOT NULL,
	status     TEXT NOT NULL,
	-- The first target's path, else the network server or the URL.
	target     TEXT NOT NULL DEFAULT '',
	fs_type    TEXT NOT NULL DEFAULT '',
	-- The headline figures, computed by this package when the run is saved.
	summary    TEXT NOT NULL DEFAULT '',
	-- The tool a converted document came from; '' for thruput's own runs.
	imported   TEXT NOT NULL DEFAULT ''
);
CREATE TABLE documents (
	run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	-- The result document as JSON, exactly as saved.
	json   TEXT NOT NULL
);
CREATE TABLE labels (
	run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	key    TEXT NOT NULL,
	value  TEXT NOT NULL,
	PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
INSERT INTO runs (id, method, host, started_at, status)
	SELECT id, method, host, started_at, status FROM runs_v1 ORDER BY started_at, id;
INSERT INTO documents (run_id, json) SELECT id, doc FROM runs_v1 ORDER BY started_at, id;
DROP TABLE runs_v1;
CREATE INDEX runs_started ON runs (started_at, id);
CREATE INDEX runs_method ON runs (method, started_at);
CREATE INDEX runs_host ON runs (host, started_at);
CREATE INDEX labels_key_value ON labels (key, value);
`, fn: backfillV2},
	// Version 3: the hardware ids of what each run measured, so that one
	// card's history is a filter on the runs table. Runs stored before
	// have none: their documents hold none.
	{sql: `
ALTER TABLE runs ADD COLUMN device_ids TEXT NOT NULL DEFAULT '';
`},
	// Version 4: each run's series (result.SeriesKey: the target, or a
	// server's client, the direction and the interface) as columns, and
	// its point (result.Point, JSON: the figures an alert rule judges and
	// the suspect reasons) in a table of its own, which keeps the runs
	// table narrow for lists: the newest runs of every series are found
	// and judged without reading a document. Runs stored before get them
	// from their documents.
	{sql: `
ALTER TABLE runs ADD COLUMN series_target TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN series_direction TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN series_interface TEXT NOT NULL DEFAULT '';
CREATE TABLE points (
	run_id TEXT PRIMARY KEY NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	json   TEXT NOT NULL
);
`, fn: func(ctx context.Context, tx *sql.Tx) error { return store.BackfillSeries(ctx, tx, store.SQLite) }},
}

// backfillV2 derives the new columns and the labels from each document.
func backfillV2(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT run_id, json FROM documents`)
	if err != nil {
		return err
	}
	type derived struct {
		id string
		c  store.Columns
	}
	var all []derived
	for rows.Next() {
		var id string
		var js []byte
		if err := rows.Scan(&id, &js); err != nil {
			rows.Close()
			return err
		}
		var doc result.Document
		if err := json.Unmarshal(js, &doc); err != nil {
			rows.Close()
			return fmt.Errorf("run %s: stored document does not decode: %w", id, err)
		}
		all = append(all, derived{id, store.DeriveColumns(&doc)})
	}
	if err := rows.Close(); err != nil {
		return err
	}
	upd, err := tx.PrepareContext(ctx, `UPDATE runs SET target = ?, fs_type = ?, summary = ?, imported = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	defer upd.Close()
	lab, err := tx.PrepareContext(ctx, `INSERT INTO labels (run_id, key, value) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer lab.Close()
	for _, d := range all {
		if _, err := upd.ExecContext(ctx, d.c.Target, d.c.FSType, d.c.Summary, d.c.Imported, d.id); err != nil {
			return err
		}
		for _, l := range d.c.Labels {
			if _, err := lab.ExecContext(ctx, d.id, l[0], l[1]); err != nil {
				return err
			}
		}
	}
	return nil
}

// currentTables are what a current store must hold; a file with our
// application id but without them was damaged by hand.
var currentTables = []string{"runs", "documents", "labels", "points"}

// state is what decides whether a file may be used or migrated.
type state struct {
	appID, version, objects int
}

func readState(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (st state, err error) {
	// One statement, so one snapshot: read as three, a store another
	// process initialised in between looked like application 0 with
	// tables, which is another program's database.
	err = q.QueryRowContext(ctx, `SELECT (SELECT application_id FROM pragma_application_id()),
		(SELECT user_version FROM pragma_user_version()), (SELECT count(*) FROM sqlite_schema)`).Scan(&st.appID, &st.version, &st.objects)
	return
}

// check refuses what Open must not touch; fresh is an empty database that
// may become a store.
func (st state) check(path string) (fresh bool, err error) {
	switch {
	case st.appID == ApplicationID:
	case st.appID == 0 && st.version == 0 && st.objects == 0:
		return true, nil
	default:
		return false, foreign(path, uint32(st.appID))
	}
	if st.version > len(migrations) {
		return false, &storeError{path: path, kind: store.ErrNewer, why: fmt.Sprintf("schema version %d, this thruput knows up to %d", st.version, len(migrations))}
	}
	return false, nil
}

// migrate checks the store and brings it to the current version. A
// current store is only read, so that opening one never waits for another
// process's write; anything else is done under the write lock, after
// reading the state again, so that two processes opening an old (or new,
// empty) store at once migrate it once. Nothing is written unless the file
// proves to be a thruput store of this or an older version.
func migrate(ctx context.Context, db *sql.DB, path string) error {
	st, err := readState(ctx, db)
	if err != nil {
		return damaged(path, err)
	}
	if _, err := st.check(path); err != nil {
		return err
	}
	if st.version < len(migrations) || st.appID != ApplicationID {
		if err := upgrade(ctx, db, path); err != nil {
			return err
		}
	}
	for _, t := range currentTables {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, t).Scan(&n); err != nil {
			return damaged(path, err)
		}
		if n == 0 {
			return notStore(path, "the %s table is missing", t)
		}
	}
	// WAL after the first commit, not before: a new store's header then
	// carries the application id from its first write, so a store is never
	// on disk looking like an anonymous database. The mode is persistent.
	// Switching needs every other connection out of the file, which SQLite
	// does not wait for (a reader asking for the lock it would need is
	// told busy at once, to avoid a deadlock). Another process opening the
	// store at the same moment switches it too, so retry a while, and
	// stay in rollback mode, which is as safe, if the file stays busy.
	deadline := time.Now().Add(5 * time.Second)
	for {
		var mode string
		if err := db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
			return damaged(path, err)
		}
		if mode == "wal" {
			return nil
		}
		// On a filesystem without shared memory SQLite stays in rollback
		// mode and says so without an error.
		_, err := db.ExecContext(ctx, `PRAGMA journal_mode = WAL`)
		if err == nil {
			return nil
		}
		var se *sqlite.Error
		if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY {
			return fmt.Errorf("%s: switching the result store to WAL: %w", path, err)
		}
		if time.Now().After(deadline) {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func upgrade(ctx context.Context, db *sql.DB, path string) error {
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE (see dsn)
	if err != nil {
		return damaged(path, err)
	}
	defer tx.Rollback()
	st, err := readState(ctx, tx)
	if err != nil {
		return damaged(path, err)
	}
	fresh, err := st.check(path)
	if err != nil {
		return err
	}
	if fresh {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA application_id = %d`, ApplicationID)); err != nil {
			return err
		}
	}
	for v := st.version; v < len(migrations); v++ {
		m := migrations[v]
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("%s: migrating the result store to version %d: %w", path, v+1, err)
		}
		if m.fn != nil {
			if err := m.fn(ctx, tx); err != nil {
				return fmt.Errorf("%s: migrating the result store to version %d: %w", path, v+1, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, len(migrations))); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return damaged(path, err)
	}
	return nil
}
