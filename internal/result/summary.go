package result

import (
	"slices"
	"strings"
)

// Summary is the run's one-line headline, its best figure(s) as a list
// shows them: "read 23.7 MiB/s, write 20.9 MiB/s (max)", "up 941.2
// Mbit/s"; "" for a run without a method's section or that measured
// nothing. A suspect run's line says so and why: "up 941.2 Mbit/s !
// suspect (under-voltage)". The store keeps the line with the run, so a
// list of thousands computes nothing, and a page of several runs shows it
// beside each; a change here or in a section's Brief applies to runs
// saved afterwards.
func (d *Document) Summary() string {
	if d.Section() == nil {
		return ""
	}
	s := brief(d, d.Sections())
	if s != "" && d.Suspect() {
		var reasons []string
		for _, x := range d.Health.Suspect {
			if !slices.Contains(reasons, x.Reason) {
				reasons = append(reasons, x.Reason)
			}
		}
		s += " " + SuspectMark + " suspect (" + strings.Join(reasons, ", ") + ")"
	}
	return s
}

// brief words the sections, the method's first: each later one (latency
// under load) adds its words to the method's, and none stands in for
// them when the method measured nothing.
func brief(d *Document, sections []Section) string {
	var parts []string
	for i, s := range sections {
		b := s.Brief(d.Targets)
		if i == 0 && b == "" {
			return ""
		}
		if b != "" {
			parts = append(parts, b)
		}
	}
	return strings.Join(parts, ", ")
}
