package result

import (
	"fmt"
	"strconv"

	"github.com/thruput/thruput/internal/units"
)

// IO is fio's method: one job (or several in parallel) of reads and/or
// writes at a block size and queue depth, repeated to show the spread.
type IO struct {
	Parameters IOParameters `json:"parameters"`
	// Engine is the engine that ran; EngineNote says why it differs from
	// the one asked for (io_uring refused by the kernel).
	Engine     string `json:"engine"`
	EngineNote string `json:"engine_note,omitempty"`
	// Runs holds one entry per --repeat.
	Runs []IORun `json:"runs"`
	// Summary is the spread over Runs, when there are several.
	Summary *IOSummary `json:"summary,omitempty"`
	// Verify is the data check of --verify.
	Verify *Verify `json:"verify,omitempty"`
}

// IOParameters are the effective parameters of an I/O job.
type IOParameters struct {
	// RW is read, write, randread, randwrite or randrw.
	RW string `json:"rw"`
	// MixRead is the read percentage of randrw.
	MixRead int `json:"mix_read"`
	// BlockSize and IODepth are 0, and absent from the document, when the
	// output a run was imported from did not state them (fio 2.1 prints no
	// job options); thruput's own runs always have both.
	BlockSize int64 `json:"block_size,omitempty"`
	IODepth   int   `json:"iodepth,omitempty"`
	Jobs      int   `json:"jobs"`
	// Size is the file of each job; a run ends after Size bytes per job
	// unless RuntimeNs ends it first (or TimeBased loops it). It is 0 and
	// absent when an imported output did not state it.
	Size      int64 `json:"size,omitempty"`
	RuntimeNs int64 `json:"runtime_ns"`
	TimeBased bool  `json:"time_based"`
	// RampNs is left out of the figures at the start of each run.
	RampNs int64  `json:"ramp_ns"`
	Direct bool   `json:"direct"`
	Engine string `json:"engine"`
	Repeat int    `json:"repeat"`
	Verify bool   `json:"verify"`
}

// Shape gives the block size, through label, and the queue depth as
// labels print them, or unknown for one an imported output did not state,
// so that no label shows a zero the run never had.
func (p IOParameters) Shape(label func(int64) string, unknown string) (bs, depth string) {
	bs, depth = unknown, unknown
	if p.BlockSize > 0 {
		bs = label(p.BlockSize)
	}
	if p.IODepth > 0 {
		depth = strconv.Itoa(p.IODepth)
	}
	return bs, depth
}

// IORun is one run of the job, all jobs together.
type IORun struct {
	// ElapsedNs is the measured span, ramp excluded.
	ElapsedNs int64 `json:"elapsed_ns"`
	// Read and Write are absent for a direction the job did not do.
	Read  *IODirection `json:"read,omitempty"`
	Write *IODirection `json:"write,omitempty"`
}

// IODirection is one direction of a run.
type IODirection struct {
	IOs       int64   `json:"ios"`
	Bytes     int64   `json:"bytes"`
	IOPS      float64 `json:"iops"`
	MiBPerSec float64 `json:"mib_per_s"`
	// Latency is completion latency: from submission to completion.
	Latency *Latency `json:"latency,omitempty"`
	// Device is what the storage device served of a read direction.
	Device *DeviceShare `json:"device,omitempty"`
	// Interval is how well MiBPerSec is known.
	Interval *Interval `json:"interval,omitempty"`
}

// DeviceShare is how much of what a read phase read the storage device
// itself served, from its sector counts over the timed phase: the rest
// came from the page cache, and a figure made of it measures memory.
type DeviceShare struct {
	// ReadBytes is what the device read meanwhile (readahead and other
	// readers of the device count too).
	ReadBytes int64 `json:"read_bytes"`
	// Share is ReadBytes over the bytes the phase read.
	Share float64 `json:"share"`
	// Cached marks a buffered phase the device served less than
	// CachedBelow of: its figure is the page cache's, not the device's.
	Cached bool `json:"cached,omitempty"`
}

// CachedBelow is the device share under which a buffered read phase is
// marked cached.
const CachedBelow = 0.9

// IOSummary is the spread of each figure over the runs.
type IOSummary struct {
	ReadIOPS       *Spread `json:"read_iops,omitempty"`
	ReadMiBPerSec  *Spread `json:"read_mib_per_s,omitempty"`
	WriteIOPS      *Spread `json:"write_iops,omitempty"`
	WriteMiBPerSec *Spread `json:"write_mib_per_s,omitempty"`
}

// Verify is the outcome of writing blocks that carry their own offset and
// checksum and reading them back.
type Verify struct {
	Blocks int64 `json:"blocks"`
	// Errors counts blocks that came back wrong; FirstBadOffset is the
	// byte offset of the first, in the file of job FirstBadJob.
	Errors         int64  `json:"errors"`
	FirstBadOffset *int64 `json:"first_bad_offset,omitempty"`
	FirstBadJob    int    `json:"first_bad_job,omitempty"`
	// Detail says what was wrong with the first bad block.
	Detail string `json:"detail,omitempty"`
}

