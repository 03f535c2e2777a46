package lifecycle

import (
	"slices"

	"github.com/thruput/thruput/internal/compare"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/store"
)

// Previous finds the last comparable run in the store (the newest of the
// method on this host that ended ok, among the last 50, with the same
// targets, the same hardware in them and the same parameters) and sets
// doc against it; nil when there is none. A card swapped under the same
// path is other hardware: its runs are never the previous of the new
// card's. The store failing here costs the run nothing.
func Previous(s store.Store, doc *result.Document) *result.Previous {
	es, err := s.List(store.Filter{Method: string(doc.Method), Host: doc.Host.Hostname, Status: result.StatusOK, Limit: 50})
	if err != nil {
		return nil
	}
	target := ""
	if len(doc.Targets) > 0 {
		target = doc.Targets[0].Path
	}
	devices := doc.DeviceIDs()
	for _, e := range es {
		if e.ID == doc.ID || target != "" && e.Target != target || !slices.Equal(e.DeviceIDs, devices) {
			continue
		}
		prev, err := s.Brief(e.ID)
		if err == nil && compare.Comparable(doc, prev) {
			return compare.Against(doc, prev)
		}
	}
	return nil
}
