package store

import "github.com/thruput/thruput/internal/result"

// Store is the contract every backend keeps (SQLite in store/sqlite,
// PostgreSQL in store/postgres), and the one test suite in
// store/storetest checks: every results command and report reads and
// writes through it alone.
type Store interface {
	// Save stores one document; an id already stored is ErrExists.
	Save(doc *result.Document) error
	// SaveAll stores documents in one transaction, skipping ids already
	// stored; any other failure saves nothing.
	SaveAll(docs []*result.Document) (saved, skipped int, err error)
	// SaveEach is SaveAll for documents that arrive one at a time.
	SaveEach(each func(save func(*result.Document) error) error) (saved, skipped int, err error)
	// Resolve turns an id or a unique prefix of 4 or more characters into
	// the stored id (ErrNotFound, ErrAmbiguous).
	Resolve(idOrPrefix string) (string, error)
	Get(idOrPrefix string) (*result.Document, error)
	// Brief is Get less the machine context, the argv, the network
	// intervals, the latency series and the health samples: the
	// document's figures and suspect reasons, for setting a run against
	// another at a fraction of Get's cost.
	Brief(idOrPrefix string) (*result.Document, error)
	// Delete removes runs, all or none, and says how many.
	Delete(ids ...string) (int, error)
	// List is the runs a filter selects, newest first, from the columns.
	List(f Filter) ([]Entry, error)
	// Documents is the documents a filter selects, oldest first.
	Documents(f Filter) ([]*result.Document, error)
	// Latest is the newest run that ended ok of every series
	// (result.SeriesKey) the filter selects, oldest first.
	Latest(f Filter) ([]*result.Document, error)
	// Recent is the newest n runs of each of Latest's series, as points
	// (result.Point), oldest first.
	Recent(f Filter, n int) ([]result.Point, error)
	// Path names the store in messages, never with a password.
	Path() string
	Close() error
}

var _ Store = (*DB)(nil)
