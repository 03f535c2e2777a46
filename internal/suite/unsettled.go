package suite

import (
	"fmt"

	"github.com/thruput/thruput/internal/result"
)

// Unsettled names the figures of the suite's runs that did not reach
// their target, one line each (the run's method, where it measured, the
// figure, why): an interval still too wide at the bound, or none at all,
// a phase shorter than the windows an interval takes (its figure is in
// the table, without a ±).
func Unsettled(docs []*result.Document) []string {
	var out []string
	for _, d := range docs {
		for _, f := range d.Intervals() {
			var why string
			switch iv := f.Interval; {
			case iv == nil:
				why = "too short for an interval"
			case iv.Target > 0 && iv.Known() && iv.Relative <= iv.Target:
				// Its bound ended the phase first, but the interval is
				// as narrow as asked: stable all the same.
				continue
			case iv.Target > 0 && !iv.Converged:
				width := "too few windows"
				if iv.Known() {
					width = fmt.Sprintf("±%.1f%%", iv.Relative*100)
				}
				why = fmt.Sprintf("%s, wanted ±%g%%", width, iv.Target*100)
			default:
				continue
			}
			out = append(out, fmt.Sprintf("%s %s %s (%s)", d.Method, d.Subject(), f.Name, why))
		}
	}
	return out
}
