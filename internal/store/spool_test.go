package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// TestSpoolPerStore: a run spooled for one store waits for that store,
// however many saves go into another meanwhile.
func TestSpoolPerStore(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) *DB {
		s, err := Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b := open("a.db"), open("b.db")
	sp := Spool{Dir: filepath.Join(dir, "spool")}
	d := &result.Document{FormatVersion: result.FormatVersion, ID: "20261125T060000Z-sp0001", Method: "disk.io", Status: result.StatusOK, StartedAt: time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)}
	if _, err := sp.Add(a.Key(), d); err != nil {
		t.Fatal(err)
	}
	pg := "postgres://lab:secret@db.lab/thruput?sslmode=disable"
	if _, err := sp.Add(Location{URL: pg}.Key(), d); err != nil {
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

func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, shown, key string }{
		{"postgres://u:secret@db/x", "postgres://u:xxxxx@db/x", "postgres://u@db/x"},
		{"postgres://u@127.0.0.1:1/x?password=secret", "postgres://u@127.0.0.1:1/x?password=xxxxx", "postgres://u@127.0.0.1:1/x"},
		{"postgresql:///x?host=/run/postgresql&password=secret&sslmode=disable", "postgresql:///x?host=%2Frun%2Fpostgresql&password=xxxxx&sslmode=disable", "postgresql:///x?host=%2Frun%2Fpostgresql&sslmode=disable"},
		{"postgres://u@db/x", "postgres://u@db/x", "postgres://u@db/x"},
		{"host=db.lab dbname=thruput password=secret", "host=db.lab dbname=thruput password=xxxxx", "host=db.lab dbname=thruput"},
		{"password = 'se cr\\'et' host=db.lab", "password=xxxxx host=db.lab", "host=db.lab"},
		{"postgres://u:secret@db:notaport/x", "postgres://...", "postgres://..."},
	} {
		if got := Redact(c.in); got != c.shown || strings.Contains(got, "secret") {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.shown)
		}
		if got := (Location{URL: c.in}).Key(); got != c.key {
			t.Errorf("Key(%q) = %q, want %q", c.in, got, c.key)
		}
	}
}

func TestResolveLibpq(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, db := range []string{"host=db.lab dbname=thruput password=secret", "dbname=thruput", " user=lab host=/run/postgresql"} {
		l, err := Resolve(db, true)
		if err != nil || l.URL != db || l.Path != "" {
			t.Errorf("Resolve(%q) = %+v %v, want a PostgreSQL store", db, l, err)
		}
		if strings.Contains(l.Name(), "secret") {
			t.Errorf("Name shows the password: %s", l.Name())
		}
	}
	// A file name with '=' that is not a libpq keyword stays a file.
	if l, err := Resolve("runs=old.db", true); err != nil || l.Path != "runs=old.db" {
		t.Errorf("Resolve(runs=old.db) = %+v %v", l, err)
	}
	if es, _ := os.ReadDir("."); len(es) != 0 {
		t.Errorf("Resolve made %v", es)
	}
}
