package ceiling

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// Thresholds of the CPU verdicts.
const (
	// coreBusy is the share of a run one core must spend busy to be the
	// bottleneck: the "near 100 %" sbc-bench flags, and at which a Pi 4
	// with a USB 3 Ethernet adapter stops sending at line rate.
	coreBusy = 90
	// coreLead is how far the busiest core must stand above the mean of
	// the others: with every core busy, no one core is the limit.
	coreLead = 20
	// boundIRQ is the share of its line's interrupts the busy core must
	// take for the line to be named as what kept it busy.
	boundIRQ = 0.9
	// othersFloor is the CPU other processes must take to be named.
	othersFloor = 0.5
	// quotaUse is the part of its cgroup quota thruput must use to be
	// held by it.
	quotaUse = 0.9
	// linkBound is the share of a link's ceiling from which the link,
	// not the CPU, is the likely bottleneck (as Judge says).
	linkBound = 0.75
	// wholeTest is the share of the test's per-second readings a core
	// must be coreBusy in to be busy "for the whole test"; partTest the
	// share (and partMinS the seconds) a core that was not busy on
	// average must be coreBusy and coreLead ahead of the others in to be
	// named as busy for part of it.
	wholeTest = 0.9
	partTest  = 0.25
	partMinS  = 3
)

// CPU names the CPU as the bottleneck of the figures that sit below their
// link's ceiling (or cross no link, as loopback does) when doc.Health
// shows one core busy for the whole run, thruput held at its cgroup's
// quota, or other processes taking CPU from it. A figure with no
// bottleneck yet gets one with the CPU as its only hop.
func CPU(doc *result.Document) {
	h := doc.Health
	if h == nil {
		return
	}
	hop, bound := cpuHop(doc, h)
	if hop.Basis == "" {
		return
	}
	if len(doc.Bottlenecks) == 0 {
		for _, f := range unexplained(doc) {
			doc.Bottlenecks = append(doc.Bottlenecks, result.Bottleneck{Figure: f.name, BytesPerSec: f.bps, Hops: []result.Hop{hop}, Limit: -1,
				Verdict: f.rate + ": " + hop.Basis + "."})
		}
		return
	}
	for i := range doc.Bottlenecks {
		b := &doc.Bottlenecks[i]
		if b.Limit >= 0 && b.Share >= linkBound {
			continue
		}
		b.Hops = append(b.Hops, hop)
		if bound {
			b.Verdict = fmt.Sprintf("%s; below the link (%s), the CPU is the bottleneck.", hop.Basis, shareOf(*b))
		} else {
			b.Verdict += " Meanwhile " + hop.Basis + "."
		}
	}
}

// cpuHop is the CPU as a hop: its name and, in Basis, what kept it busy;
// bound says the CPU holds the figure (a core or the quota), not only
// that other processes competed.
func cpuHop(doc *result.Document, h *result.Health) (result.Hop, bool) {
	var parts []string
	name, link := "CPUs", "shared with other processes"
	bound := false
	if c, ok := busyCore(h.CPUs); ok {
		name, link, bound = "CPU "+strconv.Itoa(c.CPU), "one core", true
		s := fmt.Sprintf("CPU %d was %.0f %% busy (irq+softirq %.0f %%) %s", c.CPU, c.Busy, c.IRQ+c.Softirq, busyFor(h, c))
		words, known := pathWords(doc)
		if irq, ok := boundLine(h.Interrupts, c.CPU, words, known); ok {
			s += fmt.Sprintf("; interrupt %s (%s) fired %.0f %% on CPU %d", irq.IRQ, irq.Name, irq.TopShare*100, c.CPU)
		}
		s += ": " + boundPath(doc, c)
		parts = append(parts, s)
	}
	if p, ok := partBusy(h); ok {
		parts = append(parts, p)
	}
	if q := h.Cgroup; q != nil && q.QuotaCPUs > 0 && h.OwnCPUs != nil && heldByQuota(*h.OwnCPUs, q.QuotaCPUs) {
		bound = true
		name, link = "CPU quota", "cgroup v"+strconv.Itoa(q.Version)
		parts = append(parts, fmt.Sprintf("thruput used %.2f CPUs of its cgroup's quota of %.2f (%s), throttled %d times for %.1f s: the quota holds it",
			*h.OwnCPUs, q.QuotaCPUs, q.Path, q.NrThrottled, float64(q.ThrottledMicros)/1e6))
	}
	if h.OthersCPUs != nil && *h.OthersCPUs >= othersFloor {
		parts = append(parts, fmt.Sprintf("other processes used %.1f CPUs during the run", *h.OthersCPUs))
	}
	if len(parts) == 0 {
		return result.Hop{}, false
	}
	return result.Hop{Name: name, Link: link, Basis: strings.Join(parts, "; ")}, bound
}

// heldByQuota says whether own CPUs, which the health section keeps to
// hundredths, reach quotaUse of the quota: compared in hundredths, since
// 0.9 × 0.2 is 0.18000000000000002 in floating point and a use of 0.18,
// 90 % of a 0.20 quota, would otherwise fall short of it (seen under
// load, where thruput got no more than that share).
func heldByQuota(own, quota float64) bool {
	return math.Round(own*100) >= math.Round(quotaUse*quota*100)
}

