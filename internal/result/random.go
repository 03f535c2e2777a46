package result

import (
	"fmt"
	"strings"

	"github.com/thruput/thruput/internal/units"
)

// Random is sysbench fileio's method: a prepared file set, then a timed mix
// of reads, writes and fsyncs at random (or sequential) offsets.
type Random struct {
	Parameters RandomParameters `json:"parameters"`
	// PrepareNs is the untimed laying out of the file set.
	PrepareNs int64 `json:"prepare_ns"`
	// ElapsedNs is the timed phase, including the final fsync when
	// fsync_end is set.
	ElapsedNs int64 `json:"elapsed_ns"`
	// Reads, Writes and Fsyncs count requests; Fsyncs are the periodic
	// ones, EndFsyncs the per-file fsyncs at the end.
	Reads     int64 `json:"reads"`
	Writes    int64 `json:"writes"`
	Fsyncs    int64 `json:"fsyncs"`
	EndFsyncs int64 `json:"end_fsyncs"`
	// ReadBytes and WrittenBytes moved.
	ReadBytes    int64 `json:"read_bytes"`
	WrittenBytes int64 `json:"written_bytes"`
	// Per-second rates over ElapsedNs; RequestsPerSec counts reads and
	// writes, as sysbench's "Requests/sec" does.
	RequestsPerSec float64 `json:"requests_per_s"`
	ReadsPerSec    float64 `json:"reads_per_s"`
	WritesPerSec   float64 `json:"writes_per_s"`
	FsyncsPerSec   float64 `json:"fsyncs_per_s"`
	ReadMiBPerSec  float64 `json:"read_mib_per_s"`
	WriteMiBPerSec float64 `json:"write_mib_per_s"`
	// Latency covers every request (read, write, periodic fsync), as
	// sysbench's does; the per-kind figures split it.
	Latency      *Latency `json:"latency,omitempty"`
	ReadLatency  *Latency `json:"read_latency,omitempty"`
	WriteLatency *Latency `json:"write_latency,omitempty"`
	FsyncLatency *Latency `json:"fsync_latency,omitempty"`
	// Threads holds each thread's requests and busy time; Fairness their
	// spread (a thread starved by the others shows as a large stddev),
	// absent on a run imported from sysbench output that printed none
	// (1.1 unless asked).
	Threads  []ThreadStats `json:"threads"`
	Fairness *Fairness     `json:"fairness,omitempty"`
	// ReadDevice is what the storage device served of the reads.
	ReadDevice *DeviceShare `json:"read_device,omitempty"`
	// Interval is how well the bytes moved per second (reads and writes
	// together) are known.
	Interval *Interval `json:"interval,omitempty"`
}

// RandomParameters are the effective parameters of a random file I/O run.
type RandomParameters struct {
	Files     int    `json:"files"`
	TotalSize int64  `json:"total_size"`
	FileSize  int64  `json:"file_size"`
	Mode      string `json:"mode"`
	// RWRatio is reads per write in rndrw.
	RWRatio   float64 `json:"rw_ratio"`
	BlockSize int64   `json:"block_size"`
	// FsyncEvery is how many writes (counted over all threads) come between
	// periodic fsyncs of the file just written; 0 means never.
	FsyncEvery int  `json:"fsync_every"`
	FsyncEnd   bool `json:"fsync_end"`
	// FsyncAll: each periodic fsync flushes every file of the set, not just
	// the one written (sysbench's behaviour; each file counts as an fsync).
	FsyncAll  bool   `json:"fsync_all"`
	FsyncMode string `json:"fsync_mode"`
	Threads   int    `json:"threads"`
	// TimeNs and Requests bound the timed phase; 0 means unbounded.
	TimeNs   int64 `json:"time_ns"`
	Requests int64 `json:"requests"`
	Direct   bool  `json:"direct"`
	// CacheDropped is true when the file set was evicted from the page
	// cache after preparing (buffered runs).
	CacheDropped bool `json:"cache_dropped"`
}

// ThreadStats is one worker's share of a run.
type ThreadStats struct {
	Requests  int64 `json:"requests"`
	ElapsedNs int64 `json:"elapsed_ns"`
}

// Fairness is the spread of requests and busy time over threads.
type Fairness struct {
	Requests  ThreadSpread `json:"requests"`
	ElapsedNs ThreadSpread `json:"elapsed_ns"`
}

