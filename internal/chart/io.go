package chart

import (
	"fmt"
	"math"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stats"
	"github.com/thruput/thruput/internal/units"
)

func init() {
	drawers[result.MethodIO] = &drawer{charts: ioCharts, collect: ioCollect, mean: ioMean, native: MiBps}
}

// ioJob describes an I/O job in a few words: "randread 4k QD 64".
func ioJob(p result.IOParameters) string {
	bs, depth := p.Shape(units.SizeLabel, "?")
	s := fmt.Sprintf("%s %s QD %s", p.RW, bs, depth)
	if p.Jobs > 1 {
		s += fmt.Sprintf(" × %d jobs", p.Jobs)
	}
	return s
}

// ioCharts: each direction's mean over the repeats, a bar per run. Runs
// of different jobs get a group per job and direction.
func ioCharts(runs []run, u Unit) []*Chart {
	same := true
	for _, r := range runs {
		same = same && ioJob(r.doc.IO.Parameters) == ioJob(runs[0].doc.IO.Parameters)
	}
	mib, iops := newGroups(len(runs)), newGroups(len(runs))
	for ri, r := range runs {
		for _, dir := range []string{result.PhaseRead, result.PhaseWrite} {
			var ds []*result.IODirection
			for _, run := range r.doc.IO.Runs {
				d := run.Read
				if dir == result.PhaseWrite {
					d = run.Write
				}
				if d != nil {
					ds = append(ds, d)
				}
			}
			if len(ds) == 0 {
				continue
			}
			key := dir
			if !same {
				key = ioJob(r.doc.IO.Parameters) + "\n" + dir
			}
			// One run's figures carry the interval of both directions'
			// bytes together (bps).
			var bps float64
			if len(ds) == 1 {
				for _, run := range r.doc.IO.Runs {
					for _, d := range []*result.IODirection{run.Read, run.Write} {
						if d != nil {
							bps += d.MiBPerSec * (1 << 20)
						}
					}
				}
			}
			for _, x := range []struct {
				g     *groups
				key   string
				unit  string
				scale float64
				get   func(*result.IODirection) float64
			}{
				{mib, "MiB/s", u.Name, u.mib(1), func(d *result.IODirection) float64 { return u.mib(d.MiBPerSec) }},
				{iops, "IOPS", "IOPS", 1, func(d *result.IODirection) float64 { return d.IOPS }},
			} {
				mean, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
				for _, d := range ds {
					v := x.get(d)
					mean += v / float64(len(ds))
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
				note := figure(mean, x.unit)
				if len(ds) > 1 {
					note += fmt.Sprintf(" (mean of %d runs, %s to %s)", len(ds), figure(lo, x.unit), figure(hi, x.unit))
					x.g.setSpread(key, ri, mean, lo, hi, note)
					continue
				}
				x.g.put(key, ri, r.meanEntry(dir+"|"+x.key, x.unit, x.scale, intervalEntry(mean, bps, ds[0].Interval, x.unit, note)))
			}
		}
	}
	title := "Disk I/O"
	if same {
		title += ", " + ioJob(runs[0].doc.IO.Parameters)
	}
	names := barNames(runs)
	return nonNil(
		mib.chart("io-mibps", title+", "+u.Name, u.Name, names),
		iops.chart("io-iops", title+", IOPS", "IOPS", names))
}

// ioCollect takes each run's mean over its repeats.
func ioCollect(c *collector, d *result.Document) {
	for _, dir := range []string{result.PhaseRead, result.PhaseWrite} {
		var mib, iops []float64
		for _, r := range d.IO.Runs {
			if io := ioDir(r, dir); io != nil {
				mib, iops = append(mib, io.MiBPerSec), append(iops, io.IOPS)
			}
		}
		if len(mib) > 0 {
			c.add(dir+"|MiB/s", stats.Summarize(mib).Mean)
			c.add(dir+"|IOPS", stats.Summarize(iops).Mean)
		}
	}
}

// ioMean is one run of the means, per direction.
func ioMean(d *result.Document, _ []*result.Document, mean func(string, *float64) bool) {
	io := *d.IO
	var one result.IORun
	for _, dir := range []string{result.PhaseRead, result.PhaseWrite} {
		x := &result.IODirection{}
		if !mean(dir+"|MiB/s", &x.MiBPerSec) {
			continue
		}
		mean(dir+"|IOPS", &x.IOPS)
		if dir == result.PhaseRead {
			one.Read = x
		} else {
			one.Write = x
		}
	}
	io.Runs = []result.IORun{one}
	d.IO = &io
}

func ioDir(r result.IORun, dir string) *result.IODirection {
	if dir == result.PhaseWrite {
		return r.Write
	}
	return r.Read
}
