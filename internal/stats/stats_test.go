package stats

import (
	"math"
	"testing"
)

func TestHistogram(t *testing.T) {
	h := NewHistogram()
	if h.Latency() != nil {
		t.Fatal("an empty histogram has a latency")
	}
	for i := int64(1); i <= 1000; i++ {
		h.Record(i * 1000) // 1 µs .. 1 ms
	}
	h.Record(0)    // clamped to 1 ns
	h.Record(1e13) // beyond an hour: clamped, not lost
	l := h.Latency()
	if l.Count != 1002 || l.MinNs != 1 || l.MaxNs < 3600e9*0.99 {
		t.Errorf("count %d min %d max %d", l.Count, l.MinNs, l.MaxNs)
	}
	// Two significant digits: each within 1 % of its value.
	near := func(got, want int64) bool { return math.Abs(float64(got-want)) <= float64(want)/100 }
	if !near(l.P50Ns, 500e3) || !near(l.P99Ns, 990e3) || !near(l.P999Ns, 999e3) {
		t.Errorf("percentiles p50 %d p99 %d p99.9 %d", l.P50Ns, l.P99Ns, l.P999Ns)
	}
	other := NewHistogram()
	other.Record(5)
	h.Merge(other)
	if h.Count() != 1003 {
		t.Errorf("merged count %d", h.Count())
	}
	h.Reset()
	if h.Count() != 0 {
		t.Error("reset kept counts")
	}
}

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{10100, 10050, 10200, 9950})
	if s.N != 4 || s.Mean != 10075 || s.Min != 9950 || s.Max != 10200 || math.Abs(s.Stddev-104.08) > 0.01 {
		t.Errorf("%+v", s)
	}
	if one := Summarize([]float64{3}); one.Stddev != 0 || one.Mean != 3 {
		t.Errorf("one value: %+v", one)
	}
	if none := Summarize(nil); none.N != 0 {
		t.Errorf("no values: %+v", none)
	}
}

// TestT: the table's values, and beyond it quantiles that meet the
// normal's from above (t at 0.975 for 40 and 120 degrees is 2.021 and
// 1.980; at 0.995, 2.704 and 2.617).
func TestT(t *testing.T) {
	for _, c := range []struct {
		f        func(float64) float64
		df, want float64
	}{
		{T975, 1, 12.706}, {T975, 9.7, 2.2375}, {T975, 30, 2.042}, {T975, 40, 2.021}, {T975, 120, 1.980}, {T975, 0, 12.706},
		{T995, 1, 63.657}, {T995, 30, 2.750}, {T995, 40, 2.704}, {T995, 120, 2.617},
	} {
		if got := c.f(c.df); math.Abs(got-c.want) > 0.0015 {
			t.Errorf("t(%v) = %.4f, want %.3f", c.df, got, c.want)
		}
	}
	prev := T975(31)
	for df := 32.0; df < 1000; df++ {
		if v := T975(df); v > prev || v < 1.959964 {
			t.Fatalf("T975(%v) = %v after %v", df, v, prev)
		}
		prev = T975(df)
	}
}

// TestTRemembered: a quantile T975 or T995 remembers is the one
// TQuantile finds, asked once or again, and below df 1 it is df 1's.
func TestTRemembered(t *testing.T) {
	for _, df := range []float64{-3, 0, 1, 2.5, 30, 1023, 1024, 5000} {
		for _, c := range []struct {
			f func(float64) float64
			p float64
		}{{T975, 0.975}, {T995, 0.995}} {
			want := TQuantile(c.p, df)
			if a, b := c.f(df), c.f(df); a != want || b != want {
				t.Errorf("t at %v for df %v: %v, then %v; TQuantile says %v", c.p, df, a, b, want)
			}
		}
	}
}
