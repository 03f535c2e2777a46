// Package stable says how well a throughput figure is known while it is
// being measured: the phase's bytes are cut into short windows, a
// warm-up is cut off, and the 95 % confidence interval of the mean rate
// comes from batch means, because the windows of one phase are
// autocorrelated (a slow flush or a busy neighbour spans several) and the
// naive standard error would claim a precision the run does not have. It
// also finds a cliff, a rate that drops and stays down (an SD card's SLC
// cache or the page cache filling), and says when a phase may stop. It
// does no I/O: methods feed it their byte counts.
package stable

import (
	"math"
	"time"

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

// Begin puts the start of the first window at elapsed, where the phase
// had moved total bytes: what came before is in no window. It does
// nothing once a window closed.
func (s *Series) Begin(total int64, elapsed time.Duration) {
	if len(s.windows) == 0 {
		s.bytes, s.at = total, elapsed
	}
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
	// HalfWidth is the 95 % interval's half-width around Mean, known
	// when Batches is at least 2 (it is then 0 only for a rate that did
	// not vary at all).
	HalfWidth float64
	// Windows were kept; Warmup windows (WarmupDur) were cut off the
	// start, and with Sustained those before a cliff too.
	Windows   int
	Warmup    int
	WarmupDur time.Duration
	// Batches of BatchSize consecutive windows gave the interval; Settled
	// says there were at least MinBatches (half as many for windows that
	// alternate) and their means were close to uncorrelated, so the
	// interval can be believed.
	Batches, BatchSize int
	Settled            bool
	// need is the batch size the correlation first allowed, which a
	// Meter holds to; BatchSize may be larger when windows alternate.
	need int
	// ESS is the effective sample size: how many independent windows
	// the kept ones are worth.
	ESS   float64
	Cliff *Cliff
}

// Relative is the half-width over the mean (0.02 is ±2 %); +Inf when
// unknown.
func (e Estimate) Relative() float64 {
	if e.Batches < 2 || e.Mean <= 0 {
		return math.Inf(1)
	}
	return e.HalfWidth / e.Mean
}

// MinWindows is the fewest windows an interval is given for.
const MinWindows = 8

// MinStop is the fewest default-width windows' time a phase runs before
// it may stop early: 3 s, long enough for MSER to see a warm-up (a
// throttle's or a drive cache's first burst) rather than stop inside it.
// It is time, not windows, since a window lasts until the method next
// reports: a 4 MiB block behind a 10 MiB/s throttle makes each 400 ms,
// and 30 of them would hold a known rate for 12 s.
const MinStop = 30

// MinBatches is the fewest batches an interval is believed with: fewer
// leave the spread so uncertain (with 14 degrees of freedom it is still
// under 0.75 of the truth in one run of ten) that a stopping rule would
// pick the runs that underestimate it.
const MinBatches = 15

// maxLag1 is the largest lag-1 autocorrelation of batch means taken as
// close enough to independent. What is left (the variance of their mean
// would be up to half again as large) is corrected for rather than waited
// out: demanding 0.05 made a series correlated at 0.5 take 50 s to stop.
const maxLag1 = 0.2

// Estimate computes the interval over the windows so far. With sustained,
// only the windows after a cliff count, when there is one.
func (s *Series) Estimate(sustained bool) Estimate { return s.estimate(sustained, 1) }

// estimate is Estimate with batches of at least minSize windows.
func (s *Series) estimate(sustained bool, minSize int) Estimate {
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
	if d := warmup(rates(ws), limit); d > 0 {
		e.Warmup += d
		e.WarmupDur = ws[d-1].End
		ws = ws[d:]
	}
	e.Windows = len(ws)
	if len(ws) == 0 {
		return e
	}
	e.Mean = ratio(ws)
	if len(ws) < MinWindows {
		return e
	}
	e.HalfWidth, e.ESS, e.Batches, e.BatchSize, e.need = batchMeans(ws, e.Mean, minSize)
	e.Settled = e.need > 0
	return e
}

// Stable says whether the interval is settled and within ±rel of the mean
// (0.02 is ±2 %). However narrow, an interval from batches too short for
// the windows' correlation is not believed: a rate wandering slowly by a
// fraction of a percent (lag-1 correlation 0.95) looks known to ±0.3 % at
// 3 s and was covered in a third of runs.
func (e Estimate) Stable(rel float64) bool {
	return e.Settled && e.Relative() <= rel
}

func rates(ws []Window) []float64 {
	xs := make([]float64, len(ws))
	for i, w := range ws {
		xs[i] = w.Rate()
	}
	return xs
}

// ratio is the windows' bytes over their time: the figure a method
// reports, whatever the windows' lengths.
func ratio(ws []Window) float64 {
	var b int64
	var d time.Duration
	for _, w := range ws {
		b, d = b+w.Bytes, d+w.Dur
	}
	return float64(b) / d.Seconds()
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

// lag1 is the lag-1 autocorrelation of xs about their mean; 0 when they
// do not vary.
func lag1(xs []float64) float64 {
	m, _ := meanVar(xs)
	var num, den float64
	for i, x := range xs {
		den += (x - m) * (x - m)
		if i > 0 {
			num += (x - m) * (xs[i-1] - m)
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// batchMeans is the 95 % half-width of r, the windows' bytes over their
// time, and the effective sample size it implies, by the ratio estimator:
// each window's bytes less what r would have moved in its time are the
// series whose mean's spread longRun finds, so a stalled window weighs by
// its length, as it does in the figure. Windows that alternate (whole
// blocks behind a throttle) get the narrower of that and carried's, but
// never narrower than the bytes carried across the ends allow.
func batchMeans(ws []Window, r float64, minSize int) (half, ess float64, k, size, need int) {
	n := len(ws)
	res := make([]float64, n)
	var dur float64
	for i, w := range ws {
		res[i] = float64(w.Bytes) - r*w.Dur.Seconds()
		dur += w.Dur.Seconds()
	}
	dur /= float64(n)
	v, k, size, need := longRun(res, minSize)
	t := stats.T975(float64(k - 1))
	half = t * math.Sqrt(v/float64(n)) / dur
	// Batch means see what varies between batches, not the bytes
	// carried across a phase's two ends (a throttle's first burst, a
	// block that lands in the last window or the next), which batches
	// spanning whole periods of an alternating rate cancel. The running
	// bytes stray from the rate's line at either end as they do along the
	// way: the mean square of that bridge (about 1.5-2 times a carry's
	// variance, which the two ends' difference has twice) bounds how well
	// the rate is known. For windows that do not alternate it is about
	// 0.4 of the interval and has no say.
	var run, sq float64
	for _, x := range res {
		run += x
		sq += run * run
	}
	floor := t * math.Sqrt(sq/float64(n)) / (dur * float64(n))
	half = max(half, floor)
	if v, df, ok := carried(res); ok {
		half = min(half, max(floor, stats.T975(df)*math.Sqrt(v)/(dur*float64(n))))
	}
	// What the windows are worth is what the naive standard error would
	// need of them to be as wide.
	_, v1 := meanVar(res)
	ess = float64(n)
	if se := half / t * dur; se > 0 {
		ess = min(ess, v1/(se*se))
	}
	return half, ess, k, size, need
}

// longRun is the long-run variance of xs, n times the variance of their
// mean, by batch means, with the k batches it came from (the oldest xs
// that do not fill a batch are left out). The batch size is the
// smallest, from minSize in steps of half again, at which the means are
// close to uncorrelated (lag-1 autocorrelation below maxLag1) with at
// least MinBatches of them: settled. Two estimates of that
// autocorrelation must agree: the batch means' own, from few batches and
// biased low by about 1/k, and the one a first-order autoregression with
// the xs' lag-1 autocorrelation would give, that estimate made unbiased
// and taken two standard errors high, which uses every x and stops a look
// at few windows from taking a correlated series for an independent one
// (at one standard error, a series correlated at 0.5 that stopped within
// 5 s was covered in 56 % of runs). What remains of the correlation
// widens the variance by (1+ρ)/(1-ρ), as it would for batch means that
// follow a first-order autoregression. When no size settles, the largest
// with enough batches gives the variance (the smallest, when even that
// has fewer).
func longRun(xs []float64, minSize int) (v float64, k, size, need int) {
	n := len(xs)
	if _, v := meanVar(xs); v == 0 {
		// Nothing varies, so there is no correlation to wait out.
		if n >= MinBatches {
			need = 1
		}
		return 0, n, 1, need
	}
	r1 := lag1(xs)
	r1 += (1+3*r1)/float64(n) + 2*math.Sqrt(max(0, 1-r1*r1)/float64(n))
	means := func(size int) []float64 {
		k := n / size
		ms := make([]float64, k)
		for j := range ms {
			for _, x := range xs[n-k*size+j*size : n-k*size+(j+1)*size] {
				ms[j] += x / float64(size)
			}
		}
		return ms
	}
	rho := func(size int, ms []float64) (batch, ar float64) {
		return lag1(ms) + 1/float64(len(ms)), arLag1(r1, size)
	}
	// Windows that alternate overstate the variance at any batch size
	// (the batch means alternate too), less so at sizes whose means are
	// least correlated, which need not be the first: of the sizes that
	// settle, the one whose means are nearest uncorrelated is taken, and
	// when the windows are surely anti-correlated, half as many batches
	// will do, their error lying on the safe side.
	least := MinBatches
	if r1 < 0 {
		least = MinBatches / 2
	}
	start := max(1, minSize)
	size = start
	best := math.Inf(1)
	for s := start; n/s >= least; s = nextSize(s) {
		b, ar := rho(s, means(s))
		if b >= maxLag1 || ar >= maxLag1 || need == 0 && n/s < MinBatches {
			if need == 0 {
				size = s
			}
			continue
		}
		if need == 0 {
			need = s
		}
		if math.Abs(b) < best {
			size, best = s, math.Abs(b)
		}
		if b > -maxLag1 {
			break
		}
	}
	size = min(size, max(1, n/2))
	ms := means(size)
	_, vb := meanVar(ms)
	b, ar := rho(size, ms)
	p := min(0.5, max(0, b, ar))
	return vb * float64(size) * (1 + p) / (1 - p), len(ms), size, need
}

// carried is the variance of the sum of xs when they are surely
// anti-correlated, as the windows of a throttle or of large blocks are
// (a block counted in one window is missing from the next), or their
// sums over long spans hardly vary, and the degrees of freedom it has; ok
// is false otherwise. Batch means take such
// a series' alternation for noise that averages down as 1/√n, when it
// cancels: the bytes carried across the ends stay bounded. The variance
// of the sum over a span of m windows, D(m), from every span, grows as
// a + bm, b being the long-run variance and a what the ends carry; a line
// fitted to D over the batch sizes gives the sum over all n as a + bn.
// Any sign of positive correlation at a larger scale (batch means whose
// lag-1 autocorrelation reaches maxLag1) leaves the series to batch
// means.
func carried(xs []float64) (v, df float64, ok bool) {
	n := len(xs)
	r1 := lag1(xs)
	anti := r1+(1+3*r1)/float64(n)+2*math.Sqrt(max(0, 1-r1*r1)/float64(n)) < 0
	var ms, ds []float64
	size := 1
	for s := 1; n/s >= MinBatches/2; s = nextSize(s) {
		k := n / s
		sums := make([]float64, n-s+1)
		var run, sq float64
		for i, x := range xs {
			run += x
			if i >= s {
				run -= xs[i-s]
			}
			if i >= s-1 {
				sums[i-s+1] = run
				sq += run * run
			}
		}
		batches := make([]float64, k)
		for j := range batches {
			batches[j] = sums[n-(k-j)*s]
		}
		if lag1(batches)+1/float64(k) >= maxLag1 {
			return 0, 0, false
		}
		ms, ds = append(ms, float64(s)), append(ds, sq/float64(len(sums)))
		size = s
	}
	// Sparse jitter that a throttle makes up at once (a window short by a
	// block, the next long by one) barely moves the lag-1
	// autocorrelation, but the sums over long spans then vary no more
	// than single windows: at the longest span, less than a quarter of
	// what independent windows would (at half, independent windows passed
	// often enough by chance to cost the interval 1.5 % of its coverage).
	last := len(ds) - 1
	if len(ms) < 3 || !anti && ds[last]/ms[last] >= ds[0]/4 {
		return 0, 0, false
	}
	mm, _ := meanVar(ms)
	md, _ := meanVar(ds)
	var sxy, sxx float64
	for i := range ms {
		sxy += (ms[i] - mm) * (ds[i] - md)
		sxx += (ms[i] - mm) * (ms[i] - mm)
	}
	b := max(0, sxy/sxx)
	a := max(0, md-b*mm)
	return a + b*float64(n), float64(n/size - 1), true
}

// nextSize is the batch size after size: half again, so a batch spans the
// series' correlation without doubling past it.
func nextSize(size int) int { return max(size+1, size*3/2) }

// arLag1 is the lag-1 autocorrelation of the means of batches of size of
// a first-order autoregressive series with lag-1 autocorrelation r.
func arLag1(r float64, size int) float64 {
	r = min(max(r, -0.99), 0.99)
	m := float64(size)
	p := math.Pow(r, m)
	return r * (1 - p) * (1 - p) / (m*(1-r*r) - 2*r*(1-p))
}

// warmup is the warm-up to cut from xs, in windows, within the first
// limit: the one MSER-5 picks, when what it cuts differs from the rest by
// more than noise at 99 % (long-run variance, as the windows are
// correlated). MSER on its own cuts a few windows from most series by
// chance, and always those that widen the interval, which a stopping
// rule looking again and again turns into an interval too narrow.
func warmup(xs []float64, limit int) int {
	d := mser(xs, limit)
	if d == 0 {
		return 0
	}
	cut, _ := meanVar(xs[:d])
	rest, _ := meanVar(xs[d:])
	v, k, _, _ := longRun(xs[d:], 1)
	if math.Abs(cut-rest) <= stats.T995(float64(k-1))*math.Sqrt(v*(1/float64(d)+1/float64(len(xs)-d))) {
		return 0
	}
	return d
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
	// Sums from the end, so each start costs nothing, about the mean, so
	// a rate that hardly varies does not drown in rounding.
	m, _ := meanVar(xs)
	sum, sq := make([]float64, n+1), make([]float64, n+1)
	for i := n - 1; i >= 0; i-- {
		x := xs[i] - m
		sum[i], sq[i] = sum[i+1]+x, sq[i+1]+x*x
	}
	best, at := math.Inf(1), 0
	for d := 0; d <= limit; d += 5 {
		k := float64(n - d)
		ss := sq[d] - sum[d]*sum[d]/k
		if se := ss / (k * k); se < best {
			best, at = se, d
		}
	}
	return at
}

// cliffDrop is how far a rate must fall to be a cliff: a tenth or more,
// less being within what a drive's background work moves a rate by.
const cliffDrop = 0.9

// kolmogorov99 is the 99 % point of the supremum of a Brownian bridge's
// absolute value: what the CUSUM of a series with no change exceeds once
// in a hundred runs.
const kolmogorov99 = 1.628

// z995 is the normal's 99.5 % point, which Student's t at as many degrees
// of freedom as the long-run variance has is set against to widen the
// Kolmogorov bound for an estimated variance.
const z995 = 2.5758

// findCliff tests the windows for one drop that stayed down and returns it
// and the first window after it, or nil. The split is the drop that best
// separates two rates (least squares), with at least a tenth of the
// windows, and MinWindows, either side. It is a cliff when
//   - the change is significant at 99 %: the CUSUM of the rates at the
//     split, over the long-run standard deviation of the residuals about
//     the two rates (batch means, for the windows are correlated), passes
//     the Kolmogorov bound, widened for the estimate's few degrees of
//     freedom;
//   - the later rate is at most cliffDrop of the earlier;
//   - both sides are level (a warm-up cut off the first): a line fitted
//     to either changes it by less than half the drop, or by no more
//     than noise. A slide, a rate that falls gradually, fails this,
//     since halving it leaves half the slide on each side: it is no
//     cliff, and its windows keep their full spread in the interval.
func findCliff(ws []Window) (*Cliff, int) {
	n := len(ws)
	lo := max(MinWindows, n/10)
	if n < 2*lo {
		return nil, 0
	}
	xs := rates(ws)
	prefix := make([]float64, n+1)
	for i, x := range xs {
		prefix[i+1] = prefix[i] + x
	}
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
	a, b := prefix[k]/float64(k), (prefix[n]-prefix[k])/float64(n-k)
	res := make([]float64, n)
	for i, x := range xs {
		res[i] = x - a
		if i >= k {
			res[i] = x - b
		}
	}
	v, nb, _, _ := longRun(res, 1)
	cusum := prefix[k] - float64(k)/float64(n)*prefix[n]
	if v > 0 && math.Abs(cusum) <= kolmogorov99*stats.T995(float64(nb-1))/z995*math.Sqrt(v*float64(n)) {
		return nil, 0
	}
	pre := ws[:k]
	pre = pre[warmup(xs[:k], k/2):]
	before, after := ratio(pre), ratio(ws[k:])
	if after > cliffDrop*before {
		return nil, 0
	}
	for _, seg := range [][]float64{xs[k-len(pre) : k], xs[k:]} {
		if !level(seg, (before-after)/2) {
			return nil, 0
		}
	}
	w := ws[k-1]
	return &Cliff{At: w.End, AtBytes: w.EndBytes, Before: before, After: after}, k
}

// level says whether the line fitted to xs changes by less than tol over
// them, or by no more than their noise explains at 99 %.
func level(xs []float64, tol float64) bool {
	n := float64(len(xs))
	if n < 3 {
		return true
	}
	mid := (n - 1) / 2
	m, _ := meanVar(xs)
	var sxy, sxx float64
	for i, x := range xs {
		sxy += (float64(i) - mid) * (x - m)
		sxx += (float64(i) - mid) * (float64(i) - mid)
	}
	slope := sxy / sxx
	change := math.Abs(slope * (n - 1))
	if change < tol {
		return true
	}
	res := make([]float64, len(xs))
	for i, x := range xs {
		res[i] = x - m - slope*(float64(i)-mid)
	}
	v, k, _, _ := longRun(res, 1)
	return change <= stats.T995(float64(k-1))*(n-1)*math.Sqrt(v/sxx)
}

// Options are a method's --until-stable and --sustained.
type Options struct {
	// Target is the relative half-width of the interval at which a phase
	// stops (0.02 for ±2 %); 0 runs it to its bound.
	Target float64
	// Sustained makes the figure the rate after a cliff, when there is
	// one.
	Sustained bool
	// Width is the windows' span; 0 is DefaultWidth.
	// Quantum is the bytes the count moves by at once, 0 when it moves
	// smoothly: windows that each hold whole paced blocks can agree
	// exactly, but where the kept span starts and ends still places a
	// block either side, so the interval is at least a quantum over the
	// span wide.
	Width   time.Duration
	Quantum int64
}

// checkGrowth and agree are the stopping rule's guard against stopping on
// a spread that is small by chance: the interval is looked at only when
// the windows have grown by a tenth since the last look, and must meet the
// target at agree looks in a row.
const (
	checkGrowth = 10
	agree       = 2
)

// Meter follows one timed phase for a method: the one thing a method
// does with this package is feed it its byte count as it goes, stop when
// it says so, and put its interval in the result.
type Meter struct {
	o Options
	s *Series
	// next is the window count of the next look, met how many looks in a
	// row met the target, and size the largest batch size a settled
	// interval has needed: once the windows showed correlation over that
	// span, a later look that happens not to see it is not believed.
	next, met, size int
	stopped         bool
}

// Meter starts following a phase.
func (o Options) Meter() *Meter { return &Meter{o: o, s: NewSeries(o.Width), size: 1} }

// Adaptive says the phase runs until its figure is known: a method then
// goes on past the end of its data (a read starts over) until the meter or
// the time bound stops it.
func (m *Meter) Adaptive() bool { return m != nil && m.o.Target > 0 }

// Feed gives the phase's bytes so far at elapsed since it began, and says
// whether the phase may stop: MinStop windows' time has passed and the
// interval, settled, met the target at agree looks in a row. A phase with
// a cliff has no one rate without Sustained, so it runs to its bound; with
// Sustained a phase stops only once a cliff was found and the rate after
// it is known, and one with no cliff runs to its bound. Without
// Sustained, a cliff after the stop is not seen. Without a target Feed
// never says stop.
func (m *Meter) Feed(total int64, elapsed time.Duration) bool {
	n := len(m.s.windows)
	m.s.Feed(total, elapsed)
	if m.o.Target <= 0 || len(m.s.windows) == n {
		return m.stopped
	}
	if n = len(m.s.windows); m.s.at < MinStop*DefaultWidth || n < m.next {
		return m.stopped
	}
	m.next = n + max(1, n/checkGrowth)
	e := m.s.estimate(m.o.Sustained, m.size)
	if e.Settled {
		m.size = max(m.size, e.need)
	}
	if e.Stable(m.o.Target) && (e.Cliff != nil) == m.o.Sustained {
		m.met++
	} else {
		m.met = 0
	}
	m.stopped = m.stopped || m.met >= agree
	return m.stopped
}

// Begin puts the start of the first window later than the phase's (see
// Series.Begin).
func (m *Meter) Begin(total int64, elapsed time.Duration) { m.s.Begin(total, elapsed) }

// Interval is how well a phase's rate is known, as a method records it
// (internal/result's Interval is its form in a result document).
type Interval struct {
	// Mean is the rate over the windows kept, bytes per second;
	// HalfWidth the 95 % interval's half-width around it, Low and High
	// its bounds (both 0 when the width is unknown), Relative the
	// half-width over the mean.
	Mean, HalfWidth, Low, High, Relative float64
	// Windows were kept, each about Width long; EffectiveWindows is what
	// they are worth as independent samples.
	Windows          int
	Width            time.Duration
	EffectiveWindows float64
	// WarmupWindows (Warmup) were cut off the start, or with Sustained
	// the part before the cliff.
	WarmupWindows int
	Warmup        time.Duration
	// Target is the relative half-width the phase was run to, 0 for a
	// fixed bound; Converged says it was reached (DefaultStable for a
	// fixed run).
	Target    float64
	Converged bool
	Cliff     *Cliff
	// Sustained marks a figure of the rate after a cliff only.
	Sustained bool
}

// DefaultStable is the relative half-width a rate is called stable at when
// no target was set.
const DefaultStable = 0.02

// known says whether the interval tells anything: a width, or none at all
// because every window moved the same bytes (converged, ±0).
func (iv *Interval) known() bool {
	return iv != nil && iv.Mean > 0 && (iv.HalfWidth > 0 || iv.Converged)
}

// Figure is the phase's interval and its headline rate in MiB/s: the
// windows' mean, warm-up cut off, when the phase ran until it was known
// (and the windows saw what the figure measures: seen, false for a
// buffered write whose figure keeps the final fsync), or the rate after
// the cliff with --sustained; else mibps, the phase's bytes over its time.
func (m *Meter) Figure(mibps float64, seen bool) (float64, *Interval) {
	iv := m.Interval()
	if iv != nil && (iv.Sustained || seen && m.Adaptive() && iv.known()) {
		return iv.Mean / (1 << 20), iv
	}
	return mibps, iv
}

// Interval is the phase's interval; nil when the phase was shorter than a
// window.
func (m *Meter) Interval() *Interval {
	e := m.s.estimate(m.o.Sustained, m.size)
	if e.Windows == 0 {
		return nil
	}
	target := m.o.Target
	if target <= 0 {
		target = DefaultStable
	}
	iv := &Interval{Mean: e.Mean, HalfWidth: e.HalfWidth, Low: e.Mean - e.HalfWidth, High: e.Mean + e.HalfWidth,
		Windows: e.Windows, Width: m.s.width, EffectiveWindows: math.Round(e.ESS*10) / 10,
		WarmupWindows: e.Warmup, Warmup: e.WarmupDur, Target: m.o.Target,
		Converged: m.stopped || e.Stable(target) && (e.Cliff == nil || m.o.Sustained),
		Sustained: m.o.Sustained && e.Cliff != nil, Cliff: e.Cliff}
	// A rate of zero (a paced sender between its blocks) has no relative
	// width: Relative's +Inf cannot be written as JSON.
	if e.Batches >= 2 && e.Mean > 0 {
		iv.Relative = e.Relative()
		if q := float64(m.o.Quantum) / (float64(e.Windows) * m.s.width.Seconds()); iv.HalfWidth < q {
			iv.HalfWidth, iv.Low, iv.High, iv.Relative = q, e.Mean-q, e.Mean+q, q/e.Mean
			iv.Converged = iv.Converged && iv.Relative <= target
		}
	} else {
		iv.Low, iv.High = 0, 0
	}
	return iv
}
