// Package headline makes the one-line headline of a run (its best figures,
// and whether it is suspect) that the store keeps with it for lists and
// that a page of several runs shows beside each.
package headline

import (
	"slices"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// Summary is the headline figure(s) of a run, as a list shows them: "read
// 23.7 MiB/s, write 20.9 MiB/s (max)", "up 941.2 Mbit/s"; "" for a run
// without a method's section or that measured nothing. A suspect run's
// line says so and why: "up 941.2 Mbit/s ! suspect (under-voltage)". The
// line is stored with the run, so a list of thousands computes nothing; a
// change here or in a section's Brief applies to runs saved afterwards.
func Summary(doc *result.Document) string {
	if doc.Section() == nil {
		return ""
	}
	s := brief(doc, doc.Sections())
	if s != "" && doc.Suspect() {
		var reasons []string
		for _, x := range doc.Health.Suspect {
			if !slices.Contains(reasons, x.Reason) {
				reasons = append(reasons, x.Reason)
			}
		}
		s += " " + result.SuspectMark + " suspect (" + strings.Join(reasons, ", ") + ")"
	}
	return s
}

// brief words the sections, the method's first: each later one (latency
// under load) adds its words to the method's, and none stands in for
// them when the method measured nothing.
func brief(doc *result.Document, sections []result.Section) string {
	var parts []string
	for i, s := range sections {
		b := s.Brief(doc.Targets)
		if i == 0 && b == "" {
			return ""
		}
		if b != "" {
			parts = append(parts, b)
		}
	}
	return strings.Join(parts, ", ")
}
