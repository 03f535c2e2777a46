package result

import (
	"fmt"
	"slices"
	"strings"
)

// Mark is the four desktop presets (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1,
// RND4K Q1T1), each read and write.
type Mark struct {
	// MarkParameters are embedded, their fields at the top of the
	// section as they have always been.
	MarkParameters
	// Engine is the engine that ran; EngineNote says why it differs from
	// the one asked for (io_uring refused by the kernel).
	Engine     string       `json:"engine"`
	EngineNote string       `json:"engine_note,omitempty"`
	Results    []MarkResult `json:"results"`
}

// MarkParameters are the effective parameters of the presets.
type MarkParameters struct {
	// Size is the test file; DurationNs bounds each of the eight tests.
	Size       int64 `json:"size"`
	DurationNs int64 `json:"duration_ns"`
	Direct     bool  `json:"direct"`
}

// MarkResult is one preset in one direction.
type MarkResult struct {
	// Preset is SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1 or RND4K Q1T1.
	Preset string `json:"preset"`
	Phase  string `json:"phase"`
	// MBPerSec is in 10^6 bytes per second, as those tools print;
	// MiBPerSec in 2^20.
	MBPerSec  float64  `json:"mb_per_s"`
	MiBPerSec float64  `json:"mib_per_s"`
	IOPS      float64  `json:"iops"`
	Latency   *Latency `json:"latency,omitempty"`
	// ElapsedNs is the measured span.
	ElapsedNs int64 `json:"elapsed_ns,omitempty"`
	// Device is what the storage device served of a read phase.
	Device *DeviceShare `json:"device,omitempty"`
	// Interval is how well the rate is known.
	Interval *Interval `json:"interval,omitempty"`
}

// markPresets are the desktop presets in the order disk mark runs them.
var markPresets = []string{"SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"}

// Measured is whether any preset completed an I/O.
func (m *Mark) Measured() bool {
	return slices.ContainsFunc(m.Results, func(r MarkResult) bool { return r.IOPS > 0 })
}

// markRate is the gauge of a preset's rate.
var markRate = Gauge{Name: "thruput_disk_mark_bytes_per_second", Help: "CrystalDiskMark's presets, the latest run's.", Trend: Trend{Title: "The four presets (disk mark)"}}

// Figures are each preset's rate per direction, in the presets' order (a
// preset markPresets does not know after them).
func (m *Mark) Figures() []Figure {
	var out []Figure
	for _, r := range m.Results {
		rank := slices.Index(markPresets, r.Preset)
		if rank < 0 {
			rank = len(markPresets)
		}
		phase := 0
		if r.Phase == PhaseWrite {
			phase = 1
		}
		out = append(out, Figure{Group: "mark", Step: r.Preset + " " + r.Phase, Rank: float64(2*rank + phase),
			Metric: "MiB/s", HigherIsBetter: true, Headline: r.Preset + " " + r.Phase, Value: r.MiBPerSec, Interval: r.Interval, Device: r.Device,
			Series: markRate.Sample(r.MiBPerSec*bytesPerMiB, "preset", r.Preset, "direction", r.Phase)})
	}
	return out
}

// Params are the run's size, duration and I/O mode.
func (m *Mark) Params() any {
	return m.MarkParameters
}

// Brief is the first preset, the sequential one people quote, read then
// write.
func (m *Mark) Brief(targets []Target) string {
	preset := markPresets[0]
	var parts []string
	for _, phase := range []string{PhaseRead, PhaseWrite} {
		for _, r := range m.Results {
			if r.Preset == preset && r.Phase == phase {
				parts = append(parts, fmt.Sprintf("%s %.1f MiB/s", phase, r.MiBPerSec)+cachedMark(targets, r.Device))
				break
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return preset + " " + strings.Join(parts, ", ")
}
