package postgres

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/thruput/thruput/internal/pgtest"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/store/storetest"
)

func TestPostgres(t *testing.T) {
	t.Parallel()
	c := pgtest.New(t)
	t.Run("contract", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) store.Store {
			s, err := Open(c.NewDatabase(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
	t.Run("migrate once", func(t *testing.T) {
		// Ten processes' worth of first opens at once: one creates the
		// schema, the others find it.
		u := c.NewDatabase(t)
		var wg sync.WaitGroup
		errs := make(chan error, 10)
		for range 10 {
			wg.Go(func() {
				s, err := Open(u)
				if err == nil {
					err = s.Close()
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		cfg, _ := Parse(u)
		db := stdlib.OpenDB(*cfg)
		defer db.Close()
		var v int
		if err := db.QueryRow(`SELECT version FROM thruput.schema_version`).Scan(&v); err != nil || v != len(migrations) {
			t.Errorf("schema version %d %v", v, err)
		}
		// A schema from a newer thruput is refused, untouched.
		db.Exec(`UPDATE thruput.schema_version SET version = 99`)
		if _, err := Open(u); !errors.Is(err, store.ErrNewer) {
			t.Errorf("a newer schema: %v", err)
		}
	})
	t.Run("from version 1", func(t *testing.T) {
		// A store of the first schema, with a run: opening it to save
		// adds the device ids, none for the old run, which still lists.
		u := c.NewDatabase(t)
		cfg, _ := Parse(u)
		db := stdlib.OpenDB(*cfg)
		defer db.Close()
		if _, err := db.Exec(`CREATE SCHEMA thruput; SET search_path = thruput; ` + migrations[0].sql + `
			CREATE TABLE thruput.schema_version (version INTEGER NOT NULL); INSERT INTO thruput.schema_version VALUES (1);
			INSERT INTO thruput.runs (id, method, host, started_at, status, target) VALUES ('20260301T120000Z-ffff03', 'disk.sweep', 'pi4', 0, 'ok', '/mnt/pi4');
			INSERT INTO thruput.documents (run_id, json) VALUES ('20260301T120000Z-ffff03', '{"id":"20260301T120000Z-ffff03","method":"disk.sweep"}')`); err != nil {
			t.Fatal(err)
		}
		s, err := Open(u)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		d := storetest.Doc("20260301T130000Z-ffff04", "disk.sweep", "pi4", 1, nil)
		d.Targets[0].DeviceID = "sd:03-5344-sr64g--2018-08"
		if err := s.Save(d); err != nil {
			t.Fatal(err)
		}
		if es, err := s.List(store.Filter{}); err != nil || len(es) != 2 || es[1].DeviceIDs != nil || es[0].DeviceIDs[0] != d.Targets[0].DeviceID {
			t.Errorf("runs after the migration: %+v %v", es, err)
		}
		if es, err := s.List(store.Filter{Device: "sd:03"}); err != nil || len(es) != 1 || es[0].ID != d.ID {
			t.Errorf("the device filter after the migration: %+v %v", es, err)
		}
	})
	t.Run("from version 2", func(t *testing.T) {
		// Every method's frozen document stored as the thruput before
		// the series columns and points did: opening the store derives
		// them from the documents.
		u := c.NewDatabase(t)
		cfg, _ := Parse(u)
		db := stdlib.OpenDB(*cfg)
		defer db.Close()
		if _, err := db.Exec(`CREATE SCHEMA thruput; SET search_path = thruput; ` + migrations[0].sql + migrations[1].sql + `
			CREATE TABLE thruput.schema_version (version INTEGER NOT NULL); INSERT INTO thruput.schema_version VALUES (2)`); err != nil {
			t.Fatal(err)
		}
		docs := storetest.FrozenRuns(t)
		for _, d := range docs {
			js, _ := json.Marshal(d)
			c := store.DeriveColumns(d)
			if _, err := db.Exec(`INSERT INTO thruput.runs (id, method, host, started_at, status, target, fs_type, summary, imported, device_ids) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10);`,
				d.ID, d.Method, d.Host.Hostname, d.StartedAt.UnixNano(), d.Status, c.Target, c.FSType, c.Summary, c.Imported, c.DeviceIDs); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`INSERT INTO thruput.documents (run_id, json) VALUES ($1, $2)`, d.ID, string(js)); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`INSERT INTO thruput.labels (run_id, key, value) VALUES ($1, 'n', $2)`, d.ID, d.Labels["n"]); err != nil {
				t.Fatal(err)
			}
		}
		s, err := Open(u)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		storetest.CheckPoints(t, s, docs)
	})
	t.Run("a role that may only read", func(t *testing.T) {
		u := c.NewDatabase(t)
		s, err := Open(u)
		if err != nil {
			t.Fatal(err)
		}
		d := storetest.Doc("20260301T120000Z-ffff02", "disk.sweep", "pi4", 0, nil)
		if err := s.Save(d); err != nil {
			t.Fatal(err)
		}
		s.Close()
		cfg, _ := Parse(u)
		db := stdlib.OpenDB(*cfg)
		defer db.Close()
		if _, err := db.Exec(`CREATE ROLE reader LOGIN PASSWORD 'reader-pw';
			GRANT USAGE ON SCHEMA thruput TO reader; GRANT SELECT ON ALL TABLES IN SCHEMA thruput TO reader`); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Exec(`DROP OWNED BY reader; DROP ROLE reader`) })
		ru, _ := url.Parse(u)
		ru.User = url.UserPassword("reader", "reader-pw")
		for _, open := range []func(string) (*store.DB, error){Open, OpenRead} {
			r, err := open(ru.String())
			if err != nil {
				t.Fatalf("a current store opened by a role that may only read: %v", err)
			}
			if es, err := r.List(store.Filter{}); err != nil || len(es) != 1 {
				t.Errorf("List as the reader: %v %v", es, err)
			}
			if _, err := r.Latest(store.Filter{}); err != nil {
				t.Errorf("Latest as the reader: %v", err)
			}
			r.Close()
		}
		// A database without the schema is no store to read from.
		if _, err := OpenRead(c.NewDatabase(t)); !errors.Is(err, store.ErrLocation) || !strings.Contains(err.Error(), "no result store at") {
			t.Errorf("OpenRead of an empty database: %v", err)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		start := time.Now()
		_, err := Open(c.URL("wrong-password"))
		if !errors.Is(err, ErrUnreachable) || strings.Contains(err.Error(), "wrong-password") || !strings.Contains(err.Error(), "password") {
			t.Errorf("a wrong password: %v", err)
		}
		// Nothing listens on this socket directory.
		u := strings.Replace(c.URL(pgtest.Password), url.QueryEscape(c.Socket), url.QueryEscape(t.TempDir()), 1)
		if _, err := Open(u); !errors.Is(err, ErrUnreachable) || strings.Contains(err.Error(), pgtest.Password) {
			t.Errorf("no server: %v", err)
		}
		// A refusal waits for no timeout: 5 s leaves a loaded machine
		// room and still catches retries until some later deadline.
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("the refusals took %v", took)
		}
		if _, err := Open("postgres://u:pw@host:notaport/db"); !errors.Is(err, store.ErrLocation) || strings.Contains(err.Error(), ":pw@") {
			t.Errorf("a bad URL: %v", err)
		}
	})
	t.Run("saved runs survive reopening", func(t *testing.T) {
		u := c.NewDatabase(t)
		s, err := Open(u)
		if err != nil {
			t.Fatal(err)
		}
		d := storetest.Doc("20260301T120000Z-ffff01", "disk.sweep", "pi4", 0, map[string]string{"host": "pi4"})
		if err := s.Save(d); err != nil {
			t.Fatal(err)
		}
		s.Close()
		s2, err := Open(u)
		if err != nil {
			t.Fatal(err)
		}
		defer s2.Close()
		if got, err := s2.Get("20260301T120000Z-ffff01"); err != nil || got.Status != result.StatusOK {
			t.Errorf("%v %v", got, err)
		}
		if strings.Contains(s2.Path(), pgtest.Password) {
			t.Errorf("Path shows the password: %s", s2.Path())
		}
	})
}
