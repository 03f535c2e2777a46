package chart

import (
	"slices"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

func init() {
	drawers[result.MethodMark] = &drawer{charts: markCharts, collect: markCollect, mean: markMean, native: MiBps}
}

// markCharts: the presets' rates in u and IOPS, a bar per run and phase,
// so that read and write are told apart by colour, as in every other
// chart.
func markCharts(runs []run, u Unit) []*Chart {
	phases := []string{result.PhaseRead, result.PhaseWrite}
	mib, iops := newGroups(len(runs)*len(phases)), newGroups(len(runs)*len(phases))
	for ri, r := range runs {
		for _, m := range r.doc.Mark.Results {
			pi := slices.Index(phases, m.Phase)
			if pi < 0 {
				continue
			}
			// A line a word: eight groups of two-word labels overlap.
			key := strings.ReplaceAll(m.Preset, " ", "\n")
			bps := m.MiBPerSec * (1 << 20)
			slot := ri*len(phases) + pi
			v := u.mib(m.MiBPerSec)
			mib.put(key, slot, r.meanEntry(markKey(m, "MiB/s"), u.Name, u.mib(1), intervalEntry(v, bps, m.Interval, u.Name, m.Phase+" "+figure(v, u.Name))))
			iops.put(key, slot, r.meanEntry(markKey(m, "IOPS"), "IOPS", 1, intervalEntry(m.IOPS, bps, m.Interval, "IOPS", m.Phase+" "+figure(m.IOPS, "IOPS"))))
		}
	}
	var names []string
	for _, n := range barNames(runs) {
		for _, ph := range phases {
			if len(runs) == 1 {
				names = append(names, ph)
			} else {
				names = append(names, n+" "+ph)
			}
		}
	}
	return nonNil(
		mib.chart("mark-mibps", "Disk mark presets, "+u.Name, u.Name, names),
		iops.chart("mark-iops", "Disk mark presets, IOPS", "IOPS", names))
}

func markCollect(c *collector, d *result.Document) {
	for _, m := range d.Mark.Results {
		c.add(markKey(m, "MiB/s"), m.MiBPerSec)
		c.add(markKey(m, "MB/s"), m.MBPerSec)
		c.add(markKey(m, "IOPS"), m.IOPS)
	}
}

// markMean is each of the first run's presets' mean.
func markMean(d *result.Document, _ []*result.Document, mean func(string, *float64) bool) {
	m := *d.Mark
	m.Results = nil
	for _, r := range d.Mark.Results {
		mean(markKey(r, "MiB/s"), &r.MiBPerSec)
		mean(markKey(r, "MB/s"), &r.MBPerSec)
		mean(markKey(r, "IOPS"), &r.IOPS)
		r.Interval = nil
		m.Results = append(m.Results, r)
	}
	d.Mark = &m
}

func markKey(m result.MarkResult, unit string) string {
	return m.Preset + "|" + m.Phase + "|" + unit
}
