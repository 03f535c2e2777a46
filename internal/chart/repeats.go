package chart

import (
	"fmt"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/stats"
)

// ForColumns is For over the columns of a comparison, each a set of runs
// of one condition (its repeats) named by names: a column of one run is
// drawn as For draws it, a column of several as their mean with ± their
// standard deviation as its error bar, the figures the comparison table
// prints beside it. Network and HTTP runs, whose charts are over time,
// are drawn then as bars of each column's mean rate.
func ForColumns(cols [][]*result.Document, names []string) ([]*Chart, error) {
	if len(names) != len(cols) {
		return nil, fmt.Errorf("chart: %d names for %d columns", len(names), len(cols))
	}
	var runs []run
	k := ""
	for i, c := range cols {
		c = drawable(c)
		for _, d := range c {
			if err := sameKind(&k, c[0], d); err != nil {
				return nil, err
			}
		}
		switch {
		case len(c) == 1:
			runs = append(runs, run{doc: c[0], name: names[i]})
		case len(c) > 1:
			runs = append(runs, meanRun(c, names[i]))
		}
	}
	return chartsOf(k, runs), nil
}

// drawable are the documents of docs with figures.
func drawable(docs []*result.Document) []*result.Document {
	var out []*result.Document
	for _, d := range docs {
		if Kind(d) != "" {
			out = append(out, d)
		}
	}
	return out
}

// collector gathers each key's figure over a column's runs.
type collector struct {
	order []string
	by    map[string][]float64
}

func (c *collector) add(key string, v float64) {
	if c.by == nil {
		c.by = map[string][]float64{}
	}
	if _, ok := c.by[key]; !ok {
		c.order = append(c.order, key)
	}
	c.by[key] = append(c.by[key], v)
}

func (c *collector) spreads() map[string]result.Spread {
	out := map[string]result.Spread{}
	for k, xs := range c.by {
		out[k] = result.SpreadOf(stats.Summarize(xs))
	}
	return out
}

// meanRun is a column of several runs as one: the first run's document
// with each figure the mean over the runs that have it and no interval
// (the spread of the repeats replaces it), and the spreads by key.
func meanRun(docs []*result.Document, name string) run {
	var c collector
	first := docs[0]
	d := *first
	for _, x := range docs {
		switch {
		case x.Sweep != nil:
			for _, s := range x.Sweep.Steps {
				c.add(sweepKey(s), s.MiBPerSec)
			}
		case x.Mark != nil:
			for _, m := range x.Mark.Results {
				c.add(markKey(m, "MiB/s"), m.MiBPerSec)
				c.add(markKey(m, "MB/s"), m.MBPerSec)
				c.add(markKey(m, "IOPS"), m.IOPS)
			}
		case x.IO != nil:
			for _, dir := range []string{result.PhaseRead, result.PhaseWrite} {
				var mib, iops []float64
				for _, r := range x.IO.Runs {
					if io := ioDir(r, dir); io != nil {
						mib, iops = append(mib, io.MiBPerSec), append(iops, io.IOPS)
					}
				}
				if len(mib) > 0 {
					c.add(dir+"|MiB/s", stats.Summarize(mib).Mean)
					c.add(dir+"|IOPS", stats.Summarize(iops).Mean)
				}
			}
		case x.Random != nil:
			r := x.Random
			if r.Reads > 0 {
				c.add("read|MiB/s", r.ReadMiBPerSec)
				c.add("read|IOPS", r.ReadsPerSec)
			}
			if r.Writes > 0 {
				c.add("write|MiB/s", r.WriteMiBPerSec)
				c.add("write|IOPS", r.WritesPerSec)
			}
		case x.Net != nil:
			for _, s := range x.Net.Sums {
				c.add(s.Direction, s.Receiver.BitsPerSecond)
			}
		case x.HTTP != nil:
			for _, h := range x.HTTP.Runs {
				if h.Bytes > 0 {
					c.add("MiB/s", h.MiBPerSec)
				}
			}
		}
	}
	sp := c.spreads()
	mean := func(key string, v *float64) {
		if s, ok := sp[key]; ok {
			*v = s.Mean
		}
	}
	switch {
	case first.Sweep != nil:
		s := *first.Sweep
		s.Steps = nil
		seen := map[string]bool{}
		for _, x := range docs {
			for _, st := range x.Sweep.Steps {
				if k := sweepKey(st); !seen[k] {
					seen[k] = true
					mean(k, &st.MiBPerSec)
					st.Interval = nil
					s.Steps = append(s.Steps, st)
				}
			}
		}
		d.Sweep = &s
	case first.Mark != nil:
		m := *first.Mark
		m.Results = nil
		for _, r := range first.Mark.Results {
			mean(markKey(r, "MiB/s"), &r.MiBPerSec)
			mean(markKey(r, "MB/s"), &r.MBPerSec)
			mean(markKey(r, "IOPS"), &r.IOPS)
			r.Interval = nil
			m.Results = append(m.Results, r)
		}
		d.Mark = &m
	case first.IO != nil:
		io := *first.IO
		var one result.IORun
		for _, dir := range []string{result.PhaseRead, result.PhaseWrite} {
			if _, ok := sp[dir+"|MiB/s"]; ok {
				x := &result.IODirection{}
				mean(dir+"|MiB/s", &x.MiBPerSec)
				mean(dir+"|IOPS", &x.IOPS)
				if dir == result.PhaseRead {
					one.Read = x
				} else {
					one.Write = x
				}
			}
		}
		io.Runs = []result.IORun{one}
		d.IO = &io
	case first.Random != nil:
		r := *first.Random
		mean("read|MiB/s", &r.ReadMiBPerSec)
		mean("read|IOPS", &r.ReadsPerSec)
		mean("write|MiB/s", &r.WriteMiBPerSec)
		mean("write|IOPS", &r.WritesPerSec)
		r.Interval = nil
		d.Random = &r
	}
	return run{doc: &d, name: name, spread: sp, n: len(docs)}
}

