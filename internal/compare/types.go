// Package compare lines runs up side by side: it finds the same step (block
// size, preset, direction) in each, and gives every figure as a ratio to a
// baseline with the spread of its repeats and whether the difference is
// inside the noise. It computes only; internal/report prints the result.
package compare

import "github.com/thruput/thruput/internal/result"

// Column is one side of a comparison: one run, one target of a multi-target
// run, or every run a label query selected (which count as its repeats).
type Column struct {
	// Name is how the user picked it: a run id, or a label query such as
	// "fs=ext4", with the target appended when a run is split per target.
	Name string `json:"name"`
	// Runs are the ids of the runs in the column.
	Runs []string `json:"runs"`
	// Target is the target path when the column is one target of a run.
	Target string `json:"target,omitempty"`
	// Labels are the labels every run of the column shares.
	Labels map[string]string `json:"labels,omitempty"`
	// Cached names the read steps whose figure the page cache, not the
	// device, served in some run of the column (result.DeviceShare).
	Cached []string `json:"cached,omitempty"`
	// Suspect are the column's suspect runs, "<id>: suspect: <reasons>":
	// measured under under-voltage, throttling or a kernel error.
	Suspect []string `json:"suspect,omitempty"`
}

// Row is one figure of one step, across every column.
type Row struct {
	// Section groups rows: "sweep write", "sweep read", "mark", "io read",
	// "net up", "http" ...
	Section string `json:"section"`
	// Step names the step within the section: "4 KiB", "SEQ1M Q8T1 read".
	Step string `json:"step"`
	// Metric is the figure and its unit: "MiB/s", "IOPS", "Mbit/s", "p50 µs".
	Metric string `json:"metric"`
	// HigherIsBetter is false for latencies.
	HigherIsBetter bool `json:"higher_is_better"`
	// Cells has one entry per column, in column order.
	Cells []Cell `json:"cells"`
	// headline marks the rate a step measures (result.Figure.Headline),
	// which the previous-run line sets side by side.
	headline bool
}

// Cell is one column's figure for a row.
type Cell struct {
	// Present is false when the column has no such step.
	Present bool `json:"present"`
	// Value is the mean over Samples.
	Value float64 `json:"value,omitempty"`
	// Samples are the repeats behind Value, in run order.
	Samples []float64 `json:"samples,omitempty"`
	// Spread describes Samples when there are two or more.
	Spread *result.Spread `json:"spread,omitempty"`
	// HalfWidth is the 95 % interval's half-width of a single run's
	// figure, in the metric's unit, when the run measured one.
	HalfWidth float64 `json:"half_width,omitempty"`
	// Ratio is Value over the baseline's Value (1 for the baseline itself);
	// Diff is Ratio - 1. Both are absent when either side is missing or the
	// baseline is zero.
	Ratio *float64 `json:"ratio,omitempty"`
	Diff  *float64 `json:"diff,omitempty"`
	// Noise is true when the difference to the baseline is inside the
	// spread of the repeats, so it should not be read as a difference.
	Noise bool `json:"noise,omitempty"`
	// Needed is, when both sides have repeats, the smallest difference of
	// the means (in the metric's unit) that Welch's t-test at 95 % would
	// call significant with these spreads and numbers of runs.
	Needed float64 `json:"needed,omitempty"`
}

// Comparison is the whole side-by-side view.
type Comparison struct {
	// Method is the method every column measured (result.MethodSweep ...).
	Method string `json:"method"`
	// Baseline indexes Columns.
	Baseline int      `json:"baseline"`
	Columns  []Column `json:"columns"`
	Rows     []Row    `json:"rows"`
}
