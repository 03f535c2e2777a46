package store

import (
	"os"
	"strings"
	"testing"
)

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

// TestSpoolKeyWithoutPassword: a keyword/value store named with and
// without its password is one store, so its spooled runs are found either
// way.
func TestSpoolKeyWithoutPassword(t *testing.T) {
	with, without := hidePassword("host=a password='x y' dbname=b", ""), hidePassword("host=a dbname=b", "")
	if with != without || with != "host=a dbname=b" {
		t.Errorf("keys %q and %q", with, without)
	}
}
