package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/store/postgres"
	"github.com/thruput/thruput/internal/store/sqlite"
	"github.com/thruput/thruput/internal/usage"
)

// history is what the app keeps for the result store: where it is, the
// labels and --no-save of the measuring command, and the store once open.
type history struct {
	db string
	// dbSet is whether --db was given at all: --db '' is refused, not
	// taken for the default.
	dbSet  bool
	loc    *store.Location
	labels []string
	noSave bool
	// noCompare is --no-compare: no line setting the run against the
	// last comparable one.
	noCompare bool
	// labelMap is labels parsed, set by openHistory.
	labelMap map[string]string
	store    store.Store
	// pending is a store path that does not exist yet: a run creates it
	// when it saves, so a run refused before measuring leaves no store.
	pending string
	// collect, when set, receives every document a run concludes (the
	// suite gathers its runs' documents for the report this way).
	collect func(*result.Document)
	// saveLog is where "saved as" notes go; nil means nowhere.
	saveLog io.Writer
}

// addSaveFlags gives a measuring command --label and --no-save.
func (a *app) addSaveFlags(fl *pflag.FlagSet) {
	fl.StringArrayVar(&a.labels, "label", nil, "tag the run with `key=value` (device=sandisk-extreme, fs=ext4, channel=6); repeatable")
	fl.BoolVar(&a.noSave, "no-save", false, "do not keep this run in the result store")
	fl.BoolVar(&a.noCompare, "no-compare", false, "do not set the run against the last comparable run in the store")
	a.addHealthFlags(fl)
}

// openHistory checks the labels and opens the store before anything is
// measured, so a bad label or a --db that is not a thruput store stops the
// run at once (exit 2) rather than after it.
func (a *app) openHistory(stderr io.Writer) error {
	m, err := result.ParseLabels(a.labels)
	if err != nil {
		return usage.Errorf("--label: %w", err)
	}
	a.labelMap = m
	if a.noSave || a.store != nil {
		return nil
	}
	loc, err := a.location()
	if err != nil {
		return err
	}
	if err := loc.Check(); err != nil {
		return usage.Wrap(err)
	}
	if _, err := os.Stat(loc.Path); loc.URL == "" && errors.Is(err, fs.ErrNotExist) {
		a.pending = loc.Path
	} else if _, err := a.openStore(); err != nil {
		return err
	}
	// The note is for a person at a terminal; the suite prints its own list.
	if f, ok := stderr.(*os.File); ok && !a.quiet && a.collect == nil && term.IsTerminal(int(f.Fd())) {
		a.saveLog = stderr
	}
	return nil
}

// location resolves --db and the environment once; a bad value is the
// user's to fix (exit 2).
func (a *app) location() (store.Location, error) {
	if a.loc == nil {
		l, err := store.Resolve(a.db, a.dbSet)
		if err != nil {
			return l, usage.Wrap(err)
		}
		a.loc = &l
	}
	return *a.loc, nil
}

// openStore opens the store once per process, creating it when a run
// saves into it for the first time.
func (a *app) openStore() (store.Store, error) {
	if a.store != nil {
		return a.store, nil
	}
	return a.keepStore(openLocation)
}

// keepStore opens --db's store with open and keeps it as the command's.
func (a *app) keepStore(open func(store.Location) (store.Store, error)) (store.Store, error) {
	loc, err := a.location()
	if err != nil {
		return nil, err
	}
	s, err := open(loc)
	if err != nil {
		return nil, err
	}
	a.store = s
	return s, nil
}

// openLocation opens the backend the location names. A value the user
// must fix (not a store, a newer schema, a URL that does not parse) is
// exit 2; an unreachable server, a refused login or a full disk is a
// failure.
func openLocation(loc store.Location) (store.Store, error) {
	return opened(loc, postgres.Open, sqlite.Open)
}

// openSource opens an existing store only to read it: the source of a
// push or pull, which must not be created, migrated or written.
func openSource(loc store.Location) (store.Store, error) {
	return opened(loc, postgres.OpenRead, sqlite.OpenRead)
}

// opened opens loc with the backend's open function; the errors a user
// must fix are usage errors.
func opened(loc store.Location, pg, file func(string) (*store.DB, error)) (store.Store, error) {
	open, at := file, loc.Path
	if loc.URL != "" {
		open, at = pg, loc.URL
	}
	s, err := open(at)
	switch {
	case errors.Is(err, store.ErrNotStore) || errors.Is(err, store.ErrNewer) || errors.Is(err, store.ErrLocation):
		return nil, usage.Wrap(err)
	case err != nil:
		return nil, err
	}
	return s, nil
}

// readStore opens the store for the commands that only read the history;
// a store that does not exist is not created, so a mistyped --db says so.
func (a *app) readStore() (store.Store, error) {
	if a.store == nil {
		loc, err := a.location()
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(loc.Path); loc.URL == "" && errors.Is(err, fs.ErrNotExist) {
			return nil, usage.Errorf("no result store at %s yet: every run saves there (or give --db FILE)", loc.Path)
		}
	}
	return a.openStore()
}

