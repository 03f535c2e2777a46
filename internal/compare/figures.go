package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

// key identifies a row: the same step and figure in every column.
type key struct{ section, step, metric string }

// figure is one row's number from one run, with the run's own repeats.
type figure struct {
	key key
	// stepRank orders steps within a section where their names would sort
	// wrongly: block sizes by size, presets in the tool's order.
	stepRank float64
	samples  []float64
	// rel is the relative half-width of a single sample's 95 % interval,
	// when its run measured one.
	rel float64
}

// sections in the order the methods' own reports print them.
var sections = []string{"sweep write", "sweep read", "mark", "io read", "io write", "random", "net up", "net down", "http"}

// metrics in row order within a step. Higher is better but for the
// latencies and the losses.
var metrics = []metric{
	{"IOPS", true}, {"MiB/s", true}, {"MB/s", true},
	{"requests/s", true}, {"reads/s", true}, {"writes/s", true}, {"read MiB/s", true}, {"write MiB/s", true},
	{"peak MiB/s", true},
	{"receiver Mbit/s", true}, {"sender Mbit/s", true}, {"retransmits", false}, {"jitter ms", false}, {"lost %", false},
	{"TTFB ms", false}, {"p50 µs", false}, {"p95 ms", false}, {"p99 µs", false},
}

type metric struct {
	name   string
	higher bool
}

// metricRank places an unknown metric, which no method yields, last.
func metricRank(m string) int {
	if i := slices.IndexFunc(metrics, func(x metric) bool { return x.name == m }); i >= 0 {
		return i
	}
	return len(metrics)
}

// markPresets are the desktop presets in the order disk mark runs them;
// a preset this list does not know sorts after them by name.
var markPresets = []string{"SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"}

// figures lists what doc measured on its target ti (only a sweep has
// steps per target; other methods measure one).
func figures(doc *result.Document, ti int) []figure {
	var fs figureList
	switch {
	case doc.Sweep != nil:
		for _, s := range doc.Sweep.Steps {
			if s.Target == ti {
				fs.measured("sweep "+s.Phase, units.BlockLabel(s.BlockSize), float64(s.BlockSize), "MiB/s", s.Interval, s.MiBPerSec)
			}
		}
	case doc.Mark != nil:
		for _, r := range doc.Mark.Results {
			rank := slices.Index(markPresets, r.Preset)
			if rank < 0 {
				rank = len(markPresets)
			}
			phase := 0
			if r.Phase == result.PhaseWrite {
				phase = 1
			}
			fs.measured("mark", r.Preset+" "+r.Phase, float64(2*rank+phase), "MiB/s", r.Interval, r.MiBPerSec)
		}
	case doc.IO != nil:
		ioFigures(&fs, doc.IO)
	case doc.Random != nil:
		randomFigures(&fs, doc.Random)
	case doc.Net != nil:
		netFigures(&fs, doc.Net)
	case doc.HTTP != nil:
		httpFigures(&fs, doc.HTTP)
	}
	return fs
}

// cachedSteps names the read steps of doc on target ti that the page
// cache served, in the rows' own words.
func cachedSteps(doc *result.Document, ti int) []string {
	var out []string
	cached := func(s *result.DeviceShare) bool { return s != nil && s.Cached }
	switch {
	case doc.Sweep != nil:
		for _, s := range doc.Sweep.Steps {
			if s.Target == ti && cached(s.Device) {
				out = append(out, "sweep read "+units.BlockLabel(s.BlockSize))
			}
		}
	case doc.Mark != nil:
		for _, r := range doc.Mark.Results {
			if cached(r.Device) {
				out = append(out, "mark "+r.Preset+" "+r.Phase)
			}
		}
	case doc.IO != nil:
		if slices.ContainsFunc(doc.IO.Runs, func(r result.IORun) bool { return r.Read != nil && cached(r.Read.Device) }) {
			out = append(out, "io read")
		}
	case doc.Random != nil:
		if cached(doc.Random.ReadDevice) {
			out = append(out, "random reads")
		}
	}
	return out
}

type figureList []figure

// add keeps a figure that has samples: a run that did not measure it
// leaves its cell empty rather than zero.
func (fs *figureList) add(section, step string, stepRank float64, metric string, samples ...float64) {
	fs.measured(section, step, stepRank, metric, nil, samples...)
}

// measured is add with the 95 % interval of a single run's figure, which
// lets a comparison of single runs tell a real difference from noise; a
// figure with repeats is judged by them instead.
func (fs *figureList) measured(section, step string, stepRank float64, metric string, iv *result.Interval, samples ...float64) {
	if len(samples) == 0 {
		return
	}
	f := figure{key{section, step, metric}, stepRank, samples, 0}
	if len(samples) == 1 && iv.Known() {
		f.rel = iv.Relative
	}
	*fs = append(*fs, f)
}

