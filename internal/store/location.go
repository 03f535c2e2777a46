package store

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ErrLocation marks a store location the user must fix (a scheme thruput
// does not speak, an empty --db, a missing home or directory, a file that
// cannot be written): the command exits 2 before measuring.
var ErrLocation = errors.New("result store")

// Location is where the store is, resolved from --db and the environment.
type Location struct {
	Path string
	// URL is set instead of Path for a PostgreSQL store
	// (postgres://, postgresql://).
	URL string
	// Default is set when neither --db nor $THRUPUT_DB chose it: only
	// then are missing directories made.
	Default bool
}

// schemeLike is a value that looks like a URL: thruput must not take
// postgres://host/db for a relative path and make a directory "postgres:".
var schemeLike = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

func locationErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrLocation, fmt.Sprintf(format, args...))
}

// Resolve settles the store from --db (set says whether it was given, so
// that an empty one is refused, not taken for the default), then
// $THRUPUT_DB, then $XDG_DATA_HOME/thruput/results.db, then
// $HOME/.local/share/thruput/results.db. A path may be written
// sqlite:PATH.
func Resolve(db string, set bool) (Location, error) {
	src := "--db"
	if !set {
		db, src = os.Getenv("THRUPUT_DB"), "THRUPUT_DB"
	}
	if set && db == "" {
		return Location{}, locationErr("--db is empty: give the store's file, or leave --db out for the default")
	}
	if db != "" {
		if rest, ok := strings.CutPrefix(db, "sqlite:"); ok && !strings.HasPrefix(rest, "//") {
			db = rest
		} else if strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") {
			return Location{URL: db}, nil
		} else if schemeLike.MatchString(db) {
			shown := db
			if u, err := url.Parse(db); err == nil {
				shown = u.Redacted()
			}
			return Location{}, locationErr("%s %s: thruput keeps its results in a SQLite file or in PostgreSQL; give a path, sqlite:PATH or a postgres:// URL", src, shown)
		}
		if db == "" {
			return Location{}, locationErr("%s sqlite: names no file", src)
		}
		return Location{Path: db}, nil
	}
	// The XDG spec says a relative XDG_DATA_HOME is invalid and to be
	// ignored.
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		if err := isDir(d, "XDG_DATA_HOME"); err != nil {
			return Location{}, err
		}
		return Location{Path: filepath.Join(d, "thruput", "results.db"), Default: true}, nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return Location{}, locationErr("no home directory ($HOME is not set): give the store with --db FILE or THRUPUT_DB")
	}
	if err := isDir(home, "HOME"); err != nil {
		return Location{}, err
	}
	return Location{Path: filepath.Join(home, ".local", "share", "thruput", "results.db"), Default: true}, nil
}

func isDir(d, name string) error {
	fi, err := os.Stat(d)
	if err == nil && fi.IsDir() {
		return nil
	}
	return locationErr("$%s is %s, which is not a directory here: give the store with --db FILE or THRUPUT_DB", name, d)
}

// Check makes sure a run can be saved at l before anything is measured:
// an existing file must be writable, a new one needs a directory it can
// be made in (missing directories are made only for the default
// location, and then only below an existing one that is writable). It
// leaves nothing behind.
func (l Location) Check() error {
	if l.URL != "" {
		return nil // the server is asked when the store is opened
	}
	fi, err := os.Stat(l.Path)
	switch {
	case err == nil && fi.IsDir():
		return locationErr("%s is a directory, not a store file", l.Path)
	case err == nil:
		f, err := os.OpenFile(l.Path, os.O_WRONLY, 0)
		if err != nil {
			return locationErr("%s cannot be written: %v", l.Path, errors.Unwrap(err))
		}
		return f.Close()
	case !errors.Is(err, fs.ErrNotExist):
		return locationErr("%s: %v", l.Path, errors.Unwrap(err))
	}
	dir := filepath.Dir(l.Path)
	for {
		fi, err := os.Stat(dir)
		if err == nil && !fi.IsDir() {
			return locationErr("%s is not a directory", dir)
		}
		if err == nil {
			break
		}
		if !l.Default {
			return locationErr("the directory %s does not exist: make it, or give another --db", filepath.Dir(l.Path))
		}
		dir = filepath.Dir(dir)
	}
	probe, err := os.CreateTemp(dir, ".thruput-check-*")
	if err != nil {
		return locationErr("cannot make the store %s: %v", l.Path, errors.Unwrap(err))
	}
	probe.Close()
	return os.Remove(probe.Name())
}
