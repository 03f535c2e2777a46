package notify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/atomicfile"
)

// The spool holds, per receiver, the notifications it has not taken yet
// and a ledger of those it took. A receiver's directory is named by a hash
// of its name (so fixing a wrong URL in the rules file sends the backlog
// to the new one), and holds:
//
//	receiver                      the receiver's name
//	lock                          flock(2)ed while a process delivers
//	sent                          the ledger: "<id> <unix seconds>" a line
//	<enqueued ns>-<id>.json       one waiting notification (an entry)
//
// Entries are delivered oldest first; one that failed and waits for its
// retry holds back those behind it, so a resolved notice never overtakes
// its firing. A delivery is recorded in the ledger before its entry is
// removed: a process killed between the two sends it again at worst once
// more, never loses it (the webhook's Idempotency-Key lets a receiver
// drop that repeat; Alertmanager merges it by its labels).

// DefaultSpoolDir is $XDG_STATE_HOME/thruput/alerts, else
// ~/.local/state/thruput/alerts (beside the store's spool).
func DefaultSpoolDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "thruput", "alerts"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", errors.New("no home directory for the alerts spool ($HOME is not set)")
	}
	return filepath.Join(home, ".local", "state", "thruput", "alerts"), nil
}

const (
	receiverFile = "receiver"
	lockFile     = "lock"
	ledgerFile   = "sent"
	// ledgerKeep is how long the ledger remembers a delivery. The rules
	// hand a notification on when an alert changes state, so a repeat
	// comes within minutes (a retest, two processes), never months later.
	ledgerKeep = 90 * 24 * time.Hour
	// backoffBase and backoffCap bound the wait before a retry: 1 min
	// after the first failure, doubling, at most 1 h, each ±20 % so that
	// the hosts of a fleet do not retry in step.
	backoffBase = time.Minute
	backoffCap  = time.Hour
	// maxSpoolFile bounds what is read of a spool file: an entry is a few
	// kB; anything far bigger is not one of ours.
	maxSpoolFile = 1 << 20
)

// entry is a notification waiting in the spool, as its JSON file holds it.
type entry struct {
	Notification Notification `json:"notification"`
	// Attempts counts the deliveries tried; NextTry is when the next may be.
	Attempts int       `json:"attempts"`
	NextTry  time.Time `json:"next_try"`
	// LastError is why the last attempt failed.
	LastError string `json:"last_error,omitempty"`
	// Permanent is set when the receiver refused the notification (an
	// HTTP 4xx other than 408 and 429, an address the mail server
	// rejected): it is not retried while the receiver's Target stays the
	// one that refused it.
	Permanent bool   `json:"permanent,omitempty"`
	Target    string `json:"target,omitempty"`

	file string
}

// Queued is a notification the spool holds, as `alerts check` lists it.
type Queued struct {
	Receiver     string
	Notification Notification
	Attempts     int
	NextTry      time.Time
	LastError    string
	// Permanent marks a notification the receiver refused: it stays until
	// the receiver's destination changes in the rules file (then it is
	// tried again) or someone deletes File.
	Permanent bool
	File      string
}

// spool delivers to receivers through the spool in dir. Its clock, backoff
// and HTTP client are fields so that tests can move time and point at
// their own servers.
type spool struct {
	dir     string
	now     func() time.Time
	backoff func(attempts int) time.Duration
	client  httpDoer
	timeout time.Duration
}

func newSpool(dir string) *spool {
	return &spool{dir: dir, now: time.Now, backoff: backoff, client: defaultClient, timeout: sendTimeout}
}

