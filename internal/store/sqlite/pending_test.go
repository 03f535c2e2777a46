package sqlite

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/store"
)

// TestPending: a store that does not exist yet reads as an empty history
// and is never created by reading; once a run is saved there, the same
// Pending store shows it and can change its labels.
func TestPending(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.db")
	p := Pending(path)
	defer p.Close()
	if es, err := p.List(store.Filter{}); err != nil || len(es) != 0 {
		t.Fatalf("List before the first run: %v, %v", es, err)
	}
	if _, err := p.Get("x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get before the first run: %v", err)
	}
	if _, _, err := p.(store.Labeler).Label("x", map[string]string{"a": "b"}, nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Label before the first run: %v", err)
	}
	if err := p.Save(doc("r1", "disk.sweep", "h", time.Now(), nil)); err == nil {
		t.Error("a pending store saved a run")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("reading made the store: %v", err)
	}

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(doc("r1", "disk.sweep", "h", time.Now(), nil)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if es, err := p.List(store.Filter{}); err != nil || len(es) != 1 {
		t.Fatalf("List after the first run: %v, %v", es, err)
	}
	if _, labels, err := p.(store.Labeler).Label("r1", map[string]string{"card": "a"}, nil); err != nil || labels["card"] != "a" {
		t.Errorf("Label: %v, %v", labels, err)
	}
}
