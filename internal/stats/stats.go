// Package stats turns raw measurements into the figures results carry:
// latency percentiles from HDR histograms, and mean, spread and range of
// repeated runs or of per-thread counts. Its types are its own;
// internal/result converts them to a document's.
package stats

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram records latencies in nanoseconds, from 1 ns to an hour, to
// two significant digits (each within 1 % of its value; fio's latency
// buckets are within 0.8 %): enough to tell 95th from 99th percentile of a
// 20 µs NVMe read or a 2 s SD-card fsync. Three digits held eight times
// the counts, 270 KiB a histogram and eight of them in a one-thread
// `disk random`, and faulting that memory in was 3 ms of a short run's
// 16-23 ms of CPU. Recording does not allocate.
type Histogram struct{ h *hdrhistogram.Histogram }

// NewHistogram makes an empty histogram.
func NewHistogram() *Histogram {
	return &Histogram{hdrhistogram.New(1, int64(3600e9), 2)}
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

// Latency is a summary of recorded latencies, in nanoseconds.
type Latency struct {
	Count                       int64
	MinNs                       int64
	MeanNs                      float64
	MaxNs                       int64
	P50Ns, P95Ns, P99Ns, P999Ns int64
}

// Latency summarises the histogram; nil when it is empty.
func (h *Histogram) Latency() *Latency {
	if h.h.TotalCount() == 0 {
		return nil
	}
	return &Latency{
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

// Spread describes repeated values: count, mean, sample standard
// deviation, minimum and maximum.
type Spread struct {
	N                      int
	Mean, Stddev, Min, Max float64
}

// Summarize gives mean, sample standard deviation, min and max of xs.
func Summarize(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := Spread{N: len(xs), Min: xs[0], Max: xs[0]}
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

// Median is the median of xs, the mean of the middle two of an even
// count; NaN for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}

// Reset empties the histogram, as at the end of a ramp.
func (h *Histogram) Reset() { h.h.Reset() }

// T975 is Student's t at 0.975 (a two-sided 95 % interval) for df degrees
// of freedom, fractional ones included.
func T975(df float64) float64 { return t975.at(df) }

// T995 is Student's t at 0.995 (a two-sided 99 % test) for df degrees of
// freedom.
func T995(df float64) float64 { return t995.at(df) }

var t975, t995 = &tTable{p: 0.975}, &tTable{p: 0.995}

// tTable remembers the quantile at p for whole degrees of freedom once
// found: --until-stable asks for the same few after every window, and
// each is some sixty evaluations of the incomplete beta function.
// Fractional df (Welch's) and large ones are computed every time.
type tTable struct {
	p float64
	// vals[df] holds the quantile's bits, 0 until found (a quantile
	// above the median is never 0).
	vals [1024]atomic.Uint64
}

func (tt *tTable) at(df float64) float64 {
	df = max(df, 1)
	i := int(df)
	if float64(i) != df || i >= len(tt.vals) {
		return TQuantile(tt.p, df)
	}
	if b := tt.vals[i].Load(); b != 0 {
		return math.Float64frombits(b)
	}
	q := TQuantile(tt.p, df)
	tt.vals[i].Store(math.Float64bits(q))
	return q
}

// TCDF is Student's t distribution function with df > 0 degrees of
// freedom, fractional ones included (Welch's test gives such), from the
// regularized incomplete beta function: for t < 0 it is
// I_{df/(df+t²)}(df/2, 1/2) / 2.
func TCDF(t, df float64) float64 {
	switch {
	case math.IsInf(t, 1):
		return 1
	case math.IsInf(t, -1):
		return 0
	}
	tail := incBeta(df/2, 0.5, df/(df+t*t)) / 2
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// TQuantile is the inverse of TCDF in its first argument, for 0 < p < 1:
// bisection to the float's precision, which the 60 or so steps a
// comparison takes do not make slow. df below 1 counts as 1: Welch's df
// is at least the smaller side's n-1, and a caller with one sample (df 0)
// has no spread to scale anyway.
func TQuantile(p, df float64) float64 {
	df = max(df, 1)
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -TQuantile(1-p, df)
	}
	lo, hi := 0.0, 1.0
	for TCDF(hi, df) < p {
		lo, hi = hi, hi*2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if TCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// incBeta is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (Lentz's method, as in Numerical Recipes §6.4),
// evaluated where it converges fast and mirrored elsewhere.
func incBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaFraction(b, a, 1-x)/b
	}
	return front * betaFraction(a, b, x) / a
}

func betaFraction(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	f := d
	for m := 1.0; m < 300; m++ {
		for _, num := range []float64{
			m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m)),
			-(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1)),
		} {
			d = 1 + num*d
			if math.Abs(d) < tiny {
				d = tiny
			}
			c = 1 + num/c
			if math.Abs(c) < tiny {
				c = tiny
			}
			d = 1 / d
			f *= c * d
		}
		if math.Abs(c*d-1) < 1e-15 {
			break
		}
	}
	return f
}

// Welch is Welch's two-sample t-test of two sets of repeats, which does
// not assume both wander alike.
type Welch struct {
	// T is the difference of the means over its standard error; DF the
	// Welch–Satterthwaite degrees of freedom, fractional:
	//
	//	se² = sa²/na + sb²/nb
	//	df  = se⁴ / ((sa²/na)²/(na-1) + (sb²/nb)²/(nb-1))
	T, DF float64
	// SE is the standard error of the difference of the means.
	SE float64
	// P is the two-sided p-value, 2·F_df(-|T|).
	P float64
}

// WelchTest tests a against b; both need two or more samples. With no
// variance on either side SE is 0, P is 0 for different means and 1 for
// equal ones.
func WelchTest(a, b Spread) Welch {
	va, vb := a.Stddev*a.Stddev/float64(a.N), b.Stddev*b.Stddev/float64(b.N)
	se2 := va + vb
	if se2 == 0 {
		if a.Mean != b.Mean {
			return Welch{T: math.Inf(1), P: 0}
		}
		return Welch{P: 1}
	}
	w := Welch{SE: math.Sqrt(se2), T: (a.Mean - b.Mean) / math.Sqrt(se2)}
	// A side without variance adds nothing to the denominator.
	w.DF = se2 * se2 / (va*va/float64(a.N-1) + vb*vb/float64(b.N-1))
	w.P = 2 * TCDF(-math.Abs(w.T), w.DF)
	return w
}

// Significant says whether the difference is significant, two-sided, at
// 1 - alpha (alpha 0.05 for 95 %).
func (w Welch) Significant(alpha float64) bool { return w.P < alpha }

// Threshold is the smallest difference of means the test would call
// significant at 1 - alpha with these spreads and repeats: the t quantile
// times the standard error.
func (w Welch) Threshold(alpha float64) float64 {
	if w.SE == 0 {
		return 0
	}
	return TQuantile(1-alpha/2, w.DF) * w.SE
}
