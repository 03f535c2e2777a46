// Package chart draws the charts of result documents the way storage and
// network reviews of single-board computers show them: throughput against block size for a sweep,
// grouped bars for the disk presets and jobs, throughput over time for the
// network and HTTP methods. A chart renders to SVG for a web page and to PNG
// for everywhere else, with gonum/plot.
//
// Every data point is drawn as a marker, and in the SVG each marker is an
// element of class "point" carrying a <title> with its figure, so a reader
// hovering over it sees the number and a test can count them. The SVG
// references nothing outside itself: no fonts, images or links.
package chart

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/thruput/thruput/internal/pattern"
)

// The size of a chart: it fits the text column of a page or a blog post,
// 16:9 like the screenshots it sits between.
const (
	Width  = 16 * vg.Centimeter
	Height = 9 * vg.Centimeter
	// pngDPI makes the PNG about 950 pixels wide, sharp at the width it is
	// shown and small enough to attach to a post.
	pngDPI = 150
)

// Chart is one figure: a titled plot with one series per run and target.
type Chart struct {
	// Name is file-safe and unique among the charts For returns
	// ("sweep-read", "mark-iops", "net"); it names the PNG file.
	Name string
	// Title is the heading drawn on the chart.
	Title string

	plot   *plot.Plot
	legend *plot.Legend // nil when there is a single series
	// legendNames are the legend's entries, which the SVG names in its
	// data-legend attribute for tests and tools.
	legendNames []string
	series      int
	// marks describe the data points in the order they are drawn, which is
	// the order their markers appear in the SVG; tags the intervals' bars
	// and the cliffs' lines likewise.
	marks []string
	tags  []tag
	// right is an axis of its own on the right (a network run's round
	// trip over its throughput), nil without one.
	right rightAxis
}

// rightAxis is a plotter that draws an axis right of the plot, width(p)
// wide, whose top stretch raises by a factor.
type rightAxis interface {
	width(p *plot.Plot) vg.Length
	stretch(f float64)
}

// pngEncoder compresses for speed: a chart's flat colours pack nearly as
// well at zlib's fastest level (a PNG about 4 % larger) in half the time
// of its default, which was most of drawing a PNG.
var pngEncoder = &png.Encoder{CompressionLevel: png.BestSpeed}

// PNG renders the chart as a PNG image.
func (c *Chart) PNG() ([]byte, error) {
	cv := vgimg.NewWith(vgimg.UseWH(Width, Height), vgimg.UseDPI(pngDPI))
	if err := c.draw(cv, true); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := pngEncoder.Encode(&buf, cv.Image()); err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.Name, err)
	}
	return buf.Bytes(), nil
}

// SVG renders the chart as a standalone <svg> element, without an XML
// prolog, so the same bytes serve as an .svg file and inline in HTML.
func (c *Chart) SVG() ([]byte, error) {
	cv := vgsvg.NewWith(vgsvg.UseWH(Width, Height))
	if err := c.draw(cv, false); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("chart %s: %w", c.Name, err)
	}
	return c.finishSVG(buf.Bytes())
}

