package chart

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/thruput/thruput/internal/result"
)

// Latency draws a network run's latency under load, nil without it:
//
//   - the round trip over time, a point per bin of probes (the median of
//     those answered, 100 ms bins as the section stores them), a series
//     per phase, so the idle phase and the load read apart and a queue
//     filling shows as the line climbing;
//   - the distribution of each phase's round trips as the section knows
//     it, its minimum, p50, p90, p99 and maximum, on a log axis of
//     milliseconds (an idle LAN's 0.05 ms and a full queue's 100 ms on
//     one chart): loaded against idle, the gap between the curves is the
//     latency the load added.
//
// A run's page draws these under its throughput chart, which carries the
// loaded round trip too (rttOverlay).
func Latency(d *result.Document) []*Chart {
	l := d.LoadLatency
	if !l.Measured() {
		return nil
	}
	var out []*Chart
	if c := latencyTime(l); c != nil {
		out = append(out, c)
	}
	if c := latencyCDF(l); c != nil {
		out = append(out, c)
	}
	return out
}

// phases are the section's phases, idle first.
func phases(l *result.LoadLatency) []*result.LatencyPhase {
	var out []*result.LatencyPhase
	if l.Idle != nil {
		out = append(out, l.Idle)
	}
	for i := range l.Loaded {
		out = append(out, &l.Loaded[i])
	}
	return out
}

func latencyTime(l *result.LoadLatency) *Chart {
	var ss []*series
	byPhase := map[string]*series{}
	for _, b := range l.Series {
		if b.RTTNs == nil {
			continue // every probe of the bin lost: the loss is in the table
		}
		s := byPhase[b.Phase]
		if s == nil {
			s = newSeries(b.Phase, len(ss), vg.Points(1.5))
			byPhase[b.Phase] = s
			ss = append(ss, s)
		}
		at := float64(b.AtNs) / 1e9
		s.Points = append(s.Points, point{X: at + float64(l.BinNs)/2e9, Y: float64(*b.RTTNs) / 1e6, Label: binText(b, at, l.BinNs)})
	}
	if len(ss) == 0 {
		return nil
	}
	return timeChart("latency", fmt.Sprintf("Latency under load, median round trip per %s, ms", binLabel(l.BinNs)), "ms", ss)
}

// binText describes a bin of probes sent from at seconds.
func binText(b result.LatencyPoint, at float64, binNs int64) string {
	s := fmt.Sprintf("%s, %s to %s s: median round trip %s ms of %d probe(s)", b.Phase, num(at), num(at+float64(binNs)/1e9), num(float64(*b.RTTNs)/1e6), b.Sent-b.Lost)
	if b.Lost > 0 {
		s += fmt.Sprintf(", %d lost", b.Lost)
	}
	return s
}

// binLabel is a bin's length as people say it: "100 ms".
func binLabel(ns int64) string {
	if ns >= 1e9 {
		return num(float64(ns)/1e9) + " s"
	}
	return num(float64(ns)/1e6) + " ms"
}

func latencyCDF(l *result.LoadLatency) *Chart {
	var ms []marked
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range phases(l) {
		h := p.RTTHistogram
		if !sane(h) {
			continue
		}
		total := 0
		for _, n := range h.Counts {
			total += max(n, 0)
		}
		if total == 0 {
			continue
		}
		s := newSeries(p.Phase, len(ms), vg.Points(1.5))
		// A point at each non-empty bin's upper edge, where the share at
		// or below is exact (the curve between is a straight line on the
		// log axis, within a bin, 5.9 %, of the truth), after one at 0 %
		// where the first bin starts.
		lo = math.Min(lo, h.Edge(0)/1e6)
		s.Points = append(s.Points, point{X: h.Edge(0) / 1e6, Y: 0,
			Label: fmt.Sprintf("%s: none of %d round trips below %s ms", p.Phase, total, num(h.Edge(0)/1e6))})
		cum := 0
		for i, n := range h.Counts {
			if n <= 0 {
				continue
			}
			cum += n
			v := h.Edge(i+1) / 1e6
			hi = math.Max(hi, v)
			share := 100 * float64(cum) / float64(total)
			s.Points = append(s.Points, point{X: v, Y: share,
				Label: fmt.Sprintf("%s: %s %% of %d round trips at or below %s ms", p.Phase, num(share), total, num(v))})
		}
		ms = append(ms, s)
	}
	if len(ms) == 0 {
		return nil
	}
	title := "Round trips idle and under load, share at or below"
	p := newPlot(title, "round trip, ms", "% of probes")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.TickerFunc(decadeTicks)
	c := build("latency-cdf", title, p, &plotter.Grid{Vertical: gridLine, Horizontal: gridLine}, ms...)
	// Whole decades, so the axis ends on labelled ticks.
	p.X.Min, p.X.Max = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
	if p.X.Min == p.X.Max {
		p.X.Max *= 10
	}
	p.Y.Min, p.Y.Max = 0, 105
	return c
}

