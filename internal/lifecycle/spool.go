package lifecycle

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/thruput/thruput/internal/store"
)

// Push delivers every spooled run into the store it was meant for, and
// says so on w: the store here names when it is that one, so that its
// password is used, else the store the spool recorded. A store that
// cannot be opened keeps its runs; the others are delivered.
func Push(here *History, w io.Writer) error {
	sp, err := store.DefaultSpool()
	if err != nil {
		return err
	}
	keys, err := sp.Stores()
	if err != nil {
		return fmt.Errorf("the spool %s: %w", sp.Dir, err)
	}
	if len(keys) == 0 {
		fmt.Fprintf(w, "no spooled runs in %s\n", sp.Dir)
		return nil
	}
	loc, herr := here.Location()
	var errs []error
	for _, key := range keys {
		to := loc
		if herr != nil || loc.Key() != key {
			if to, err = store.Resolve(key, true); err != nil {
				errs = append(errs, fmt.Errorf("runs spooled for %s: %w", key, err))
				continue
			}
		}
		s, err := store.Open(to, store.Create)
		if err != nil {
			errs = append(errs, fmt.Errorf("runs spooled for %s stay in the spool: %w", to.Name(), err))
			continue
		}
		saved, skipped, err := sp.Deliver(key, s)
		if err == nil || saved+skipped > 0 {
			fmt.Fprintf(w, "delivered %d spooled run(s) to %s, %d already there\n", saved, s.Path(), skipped)
		}
		errs = append(errs, err, s.Close())
	}
	return errors.Join(errs...)
}

// OpenNamed opens a store named on the command line beside --db (the
// store `results push --to` copies into): checked as a run's store is
// before it is created.
func OpenNamed(db string) (store.Store, error) {
	loc, err := store.Resolve(db, true)
	if err != nil {
		return nil, err
	}
	if err := loc.Check(); err != nil {
		return nil, err
	}
	return store.Open(loc, store.Create)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