// draw lays the plot out with the legend beside it rather than over the
// data, where gonum/plot would put it. white says the canvas is white
// already, as a raster one starts (vgimg's background): then the chart's
// and the plot's white backgrounds are not filled, each an antialiased
// raster of most of the image for nothing, a quarter of what a PNG cost.
func (c *Chart) draw(cv vg.CanvasSizer, white bool) (err error) {
	// gonum/plot panics on what it cannot draw (a log axis over zero);
	// a report should say so and go on.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("chart %s: %v", c.Name, r)
		}
	}()
	background := func(dc draw.Canvas) {
		if !white {
			dc.SetColor(color.White)
			dc.Fill(dc.Rectangle.Path())
		}
	}
	dc := draw.New(cv)
	background(dc)
	dc = draw.Crop(dc, margin, -margin, margin, -margin)
	var right vg.Length
	if c.right != nil {
		right = c.right.width(c.plot)
	}
	// The plot's background is filled here, as gonum/plot would, so that
	// it can be left out (newPlot gives the plot none).
	if c.legend == nil {
		pc := draw.Crop(dc, 0, -right, 0, 0)
		background(pc)
		c.plot.Draw(pc)
		return nil
	}
	// Room for a wider font than Liberation Sans: a browser without it
	// or its metric twins falls back to one like DejaVu Sans, a fifth
	// wider, and text past the edge of an SVG is cut.
	w := c.legend.Rectangle(dc).Size().X*6/5 + 2*margin
	pc := draw.Crop(dc, 0, -w-right, 0, 0)
	background(pc)
	c.plot.Draw(pc)
	top := c.plot.Title.TextStyle.Rectangle(c.plot.Title.Text).Size().Y + c.plot.Title.Padding + margin
	c.legend.Draw(draw.Crop(dc, dc.Size().X-w+2*margin, 0, 0, -top))
	return nil
}

const margin = 2 * vg.Millimeter

// markerAlpha tags the fill of every data marker: one step short of opaque,
// which no eye can tell, it is the only thing that singles a marker's
// <path> out in what vgsvg writes, so finishSVG can give it a class and a
// title.
const markerAlpha = 254

// ciAlpha and cliffAlpha tag the strokes of an interval's bar and of a
// cliff's line (eventAlpha a health event's, idleAlpha an idle round trip's) as markerAlpha tags a marker: finishSVG names each with its
// class, figures and title. An interval's bar is one path (its line and
// both caps), so that the n-th such stroke is the n-th bar.
const (
	ciAlpha    = 253
	cliffAlpha = 252
)

// tag is what finishSVG says of a tagged stroke: its class ("ci" or
// "cliff"), data attributes and title.
type tag struct {
	class string
	data  [][2]string
	title string
}

// tagger is a plotter that draws tagged strokes; tags lists them in the
// order Plot draws them.
type tagger interface{ tags() []tag }

var (
	// The style of a marker's path and of a tagged stroke's, which
	// finishSVG looks for in each <path d="…" style="…"/> vgsvg writes.
	markerStyle = pattern.Lazy(`^fill:(#[0-9A-Fa-f]{6});fill-opacity:0\.99608$`)
	taggedStyle = pattern.Lazy(`stroke-opacity:0\.9(?:9216|8824|8431|8039)`)
	svgOpen     = pattern.Lazy(`(?s)^.*?<svg\b[^>]*>`)
)

// The family vgsvg names, and what finishSVG puts in its place: Liberation
// Sans is metric-compatible with Arial (and Arimo, its open twin), so text
// laid out for one fits in the others wherever Liberation is not installed.
const (
	vgsvgFont = `font-family:Liberation Sans;`
	fontStack = `font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;`
)