// readWith settles the output format and opens the store to read: the
// first two steps of every command that reads the history.
func (a *app) readWith(format func() (string, error)) (string, store.Store, error) {
	f, err := format()
	if err != nil {
		return "", nil, err
	}
	s, err := a.readStore()
	return f, s, err
}

func (a *app) closeStore() error {
	if a.store == nil {
		return nil
	}
	err := a.store.Close()
	a.store = nil
	return err
}

// conclude ends a run the same way for every method: stamp its end and
// status, record the hardware it crossed and the ceilings, and tag it.
func (a *app) conclude(doc *result.Document, runErr error, counters *begun) {
	finish(doc, runErr)
	addContext(doc, counters)
	if len(a.labelMap) > 0 {
		doc.Labels = a.labelMap
	}
	if a.collect != nil {
		a.collect(doc)
	}
}

// deliver ends a run the same way for every method. A run that failed
// before it measured anything is an error and nothing else: one line on
// stderr, no table of zeros, nothing saved. Any other run is concluded,
// printed by show, and saved, with what ended it in its status.
func (a *app) deliver(doc *result.Document, runErr error, counters *begun, show func() error) error {
	if runErr != nil && !doc.Measured() {
		counters.health.Stop()
		return runErr
	}
	a.conclude(doc, runErr, counters)
	if !a.noCompare && a.store != nil && runErr == nil {
		doc.Previous = previous(a.store, doc)
	}
	return errors.Join(runErr, show(), a.save(doc), a.strictErr(doc))
}

// previous finds the last comparable run in the store (the newest of
// the method on this host that ended ok, among the last 50, with the same
// targets and parameters) and sets doc against it; nil when there is
// none. The store failing here costs the run nothing.
func previous(s store.Store, doc *result.Document) *result.Previous {
	es, err := s.List(store.Filter{Method: doc.Method, Host: doc.Host.Hostname, Status: result.StatusOK, Limit: 50})
	if err != nil {
		return nil
	}
	target := ""
	if len(doc.Targets) > 0 {
		target = doc.Targets[0].Path
	}
	for _, e := range es {
		if e.ID == doc.ID || target != "" && e.Target != target {
			continue
		}
		prev, err := s.Get(e.ID)
		if err == nil && compare.Comparable(doc, prev) {
			return compare.Against(doc, prev)
		}
	}
	return nil
}

// save keeps a concluded run in the store, after it has been printed, so
// the note naming its id comes last. A run that cannot be saved has still
// printed; the failure is returned so the exit status shows it.
func (a *app) save(doc *result.Document) error {
	if a.pending != "" && a.store == nil {
		if _, err := a.openStore(); err != nil {
			return a.spool(doc, fmt.Errorf("saving the run: %w", err))
		}
	}
	if a.store == nil {
		return nil
	}
	if err := a.store.Save(doc); err != nil {
		return a.spool(doc, fmt.Errorf("saving the run to %s: %w", a.store.Path(), err))
	}
	if a.saveLog != nil {
		fmt.Fprintf(a.saveLog, "thruput: saved as %s in %s\n", doc.ID, a.store.Path())
	}
	// The store works again: runs spooled for it when it did not go in
	// now (and only those: runs meant for another store wait for it).
	if sp, err := store.DefaultSpool(); err == nil {
		saved, _, err := sp.Deliver(a.spoolKey(), a.store)
		if saved > 0 {
			fmt.Fprintf(os.Stderr, "thruput: delivered %d spooled run(s) to %s\n", saved, a.store.Path())
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "thruput: the spool %s: %v\n", sp.Dir, err)
		}
	}
	return nil
}

// spoolKey is the key the spool records the store of this run by. A
// suite's runs share their parent's open store, and know it only so.
func (a *app) spoolKey() string {
	if k, ok := a.store.(interface{ Key() string }); ok {
		return k.Key()
	}
	loc, _ := a.location()
	return loc.Key()
}

// spool keeps a measured run that could not be saved, for the store it
// was meant for, so that it is not lost: the error says where it is and
// the command that delivers it.
func (a *app) spool(doc *result.Document, saveErr error) error {
	key := a.spoolKey()
	sp, err := store.DefaultSpool()
	var path string
	if err == nil {
		path, err = sp.Add(key, doc)
	}
	if err != nil {
		return fmt.Errorf("%w; keeping it in the spool failed too: %v", saveErr, err)
	}
	return fmt.Errorf("%w; the run is kept in %s, and %s (or the next run that saves there) delivers it", saveErr, path, a.pushCommand(key))
}

// pushCommand is the command that delivers runs spooled for key: plain
// `results push` finds the store again from the key, unless the password
// was part of --db, which the key leaves out and no message may show.
func (a *app) pushCommand(key string) string {
	if a.dbSet && a.loc != nil && a.loc.URL != "" && store.Redact(a.loc.URL) != a.loc.URL {
		return fmt.Sprintf("`thruput results push --db %s` (with this run's --db, password and all)", shellQuote(store.Redact(a.loc.URL)))
	}
	return "`thruput results push`"
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
