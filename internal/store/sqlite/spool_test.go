package sqlite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
)

// TestSpoolPerStore: a run spooled for one store waits for that store,
// however many saves go into another meanwhile.
func TestSpoolPerStore(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) *store.DB {
		s, err := Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b := open("a.db"), open("b.db")
	sp := store.Spool{Dir: filepath.Join(dir, "spool")}
	d := &result.Document{FormatVersion: result.FormatVersion, ID: "20261125T060000Z-sp0001", Method: "disk.io", Status: result.StatusOK, StartedAt: time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)}
	if _, err := sp.Add(a.Key(), d); err != nil {
		t.Fatal(err)
	}
	pg := "postgres://lab:secret@db.lab/thruput?sslmode=disable"
	if _, err := sp.Add(store.Location{URL: pg}.Key(), d); err != nil {
		t.Fatal(err)
	}
	keys, err := sp.Stores()
	if err != nil || len(keys) != 2 || keys[0] != a.Key() || keys[1] != "postgres://lab@db.lab/thruput?sslmode=disable" {
		t.Fatalf("Stores: %q %v", keys, err)
	}
	if saved, _, err := sp.Deliver(b.Key(), b); saved != 0 || err != nil {
		t.Errorf("a run spooled for a.db went into b.db: %d %v", saved, err)
	}
	if _, err := b.Get(d.ID); err == nil {
		t.Error("b.db holds the run spooled for a.db")
	}
	if saved, _, err := sp.Deliver(a.Key(), a); saved != 1 || err != nil {
		t.Errorf("delivering into a.db: %d %v", saved, err)
	}
	if _, err := a.Get(d.ID); err != nil {
		t.Error(err)
	}
	if keys, _ := sp.Stores(); len(keys) != 1 || !strings.HasPrefix(keys[0], "postgres://") {
		t.Errorf("after delivering a.db's run, the spool waits for %q", keys)
	}
	// No password is ever written to the spool.
	filepath.Walk(sp.Dir, func(p string, fi os.FileInfo, err error) error {
		if b, _ := os.ReadFile(p); err == nil && strings.Contains(string(b), "secret") {
			t.Errorf("%s holds the password", p)
		}
		return nil
	})
}