// finishSVG makes vgsvg's document self-describing and self-contained:
// the prolog goes, the root gets a title, the fonts fall back to metric
// twins instead of being embedded (an embedded font is a data: URL a
// strict page policy refuses, and half a megabyte per chart), and each
// marker becomes <path class="point"><title>figure</title></path>.
func (c *Chart) finishSVG(b []byte) ([]byte, error) {
	open := svgOpen().Find(b)
	if open == nil {
		return nil, fmt.Errorf("chart %s: no <svg> element in the rendering", c.Name)
	}
	title := html.EscapeString(c.Title)
	var out bytes.Buffer
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" width="%.5gpt" height="%.5gpt" viewBox="0 0 %.5g %.5g" role="img" aria-label="%s" class="chart" data-chart="%s" data-series="%d" data-legend="%s">`,
		Width.Points(), Height.Points(), Width.Points(), Height.Points(), title, html.EscapeString(c.Name), c.series, html.EscapeString(strings.Join(c.legendNames, "|")))
	fmt.Fprintf(&out, "\n<title>%s</title>", title)
	rest := bytes.ReplaceAll(b[len(open):], []byte(vgsvgFont), []byte(fontStack))
	marks, tags := 0, 0
	rest = rewritePaths(rest, func(d, style []byte) []byte {
		if m := markerStyle().FindSubmatch(style); m != nil {
			label := ""
			if marks < len(c.marks) {
				label = c.marks[marks]
			}
			marks++
			return fmt.Appendf(nil, `<path class="point" d="%s" style="fill:%s"><title>%s</title></path>`, d, m[1], html.EscapeString(label))
		}
		if !taggedStyle().Match(style) {
			return nil
		}
		var tg tag
		if tags < len(c.tags) {
			tg = c.tags[tags]
		}
		tags++
		var b bytes.Buffer
		fmt.Fprintf(&b, `<path class="%s" d="%s" style="%s"`, tg.class, d, style)
		for _, kv := range tg.data {
			fmt.Fprintf(&b, ` data-%s="%s"`, kv[0], html.EscapeString(kv[1]))
		}
		fmt.Fprintf(&b, `><title>%s</title></path>`, html.EscapeString(tg.title))
		return b.Bytes()
	})
	if marks != len(c.marks) {
		return nil, fmt.Errorf("chart %s: drew %d markers for %d data points", c.Name, marks, len(c.marks))
	}
	if tags != len(c.tags) {
		return nil, fmt.Errorf("chart %s: drew %d intervals and cliffs for %d", c.Name, tags, len(c.tags))
	}
	out.Write(rest)
	return out.Bytes(), nil
}

// rewritePaths puts what f makes of an element's d and style in place of
// each <path d="…" style="…"/> of b (the shape of every path vgsvg
// writes), or keeps the element where f returns nil. It scans rather than
// matching one regular expression over the document: on input that long
// Go's regexp runs its slowest engine, and a report's charts spent most
// of their time there.
func rewritePaths(b []byte, f func(d, style []byte) []byte) []byte {
	const open, style = `<path d="`, ` style="`
	var out []byte
	kept := 0 // b[kept:] is not in out yet
	for from := 0; ; {
		at := bytes.Index(b[from:], []byte(open))
		if at < 0 {
			break
		}
		at += from
		from = at + 1
		d, rest, ok := bytes.Cut(b[at+len(open):], []byte(`"`))
		if !ok {
			break
		}
		if rest, ok = bytes.CutPrefix(rest, []byte(style)); !ok {
			continue
		}
		st, rest, ok := bytes.Cut(rest, []byte(`"`))
		if !ok {
			break
		}
		if rest, ok = bytes.CutPrefix(bytes.TrimLeft(rest, "\t\n\f\r "), []byte("/>")); !ok {
			continue
		}
		repl := f(d, st)
		if repl == nil {
			continue
		}
		end := len(b) - len(rest)
		out = append(append(out, b[kept:at]...), repl...)
		kept, from = end, end
	}
	return append(out, b[kept:]...)
}

// Colours are Okabe and Ito's set for colour-blind readers, without its
// yellow, which vanishes on white, and with its black a dark grey: vgsvg
// writes pure black as the default fill it leaves out, and a marker
// without its fill would escape finishSVG's count.
var palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // green
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0x40, 0x40, 0x40, 0xFF}, // near black
}

// Shapes tell series apart where colours do not (print, colour blindness):
// all filled, so each is one marker path. Three shapes against seven
// colours repeat together only after 21 series.
var shapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}

func colorOf(i int) color.NRGBA { return palette[i%len(palette)] }

func markerColor(c color.NRGBA) color.NRGBA {
	c.A = markerAlpha
	return c
}

var (
	sansFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	// Weight 3 is x/image/font's WeightBold, named here by value so this
	// package needs no import of that module of gonum/plot's.
	boldFont = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: 3}
	gridLine = draw.LineStyle{Color: color.Gray{Y: 0xE0}, Width: vg.Points(0.5)}
)

