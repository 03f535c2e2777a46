// Package stats turns raw measurements into the figures results carry:
// latency percentiles from HDR histograms, and mean, spread and range of
// repeated runs or of per-thread counts.
package stats

import (
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/thruput/thruput/internal/result"
)

// Histogram records latencies in nanoseconds, from 1 ns to an hour, to
// three significant digits: enough to tell 95th from 99th percentile of a
// 20 µs NVMe read or a 2 s SD-card fsync. Recording does not allocate.
type Histogram struct{ h *hdrhistogram.Histogram }

// NewHistogram makes an empty histogram.
func NewHistogram() *Histogram {
	return &Histogram{hdrhistogram.New(1, int64(3600e9), 3)}
}

// Record adds one latency; values beyond an hour are clamped.
func (h *Histogram) Record(ns int64) {
	if h.h.RecordValue(max(1, ns)) != nil {
		_ = h.h.RecordValue(h.h.HighestTrackableValue())
	}
}

// Merge adds other's counts to h.
func (h *Histogram) Merge(other *Histogram) { h.h.Merge(other.h) }

// Count is how many latencies were recorded.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Latency summarises the histogram; nil when it is empty.
func (h *Histogram) Latency() *result.Latency {
	if h.h.TotalCount() == 0 {
		return nil
	}
	return &result.Latency{
		Count:  h.h.TotalCount(),
		MinNs:  h.h.Min(),
		MeanNs: h.h.Mean(),
		MaxNs:  h.h.Max(),
		P50Ns:  h.h.ValueAtQuantile(50),
		P95Ns:  h.h.ValueAtQuantile(95),
		P99Ns:  h.h.ValueAtQuantile(99),
		P999Ns: h.h.ValueAtQuantile(99.9),
	}
}

// Summarize gives mean, sample standard deviation, min and max of xs.
func Summarize(xs []float64) result.Spread {
	if len(xs) == 0 {
		return result.Spread{}
	}
	s := result.Spread{N: len(xs), Min: xs[0], Max: xs[0]}
	var sum float64
	for _, x := range xs {
		sum += x
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	s.Mean = sum / float64(len(xs))
	if len(xs) > 1 {
		var sq float64
		for _, x := range xs {
			sq += (x - s.Mean) * (x - s.Mean)
		}
		s.Stddev = math.Sqrt(sq / float64(len(xs)-1))
	}
	return s
}

// Reset empties the histogram, as at the end of a ramp.
func (h *Histogram) Reset() { h.h.Reset() }

// t975 and t995 are Student's t at 0.975 and 0.995 for 1 to 30 degrees
// of freedom.
var (
	t975 = [...]float64{
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	}
	t995 = [...]float64{
		63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
		3.106, 3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
		2.831, 2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750,
	}
)

// T975 is Student's t at 0.975 (a two-sided 95 % interval) for df degrees
// of freedom.
func T975(df float64) float64 { return tQuantile(t975[:], 1.959964, df) }

// T995 is Student's t at 0.995 (a two-sided 99 % test) for df degrees of
// freedom.
func T995(df float64) float64 { return tQuantile(t995[:], 2.575829, df) }

// tQuantile reads small degrees of freedom from the table, rounded down,
// which errs towards a wider interval; beyond it the Cornish-Fisher
// expansion around the normal quantile z is good to the table's three
// decimals, where the normal quantile alone would still be 2 % narrow at
// 31 degrees.
func tQuantile(table []float64, z, df float64) float64 {
	k := int(math.Floor(df))
	switch {
	case k < 1:
		return table[0]
	case k <= len(table):
		return table[k-1]
	}
	z3, z5 := z*z*z, z*z*z*z*z
	return z + (z3+z)/(4*df) + (5*z5+16*z3+3*z)/(96*df*df) + (3*z5*z*z+19*z5+17*z3-15*z)/(384*df*df*df)
}
