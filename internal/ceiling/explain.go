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
	doc.Bottlenecks = nil
	if explain := explainers[doc.SectionMethod()]; explain != nil {
		explain(&explainer{doc: doc, sys: *doc.System})
	}
}

// explainers give each method's figures to judge, looked up by the
// method whose section a document holds.
var explainers = map[result.Method]func(e *explainer){
	result.MethodSweep:     sweepCeilings,
	result.MethodRandom:    randomCeilings,
	result.MethodIO:        ioCeilings,
	result.MethodMark:      markCeilings,
	result.MethodCheck:     checkCeilings,
	result.MethodNetClient: netCeilings,
	result.MethodNetServer: netCeilings,
	result.MethodHTTP:      httpCeilings,
}

// explainer judges a document's figures against the links they crossed.
type explainer struct {
	doc *result.Document
	sys result.System
}

// storage judges the rate of a phase on target i against the chain
// under the target.
func (e *explainer) storage(i int, phase string, bytesPerSec float64) {
	if bytesPerSec <= 0 || i < 0 || i >= len(e.doc.Targets) {
		return
	}
	t := e.doc.Targets[i]
	hops, shared := Storage(e.sys, t)
	e.doc.Bottlenecks = append(e.doc.Bottlenecks, Judge(phase+" "+t.Path, bytesPerSec, hops, shared, false))
}

// network judges the rate of what crossed interface ifname. Loopback
// crosses no link: there is no ceiling to explain it by.
func (e *explainer) network(what, ifname string, bytesPerSec float64) {
	if bytesPerSec <= 0 || ifname == "" || ifname == "lo" {
		return
	}
	hops, shared := Network(e.sys, ifname)
	e.doc.Bottlenecks = append(e.doc.Bottlenecks, Judge(what+" via "+ifname, bytesPerSec, hops, shared, true))
}

const mib = 1 << 20

func sweepCeilings(e *explainer) {
	for i := range e.doc.Targets {
		for _, phase := range []string{result.PhaseWrite, result.PhaseRead} {
			best := 0.0
			for _, s := range e.doc.Sweep.Steps {
				// A read from the page cache says nothing about a link.
				if s.Target == i && s.Phase == phase && s.Cache != result.CacheCached {
					best = max(best, s.MiBPerSec)
				}
			}
			e.storage(i, phase, best*mib)
		}
	}
}

func randomCeilings(e *explainer) {
	r := e.doc.Random
	e.storage(0, "read+write", (r.ReadMiBPerSec+r.WriteMiBPerSec)*mib)
}

// ioCeilings take the mean of the repeats, the figure the table
// headlines: the best run quoted under a mean reads as a contradiction.
func ioCeilings(e *explainer) {
	var rd, wr []float64
	for _, r := range e.doc.IO.Runs {
		if r.Read != nil {
			rd = append(rd, r.Read.MiBPerSec)
		}
		if r.Write != nil {
			wr = append(wr, r.Write.MiBPerSec)
		}
	}
	e.storage(0, result.PhaseRead, stats.Summarize(rd).Mean*mib)
	e.storage(0, result.PhaseWrite, stats.Summarize(wr).Mean*mib)
}

func markCeilings(e *explainer) {
	for _, phase := range []string{result.PhaseRead, result.PhaseWrite} {
		best := 0.0
		for _, r := range e.doc.Mark.Results {
			if r.Phase == phase {
				best = max(best, r.MiBPerSec)
			}
		}
		e.storage(0, phase, best*mib)
	}
}

func httpCeilings(e *explainer) {
	best := 0.0
	for _, r := range e.doc.HTTP.Runs {
		best = max(best, r.MiBPerSec*mib)
	}
	e.network("http download", e.doc.HTTP.Interface, best)
}

// netCeilings judge the receiver's rate of each direction.
func netCeilings(e *explainer) {
	for _, s := range e.doc.Net.Sums {
		e.network("net "+s.Direction, e.doc.Net.Parameters.Interface, s.Receiver.BitsPerSecond/8)
	}
}
