package compare

import (
	"slices"

	"github.com/thruput/thruput/internal/result"
)

// key identifies a row: the same step and figure in every column.
type key struct{ section, step, metric string }

// figure is one row's number from one run, with the run's own repeats.
type figure struct {
	key key
	// stepRank orders steps within a section where their names would sort
	// wrongly: block sizes by size, presets in the tool's order.
	stepRank float64
	higher   bool
	headline bool
	sample   float64
	// rel is the relative half-width of a single sample's 95 % interval,
	// when its run measured one.
	rel float64
}

// sections in the order the methods' own reports print them.
var sections = []string{"sweep write", "sweep read", "mark", "check", "io read", "io write", "random", "net up", "net down", "http"}

// sectionRank places a section the list does not know (a section any
// method can carry) after the method's own, by name.
func sectionRank(s string) int {
	if i := slices.Index(sections, s); i >= 0 {
		return i
	}
	return len(sections)
}

// metrics in row order within a step.
var metrics = []string{
	"IOPS", "MiB/s", "MB/s",
	"requests/s", "reads/s", "writes/s", "read MiB/s", "write MiB/s",
	"peak MiB/s",
	"receiver Mbit/s", "sender Mbit/s", "retransmits", "jitter ms", "lost %",
	"TTFB ms", "p50 µs", "p95 ms", "p99 µs",
}

// metricRank places an unknown metric, which no method yields, last.
func metricRank(m string) int {
	if i := slices.Index(metrics, m); i >= 0 {
		return i
	}
	return len(metrics)
}

// figures lists what doc measured on its target ti (only a sweep has
// steps per target; other methods measure one). A figure with repeats is
// one figure per repeat, which the column gathers as the row's samples.
func figures(doc *result.Document, ti int) []figure {
	var fs []figure
	for _, s := range doc.Sections() {
		for _, f := range s.Figures() {
			if f.Target != ti || f.SeriesOnly {
				continue
			}
			x := figure{key{f.Group, f.Step, f.Metric}, f.Rank, f.HigherIsBetter, f.Headline != "", f.Value, 0}
			// The 95 % interval of a single run's figure lets a
			// comparison of single runs tell a real difference from
			// noise; a figure with repeats is judged by them instead.
			// A figure that is not a rate (a latency median) carries its
			// interval's half-width in its own unit instead.
			switch {
			case f.Interval.Known():
				x.rel = f.Interval.Relative
			case f.HalfWidth > 0 && f.Value > 0:
				x.rel = f.HalfWidth / f.Value
			}
			fs = append(fs, x)
		}
	}
	return fs
}

// cachedSteps names the read steps of doc on target ti that the page
// cache served, in the rows' own words.
func cachedSteps(doc *result.Document, ti int) []string {
	var out []string
	for _, s := range doc.Sections() {
		for _, f := range s.Figures() {
			if f.Target != ti || f.Device == nil || !f.Device.Cached {
				continue
			}
			name := f.Reads
			if name == "" {
				name = f.Group + " " + f.Step
			}
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}
