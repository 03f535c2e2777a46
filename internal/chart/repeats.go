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
func ForColumns(cols [][]*result.Document, names []string, units string) ([]*Chart, error) {
	if len(names) != len(cols) {
		return nil, fmt.Errorf("chart: %d names for %d columns", len(names), len(cols))
	}
	var runs []run
	var dr *drawer
	for i, c := range cols {
		c = drawable(c)
		for _, d := range c {
			if err := sameDrawer(&dr, c[0], d); err != nil {
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
	return chartsOf(dr, runs, units), nil
}

// drawable are the documents of docs with figures.
func drawable(docs []*result.Document) []*result.Document {
	var out []*result.Document
	for _, d := range docs {
		if drawerOf(d) != nil {
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
	dr := drawerOf(first)
	for _, x := range docs {
		dr.collect(&c, x)
	}
	sp := c.spreads()
	if dr.mean != nil {
		dr.mean(&d, docs, func(key string, v *float64) bool {
			s, ok := sp[key]
			if ok {
				*v = s.Mean
			}
			return ok
		})
	}
	return run{doc: &d, name: name, spread: sp, n: len(docs)}
}

// repeatNote says what a drawn mean is: "mean of 3 runs ± 12.4 (standard
// deviation)".
func repeatNote(s result.Spread, unit string) string {
	return fmt.Sprintf(" (mean of %d runs ± %s, standard deviation)", s.N, figure(s.Stddev, unit))
}

// meanEntry is a bar of a column's mean with its standard deviation, or
// e unchanged when the run is no column of repeats; scale converts the
// key's figures into unit.
func (r run) meanEntry(key, unit string, scale float64, e entry) entry {
	s, ok := r.spread[key]
	if !ok || s.N < 2 {
		return e
	}
	s.Mean, s.Stddev = s.Mean*scale, s.Stddev*scale
	e = newEntry(s.Mean, figure(s.Mean, unit)+repeatNote(s, unit))
	e.lo, e.hi, e.kind = s.Mean-s.Stddev, s.Mean+s.Stddev, "stddev"
	return e
}

func runNames(runs []run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = r.name
	}
	return out
}
