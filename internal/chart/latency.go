package chart

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/thruput/thruput/internal/result"
)

// Latency draws a network run's latency under load, nil without it:
//
//   - the round trip over time, a point per bin of probes (the median of
//     those answered, 100 ms bins as the section stores them), a series
//     per phase, so the idle phase and the load read apart and a queue
//     filling shows as the line climbing;
//   - the distribution of each phase's round trips as the section knows
//     it, its minimum, p50, p90, p99 and maximum, on a log axis of
//     milliseconds (an idle LAN's 0.05 ms and a full queue's 100 ms on
//     one chart): loaded against idle, the gap between the curves is the
//     latency the load added.
//
// A run's page draws these under its throughput chart.
func Latency(d *result.Document) []*Chart {
	l := d.LoadLatency
	if !l.Measured() {
		return nil
	}
	var out []*Chart
	if c := latencyTime(l); c != nil {
		out = append(out, c)
	}
	if c := latencyCDF(l); c != nil {
		out = append(out, c)
	}
	return out
}

// phases are the section's phases, idle first.
func phases(l *result.LoadLatency) []*result.LatencyPhase {
	var out []*result.LatencyPhase
	if l.Idle != nil {
		out = append(out, l.Idle)
	}
	for i := range l.Loaded {
		out = append(out, &l.Loaded[i])
	}
	return out
}

func latencyTime(l *result.LoadLatency) *Chart {
	var ss []*series
	byPhase := map[string]*series{}
	for _, b := range l.Series {
		if b.RTTNs == nil {
			continue // every probe of the bin lost: the loss is in the table
		}
		s := byPhase[b.Phase]
		if s == nil {
			s = newSeries(b.Phase, len(ss), vg.Points(1.5))
			byPhase[b.Phase] = s
			ss = append(ss, s)
		}
		at := float64(b.AtNs) / 1e9
		ms := float64(*b.RTTNs) / 1e6
		label := fmt.Sprintf("%s, %s to %s s: median round trip %s ms of %d probe(s)", b.Phase, num(at), num(at+float64(l.BinNs)/1e9), num(ms), b.Sent-b.Lost)
		if b.Lost > 0 {
			label += fmt.Sprintf(", %d lost", b.Lost)
		}
		s.Points = append(s.Points, point{X: at + float64(l.BinNs)/2e9, Y: ms, Label: label})
	}
	if len(ss) == 0 {
		return nil
	}
	return timeChart("latency", fmt.Sprintf("Latency under load, median round trip per %s, ms", binLabel(l.BinNs)), "ms", ss)
}

// binLabel is a bin's length as people say it: "100 ms".
func binLabel(ns int64) string {
	if ns >= 1e9 {
		return num(float64(ns)/1e9) + " s"
	}
	return num(float64(ns)/1e6) + " ms"
}

func latencyCDF(l *result.LoadLatency) *Chart {
	var ms []marked
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range phases(l) {
		d := p.RTT
		if d == nil {
			continue
		}
		s := newSeries(p.Phase, len(ms), vg.Points(1.5))
		for _, q := range []struct {
			name string
			ns   int64
			at   float64
		}{{"min", d.MinNs, 0}, {"p50", d.P50Ns, 0.5}, {"p90", d.P90Ns, 0.9}, {"p99", d.P99Ns, 0.99}, {"max", d.MaxNs, 1}} {
			// A log axis has no zero; a quantile not known is left out.
			if q.ns <= 0 {
				continue
			}
			v := float64(q.ns) / 1e6
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			s.Points = append(s.Points, point{X: v, Y: 100 * q.at,
				Label: fmt.Sprintf("%s round trip %s: %s ms (%d probes answered)", p.Phase, q.name, num(v), d.Samples)})
		}
		if len(s.Points) > 0 {
			ms = append(ms, s)
		}
	}
	if len(ms) == 0 {
		return nil
	}
	title := "Round trips idle and under load, share at or below"
	p := newPlot(title, "round trip, ms", "% of probes")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.TickerFunc(decadeTicks)
	c := build("latency-cdf", title, p, &plotter.Grid{Vertical: gridLine, Horizontal: gridLine}, ms...)
	// Whole decades, so the axis ends on labelled ticks.
	p.X.Min, p.X.Max = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
	if p.X.Min == p.X.Max {
		p.X.Max *= 10
	}
	p.Y.Min, p.Y.Max = 0, 105
	return c
}
