package store

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/thruput/thruput/internal/pattern"
)

// ErrLocation marks a store location the user must fix (a scheme thruput
// does not speak, an empty --db, a missing home or directory, a file that
// cannot be written): the command exits 2 before measuring.
var ErrLocation = errors.New("result store")

// Location is where the store is, resolved from --db and the environment.
type Location struct {
	Path string
	// URL is set instead of Path for a PostgreSQL store: a postgres:// or
	// postgresql:// URL, or a libpq keyword/value string.
	URL string
	// Default is set when neither --db nor $THRUPUT_DB chose it: only
	// then are missing directories made.
	Default bool
}

// schemeLike is a value that looks like a URL: thruput must not take
// postgres://host/db for a relative path and make a directory "postgres:".
var schemeLike = pattern.Lazy(`^[A-Za-z][A-Za-z0-9+.-]*://`)

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
		} else if IsPostgres(db) {
			return Location{URL: db}, nil
		} else if schemeLike().MatchString(db) {
			return Location{}, locationErr("%s %s: thruput keeps its results in a SQLite file or in PostgreSQL; give a path, sqlite:PATH or a postgres:// URL", src, Redact(db))
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

// The schemes of the two backends, what Location.Scheme says and
// Register is given.
const (
	SchemeSQLite   = "sqlite"
	SchemePostgres = "postgres"
)

// Scheme names the backend that keeps the store: postgres for a URL,
// sqlite for a file.
func (l Location) Scheme() string {
	if l.URL != "" {
		return SchemePostgres
	}
	return SchemeSQLite
}

// Name is the location as messages show it: the file, or the connection
// string with its password hidden.
func (l Location) Name() string {
	if l.URL != "" {
		return Redact(l.URL)
	}
	return l.Path
}

// Key is what the spool records a run's store as: the absolute file, or
// the connection string without its password (libpq's PGPASSWORD or
// ~/.pgpass gives it again when the run is delivered).
func (l Location) Key() string {
	if l.URL != "" {
		return hidePassword(l.URL, "")
	}
	if abs, err := filepath.Abs(l.Path); err == nil {
		return abs
	}
	return l.Path
}

// libpqKeyValue is a libpq keyword/value connection string ("host=db.lab
// dbname=thruput"): one of libpq's keywords and '=' first, which no store
// file sensibly starts with.
var libpqKeyValue = pattern.Lazy(`^\s*(host|hostaddr|port|dbname|user|password|passfile|connect_timeout|sslmode|sslrootcert|sslcert|sslkey|sslpassword|application_name|options|service|target_session_attrs|krbsrvname|gssencmode|channel_binding|require_auth|load_balance_hosts)\s*=`)

// IsPostgres says whether db names a PostgreSQL store: a postgres:// or
// postgresql:// URL, or a libpq keyword/value string.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") || libpqKeyValue().MatchString(db)
}

// Redact is a connection string as messages show it: a password in the
// user information, in a password= query parameter or keyword replaced.
func Redact(db string) string { return hidePassword(db, "xxxxx") }

// kvPassword is the password of a keyword/value string, quoted ('...',
// with \' and \\ inside) or bare.
var kvPassword = pattern.Lazy(`(^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'?|(?:[^\s\\]|\\.)*)`)

// hidePassword replaces every password in db with mask, or removes it
// when mask is "".
func hidePassword(db, mask string) string {
	if !schemeLike().MatchString(db) {
		if mask == "" {
			// One spelling of the rest, so that the store named with
			// and without its password is one spool key.
			return strings.Join(strings.Fields(kvPassword().ReplaceAllString(db, "$1")), " ")
		}
		return kvPassword().ReplaceAllString(db, "${1}password="+mask)
	}
	u, err := url.Parse(db)
	if err != nil {
		// url's error quotes the URL, password and all.
		scheme, _, _ := strings.Cut(db, "://")
		return scheme + "://..."
	}
	if _, ok := u.User.Password(); ok {
		if mask == "" {
			u.User = url.User(u.User.Username())
		} else {
			u.User = url.UserPassword(u.User.Username(), mask)
		}
	}
	if q := u.Query(); q.Has("password") {
		if mask == "" {
			q.Del("password")
		} else {
			q.Set("password", mask)
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
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
