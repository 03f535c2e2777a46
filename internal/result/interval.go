package result

import (
	"fmt"
	"slices"

	"github.com/thruput/thruput/internal/stable"
)

// Interval is how well a throughput figure is known: the 95 % confidence
// interval of the mean rate over short windows of its phase, from batch
// means (the windows are autocorrelated, see docs/architecture.md), after
// a warm-up was cut off. Rates are in bytes per second whatever the
// figure's unit.
type Interval struct {
	// Mean is the rate over the windows kept; HalfWidth the interval's
	// half-width around it (0 when too few windows were kept to tell, or,
	// converged, when every window moved the same bytes),
	// Low and High its bounds, Relative the half-width over the mean.
	Mean      float64 `json:"mean_bytes_per_s"`
	HalfWidth float64 `json:"half_width_bytes_per_s"`
	Low       float64 `json:"low_bytes_per_s"`
	High      float64 `json:"high_bytes_per_s"`
	Relative  float64 `json:"relative"`
	// Windows were kept, each about WindowNs long; EffectiveWindows is
	// what they are worth as independent samples.
	Windows          int     `json:"windows"`
	WindowNs         int64   `json:"window_ns"`
	EffectiveWindows float64 `json:"effective_windows"`
	// WarmupWindows (WarmupNs) were cut off the start as warm-up, or
	// with Sustained as the part before the cliff.
	WarmupWindows int   `json:"warmup_windows,omitempty"`
	WarmupNs      int64 `json:"warmup_ns,omitempty"`
	// Target is the relative half-width the phase was run to (0.02 for
	// --until-stable's default), or 0 when it ran for its fixed bound;
	// Converged says the interval reached the target (for a fixed run,
	// ±2 %).
	Target    float64 `json:"target,omitempty"`
	Converged bool    `json:"converged"`
	// Cliff is a drop the rate did not recover from.
	Cliff *Cliff `json:"cliff,omitempty"`
	// Sustained marks a figure of the rate after a cliff only.
	Sustained bool `json:"sustained,omitempty"`
}

// Cliff is where a phase's rate dropped and stayed down: an SD card's SLC
// cache or the page cache filling.
type Cliff struct {
	AtNs    int64 `json:"at_ns"`
	AtBytes int64 `json:"at_bytes"`
	// Before and After are the mean rates either side, bytes per second.
	Before float64 `json:"before_bytes_per_s"`
	After  float64 `json:"after_bytes_per_s"`
}

// DefaultStable is the relative half-width a figure is called stable at
// when no target was set.
const DefaultStable = stable.DefaultStable

// Known says whether the interval tells anything: a width, or none at all
// because every window moved the same bytes (converged, ±0).
func (iv *Interval) Known() bool {
	return iv != nil && iv.Mean > 0 && (iv.HalfWidth > 0 || iv.Converged)
}

// PlusMinus is the half-width for a figure shown as value in unit
// (value ± this), scaled from the relative width: the figure and the
// windows' mean differ by the final fsync or a tail, and the table shows
// the figure.
func (iv *Interval) PlusMinus(value float64) float64 {
	if !iv.Known() {
		return 0
	}
	return iv.Relative * value
}

// NamedInterval is one figure's interval and what the figure is.
type NamedInterval struct {
	Name     string
	Interval *Interval
}

// Intervals lists the interval of every headline figure (see
// Figure.Headline), by the name the headline gives it, a repeat as "run N",
// prefixed with its target's label when the run has several; Interval is
// nil where the figure has none (a phase too short for one). Failed
// downloads show no figure.
func (d *Document) Intervals() []NamedInterval {
	var out []NamedInterval
	labels := TargetLabels(d.Targets)
	for _, s := range d.Sections() {
		for _, f := range s.Figures() {
			if f.Headline == "" {
				continue
			}
			name := f.Headline
			if f.Repeat > 0 {
				name = fmt.Sprintf("run %d", f.Repeat)
			}
			if len(labels) > 1 && f.Target < len(labels) {
				name = labels[f.Target] + " " + name
			}
			// A mixed job's directions share their run's interval.
			if !slices.ContainsFunc(out, func(n NamedInterval) bool { return n.Name == name }) {
				out = append(out, NamedInterval{name, f.Interval})
			}
		}
	}
	return out
}