// newPlot is a plot in the house style: sans-serif text, light grid.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	// Chart.draw fills the background, where the canvas needs it.
	p.BackgroundColor = nil
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(boldFont, 11)
	p.Title.Padding = 2 * vg.Millimeter
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sansFont, 9)
		a.Tick.Label.Font = font.From(sansFont, 8)
		a.Color = color.Gray{Y: 0x60}
		a.Tick.Color = color.Gray{Y: 0x60}
	}
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Y.Tick.Marker = plot.TickerFunc(niceTicks)
	return p
}

// niceTicks labels a linear axis at 1, 2 or 5 times a power of ten, four
// to eight labels, printed without trailing zeros: gonum's default ticker
// can settle on two labels such as "0.00" and "2500.00".
func niceTicks(lo, hi float64) []plot.Tick {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := math.Pow(10, math.Floor(math.Log10(span/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(m*step) <= 8 {
			step *= m
			break
		}
	}
	// Printing at the step's precision keeps 0.30000000000000004 out of
	// the labels.
	decimals := max(0, int(-math.Floor(math.Log10(step))))
	var ticks []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi+step*1e-9; i++ {
		v := i * step
		label := strconv.FormatFloat(v, 'f', decimals, 64)
		if strings.Contains(label, ".") {
			label = strings.TrimRight(strings.TrimRight(label, "0"), ".")
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
		for m := 1; m < 5; m++ {
			if minor := v + float64(m)*step/5; minor <= hi {
				ticks = append(ticks, plot.Tick{Value: minor})
			}
		}
	}
	return ticks
}

func newLegend() *plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = font.From(sansFont, 8)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(18)
	l.Padding = vg.Points(2)
	return &l
}

// legendName keeps legend entries to a width that leaves the plot room;
// the full name is in every point's title.
func legendName(s string) string {
	const most = 32
	if r := []rune(s); len(r) > most {
		return string(r[:most-1]) + "…"
	}
	return s
}

// build assembles a chart from plotters, a grid first so it lies under
// the data; series and bars enter the legend when there are several.
func build(name, title string, p *plot.Plot, grid *plotter.Grid, items ...marked) *Chart {
	c := &Chart{Name: name, Title: title, plot: p, series: len(items)}
	p.Add(grid)
	if len(items) > 1 {
		c.legend = newLegend()
	}
	for _, it := range items {
		p.Add(it)
		c.marks = append(c.marks, it.labels()...)
		if tg, ok := it.(tagger); ok {
			c.tags = append(c.tags, tg.tags()...)
		}
		if r, ok := it.(rightAxis); ok {
			c.right = r
		}
		if c.legend != nil {
			c.legend.Add(legendName(it.name()), it)
			c.legendNames = append(c.legendNames, legendName(it.name()))
		}
	}
	return c
}

// marked is a plotter that draws one marker per data point.
type marked interface {
	plot.Plotter
	plot.Thumbnailer
	name() string
	// labels describe the points in the order Plot draws their markers.
	labels() []string
}

// point is a data point and what its tooltip says; Err, when positive,
// is the half-width of its 95 % interval, drawn as an error bar; Cliff,
// when positive, the rate before a drop the figure is after or averages,
// drawn as a dashed tick.
type point struct {
	X, Y  float64
	Label string
	Err   float64
	// Kind is what Err is: "" for a 95 % interval, "stddev" for the
	// standard deviation of repeats.
	Kind  string
	Cliff float64
	// CliffLabel says what the tick means.
	CliffLabel string
}

// series is a line through points with a marker on each.
type series struct {
	Name   string
	Points []point
	Line   draw.LineStyle
	Glyph  draw.GlyphStyle
	color  color.NRGBA
	// Figure is the run's figure over the whole line, when it has an
	// interval, drawn as an error bar at its end; CliffAt the time a drop
	// came, drawn as a dashed line across the plot.
	Figure  *point
	CliffAt *point
}

func newSeries(name string, i int, width vg.Length) *series {
	c := colorOf(i)
	return &series{
		Name:  name,
		color: c,
		Line:  draw.LineStyle{Color: c, Width: width},
		Glyph: draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: shapes[i%len(shapes)]},
	}
}

// paint gives the series another colour and marker shape.
func (s *series) paint(c color.NRGBA, shape draw.GlyphDrawer) {
	s.color, s.Line.Color, s.Glyph.Color, s.Glyph.Shape = c, c, c, shape
}

func (s *series) name() string { return s.Name }

func (s *series) labels() []string {
	out := make([]string, len(s.Points))
	for i, p := range s.Points {
		out[i] = p.Label
	}
	return out
}

// DataRange makes room for every point.
func (s *series) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, p := range s.Points {
		xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
		ymin, ymax = math.Min(ymin, lowEnd(p)), math.Max(ymax, math.Max(p.Y+p.Err, p.Cliff))
	}
	if f := s.Figure; f != nil {
		ymin, ymax = math.Min(ymin, lowEnd(*f)), math.Max(ymax, f.Y+f.Err)
	}
	return
}

