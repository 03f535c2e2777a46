package chart

import (
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

func init() {
	dr := &drawer{charts: netCharts, meanCharts: netMeanCharts, collect: netCollect, subject: netSubject, native: Mbitps}
	drawers[result.MethodNetClient], drawers[result.MethodNetServer] = dr, dr
}

// netSubject is the protocol and the server, when the run names one.
func netSubject(d *result.Document) string {
	p := d.Net.Parameters
	if p.Server == "" {
		return ""
	}
	return fmt.Sprintf("%s to %s", strings.ToUpper(orTCP(p.Protocol)), p.Server)
}

// intervalLabel names an interval by its span in seconds.
func intervalLabel(iv result.NetInterval) string {
	s := fmt.Sprintf("%s to %s s", strconv.FormatFloat(float64(iv.StartNs)/1e9, 'f', -1, 64), strconv.FormatFloat(float64(iv.EndNs)/1e9, 'f', -1, 64))
	if iv.Omitted {
		s += ", omitted"
	}
	return s
}

// netCharts: a chart per run with every stream and the sums, the run's
// loaded round trip on an axis of its own and its health events, its CPUs' busy shares, and with several runs a
// chart of their sums together; rates are in u.
func netCharts(runs []run, u Unit) []*Chart {
	var out []*Chart
	if len(runs) > 1 {
		var ss []*series
		for _, r := range runs {
			for _, dir := range netDirections(r.doc.Net) {
				s := newSeries(r.name+" "+dir, len(ss), vg.Points(1.5))
				for _, iv := range r.doc.Net.Intervals {
					for _, f := range sums(iv) {
						if f.Direction == dir {
							s.addFlow(iv, f, u)
						}
					}
				}
				s.netFigure(r.doc.Net, dir, u)
				if len(s.Points) > 0 {
					ss = append(ss, s)
				}
			}
		}
		if len(ss) > 0 {
			out = append(out, timeChart("net", "Network, "+u.Name+" per interval, each run's sum", u.Name, ss))
		}
	}
	for _, r := range runs {
		n := r.doc.Net
		var ss []*series
		for _, dir := range netDirections(n) {
			// Streams are drawn when there are more than directions: with
			// one stream a direction, its line is the sum's.
			var ids []int64
			for _, iv := range n.Intervals {
				if len(iv.Streams) <= len(iv.Sums) {
					continue
				}
				for _, f := range iv.Streams {
					if f.Direction == dir && !slices.Contains(ids, f.ID) {
						ids = append(ids, f.ID)
					}
				}
			}
			hue, ok := dirColors[dir]
			for i, id := range ids {
				s := newSeries(fmt.Sprintf("%s stream %d", dir, id), len(ss), vg.Points(1))
				// Each stream a colour of its own, none a sum's, so that
				// one slow stream stands out; the legend names them.
				s.paint(palette[2+len(ss)%4], shapes[i%len(shapes)])
				for _, iv := range n.Intervals {
					for _, f := range iv.Streams {
						if f.Direction == dir && f.ID == id {
							s.addFlow(iv, f, u)
						}
					}
				}
				ss = append(ss, s)
			}
			name := dir
			if len(ids) > 0 {
				name += ", sum"
			}
			s := newSeries(name, len(ss), vg.Points(2.5))
			if ok {
				s.paint(hue[0], draw.BoxGlyph{})
			}
			for _, iv := range n.Intervals {
				for _, f := range sums(iv) {
					if f.Direction == dir {
						s.addFlow(iv, f, u)
					}
				}
			}
			s.netFigure(n, dir, u)
			if len(s.Points) > 0 {
				ss = append(ss, s)
			}
		}
		if len(ss) == 0 {
			continue
		}
		name, title := "net", "Network, "+u.Name+" per interval"
		if len(runs) > 1 {
			name, title = "net-"+slug(r.name), title+", "+r.name
		}
		var more []marked
		if o := latencyOverlay(r.doc); o != nil {
			more = append(more, o)
		}
		c := timeChart(name, title, u.Name, ss, more...)
		addEvents(c, healthEvents(r.doc, ""))
		out = append(out, nonNil(c, cpuChart(r.doc, strings.Replace(name, "net", "net-cpu", 1)))...)
	}
	return out
}

// dirColors are each direction's sum colour (the first; the second is
// kept for its lighter variants), so a bidirectional test's two sums read
// apart from each other and from the streams.
var dirColors = map[string][2]color.NRGBA{
	result.DirUp:   {palette[0], palette[5]}, // blue, sky blue
	result.DirDown: {palette[1], palette[3]}, // vermillion, orange
}

func (s *series) addFlow(iv result.NetInterval, f result.NetIntervalFlow, u Unit) {
	v := u.of(f.BitsPerSecond / 8)
	s.Points = append(s.Points, point{X: float64(iv.EndNs) / 1e9, Y: v,
		Label: fmt.Sprintf("%s, %s: %s %s", s.Name, intervalLabel(iv), strconv.FormatFloat(v, 'f', 2, 64), u.Name)})
}

// netFigure gives a direction's sum line the cliff the test's interval
// found, at the time it came: the meter starts after the omitted start,
// the intervals at the start of data.
func (s *series) netFigure(n *result.Net, dir string, u Unit) {
	if len(s.Points) == 0 {
		return
	}
	for _, sum := range n.Sums {
		iv := sum.Interval
		if sum.Direction != dir || iv == nil {
			continue
		}
		// The test's own figure and its ± are the table's: drawn on the
		// last interval's point they read as that interval's spread.
		if c := iv.Cliff; c != nil {
			s.CliffAt = &point{X: float64(n.Parameters.OmitNs+c.AtNs) / 1e9,
				Label: fmt.Sprintf("%s: %s for the first %s, then %s", s.Name, figure(u.of(c.Before), u.Name), units.IEC(c.AtBytes), figure(u.of(c.After), u.Name))}
		}
	}
}

// sums are an interval's per-direction sums; a side that reported none
// has its streams instead, each a direction of its own.
func sums(iv result.NetInterval) []result.NetIntervalFlow {
	if len(iv.Sums) > 0 {
		return iv.Sums
	}
	return iv.Streams
}

// netDirections lists the directions in the order the intervals name them.
func netDirections(n *result.Net) []string {
	var dirs []string
	for _, iv := range n.Intervals {
		for _, f := range append(slices.Clone(iv.Sums), iv.Streams...) {
			if !slices.Contains(dirs, f.Direction) {
				dirs = append(dirs, f.Direction)
			}
		}
	}
	return dirs
}

func netCollect(c *collector, d *result.Document) {
	for _, s := range d.Net.Sums {
		c.add(s.Direction, s.Receiver.BitsPerSecond)
	}
}

// netMeanCharts: each column's mean receiver rate per direction, with
// its repeats' standard deviation.
func netMeanCharts(runs []run, u Unit) []*Chart {
	rate := func(bitsPerSecond float64) float64 { return u.of(bitsPerSecond / 8) }
	g := newGroups(len(runs))
	for ri, r := range runs {
		for _, dir := range netDirections(r.doc.Net) {
			if s, ok := r.spread[dir]; ok {
				e := newEntry(rate(s.Mean), figure(rate(s.Mean), u.Name)+repeatNote(result.Spread{N: s.N, Stddev: rate(s.Stddev)}, u.Name))
				if s.N > 1 {
					e.lo, e.hi, e.kind = rate(s.Mean-s.Stddev), rate(s.Mean+s.Stddev), "stddev"
				}
				g.put(dir, ri, e)
			}
		}
	}
	return nonNil(g.chart("net-mean", "Network, received "+u.Name+", mean of each column's runs", u.Name, runNames(runs)))
}

func orTCP(p string) string {
	if p == "" {
		return "tcp"
	}
	return p
}
