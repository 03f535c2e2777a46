package store

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Mode is what a command opens a store for.
type Mode int

const (
	// Create opens the store to save into, creating it when it does not
	// exist and migrating an older schema: every measuring command,
	// import, and the store runs are copied into.
	Create Mode = iota
	// Existing opens a store that must exist already (a mistyped --db
	// says so rather than making an empty store), migrated as by Create:
	// the commands that read or edit the history.
	Existing
	// ReadOnly opens an existing store only to read it, as the source of
	// a copy: nothing is created, migrated or written.
	ReadOnly
	// Await is Existing, except that a store file that does not exist yet
	// in a directory that does is an empty history until a run creates
	// it (serve, started with the machine before the first run).
	Await
)

// Opener opens the store at loc for m. Errors the user must fix match
// ErrLocation, ErrNotStore or ErrNewer.
type Opener func(loc Location, m Mode) (Store, error)

var (
	backendsMu sync.RWMutex
	backends   = map[string]Opener{}
)

// Register makes open the backend of the stores whose Location.Scheme is
// scheme; a backend registers itself when its package is imported, as
// database/sql drivers do. Registering a scheme twice is a programming
// error.
func Register(scheme string, open Opener) {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if _, dup := backends[scheme]; dup {
		panic("store: backend " + scheme + " registered twice")
	}
	backends[scheme] = open
}

// Open opens the store loc names with the backend registered for its
// scheme.
func Open(loc Location, m Mode) (Store, error) {
	backendsMu.RLock()
	open, ok := backends[loc.Scheme()]
	var known []string
	for k := range backends {
		known = append(known, k)
	}
	backendsMu.RUnlock()
	if !ok {
		sort.Strings(known)
		if len(known) == 0 {
			known = []string{"none"}
		}
		return nil, locationErr("%s: this thruput keeps no %s stores (it has %s)", loc.Name(), loc.Scheme(), strings.Join(known, ", "))
	}
	s, err := open(loc, m)
	if err != nil {
		// A backend's nil *DB is not a nil Store.
		return nil, err
	}
	return s, nil
}

// refusal is an error in its own words that matches a sentinel.
type refusal struct {
	msg  string
	kind error
}

func (e *refusal) Error() string { return e.msg }
func (e *refusal) Unwrap() error { return e.kind }

// Refuse is an error saying format's words that errors.Is matches to
// kind (ErrLocation, ErrNotStore...), for a message that must not start
// with the sentinel's own.
func Refuse(kind error, format string, a ...any) error {
	return &refusal{msg: fmt.Sprintf(format, a...), kind: kind}
}
