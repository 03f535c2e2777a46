package result

// Section is what every part of a document that holds measurements
// implements: the method's own section (Sweep, Random, IO, Mark, Net, HTTP)
// and sections any method can carry (latency under load). Consumers that
// only need numbers (Measured, compare, metrics, the headline summary, the
// previous-run line) loop over Figures and never ask which section it is,
// so a new section needs no change in them.
type Section interface {
	// Measured is whether the section moved any data or timed anything:
	// a run that failed before its first byte measured nothing.
	Measured() bool
	// Figures are the section's numbers, in the order its report prints
	// them.
	Figures() []Figure
	// Parameters are what must match for two runs to be compared (block
	// sizes, queue depth, streams ...), as a value that compares with ==
	// after encoding to JSON.
	Parameters() any
}

// Figure is one number a section measured: a rate, a count or a latency
// of one step (a block size, a preset, a direction) on one target.
type Figure struct {
	// Group gathers the figures a report prints together: "sweep write",
	// "sweep read", "mark", "io read", "random", "net up", "http",
	// "latency down" ...
	Group string
	// Step names the figure within its group ("4 KiB", "SEQ1M Q8T1
	// read", "loaded p50"); Rank orders steps where names sort wrongly
	// (block sizes by size, presets in the tool's order).
	Step string
	Rank float64
	// Target indexes Document.Targets (0 for methods with one target).
	Target int
	// Metric is the figure's name and unit: "MiB/s", "IOPS", "Mbit/s",
	// "p50 µs", "retransmits"; HigherIsBetter is false for latencies and
	// losses.
	Metric         string
	HigherIsBetter bool
	// Value is the figure; Samples its repeats within the run, when the
	// method repeats (disk io --repeat), Value being their mean.
	Value   float64
	Samples []float64
	// Interval is how well Value is known, when the run measured it.
	Interval *Interval
	// Device is what the storage device served of a read figure; nil
	// where the page cache cannot be involved.
	Device *DeviceShare
}