// GlyphBoxes keeps markers at the edge from being cut by the axes.
func (s *series) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	out := make([]plot.GlyphBox, len(s.Points))
	for i, pt := range s.Points {
		out[i] = plot.GlyphBox{X: p.X.Norm(pt.X), Y: p.Y.Norm(pt.Y), Rectangle: s.Glyph.Rectangle()}
	}
	return out
}

// Plot draws the line, then every marker, none skipped: finishSVG pairs
// the n-th marker with the n-th label.
func (s *series) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	pts := make([]vg.Point, len(s.Points))
	for i, pt := range s.Points {
		pts[i] = vg.Point{X: trX(pt.X), Y: trY(pt.Y)}
	}
	if s.Line.Width > 0 && len(pts) > 1 {
		c.StrokeLines(s.Line, pts)
	}
	// Error bars and cliff ticks under the markers, in the series'
	// colour, in the order tags lists them.
	caps := vg.Points(3)
	for i, pt := range s.Points {
		if pt.Err > 0 {
			interval(c, s.color, pts[i].X, trY(lowEnd(pt)), trY(pt.Y+pt.Err), caps)
		}
		if pt.Cliff > 0 {
			y := trY(pt.Cliff)
			cliff(c, s.color, vg.Point{X: pts[i].X - 2*caps, Y: y}, vg.Point{X: pts[i].X + 2*caps, Y: y})
		}
	}
	if f := s.Figure; f != nil {
		interval(c, s.color, trX(f.X), trY(lowEnd(*f)), trY(f.Y+f.Err), 2*caps)
	}
	if a := s.CliffAt; a != nil {
		x := trX(a.X)
		cliff(c, s.color, vg.Point{X: x, Y: c.Min.Y}, vg.Point{X: x, Y: c.Max.Y})
	}
	g := s.Glyph
	g.Color = markerColor(s.color)
	for _, pt := range pts {
		c.DrawGlyphNoClip(g, pt)
	}
}

func (s *series) tags() []tag {
	var out []tag
	for _, pt := range s.Points {
		if pt.Err > 0 {
			kind := "interval"
			if pt.Kind != "" {
				kind = pt.Kind
			}
			out = append(out, ciTag(kind, pt.Y, pt.Err, pt.Label))
		}
		if pt.Cliff > 0 {
			out = append(out, tag{"cliff", [][2]string{{"before", num(pt.Cliff)}}, pt.CliffLabel})
		}
	}
	if f := s.Figure; f != nil {
		out = append(out, ciTag("interval", f.Y, f.Err, f.Label))
	}
	if a := s.CliffAt; a != nil {
		out = append(out, tag{"cliff", [][2]string{{"at", num(a.X)}}, a.Label})
	}
	return out
}

