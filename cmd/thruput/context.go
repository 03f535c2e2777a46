package main

import (
	"github.com/thruput/thruput/internal/ceiling"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
)

// addContext records the hardware the run's data crossed, what the other
// disks and interfaces moved meanwhile (before is sysinfo's Counters at
// the start), and explains the figures against the ceilings of the links.
func addContext(doc *result.Document, before map[string]int64) {
	paths := make([]string, len(doc.Targets))
	for i, t := range doc.Targets {
		paths[i] = t.Path
	}
	fs := sysinfo.Default()
	sys := fs.System(paths...)
	sys.Activity = sysinfo.Activity(before, fs.Counters(), doc.EndedAt.Sub(doc.StartedAt).Seconds())
	doc.System = &sys
	ceiling.Explain(doc)
}