// sane is whether a histogram read from a document can be drawn: bins
// between a nanosecond and a thousand seconds, at most a thousand a
// decade, so a damaged file cannot ask for a billion points.
func sane(h *result.LatencyHistogram) bool {
	return h != nil && h.PerDecade > 0 && h.PerDecade <= 1000 && h.First >= 0 &&
		len(h.Counts) > 0 && len(h.Counts) <= 12*h.PerDecade && h.Edge(len(h.Counts)) <= 1e12
}

// rttColor is the round trip's on a throughput chart: near black, which
// neither direction's sum nor the streams are.
var rttColor = palette[6]

// idleAlpha tags the stroke of the idle median's line on a throughput
// chart, as eventAlpha tags a health event's.
const idleAlpha = 250

// rttOverlay draws a network run's loaded round trip over time on its
// throughput chart, against an axis of milliseconds of its own on the
// right, so a queue filling reads against the rate that fills it: a
// point per bin of probes, and the idle median as a dashed line across,
// the gap above it being the latency the load added.
type rttOverlay struct {
	// points are at seconds of the test, in milliseconds.
	points []point
	// idle is the idle median, ms, 0 when unknown; top the right axis'
	// top, ms.
	idle, top float64
}

// rttLabel is the right axis' label.
const rttLabel = "round trip under load, ms"

// latencyOverlay is d's loaded round trip for its throughput chart, nil
// without one, or in a document from before the load's start was kept,
// whose bins cannot be placed on the test's time.
func latencyOverlay(d *result.Document) *rttOverlay {
	l := d.LoadLatency
	if !l.Measured() || l.LoadStartNs <= 0 {
		return nil
	}
	o := &rttOverlay{}
	if p := l.Idle; p != nil && p.RTT != nil {
		o.idle = float64(p.RTT.P50Ns) / 1e6
	}
	top := o.idle
	for _, b := range l.Series {
		if b.Phase == "idle" || b.RTTNs == nil {
			continue
		}
		at := float64(b.AtNs-l.LoadStartNs) / 1e9
		ms := float64(*b.RTTNs) / 1e6
		o.points = append(o.points, point{X: at + float64(l.BinNs)/2e9, Y: ms, Label: binText(b, at, l.BinNs) + " (right axis)"})
		top = max(top, ms)
	}
	if len(o.points) == 0 || !(top > 0) {
		return nil
	}
	// Headroom as on the throughput's axis, then up to a labelled tick.
	o.top = top * 1.08
	if t := niceTicks(0, o.top); len(t) > 0 {
		var labelled []float64
		for _, tk := range t {
			if tk.Label != "" {
				labelled = append(labelled, tk.Value)
			}
		}
		if n := len(labelled); n > 1 && labelled[n-1] < o.top {
			o.top = labelled[n-1] + labelled[1] - labelled[0]
		}
	}
	return o
}

func (o *rttOverlay) name() string { return "round trip (right axis)" }

func (o *rttOverlay) labels() []string {
	out := make([]string, len(o.points))
	for i, p := range o.points {
		out[i] = p.Label
	}
	return out
}

