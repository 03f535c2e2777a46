package result

import (
	"github.com/thruput/thruput/internal/stable"
	"github.com/thruput/thruput/internal/stats"
)

// The statistics packages return their own types, which know nothing of
// documents; these put them in a document's form.

// LatencyOf is a histogram's summary as a document holds it; nil stays nil.
func LatencyOf(l *stats.Latency) *Latency {
	if l == nil {
		return nil
	}
	x := Latency(*l)
	return &x
}

// SpreadOf is a summary of repeats as a document holds it.
func SpreadOf(s stats.Spread) Spread { return Spread(s) }

// ThreadSpreadOf is a spread over threads that were all counted, so that
// its extremes are known; none without threads.
func ThreadSpreadOf(s stats.Spread) ThreadSpread {
	out := ThreadSpread{N: s.N, Mean: s.Mean, Stddev: s.Stddev}
	if s.N > 0 {
		out.Min, out.Max = &s.Min, &s.Max
	}
	return out
}

// Stats is the spread as internal/stats takes it, for Welch's test.
func (s Spread) Stats() stats.Spread { return stats.Spread(s) }

// IntervalOf is a phase's interval as a document holds it; nil stays nil.
func IntervalOf(iv *stable.Interval) *Interval {
	if iv == nil {
		return nil
	}
	out := &Interval{Mean: iv.Mean, HalfWidth: iv.HalfWidth, Low: iv.Low, High: iv.High, Relative: iv.Relative,
		Windows: iv.Windows, WindowNs: int64(iv.Width), EffectiveWindows: iv.EffectiveWindows,
		WarmupWindows: iv.WarmupWindows, WarmupNs: int64(iv.Warmup), Target: iv.Target, Converged: iv.Converged,
		Sustained: iv.Sustained}
	if c := iv.Cliff; c != nil {
		out.Cliff = &Cliff{AtNs: int64(c.At), AtBytes: c.AtBytes, Before: c.Before, After: c.After}
	}
	return out
}
