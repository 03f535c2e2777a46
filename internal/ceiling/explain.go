package ceiling

import (
	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stats"
)

// Explain sets doc.Bottlenecks from doc.System and the method's figures:
// per disk target and direction its best figure (the one that comes
// closest to a link's ceiling; for disk io's repeats their mean, which
// its table headlines), per network direction the receiver's rate.
// Without doc.System it does nothing but name the CPU (see CPU).
func Explain(doc *result.Document) {
	defer CPU(doc)
	if doc.System == nil {
		return
	}
	sys := *doc.System
	doc.Bottlenecks = nil
	storage := func(i int, phase string, bytesPerSec float64) {
		if bytesPerSec <= 0 || i < 0 || i >= len(doc.Targets) {
			return
		}
		t := doc.Targets[i]
		hops, shared := Storage(sys, t)
		doc.Bottlenecks = append(doc.Bottlenecks, Judge(phase+" "+t.Path, bytesPerSec, hops, shared, false))
	}
	const mib = 1 << 20
	switch {
	case doc.Sweep != nil:
		for i := range doc.Targets {
			for _, phase := range []string{result.PhaseWrite, result.PhaseRead} {
				best := 0.0
				for _, s := range doc.Sweep.Steps {
					// A read from the page cache says nothing about a link.
					if s.Target == i && s.Phase == phase && s.Cache != result.CacheCached {
						best = max(best, s.MiBPerSec)
					}
				}
				storage(i, phase, best*mib)
			}
		}
	case doc.Random != nil:
		storage(0, "read+write", (doc.Random.ReadMiBPerSec+doc.Random.WriteMiBPerSec)*mib)
	case doc.IO != nil:
		// The mean of the repeats, the figure the table headlines: the
		// best run quoted under a mean reads as a contradiction.
		var rd, wr []float64
		for _, r := range doc.IO.Runs {
			if r.Read != nil {
				rd = append(rd, r.Read.MiBPerSec)
			}
			if r.Write != nil {
				wr = append(wr, r.Write.MiBPerSec)
			}
		}
		storage(0, result.PhaseRead, stats.Summarize(rd).Mean*mib)
		storage(0, result.PhaseWrite, stats.Summarize(wr).Mean*mib)
	case doc.Mark != nil:
		for _, phase := range []string{result.PhaseRead, result.PhaseWrite} {
			best := 0.0
			for _, r := range doc.Mark.Results {
				if r.Phase == phase {
					best = max(best, r.MiBPerSec)
				}
			}
			storage(0, phase, best*mib)
		}
	case doc.HTTP != nil && doc.HTTP.Interface != "" && doc.HTTP.Interface != "lo":
		best := 0.0
		for _, r := range doc.HTTP.Runs {
			best = max(best, r.MiBPerSec*mib)
		}
		if best > 0 {
			hops, shared := Network(sys, doc.HTTP.Interface)
			doc.Bottlenecks = append(doc.Bottlenecks, Judge("http download via "+doc.HTTP.Interface, best, hops, shared, true))
		}
	case doc.Net != nil && doc.Net.Parameters.Interface != "" && doc.Net.Parameters.Interface != "lo":
		// Loopback crosses no link: there is no ceiling to explain it by.
		ifname := doc.Net.Parameters.Interface
		hops, shared := Network(sys, ifname)
		for _, s := range doc.Net.Sums {
			if s.Receiver.BitsPerSecond > 0 {
				doc.Bottlenecks = append(doc.Bottlenecks, Judge("net "+s.Direction+" via "+ifname, s.Receiver.BitsPerSecond/8, hops, shared, true))
			}
		}
	}
}