// backoff is the wait after the given number of failed attempts.
func backoff(attempts int) time.Duration {
	d := backoffCap
	if attempts < 7 {
		d = min(backoffCap, backoffBase<<max(attempts-1, 0))
	}
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// ErrSpooled is in the error of a Send whose notification waits in the
// spool: it is not lost, and Flush (or a later Send) delivers it.
var ErrSpooled = errors.New("kept in the spool")

// Send delivers n to r now, after the notifications the spool already
// holds for r whose retry is due. If r cannot take it, n stays in the
// spool under spoolDir and the error says so and why; Flush delivers it
// later. A notification r already took (the same Key, Status and
// StartsAt) is not sent again.
func Send(ctx context.Context, spoolDir string, r Receiver, n Notification) error {
	return newSpool(spoolDir).send(ctx, r, n)
}

// Flush delivers what the spool under spoolDir holds for the receivers rs
// whose retry is due, oldest first, and returns how many were delivered.
// Errors name the receivers that still hold notifications waiting for a
// retry, and why; refusals stay quiet here, and Pending lists them.
func Flush(ctx context.Context, spoolDir string, rs []Receiver) (int, error) {
	return newSpool(spoolDir).flush(ctx, rs)
}

// Pending lists what the spool under spoolDir holds, receiver by receiver
// (also receivers the rules file no longer names), oldest first.
func Pending(spoolDir string) ([]Queued, error) {
	es, err := os.ReadDir(spoolDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Queued
	var bad []error
	for _, e := range es {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(spoolDir, e.Name())
		name, err := os.ReadFile(filepath.Join(dir, receiverFile))
		if err != nil {
			continue
		}
		ents, err := readEntries(dir)
		bad = append(bad, err)
		for _, en := range ents {
			out = append(out, Queued{Receiver: string(name), Notification: en.Notification, Attempts: en.Attempts,
				NextTry: en.NextTry, LastError: en.LastError, Permanent: en.Permanent, File: en.file})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Receiver < out[j].Receiver })
	return out, errors.Join(bad...)
}

func (s *spool) receiverDir(name string) string {
	h := sha256.Sum256([]byte(name))
	return filepath.Join(s.dir, hex.EncodeToString(h[:8]))
}

func (s *spool) send(ctx context.Context, r Receiver, n Notification) error {
	if err := Validate(r); err != nil {
		return err
	}
	if err := checkNotification(n); err != nil {
		return err
	}
	dir, unlock, err := s.lock(ctx, r.Name)
	if err != nil {
		return err
	}
	defer unlock()
	sent, err := readLedger(dir)
	if err != nil {
		return err
	}
	id := n.ID()
	if _, ok := sent[id]; ok {
		return nil
	}
	ents, err := readEntries(dir)
	queued := false
	for _, e := range ents {
		queued = queued || e.Notification.ID() == id
	}
	if !queued {
		e := &entry{Notification: n, NextTry: s.now(), file: filepath.Join(dir, fmt.Sprintf("%020d-%s.json", s.now().UnixNano(), id))}
		if werr := writeEntry(e); werr != nil {
			// Not even spooled: the caller must know it is lost.
			return errors.Join(fmt.Errorf("receiver %q: cannot spool the notification: %w", r.Name, werr), err)
		}
		ents = append(ents, e)
	}
	_, ferr := s.deliverDue(ctx, r, dir, ents, sent)
	sent, lerr := readLedger(dir)
	if lerr == nil {
		if _, ok := sent[id]; ok {
			return nil
		}
	}
	why := errors.Join(ferr, err, lerr)
	for _, e := range ents {
		if why == nil && e.file != "" && e.Permanent && e.Notification.ID() == id {
			why = fmt.Errorf("refused before, not retried while the receiver's address stays: %s", e.LastError)
		}
	}
	if why == nil {
		why = errors.New("earlier notifications wait for their retry")
	}
	return fmt.Errorf("receiver %q: %s %w %s to send later: %w", r.Name, n.Status, ErrSpooled, s.dir, why)
}

func (s *spool) flush(ctx context.Context, rs []Receiver) (int, error) {
	total := 0
	var errs []error
	for _, r := range rs {
		if err := Validate(r); err != nil {
			errs = append(errs, err)
			continue
		}
		if _, err := os.Stat(filepath.Join(s.receiverDir(r.Name), receiverFile)); errors.Is(err, fs.ErrNotExist) {
			continue // nothing was ever spooled for it
		}
		dir, unlock, err := s.lock(ctx, r.Name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sent, err := readLedger(dir)
		if err == nil {
			ents, rerr := readEntries(dir)
			var n int
			n, err = s.deliverDue(ctx, r, dir, ents, sent)
			total += n
			err = errors.Join(err, rerr)
		}
		unlock()
		if err != nil {
			errs = append(errs, fmt.Errorf("receiver %q: %w", r.Name, err))
		}
	}
	return total, errors.Join(errs...)
}

// deliverDue tries the entries in order, stopping at the first that is
// not due or fails for a reason that may pass; a permanent refusal is
// kept aside and the next is tried. It returns how many were delivered
// and the first failure's reason.
func (s *spool) deliverDue(ctx context.Context, r Receiver, dir string, ents []*entry, sent map[string]int64) (int, error) {
	target := r.target()
	delivered := 0
	var errs []error
	for _, e := range ents {
		if e.Permanent && e.Target == target {
			continue
		}
		id := e.Notification.ID()
		if _, ok := sent[id]; ok {
			// Delivered by a process that stopped before removing it.
			os.Remove(e.file)
			e.file = ""
			continue
		}
		if !e.Permanent && s.now().Before(e.NextTry) {
			errs = append(errs, fmt.Errorf("the oldest waiting notification is retried after %s (%d attempts; last: %s)", e.NextTry.Format(time.RFC3339), e.Attempts, e.LastError))
			break
		}
		err := s.deliver(ctx, r, e.Notification)
		if err == nil {
			sent[id] = s.now().Unix()
			if err := writeLedger(dir, sent, s.now()); err != nil {
				return delivered, err
			}
			os.Remove(e.file)
			e.file = ""
			errs = append(errs, s.delivered(r, dir, e.Notification))
			delivered++
			continue
		}
		e.Attempts++
		e.LastError, e.Target = err.Error(), target
		var f *failure
		e.Permanent = errors.As(err, &f) && f.permanent
		e.NextTry = s.now().Add(s.backoff(e.Attempts))
		errs = append(errs, err)
		if werr := writeEntry(e); werr != nil {
			errs = append(errs, werr)
		}
		if !e.Permanent {
			break
		}
	}
	var waiting []*entry
	for _, e := range ents {
		if e.file != "" {
			waiting = append(waiting, e)
		}
	}
	errs = append(errs, s.refresh(ctx, r, dir, waiting))
	return delivered, errors.Join(errs...)
}

// lock makes the receiver's directory and holds its lock file until the
// returned func is called, waiting for another process that holds it
// (it delivers, which its timeouts bound) as long as ctx allows.
func (s *spool) lock(ctx context.Context, name string) (string, func(), error) {
	dir := s.receiverDir(name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, fmt.Errorf("alerts spool: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", nil, fmt.Errorf("alerts spool: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return "", nil, fmt.Errorf("alerts spool: lock %s: %w", f.Name(), err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return "", nil, fmt.Errorf("alerts spool: waiting for another thruput delivering to receiver %q: %w", name, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	// The name is written under the lock, so a reader never sees it half.
	if err := writeSmall(filepath.Join(dir, receiverFile), []byte(name)); err != nil {
		f.Close()
		return "", nil, fmt.Errorf("alerts spool: %w", err)
	}
	return dir, func() { f.Close() }, nil
}

func writeSmall(path string, b []byte) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == string(b) {
		return nil
	}
	return atomicfile.Write(path, 0o600, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

func writeEntry(e *entry) error {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(e.file, 0o600, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// readEntries reads the receiver's waiting notifications, oldest first. A
// file that is not an entry is left in place and named in the error; the
// others are returned.
func readEntries(dir string) ([]*entry, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*entry
	var bad []error
	for _, de := range des {
		name := de.Name()
		if !de.Type().IsRegular() || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		b, err := readBounded(path)
		if err == nil {
			var e *entry
			if e, err = parseEntry(name, b); err == nil {
				e.file = path
				out = append(out, e)
				continue
			}
		}
		bad = append(bad, fmt.Errorf("alerts spool: %s: %w (left in place; remove it if it is not needed)", path, err))
	}
	return out, errors.Join(bad...)
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSpoolFile+1))
	if err == nil && len(b) > maxSpoolFile {
		err = fmt.Errorf("over %d bytes: not a spooled notification", maxSpoolFile)
	}
	return b, err
}

// parseEntry reads an entry file; name is its base name, which must end
// in the notification's id.
func parseEntry(name string, b []byte) (*entry, error) {
	stem, ok := strings.CutSuffix(name, ".json")
	seq, id, ok2 := strings.Cut(stem, "-")
	if !ok || !ok2 {
		return nil, errors.New("not named <enqueued>-<id>.json")
	}
	if _, err := strconv.ParseUint(seq, 10, 64); err != nil {
		return nil, errors.New("not named <enqueued>-<id>.json")
	}
	var e entry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("not a spooled notification: %w", err)
	}
	if err := checkNotification(e.Notification); err != nil {
		return nil, err
	}
	if got := e.Notification.ID(); got != id {
		return nil, fmt.Errorf("holds notification %s, not the %s its name says", got, id)
	}
	if e.Attempts < 0 {
		return nil, fmt.Errorf("attempts %d below zero", e.Attempts)
	}
	return &e, nil
}

// checkNotification refuses what no receiver could be given.
func checkNotification(n Notification) error {
	if n.Status != "firing" && n.Status != "resolved" {
		return fmt.Errorf("notification status %q: must be firing or resolved", n.Status)
	}
	if n.Key == "" {
		return errors.New("notification without a key")
	}
	if n.StartsAt.IsZero() {
		return errors.New("notification without starts_at")
	}
	return nil
}

// readLedger reads the ids delivered and when (unix seconds).
func readLedger(dir string) (map[string]int64, error) {
	path := filepath.Join(dir, ledgerFile)
	b, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]int64{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("alerts spool: %w", err)
	}
	sent, err := parseLedger(b)
	if err != nil {
		return nil, fmt.Errorf("alerts spool: ledger %s: %w (fix or remove it: without it, delivered notifications may be sent again)", path, err)
	}
	return sent, nil
}

func parseLedger(b []byte) (map[string]int64, error) {
	sent := map[string]int64{}
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" {
			continue
		}
		id, at, ok := strings.Cut(line, " ")
		t, err := strconv.ParseInt(at, 10, 64)
		if !ok || err != nil || len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("line %d %q: want \"<32 hex digits id> <unix seconds>\"", i+1, line)
		}
		sent[id] = t
	}
	return sent, nil
}

// writeLedger rewrites the ledger, forgetting deliveries older than
// ledgerKeep so it stays small.
func writeLedger(dir string, sent map[string]int64, now time.Time) error {
	ids := make([]string, 0, len(sent))
	for id, t := range sent {
		if now.Sub(time.Unix(t, 0)) < ledgerKeep {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		return sent[ids[i]] < sent[ids[j]] || sent[ids[i]] == sent[ids[j]] && ids[i] < ids[j]
	})
	var sb strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&sb, "%s %d\n", id, sent[id])
	}
	return writeSmall(filepath.Join(dir, ledgerFile), []byte(sb.String()))
}
