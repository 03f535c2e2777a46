package sqlite

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/store"
)

// realStore makes a store holding a few runs, closed, and returns its path.
func realStore(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "real.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if err := s.Save(realisticDoc(i, rngFor(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRefuse: Open turns away what is not a thruput store, in one line
// naming the file, and changes nothing: not the bytes, not the mtime, and
// no journal or WAL appears beside it.
func TestRefuse(t *testing.T) {
	dir := t.TempDir()
	real, err := os.ReadFile(realStore(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 64<<10)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}

	cases := []struct {
		name, want string
		kind       error
		make       func(path string)
	}{
		{"text", "not an SQLite database", store.ErrNotStore, func(p string) {
			os.WriteFile(p, []byte("device=sandisk\nread 23.7 MiB/s\n"+strings.Repeat("x", 200)), 0o644)
		}},
		{"short", "shorter than a header", store.ErrNotStore, func(p string) { os.WriteFile(p, []byte("hi\n"), 0o644) }},
		{"random", "not an SQLite database", store.ErrNotStore, func(p string) { os.WriteFile(p, random, 0o644) }},
		{"bogus header", "header is corrupt", store.ErrNotStore, func(p string) {
			os.WriteFile(p, append([]byte("SQLite format 3\x00"), random[16:]...), 0o644)
		}},
		{"truncated", "truncated", store.ErrNotStore, func(p string) { os.WriteFile(p, real[:len(real)/2], 0o644) }},
		{"schema page overwritten", "corrupt", store.ErrNotStore, func(p string) {
			b := bytes.Clone(real)
			copy(b[100:4096], random)
			os.WriteFile(p, b, 0o644)
		}},
		{"another application", "another application", store.ErrNotStore, func(p string) {
			db, err := sql.Open("sqlite", p)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`CREATE TABLE t(x); INSERT INTO t VALUES (1), ('two')`); err != nil {
				t.Fatal(err)
			}
		}},
		{"another application in WAL", "another application", store.ErrNotStore, func(p string) {
			db, err := sql.Open("sqlite", p)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`PRAGMA application_id = 42; PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1)`); err != nil {
				t.Fatal(err)
			}
		}},
		{"newer", "made by a newer thruput", store.ErrNewer, func(p string) {
			os.WriteFile(p, real, 0o644)
			db, err := sql.Open("sqlite", p)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`PRAGMA user_version = 99`); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".db")
			c.make(path)
			// An old mtime, so that any write would show.
			old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			entries, _ := os.ReadDir(dir)

			s, err := Open(path)
			if err == nil {
				s.Close()
				t.Fatal("Open accepted it")
			}
			msg := err.Error()
			t.Log(msg)
			if !errors.Is(err, c.kind) || !strings.Contains(msg, c.want) || !strings.Contains(msg, path) || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line naming %s, saying %q, matching %v", msg, path, c.want, c.kind)
			}
			after, _ := os.ReadFile(path)
			fi, _ := os.Stat(path)
			if !bytes.Equal(before, after) || !fi.ModTime().Equal(old) {
				t.Errorf("the file was modified (same bytes %v, mtime %v)", bytes.Equal(before, after), fi.ModTime())
			}
			if now, _ := os.ReadDir(dir); len(now) != len(entries) {
				t.Errorf("files appeared beside it: %v", now)
			}
		})
	}

	// A newer thruput's migration still in the WAL: the header says the
	// old version, so SQLite has to be asked, and nothing is written.
	t.Run("newer not yet checkpointed", func(t *testing.T) {
		path := filepath.Join(dir, "newer-wal.db")
		os.WriteFile(path, real, 0o644)
		old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		os.Chtimes(path, old, old)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(`PRAGMA wal_autocheckpoint = 0; PRAGMA user_version = 99`); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(path)
		if v := binary.BigEndian.Uint32(before[60:64]); v != uint32(len(migrations)) {
			t.Fatalf("the header already says version %d: the test needs the change in the WAL", v)
		}
		_, err = Open(path)
		if !errors.Is(err, store.ErrNewer) || !strings.Contains(err.Error(), "made by a newer thruput") {
			t.Errorf("error %v, want store.ErrNewer", err)
		}
		after, _ := os.ReadFile(path)
		fi, _ := os.Stat(path)
		if !bytes.Equal(before, after) || !fi.ModTime().Equal(old) {
			t.Errorf("the file was modified")
		}
	})

	t.Run("directory", func(t *testing.T) {
		_, err := Open(dir)
		if !errors.Is(err, store.ErrNotStore) || !strings.Contains(err.Error(), "is a directory") || !strings.Contains(err.Error(), dir) {
			t.Errorf("directory: %v", err)
		}
	})
}
