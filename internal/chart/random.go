package chart

import "github.com/thruput/thruput/internal/result"

func init() {
	drawers[result.MethodRandom] = &drawer{charts: randomCharts, collect: randomCollect, mean: randomMean, native: MiBps}
}

// randomCharts: reads and writes per second and their rates in u, a bar
// per run.
func randomCharts(runs []run, u Unit) []*Chart {
	mib, iops := newGroups(len(runs)), newGroups(len(runs))
	for ri, r := range runs {
		x := r.doc.Random
		// The interval is of reads and writes together; each bar takes
		// its relative width, as a mixed disk io job's two figures do.
		bps := (x.ReadMiBPerSec + x.WriteMiBPerSec) * (1 << 20)
		if x.Reads > 0 {
			v := u.mib(x.ReadMiBPerSec)
			mib.put("read", ri, r.meanEntry("read|MiB/s", u.Name, u.mib(1), intervalEntry(v, bps, x.Interval, u.Name, figure(v, u.Name))))
			iops.put("read", ri, r.meanEntry("read|IOPS", "IOPS", 1, intervalEntry(x.ReadsPerSec, bps, x.Interval, "IOPS", figure(x.ReadsPerSec, "IOPS"))))
		}
		if x.Writes > 0 {
			v := u.mib(x.WriteMiBPerSec)
			mib.put("write", ri, r.meanEntry("write|MiB/s", u.Name, u.mib(1), intervalEntry(v, bps, x.Interval, u.Name, figure(v, u.Name))))
			iops.put("write", ri, r.meanEntry("write|IOPS", "IOPS", 1, intervalEntry(x.WritesPerSec, bps, x.Interval, "IOPS", figure(x.WritesPerSec, "IOPS"))))
		}
	}
	names := barNames(runs)
	return nonNil(
		mib.chart("random-mibps", "Random file I/O, "+u.Name, u.Name, names),
		iops.chart("random-iops", "Random file I/O, requests per second", "IOPS", names))
}

func randomCollect(c *collector, d *result.Document) {
	r := d.Random
	if r.Reads > 0 {
		c.add("read|MiB/s", r.ReadMiBPerSec)
		c.add("read|IOPS", r.ReadsPerSec)
	}
	if r.Writes > 0 {
		c.add("write|MiB/s", r.WriteMiBPerSec)
		c.add("write|IOPS", r.WritesPerSec)
	}
}

func randomMean(d *result.Document, _ []*result.Document, mean func(string, *float64) bool) {
	r := *d.Random
	mean("read|MiB/s", &r.ReadMiBPerSec)
	mean("read|IOPS", &r.ReadsPerSec)
	mean("write|MiB/s", &r.WriteMiBPerSec)
	mean("write|IOPS", &r.WritesPerSec)
	r.Interval = nil
	d.Random = &r
}
