package main

import (
	"github.com/thruput/thruput/internal/ceiling"
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/sysinfo"
)

// addContext records the hardware the run's data crossed and explains its
// figures against the ceilings of those links.
func addContext(doc *result.Document) {
	paths := make([]string, len(doc.Targets))
	for i, t := range doc.Targets {
		paths[i] = t.Path
	}
	sys := sysinfo.Default().System(paths...)
	doc.System = &sys
	ceiling.Explain(doc)
}
