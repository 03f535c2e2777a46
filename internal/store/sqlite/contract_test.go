package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/store/storetest"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := Open(filepath.Join(t.TempDir(), "results.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
