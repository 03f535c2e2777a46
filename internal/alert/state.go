package alert

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/atomicfile"
)

// The alerts' state is kept in a small file beside notify's spool
// (StateFile), by the store's key and then the alert's Key, rather than
// derived by replaying each series: whether an alert fires depends on its
// whole history (it fires after for: breaches and resolves only after for:
// good runs, so a run between them means what came before it), which a
// replay would have to read back to the first run, and a rules file that
// changes (a new rule, a new limit) would re-notify the past. The file
// records what was notified, so each change is sent exactly once.

// Entry is the last state an alert was notified in.
type Entry struct {
	// Status is firing or resolved.
	Status   string    `json:"status"`
	StartsAt time.Time `json:"starts_at"`
	EndsAt   time.Time `json:"ends_at,omitzero"`
	Rule     string    `json:"rule"`
	RunIDs   []string  `json:"run_ids,omitempty"`
}

// State is the entries of one store's alerts, by Key.
type State map[string]Entry

// StateFile is the state file in a spool directory.
func StateFile(spoolDir string) string { return filepath.Join(spoolDir, "state.json") }

// Ledger is the state file, locked while a command evaluates and sends,
// so two commands (the timer's run and a person's alerts check) never
// both notify one change.
type Ledger struct {
	path   string
	lock   *os.File
	stores map[string]State
}

// stateVersion is the state file's format.
const stateVersion = 1

type ledgerFile struct {
	Version int              `json:"version"`
	Stores  map[string]State `json:"stores"`
}

// OpenLedger locks and reads the state file at path, made when missing.
func OpenLedger(path string) (*Ledger, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("alert state: %w", err)
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("alert state: %w", err)
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		lock.Close()
		return nil, fmt.Errorf("alert state: locking %s: %w", lock.Name(), err)
	}
	stores, err := readStates(path)
	if err != nil {
		lock.Close()
		return nil, err
	}
	return &Ledger{path: path, lock: lock, stores: stores}, nil
}

// readStates reads the state file; a missing one holds no state.
func readStates(path string) (map[string]State, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return map[string]State{}, nil
	case err != nil:
		return nil, fmt.Errorf("alert state: %w", err)
	}
	var lf ledgerFile
	if err := json.Unmarshal(data, &lf); err != nil || lf.Version != stateVersion {
		if err == nil {
			err = fmt.Errorf("version %d, want %d", lf.Version, stateVersion)
		}
		return nil, fmt.Errorf("alert state %s: %v (remove it to start afresh: firing alerts notify again)", path, err)
	}
	if lf.Stores == nil {
		lf.Stores = map[string]State{}
	}
	return lf.Stores, nil
}

// ReadState reads the state of the alerts over the store of key from the
// state file at path without locking it (it is replaced whole, by
// rename), for a page that only shows it; a missing file is no state.
func ReadState(path, key string) (State, error) {
	stores, err := readStates(path)
	if err != nil {
		return nil, err
	}
	return stores[key], nil
}

// For is the state of the alerts over the store of key.
func (l *Ledger) For(key string) State {
	if l.stores[key] == nil {
		l.stores[key] = State{}
	}
	return l.stores[key]
}

// Save writes the state file.
func (l *Ledger) Save() error {
	return atomicfile.Write(l.path, 0o600, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(ledgerFile{Version: stateVersion, Stores: l.stores})
	})
}

// Close unlocks the state file.
func (l *Ledger) Close() error { return l.lock.Close() }

// Apply records the changes of ev in st.
func (st State) Apply(ev *Evaluation) {
	for _, a := range ev.Alerts {
		switch a.Change {
		case StateFiring:
			st[a.Key] = Entry{Status: StateFiring, StartsAt: a.Since, Rule: a.Rule, RunIDs: a.RunIDs}
		case StateResolved:
			e := st[a.Key]
			e.Status, e.EndsAt, e.RunIDs = StateResolved, a.Since, a.RunIDs
			st[a.Key] = e
		}
	}
}