// busyCore is the busiest core when it was busy for the run and stands
// out from the others.
func busyCore(cpus []result.CPUTime) (result.CPUTime, bool) {
	if len(cpus) == 0 {
		return result.CPUTime{}, false
	}
	top, rest := cpus[0], 0.0
	for _, c := range cpus[1:] {
		if c.Busy > top.Busy {
			top = c
		}
	}
	for _, c := range cpus {
		if c.CPU != top.CPU {
			rest += c.Busy
		}
	}
	if top.Busy < coreBusy {
		return top, false
	}
	if n := len(cpus) - 1; n > 0 && top.Busy-rest/float64(n) < coreLead {
		return top, false
	}
	return top, true
}

// busyFor says for how much of the test the busy core c was busy, from
// its per-second readings: "for the whole test", or "at least 90 % for
// 6 of 10 s of the test" when its mean hides a less busy stretch. A run
// without the readings (before they were kept) says the whole test: a
// mean of 90 % leaves no room for a long idle stretch.
func busyFor(h *result.Health, c result.CPUTime) string {
	sat, total := saturated(h, c, nil)
	if total == 0 || sat >= wholeTest*total {
		return "for the whole test"
	}
	return fmt.Sprintf("at least %d %% for %.0f of %.0f s of the test", coreBusy, sat, total)
}

// saturated is how long c was coreBusy or more over the test, and how
// long the readings span; with lead, only the readings in which c was
// also coreLead ahead of the mean of the others.
func saturated(h *result.Health, c result.CPUTime, others []result.CPUTime) (sat, total float64) {
	at := h.BusyAtS
	if len(at) < 2 || len(c.BusySeries) != len(at)-1 {
		return 0, 0
	}
	for i, v := range c.BusySeries {
		d := at[i+1] - at[i]
		total += d
		if v < coreBusy {
			continue
		}
		if len(others) > 0 {
			rest, n := 0.0, 0
			for _, o := range others {
				if len(o.BusySeries) == len(c.BusySeries) {
					rest, n = rest+o.BusySeries[i], n+1
				}
			}
			if n > 0 && v-rest/float64(n) < coreLead {
				continue
			}
		}
		sat += d
	}
	return sat, total
}

// partBusy names a core that was not busy on average but was busy, and
// ahead of the others, for a stretch of the test: a receive path bound
// to one core during part of it, which the run's mean dilutes.
func partBusy(h *result.Health) (string, bool) {
	if _, ok := busyCore(h.CPUs); ok || len(h.CPUs) < 2 {
		return "", false
	}
	best, bestS, total := -1, 0.0, 0.0
	for i, c := range h.CPUs {
		others := append(append([]result.CPUTime{}, h.CPUs[:i]...), h.CPUs[i+1:]...)
		sat, tot := saturated(h, c, others)
		if sat > bestS {
			best, bestS, total = i, sat, tot
		}
	}
	if best < 0 || bestS < partMinS || bestS < partTest*total {
		return "", false
	}
	c := h.CPUs[best]
	return fmt.Sprintf("CPU %d was at least %d %% busy, ahead of the others, for %.0f of %.0f s of the test (%.0f %% on average)",
		c.CPU, coreBusy, bestS, total, c.Busy), true
}

// boundLine is the busiest interrupt line of a device on the data's path
// (words, known: pathWords) that fired almost only on cpu: a disk's queue
// firing on the core a loopback test kept busy is not what kept it busy.
func boundLine(irqs []result.IRQCount, cpu int, words []string, known bool) (result.IRQCount, bool) {
	for _, l := range irqs {
		if l.TopCPU == cpu && l.TopShare >= boundIRQ && onPath(l.Name, words, known) {
			return l, true
		}
	}
	return result.IRQCount{}, false
}

// boundPath says which path a busy core holds: interrupt and softirq work
// is the receive or completion path, the rest the process's own.
func boundPath(doc *result.Document, c result.CPUTime) string {
	if c.IRQ+c.Softirq < c.Busy/3 {
		return "the work is bound to one core"
	}
	if doc.SectionMethod().Link() {
		return "the receive path is bound to one core"
	}
	return "interrupt handling is bound to one core"
}

// shareOf says how far below its link a figure sits.
func shareOf(b result.Bottleneck) string {
	if b.Limit < 0 || b.Limit >= len(b.Hops) {
		return "no link ceiling is known on the way"
	}
	return fmt.Sprintf("%.0f %% of the %s ceiling at %s", b.Share*100, b.Hops[b.Limit].Link, b.Hops[b.Limit].Name)
}

type figure struct {
	name, rate string
	bps        float64
}

// unexplained are the network figures Explain made no bottleneck for:
// a loopback test crosses no link, but a core can still hold it.
func unexplained(doc *result.Document) []figure {
	var out []figure
	mbit := func(bps float64) string { return strconv.FormatFloat(bps*8/1e6, 'f', 1, 64) + " Mbit/s" }
	switch {
	case doc.Net != nil:
		via := doc.Net.Parameters.Interface
		for _, s := range doc.Net.Sums {
			if bps := s.Receiver.BitsPerSecond / 8; bps > 0 {
				name := "net " + s.Direction
				if via != "" {
					name += " via " + via
				}
				out = append(out, figure{name, mbit(bps), bps})
			}
		}
	case doc.HTTP != nil:
		best := 0.0
		for _, r := range doc.HTTP.Runs {
			best = max(best, r.MiBPerSec*(1<<20))
		}
		if best > 0 {
			out = append(out, figure{"http download", mbit(best), best})
		}
	}
	return out
}
