package lifecycle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
	_ "github.com/thruput/thruput/internal/store/sqlite"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// sweep is a concluded dd-loop run of one block size on host into
// target, started hour hours after t0, that moved 1 GiB at mibs MiB/s.
func sweep(host, target string, hour int, mibs float64) *result.Document {
	d := &result.Document{
		FormatVersion: result.FormatVersion,
		ID:            fmt.Sprintf("20260301T%02d0000Z-%06x", 12+hour, int(mibs)),
		Method:        result.MethodSweep,
		StartedAt:     t0.Add(time.Duration(hour) * time.Hour),
		Status:        result.StatusOK,
		Targets:       []result.Target{{Path: target, FSType: "ext4"}},
		Sweep: &result.Sweep{
			Parameters: result.SweepParameters{BlockSizes: []int64{1 << 20}, FileSize: 1 << 30, Write: true, Data: "random"},
			Steps: []result.SweepStep{{Phase: "write", BlockSize: 1 << 20, Bytes: 1 << 30, Ops: 1024,
				ElapsedNs: int64(1024 / mibs * 1e9), MiBPerSec: mibs}},
		},
	}
	d.EndedAt = d.StartedAt.Add(time.Minute)
	d.Host.Hostname = host
	return d
}

// TestFinishStatus: the status comes from the error that ended the run,
// an interrupt however deeply wrapped, and partial only for a run that
// measured something.
func TestFinishStatus(t *testing.T) {
	unmeasured := func() *result.Document {
		d := sweep("pi4", "/mnt/usb", 0, 100)
		d.Sweep.Steps = nil
		return d
	}
	for _, c := range []struct {
		name   string
		doc    *result.Document
		err    error
		status string
	}{
		{"ok", sweep("pi4", "/mnt/usb", 0, 100), nil, result.StatusOK},
		{"interrupted", sweep("pi4", "/mnt/usb", 0, 100), fmt.Errorf("write step 3: %w", context.Canceled), result.StatusInterrupted},
		{"interrupted before measuring", unmeasured(), context.Canceled, result.StatusInterrupted},
		{"partial", sweep("pi4", "/mnt/usb", 0, 100), errors.New("no space left on device"), result.StatusPartial},
		{"failed", unmeasured(), errors.New("no space left on device"), result.StatusFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := time.Now().UTC()
			Finish(c.doc, c.err)
			if c.doc.Status != c.status {
				t.Errorf("status %q, want %q", c.doc.Status, c.status)
			}
			if want := ""; c.err != nil && c.doc.Error != c.err.Error() || c.err == nil && c.doc.Error != want {
				t.Errorf("error %q for %v", c.doc.Error, c.err)
			}
			if c.doc.EndedAt.Before(before) {
				t.Errorf("ended at %v, before Finish was called at %v", c.doc.EndedAt, before)
			}
		})
	}
}

// TestConclude: a concluded run carries the machine it ran on; without
// the sampler it has no health section.
func TestConclude(t *testing.T) {
	d := New(result.Tool{Name: "thruput"}, result.MethodSweep, []string{"thruput", "disk", "sweep"})
	if d.ID == "" || d.Method != result.MethodSweep || d.StartedAt.IsZero() || d.FormatVersion != result.FormatVersion {
		t.Fatalf("new document %+v", d)
	}
	d.Targets = []result.Target{{Path: t.TempDir()}}
	Conclude(d, nil, Begin(context.Background(), false))
	if d.Status != result.StatusOK || d.System == nil || d.Health != nil || d.EndedAt.Before(d.StartedAt) {
		t.Errorf("concluded: status %q, system %v, health %v, %v to %v", d.Status, d.System != nil, d.Health, d.StartedAt, d.EndedAt)
	}
}

// history is a History of a SQLite store in a fresh directory, with a
// spool of its own.
func history(t *testing.T) (*History, string) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	path := filepath.Join(dir, "results.db")
	return &History{DB: path, DBSet: true}, path
}

