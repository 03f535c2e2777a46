package sqlite

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
)

const benchRuns = 10000

var (
	benchOnce sync.Once
	benchDir  string
	benchPath string
	benchErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

func benchDocs(n int) []*result.Document {
	docs := make([]*result.Document, n)
	for i := range docs {
		docs[i] = realisticDoc(i, rngFor(i))
	}
	return docs
}

// benchStore is a store of 10,000 realistic runs, made once per test
// binary and shared by the benchmarks.
func benchStore(b *testing.B) string {
	benchOnce.Do(func() {
		if benchDir, benchErr = os.MkdirTemp("", "thruput-store-bench-"); benchErr != nil {
			return
		}
		benchPath = filepath.Join(benchDir, "results.db")
		var s *store.DB
		if s, benchErr = Open(benchPath); benchErr != nil {
			return
		}
		if _, _, benchErr = s.SaveAll(benchDocs(benchRuns)); benchErr != nil {
			return
		}
		benchErr = s.Close()
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPath
}

func benchOpen(b *testing.B) *store.DB {
	s, err := Open(benchStore(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func BenchmarkList10k(b *testing.B) {
	s := benchOpen(b)
	for b.Loop() {
		es, err := s.List(store.Filter{})
		if err != nil || len(es) != benchRuns {
			b.Fatal(len(es), err)
		}
	}
}

// What thruput results list costs: open, migrate check, list, close.
func BenchmarkOpenList10k(b *testing.B) {
	path := benchStore(b)
	for b.Loop() {
		s, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if es, err := s.List(store.Filter{}); err != nil || len(es) != benchRuns {
			b.Fatal(len(es), err)
		}
		s.Close()
	}
}

func BenchmarkListLabel10k(b *testing.B) {
	s := benchOpen(b)
	f := store.Filter{Method: "disk.", Labels: []store.LabelQuery{{Key: "device", Value: "sandisk-extreme"}}}
	for b.Loop() {
		if es, err := s.List(f); err != nil || len(es) != 1500 {
			b.Fatal(len(es), err)
		}
	}
}

// Documents with a label filter: the 2,000 runs of one device, decoded.
func BenchmarkDocumentsLabel10k(b *testing.B) {
	s := benchOpen(b)
	f := store.Filter{Labels: []store.LabelQuery{{Key: "device", Value: "sandisk-extreme"}}}
	for b.Loop() {
		if ds, err := s.Documents(f); err != nil || len(ds) != benchRuns/5 {
			b.Fatal(len(ds), err)
		}
	}
}

func BenchmarkDocuments10k(b *testing.B) {
	s := benchOpen(b)
	for b.Loop() {
		if ds, err := s.Documents(store.Filter{}); err != nil || len(ds) != benchRuns {
			b.Fatal(len(ds), err)
		}
	}
}

// An import of 1,000 runs into a new store.
func BenchmarkSaveAll1k(b *testing.B) {
	docs := benchDocs(1000)
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "results.db")
		s, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if n, _, err := s.SaveAll(docs); err != nil || n != len(docs) {
			b.Fatal(n, err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}
