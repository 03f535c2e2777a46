// Package headline makes the one-line headline of a run (its best figures,
// and whether it is suspect) that the store keeps with it for lists and
// that a page of several runs shows beside each.
package headline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

// summarizers make the one-line headline of each method, looked up by the
// method whose section a document holds (so each finds its section set).
// The line is stored with the run, so a list of thousands computes
// nothing; a change here applies to runs saved afterwards. Each method
// words its own (the best block size, the mean of the repeats, the
// preset people quote), which a loop over figures cannot.
var summarizers = map[result.Method]func(*result.Document) string{
	result.MethodSweep:     sweepSummary,
	result.MethodRandom:    randomSummary,
	result.MethodIO:        ioSummary,
	result.MethodMark:      markSummary,
	result.MethodNetClient: netSummary,
	result.MethodNetServer: netSummary,
	result.MethodHTTP:      httpSummary,
}

// Summary is the headline figure(s) of a run, as a list shows them: "read
// 23.7 MiB/s, write 20.9 MiB/s (max)", "up 941.2 Mbit/s"; "" for a method
// without one or a run that measured nothing. A suspect run's line says
// so and why: "up 941.2 Mbit/s ! suspect (under-voltage)".
func Summary(doc *result.Document) string {
	f := summarizers[doc.SectionMethod()]
	if f == nil {
		return ""
	}
	s := f(doc)
	if s != "" && doc.Suspect() {
		var reasons []string
		for _, x := range doc.Health.Suspect {
			if !slices.Contains(reasons, x.Reason) {
				reasons = append(reasons, x.Reason)
			}
		}
		s += " " + result.SuspectMark + " suspect (" + strings.Join(reasons, ", ") + ")"
	}
	return s
}

// sweepSummary is the best block size of each phase: what the device can
// do when the block size is not what holds it back; a run over several
// targets gives each target's, named by its filesystem.
func sweepSummary(doc *result.Document) string {
	if len(doc.Targets) < 2 {
		return sweepBest(doc.Sweep.Steps, -1)
	}
	var per []string
	for ti, label := range result.TargetLabels(doc.Targets) {
		if s := sweepBest(doc.Sweep.Steps, ti); s != "" {
			per = append(per, label+": "+s)
		}
	}
	return strings.Join(per, "; ")
}

