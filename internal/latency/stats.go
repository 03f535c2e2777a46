package latency

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// LargeAdded is the added latency the verdict speaks of: 30 ms doubles a
// typical internet round trip, and a call or a game feels it.
const LargeAdded = 30 * time.Millisecond

// summarise turns the samples into the section; p.mu held.
func (p *Prober) summarise() *result.LoadLatency {
	l := &result.LoadLatency{Probe: p.kind, Port: p.tcpPort, IntervalNs: p.cfg.LoadInterval.Nanoseconds(),
		IdleNs: p.cfg.Idle.Nanoseconds(), IdleAfter: p.idleAfter, Lost: p.lost}
	if p.cfg.Interval != p.cfg.LoadInterval {
		l.IdleIntervalNs = p.cfg.Interval.Nanoseconds()
	}
	if p.kind == KindUDPEcho {
		l.Port = p.udpPort
	}
	var idle, load []*sample
	for i := range p.samples {
		s := &p.samples[i]
		// A handshake that fell back from a lost echo counts with its
		// own kind only.
		if s.kind != p.kind {
			continue
		}
		switch s.phase {
		case phaseIdle:
			idle = append(idle, s)
		case phaseLoad:
			load = append(load, s)
		}
	}
	oneWay := p.kind == KindUDPEcho
	var offset float64
	if oneWay {
		var err float64
		var ok bool
		if offset, err, ok = clockOffset(idle); ok {
			o, e := int64(offset), int64(err)
			l.ClockOffsetNs, l.ClockOffsetErrorNs = &o, &e
		} else {
			oneWay = false
		}
	}
	if len(idle) > 0 {
		l.Idle = phase("idle", idle, p.idleStart, p.idleEnd, oneWay, offset)
	}
	if len(load) > 0 {
		lp := phase(p.loadDir, load, load[0].sent, p.loadEnd, oneWay, offset)
		if l.Idle != nil {
			lp.Added = added(lp.RTT, l.Idle.RTT)
			lp.AddedUp = added(lp.Up, l.Idle.Up)
			lp.AddedDown = added(lp.Down, l.Idle.Down)
		}
		if r := lp.RTT; r != nil && r.P50Ns > 0 {
			lp.RPM = &result.RPM{Value: 60e9 / float64(r.P50Ns), Low: 60e9 / float64(max(r.P50HighNs, 1)), High: 60e9 / float64(max(r.P50LowNs, 1))}
		}
		l.Loaded = append(l.Loaded, *lp)
	}
	l.LoadStartNs = p.loadStart
	l.BinNs = max(seriesBin, 10*p.cfg.LoadInterval).Nanoseconds()
	l.Series = append(series(idle, "idle", l.BinNs, p.idleStart), series(load, p.loadDir, l.BinNs, p.loadStart)...)
	if l.Lost == "" && len(idle)+len(load) > 0 && !l.Measured() {
		l.Lost = lostAll(p.kind, l.Port)
	}
	l.Verdict = Verdict(l)
	return l
}

// seriesBin is the shortest bin of the series: ten points a second.
const seriesBin = 100 * time.Millisecond

// series bins a phase's probes (in send order) by their send time, the
// bins counted from origin: a load's from its start, so that they are the
// test's own tenths of a second on its throughput chart.
func series(ss []*sample, phase string, bin, origin int64) []result.LatencyPoint {
	var out []result.LatencyPoint
	var rtt []int64
	flush := func() {
		if len(out) > 0 && len(rtt) > 0 {
			slices.Sort(rtt)
			m := rtt[len(rtt)/2]
			out[len(out)-1].RTTNs = &m
		}
		rtt = rtt[:0]
	}
	for _, s := range ss {
		at := origin + (s.sent-origin)/bin*bin
		// Handshakes stamp their send in their own goroutines, a
		// little out of order: a late stamp joins the bin before.
		if len(out) == 0 || at > out[len(out)-1].AtNs {
			flush()
			out = append(out, result.LatencyPoint{AtNs: at, Phase: phase})
		}
		pt := &out[len(out)-1]
		pt.Sent++
		if s.answered {
			rtt = append(rtt, int64(s.rtt))
		} else {
			pt.Lost++
		}
	}
	flush()
	return out
}

func lostAll(kind string, port int) string {
	if kind == KindUDPEcho {
		return fmt.Sprintf("latency probes lost: the path drops UDP to port %d", port)
	}
	return fmt.Sprintf("latency probes lost: no TCP handshake to port %d completed within %v", port, connectTimeout)
}

// phase sums up one phase's probes.
func phase(name string, ss []*sample, start, end int64, oneWay bool, offset float64) *result.LatencyPhase {
	lp := &result.LatencyPhase{Phase: name, StartNs: start, EndNs: end, Sent: len(ss)}
	var rtt, up, down []int64
	for _, s := range ss {
		if !s.answered {
			continue
		}
		lp.Received++
		rtt = append(rtt, int64(s.rtt))
		if oneWay {
			u := float64(s.srvRecv-s.sent) - offset
			up = append(up, int64(u))
			down = append(down, int64(s.rtt)-int64(u))
		}
	}
	if lp.Sent > 0 {
		lp.Loss = float64(lp.Sent-lp.Received) / float64(lp.Sent)
	}
	lp.RTT, lp.Up, lp.Down = delays(rtt), delays(up), delays(down)
	lp.RTTHistogram = histogram(rtt)
	return lp
}