func (o *rttOverlay) tags() []tag {
	if o.idle <= 0 {
		return nil
	}
	return []tag{{"idle", [][2]string{{"ms", num(o.idle)}}, fmt.Sprintf("idle median round trip %s ms (right axis)", num(o.idle))}}
}

// DataRange keeps the bins on the time axis; the values have their own.
func (o *rttOverlay) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, p := range o.points {
		xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
	}
	return xmin, xmax, math.Inf(1), math.Inf(-1)
}

var (
	rttLine  = draw.LineStyle{Color: rttColor, Width: vg.Points(1)}
	rttGlyph = draw.GlyphStyle{Color: markerColor(rttColor), Radius: vg.Points(2), Shape: draw.PyramidGlyph{}}
)

func (o *rttOverlay) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	y := func(ms float64) vg.Length { return c.Min.Y + vg.Length(ms/o.top)*(c.Max.Y-c.Min.Y) }
	if o.idle > 0 {
		clr := rttColor
		clr.A = idleAlpha
		c.StrokeLine2(draw.LineStyle{Color: clr, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}, c.Min.X, y(o.idle), c.Max.X, y(o.idle))
	}
	pts := make([]vg.Point, len(o.points))
	for i, pt := range o.points {
		pts[i] = vg.Point{X: trX(pt.X), Y: y(pt.Y)}
	}
	if len(pts) > 1 {
		c.StrokeLines(rttLine, pts)
	}
	for _, pt := range pts {
		c.DrawGlyphNoClip(rttGlyph, pt)
	}
	o.axis(c, p, y)
}

// axis draws the right axis as gonum draws the left one, mirrored: line,
// ticks, their labels, the axis' label read upwards.
func (o *rttOverlay) axis(c draw.Canvas, p *plot.Plot, y func(float64) vg.Length) {
	a := p.Y
	x := c.Max.X
	c.StrokeLine2(a.LineStyle, x, c.Min.Y, x, c.Max.Y)
	tl := a.Tick.Label
	tl.XAlign = draw.XLeft
	descent := tl.FontExtents().Descent
	for _, t := range niceTicks(0, o.top) {
		if t.Value > o.top {
			continue
		}
		n := a.Tick.Length
		if t.IsMinor() {
			n /= 2
		}
		c.StrokeLine2(a.Tick.LineStyle, x, y(t.Value), x+n, y(t.Value))
		if !t.IsMinor() {
			c.FillText(tl, vg.Point{X: x + a.Tick.Length + tl.Width(" "), Y: y(t.Value) + descent}, t.Label)
		}
	}
	ls := a.Label.TextStyle
	ls.Rotation, ls.XAlign, ls.YAlign = math.Pi/2, draw.XCenter, draw.YTop
	c.FillText(ls, vg.Point{X: x + o.ticksWidth(p) + a.Label.Padding, Y: (c.Min.Y + c.Max.Y) / 2}, rttLabel)
}

// ticksWidth is the room the right axis' ticks and their labels take.
func (o *rttOverlay) ticksWidth(p *plot.Plot) vg.Length {
	tl := p.Y.Tick.Label
	var w vg.Length
	for _, t := range niceTicks(0, o.top) {
		w = max(w, tl.Width(t.Label))
	}
	return p.Y.Tick.Length + tl.Width(" ") + w
}

// stretch raises the axis' top by f, headroom for the labels of health
// events above the data, as their chart's left axis gets.
func (o *rttOverlay) stretch(f float64) { o.top *= f }

// width is the room the right axis takes beside the plot.
func (o *rttOverlay) width(p *plot.Plot) vg.Length {
	return o.ticksWidth(p) + p.Y.Label.Padding + p.Y.Label.TextStyle.Height(rttLabel)
}

// Thumbnail is the legend's sample: the line and its marker, opaque so
// it is no data point.
func (o *rttOverlay) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(rttLine, c.Min.X, y, c.Max.X, y)
	g := rttGlyph
	g.Color = rttColor
	c.DrawGlyphNoClip(g, c.Center())
}
