// Package steady says how well a throughput figure is known while it is
// being measured: the phase's bytes are cut into short windows, a
// warm-up is cut off, and the 95 % confidence interval of the mean rate
// comes from batch means, because the windows of one phase are
// autocorrelated (a slow flush or a busy neighbour spans several) and the
// naive standard error would claim a precision the run does not have. It
// also finds a cliff, a rate that drops and stays down (an SD card's SLC
// cache or the page cache filling), and says when a phase may stop. It
// does no I/O: methods feed it their byte counts.
package steady

import (
	"math"
	"time"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stats"
)

// Window is the bytes a phase moved over one span.
type Window struct {
	Bytes int64
	Dur   time.Duration
	// End is the span's end since the phase began, EndBytes the phase's
	// bytes by then.
	End      time.Duration
	EndBytes int64
}

// Rate is the window's bytes per second.
func (w Window) Rate() float64 { return float64(w.Bytes) / w.Dur.Seconds() }

// Series cuts a phase's running byte count into windows.
type Series struct {
	width   time.Duration
	windows []Window
	bytes   int64
	at      time.Duration
}

// DefaultWidth is a window's span: short enough that a phase of a few
// seconds has dozens, long enough that a timer tick or one slow call is
// not a window of its own.
const DefaultWidth = 100 * time.Millisecond

// NewSeries makes a series of windows of at least width (0: DefaultWidth).
func NewSeries(width time.Duration) *Series {
	if width <= 0 {
		width = DefaultWidth
	}
	return &Series{width: width}
}

// Feed gives the phase's bytes so far at elapsed since it began; a window
// closes once width has passed since the last one did.
func (s *Series) Feed(total int64, elapsed time.Duration) {
	if elapsed-s.at < s.width || total < s.bytes {
		return
	}
	s.windows = append(s.windows, Window{Bytes: total - s.bytes, Dur: elapsed - s.at, End: elapsed, EndBytes: total})
	s.bytes, s.at = total, elapsed
}

// Windows are the closed windows, in order.
func (s *Series) Windows() []Window { return s.windows }

// Cliff is a rate that dropped and stayed down.
type Cliff struct {
	// At and AtBytes are when the drop came, since the phase began.
	At      time.Duration
	AtBytes int64
	// Before and After are the mean rates either side, bytes per second.
	Before, After float64
}

// Estimate is what the windows say about the mean rate.
type Estimate struct {
	// Mean is the rate over the windows kept, bytes per second.
	Mean float64
	// HalfWidth is the 95 % interval's half-width around Mean; 0 when
	// too few windows were kept to tell (MinWindows).
	HalfWidth float64
	// Windows were kept; Warmup windows (WarmupDur) were cut off the
	// start, and with Sustained those before a cliff too.
	Windows   int
	Warmup    int
	WarmupDur time.Duration
	// ESS is the effective sample size: how many independent windows
	// the kept ones are worth.
	ESS   float64
	Cliff *Cliff
}

// Relative is the half-width over the mean (0.02 is ±2 %); +Inf when
// unknown.
func (e Estimate) Relative() float64 {
	if e.HalfWidth <= 0 || e.Mean <= 0 {
		return math.Inf(1)
	}
	return e.HalfWidth / e.Mean
}

// MinWindows is the fewest windows an interval is given for: four
// batches of two.
const MinWindows = 8

// MinStop is the fewest windows a phase runs before it may stop early:
// 3 s, long enough for MSER to see a warm-up (a throttle's or a drive
// cache's first burst) rather than stop inside it.
const MinStop = 30

// Estimate computes the interval over the windows so far. With sustained,
// only the windows after a cliff count, when there is one.
func (s *Series) Estimate(sustained bool) Estimate {
	ws := s.windows
	var e Estimate
	// A warm-up is looked for in the first half, or before a cliff the
	// figure keeps.
	limit := len(ws) / 2
	if c, k := findCliff(ws); c != nil {
		e.Cliff = c
		if sustained {
			e.Warmup, e.WarmupDur = k, ws[k-1].End
			ws = ws[k:]
			limit = len(ws) / 2
		} else {
			limit = k / 2
		}
	}
	xs := rates(ws)
	d := mser(xs, limit)
	if d > 0 {
		e.Warmup += d
		e.WarmupDur = ws[d-1].End
		ws, xs = ws[d:], xs[d:]
	}
	e.Windows = len(ws)
	if len(ws) == 0 {
		return e
	}
	var b int64
	var dur time.Duration
	for _, w := range ws {
		b, dur = b+w.Bytes, dur+w.Dur
	}
	e.Mean = float64(b) / dur.Seconds()
	e.HalfWidth, e.ESS = batchMeans(xs)
	return e
}

// Stable says whether the interval is within ±rel of the mean (0.02 is
// ±2 %).
func (e Estimate) Stable(rel float64) bool {
	return e.Windows >= MinWindows && e.Relative() <= rel
}

func rates(ws []Window) []float64 {
	xs := make([]float64, len(ws))
	for i, w := range ws {
		xs[i] = w.Rate()
	}
	return xs
}

func meanVar(xs []float64) (m, v float64) {
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	if len(xs) > 1 {
		v /= float64(len(xs) - 1)
	}
	return m, v
}

