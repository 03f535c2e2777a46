package health

import (
	"math"
	"sort"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/throttle"
)

// topInterrupts is how many interrupt lines the result keeps: the ones a
// run made busy, not the hundred idle ones of a PC.
const topInterrupts = 8

// summary turns the samples into the result's section.
func (s *Sampler) summary() *result.Health {
	h := &result.Health{Seconds: math.Round(s.tEnd.Sub(s.t0).Seconds()*1000) / 1000, Samples: s.samples}
	unknown := func(name string) { h.Unknown = append(h.Unknown, name) }
	// The counters' figures cover the load when it began after the
	// run did (LoadBegins).
	a, b, from := s.first, s.last, s.t0
	if s.load != nil {
		a, from = *s.load, s.loadAt
		h.LoadS = math.Round(s.tEnd.Sub(from).Seconds()*1000) / 1000
	}
	secs := s.tEnd.Sub(from).Seconds()

	var busy uint64
	if a.statOK && b.statOK {
		for _, c := range sortedKeys(b.stat) {
			before, ok := a.stat[c]
			if !ok {
				continue
			}
			d := b.stat[c].sub(before)
			busy += d.busy()
			t := float64(d.total())
			if t == 0 {
				continue
			}
			pct := func(v uint64) float64 { return round1(float64(v) * 100 / t) }
			h.CPUs = append(h.CPUs, result.CPUTime{CPU: c, User: pct(d.user + d.nice), System: pct(d.system),
				IRQ: pct(d.irq), Softirq: pct(d.softirq), IOWait: pct(d.iowait), Steal: pct(d.steal), Busy: pct(d.busy()),
				BusySeries: s.busySeries(c)})
		}
	}
	if len(h.CPUs) > 0 && len(h.CPUs[0].BusySeries) > 0 {
		h.BusyAtS = s.busyAt[s.loadIdx:]
	}
	if len(h.CPUs) == 0 {
		unknown("cpus")
	}

	if a.irqsOK && b.irqsOK {
		h.Interrupts = interruptDeltas(a.irqs, b.irqs)
	} else {
		unknown("interrupts")
	}
	if a.softirqsOK && b.softirqsOK {
		for _, name := range softirqsKept {
			before, after := a.softirqs[name], b.softirqs[name]
			if after == nil {
				continue
			}
			sc := result.SoftirqCount{Name: name}
			for _, c := range sortedKeys(after) {
				sc.PerCPU = append(sc.PerCPU, int64(sub(after[c], before[c])))
			}
			h.Softirqs = append(h.Softirqs, sc)
		}
	} else {
		unknown("softirqs")
	}

	for _, p := range s.policies {
		c := result.Clock{Policy: p.name, CPUs: p.cpus, Governor: p.governor, MaxMHz: p.maxKHz / 1000,
			MinSeenMHz: p.minSeen / 1000, MaxSeenMHz: p.maxSeen / 1000}
		var sum, n float64
		for f, t := range p.tisLast {
			d := float64(sub(t, p.tisStart[f]))
			sum, n = sum+f*d, n+d
		}
		if n > 0 {
			c.MeanMHz = round1(sum / n / 1000)
		}
		h.Clocks = append(h.Clocks, c)
	}
	if len(h.Clocks) == 0 {
		unknown("clocks")
	}
	if s.fwN > 0 {
		h.FirmwareClock = &result.FirmwareClock{MinMHz: round1(s.fwMin), MeanMHz: round1(s.fwSum / float64(s.fwN)), MaxMHz: round1(s.fwMax), Samples: s.fwN}
	} else {
		unknown("firmware_clock")
	}

	for _, z := range s.zones {
		if z.seen {
			h.Temperatures = append(h.Temperatures, result.Temperature{Zone: z.name, Type: z.typ, StartC: z.start, MaxC: z.max, EndC: z.end, MaxAtS: z.maxAt})
		}
	}
	if len(h.Temperatures) == 0 {
		unknown("temperatures")
	}

	if s.thrOK {
		t := &result.Throttled{Source: s.throttle.Path, Start: hex(s.thrStart), End: hex(s.thrEnd)}
		bits := sortedKeys(s.thrFirst)
		for _, bit := range bits {
			name := throttle.Decode(1 << bit)[0]
			t.Events = append(t.Events, result.ThrottleEvent{Bit: bit, Meaning: name, AtStart: s.thrAtStart[bit], FirstSeenS: s.thrFirst[bit]})
		}
		h.Throttled = t
	} else {
		unknown("throttled")
	}

	if a.ownOK && b.ownOK && secs > 0 {
		own := float64(sub(b.own, a.own)) / userHZ / secs
		h.OwnCPUs = ptr(round2(own))
		if len(h.CPUs) > 0 {
			// The two clocks tick apart: over a short run the difference
			// can leave [0, CPUs - own] by a tick or two.
			others := min(float64(busy)/userHZ/secs-own, float64(len(h.CPUs))-own)
			h.OthersCPUs = ptr(round2(max(0, others)))
		}
	} else {
		unknown("own_cpu")
	}

	if a.cgOK && b.cgOK {
		h.Cgroup = &result.CgroupCPU{Version: s.cg.version, Path: s.cg.path, QuotaCPUs: s.cg.quota(),
			NrThrottled: b.cg.nrThrottled - a.cg.nrThrottled, ThrottledMicros: b.cg.throttledUs - a.cg.throttledUs}
	} else {
		unknown("cgroup")
	}

	if s.km != nil {
		for i := range s.matched {
			m := &s.matched[i]
			if m.Scope = s.scope(*m); m.Scope != scopeOther {
				s.suspect("kernel error", m.AtS, m.Pattern+": "+m.Line)
			}
		}
		h.Kernel = &result.KernelLog{New: s.newLines, Matched: s.matched, Lost: s.km.lost}
	} else {
		unknown("kernel")
	}
	s.wifiSummary(h)
	// WiFi power save is judged at the end, once the run has named the
	// interface it crossed; every reason stays in the order it began.
	sort.SliceStable(s.suspects, func(i, j int) bool { return s.suspects[i].AtS < s.suspects[j].AtS })
	h.Suspect = s.suspects
	return h
}

// interruptDeltas are the lines that fired during the run, most first.
func interruptDeltas(a, b map[string]irqLine) []result.IRQCount {
	var out []result.IRQCount
	for irq, l := range b {
		before := a[irq]
		c := result.IRQCount{IRQ: irq, Name: l.name, TopCPU: -1}
		var top uint64
		for _, cpu := range sortedKeys(l.counts) {
			d := sub(l.counts[cpu], before.counts[cpu])
			c.PerCPU = append(c.PerCPU, int64(d))
			c.Count += int64(d)
			if c.TopCPU < 0 || d > top {
				c.TopCPU, top = cpu, d
			}
		}
		if c.Count > 0 {
			c.TopShare = round3(float64(top) / float64(c.Count))
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].IRQ < out[j].IRQ
	})
	if len(out) > topInterrupts {
		out = out[:topInterrupts]
	}
	return out
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}

func ptr(v float64) *float64 { return &v }

func round1(v float64) float64 { return math.Round(v*10) / 10 }
func round2(v float64) float64 { return math.Round(v*100) / 100 }
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