// perDecade is the histogram's bins to a power of ten: 40, each 5.9 %
// wider than the one before, finer than the ±10 % the probes are held to
// against ping and irtt, and about a hundred counts from an idle LAN's
// 50 µs to a full queue's 100 ms.
const perDecade = 40

// histogram counts sorted round trips in log-spaced bins; nil when none.
func histogram(sorted []int64) *result.LatencyHistogram {
	if len(sorted) == 0 {
		return nil
	}
	// A round trip under 1 ns is a clock step, not a path: it counts in
	// the first nanosecond's bin.
	bin := func(ns int64) int { return int(math.Floor(math.Log10(float64(max(ns, 1))) * perDecade)) }
	h := &result.LatencyHistogram{PerDecade: perDecade, First: bin(sorted[0])}
	h.Counts = make([]int, bin(sorted[len(sorted)-1])-h.First+1)
	for _, ns := range sorted {
		h.Counts[bin(ns)-h.First]++
	}
	return h
}

// delays are the quantiles of xs (sorted in place), nil when empty.
func delays(xs []int64) *result.Delays {
	if len(xs) == 0 {
		return nil
	}
	slices.Sort(xs)
	lo, hi := medianInterval(len(xs))
	return &result.Delays{Samples: len(xs), MinNs: xs[0], MaxNs: xs[len(xs)-1],
		P50Ns: quantile(xs, 0.5), P90Ns: quantile(xs, 0.9), P99Ns: quantile(xs, 0.99),
		P50LowNs: xs[lo], P50HighNs: xs[hi]}
}

// quantile of sorted xs, by linear interpolation between ranks.
func quantile(xs []int64, q float64) int64 {
	r := q * float64(len(xs)-1)
	i := int(r)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	f := r - float64(i)
	return xs[i] + int64(math.Round(f*float64(xs[i+1]-xs[i])))
}

// medianInterval is the ranks (0-based) bounding the 95 % interval of the
// median of n independent samples: the order statistics n/2 − 1.96·√n/2
// and 1 + n/2 + 1.96·√n/2 (1-based, rounded), the normal approximation of
// the binomial; for n = 100 the 40th and the 61st, as the exact tables.
func medianInterval(n int) (lo, hi int) {
	h := 1.96 * math.Sqrt(float64(n)) / 2
	lo = int(math.Round(float64(n)/2-h)) - 1
	hi = int(math.Round(1+float64(n)/2+h)) - 1
	return max(lo, 0), min(max(hi, 0), n-1)
}

// added is loaded minus idle at the median, its interval from both
// medians' intervals; nil without both.
func added(loaded, idle *result.Delays) *result.Added {
	if loaded == nil || idle == nil {
		return nil
	}
	return &result.Added{Ns: loaded.P50Ns - idle.P50Ns,
		LowNs: loaded.P50LowNs - idle.P50HighNs, HighNs: loaded.P50HighNs - idle.P50LowNs}
}

// clockOffset estimates the server clock minus the client's from the idle
// echoes, as NTP does, ((t2-t1)+(t3-t4))/2, which is exact when the path
// is symmetric: the median over the tenth of the echoes with the shortest
// round trips (those queued least, so least asymmetric). Its error is at
// most half the shortest round trip. The clocks' drift over a test (tens
// of ppm, microseconds over seconds) is left out.
func clockOffset(idle []*sample) (offset, bound float64, ok bool) {
	var ans []*sample
	for _, s := range idle {
		if s.answered {
			ans = append(ans, s)
		}
	}
	if len(ans) == 0 {
		return 0, 0, false
	}
	slices.SortFunc(ans, func(a, b *sample) int { return int(a.rtt - b.rtt) })
	best := ans[:max(len(ans)/10, 1)]
	thetas := make([]float64, len(best))
	for i, s := range best {
		thetas[i] = (float64(s.srvRecv-s.sent) + float64(s.srvSent-s.recv)) / 2
	}
	slices.Sort(thetas)
	return thetas[len(thetas)/2], float64(ans[0].rtt) / 2, true
}

// Verdict explains a large added latency: "the link added 96 ms under
// load in the download direction: a deep queue (bufferbloat) in front of
// the slowest hop"; empty when the added latency is small or unknown.
func Verdict(l *result.LoadLatency) string {
	var worst *result.LatencyPhase
	for i := range l.Loaded {
		p := &l.Loaded[i]
		if p.Added != nil && (worst == nil || p.Added.Ns > worst.Added.Ns) {
			worst = p
		}
	}
	if worst == nil || time.Duration(worst.Added.Ns) < LargeAdded {
		return ""
	}
	add := worst.Added.Ns
	dir := map[string]string{"up": "upload", "down": "download", "bidir": "both"}[worst.Phase]
	// With one-way delays, the direction whose delay grew names the
	// queue's side.
	if worst.AddedUp != nil && worst.AddedDown != nil {
		switch {
		case worst.AddedUp.Ns >= LargeAdded.Nanoseconds() && worst.AddedDown.Ns < LargeAdded.Nanoseconds():
			dir, add = "upload", worst.AddedUp.Ns
		case worst.AddedDown.Ns >= LargeAdded.Nanoseconds() && worst.AddedUp.Ns < LargeAdded.Nanoseconds():
			dir, add = "download", worst.AddedDown.Ns
		}
	}
	where := "in the " + dir + " direction"
	if dir == "both" || dir == "" {
		where = "with traffic both ways"
	}
	return fmt.Sprintf("the link added %.0f ms under load %s: a deep queue (bufferbloat) in front of the slowest hop",
		float64(add)/1e6, where)
}
