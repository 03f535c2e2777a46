package store_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
	"github.com/thruput/thruput/internal/store/sqlite"
	"github.com/thruput/thruput/internal/store/storetest"
)

// TestNameRuns: runs compared by id are named by what tells them apart,
// the labels that differ, else the host, else the time each started, and
// keep their ids only when nothing does. Comparison tables and legends
// were once headed by ids a reader could not tell apart.
func TestNameRuns(t *testing.T) {
	cases := []struct {
		name string
		docs []*result.Document
		want []string
	}{
		{"labels", []*result.Document{
			storetest.Doc("20260301T120000Z-aaaa01", result.MethodSweep, "pi4", 0, map[string]string{"fs": "ext4", "board": "pi4"}),
			storetest.Doc("20260301T130000Z-aaaa02", result.MethodSweep, "pi5", 1, map[string]string{"fs": "xfs", "board": "pi4"}),
		}, []string{"fs=ext4", "fs=xfs"}},
		{"host", []*result.Document{
			storetest.Doc("20260301T120000Z-bbbb01", result.MethodSweep, "pi4", 0, map[string]string{"fs": "ext4"}),
			storetest.Doc("20260301T130000Z-bbbb02", result.MethodSweep, "pi5", 1, map[string]string{"fs": "ext4"}),
		}, []string{"pi4", "pi5"}},
		{"time", []*result.Document{
			storetest.Doc("20260301T120000Z-cccc01", result.MethodSweep, "pi4", 0, nil),
			storetest.Doc("20260301T130000Z-cccc02", result.MethodSweep, "pi4", 1, nil),
		}, []string{"2026-03-01 12:00:00", "2026-03-01 13:00:00"}},
		{"nothing", []*result.Document{
			storetest.Doc("20260301T120000Z-dddd01", result.MethodSweep, "pi4", 0, nil),
			storetest.Doc("20260301T120000Z-dddd02", result.MethodSweep, "pi4", 0, nil),
		}, []string{"20260301T120000Z-dddd01", "20260301T120000Z-dddd02"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := sqlite.Open(filepath.Join(t.TempDir(), "results.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, _, err := s.SaveAll(c.docs); err != nil {
				t.Fatal(err)
			}
			groups, err := store.Groups(s, []string{c.docs[0].ID, c.docs[1].ID}, store.Selection{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, g := range groups {
				names = append(names, g.Name)
			}
			if !slices.Equal(names, c.want) {
				t.Errorf("columns named %q, want %q", names, c.want)
			}
		})
	}
}
