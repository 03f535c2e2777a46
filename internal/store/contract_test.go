package store_test

import (
	"path/filepath"
	"testing"

	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/store/storetest"
)

func TestContractSQLite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := store.Open(filepath.Join(t.TempDir(), "results.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
