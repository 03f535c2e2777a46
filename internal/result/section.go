package result

import (
	"fmt"
	"strings"
)

// Section is what every part of a document that holds measurements
// implements: the method's own section (Sweep, Random, IO, Mark, Net, HTTP)
// and sections any method can carry (latency under load). Consumers that
// only need numbers (Measured, Intervals, compare, the previous-run line,
// the metrics, a list's headline) loop over Sections, their Figures and
// their Brief and never ask which section it is, so a new section needs
// no change in them.
type Section interface {
	// Measured is whether the section moved any data or timed anything:
	// a run that failed before its first byte measured nothing.
	Measured() bool
	// Figures are the section's numbers, in the order its report prints
	// them.
	Figures() []Figure
	// Params are what must match for two runs to be compared (block
	// sizes, queue depth, streams ...), as a value that compares with ==
	// after encoding to JSON: the section's parameters less what names an
	// end of the test rather than the test.
	Params() any
	// Brief words the section's best figures as a list of runs shows
	// them beside each ("read 23.7 MiB/s, write 20.9 MiB/s (max)"); the
	// run's targets name a sweep's and mark a memory filesystem's reads
	// cached. It is "" when the section measured none. A section any
	// method can carry words what it adds to the method's ("loaded RTT
	// 25.3 ms (+24.1 ms over idle)").
	Brief(targets []Target) string
}

// Figure is one number a section measured: a rate, a count or a latency
// of one step (a block size, a preset, a direction) on one target, in one
// of the run's repeats.
type Figure struct {
	// Group gathers the figures a report prints together: "sweep write",
	// "sweep read", "mark", "io read", "random", "net up", "http",
	// "latency down" ...
	Group string
	// Step names the figure within its group ("4k", "SEQ1M Q8T1
	// read", "loaded p50"); Rank orders steps where names sort wrongly
	// (block sizes by size, presets in the tool's order).
	Step string
	Rank float64
	// Target indexes Document.Targets (0 for methods with one target).
	Target int
	// Metric is the figure's name and unit: "MiB/s", "IOPS", "receiver
	// Mbit/s", "p50 µs", "retransmits"; HigherIsBetter is false for
	// latencies and losses.
	Metric         string
	HigherIsBetter bool
	// Headline names the rate the step measures, the one its Interval is
	// of, as notes name it ("4k write", "up", "reads+writes"); it is
	// empty on the figures derived from it (IOPS, one direction of a
	// mixed mode, the sender's end, each stream's share), which would
	// count the same change again, and on peaks and latencies, which
	// answer other questions.
	Headline string
	// Repeat numbers the run a figure is of, from 1, for methods that
	// repeat within a run (disk io --repeat, net http --repeat); 0
	// elsewhere. The repeats of a figure share its Group, Step and Metric.
	Repeat int
	Value  float64
	// Interval is how well Value is known, when the run measured it.
	Interval *Interval
	// HalfWidth is how well Value is known when the figure is not a rate
	// (Interval's figures are bytes per second): the half-width of its
	// 95 % interval in Value's own unit, the wider side of an asymmetric
	// one (a latency median's order-statistic interval); 0 when unknown.
	HalfWidth float64
	// Device is what the storage device served of a read figure; nil
	// where the page cache cannot be involved. Reads names those reads
	// in a comparison's words where Group and Step do not ("io read",
	// "random reads").
	Device *DeviceShare
	Reads  string
	// Series is the figure as a metric series; nil for a figure no
	// series carries (a sender's end, a peak, a disk job's latency).
	Series *Series
	// SeriesOnly marks a figure that is there for its series alone: a
	// comparison of runs leaves it out (the idle phase's tail and probe
	// loss, which say nothing of the load).
	SeriesOnly bool
}

// count prints a rate of operations in a Brief: whole numbers once they
// are large enough that decimals are noise.
func count(x float64) string {
	if x >= 100 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.1f", x)
}

// cachedMark says in a Brief that a read figure is the page cache's, as a
// sweep's steps do: the device d served little of it, or the run measured
// a tmpfs or ramfs, whose files are memory and which has no device to
// count (the suite's quick random step there once headlined memory as a
// disk).
func cachedMark(targets []Target, d *DeviceShare) string {
	memory := len(targets) > 0
	for _, t := range targets {
		memory = memory && (t.FSType == "tmpfs" || t.FSType == "ramfs")
	}
	if memory || d != nil && d.Cached {
		return " cached"
	}
	return ""
}