// batchMeans is the 95 % half-width of the mean of xs from the means of
// about sqrt(n) consecutive batches (at least 4, at most 30), which are
// close to independent when a batch spans the series' correlation; and
// the effective sample size that implies. The oldest windows that do not
// fill a batch are left out.
func batchMeans(xs []float64) (half, ess float64) {
	n := len(xs)
	if n < MinWindows {
		return 0, 0
	}
	b := min(30, max(4, int(math.Sqrt(float64(n)))))
	m := n / b
	xs = xs[n-b*m:]
	means := make([]float64, b)
	for i := range b {
		var s float64
		for _, x := range xs[i*m : (i+1)*m] {
			s += x
		}
		means[i] = s / float64(m)
	}
	_, vb := meanVar(means)
	_, vx := meanVar(xs)
	half = stats.T975(float64(b-1)) * math.Sqrt(vb/float64(b))
	ess = float64(len(xs))
	if vb > 0 {
		ess = min(ess, float64(b)*vx/vb)
	}
	return half, ess
}

// mser is the warm-up to cut, in windows: MSER-5 (White 1997) picks the
// start, in steps of five windows up to limit, that minimises the squared
// standard error of what remains, which cuts a slow or fast start and
// little else.
func mser(xs []float64, limit int) int {
	n := len(xs)
	if n < 2*MinWindows {
		return 0
	}
	best, at := math.Inf(1), 0
	for d := 0; d <= limit; d += 5 {
		_, v := meanVar(xs[d:])
		k := float64(n - d)
		if se := v * (k - 1) / (k * k); se < best {
			best, at = se, d
		}
	}
	return at
}

// cliffDrop is how far a rate must fall to be a cliff: to three quarters
// of what it was, or lower.
const cliffDrop = 0.75

// findCliff finds the split of the windows that best separates two rates
// (the largest between-segment sum of squares) and calls it a cliff when
// the later rate is at most cliffDrop of the earlier, both sides span at
// least three windows and a tenth of the series, and it stayed down: no
// more than a tenth of the windows on either side lies past the midpoint
// between the two rates. It returns the cliff and the first window after
// it.
func findCliff(ws []Window) (*Cliff, int) {
	n := len(ws)
	if n < 2*MinWindows {
		return nil, 0
	}
	xs := rates(ws)
	prefix := make([]float64, n+1)
	for i, x := range xs {
		prefix[i+1] = prefix[i] + x
	}
	lo := max(3, n/10)
	best, k := 0.0, 0
	for i := lo; i <= n-lo; i++ {
		a, b := prefix[i]/float64(i), (prefix[n]-prefix[i])/float64(n-i)
		if ss := float64(i) * float64(n-i) / float64(n) * (a - b) * (a - b); b < a && ss > best {
			best, k = ss, i
		}
	}
	if k == 0 {
		return nil, 0
	}
	before, after := prefix[k]/float64(k), (prefix[n]-prefix[k])/float64(n-k)
	if after > cliffDrop*before {
		return nil, 0
	}
	mid := (before + after) / 2
	var low, high int
	for _, x := range xs[:k] {
		if x < mid {
			low++
		}
	}
	for _, x := range xs[k:] {
		if x > mid {
			high++
		}
	}
	if float64(low) > 0.1*float64(k) || float64(high) > 0.1*float64(n-k) {
		return nil, 0
	}
	w := ws[k-1]
	return &Cliff{At: w.End, AtBytes: w.EndBytes, Before: before, After: after}, k
}

// Options are a method's --until-stable and --sustained.
type Options struct {
	// Target is the relative half-width of the interval at which a phase
	// stops (0.02 for ±2 %); 0 runs it to its bound.
	Target float64
	// Sustained makes the figure the rate after a cliff, when there is
	// one.
	Sustained bool
}

// Meter follows one timed phase for a method: the one thing a method
// does with this package is feed it its byte count as it goes, stop when
// it says so, and put its interval in the result.
type Meter struct {
	o Options
	s *Series
}

// Meter starts following a phase.
func (o Options) Meter() *Meter { return &Meter{o: o, s: NewSeries(0)} }

// Adaptive says the phase runs until its figure is known: a method then
// goes on past the end of its data (a read starts over) until the meter or
// the time bound stops it.
func (m *Meter) Adaptive() bool { return m != nil && m.o.Target > 0 }

// Feed gives the phase's bytes so far at elapsed since it began, and says
// whether the phase may stop: MinStop windows have passed and the
// interval is within the target. Without a target it never says so; the
// phase runs to its bound.
func (m *Meter) Feed(total int64, elapsed time.Duration) bool {
	n := len(m.s.windows)
	m.s.Feed(total, elapsed)
	if m.o.Target <= 0 || len(m.s.windows) == n || len(m.s.windows) < MinStop {
		return false
	}
	return m.s.Estimate(m.o.Sustained).Stable(m.o.Target)
}

// Interval is the phase's interval for its result; nil when the phase was
// shorter than a window.
func (m *Meter) Interval() *result.Interval {
	e := m.s.Estimate(m.o.Sustained)
	if e.Windows == 0 {
		return nil
	}
	target := m.o.Target
	if target <= 0 {
		target = result.DefaultStable
	}
	iv := &result.Interval{Mean: e.Mean, HalfWidth: e.HalfWidth, Low: e.Mean - e.HalfWidth, High: e.Mean + e.HalfWidth,
		Windows: e.Windows, WindowNs: int64(m.s.width), EffectiveWindows: math.Round(e.ESS*10) / 10,
		WarmupWindows: e.Warmup, WarmupNs: int64(e.WarmupDur), Target: m.o.Target, Converged: e.Stable(target),
		Sustained: m.o.Sustained && e.Cliff != nil}
	if e.HalfWidth > 0 {
		iv.Relative = e.Relative()
	} else {
		iv.Low, iv.High = 0, 0
	}
	if c := e.Cliff; c != nil {
		iv.Cliff = &result.Cliff{AtNs: int64(c.At), AtBytes: c.AtBytes, Before: c.Before, After: c.After}
	}
	return iv
}
