package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/store/storetest"
)

// TestMigrateV1 makes a store with the version 1 statements, as a thruput
// of that version left it, and opens it with this one.
func TestMigrateV1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf(`PRAGMA application_id = %d`, ApplicationID)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA journal_mode = WAL`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(migrations[0].sql); err != nil {
		t.Fatal(err)
	}
	var docs []*result.Document
	for i, m := range []string{"disk.sweep", "net.client", "disk.io", "net.http"} {
		start := t0.Add(time.Duration(i) * time.Hour)
		d := doc(runID(start, i), m, "pi4", start, map[string]string{"device": fmt.Sprint("dev", i%2), "n": fmt.Sprint(i)})
		js, _ := json.Marshal(d)
		if _, err := db.Exec(`INSERT INTO runs (id, method, host, started_at, status, doc) VALUES (?, ?, ?, ?, ?, ?)`,
			d.ID, d.Method, d.Host.Hostname, d.StartedAt.UnixNano(), d.Status, string(js)); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	if _, err := db.Exec(`PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	s := reopen(t, db, path)
	raw := rawDB(t, s)
	var version int
	if err := raw.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != len(migrations) {
		t.Fatalf("user_version %d, %v; want %d", version, err, len(migrations))
	}
	for _, d := range docs {
		got, err := s.Get(d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if jsonOf(t, got) != jsonOf(t, d) {
			t.Errorf("%s changed in the migration", d.ID)
		}
	}
	es, err := s.List(store.Filter{Labels: []store.LabelQuery{{Key: "device", Value: "dev0"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].ID != docs[2].ID || es[1].ID != docs[0].ID {
		t.Fatalf("label filter after migration: %v", ids(es))
	}
	if es[1].Summary != "read 23.7 MiB/s, write 20.9 MiB/s (max)" || es[1].Target != "/mnt/usb" || es[1].FSType != "ext4" || es[1].Labels["n"] != "0" {
		t.Errorf("derived columns after migration: %+v", es[1])
	}
	if es[0].Summary != "4 KiB randread Q32T1 67654 IOPS, 264.3 MiB/s" {
		t.Errorf("disk.io summary after migration: %q", es[0].Summary)
	}
	var check string
	if err := raw.QueryRow(`PRAGMA foreign_key_check`).Scan(&check); err != sql.ErrNoRows {
		t.Errorf("foreign_key_check: %q, %v", check, err)
	}
	// And it is a working store.
	if err := s.Save(doc("20250401T000000Z-ffffff", "disk.sweep", "pi4", t0.AddDate(0, 1, 0), nil)); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateV3 makes a store of version 3, as the thruput before the
// series columns and points left it, holding every method's frozen
// document, and opens it with this one: each run gets its series and its
// point from its document, so Recent reads them as it reads a run saved
// now.
func TestMigrateV3(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(fmt.Sprintf(`PRAGMA application_id = %d`, ApplicationID)); err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:3] {
		if _, err := tx.Exec(m.sql); err != nil {
			t.Fatal(err)
		}
	}
	docs := storetest.FrozenRuns(t)
	for _, d := range docs {
		js, _ := json.Marshal(d)
		c := store.DeriveColumns(d)
		if _, err := tx.Exec(`INSERT INTO runs (id, method, host, started_at, status, target, fs_type, summary, imported, device_ids) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			d.ID, d.Method, d.Host.Hostname, d.StartedAt.UnixNano(), d.Status, c.Target, c.FSType, c.Summary, c.Imported, c.DeviceIDs); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO documents (run_id, json) VALUES (?, ?)`, d.ID, string(js)); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO labels (run_id, key, value) VALUES (?, 'n', ?)`, d.ID, d.Labels["n"]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Exec(`PRAGMA user_version = 3`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	storetest.CheckPoints(t, reopen(t, db, path), docs)
}

// reopen closes the store written the old way and opens it as thruput
// does, which migrates it.
func reopen(t *testing.T, db *sql.DB, path string) *store.DB {
	t.Helper()
	db.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
