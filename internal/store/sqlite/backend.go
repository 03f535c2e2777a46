package sqlite

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/thruput/thruput/internal/store"
)

// The SQLite backend of store.Open, for every location that names a file.
func init() { store.Register(store.SchemeSQLite, open) }

func open(loc store.Location, m store.Mode) (store.Store, error) {
	if m == store.Existing || m == store.Await {
		if _, err := os.Stat(loc.Path); errors.Is(err, fs.ErrNotExist) {
			abs, err := filepath.Abs(loc.Path)
			if err != nil {
				return nil, err
			}
			if fi, err := os.Stat(filepath.Dir(abs)); m == store.Await && err == nil && fi.IsDir() {
				return Pending(abs), nil
			}
			return nil, store.Refuse(store.ErrLocation, "no result store at %s yet: every run saves there (or give --db FILE)", loc.Path)
		}
	}
	if m == store.ReadOnly {
		return OpenRead(loc.Path)
	}
	return Open(loc.Path)
}
