package chart

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/thruput/thruput/internal/result"
)

// eventAlpha tags the stroke of a health event's line as ciAlpha tags an
// interval's bar.
const eventAlpha = 251

// eventColor is a health event's: a dark red none of the series have.
var eventColor = color.NRGBA{0xA0, 0x10, 0x20, 0xFF}

// event is a moment a run's figures became suspect, at seconds from the
// start: label is written beside its line, title says it in full.
type event struct {
	at           float64
	label, title string
}

// events are drawn over a time chart, each a dotted vertical line across
// the plot with its reason written at the top, so a throughput drop can
// be read against the under-voltage or kernel error that came with it.
type events []event

// healthEvents are d's suspect marks, their labels prefixed with prefix
// when several runs share the chart.
func healthEvents(d *result.Document, prefix string) events {
	if d.Health == nil {
		return nil
	}
	var out events
	for _, s := range d.Health.Suspect {
		label := fmt.Sprintf("%s%s from %s s", prefix, s.Reason, strconv.FormatFloat(s.AtS, 'f', 1, 64))
		title := label
		if s.Detail != "" {
			title += " (" + s.Detail + ")"
		}
		out = append(out, event{at: s.AtS, label: label, title: title})
	}
	return out
}

// addEvents draws evs over the time chart c.
func addEvents(c *Chart, evs events) {
	if len(evs) == 0 {
		return
	}
	c.plot.Add(evs)
	c.tags = append(c.tags, evs.tags()...)
	// Room above the data for the labels, which step down a line each.
	f := 1 + 0.06*float64(len(evs))
	c.plot.Y.Max *= f
	if c.right != nil {
		c.right.stretch(f)
	}
}

// DataRange keeps each event on the time axis and leaves the values'.
func (e events) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, ev := range e {
		xmin, xmax = math.Min(xmin, ev.at), math.Max(xmax, ev.at)
	}
	return xmin, xmax, math.Inf(1), math.Inf(-1)
}

func (e events) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	style := draw.TextStyle{Color: eventColor, Font: font.From(sansFont, 7), XAlign: draw.XLeft, YAlign: draw.YTop,
		Handler: plot.DefaultTextHandler}
	for i, ev := range e {
		x := trX(ev.at)
		clr := eventColor
		clr.A = eventAlpha
		c.SetLineStyle(draw.LineStyle{Color: clr, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}})
		var path vg.Path
		path.Move(vg.Point{X: x, Y: c.Min.Y})
		path.Line(vg.Point{X: x, Y: c.Max.Y})
		c.Stroke(path)
		// Labels step down the plot so that events close in time do not
		// print over each other; one past the middle of the plot is
		// written to the left of its line.
		st := style
		pos := vg.Point{X: x + vg.Points(2), Y: c.Max.Y - vg.Points(2+9*float64(i))}
		if x > (c.Min.X+c.Max.X)/2 {
			st.XAlign = draw.XRight
			pos.X = x - vg.Points(2)
		}
		c.FillText(st, pos, ev.label)
	}
}

func (e events) tags() []tag {
	out := make([]tag, len(e))
	for i, ev := range e {
		out[i] = tag{"event", [][2]string{{"at", num(ev.at)}}, ev.title}
	}
	return out
}

// cpuChart draws each CPU's busy share over a network test, where a
// receive path bound to one core shows: a line per CPU over the test's
// seconds from the per-second readings, or, for a run without them, a
// bar per CPU of its busy share and the part spent in interrupts; nil
// when the run sampled none.
func cpuChart(d *result.Document, name string) *Chart {
	if d.Health == nil || len(d.Health.CPUs) == 0 {
		return nil
	}
	h := d.Health
	const title = "CPU busy during the test, % of each CPU"
	if at := h.BusyAtS; len(at) >= 2 {
		var ss []*series
		for i, c := range h.CPUs {
			if len(c.BusySeries) != len(at)-1 {
				continue
			}
			s := newSeries("CPU "+strconv.Itoa(c.CPU), i, vg.Points(1))
			for j, v := range c.BusySeries {
				// Each reading covers at[j] to at[j+1]: drawn at its end.
				s.Points = append(s.Points, point{X: at[j+1], Y: v,
					Label: fmt.Sprintf("CPU %d %s-%s s: %s %% busy", c.CPU, num(at[j]), num(at[j+1]), f1(v))})
			}
			ss = append(ss, s)
		}
		if len(ss) > 0 {
			return timeChart(name, title, "% busy", ss)
		}
	}
	g := newGroups(2)
	for _, c := range h.CPUs {
		key := "CPU " + strconv.Itoa(c.CPU)
		g.set(key, 0, c.Busy, fmt.Sprintf("%s %% busy: user %s %%, system %s %%, irq %s %%, softirq %s %%, steal %s %%",
			f1(c.Busy), f1(c.User), f1(c.System), f1(c.IRQ), f1(c.Softirq), f1(c.Steal)))
		irq := c.IRQ + c.Softirq
		g.set(key, 1, irq, f1(irq)+" % in irq and softirq")
	}
	return g.chart(name, title, "% busy", []string{"busy", "irq+softirq"})
}
