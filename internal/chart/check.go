package chart

import (
	"github.com/thruput/thruput/internal/result"
)

func init() {
	drawers[result.MethodCheck] = &drawer{charts: checkCharts, collect: checkCollect, mean: checkMean, native: MiBps}
}

// checkRun is the run a check's verdict rests on: its last (rpi-sd's
// first passing run, or its third).
func checkRun(c *result.Check) []result.CheckStep {
	if len(c.Runs) == 0 {
		return nil
	}
	return c.Runs[len(c.Runs)-1].Steps
}

// checkCharts: each step's rate in u and its IOPS, a bar per run.
func checkCharts(runs []run, u Unit) []*Chart {
	mib, iops := newGroups(len(runs)), newGroups(len(runs))
	for ri, r := range runs {
		for _, s := range checkRun(r.doc.Check) {
			bps := s.MiBPerSec * (1 << 20)
			v := u.mib(s.MiBPerSec)
			mib.put(s.Name, ri, r.meanEntry(checkKey(s, "MiB/s"), u.Name, u.mib(1), intervalEntry(v, bps, s.Interval, u.Name, figure(v, u.Name))))
			iops.put(s.Name, ri, r.meanEntry(checkKey(s, "IOPS"), "IOPS", 1, intervalEntry(s.IOPS, bps, s.Interval, "IOPS", figure(s.IOPS, "IOPS"))))
		}
	}
	names := barNames(runs)
	return nonNil(
		mib.chart("check-mibps", "Card check steps, "+u.Name, u.Name, names),
		iops.chart("check-iops", "Card check steps, IOPS", "IOPS", names))
}

func checkCollect(c *collector, d *result.Document) {
	for _, s := range checkRun(d.Check) {
		c.add(checkKey(s, "MiB/s"), s.MiBPerSec)
		c.add(checkKey(s, "IOPS"), s.IOPS)
	}
}

// checkMean is each of the first run's steps' mean over the column.
func checkMean(d *result.Document, _ []*result.Document, mean func(string, *float64) bool) {
	c := *d.Check
	steps := append([]result.CheckStep(nil), checkRun(d.Check)...)
	for i := range steps {
		mean(checkKey(steps[i], "MiB/s"), &steps[i].MiBPerSec)
		mean(checkKey(steps[i], "IOPS"), &steps[i].IOPS)
		steps[i].Interval = nil
	}
	c.Runs = []result.CheckRun{{Steps: steps}}
	d.Check = &c
}

func checkKey(s result.CheckStep, unit string) string {
	return s.Name + "|" + unit
}