// ioFigures gives each --repeat run as a sample; the step is the job, so
// that runs at another block size or depth stand on rows of their own.
func ioFigures(fs *figureList, r *result.IO) {
	p := r.Parameters
	step := fmt.Sprintf("%s %s Q%dT%d", p.RW, units.BlockLabel(p.BlockSize), p.IODepth, p.Jobs)
	for _, dir := range []string{result.PhaseRead, result.PhaseWrite} {
		var iops, mib, p50, p99 []float64
		var iv *result.Interval
		for _, run := range r.Runs {
			d := run.Read
			if dir == result.PhaseWrite {
				d = run.Write
			}
			if d == nil {
				continue
			}
			iops, mib, iv = append(iops, d.IOPS), append(mib, d.MiBPerSec), d.Interval
			if d.Latency != nil {
				p50, p99 = append(p50, float64(d.Latency.P50Ns)/1e3), append(p99, float64(d.Latency.P99Ns)/1e3)
			}
		}
		section := "io " + dir
		// IOPS is MiB/s over the block size: it is known as well.
		fs.measured(section, step, float64(p.BlockSize), "IOPS", iv, iops...)
		fs.measured(section, step, float64(p.BlockSize), "MiB/s", iv, mib...)
		fs.add(section, step, float64(p.BlockSize), "p50 µs", p50...)
		fs.add(section, step, float64(p.BlockSize), "p99 µs", p99...)
	}
}

// randomFigures leaves out the reads of a mode that only writes and the
// other way round, rather than show a zero that was never measured.
func randomFigures(fs *figureList, r *result.Random) {
	p := r.Parameters
	step := fmt.Sprintf("%s %s", p.Mode, units.BlockLabel(p.BlockSize))
	if p.Threads > 1 {
		step += fmt.Sprintf(", %d threads", p.Threads)
	}
	reads := r.Reads > 0 || strings.HasSuffix(p.Mode, "rd") || p.Mode == "rndrw"
	writes := r.Writes > 0 || strings.Contains(p.Mode, "wr") || p.Mode == "rndrw"
	bs := float64(p.BlockSize)
	fs.measured("random", step, bs, "requests/s", r.Interval, r.RequestsPerSec)
	// The interval is of reads and writes together: it is one direction's
	// only when the mode does the one.
	var readIv, writeIv *result.Interval
	if !writes {
		readIv = r.Interval
	}
	if !reads {
		writeIv = r.Interval
	}
	if reads {
		fs.measured("random", step, bs, "reads/s", readIv, r.ReadsPerSec)
		fs.measured("random", step, bs, "read MiB/s", readIv, r.ReadMiBPerSec)
	}
	if writes {
		fs.measured("random", step, bs, "writes/s", writeIv, r.WritesPerSec)
		fs.measured("random", step, bs, "write MiB/s", writeIv, r.WriteMiBPerSec)
	}
	if r.Latency != nil {
		fs.add("random", step, bs, "p95 ms", float64(r.Latency.P95Ns)/1e6)
	}
}

// netFigures: per direction the sum, then each stream by its place in the
// direction (ids differ from run to run); one stream would only repeat
// the sum.
func netFigures(fs *figureList, n *result.Net) {
	for _, s := range n.Sums {
		section, snd, rcv := "net "+s.Direction, s.Sender, s.Receiver
		fs.measured(section, "sum", 0, "receiver Mbit/s", s.Interval, rcv.BitsPerSecond/1e6)
		fs.add(section, "sum", 0, "sender Mbit/s", snd.BitsPerSecond/1e6)
		if snd.Retransmits != nil {
			fs.add(section, "sum", 0, "retransmits", float64(*snd.Retransmits))
		}
		if rcv.JitterMs != nil {
			fs.add(section, "sum", 0, "jitter ms", *rcv.JitterMs)
		}
		if rcv.Lost != nil && rcv.Packets != nil && *rcv.Packets > 0 {
			fs.add(section, "sum", 0, "lost %", float64(*rcv.Lost)*100/float64(*rcv.Packets))
		}
	}
	place := map[string]int{}
	for _, s := range n.Streams {
		place[s.Direction]++
	}
	seen := map[string]int{}
	for _, s := range n.Streams {
		if place[s.Direction] < 2 {
			continue
		}
		seen[s.Direction]++
		i := seen[s.Direction]
		fs.add("net "+s.Direction, fmt.Sprintf("stream %d", i), float64(i), "receiver Mbit/s", s.Receiver.BitsPerSecond/1e6)
	}
}

// httpFigures takes the downloads that ended well, as the run's own
// summary does: a failed one's rate is over a body cut short.
func httpFigures(fs *figureList, h *result.HTTP) {
	var mib, peak, ttfb []float64
	var iv *result.Interval
	for _, r := range h.Runs {
		if r.Error != "" {
			continue
		}
		mib, peak, iv = append(mib, r.MiBPerSec), append(peak, r.PeakMiBPerSec), r.Interval
		if r.TTFBNs > 0 {
			ttfb = append(ttfb, float64(r.TTFBNs)/1e6)
		}
	}
	fs.measured("http", "download", 0, "MiB/s", iv, mib...)
	fs.add("http", "download", 0, "peak MiB/s", peak...)
	fs.add("http", "download", 0, "TTFB ms", ttfb...)
}
