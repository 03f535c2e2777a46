package result

import (
	"fmt"
	"slices"
	"strings"

	"github.com/thruput/thruput/internal/units"
)

// Sweep is the block-size sweep: per target and block size, a file written
// with that block size (fsync included) and read back with it.
type Sweep struct {
	Parameters SweepParameters `json:"parameters"`
	// Steps in the order they ran.
	Steps []SweepStep `json:"steps"`
}

// SweepParameters are the effective parameters of a sweep.
type SweepParameters struct {
	// BlockSizes in bytes, in the order run.
	BlockSizes []int64 `json:"block_sizes"`
	// FileSize is the bytes each step writes or reads unless MaxTimeNs ends it first.
	FileSize int64 `json:"file_size"`
	// MaxTimeNs bounds each step.
	MaxTimeNs int64 `json:"max_time_ns"`
	// Write and Read say which phases ran.
	Write bool `json:"write"`
	Read  bool `json:"read"`
	// Data is "random" (incompressible, generated before timing) or "zero".
	Data string `json:"data"`
	// Direct is true when files were opened with O_DIRECT.
	Direct bool `json:"direct"`
	// DropCaches is true when /proc/sys/vm/drop_caches was written before reads.
	DropCaches bool `json:"drop_caches"`
}

// Phase names.
const (
	PhaseWrite = "write"
	PhaseRead  = "read"
	// PhaseUnknown is an imported step whose output did not say whether it
	// read or wrote (a dd summary line with no command or heading).
	PhaseUnknown = "unknown"
)

// Cache states of a read step, measured with mincore just before the read.
const (
	// CacheCold: no page of the file was in the page cache; the read came
	// from the device.
	CacheCold = "cold"
	// CachePartial: some pages were cached; the figure mixes cache and device.
	CachePartial = "partial"
	// CacheCached: every page was cached (tmpfs, or a filesystem that ignores
	// the eviction); the figure is a memory read, not a device read.
	CacheCached = "cached"
	// CacheUnknown: residency could not be measured (the file could not be
	// mapped).
	CacheUnknown = "unknown"
	// CacheUncertain: the file's own pages were evicted, but the filesystem
	// sits on a loop device or a FUSE daemon whose own cache of the image
	// below thruput cannot see; only --drop-caches clears that one.
	CacheUncertain = "uncertain"
)

// SweepStep is one phase at one block size on one target.
type SweepStep struct {
	// Target indexes Document.Targets.
	Target int `json:"target"`
	// Phase is "write" or "read".
	Phase string `json:"phase"`
	// BlockSize in bytes: every system call moved this many.
	BlockSize int64 `json:"block_size"`
	// Bytes moved, and Ops system calls made (write or read, not fsync).
	Bytes int64 `json:"bytes"`
	Ops   int64 `json:"ops"`
	// ElapsedNs is the timed span; for writes it includes the final fsync.
	ElapsedNs int64 `json:"elapsed_ns"`
	// FsyncNs is the part of ElapsedNs spent in the final fsync (writes only).
	FsyncNs int64 `json:"fsync_ns,omitempty"`
	// MiBPerSec is Bytes / 2^20 / (ElapsedNs / 1e9).
	MiBPerSec float64 `json:"mib_per_s"`
	// Truncated is true when MaxTimeNs ended the step before FileSize bytes.
	Truncated bool `json:"truncated,omitempty"`
	// Eviction says how the file was pushed out of the page cache before a
	// read: "fadvise" or "fadvise+drop_caches" (reads only).
	Eviction string `json:"eviction,omitempty"`
	// Cache is the state of the file's pages just before a read (reads
	// only): cold, partial, cached, uncertain or unknown; see CacheCold and
	// friends.
	Cache string `json:"cache,omitempty"`
	// CachedFraction is the share of the file's pages resident before the
	// read, 0 to 1 (reads only, when Cache is not unknown).
	CachedFraction *float64 `json:"cached_fraction,omitempty"`
	// Device is what the storage device served of a read step.
	Device *DeviceShare `json:"device,omitempty"`
	// Interval is how well MiBPerSec is known, and a cliff within it.
	Interval *Interval `json:"interval,omitempty"`
}

// Measured is whether any step moved a byte.
func (s *Sweep) Measured() bool {
	return slices.ContainsFunc(s.Steps, func(st SweepStep) bool { return st.Bytes > 0 })
}

// sweepRate is the gauge of a step's rate.
var sweepRate = Gauge{Name: "thruput_disk_sweep_bytes_per_second", Help: "Sequential write (fsync included) or read of one block size, the latest run's.", Trend: Trend{Title: "Sequential I/O (sweep)"}}

// Figures are each step's rate.
func (s *Sweep) Figures() []Figure {
	var out []Figure
	for _, st := range s.Steps {
		bs := units.BlockLabel(st.BlockSize)
		out = append(out, Figure{Group: "sweep " + st.Phase, Step: bs, Rank: float64(st.BlockSize), Target: st.Target,
			Metric: "MiB/s", HigherIsBetter: true, Headline: bs + " " + st.Phase, Value: st.MiBPerSec, Interval: st.Interval, Device: st.Device,
			Series: sweepRate.Sample(st.MiBPerSec*bytesPerMiB, "phase", st.Phase, "block_size", bs)})
	}
	return out
}

// Brief is the best block size of each phase: what the device can do
// when the block size is not what holds it back; a run over several
// targets gives each target's, named by its filesystem.
func (s *Sweep) Brief(targets []Target) string {
	if len(targets) < 2 {
		return sweepBest(s.Steps, -1)
	}
	var per []string
	for ti, label := range TargetLabels(targets) {
		if b := sweepBest(s.Steps, ti); b != "" {
			per = append(per, label+": "+b)
		}
	}
	return strings.Join(per, "; ")
}

// sweepBest is the best block size of each phase among the steps of
// target ti, or of every target when ti is negative.
func sweepBest(steps []SweepStep, ti int) string {
	var best [3]*SweepStep // read, write, unknown
	for i := range steps {
		st := &steps[i]
		if ti >= 0 && st.Target != ti {
			continue
		}
		k := -1
		switch st.Phase {
		case PhaseRead:
			k = 0
		case PhaseWrite:
			k = 1
		case PhaseUnknown:
			k = 2
		}
		if k >= 0 && st.MiBPerSec > 0 && (best[k] == nil || st.MiBPerSec > best[k].MiBPerSec) {
			best[k] = st
		}
	}
	var parts []string
	if st := best[0]; st != nil {
		p := fmt.Sprintf("read %.1f MiB/s", st.MiBPerSec)
		// A read served from the page cache measures memory, and the list
		// must not pass it off as the device.
		if st.Cache == CacheCached {
			p += " cached"
		}
		parts = append(parts, p)
	}
	if st := best[1]; st != nil {
		parts = append(parts, fmt.Sprintf("write %.1f MiB/s", st.MiBPerSec))
	}
	if st := best[2]; st != nil {
		parts = append(parts, fmt.Sprintf("read or write (unknown) %.1f MiB/s", st.MiBPerSec))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + " (max)"
}

// Params are the sweep's parameters.
func (s *Sweep) Params() any { return s.Parameters }
