package lifecycle

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
)

// History is the result store a command keeps its runs in: where it is
// (--db, else $THRUPUT_DB, else the default), the store once open, and
// the spool for runs it cannot take. A command opens it once; main
// closes it.
type History struct {
	// DB is --db, and DBSet whether it was given at all: --db '' is
	// refused, not taken for the default.
	DB    string
	DBSet bool
	// Loc is where the store is, once Location has resolved it.
	Loc *store.Location
	// Store is the open store: nil before it is opened, and while a
	// store that does not exist yet waits for the first run to save.
	Store store.Store
	// SaveLog is where "saved as" notes go; nil means nowhere.
	SaveLog io.Writer
	// pending is a store file that does not exist yet: a run creates it
	// when it saves, so a run refused before measuring leaves no store.
	pending bool
}

// Location resolves --db and the environment once.
func (h *History) Location() (store.Location, error) {
	if h.Loc == nil {
		l, err := store.Resolve(h.DB, h.DBSet)
		if err != nil {
			return l, err
		}
		h.Loc = &l
	}
	return *h.Loc, nil
}

// Prepare makes sure a run can be saved before anything is measured, so
// that a --db that is not a thruput store, or cannot be written, stops
// the run at once rather than after it. A store file that does not exist
// yet is made by the first save.
func (h *History) Prepare() error {
	if h.Store != nil {
		return nil
	}
	loc, err := h.Location()
	if err != nil {
		return err
	}
	if err := loc.Check(); err != nil {
		return err
	}
	if _, err := os.Stat(loc.Path); loc.URL == "" && errors.Is(err, fs.ErrNotExist) {
		h.pending = true
		return nil
	}
	_, err = h.Open()
	return err
}

// Open opens the store to save into, creating it when it does not exist.
func (h *History) Open() (store.Store, error) { return h.open(store.Create) }

// Read opens the store for the commands that read or edit the history:
// one that does not exist is not created, so a mistyped --db says so.
func (h *History) Read() (store.Store, error) { return h.open(store.Existing) }

// ReadOnly opens the store only to read it, as the source of a copy: it
// must exist, and is not created, migrated or written.
func (h *History) ReadOnly() (store.Store, error) { return h.open(store.ReadOnly) }

// Follow is Read, except that a store file which does not exist yet, in
// a directory that does, is an empty history until the first run saves
// there (serve, started with the machine before the first run). It says
// so on stderr, where a mistyped path shows.
func (h *History) Follow(stderr io.Writer) (store.Store, error) {
	s, err := h.open(store.Await)
	if err != nil {
		return nil, err
	}
	loc, _ := h.Location()
	if _, serr := os.Stat(s.Path()); loc.URL == "" && errors.Is(serr, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "thruput: no result store at %s yet: an empty history until the first run saves there\n", s.Path())
	}
	return s, nil
}

// open opens the store once per command for m.
func (h *History) open(m store.Mode) (store.Store, error) {
	if h.Store != nil {
		return h.Store, nil
	}
	loc, err := h.Location()
	if err != nil {
		return nil, err
	}
	s, err := store.Open(loc, m)
	if err != nil {
		return nil, err
	}
	h.Store = s
	return s, nil
}

// Close closes the store if it was opened.
func (h *History) Close() error {
	if h.Store == nil {
		return nil
	}
	err := h.Store.Close()
	h.Store = nil
	return err
}

// Save keeps a concluded run in the store, after it has been printed, so
// the note naming its id comes last. A run the store cannot take is
// spooled; the failure is returned so the exit status shows it. Once a
// save works, the runs spooled for this store (and only those: runs
// meant for another store wait for it) are delivered with it.
func (h *History) Save(doc *result.Document) error {
	if h.pending && h.Store == nil {
		if _, err := h.Open(); err != nil {
			return h.spool(doc, fmt.Errorf("saving the run: %w", err))
		}
	}
	if h.Store == nil {
		return nil
	}
	if err := h.Store.Save(doc); err != nil {
		return h.spool(doc, fmt.Errorf("saving the run to %s: %w", h.Store.Path(), err))
	}
	if h.SaveLog != nil {
		fmt.Fprintf(h.SaveLog, "thruput: saved as %s in %s\n", doc.ID, h.Store.Path())
	}
	if sp, err := store.DefaultSpool(); err == nil {
		saved, _, err := sp.Deliver(h.spoolKey(), h.Store)
		if saved > 0 {
			fmt.Fprintf(os.Stderr, "thruput: delivered %d spooled run(s) to %s\n", saved, h.Store.Path())
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "thruput: the spool %s: %v\n", sp.Dir, err)
		}
	}
	return nil
}

// spoolKey is the key the spool records the store of this run by.
func (h *History) spoolKey() string {
	key, _ := h.StoreKey()
	return key
}

// StoreKey names the store this run is kept in, as the spools and the
// alerts' state file record it. A suite's runs share their parent's open
// store, and know it only so.
func (h *History) StoreKey() (string, error) {
	if k, ok := h.Store.(interface{ Key() string }); ok {
		return k.Key(), nil
	}
	loc, err := h.Location()
	return loc.Key(), err
}

// spool keeps a measured run that could not be saved, for the store it
// was meant for, so that it is not lost: the error says where it is and
// the command that delivers it.
func (h *History) spool(doc *result.Document, saveErr error) error {
	key := h.spoolKey()
	sp, err := store.DefaultSpool()
	var path string
	if err == nil {
		path, err = sp.Add(key, doc)
	}
	if err != nil {
		return fmt.Errorf("%w; keeping it in the spool failed too: %v", saveErr, err)
	}
	return fmt.Errorf("%w; the run is kept in %s, and %s (or the next run that saves there) delivers it", saveErr, path, h.pushCommand())
}

// pushCommand is the command that delivers the runs spooled here: plain
// `results push` finds the store again from the spool's key, unless the
// password was part of --db, which the key leaves out and no message may
// show.
func (h *History) pushCommand() string {
	if h.DBSet && h.Loc != nil && h.Loc.URL != "" && store.Redact(h.Loc.URL) != h.Loc.URL {
		return fmt.Sprintf("`thruput results push --db %s` (with this run's --db, password and all)", shellQuote(store.Redact(h.Loc.URL)))
	}
	return "`thruput results push`"
}
