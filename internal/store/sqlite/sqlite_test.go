package sqlite

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
)

func openTemp(t *testing.T) *store.DB {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "results.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rawDB is a second connection to s's file, for what the store does not
// show.
func rawDB(t *testing.T, s *store.DB) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(s.Path(), false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func jsonOf(t *testing.T, d *result.Document) string {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ids(es []store.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	s := openTemp(t)
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	docs := []*result.Document{
		doc("20250301T120000Z-aaaa01", "disk.sweep", "pi4", at(0), map[string]string{"device": "sandisk", "fs": "ext4"}),
		doc("20250301T130000Z-aaaa02", "disk.random", "pi4", at(1), map[string]string{"device": "evo"}),
		doc("20250301T140000Z-bbbb03", "disk.io", "pi5", at(2), nil),
		doc("20250301T150000Z-bbbb04", "net.client", "pi5", at(3), map[string]string{"site": "lab"}),
		doc("20250301T160000Z-cccc05", "net.http", "zero2", at(4), map[string]string{"device": "sandisk"}),
	}
	docs[2].Status = result.StatusFailed
	docs[2].Error = "device vanished"
	docs[4].Imported = &result.Imported{Tool: "fio", Version: "3.33", File: "x.json"}
	for _, d := range docs {
		if err := s.Save(d); err != nil {
			t.Fatal(err)
		}
	}

	// Get gives back the document as saved, by id and by unique prefix.
	for _, d := range docs {
		got, err := s.Get(d.ID)
		if err != nil {
			t.Fatal(err)
		}
		if jsonOf(t, got) != jsonOf(t, d) {
			t.Errorf("Get(%s) changed the document:\n got %s\nwant %s", d.ID, jsonOf(t, got), jsonOf(t, d))
		}
	}
	if got, err := s.Get("20250301T14"); err != nil || got.ID != docs[2].ID {
		t.Errorf("Get by prefix: %v, %v", got, err)
	}

	// Saving an id twice is store.ErrExists naming the id.
	err := s.Save(docs[0])
	if !errors.Is(err, store.ErrExists) || !strings.Contains(err.Error(), docs[0].ID) {
		t.Errorf("second Save: %v, want store.ErrExists with the id", err)
	}

	// Entries carry the columns.
	all, err := s.List(store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{docs[4].ID, docs[3].ID, docs[2].ID, docs[1].ID, docs[0].ID}; !slices.Equal(ids(all), want) {
		t.Fatalf("List order %v, want newest first %v", ids(all), want)
	}
	e := all[4]
	if e.Method != "disk.sweep" || e.Host != "pi4" || e.Status != "ok" || !e.StartedAt.Equal(at(0)) || e.Target != "/mnt/usb" ||
		e.FSType != "ext4" || e.Labels["device"] != "sandisk" || e.Labels["fs"] != "ext4" || len(e.Labels) != 2 ||
		e.Summary != "read 23.7 MiB/s, write 20.9 MiB/s (max)" || e.Imported != "" {
		t.Errorf("sweep entry %+v", e)
	}
	if all[1].Target != "pi4.lan:5201" || all[1].Summary != "up 941.2 Mbit/s" {
		t.Errorf("net entry %+v", all[1])
	}
	if all[0].Target != "http://mirror.lan/1G.bin" || all[0].Imported != "fio" {
		t.Errorf("http entry %+v", all[0])
	}
	if all[2].Labels != nil {
		t.Errorf("unlabelled run has labels %v", all[2].Labels)
	}

	for _, c := range []struct {
		name string
		f    store.Filter
		want []*result.Document
	}{
		{"method", store.Filter{Method: "disk.io"}, docs[2:3]},
		{"method prefix", store.Filter{Method: "disk."}, []*result.Document{docs[2], docs[1], docs[0]}},
		{"method no partial word", store.Filter{Method: "disk"}, nil},
		{"host", store.Filter{Host: "pi5"}, []*result.Document{docs[3], docs[2]}},
		{"label", store.Filter{Labels: []store.LabelQuery{{Key: "device", Value: "sandisk"}}}, []*result.Document{docs[4], docs[0]}},
		{"two labels", store.Filter{Labels: []store.LabelQuery{{Key: "device", Value: "sandisk"}, {Key: "fs", Any: true}}}, docs[0:1]},
		{"label any", store.Filter{Labels: []store.LabelQuery{{Key: "device", Any: true}}}, []*result.Document{docs[4], docs[1], docs[0]}},
		{"label no value match", store.Filter{Labels: []store.LabelQuery{{Key: "device", Value: "wd"}}}, nil},
		{"since", store.Filter{Since: at(3)}, []*result.Document{docs[4], docs[3]}},
		{"until", store.Filter{Until: at(1)}, docs[0:1]},
		{"since until", store.Filter{Since: at(1), Until: at(3)}, []*result.Document{docs[2], docs[1]}},
		{"status", store.Filter{Status: "failed"}, docs[2:3]},
		{"ids and prefix", store.Filter{IDs: []string{docs[0].ID, "20250301T15"}}, []*result.Document{docs[3], docs[0]}},
		{"short id is exact only", store.Filter{IDs: []string{"202"}}, nil},
		{"limit", store.Filter{Limit: 2}, []*result.Document{docs[4], docs[3]}},
		{"limit with filter", store.Filter{Host: "pi4", Limit: 1}, docs[1:2]},
		{"combined", store.Filter{Method: "disk.", Host: "pi4", Labels: []store.LabelQuery{{Key: "device", Value: "evo"}}}, docs[1:2]},
	} {
		t.Run(c.name, func(t *testing.T) {
			var want []string
			for _, d := range c.want {
				want = append(want, d.ID)
			}
			got, err := s.List(c.f)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), want) {
				t.Errorf("List: %v, want %v", ids(got), want)
			}
			ds, err := s.Documents(c.f)
			if err != nil {
				t.Fatal(err)
			}
			var gotDocs []string
			for _, d := range ds {
				gotDocs = append(gotDocs, d.ID)
			}
			slices.Reverse(want) // Documents is oldest first
			if !slices.Equal(gotDocs, want) {
				t.Errorf("Documents: %v, want %v", gotDocs, want)
			}
		})
	}

	// Resolve: full id, unique prefix, ambiguous, too short, unknown.
	if id, err := s.Resolve("20250301T16"); err != nil || id != docs[4].ID {
		t.Errorf("Resolve unique prefix: %q, %v", id, err)
	}
	_, err = s.Resolve("20250301T1")
	if !errors.Is(err, store.ErrAmbiguous) || !strings.Contains(err.Error(), docs[0].ID) || !strings.Contains(err.Error(), docs[4].ID) {
		t.Errorf("Resolve ambiguous: %v", err)
	}
	if _, err := s.Resolve("202"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Resolve too short: %v", err)
	}
	if _, err := s.Resolve("20990101"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Resolve unknown: %v", err)
	}
	if _, err := s.Get("20990101"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get unknown: %v", err)
	}

	// Delete is all or nothing.
	if n, err := s.Delete(docs[0].ID, "20250301T1"); err == nil || n != 0 {
		t.Errorf("Delete with an ambiguous prefix: %d, %v", n, err)
	}
	if n, err := s.Delete(docs[0].ID, "20250301T14", docs[0].ID); err != nil || n != 2 {
		t.Errorf("Delete: %d, %v; want 2", n, err)
	}
	if _, err := s.Get(docs[0].ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	var labels int
	if err := rawDB(t, s).QueryRow(`SELECT count(*) FROM labels WHERE run_id = ?`, docs[0].ID).Scan(&labels); err != nil || labels != 0 {
		t.Errorf("labels of a deleted run: %d, %v", labels, err)
	}
	if n, err := s.Delete(docs[0].ID); !errors.Is(err, store.ErrNotFound) || n != 0 {
		t.Errorf("Delete again: %d, %v", n, err)
	}

	// SaveAll skips what is stored, and repeats within the batch.
	extra := doc("20250302T120000Z-dddd06", "disk.mark", "pi4", at(24), nil)
	saved, skipped, err := s.SaveAll([]*result.Document{docs[1], docs[0], extra, extra})
	if err != nil || saved != 2 || skipped != 2 {
		t.Errorf("SaveAll: saved %d, skipped %d, %v; want 2, 2", saved, skipped, err)
	}
	if all, _ := s.List(store.Filter{}); len(all) != 5 {
		t.Errorf("after SaveAll: %d runs, want 5", len(all))
	}
}

// A new store gets a private directory and file, and an empty file is
// made a store.
func TestCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	path := filepath.Join(dir, "results.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(doc("20250301T120000Z-000001", "disk.sweep", "pi", t0, nil)); err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := rawDB(t, s).QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q, %v", mode, err)
	}
	s.Close()
	for p, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode() != want {
			t.Errorf("%s: %v, %v; want %v", p, fi.Mode(), err, want)
		}
	}
	head, _ := os.ReadFile(path)
	if !bytes.Equal(head[68:72], []byte("thrp")) {
		t.Errorf("application_id in the header: %q", head[68:72])
	}

	empty := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = Open(empty)
	if err != nil {
		t.Fatalf("empty file: %v", err)
	}
	s.Close()
	// An SQLite database without a table, as a process killed while
	// creating a store leaves it, is made a store too.
	bare := filepath.Join(t.TempDir(), "bare.db")
	db, err := sql.Open("sqlite", bare)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA journal_mode = WAL`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if s, err = Open(bare); err != nil {
		t.Fatalf("bare SQLite file: %v", err)
	}
	s.Close()

	// Reopening a store is not a migration.
	s, err = Open(empty)
	if err != nil {
		t.Fatal(err)
	}
	if s.Path() != empty {
		t.Errorf("Path %s", s.Path())
	}
	s.Close()
}

// Odd characters in the path stay in the path (the DSN is a file: URI).
func TestOddPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a b?c#d%20é.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("store not at %q: %v", path, err)
	}
}

// TestDamagedPoint: a point that no longer decodes is an error naming its
// run, not a run judged on nothing; deleting the run deletes its point.
func TestDamagedPoint(t *testing.T) {
	s := openTemp(t)
	d := doc(runID(t0, 1), "disk.sweep", "pi4", t0, nil)
	if err := s.Save(d); err != nil {
		t.Fatal(err)
	}
	raw := rawDB(t, s)
	if _, err := raw.Exec(`UPDATE points SET json = '{"figures": [' WHERE run_id = ?`, d.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recent(store.Filter{}, 1); err == nil || !strings.Contains(err.Error(), "run "+d.ID+": its stored point does not decode") {
		t.Errorf("Recent over a damaged point: %v", err)
	}
	if n, err := s.Delete(d.ID); n != 1 || err != nil {
		t.Fatalf("Delete: %d %v", n, err)
	}
	var left int
	if err := raw.QueryRow(`SELECT count(*) FROM points`).Scan(&left); err != nil || left != 0 {
		t.Errorf("points left after the run's deletion: %d %v", left, err)
	}
}