// methodSections gives the section each method fills, the labels that
// name what a run of it measured (SeriesLabels), whether it measures a
// network link rather than storage, and whether its Brief writes rates
// in Mbit/s (a link's unit) rather than MiB/s.
var methodSections = []methodSection{
	{MethodSweep, func(d *Document) Section { return section(d.Sweep) }, targetLabel, false, false},
	{MethodRandom, func(d *Document) Section { return section(d.Random) }, targetLabel, false, false},
	{MethodIO, func(d *Document) Section { return section(d.IO) }, targetLabel, false, false},
	{MethodMark, func(d *Document) Section { return section(d.Mark) }, targetLabel, false, false},
	{MethodCheck, func(d *Document) Section { return section(d.Check) }, targetLabel, false, false},
	{MethodCapacity, func(d *Document) Section { return section(d.Capacity) }, targetLabel, false, false},
	{MethodNetClient, func(d *Document) Section { return section(d.Net) }, netLabels, true, true},
	{MethodNetServer, func(d *Document) Section { return section(d.Net) }, netLabels, true, true},
	{MethodHTTP, func(d *Document) Section { return section(d.HTTP) }, urlLabel, true, false},
}

// methodSection is a method's line in methodSections.
type methodSection struct {
	method     Method
	section    func(*Document) Section
	labels     func(*Document, Figure) []string
	link, bits bool
}

// entry is m's line in methodSections; a method without one (an empty
// Method) gets a line that fills no section.
func (m Method) entry() methodSection {
	for _, s := range methodSections {
		if s.method == m {
			return s
		}
	}
	return methodSection{method: m, section: func(*Document) Section { return nil }, labels: func(*Document, Figure) []string { return nil }}
}

// Link says whether the method measures a network link: its pages print
// rates in Mbit/s, and a busy core's interrupt work is the receive path.
func (m Method) Link() bool { return m.entry().link }

// BriefInBits says whether the method's Brief, the headline a store
// keeps, writes its rates in Mbit/s; the others write MiB/s.
func (m Method) BriefInBits() bool { return m.entry().bits }

// Crossed is the network interface the run's data crossed (eth0,
// wlan0), "" for a run that crossed none or does not know: a section
// that moved data over a link says which with a method Crossed.
func (d *Document) Crossed() string {
	if c, ok := d.Section().(interface{ Crossed() string }); ok {
		return c.Crossed()
	}
	return ""
}

// section is p as a Section, nil (not a typed nil) when p is.
func section[T any, P interface {
	*T
	Section
}](p P) Section {
	if p == nil {
		return nil
	}
	return p
}

// SectionMethod is the method whose section the document holds: its
// Method when that section is set, else the first method whose section is
// (a document built without its Method); "" when it holds none. The
// per-method renderers (tables, charts, ceilings) are looked up by it.
func (d *Document) SectionMethod() Method {
	for _, m := range methodSections {
		if m.method == d.Method && m.section(d) != nil {
			return m.method
		}
	}
	for _, m := range methodSections {
		if m.section(d) != nil {
			return m.method
		}
	}
	return ""
}

// Section is the method's section, nil when the document has none.
func (d *Document) Section() Section {
	return d.SectionMethod().entry().section(d)
}

// Sections are every section of the document that holds measurements:
// the method's first, then those any method can carry, each in one line
// of the list below.
func (d *Document) Sections() []Section {
	var out []Section
	for _, s := range []Section{
		d.Section(),
		section(d.LoadLatency),
	} {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// Measured reports whether the run moved any data: a run that failed
// before its first byte (connection refused, unreadable target) measured
// nothing and is an error, not a result.
func (d *Document) Measured() bool {
	for _, s := range d.Sections() {
		if s.Measured() {
			return true
		}
	}
	return false
}

// Subject is what the run measured, as a list of runs names it: the path
// of every target (a sweep may cover several), the server of a network
// test or the URL of a download; "" for none.
func (d *Document) Subject() string {
	switch {
	case len(d.Targets) > 0:
		paths := make([]string, len(d.Targets))
		for i, t := range d.Targets {
			paths[i] = t.Path
		}
		return strings.Join(paths, ", ")
	case d.Net != nil:
		return d.Net.Parameters.Server
	case d.HTTP != nil:
		return d.HTTP.Parameters.URL
	}
	return ""
}
