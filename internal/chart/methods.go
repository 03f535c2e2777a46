package chart

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/thruput/thruput/internal/result"
	"github.com/thruput/thruput/internal/units"
)

// For returns the charts of one or more documents of the same method, one
// series per document and target; names label the documents' series (a
// run id, or the name of a comparison's column) and default to the run
// ids when nil. A document without figures (a run that failed before
// measuring) is left out; documents of different methods are an error.
//
//   - disk sweep: MiB/s against block size on a log2 axis, a chart for
//     writes and one for reads;
//   - disk mark, io and random: grouped bars per preset or direction, a
//     chart for MiB/s and one for IOPS;
//   - net: Mbit/s per interval for each stream and direction and their
//     sum, a chart per document, and with several documents one more
//     with every document's sums;
//   - net http: MiB/s per window, a line per download.
//
// units is the page's --units (UnitOf): every rate axis and tooltip is
// in the unit it names.
func For(docs []*result.Document, names []string, units string) ([]*Chart, error) {
	if names == nil {
		for _, d := range docs {
			names = append(names, d.ID)
		}
	}
	if len(names) != len(docs) {
		return nil, fmt.Errorf("chart: %d names for %d documents", len(names), len(docs))
	}
	var runs []run
	var dr *drawer
	for i, d := range docs {
		if drawerOf(d) == nil {
			continue
		}
		if err := sameDrawer(&dr, docs[0], d); err != nil {
			return nil, err
		}
		runs = append(runs, run{doc: d, name: names[i]})
	}
	return chartsOf(dr, runs, units), nil
}

// A drawer draws one method's runs. drawers holds one per method, each
// registered in the method's own file, and looked up by the method whose
// section a document holds (result.Document.SectionMethod); runs are
// drawn together when they share a drawer.
type drawer struct {
	// charts draws runs; meanCharts draws them when some stands for a
	// column of several (ForColumns), nil to draw those as charts does.
	// Charts over time have no mean to draw: network and HTTP columns
	// are drawn as bars of their mean rates. Both draw rates in u.
	charts, meanCharts func(runs []run, u Unit) []*Chart
	// native is the unit the method's rates are drawn in unless the page
	// names another.
	native Unit
	// collect adds a run's figures to the collector of its column, by
	// key (meanRun).
	collect func(c *collector, d *result.Document)
	// mean sets the figures of d, a copy of the column's first run, to
	// the column's means, which mean sets by key (false when no run had
	// the key); nil where the
	// charts of a column draw its spreads alone.
	mean func(d *result.Document, docs []*result.Document, mean func(key string, v *float64) bool)
	// subject names what a run measured beyond its targets (the server of
	// a network test), "" for nothing; nil for methods that measure
	// targets alone.
	subject func(d *result.Document) string
}

var drawers = map[result.Method]*drawer{}

// drawerOf is the drawer of d's method, nil when d has no figures to draw.
func drawerOf(d *result.Document) *drawer { return drawers[d.SectionMethod()] }

// sameDrawer sets *dr to d's drawer, or says d cannot be drawn with the
// runs before it, drawn by *dr (first is the first of them).
func sameDrawer(dr **drawer, first, d *result.Document) error {
	x := drawerOf(d)
	if *dr != nil && x != *dr {
		return fmt.Errorf("chart: cannot draw %s and %s runs together", first.Method, d.Method)
	}
	*dr = x
	return nil
}

// chartsOf makes the charts of runs drawn by dr in the unit units names,
// each titled with what they measured, and names unique.
func chartsOf(dr *drawer, runs []run, units string) []*Chart {
	if dr == nil {
		return nil
	}
	draw := dr.charts
	if dr.meanCharts != nil && slices.ContainsFunc(runs, func(r run) bool { return r.n > 1 }) {
		draw = dr.meanCharts
	}
	charts := titled(draw(runs, UnitOf(units, dr.native)), runs)
	seen := map[string]int{}
	for _, c := range charts {
		if seen[c.Name]++; seen[c.Name] > 1 {
			c.Name += "-" + strconv.Itoa(seen[c.Name])
		}
	}
	return charts
}

// run is a document and the name its series go by; for a column of
// repeats (ForColumns) the document holds their means, spread their
// spreads by figure and n how many runs there were.
type run struct {
	doc    *result.Document
	name   string
	spread map[string]result.Spread
	n      int
}

