package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseLabelQuery(t *testing.T) {
	for in, want := range map[string]LabelQuery{
		"device=sandisk": {Key: "device", Value: "sandisk"},
		"device":         {Key: "device", Any: true},
		"note=":          {Key: "note"},
		"a=b=c":          {Key: "a", Value: "b=c"},
	} {
		got, err := ParseLabelQuery(in)
		if err != nil || got != want {
			t.Errorf("ParseLabelQuery(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "=x", "bad key", "bad key=x", "k=\x01"} {
		if _, err := ParseLabelQuery(in); err == nil {
			t.Errorf("ParseLabelQuery(%q) accepted", in)
		}
	}
}

func TestResolve(t *testing.T) {
	home, data := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("THRUPUT_DB", "")
	t.Setenv("XDG_DATA_HOME", "")
	for _, c := range []struct {
		env     map[string]string
		db      string
		set     bool
		want    string
		deflt   bool
		wantErr string
		wantURL string
	}{
		{want: home + "/.local/share/thruput/results.db", deflt: true},
		{env: map[string]string{"XDG_DATA_HOME": data}, want: data + "/thruput/results.db", deflt: true},
		{env: map[string]string{"XDG_DATA_HOME": "relative"}, want: home + "/.local/share/thruput/results.db", deflt: true},
		{env: map[string]string{"THRUPUT_DB": "/tmp/x.db"}, want: "/tmp/x.db"},
		{env: map[string]string{"THRUPUT_DB": "/tmp/x.db"}, db: "y.db", set: true, want: "y.db"},
		{db: "sqlite:/tmp/z.db", set: true, want: "/tmp/z.db"},
		{db: "", set: true, wantErr: "--db is empty"},
		{db: "postgres://u:secret@db/x", set: true, wantURL: "postgres://u:secret@db/x"},
		{env: map[string]string{"THRUPUT_DB": "postgresql:///x?host=/run/postgresql"}, wantURL: "postgresql:///x?host=/run/postgresql"},
		{db: "http://u:secret@db/x", set: true, wantErr: "http://u:xxxxx@db/x: thruput keeps its results in a SQLite file or in PostgreSQL"},
		{env: map[string]string{"THRUPUT_DB": "mysql://h/x"}, wantErr: "THRUPUT_DB mysql://h/x"},
		{db: "sqlite:", set: true, wantErr: "names no file"},
		{env: map[string]string{"HOME": "/nonexistent"}, wantErr: "$HOME is /nonexistent"},
		{env: map[string]string{"XDG_DATA_HOME": "/nonexistent"}, wantErr: "$XDG_DATA_HOME is /nonexistent"},
	} {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		l, err := Resolve(c.db, c.set)
		switch {
		case c.wantErr != "" && (!errors.Is(err, ErrLocation) || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%v %q: %v, want %q", c.env, c.db, err, c.wantErr)
		case c.wantErr == "" && (err != nil || l.Path != c.want || l.Default != c.deflt || l.URL != c.wantURL):
			t.Errorf("%v %q: %+v %v, want %s", c.env, c.db, l, err, c.want)
		}
		if strings.Contains(fmt.Sprint(err), "secret") {
			t.Errorf("the password is shown: %v", err)
		}
		t.Setenv("HOME", home)
		t.Setenv("THRUPUT_DB", "")
		t.Setenv("XDG_DATA_HOME", "")
	}
}

func TestLocationCheck(t *testing.T) {
	dir := t.TempDir()
	ok := []Location{
		{Path: filepath.Join(dir, "new.db")},
		{Path: filepath.Join(dir, "a", "b", "results.db"), Default: true},
	}
	for _, l := range ok {
		if err := l.Check(); err != nil {
			t.Errorf("%+v: %v", l, err)
		}
	}
	bad := map[Location]string{
		{Path: filepath.Join(dir, "missing", "x.db")}: "does not exist",
		{Path: dir}:          "is a directory",
		{Path: "/proc/x.db"}: "cannot make the store",
	}
	for l, want := range bad {
		if err := l.Check(); !errors.Is(err, ErrLocation) || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", l, err, want)
		}
	}
	// Nothing is left behind: no probe file, no directories made.
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("Check left %v behind", es)
	}
}

// TestOpenUnregistered: package store alone has no backend (store/sqlite
// and store/postgres register themselves when imported); a location of a
// scheme no backend registered is the user's to fix, named by its scheme.
func TestOpenUnregistered(t *testing.T) {
	for _, l := range []Location{{Path: "results.db"}, {URL: "postgres://lab:secret@db.lab/thruput"}} {
		s, err := Open(l, Create)
		if s != nil || !errors.Is(err, ErrLocation) || !strings.Contains(err.Error(), "keeps no "+l.Scheme()+" stores (it has none)") || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: %v, %v", l.Name(), s, err)
		}
	}
}
