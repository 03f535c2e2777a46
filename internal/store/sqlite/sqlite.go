// Package sqlite keeps the result history in a SQLite file of one's own
// (results.db unless --db names another): the store contract of package
// store over modernc.org/sqlite, pure Go so that the binary stays static,
// in a file whose schema the program creates and migrates.
//
// Several thruput processes may write one store at once (a script that runs
// a disk and a network test side by side): the file is in WAL mode, every
// write is one BEGIN IMMEDIATE transaction, and a writer that finds the file
// locked waits for it instead of failing.
//
// A file that is not a thruput store is never written to: Open reads its
// header in plain Go before SQLite sees it, so pointing --db at the wrong
// file cannot damage that file.
package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/thruput/thruput/internal/store"
)

// ApplicationID marks a SQLite file as a thruput store in the header
// (offset 68), where file(1) and Open can see it without running SQL. It
// spells "thrp" in ASCII.
const ApplicationID = 0x74687270

// BusyTimeoutMs is how long a writer waits for another process's write
// transaction before giving up. Saves are small; only a large import holds
// the lock for long (10,000 runs take a few seconds here, longer on a Pi),
// and a run that waited minutes to be measured should not be lost to it.
const BusyTimeoutMs = 120000

// storeError is Open's refusal: one line naming the file, matching
// store.ErrNotStore or store.ErrNewer with errors.Is.
type storeError struct {
	path, why string
	kind      error
}

func (e *storeError) Error() string {
	if e.kind == store.ErrNewer {
		return fmt.Sprintf("%s: result store %s (%s); left untouched", e.path, e.kind, e.why)
	}
	return fmt.Sprintf("%s is %s: %s; left untouched", e.path, e.kind, e.why)
}

func (e *storeError) Unwrap() error { return e.kind }

func notStore(path, format string, a ...any) error {
	return &storeError{path: path, why: fmt.Sprintf(format, a...), kind: store.ErrNotStore}
}

// statFile makes path absolute, the name the store is known by, and says
// what is there: nil when nothing is, or why it cannot be a store's file.
func statFile(path string) (string, fs.FileInfo, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", nil, fmt.Errorf("open result store %s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return abs, nil, nil
	case err != nil:
		return "", nil, fmt.Errorf("open result store: %w", err)
	case fi.IsDir():
		return "", nil, notStore(abs, "it is a directory")
	case !fi.Mode().IsRegular():
		return "", nil, notStore(abs, "it is not a regular file")
	}
	return abs, fi, nil
}

// Open opens the store at path, creating it (and its directory, 0700) when
// it does not exist, and migrating an older schema to the current one.
func Open(path string) (*store.DB, error) {
	if path == "" {
		return nil, errors.New("open result store: empty path")
	}
	abs, fi, err := statFile(path)
	switch {
	case err != nil:
		return nil, err
	case fi == nil:
		if err := create(abs); err != nil {
			return nil, err
		}
	case fi.Size() > 0:
		if err := checkHeader(abs); err != nil {
			return nil, err
		}
	}
	// An empty file (size 0) falls through: SQLite makes a database of it,
	// and migrate initialises it under the write lock.

	db, err := openDB(abs, dsn(abs, false))
	if err != nil {
		return nil, err
	}
	if err := migrate(context.Background(), db, abs); err != nil {
		db.Close()
		// A store the user may only read (another user's, on a read-only
		// mount) is opened to read, as a current store needs no write:
		// listing it works, and a save says it cannot write.
		var se *sqlite.Error
		if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_READONLY {
			return OpenRead(abs)
		}
		return nil, err
	}
	return store.NewDB(db, store.Location{Path: abs}, store.SQLite), nil
}

