package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
)

// Pending is a SQLite store that does not exist yet, for a reader that
// starts before the first run is saved (the packaged dashboard starts
// with the machine, before the scheduled suite saved anything). Every
// call looks again, so the runs appear once the first one is saved;
// until then the history is empty. It never creates the file.
func Pending(path string) store.Store { return &pending{path: path} }

type pending struct {
	path string
	mu   sync.Mutex
	s    *store.DB
}

var (
	_ store.Store   = (*pending)(nil)
	_ store.Labeler = (*pending)(nil)
)

// errReadOnly: a pending store saves no run; the measuring commands do,
// and create the file. Deleting and labelling reach the store once the
// file exists (serve --token-file allows both).
var errReadOnly = errors.New("a store that does not exist yet takes no runs here")

// open is the store once its file exists, else nil.
func (p *pending) open() (*store.DB, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.s != nil {
		return p.s, nil
	}
	if _, err := os.Stat(p.path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	s, err := Open(p.path)
	if err != nil {
		return nil, err
	}
	p.s = s
	return s, nil
}

// each runs fn on the store once it exists; before, absent is the answer.
func each[T any](p *pending, absent func() (T, error), fn func(*store.DB) (T, error)) (T, error) {
	s, err := p.open()
	if err != nil {
		var zero T
		return zero, err
	}
	if s == nil {
		return absent()
	}
	return fn(s)
}

func (p *pending) notFound(id string) error {
	return fmt.Errorf("run %q: %w", id, store.ErrNotFound)
}

func (p *pending) Save(*result.Document) error { return errReadOnly }

func (p *pending) SaveAll([]*result.Document) (int, int, error) { return 0, 0, errReadOnly }

func (p *pending) SaveEach(func(func(*result.Document) error) error) (int, int, error) {
	return 0, 0, errReadOnly
}

func (p *pending) Resolve(id string) (string, error) {
	return each(p, func() (string, error) { return "", p.notFound(id) }, func(s *store.DB) (string, error) { return s.Resolve(id) })
}

func (p *pending) Get(id string) (*result.Document, error) {
	return each(p, func() (*result.Document, error) { return nil, p.notFound(id) }, func(s *store.DB) (*result.Document, error) { return s.Get(id) })
}

func (p *pending) Brief(id string) (*result.Document, error) {
	return each(p, func() (*result.Document, error) { return nil, p.notFound(id) }, func(s *store.DB) (*result.Document, error) { return s.Brief(id) })
}

func (p *pending) Delete(ids ...string) (int, error) {
	return each(p, func() (int, error) {
		if len(ids) > 0 {
			return 0, p.notFound(ids[0])
		}
		return 0, nil
	}, func(s *store.DB) (int, error) { return s.Delete(ids...) })
}

func (p *pending) Label(id string, set map[string]string, remove []string) (string, map[string]string, error) {
	s, err := p.open()
	if err != nil {
		return "", nil, err
	}
	if s == nil {
		return "", nil, p.notFound(id)
	}
	return s.Label(id, set, remove)
}

func (p *pending) List(f store.Filter) ([]store.Entry, error) {
	return each(p, func() ([]store.Entry, error) { return nil, nil }, func(s *store.DB) ([]store.Entry, error) { return s.List(f) })
}

func (p *pending) Documents(f store.Filter) ([]*result.Document, error) {
	return each(p, func() ([]*result.Document, error) { return nil, nil }, func(s *store.DB) ([]*result.Document, error) { return s.Documents(f) })
}

func (p *pending) Latest(f store.Filter) ([]*result.Document, error) {
	return each(p, func() ([]*result.Document, error) { return nil, nil }, func(s *store.DB) ([]*result.Document, error) { return s.Latest(f) })
}

func (p *pending) Recent(f store.Filter, n int) ([]result.Point, error) {
	return each(p, func() ([]result.Point, error) { return nil, nil }, func(s *store.DB) ([]result.Point, error) { return s.Recent(f, n) })
}

func (p *pending) Path() string { return p.path }

func (p *pending) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.s == nil {
		return nil
	}
	return p.s.Close()
}
