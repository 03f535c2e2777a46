package chart

import (
	"fmt"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

func init() {
	drawers[result.MethodHTTP] = &drawer{charts: httpCharts, meanCharts: httpMeanCharts, collect: httpCollect, subject: httpSubject, native: MiBps}
}

// httpSubject is the download's address without its scheme: an SVG names
// no URL, which a reader could take for a load.
func httpSubject(d *result.Document) string {
	u := d.HTTP.Parameters.URL
	if _, rest, ok := strings.Cut(u, "://"); ok {
		u = rest
	}
	return "download of " + u
}

// httpCharts: the rate in u per window, a line per download of every
// run.
func httpCharts(runs []run, u Unit) []*Chart {
	// A transfer shorter than three windows leaves a time axis with a
	// dot or two on it: then each repeat's rate and its time to first
	// byte carry the information.
	short := true
	for _, r := range runs {
		for _, h := range r.doc.HTTP.Runs {
			if len(h.Windows) > 2 {
				short = false
			}
		}
	}
	if short {
		return httpRepeatCharts(runs, u)
	}
	var ss []*series
	var evs events
	for _, r := range runs {
		prefix := ""
		if len(runs) > 1 {
			prefix = r.name + ": "
		}
		// Each download's windows count from its own first byte: the
		// run's clock lines up with them only when there is one.
		if len(r.doc.HTTP.Runs) == 1 {
			evs = append(evs, healthEvents(r.doc, prefix)...)
		}
		for i, h := range r.doc.HTTP.Runs {
			name := fmt.Sprintf("run %d", i+1)
			switch {
			case len(runs) > 1 && len(r.doc.HTTP.Runs) == 1:
				name = r.name
			case len(runs) > 1:
				name = r.name + " " + name
			}
			s := newSeries(name, len(ss), vg.Points(1.5))
			for _, w := range h.Windows {
				v := u.mib(w.MiBPerSec)
				s.Points = append(s.Points, point{X: float64(w.EndNs) / 1e9, Y: v,
					Label: fmt.Sprintf("%s, %s to %s s: %s %s", name,
						strconv.FormatFloat(float64(w.StartNs)/1e9, 'f', -1, 64), strconv.FormatFloat(float64(w.EndNs)/1e9, 'f', -1, 64),
						strconv.FormatFloat(v, 'f', 2, 64), u.Name)})
			}
			if iv := h.Interval; iv != nil && len(s.Points) > 0 {
				v := u.mib(h.MiBPerSec)
				if e := iv.PlusMinus(v); e > 0 {
					s.Figure = &point{X: s.Points[len(s.Points)-1].X, Y: v, Err: e,
						Label: fmt.Sprintf("%s, the download: %s ±%s %s (95 %% interval)", name, f1(v), f1(e), u.Name)}
				}
				// The meter and the windows both count from the first byte.
				if c := iv.Cliff; c != nil {
					s.CliffAt = &point{X: float64(c.AtNs) / 1e9,
						Label: fmt.Sprintf("%s: %s for the first %s, then %s", name, figure(u.of(c.Before), u.Name), units.IEC(c.AtBytes), figure(u.of(c.After), u.Name))}
				}
			}
			if len(s.Points) > 0 {
				ss = append(ss, s)
			}
		}
	}
	if len(ss) == 0 {
		return nil
	}
	c := timeChart("http", "HTTP download, "+u.Name+" per window", u.Name, ss)
	addEvents(c, evs)
	return []*Chart{c}
}

// httpRepeatCharts draws each repeat's average rate and time to first
// byte as bars, a bar per run.
func httpRepeatCharts(runs []run, u Unit) []*Chart {
	mib, ttfb := newGroups(len(runs)), newGroups(len(runs))
	for ri, r := range runs {
		for i, h := range r.doc.HTTP.Runs {
			key := "repeat " + strconv.Itoa(i+1)
			if h.Bytes > 0 {
				v := u.mib(h.MiBPerSec)
				mib.put(key, ri, intervalEntry(v, h.MiBPerSec*(1<<20), h.Interval, u.Name, figure(v, u.Name)))
			}
			if h.TTFBNs > 0 {
				ms := float64(h.TTFBNs) / 1e6
				ttfb.set(key, ri, ms, strconv.FormatFloat(ms, 'f', 2, 64)+" ms")
			}
		}
	}
	names := make([]string, len(runs))
	for i, r := range runs {
		names[i] = r.name
	}
	return nonNil(
		mib.chart("http-mibps", "HTTP download, "+u.Name+" of each repeat", u.Name, names),
		ttfb.chart("http-ttfb", "HTTP download, time to first byte of each repeat", "ms", names))
}

func httpCollect(c *collector, d *result.Document) {
	for _, h := range d.HTTP.Runs {
		if h.Bytes > 0 {
			c.add("MiB/s", h.MiBPerSec)
		}
	}
}

// httpMeanCharts: each column's mean download rate, with its repeats'
// standard deviation.
func httpMeanCharts(runs []run, u Unit) []*Chart {
	g := newGroups(len(runs))
	for ri, r := range runs {
		if s, ok := r.spread["MiB/s"]; ok {
			s.Mean, s.Stddev = u.mib(s.Mean), u.mib(s.Stddev)
			e := newEntry(s.Mean, figure(s.Mean, u.Name)+repeatNote(s, u.Name))
			if s.N > 1 {
				e.lo, e.hi, e.kind = s.Mean-s.Stddev, s.Mean+s.Stddev, "stddev"
			}
			g.put("download", ri, e)
		}
	}
	return nonNil(g.chart("http-mean", "HTTP download, "+u.Name+", mean of each column's runs", u.Name, runNames(runs)))
}