// refuse puts a file that is not a store where h's store is to be
// made: the first save then cannot go in.
func refuse(t *testing.T, h *History, path string) {
	t.Helper()
	if err := h.Prepare(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Prepare made the store before a run saved: %v", err)
	}
	if err := os.WriteFile(path, []byte("a text file, not a store\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func spooled(t *testing.T) []string {
	t.Helper()
	sp, err := store.DefaultSpool()
	if err != nil {
		t.Fatal(err)
	}
	keys, err := sp.Stores()
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestSpoolThenDeliver: a run the store refuses is spooled, the error
// names where and how it is delivered, and the next run that saves there
// delivers it with its own.
func TestSpoolThenDeliver(t *testing.T) {
	h, path := history(t)
	refuse(t, h, path)
	first := sweep("pi4", "/mnt/usb", 0, 100)
	err := h.Save(first)
	if !errors.Is(err, store.ErrNotStore) || !strings.Contains(err.Error(), first.ID+".json") || !strings.Contains(err.Error(), "`thruput results push`") {
		t.Fatalf("refused save: %v", err)
	}
	if keys := spooled(t); len(keys) != 1 || keys[0] != path {
		t.Fatalf("spooled for %q, want [%s]", keys, path)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	next := &History{DB: path, DBSet: true}
	defer next.Close()
	if err := next.Prepare(); err != nil {
		t.Fatal(err)
	}
	second := sweep("pi4", "/mnt/usb", 1, 110)
	if err := next.Save(second); err != nil {
		t.Fatal(err)
	}
	for _, d := range []*result.Document{first, second} {
		if _, err := next.Store.Get(d.ID); err != nil {
			t.Errorf("%s not in the store: %v", d.ID, err)
		}
	}
	if keys := spooled(t); len(keys) != 0 {
		t.Errorf("still spooled for %q", keys)
	}
}

// TestPush: `results push` delivers a spooled run into the store it was
// meant for, and the second push finds nothing to deliver.
func TestPush(t *testing.T) {
	h, path := history(t)
	refuse(t, h, path)
	doc := sweep("pi4", "/mnt/usb", 0, 100)
	if err := h.Save(doc); err == nil {
		t.Fatal("a text file took the run")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Push(&History{}, &out); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("delivered 1 spooled run(s) to %s, 0 already there\n", path); out.String() != want {
		t.Errorf("push said %q, want %q", out.String(), want)
	}
	out.Reset()
	if err := Push(&History{}, &out); err != nil || !strings.HasPrefix(out.String(), "no spooled runs in ") {
		t.Errorf("second push: %v, %q", err, out.String())
	}
	s, err := store.Open(store.Location{Path: path}, store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Get(doc.ID); err != nil {
		t.Errorf("pushed run not in the store: %v", err)
	}
}

// TestPushCommand: a password given in --db is never shown, and the
// command delivering the spool says to give that --db again.
func TestPushCommand(t *testing.T) {
	for _, c := range []struct{ db, want string }{
		{"postgres://lab:secret@db.lab/thruput", "`thruput results push --db postgres://lab:xxxxx@db.lab/thruput` (with this run's --db, password and all)"},
		{"host=db.lab dbname=thruput password=secret", "`thruput results push --db 'host=db.lab dbname=thruput password=xxxxx'` (with this run's --db, password and all)"},
		{"postgres://lab@db.lab/thruput", "`thruput results push`"},
		{"results.db", "`thruput results push`"},
	} {
		h := &History{DB: c.db, DBSet: true}
		if _, err := h.Location(); err != nil {
			t.Fatal(err)
		}
		if got := h.pushCommand(); got != c.want {
			t.Errorf("%s: %s, want %s", c.db, got, c.want)
		}
	}
	if got := shellQuote("it's"); got != `'it'\''s'` {
		t.Errorf("shellQuote: %s", got)
	}
}

// TestPrevious: a run is set against the newest run that ended ok of
// its method on its host, into its target, with its parameters.
func TestPrevious(t *testing.T) {
	h, _ := history(t)
	defer h.Close()
	s, err := h.Open()
	if err != nil {
		t.Fatal(err)
	}
	older := sweep("pi4", "/mnt/usb", 0, 100)
	want := sweep("pi4", "/mnt/usb", 1, 120)
	failed := sweep("pi4", "/mnt/usb", 2, 150)
	failed.Status, failed.Error = result.StatusPartial, "device vanished"
	otherHost := sweep("pi5", "/mnt/usb", 3, 160)
	otherTarget := sweep("pi4", "/mnt/sd", 4, 170)
	otherSize := sweep("pi4", "/mnt/usb", 5, 180)
	otherSize.Sweep.Parameters.FileSize = 1 << 28
	if _, _, err := s.SaveAll([]*result.Document{older, want, failed, otherHost, otherTarget, otherSize}); err != nil {
		t.Fatal(err)
	}
	now := sweep("pi4", "/mnt/usb", 6, 240)
	p := Previous(s, now)
	if p == nil || p.ID != want.ID || math.Abs(p.Ratio-2) > 1e-9 || p.Figures != 1 {
		t.Fatalf("previous %+v, want %s at ratio 2", p, want.ID)
	}
	if p := Previous(s, sweep("zero2", "/mnt/usb", 6, 240)); p != nil {
		t.Errorf("a host with no runs set against %s", p.ID)
	}
}

// TestPreviousSwappedCard: card A, then card B in the same slot and
// mount path: B's second run is set against B's first, never against
// A's, and B's first run has no previous at all.
func TestPreviousSwappedCard(t *testing.T) {
	h, _ := history(t)
	defer h.Close()
	s, err := h.Open()
	if err != nil {
		t.Fatal(err)
	}
	on := func(card string, hour int, mibs float64) *result.Document {
		d := sweep("pi4", "/media/card", hour, mibs)
		d.Targets[0].DeviceID = card
		return d
	}
	cardA, cardB := "sd:03-5344-sr64g-1a2b3c4d-2018-08", "sd:03-5344-sr64g-5e6f7a8b-2019-01"
	a1, a2 := on(cardA, 0, 20), on(cardA, 1, 21)
	if _, _, err := s.SaveAll([]*result.Document{a1, a2}); err != nil {
		t.Fatal(err)
	}
	b1 := on(cardB, 2, 40)
	if p := Previous(s, b1); p != nil {
		t.Errorf("card B's first run set against %s, a run of card A", p.ID)
	}
	if err := s.Save(b1); err != nil {
		t.Fatal(err)
	}
	if p := Previous(s, on(cardB, 3, 80)); p == nil || p.ID != b1.ID || math.Abs(p.Ratio-2) > 1e-9 {
		t.Errorf("card B's second run: previous %+v, want %s at ratio 2", p, b1.ID)
	}
	if p := Previous(s, on(cardA, 4, 42)); p == nil || p.ID != a2.ID {
		t.Errorf("card A back in the slot: previous %+v, want %s", p, a2.ID)
	}
}

// TestOpenModes: a store that must exist says so when it does not; one
// awaited in an existing directory is an empty history, said on stderr,
// and not made.
func TestOpenModes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.db")
	_, err := (&History{DB: path, DBSet: true}).Read()
	if !errors.Is(err, store.ErrLocation) || err.Error() != "no result store at "+path+" yet: every run saves there (or give --db FILE)" {
		t.Errorf("reading a missing store: %v", err)
	}
	if _, err := (&History{DB: path, DBSet: true}).ReadOnly(); !errors.Is(err, store.ErrLocation) {
		t.Errorf("copying from a missing store: %v", err)
	}
	var stderr bytes.Buffer
	h := &History{DB: path, DBSet: true}
	s, err := h.Follow(&stderr)
	if err != nil {
		t.Fatal(err)
	}
	if es, err := s.List(store.Filter{}); err != nil || len(es) != 0 {
		t.Errorf("awaited store lists %v, %v", es, err)
	}
	if want := "thruput: no result store at " + path + " yet: an empty history until the first run saves there\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("following made the store: %v", err)
	}
	_, err = (&History{DB: filepath.Join(dir, "none", "results.db"), DBSet: true}).Follow(&stderr)
	if !errors.Is(err, store.ErrLocation) {
		t.Errorf("following a store in a missing directory: %v", err)
	}
	if _, err := (&History{DB: "", DBSet: true}).Open(); !errors.Is(err, store.ErrLocation) {
		t.Errorf("--db '': %v", err)
	}
}