// ThreadSpread is a Spread over the threads whose minimum and maximum may
// be unknown: sysbench prints only the mean and deviation of several
// threads, and a run imported from it has no extremes to show.
type ThreadSpread struct {
	N      int      `json:"n"`
	Mean   float64  `json:"mean"`
	Stddev float64  `json:"stddev"`
	Min    *float64 `json:"min,omitempty"`
	Max    *float64 `json:"max,omitempty"`
}

// Measured is whether any request completed: sysbench 1.1 prints rates,
// not counts.
func (r *Random) Measured() bool {
	return r.Reads+r.Writes > 0 || r.ReadsPerSec+r.WritesPerSec > 0
}

// The gauges of a run's rates.
var (
	randomRate     = Gauge{Name: "thruput_disk_random_bytes_per_second", Help: "Random file I/O (sysbench fileio's method), reads or writes, the latest run's.", Trend: Trend{Title: "Random file I/O"}}
	randomRequests = Gauge{Name: "thruput_disk_random_requests_per_second", Help: "Random file I/O requests (reads and writes) per second, the latest run's.", Trend: Trend{Title: "Random file I/O requests", Count: "req/s"}}
)

// Figures leave out the reads of a mode that only writes and the other
// way round, rather than show a zero that was never measured.
func (r *Random) Figures() []Figure {
	p := r.Parameters
	step := fmt.Sprintf("%s %s", p.Mode, units.BlockLabel(p.BlockSize))
	if p.Threads > 1 {
		step += fmt.Sprintf(", %d threads", p.Threads)
	}
	reads := r.Reads > 0 || strings.HasSuffix(p.Mode, "rd") || p.Mode == "rndrw"
	writes := r.Writes > 0 || strings.Contains(p.Mode, "wr") || p.Mode == "rndrw"
	fig := func(metric string, v float64, iv *Interval) Figure {
		return Figure{Group: "random", Step: step, Rank: float64(p.BlockSize), Metric: metric, HigherIsBetter: true, Value: v, Interval: iv}
	}
	// The requests carry the reads' device share: the page cache serves
	// reads whatever the mode says.
	req := fig("requests/s", r.RequestsPerSec, r.Interval)
	req.Headline, req.Device, req.Reads = "reads+writes", r.ReadDevice, "random reads"
	req.Series = randomRequests.Sample(r.RequestsPerSec, "mode", p.Mode)
	out := []Figure{req}
	// A direction's rate is a series only when the run counted a request
	// of it: a zero the mode implies is not a measurement to follow.
	rate := func(f Figure, n int64, mib float64, dir string) Figure {
		if n > 0 {
			f.Series = randomRate.Sample(mib*bytesPerMiB, "mode", p.Mode, "direction", dir)
		}
		return f
	}
	// The interval is of reads and writes together: it is one direction's
	// only when the mode does the one.
	var readIv, writeIv *Interval
	if !writes {
		readIv = r.Interval
	}
	if !reads {
		writeIv = r.Interval
	}
	if reads {
		out = append(out, fig("reads/s", r.ReadsPerSec, readIv), rate(fig("read MiB/s", r.ReadMiBPerSec, readIv), r.Reads, r.ReadMiBPerSec, PhaseRead))
	}
	if writes {
		out = append(out, fig("writes/s", r.WritesPerSec, writeIv), rate(fig("write MiB/s", r.WriteMiBPerSec, writeIv), r.Writes, r.WriteMiBPerSec, PhaseWrite))
	}
	if r.Latency != nil {
		p95 := fig("p95 ms", float64(r.Latency.P95Ns)/1e6, nil)
		p95.HigherIsBetter = false
		out = append(out, p95)
	}
	return out
}

// Params are the run's parameters.
func (r *Random) Params() any { return r.Parameters }

// Brief is the block size, mode and requests per second, then the rate
// of each direction the run did.
func (r *Random) Brief(targets []Target) string {
	if r.Reads+r.Writes == 0 {
		return ""
	}
	parts := []string{fmt.Sprintf("%s %s %s req/s", units.SizeLabel(r.Parameters.BlockSize), r.Parameters.Mode, count(r.RequestsPerSec))}
	if r.Reads > 0 {
		parts = append(parts, fmt.Sprintf("read %.1f MiB/s", r.ReadMiBPerSec)+cachedMark(targets, r.ReadDevice))
	}
	if r.Writes > 0 {
		parts = append(parts, fmt.Sprintf("write %.1f MiB/s", r.WriteMiBPerSec))
	}
	return strings.Join(parts, ", ")
}
