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
	drawers[result.MethodHTTP] = &drawer{charts: httpCharts, meanCharts: httpMeanCharts, collect: httpCollect, subject: httpSubject}
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

// httpCharts: MiB/s per window, a line per download of every run.
func httpCharts(runs []run) []*Chart {
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
		return httpRepeatCharts(runs)
	}
	var ss []*series
	for _, r := range runs {
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
				s.Points = append(s.Points, point{X: float64(w.EndNs) / 1e9, Y: w.MiBPerSec,
					Label: fmt.Sprintf("%s, %s to %s s: %s MiB/s (%s Mbit/s)", name,
						strconv.FormatFloat(float64(w.StartNs)/1e9, 'f', -1, 64), strconv.FormatFloat(float64(w.EndNs)/1e9, 'f', -1, 64),
						strconv.FormatFloat(w.MiBPerSec, 'f', 2, 64), strconv.FormatFloat(w.MiBPerSec*(1<<20)*8/1e6, 'f', 1, 64))})
			}
			if iv := h.Interval; iv != nil && len(s.Points) > 0 {
				if e := iv.PlusMinus(h.MiBPerSec); e > 0 {
					s.Figure = &point{X: s.Points[len(s.Points)-1].X, Y: h.MiBPerSec, Err: e,
						Label: fmt.Sprintf("%s, the download: %s ±%s MiB/s (95 %% interval)", name, f1(h.MiBPerSec), f1(e))}
				}
				// The meter and the windows both count from the first byte.
				if c := iv.Cliff; c != nil {
					s.CliffAt = &point{X: float64(c.AtNs) / 1e9,
						Label: fmt.Sprintf("%s: %s MiB/s for the first %s, then %s MiB/s", name, f1(c.Before/(1<<20)), units.IEC(c.AtBytes), f1(c.After/(1<<20)))}
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
	return []*Chart{timeChart("http", "HTTP download, MiB/s per window", "MiB/s", ss)}
}

// httpRepeatCharts draws each repeat's average rate and time to first
// byte as bars, a bar per run.
func httpRepeatCharts(runs []run) []*Chart {
	mib, ttfb := newGroups(len(runs)), newGroups(len(runs))
	for ri, r := range runs {
		for i, h := range r.doc.HTTP.Runs {
			key := "repeat " + strconv.Itoa(i+1)
			if h.Bytes > 0 {
				mib.put(key, ri, steady(h.MiBPerSec, h.MiBPerSec*(1<<20), h.Interval, "MiB/s", figure(h.MiBPerSec, "MiB/s")))
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
		mib.chart("http-mibps", "HTTP download, MiB/s of each repeat", "MiB/s", names),
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
