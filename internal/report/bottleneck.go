package report

import (
	"fmt"

	"github.com/thruput/thruput/internal/result"
)

// bottlenecks prints each figure's verdict and the chain of links behind
// it, lowest ceiling marked, after the tables.
func bottlenecks(ew *errWriter, doc *result.Document, md bool, u storageUnit) {
	if len(doc.Bottlenecks) == 0 {
		return
	}
	if md {
		ew.printf("\n**Bottlenecks**\n\n")
	} else {
		ew.printf("\nBottlenecks:\n")
	}
	for _, b := range doc.Bottlenecks {
		if doc.Suspect() {
			b.Figure += " " + result.SuspectMark
		}
		if md {
			ew.printf("- **%s**: %s\n", u.verdict(b.Figure, b), u.verdict(b.Verdict, b))
		} else {
			ew.printf("  %s: %s\n", u.verdict(b.Figure, b), u.verdict(b.Verdict, b))
		}
		for i, h := range b.Hops {
			ceil := "ceiling unknown"
			if h.CeilingBytesPerSec > 0 {
				ceil = u.ceiling(h.CeilingBytesPerSec)
			}
			mark := " "
			if i == b.Limit {
				mark = "<"
			}
			line := fmt.Sprintf("%s %s: %s, %s (%s)", mark, h.Name, orUnknown(h.Link), ceil, h.Basis)
			if md {
				ew.printf("  - %s\n", line)
			} else {
				ew.printf("      %s\n", line)
			}
		}
	}
}
