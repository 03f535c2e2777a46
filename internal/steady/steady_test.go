package steady

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// feed makes a series of 100 ms windows of the given rates (bytes/s).
func feed(rates []float64) *Series {
	s := NewSeries(0)
	var total float64
	for i, r := range rates {
		total += r * 0.1
		s.Feed(int64(total), time.Duration(i+1)*100*time.Millisecond)
	}
	return s
}

// ar1 is a series around mean with relative noise sd whose windows are
// correlated with coefficient phi, as a device's flushes make them.
func ar1(rng *rand.Rand, n int, mean, sd, phi float64) []float64 {
	xs := make([]float64, n)
	e := rng.NormFloat64() * sd / math.Sqrt(1-phi*phi)
	for i := range xs {
		e = phi*e + rng.NormFloat64()*sd
		xs[i] = mean * (1 + e)
	}
	return xs
}

// TestCoverage: over 1,000 simulated runs each, the 95 % interval holds
// the true mean at least 90 % of the time, for independent windows and
// for correlated ones, which the naive standard error would fail.
func TestCoverage(t *testing.T) {
	const runs, mean = 1000, 50e6
	for _, c := range []struct {
		name    string
		n       int
		sd      float64
		phi     float64
		naiveOK bool
	}{
		{"independent", 100, 0.05, 0, true},
		{"independent, few windows", 20, 0.05, 0, true},
		{"AR(1) 0.5", 200, 0.03, 0.5, false},
		{"AR(1) 0.8", 400, 0.02, 0.8, false},
	} {
		rng := rand.New(rand.NewPCG(1, uint64(c.n)))
		covered, naive := 0, 0
		for range runs {
			xs := ar1(rng, c.n, mean, c.sd, c.phi)
			s := feed(xs)
			e := s.Estimate(false)
			if math.Abs(e.Mean-mean) <= e.HalfWidth {
				covered++
			}
			m, v := meanVar(xs[e.Warmup:])
			if math.Abs(m-mean) <= 1.96*math.Sqrt(v/float64(len(xs)-e.Warmup)) {
				naive++
			}
		}
		cov, ncov := float64(covered)/runs, float64(naive)/runs
		t.Logf("%s: coverage %.3f (naive standard error %.3f)", c.name, cov, ncov)
		if cov < 0.90 {
			t.Errorf("%s: the interval holds the mean in %.1f %% of runs, want >= 90 %%", c.name, cov*100)
		}
		if !c.naiveOK && ncov >= 0.90 {
			t.Errorf("%s: the naive interval covers %.1f %%: the series is not correlated enough to show the need", c.name, ncov*100)
		}
	}
}

// TestCliff: a rate that drops and stays down is found near where it
// dropped, with both rates; noise alone and a brief dip are not cliffs.
func TestCliff(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	found, near := 0, 0
	for range 1000 {
		at := 40 + rng.IntN(100)
		xs := ar1(rng, 200, 118<<20, 0.04, 0.5)
		for i := at; i < len(xs); i++ {
			xs[i] *= 21.0 / 118
		}
		e := feed(xs).Estimate(false)
		if e.Cliff == nil {
			continue
		}
		found++
		got := int(e.Cliff.At / (100 * time.Millisecond))
		if got >= at-2 && got <= at+2 && math.Abs(e.Cliff.Before/(118<<20)-1) < 0.05 && math.Abs(e.Cliff.After/(21<<20)-1) < 0.05 {
			near++
		}
	}
	if found < 950 || near < 900 {
		t.Errorf("a 118 -> 21 MiB/s cliff: found in %d of 1000 runs, at the right window with both rates in %d", found, near)
	}
	false_ := 0
	for range 1000 {
		xs := ar1(rng, 200, 50e6, 0.08, 0.7)
		if feed(xs).Estimate(false).Cliff != nil {
			false_++
		}
	}
	if false_ > 10 {
		t.Errorf("noise alone was called a cliff in %d of 1000 runs", false_)
	}
	xs := ar1(rng, 200, 50e6, 0.02, 0)
	for i := 100; i < 110; i++ {
		xs[i] /= 3 // a dip that recovers
	}
	if c := feed(xs).Estimate(false).Cliff; c != nil {
		t.Errorf("a brief dip was called a cliff: %+v", c)
	}
}

// TestSustained: with sustained, the figure is the rate after the cliff
// and its interval holds it.
func TestSustained(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	xs := ar1(rng, 300, 118<<20, 0.03, 0.3)
	for i := 60; i < len(xs); i++ {
		xs[i] *= 21.0 / 118
	}
	s := feed(xs)
	all, after := s.Estimate(false), s.Estimate(true)
	if after.Cliff == nil || after.Windows > 240 || math.Abs(after.Mean-21<<20) > after.HalfWidth*1.5 || after.Relative() > 0.02 {
		t.Errorf("sustained: %+v", after)
	}
	if all.Mean < 30<<20 {
		t.Errorf("the whole phase's mean %.0f should include the fast start", all.Mean)
	}
}

// TestWarmup: a slow start is cut off, a steady series keeps its start.
func TestWarmup(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	xs := ar1(rng, 100, 80e6, 0.02, 0)
	for i := range 15 {
		xs[i] *= float64(i+1) / 20 // a ramp
	}
	e := feed(xs).Estimate(false)
	if e.Warmup < 10 || e.Warmup > 25 || e.WarmupDur != time.Duration(e.Warmup)*100*time.Millisecond {
		t.Errorf("a 15-window ramp: warm-up %d windows (%v)", e.Warmup, e.WarmupDur)
	}
	if math.Abs(e.Mean/80e6-1) > 0.01 {
		t.Errorf("after the ramp the mean is %.0f, want about 80e6", e.Mean)
	}
	if e := feed(ar1(rng, 100, 80e6, 0.02, 0)).Estimate(false); e.Warmup > 10 {
		t.Errorf("a steady series lost %d windows as warm-up", e.Warmup)
	}
}

// TestStable: the stopping rule waits for enough windows and a narrow
// enough interval.
func TestStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	s := NewSeries(0)
	var total float64
	stopped := 0
	for i := range 600 {
		total += 40e6 * (1 + 0.05*rng.NormFloat64()) * 0.1
		s.Feed(int64(total), time.Duration(i+1)*100*time.Millisecond)
		if s.Estimate(false).Stable(0.02) {
			stopped = i + 1
			break
		}
	}
	if stopped < MinWindows || stopped > 200 {
		t.Errorf("5 %% noise stopped at ±2 %% after %d windows", stopped)
	}
	if feed([]float64{1, 2, 3}).Estimate(false).Stable(0.5) {
		t.Error("three windows were called stable")
	}
}

func TestSeriesWindows(t *testing.T) {
	s := NewSeries(100 * time.Millisecond)
	s.Feed(10, 30*time.Millisecond) // too soon
	s.Feed(100, 120*time.Millisecond)
	s.Feed(90, 300*time.Millisecond) // a count that went back is ignored
	s.Feed(300, 260*time.Millisecond)
	ws := s.Windows()
	if len(ws) != 2 || ws[0].Bytes != 100 || ws[1].Bytes != 200 || ws[1].Dur != 140*time.Millisecond || ws[1].EndBytes != 300 {
		t.Errorf("%+v", ws)
	}
}