// ciTag describes an error bar around y: a 95 % interval of ±err, or
// with kind "range" the spread of repeats from y-err to y+err.
func ciTag(kind string, y, err float64, title string) tag {
	return tag{"ci", [][2]string{{"kind", kind}, {"low", num(y - err)}, {"high", num(y + err)}}, title}
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// interval draws an error bar from lo to hi at x, capped, as one tagged
// path.
func interval(c draw.Canvas, clr color.NRGBA, x, lo, hi, capw vg.Length) {
	clr.A = ciAlpha
	c.SetLineStyle(draw.LineStyle{Color: clr, Width: vg.Points(1)})
	var p vg.Path
	p.Move(vg.Point{X: x, Y: lo})
	p.Line(vg.Point{X: x, Y: hi})
	p.Move(vg.Point{X: x - capw, Y: lo})
	p.Line(vg.Point{X: x + capw, Y: lo})
	p.Move(vg.Point{X: x - capw, Y: hi})
	p.Line(vg.Point{X: x + capw, Y: hi})
	c.Stroke(p)
}

// cliff draws a dashed line from a to b as one tagged path.
func cliff(c draw.Canvas, clr color.NRGBA, a, b vg.Point) {
	clr.A = cliffAlpha
	c.SetLineStyle(draw.LineStyle{Color: clr, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}})
	var p vg.Path
	p.Move(a)
	p.Line(b)
	c.Stroke(p)
}

// lowEnd is where a point's error bar ends below it: not at or below
// zero, which a log axis cannot show.
func lowEnd(p point) float64 {
	if p.Y-p.Err <= 0 {
		return p.Y
	}
	return p.Y - p.Err
}

// Thumbnail draws the legend's sample in the opaque colour, so it is no
// data point.
func (s *series) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	if s.Line.Width > 0 {
		c.StrokeLine2(s.Line, c.Min.X, y, c.Max.X, y)
	}
	c.DrawGlyphNoClip(s.Glyph, c.Center())
}

// bars is one series of a grouped bar chart: a bar per category it has a
// figure for, at its slot in the group.
type bars struct {
	Name string
	// Values by category index; NaN where the series has none.
	Values []float64
	// Lo and Hi bound each value's spread (its repeats' lowest and
	// highest, or its 95 % interval: Kinds says "range" or "interval"),
	// drawn as an error bar; NaN, or absent, where there is none.
	Lo, Hi []float64
	Kinds  []string
	// Cliffs are the rates before a drop, drawn as a dashed line across
	// the bar, NaN where there was none; CliffLabels say what they mean.
	Cliffs      []float64
	CliffLabels []string
	Labels      []string
	Color       color.NRGBA
	// ByCategory colours each category's bar apart, for a chart of one
	// series whose categories are read and write.
	ByCategory bool
	// Slot and Slots place the bar within each group.
	Slot, Slots int
}

// groupWidth is the share of a category's width its bars fill together:
// most of it, but a lone bar stays a bar rather than a wall.
func groupWidth(slots int) float64 { return min(0.8, 0.3*float64(slots)) }

func (b *bars) name() string { return b.Name }

func (b *bars) labels() []string {
	var out []string
	for i, v := range b.Values {
		if !math.IsNaN(v) {
			out = append(out, b.Labels[i])
		}
	}
	return out
}

// DataRange spans the categories and starts the value axis at zero: bars
// measured from anything else mislead.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = -0.5, float64(len(b.Values))-0.5
	for i, v := range b.Values {
		if !math.IsNaN(v) {
			ymax = math.Max(ymax, v)
		}
		if i < len(b.Hi) && !math.IsNaN(b.Hi[i]) {
			ymax = math.Max(ymax, b.Hi[i])
		}
		if i < len(b.Cliffs) && !math.IsNaN(b.Cliffs[i]) {
			ymax = math.Max(ymax, b.Cliffs[i])
		}
	}
	return xmin, xmax, 0, ymax
}