// openDB opens the store at abs through dsn with one connection: a CLI
// does one thing at a time, every method reads its rows to the end before
// returning, and each connection costs a page cache, which matters on a
// 512 MiB Pi.
func openDB(abs, dsn string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open result store %s: %w", abs, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// OpenRead opens an existing store only to read it, as the source of a
// copy: nothing is created, migrated or switched to WAL, so a store the
// user may not write (another user's, on a read-only mount) can be read.
// A missing file is store.ErrLocation; a store of an older schema, which
// reading cannot migrate, is refused with what to do.
func OpenRead(path string) (*store.DB, error) {
	abs, fi, err := statFile(path)
	switch {
	case err != nil:
		return nil, err
	case fi == nil:
		return nil, fmt.Errorf("%w: no result store at %s", store.ErrLocation, abs)
	case fi.Size() == 0:
		return nil, notStore(abs, "it is empty")
	}
	if err := checkHeader(abs); err != nil {
		return nil, err
	}
	db, err := openDB(abs, dsn(abs, true))
	if err != nil {
		return nil, err
	}
	st, err := readState(context.Background(), db)
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_READONLY && !nonEmpty(abs+"-wal") {
		// A WAL store needs its -shm, which a user who may not write the
		// directory cannot make. With no WAL to recover the file alone is
		// the store, and may be read as immutable.
		db.Close()
		if db, err = openDB(abs, dsn(abs, true)+"&immutable=1"); err != nil {
			return nil, err
		}
		st, err = readState(context.Background(), db)
	}
	if err == nil {
		_, err = st.check(abs)
	} else {
		err = damaged(abs, err)
	}
	if err == nil && st.version < len(migrations) {
		err = fmt.Errorf("%w: %s is a result store of an older thruput (schema version %d of %d); saving a run into it, or `thruput results list --db %s` by a user who may write it, upgrades it", store.ErrLocation, abs, st.version, len(migrations), abs)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return store.NewDB(db, store.Location{Path: abs}, store.SQLite), nil
}

// create makes the file with O_EXCL and mode 0600 before SQLite opens it,
// so the store (and its -wal and -shm, which SQLite gives the same mode) is
// private even under a permissive umask. Losing the O_EXCL race to another
// process is fine: both then initialise under the write lock.
func create(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create result store: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create result store: %w", err)
	}
	return f.Close()
}

// dsn builds a file: URI, so that a path holding '?' or '#' stays a path.
//
// synchronous=NORMAL in WAL mode syncs the WAL at checkpoints, not at every
// commit: a committed run survives the process being killed (the WAL is in
// the OS page cache) and the file is never corrupted, but a power cut may
// lose the last commits. A benchmark history can afford that; the fsync per
// save on an SD card it saves would be felt.
//
// A store opened to read only is opened mode=ro: SQLite then neither
// writes the file nor needs to write its directory.
func dsn(path string, readOnly bool) string {
	var b strings.Builder
	b.WriteString("file:")
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/._-~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	fmt.Fprintf(&b, "?_txlock=immediate&_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)", BusyTimeoutMs)
	if readOnly {
		b.WriteString("&mode=ro")
	}
	return b.String()
}

// checkHeader decides from the 100-byte SQLite header alone, without SQLite
// opening the file, whether it may be a thruput store: SQLite would roll a
// hot journal back or switch the journal mode of whatever it was pointed
// at, and Open promises to leave a foreign file alone.
func checkHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open result store: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open result store: %w", err)
	}
	var h [100]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return notStore(path, "it is not an SQLite database (%d bytes, shorter than a header)", fi.Size())
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return notStore(path, "it is not an SQLite database")
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize&(pageSize-1) != 0 || h[18] < 1 || h[18] > 2 || h[19] < 1 || h[19] > 2 ||
		h[21] != 64 || h[22] != 32 || h[23] != 32 {
		return notStore(path, "its SQLite header is corrupt")
	}
	appID := binary.BigEndian.Uint32(h[68:72])
	version := binary.BigEndian.Uint32(h[60:64])
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	sizeValid := binary.BigEndian.Uint32(h[92:96]) == binary.BigEndian.Uint32(h[24:28])

	switch {
	case appID == ApplicationID:
	case appID == 0 && version == 0 && sizeValid && pages == 1 && fi.Size() == pageSize && !nonEmpty(path+"-wal") && emptySchema(f, pageSize):
		// An SQLite database with no tables at all holds nothing to lose:
		// what a process killed while initialising a new store leaves.
		return nil
	default:
		return foreign(path, uint32(appID))
	}
	if int(version) > len(migrations) {
		return &storeError{path: path, kind: store.ErrNewer, why: fmt.Sprintf("schema version %d, this thruput knows up to %d", version, len(migrations))}
	}
	// A page count larger than the file is a truncated copy, unless a
	// journal or WAL being written or recovered explains the difference.
	if sizeValid && pages*pageSize > fi.Size() && !exists(path+"-journal") && !nonEmpty(path+"-wal") {
		return notStore(path, "the file is truncated (%d of %d bytes)", fi.Size(), pages*pageSize)
	}
	return nil
}

func foreign(path string, appID uint32) error {
	if appID == 0 {
		return notStore(path, "it is an SQLite database of another application")
	}
	return notStore(path, "it is an SQLite database of another application (application_id %#x)", appID)
}

// emptySchema reports whether page 1, the schema table's root, holds no
// entries: a table-leaf page (0x0d) with zero cells.
func emptySchema(f *os.File, pageSize int64) bool {
	var b [8]byte
	if _, err := f.ReadAt(b[:], 100); err != nil {
		return false
	}
	return b[0] == 0x0d && binary.BigEndian.Uint16(b[3:5]) == 0
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func nonEmpty(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Size() > 0
}

// damaged turns SQLite's verdict on a file whose header looked right into
// Open's one-line refusal.
func damaged(path string, err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT:
			return notStore(path, "the database is corrupt (%s)", sqliteMessage(se))
		case sqlite3.SQLITE_NOTADB:
			return notStore(path, "it is not an SQLite database")
		}
	}
	return fmt.Errorf("open result store %s: %w", path, err)
}

// sqliteMessage is SQLite's own words without the driver's code suffix.
func sqliteMessage(e *sqlite.Error) string {
	msg := e.Error()
	if i := strings.LastIndex(msg, " ("); i > 0 {
		msg = msg[:i]
	}
	return msg
}