// sweepBest is the best block size of each phase among the steps of
// target ti, or of every target when ti is negative.
func sweepBest(steps []result.SweepStep, ti int) string {
	var best [2]*result.SweepStep // read, write
	for i := range steps {
		st := &steps[i]
		if ti >= 0 && st.Target != ti {
			continue
		}
		k := -1
		switch st.Phase {
		case result.PhaseRead:
			k = 0
		case result.PhaseWrite:
			k = 1
		}
		if k >= 0 && st.MiBPerSec > 0 && (best[k] == nil || st.MiBPerSec > best[k].MiBPerSec) {
			best[k] = st
		}
	}
	var parts []string
	if st := best[0]; st != nil {
		p := fmt.Sprintf("read %.1f MiB/s", st.MiBPerSec)
		// A read served from the page cache measures memory, and the list
		// must not pass it off as the device.
		if st.Cache == result.CacheCached {
			p += " cached"
		}
		parts = append(parts, p)
	}
	if st := best[1]; st != nil {
		parts = append(parts, fmt.Sprintf("write %.1f MiB/s", st.MiBPerSec))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + " (max)"
}

func randomSummary(doc *result.Document) string {
	r := doc.Random
	if r.Reads+r.Writes == 0 {
		return ""
	}
	parts := []string{fmt.Sprintf("%s %s %s req/s", units.SizeLabel(r.Parameters.BlockSize), r.Parameters.Mode, count(r.RequestsPerSec))}
	if r.Reads > 0 {
		parts = append(parts, fmt.Sprintf("read %.1f MiB/s", r.ReadMiBPerSec)+cachedMark(doc, r.ReadDevice))
	}
	if r.Writes > 0 {
		parts = append(parts, fmt.Sprintf("write %.1f MiB/s", r.WriteMiBPerSec))
	}
	return strings.Join(parts, ", ")
}

// ioSummary is the mean over the repeats, per direction.
func ioSummary(doc *result.Document) string {
	io := doc.IO
	if len(io.Runs) == 0 {
		return ""
	}
	var iops, mibs [2]float64
	var n [2]int
	var cached *result.DeviceShare
	for _, r := range io.Runs {
		for k, d := range []*result.IODirection{r.Read, r.Write} {
			if d != nil {
				iops[k] += d.IOPS
				mibs[k] += d.MiBPerSec
				n[k]++
			}
		}
		if r.Read != nil && r.Read.Device != nil && r.Read.Device.Cached {
			cached = r.Read.Device
		}
	}
	var figs, names []string
	for k, name := range []string{"read", "write"} {
		if n[k] > 0 {
			fig := fmt.Sprintf("%s IOPS, %.1f MiB/s", count(iops[k]/float64(n[k])), mibs[k]/float64(n[k]))
			if k == 0 {
				fig += cachedMark(doc, cached)
			}
			figs = append(figs, fig)
			names = append(names, name)
		}
	}
	p := io.Parameters
	bs, depth := p.Shape(units.SizeLabel, "?")
	s := fmt.Sprintf("%s %s Q%sT%d ", bs, p.RW, depth, p.Jobs)
	switch len(figs) {
	case 0:
		return ""
	case 1:
		s += figs[0] // the rw mode already says the direction
	default:
		s += names[0] + " " + figs[0] + "; " + names[1] + " " + figs[1]
	}
	if len(io.Runs) > 1 {
		s += fmt.Sprintf(" (mean of %d)", len(io.Runs))
	}
	return s
}

// cachedMark says a read figure of doc is the page cache's, as the
// sweep's steps do: the device d served little of it, or doc measured a
// tmpfs or ramfs, whose files are memory and which has no device to count
// (the suite's quick random step there once headlined memory as a disk).
func cachedMark(doc *result.Document, d *result.DeviceShare) string {
	memory := len(doc.Targets) > 0
	for _, t := range doc.Targets {
		memory = memory && (t.FSType == "tmpfs" || t.FSType == "ramfs")
	}
	if memory || d != nil && d.Cached {
		return " cached"
	}
	return ""
}

// markSummary is the first preset, the sequential one people quote.
func markSummary(doc *result.Document) string {
	const preset = "SEQ1M Q8T1"
	var parts []string
	for _, phase := range []string{result.PhaseRead, result.PhaseWrite} {
		for _, r := range doc.Mark.Results {
			if r.Preset == preset && r.Phase == phase {
				parts = append(parts, fmt.Sprintf("%s %.1f MiB/s", phase, r.MiBPerSec)+cachedMark(doc, r.Device))
				break
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return preset + " " + strings.Join(parts, ", ")
}

// netSummary is the receiver's rate per direction: what arrived, not what
// was pushed into the socket; then, with latency under load, the slowest
// direction's loaded median round trip and what the load added to it.
func netSummary(doc *result.Document) string {
	s := netRates(doc)
	if p := doc.LoadLatency.Slowest(); s != "" && p != nil {
		s += fmt.Sprintf(", loaded RTT %.1f ms", float64(p.RTT.P50Ns)/1e6)
		if p.Added != nil {
			s += fmt.Sprintf(" (%+.1f ms over idle)", float64(p.Added.Ns)/1e6)
		}
	}
	return s
}

func netRates(doc *result.Document) string {
	var parts []string
	for _, dir := range []string{result.DirUp, result.DirDown} {
		for _, s := range doc.Net.Sums {
			if s.Direction == dir && (s.Receiver.Bytes > 0 || s.Receiver.BitsPerSecond > 0) {
				parts = append(parts, fmt.Sprintf("%s %.1f Mbit/s", dir, s.Receiver.BitsPerSecond/1e6))
				break
			}
		}
	}
	return strings.Join(parts, ", ")
}

// httpSummary is the mean average rate of the downloads that ended well.
func httpSummary(doc *result.Document) string {
	var sum float64
	n := 0
	for _, r := range doc.HTTP.Runs {
		if r.Error == "" && r.TransferNs > 0 {
			sum += r.MiBPerSec
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%.1f MiB/s", sum)
	}
	return fmt.Sprintf("%.1f MiB/s (mean of %d)", sum/float64(n), n)
}

// count prints a rate of operations: whole numbers once they are large
// enough that decimals are noise.
func count(x float64) string {
	if x >= 100 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.1f", x)
}