func (b *bars) spread(i int) bool {
	return i < len(b.Lo) && i < len(b.Hi) && !math.IsNaN(b.Lo[i]) && !math.IsNaN(b.Hi[i])
}

func (b *bars) cliff(i int) bool { return i < len(b.Cliffs) && !math.IsNaN(b.Cliffs[i]) }

func (b *bars) tags() []tag {
	var out []tag
	for i, v := range b.Values {
		if math.IsNaN(v) {
			continue
		}
		if b.spread(i) {
			kind := "range"
			if i < len(b.Kinds) && b.Kinds[i] != "" {
				kind = b.Kinds[i]
			}
			t := ciTag(kind, (b.Lo[i]+b.Hi[i])/2, (b.Hi[i]-b.Lo[i])/2, b.Labels[i])
			out = append(out, t)
		}
		if b.cliff(i) {
			out = append(out, tag{"cliff", [][2]string{{"before", num(b.Cliffs[i])}}, b.CliffLabels[i]})
		}
	}
	return out
}

// barMarks is the colour of the error bars and cliff lines over a bar.
var barMarks = color.NRGBA{0x33, 0x33, 0x33, 0xFF}

func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	gw := groupWidth(b.Slots)
	w := gw / float64(b.Slots)
	clr := markerColor(b.Color)
	for i, v := range b.Values {
		if math.IsNaN(v) {
			continue
		}
		x0 := float64(i) - gw/2 + float64(b.Slot)*w
		l, r := trX(x0+w*0.05), trX(x0+w*0.95)
		bottom, top := trY(0), trY(v)
		if top-bottom < vg.Points(0.5) {
			// A bar too small to see is still a figure: keep a sliver.
			top = bottom + vg.Points(0.5)
		}
		if b.ByCategory {
			clr = markerColor(colorOf(i))
		}
		c.FillPolygon(clr, []vg.Point{{X: l, Y: bottom}, {X: r, Y: bottom}, {X: r, Y: top}, {X: l, Y: top}})
		if b.spread(i) {
			interval(c, barMarks, (l+r)/2, trY(b.Lo[i]), trY(b.Hi[i]), (r-l)/4)
		}
		if b.cliff(i) {
			y := trY(b.Cliffs[i])
			cliff(c, barMarks, vg.Point{X: l, Y: y}, vg.Point{X: r, Y: y})
		}
	}
}

func (b *bars) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	r.Min.Y += 1
	r.Max.Y -= 1
	c.FillPolygon(b.Color, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// barChart draws categories along x with a group of bars each.
func barChart(name, title, yLabel string, categories []string, items []*bars) *Chart {
	p := newPlot(title, "", yLabel)
	ticks := make(plot.ConstantTicks, len(categories))
	for i, c := range categories {
		ticks[i] = plot.Tick{Value: float64(i), Label: c}
	}
	p.X.Tick.Marker = ticks
	p.X.Tick.Length = 0
	p.Y.Min = 0
	grid := &plotter.Grid{Horizontal: gridLine}
	ms := make([]marked, len(items))
	for i, b := range items {
		b.Slot, b.Slots = i, len(items)
		b.Color = colorOf(i)
		b.ByCategory = len(items) == 1
		ms[i] = b
	}
	c := build(name, title, p, grid, ms...)
	// Headroom, so the tallest bar does not touch the title.
	p.Y.Max *= 1.08
	return c
}

// decadeTicks labels each power of ten on a log axis, with unlabelled
// ticks between; gonum's LogTicks skips the decade below 1 when the axis
// starts on it.
func decadeTicks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		v := math.Pow(10, e)
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		for m := 2.0; m < 10 && e < math.Ceil(math.Log10(hi)); m++ {
			ticks = append(ticks, plot.Tick{Value: m * v})
		}
	}
	return ticks
}

// slug makes a name safe in a file name: lower case letters, digits, dot,
// dash and underscore.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-.")
	if out == "" {
		return "run"
	}
	return out
}