func sweepKey(s result.SweepStep) string {
	return fmt.Sprintf("%d|%s|%d", s.Target, s.Phase, s.BlockSize)
}

func markKey(m result.MarkResult, unit string) string {
	return m.Preset + "|" + m.Phase + "|" + unit
}

func ioDir(r result.IORun, dir string) *result.IODirection {
	if dir == result.PhaseWrite {
		return r.Write
	}
	return r.Read
}

// repeatNote says what a drawn mean is: "mean of 3 runs ± 12.4 (standard
// deviation)".
func repeatNote(s result.Spread, unit string) string {
	return fmt.Sprintf(" (mean of %d runs ± %s, standard deviation)", s.N, figure(s.Stddev, unit))
}

// meanEntry is a bar of a column's mean with its standard deviation, or
// e unchanged when the run is no column of repeats.
func (r run) meanEntry(key, unit string, e entry) entry {
	s, ok := r.spread[key]
	if !ok || s.N < 2 {
		return e
	}
	e = newEntry(s.Mean, figure(s.Mean, unit)+repeatNote(s, unit))
	e.lo, e.hi, e.kind = s.Mean-s.Stddev, s.Mean+s.Stddev, "stddev"
	return e
}

// netMeanCharts: each column's mean receiver rate per direction, with
// its repeats' standard deviation.
func netMeanCharts(runs []run) []*Chart {
	g := newGroups(len(runs))
	for ri, r := range runs {
		for _, dir := range netDirections(r.doc.Net) {
			if s, ok := r.spread[dir]; ok {
				e := newEntry(mbit(s.Mean), figure(mbit(s.Mean), "Mbit/s")+repeatNote(result.Spread{N: s.N, Stddev: mbit(s.Stddev)}, "Mbit/s"))
				if s.N > 1 {
					e.lo, e.hi, e.kind = mbit(s.Mean-s.Stddev), mbit(s.Mean+s.Stddev), "stddev"
				}
				g.put(dir, ri, e)
			}
		}
	}
	return nonNil(g.chart("net-mean", "Network, received Mbit/s, mean of each column's runs", "Mbit/s", runNames(runs)))
}

// httpMeanCharts: each column's mean download rate, with its repeats'
// standard deviation.
func httpMeanCharts(runs []run) []*Chart {
	g := newGroups(len(runs))
	for ri, r := range runs {
		if s, ok := r.spread["MiB/s"]; ok {
			e := newEntry(s.Mean, figure(s.Mean, "MiB/s")+repeatNote(s, "MiB/s"))
			if s.N > 1 {
				e.lo, e.hi, e.kind = s.Mean-s.Stddev, s.Mean+s.Stddev, "stddev"
			}
			g.put("download", ri, e)
		}
	}
	return nonNil(g.chart("http-mean", "HTTP download, MiB/s, mean of each column's runs", "MiB/s", runNames(runs)))
}

func runNames(runs []run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.name
	}
	return out
}