// Measured is whether any run moved data: fio before 2.1.14 counted
// bytes but printed no I/O count.
func (o *IO) Measured() bool {
	for _, r := range o.Runs {
		for _, x := range []*IODirection{r.Read, r.Write} {
			if x != nil && (x.IOs > 0 || x.Bytes > 0) {
				return true
			}
		}
	}
	return false
}

// The gauges of a job's rates, the mean of its repeats.
var (
	ioRate       = Gauge{Name: "thruput_disk_io_bytes_per_second", Help: "Queue-depth I/O (fio's method), the mean of the latest run's repeats.", Trend: Trend{Title: "Queue-depth I/O"}}
	ioOperations = Gauge{Name: "thruput_disk_io_operations_per_second", Help: "Queue-depth I/O operations per second, the mean of the latest run's repeats.", Trend: Trend{Title: "Queue-depth I/O operations", Count: "IOPS"}}
)

// Figures are each run's figures per direction, the run its Repeat; the
// step is the job, so that runs at another block size or depth stand on
// rows of their own.
func (o *IO) Figures() []Figure {
	p := o.Parameters
	bs, depth := p.Shape(units.BlockLabel, "?")
	step := fmt.Sprintf("%s %s Q%sT%d", p.RW, bs, depth, p.Jobs)
	sbs, sdepth := p.Shape(units.BlockLabel, "unknown")
	var out []Figure
	for i, run := range o.Runs {
		for _, dir := range []string{PhaseRead, PhaseWrite} {
			x := run.Read
			if dir == PhaseWrite {
				x = run.Write
			}
			if x == nil {
				continue
			}
			fig := Figure{Group: "io " + dir, Step: step, Rank: float64(p.BlockSize), Repeat: i + 1, HigherIsBetter: true, Device: x.Device}
			if x.Device != nil {
				fig.Reads = "io " + dir
			}
			// IOPS is MiB/s over the block size: it is known as well.
			iops, mib := fig, fig
			iops.Metric, iops.Value, iops.Interval = "IOPS", x.IOPS, x.Interval
			mib.Metric, mib.Value, mib.Interval, mib.Headline = "MiB/s", x.MiBPerSec, x.Interval, dir
			labels := []string{"rw", p.RW, "block_size", sbs, "iodepth", sdepth, "direction", dir}
			iops.Series = ioOperations.Sample(x.IOPS, labels...)
			mib.Series = ioRate.Sample(x.MiBPerSec*bytesPerMiB, labels...)
			out = append(out, iops, mib)
			if x.Latency != nil {
				lat := fig
				lat.HigherIsBetter, lat.Device, lat.Reads = false, nil, ""
				p50, p99 := lat, lat
				p50.Metric, p50.Value = "p50 µs", float64(x.Latency.P50Ns)/1e3
				p99.Metric, p99.Value = "p99 µs", float64(x.Latency.P99Ns)/1e3
				out = append(out, p50, p99)
			}
		}
	}
	return out
}

// Params are the job's parameters.
func (o *IO) Params() any { return o.Parameters }

// Brief is the job's shape, then the mean over the repeats of each
// direction's operations and rate.
func (o *IO) Brief(targets []Target) string {
	if len(o.Runs) == 0 {
		return ""
	}
	var iops, mibs [2]float64
	var n [2]int
	var cached *DeviceShare
	for _, r := range o.Runs {
		for k, d := range []*IODirection{r.Read, r.Write} {
			if d != nil {
				iops[k] += d.IOPS
				mibs[k] += d.MiBPerSec
				n[k]++
			}
		}
		if r.Read != nil && r.Read.Device != nil && r.Read.Device.Cached {
			cached = r.Read.Device
		}
	}
	var figs, names []string
	for k, name := range []string{PhaseRead, PhaseWrite} {
		if n[k] > 0 {
			fig := fmt.Sprintf("%s IOPS, %.1f MiB/s", count(iops[k]/float64(n[k])), mibs[k]/float64(n[k]))
			if k == 0 {
				fig += cachedMark(targets, cached)
			}
			figs = append(figs, fig)
			names = append(names, name)
		}
	}
	p := o.Parameters
	bs, depth := p.Shape(units.SizeLabel, "?")
	s := fmt.Sprintf("%s %s Q%sT%d ", bs, p.RW, depth, p.Jobs)
	switch len(figs) {
	case 0:
		return ""
	case 1:
		s += figs[0] // the rw mode already says the direction
	default:
		s += names[0] + " " + figs[0] + "; " + names[1] + " " + figs[1]
	}
	if len(o.Runs) > 1 {
		s += fmt.Sprintf(" (mean of %d)", len(o.Runs))
	}
	return s
}