// seriesName is a target's filesystem when one run is drawn, the run's
// name when several are, and both when a run has several targets.
func seriesName(runs []run, r run, target string) string {
	switch {
	case len(runs) == 1:
		return target
	case len(r.doc.Targets) <= 1 || target == "":
		return r.name
	}
	return r.name + " " + target
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// category is one group of bars, and for each run the figure and what its
// tooltip says.
type category struct {
	label   string
	entries []entry
}

// entry is one run's bar in a category.
type entry struct {
	value float64
	// lo and hi are the value's spread, NaN where it has none; kind says
	// whether they are a 95 % interval ("interval") or repeats' range.
	lo, hi float64
	kind   string
	// cliff is the rate before a drop, NaN when there was none.
	cliff     float64
	note      string
	cliffNote string
}

// newEntry is a bar of v with no spread and no cliff.
func newEntry(v float64, note string) entry {
	return entry{value: v, lo: math.NaN(), hi: math.NaN(), cliff: math.NaN(), note: note}
}

// intervalEntry gives an entry of v its interval and its cliff, from the
// interval of the figure bps (bytes per second) that v is in the bar's
// unit; what names the figure in the tooltip.
func intervalEntry(v, bps float64, iv *result.Interval, unit, note string) entry {
	e := newEntry(v, note)
	if h := iv.PlusMinus(v); h > 0 {
		e.lo, e.hi, e.kind = v-h, v+h, "interval"
		e.note += ", ±" + figure(h, unit) + " (95 % interval)"
	}
	if iv != nil && iv.Cliff != nil && bps > 0 {
		c := iv.Cliff
		e.cliff = v * c.Before / bps
		e.cliffNote = fmt.Sprintf("%s for the first %s, then %s", figure(e.cliff, unit), units.IEC(c.AtBytes), figure(v*c.After/bps, unit))
		e.note += "; " + e.cliffNote
	}
	return e
}

// groups collects categories in the order they first appear.
type groups struct {
	runs  int
	order []string
	by    map[string]*category
}

func newGroups(runs int) *groups { return &groups{runs: runs, by: map[string]*category{}} }

func (g *groups) set(key string, run int, v float64, note string) {
	g.put(key, run, newEntry(v, note))
}

// setSpread is set with the value's spread over repeats, drawn as an
// error bar.
func (g *groups) setSpread(key string, run int, v, lo, hi float64, note string) {
	e := newEntry(v, note)
	e.lo, e.hi, e.kind = lo, hi, "range"
	g.put(key, run, e)
}

func (g *groups) put(key string, run int, e entry) {
	c := g.by[key]
	if c == nil {
		c = &category{label: key, entries: make([]entry, g.runs)}
		for i := range c.entries {
			c.entries[i] = newEntry(math.NaN(), "")
		}
		g.by[key] = c
		g.order = append(g.order, key)
	}
	c.entries[run] = e
}

// chart draws the groups as bars, one series per name (a run, or a run's
// phase).
func (g *groups) chart(name, title, unit string, seriesNames []string) *Chart {
	if len(g.order) == 0 {
		return nil
	}
	items := make([]*bars, len(seriesNames))
	for ri := range seriesNames {
		b := &bars{Name: seriesNames[ri]}
		for _, key := range g.order {
			e := g.by[key].entries[ri]
			what := fmt.Sprintf("%s, %s: ", b.Name, strings.ReplaceAll(key, "\n", " "))
			b.Values = append(b.Values, e.value)
			b.Lo, b.Hi, b.Kinds = append(b.Lo, e.lo), append(b.Hi, e.hi), append(b.Kinds, e.kind)
			b.Cliffs, b.CliffLabels = append(b.Cliffs, e.cliff), append(b.CliffLabels, what+e.cliffNote)
			b.Labels = append(b.Labels, what+e.note)
		}
		items[ri] = b
	}
	return barChart(name, title, unit, g.order, items)
}

// barNames names each run's bars: its target's filesystem when it is the
// only run, else its name.
func barNames(runs []run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		target := ""
		if len(r.doc.Targets) > 0 {
			target = result.TargetLabels(r.doc.Targets)[0]
		}
		out[i] = seriesName(runs, r, target)
		if out[i] == "" {
			out[i] = r.name
		}
	}
	return out
}

// figure formats a bar's value for its tooltip: to a tenth, or a
// hundredth below one, so a narrow interval's width does not print as 0.
func figure(v float64, unit string) string {
	switch {
	case unit == "IOPS":
		return strconv.FormatFloat(v, 'f', 0, 64) + " IOPS"
	case v < 1:
		return strconv.FormatFloat(v, 'f', 2, 64) + " " + unit
	}
	return f1(v) + " " + unit
}

func nonNil(cs ...*Chart) []*Chart {
	return slices.DeleteFunc(cs, func(c *Chart) bool { return c == nil })
}

// timeChart draws series over seconds since the start, from zero on both
// axes, and more over them (a round trip on an axis of its own).
func timeChart(name, title, unit string, ss []*series, more ...marked) *Chart {
	p := newPlot(title, "seconds", unit)
	ms := make([]marked, len(ss), len(ss)+len(more))
	for i, s := range ss {
		ms[i] = s
	}
	ms = append(ms, more...)
	c := build(name, title, p, &plotter.Grid{Vertical: gridLine, Horizontal: gridLine}, ms...)
	// Headroom keeps the top markers off the frame.
	p.X.Min, p.Y.Min, p.Y.Max = 0, 0, p.Y.Max*1.08
	return c
}
