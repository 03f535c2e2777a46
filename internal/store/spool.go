package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/thruput/thruput/internal/atomicfile"
	"github.com/thruput/thruput/internal/result"
)

// Spool keeps runs that were measured but could not be saved (the
// PostgreSQL server was down, the disk full), one JSON file a run, until
// a save into the store they were meant for succeeds or `results push`
// delivers them there. Each store has a directory of its own, named by a
// hash of the store's key (Location.Key: never a password), holding a
// file "store" with the key and the runs.
type Spool struct{ Dir string }

// DefaultSpool is $XDG_STATE_HOME/thruput/spool, else
// ~/.local/state/thruput/spool.
func DefaultSpool() (Spool, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return Spool{Dir: filepath.Join(d, "thruput", "spool")}, nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return Spool{}, errors.New("no home directory for the spool ($HOME is not set)")
	}
	return Spool{Dir: filepath.Join(home, ".local", "state", "thruput", "spool")}, nil
}

// storeFile names, in a store's directory, the store its runs are for.
const storeFile = "store"

func (sp Spool) dir(key string) string {
	h := sha256.Sum256([]byte(key))
	return filepath.Join(sp.Dir, hex.EncodeToString(h[:8]))
}

// Add writes the run into the spool for the store key names (under a
// temporary name, then renamed, so a reader never sees half a run) and
// returns its file.
func (sp Spool) Add(key string, doc *result.Document) (string, error) {
	dir := sp.dir(key)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if err := writeFile(dir, storeFile, []byte(key+"\n")); err != nil {
		return "", err
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	if err := writeFile(dir, filepath.Base(doc.ID)+".json", js); err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(doc.ID)+".json"), nil
}

func writeFile(dir, name string, b []byte) error {
	return atomicfile.Write(filepath.Join(dir, name), 0o600, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// Stores are the keys of the stores that have runs waiting, sorted.
func (sp Spool) Stores() ([]string, error) {
	es, err := os.ReadDir(sp.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, e := range es {
		if !e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(sp.Dir, e.Name(), storeFile))
		if err != nil {
			continue
		}
		key := strings.TrimSuffix(string(b), "\n")
		if files, _ := sp.files(key); len(files) > 0 && sp.dir(key) == filepath.Join(sp.Dir, e.Name()) {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// files are the runs spooled for the store key names, oldest id first.
func (sp Spool) files(key string) ([]string, error) {
	dir := sp.dir(key)
	es, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range es {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}

// Deliver saves the runs spooled for the store key names into s, which
// must be that store, in one transaction, and removes the files it saved
// or found already stored. The store's directory stays, so that a run
// another process spools meanwhile is never left without its key. A file
// that is not a run is left where it is and named in the error.
func (sp Spool) Deliver(key string, s Store) (saved, skipped int, err error) {
	files, err := sp.files(key)
	if err != nil || len(files) == 0 {
		return 0, 0, err
	}
	var docs []*result.Document
	var kept []string
	var bad []error
	for _, f := range files {
		d, err := readRun(f)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		docs, kept = append(docs, d), append(kept, f)
	}
	if len(docs) > 0 {
		if saved, skipped, err = s.SaveAll(docs); err != nil {
			return 0, 0, errors.Join(append(bad, err)...)
		}
		for _, f := range kept {
			os.Remove(f)
		}
	}
	return saved, skipped, errors.Join(bad...)
}

func readRun(path string) (*result.Document, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := result.Read(f)
	if err != nil {
		return nil, fmt.Errorf("spooled run %s: %w", path, err)
	}
	return d, nil
}

// Copy saves the runs of src that f selects into dst, 500 at a time,
// skipping ids dst already holds: copying twice copies nothing the
// second time.
func Copy(dst, src Store, f Filter) (saved, skipped int, err error) {
	es, err := src.List(f)
	if err != nil {
		return 0, 0, err
	}
	for len(es) > 0 {
		batch := es[:min(500, len(es))]
		es = es[len(batch):]
		var ids []string
		for _, e := range batch {
			ids = append(ids, e.ID)
		}
		docs, err := src.Documents(Filter{IDs: ids})
		if err != nil {
			return saved, skipped, err
		}
		n, k, err := dst.SaveAll(docs)
		if err != nil {
			return saved, skipped, err
		}
		saved, skipped = saved+n, skipped+k
	}
	return saved, skipped, nil
}
