package chart

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

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
func For(docs []*result.Document, names []string) ([]*Chart, error) {
	if names == nil {
		for _, d := range docs {
			names = append(names, d.ID)
		}
	}
	if len(names) != len(docs) {
		return nil, fmt.Errorf("chart: %d names for %d documents", len(names), len(docs))
	}
	var runs []run
	k := ""
	for i, d := range docs {
		if Kind(d) == "" {
			continue
		}
		if err := sameKind(&k, docs[0], d); err != nil {
			return nil, err
		}
		runs = append(runs, run{doc: d, name: names[i]})
	}
	return chartsOf(k, runs), nil
}

// sameKind sets *k to d's kind, or says d cannot be drawn with the runs
// before it, of kind *k (first is the first of them).
func sameKind(k *string, first, d *result.Document) error {
	dk := Kind(d)
	if *k != "" && dk != *k {
		return fmt.Errorf("chart: cannot draw %s and %s runs together", first.Method, d.Method)
	}
	*k = dk
	return nil
}

// chartsOf makes the charts of runs of kind k, each titled with what they
// measured, and names unique. Network and HTTP runs standing for columns
// of repeats are drawn as bars of their mean rates: their charts over
// time have no mean to draw.
func chartsOf(k string, runs []run) []*Chart {
	repeats := slices.ContainsFunc(runs, func(r run) bool { return r.n > 1 })
	var charts []*Chart
	switch {
	case k == "sweep":
		charts = sweepCharts(runs)
	case k == "mark":
		charts = markCharts(runs)
	case k == "io":
		charts = ioCharts(runs)
	case k == "random":
		charts = randomCharts(runs)
	case k == "net" && repeats:
		charts = netMeanCharts(runs)
	case k == "net":
		charts = netCharts(runs)
	case k == "http" && repeats:
		charts = httpMeanCharts(runs)
	case k == "http":
		charts = httpCharts(runs)
	}
	charts = titled(charts, runs)
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

// Kind names the section a document has figures in, which decides its
// charts: "sweep", "mark", "io", "random", "net" or "http"; "" when it has
// none. Documents For draws together must share it.
func Kind(d *result.Document) string {
	switch {
	case d.Sweep != nil:
		return "sweep"
	case d.Mark != nil:
		return "mark"
	case d.IO != nil:
		return "io"
	case d.Random != nil:
		return "random"
	case d.Net != nil:
		return "net"
	case d.HTTP != nil:
		return "http"
	}
	return ""
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

// sweepCharts: MiB/s against block size, a line per run and target.
func sweepCharts(runs []run) []*Chart {
	var out []*Chart
	for _, phase := range []string{result.PhaseWrite, result.PhaseRead} {
		var ss []*series
		for _, r := range runs {
			p := r.doc.Sweep.Parameters
			if (phase == result.PhaseWrite && !p.Write) || (phase == result.PhaseRead && !p.Read) {
				continue
			}
			labels := result.TargetLabels(r.doc.Targets)
			for ti := range r.doc.Targets {
				var steps []result.SweepStep
				for _, s := range r.doc.Sweep.Steps {
					if s.Target == ti && s.Phase == phase && s.BlockSize > 0 {
						steps = append(steps, s)
					}
				}
				if len(steps) == 0 {
					continue
				}
				slices.SortStableFunc(steps, func(a, b result.SweepStep) int { return int(a.BlockSize - b.BlockSize) })
				s := newSeries(seriesName(runs, r, labels[ti]), len(ss), vg.Points(1.5))
				for _, st := range steps {
					err := st.Interval.PlusMinus(st.MiBPerSec)
					pm := ""
					if err > 0 {
						pm = " ±" + f1(err)
					}
					pt := point{X: float64(st.BlockSize), Y: st.MiBPerSec, Err: err,
						Label: fmt.Sprintf("%s, %s %s: %s%s MiB/s%s", s.Name, phase, units.SizeLabel(st.BlockSize), f1(st.MiBPerSec), pm, stepNote(st))}
					if sp, ok := r.spread[sweepKey(st)]; ok && sp.N > 1 {
						pt.Err, pt.Kind = sp.Stddev, "stddev"
						pt.Label = fmt.Sprintf("%s, %s %s: %s MiB/s%s", s.Name, phase, units.SizeLabel(st.BlockSize), f1(sp.Mean), repeatNote(sp, "MiB/s"))
					}
					if iv := st.Interval; iv != nil && iv.Cliff != nil {
						pt.Cliff = iv.Cliff.Before / (1 << 20)
						pt.CliffLabel = fmt.Sprintf("%s, %s %s: %s MiB/s before the drop", s.Name, phase, units.SizeLabel(st.BlockSize), f1(pt.Cliff))
					}
					s.Points = append(s.Points, pt)
				}
				ss = append(ss, s)
			}
		}
		if len(ss) == 0 {
			continue
		}
		title := "Write, MiB/s by block size (fsync included)"
		if phase == result.PhaseRead {
			title = "Read, MiB/s by block size (page cache evicted)"
		}
		out = append(out, lineChart("sweep-"+phase, title, ss))
	}
	return out
}

// stepNote says what makes a step's figure something other than a plain
// device figure, as the table's markers do.
func stepNote(s result.SweepStep) string {
	var n []string
	switch s.Cache {
	case result.CacheCached:
		n = append(n, "read from the page cache")
	case result.CachePartial:
		n = append(n, "partly cached")
	case result.CacheUncertain:
		n = append(n, "image below may be cached")
	}
	if s.Truncated {
		n = append(n, "stopped at max time")
	}
	if iv := s.Interval; iv != nil && iv.Cliff != nil {
		c := iv.Cliff
		n = append(n, fmt.Sprintf("%s MiB/s for the first %s, then %s MiB/s", f1(c.Before/(1<<20)), units.IEC(c.AtBytes), f1(c.After/(1<<20))))
	}
	if iv := s.Interval; iv != nil && iv.Target > 0 && !iv.Converged {
		n = append(n, "not stable")
	}
	if len(n) == 0 {
		return ""
	}
	return " (" + strings.Join(n, ", ") + ")"
}

// lineChart draws sweep series over a log2 block-size axis, and the MiB/s
// axis in decades when the figures span more than two of them: a sweep
// from 8 B to 1 MiB often does, and on a linear axis the small blocks
// would lie flat on zero.
func lineChart(name, title string, ss []*series) *Chart {
	lo, hi := math.Inf(1), 0.0
	bmin, bmax := int64(math.MaxInt64), int64(0)
	for _, s := range ss {
		for _, p := range s.Points {
			if p.Y > 0 {
				lo = math.Min(lo, p.Y)
			}
			hi = math.Max(hi, p.Y)
			bmin, bmax = min(bmin, int64(p.X)), max(bmax, int64(p.X))
		}
	}
	logY := hi > 0 && hi/lo > 100
	yLabel := "MiB/s"
	if logY {
		yLabel = "MiB/s (log scale)"
		var kept []*series
		for _, s := range ss {
			// A log axis has no zero; a step that moved nothing is in the
			// table.
			s.Points = slices.DeleteFunc(s.Points, func(p point) bool { return p.Y <= 0 })
			if len(s.Points) > 0 {
				kept = append(kept, s)
			}
		}
		ss = kept
	}
	p := newPlot(title, "block size", yLabel)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = log2Ticks(bmin, bmax)
	if bmin == bmax {
		// One block size: gonum would widen the axis by ±1, to zero for
		// 1 byte, which a log axis cannot show.
		p.X.Min, p.X.Max = float64(bmin)/2, float64(bmax)*2
	}
	if len(p.X.Tick.Marker.Ticks(0, 0)) > 9 {
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign = -1
		p.X.Tick.Label.YAlign = -0.5
	}
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.TickerFunc(decadeTicks)
	}
	ms := make([]marked, len(ss))
	for i, s := range ss {
		ms[i] = s
	}
	c := build(name, title, p, &plotter.Grid{Vertical: gridLine, Horizontal: gridLine}, ms...)
	if logY {
		// Whole decades, so the axis ends on labelled ticks.
		p.Y.Min = math.Pow(10, math.Floor(math.Log10(lo)))
		p.Y.Max = math.Pow(10, math.Ceil(math.Log10(hi)))
	} else {
		p.Y.Min, p.Y.Max = 0, p.Y.Max*1.08
	}
	return c
}

// log2Ticks marks every power of two from the smallest block size to the
// largest, labelled as the tables print sizes.
func log2Ticks(lo, hi int64) plot.ConstantTicks {
	if lo <= 0 || hi < lo {
		return nil
	}
	var ticks plot.ConstantTicks
	for v := int64(1) << int(math.Floor(math.Log2(float64(lo)))); v > 0 && v <= hi; v *= 2 {
		ticks = append(ticks, plot.Tick{Value: float64(v), Label: units.SizeLabel(v)})
	}
	return ticks
}

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

// steady gives an entry of v its interval and its cliff, from the
// interval of the figure bps (bytes per second) that v is in the bar's
// unit; what names the figure in the tooltip.
func steady(v, bps float64, iv *result.Interval, unit, note string) entry {
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

// markCharts: the presets' MiB/s and IOPS, a bar per run and phase, so
// that read and write are told apart by colour, as in every other chart.
func markCharts(runs []run) []*Chart {
	phases := []string{result.PhaseRead, result.PhaseWrite}
	mib, iops := newGroups(len(runs)*len(phases)), newGroups(len(runs)*len(phases))
	for ri, r := range runs {
		for _, m := range r.doc.Mark.Results {
			pi := slices.Index(phases, m.Phase)
			if pi < 0 {
				continue
			}
			// A line a word: eight groups of two-word labels overlap.
			key := strings.ReplaceAll(m.Preset, " ", "\n")
			bps := m.MiBPerSec * (1 << 20)
			slot := ri*len(phases) + pi
			mib.put(key, slot, r.meanEntry(markKey(m, "MiB/s"), "MiB/s", steady(m.MiBPerSec, bps, m.Interval, "MiB/s", fmt.Sprintf("%s %s MiB/s (%s MB/s)", m.Phase, f1(m.MiBPerSec), f1(m.MBPerSec)))))
			iops.put(key, slot, r.meanEntry(markKey(m, "IOPS"), "IOPS", steady(m.IOPS, bps, m.Interval, "IOPS", m.Phase+" "+figure(m.IOPS, "IOPS"))))
		}
	}
	var names []string
	for _, n := range barNames(runs) {
		for _, ph := range phases {
			if len(runs) == 1 {
				names = append(names, ph)
			} else {
				names = append(names, n+" "+ph)
			}
		}
	}
	return nonNil(
		mib.chart("mark-mibps", "Disk mark presets, MiB/s", "MiB/s", names),
		iops.chart("mark-iops", "Disk mark presets, IOPS", "IOPS", names))
}

func nonNil(cs ...*Chart) []*Chart {
	return slices.DeleteFunc(cs, func(c *Chart) bool { return c == nil })
}

// ioJob describes an I/O job in a few words: "randread 4k QD 64".
func ioJob(p result.IOParameters) string {
	s := fmt.Sprintf("%s %s QD %d", p.RW, units.SizeLabel(p.BlockSize), p.IODepth)
	if p.Jobs > 1 {
		s += fmt.Sprintf(" × %d jobs", p.Jobs)
	}
	return s
}

// ioCharts: each direction's mean over the repeats, a bar per run. Runs
// of different jobs get a group per job and direction.
func ioCharts(runs []run) []*Chart {
	same := true
	for _, r := range runs {
		same = same && ioJob(r.doc.IO.Parameters) == ioJob(runs[0].doc.IO.Parameters)
	}
	mib, iops := newGroups(len(runs)), newGroups(len(runs))
	for ri, r := range runs {
		for _, dir := range []string{result.PhaseRead, result.PhaseWrite} {
			var ds []*result.IODirection
			for _, run := range r.doc.IO.Runs {
				d := run.Read
				if dir == result.PhaseWrite {
					d = run.Write
				}
				if d != nil {
					ds = append(ds, d)
				}
			}
			if len(ds) == 0 {
				continue
			}
			key := dir
			if !same {
				key = ioJob(r.doc.IO.Parameters) + "\n" + dir
			}
			// One run's figures carry the interval of both directions'
			// bytes together (bps).
			var bps float64
			if len(ds) == 1 {
				for _, run := range r.doc.IO.Runs {
					for _, d := range []*result.IODirection{run.Read, run.Write} {
						if d != nil {
							bps += d.MiBPerSec * (1 << 20)
						}
					}
				}
			}
			for _, x := range []struct {
				g    *groups
				unit string
				get  func(*result.IODirection) float64
			}{
				{mib, "MiB/s", func(d *result.IODirection) float64 { return d.MiBPerSec }},
				{iops, "IOPS", func(d *result.IODirection) float64 { return d.IOPS }},
			} {
				mean, lo, hi := 0.0, math.Inf(1), math.Inf(-1)
				for _, d := range ds {
					v := x.get(d)
					mean += v / float64(len(ds))
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
				note := figure(mean, x.unit)
				if len(ds) > 1 {
					note += fmt.Sprintf(" (mean of %d runs, %s to %s)", len(ds), figure(lo, x.unit), figure(hi, x.unit))
					x.g.setSpread(key, ri, mean, lo, hi, note)
					continue
				}
				x.g.put(key, ri, r.meanEntry(dir+"|"+x.unit, x.unit, steady(mean, bps, ds[0].Interval, x.unit, note)))
			}
		}
	}
	title := "Disk I/O"
	if same {
		title += ", " + ioJob(runs[0].doc.IO.Parameters)
	}
	names := barNames(runs)
	return nonNil(
		mib.chart("io-mibps", title+", MiB/s", "MiB/s", names),
		iops.chart("io-iops", title+", IOPS", "IOPS", names))
}

// randomCharts: reads and writes per second and MiB/s, a bar per run.
func randomCharts(runs []run) []*Chart {
	mib, iops := newGroups(len(runs)), newGroups(len(runs))
	for ri, r := range runs {
		x := r.doc.Random
		// The interval is of reads and writes together; each bar takes
		// its relative width, as a mixed disk io job's two figures do.
		bps := (x.ReadMiBPerSec + x.WriteMiBPerSec) * (1 << 20)
		if x.Reads > 0 {
			mib.put("read", ri, r.meanEntry("read|MiB/s", "MiB/s", steady(x.ReadMiBPerSec, bps, x.Interval, "MiB/s", figure(x.ReadMiBPerSec, "MiB/s"))))
			iops.put("read", ri, r.meanEntry("read|IOPS", "IOPS", steady(x.ReadsPerSec, bps, x.Interval, "IOPS", figure(x.ReadsPerSec, "IOPS"))))
		}
		if x.Writes > 0 {
			mib.put("write", ri, r.meanEntry("write|MiB/s", "MiB/s", steady(x.WriteMiBPerSec, bps, x.Interval, "MiB/s", figure(x.WriteMiBPerSec, "MiB/s"))))
			iops.put("write", ri, r.meanEntry("write|IOPS", "IOPS", steady(x.WritesPerSec, bps, x.Interval, "IOPS", figure(x.WritesPerSec, "IOPS"))))
		}
	}
	names := barNames(runs)
	return nonNil(
		mib.chart("random-mibps", "Random file I/O, MiB/s", "MiB/s", names),
		iops.chart("random-iops", "Random file I/O, requests per second", "IOPS", names))
}

// mbit is bits/s in Mbit/s (10^6), the unit links are sold in.
func mbit(bps float64) float64 { return bps / 1e6 }

// intervalLabel names an interval by its span in seconds.
func intervalLabel(iv result.NetInterval) string {
	s := fmt.Sprintf("%s to %s s", strconv.FormatFloat(float64(iv.StartNs)/1e9, 'f', -1, 64), strconv.FormatFloat(float64(iv.EndNs)/1e9, 'f', -1, 64))
	if iv.Omitted {
		s += ", omitted"
	}
	return s
}

// netCharts: a chart per run with every stream and the sums, and with
// several runs a chart of their sums together.
func netCharts(runs []run) []*Chart {
	var out []*Chart
	if len(runs) > 1 {
		var ss []*series
		for _, r := range runs {
			for _, dir := range netDirections(r.doc.Net) {
				s := newSeries(r.name+" "+dir, len(ss), vg.Points(1.5))
				for _, iv := range r.doc.Net.Intervals {
					for _, f := range sums(iv) {
						if f.Direction == dir {
							s.addFlow(iv, f)
						}
					}
				}
				s.netFigure(r.doc.Net, dir)
				if len(s.Points) > 0 {
					ss = append(ss, s)
				}
			}
		}
		if len(ss) > 0 {
			out = append(out, timeChart("net", "Network, Mbit/s per interval, each run's sum", "Mbit/s", ss))
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
							s.addFlow(iv, f)
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
						s.addFlow(iv, f)
					}
				}
			}
			s.netFigure(n, dir)
			if len(s.Points) > 0 {
				ss = append(ss, s)
			}
		}
		if len(ss) == 0 {
			continue
		}
		name, title := "net", "Network, Mbit/s per interval"
		if len(runs) > 1 {
			name, title = "net-"+slug(r.name), title+", "+r.name
		}
		out = append(out, timeChart(name, title, "Mbit/s", ss))
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

func (s *series) addFlow(iv result.NetInterval, f result.NetIntervalFlow) {
	v := mbit(f.BitsPerSecond)
	s.Points = append(s.Points, point{X: float64(iv.EndNs) / 1e9, Y: v,
		Label: fmt.Sprintf("%s, %s: %s Mbit/s", s.Name, intervalLabel(iv), strconv.FormatFloat(v, 'f', 2, 64))})
}

// netFigure gives a direction's sum line the cliff the test's interval
// found, at the time it came: the meter starts after the omitted start,
// the intervals at the start of data.
func (s *series) netFigure(n *result.Net, dir string) {
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
				Label: fmt.Sprintf("%s: %s Mbit/s for the first %s, then %s Mbit/s", s.Name, f1(c.Before*8/1e6), units.IEC(c.AtBytes), f1(c.After*8/1e6))}
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

// timeChart draws series over seconds since the start, from zero on both
// axes.
func timeChart(name, title, unit string, ss []*series) *Chart {
	p := newPlot(title, "seconds", unit)
	ms := make([]marked, len(ss))
	for i, s := range ss {
		ms[i] = s
	}
	c := build(name, title, p, &plotter.Grid{Vertical: gridLine, Horizontal: gridLine}, ms...)
	// Headroom keeps the top markers off the frame.
	p.X.Min, p.Y.Min, p.Y.Max = 0, 0, p.Y.Max*1.08
	return c
}
