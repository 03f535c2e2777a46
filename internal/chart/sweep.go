package chart

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

func init() {
	drawers[result.MethodSweep] = &drawer{charts: sweepCharts, collect: sweepCollect, mean: sweepMean, native: MiBps}
}

// sweepCharts: the rate in u against block size, a line per run and
// target.
func sweepCharts(runs []run, u Unit) []*Chart {
	var out []*Chart
	for _, phase := range []string{result.PhaseWrite, result.PhaseRead} {
		var ss []*series
		// An imported run's figures are what its tool printed: the page
		// cache and fsync of thruput's own steps are not claimed for them.
		imported := false
		for _, r := range runs {
			p := r.doc.Sweep.Parameters
			if (phase == result.PhaseWrite && !p.Write) || (phase == result.PhaseRead && !p.Read) {
				continue
			}
			imported = imported || r.doc.Imported != nil
			labels := result.TargetLabels(r.doc.Targets)
			for ti := range r.doc.Targets {
				var steps []result.SweepStep
				for _, s := range r.doc.Sweep.Steps {
					if s.Target == ti && s.Phase == phase && s.BlockSize > 0 {
						steps = append(steps, s)
					}
				}
				if len(steps) == 0 {
					continue
				}
				slices.SortStableFunc(steps, func(a, b result.SweepStep) int { return int(a.BlockSize - b.BlockSize) })
				s := newSeries(seriesName(runs, r, labels[ti]), len(ss), vg.Points(1.5))
				for _, st := range steps {
					v := u.mib(st.MiBPerSec)
					err := st.Interval.PlusMinus(v)
					pm := ""
					if err > 0 {
						pm = " ±" + f1(err)
					}
					pt := point{X: float64(st.BlockSize), Y: v, Err: err,
						Label: fmt.Sprintf("%s, %s %s: %s%s %s%s", s.Name, phase, units.SizeLabel(st.BlockSize), f1(v), pm, u.Name, stepNote(st, u))}
					if sp, ok := r.spread[sweepKey(st)]; ok && sp.N > 1 {
						sp.Mean, sp.Stddev = u.mib(sp.Mean), u.mib(sp.Stddev)
						pt.Err, pt.Kind = sp.Stddev, "stddev"
						pt.Label = fmt.Sprintf("%s, %s %s: %s %s%s", s.Name, phase, units.SizeLabel(st.BlockSize), f1(sp.Mean), u.Name, repeatNote(sp, u.Name))
					}
					if iv := st.Interval; iv != nil && iv.Cliff != nil {
						pt.Cliff = u.of(iv.Cliff.Before)
						pt.CliffLabel = fmt.Sprintf("%s, %s %s: %s %s before the drop", s.Name, phase, units.SizeLabel(st.BlockSize), f1(pt.Cliff), u.Name)
					}
					s.Points = append(s.Points, pt)
				}
				ss = append(ss, s)
			}
		}
		if len(ss) == 0 {
			continue
		}
		title := "Write, " + u.Name + " by block size (fsync included)"
		switch {
		case imported && phase == result.PhaseRead:
			title = "Read, " + u.Name + " by block size"
		case imported:
			title = "Write, " + u.Name + " by block size"
		case phase == result.PhaseRead:
			title = "Read, " + u.Name + " by block size (page cache evicted)"
		}
		out = append(out, lineChart("sweep-"+phase, title, u.Name, ss))
	}
	return out
}

// stepNote says what makes a step's figure something other than a plain
// device figure, as the table's markers do; rates are in u.
func stepNote(s result.SweepStep, u Unit) string {
	var n []string
	switch s.Cache {
	case result.CacheCached:
		n = append(n, "read from the page cache")
	case result.CachePartial:
		n = append(n, "partly cached")
	case result.CacheUncertain:
		n = append(n, "image below may be cached")
	}
	if s.Truncated {
		n = append(n, "stopped at max time")
	}
	if iv := s.Interval; iv != nil && iv.Cliff != nil {
		c := iv.Cliff
		n = append(n, fmt.Sprintf("%s for the first %s, then %s", figure(u.of(c.Before), u.Name), units.IEC(c.AtBytes), figure(u.of(c.After), u.Name)))
	}
	if iv := s.Interval; iv != nil && iv.Target > 0 && !iv.Converged {
		n = append(n, "not stable")
	}
	if len(n) == 0 {
		return ""
	}
	return " (" + strings.Join(n, ", ") + ")"
}

// lineChart draws sweep series over a log2 block-size axis, and the rate
// axis (in unit) in decades when the figures span more than two of them: a sweep
// from 8 B to 1 MiB often does, and on a linear axis the small blocks
// would lie flat on zero.
func lineChart(name, title, unit string, ss []*series) *Chart {
	lo, hi := math.Inf(1), 0.0
	bmin, bmax := int64(math.MaxInt64), int64(0)
	for _, s := range ss {
		for _, p := range s.Points {
			if p.Y > 0 {
				lo = math.Min(lo, p.Y)
			}
			hi = math.Max(hi, p.Y)
			bmin, bmax = min(bmin, int64(p.X)), max(bmax, int64(p.X))
		}
	}
	logY := hi > 0 && hi/lo > 100
	yLabel := unit
	if logY {
		yLabel = unit + " (log scale)"
		var kept []*series
		for _, s := range ss {
			// A log axis has no zero; a step that moved nothing is in the
			// table.
			s.Points = slices.DeleteFunc(s.Points, func(p point) bool { return p.Y <= 0 })
			if len(s.Points) > 0 {
				kept = append(kept, s)
			}
		}
		ss = kept
	}
	p := newPlot(title, "block size", yLabel)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = log2Ticks(bmin, bmax)
	if bmin == bmax {
		// One block size: gonum would widen the axis by ±1, to zero for
		// 1 byte, which a log axis cannot show.
		p.X.Min, p.X.Max = float64(bmin)/2, float64(bmax)*2
	}
	if len(p.X.Tick.Marker.Ticks(0, 0)) > 9 {
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign = -1
		p.X.Tick.Label.YAlign = -0.5
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.TickerFunc(decadeTicks)
	}
	ms := make([]marked, len(ss))
	for i, s := range ss {
		ms[i] = s
	}
	c := build(name, title, p, &plotter.Grid{Vertical: gridLine, Horizontal: gridLine}, ms...)
	if logY {
		// Whole decades, so the axis ends on labelled ticks.
		p.Y.Min = math.Pow(10, math.Floor(math.Log10(lo)))
		p.Y.Max = math.Pow(10, math.Ceil(math.Log10(hi)))
	} else {
		p.Y.Min, p.Y.Max = 0, p.Y.Max*1.08
	}
	return c
}

// log2Ticks marks every power of two from the smallest block size to the
// largest, labelled as the tables print sizes.
func log2Ticks(lo, hi int64) plot.ConstantTicks {
	if lo <= 0 || hi < lo {
		return nil
	}
	var ticks plot.ConstantTicks
	for v := int64(1) << int(math.Floor(math.Log2(float64(lo)))); v > 0 && v <= hi; v *= 2 {
		ticks = append(ticks, plot.Tick{Value: float64(v), Label: units.SizeLabel(v)})
	}
	return ticks
}

func sweepCollect(c *collector, d *result.Document) {
	for _, s := range d.Sweep.Steps {
		c.add(sweepKey(s), s.MiBPerSec)
	}
}

// sweepMean is each step's mean, over the runs that have the step.
func sweepMean(d *result.Document, docs []*result.Document, mean func(string, *float64) bool) {
	s := *d.Sweep
	s.Steps = nil
	seen := map[string]bool{}
	for _, x := range docs {
		for _, st := range x.Sweep.Steps {
			if k := sweepKey(st); !seen[k] {
				seen[k] = true
				mean(k, &st.MiBPerSec)
				st.Interval = nil
				s.Steps = append(s.Steps, st)
			}
		}
	}
	d.Sweep = &s
}

func sweepKey(s result.SweepStep) string {
	return fmt.Sprintf("%d|%s|%d", s.Target, s.Phase, s.BlockSize)
}
