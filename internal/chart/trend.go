package chart

import (
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TrendLine is one figure over successive runs: a host's sequential read
// of 1 MiB blocks on one target, say.
type TrendLine struct {
	Name   string
	Points []TrendPoint
}

// TrendPoint is a run's value of the figure and what its tooltip says;
// Alert, when set, is what an alert rule says of the run ("lan-down
// firing"), which marks the point.
type TrendPoint struct {
	Time  time.Time
	Value float64
	Label string
	Alert string
}

// alertColor marks the runs alerts are about: the palette's vermillion.
var alertColor = palette[1]

// Trend draws figures over calendar time, one line each, from zero: how
// a machine's storage or link has held up across weeks of runs.
func Trend(name, title, unit string, lines []TrendLine) *Chart {
	p := newPlot(strings.Join(wrap(title, titleWidth), "\n"), "time (UTC)", unit)
	p.X.Tick.Marker = plot.TimeTicks{Format: "2006-01-02\n15:04", Time: func(t float64) time.Time { return time.Unix(int64(t), 0).UTC() }}
	ms := make([]marked, len(lines))
	// The runs an alert is about get a larger triangle over their point,
	// a series of its own (drawn last, named in the legend), with no line.
	alerts := newSeries("alerts", len(lines), 0)
	alerts.paint(alertColor, draw.PyramidGlyph{})
	alerts.Glyph.Radius = vg.Points(4.5)
	for i, l := range lines {
		s := newSeries(l.Name, i, vg.Points(1.5))
		for _, pt := range l.Points {
			s.Points = append(s.Points, point{X: float64(pt.Time.Unix()), Y: pt.Value, Label: pt.Label})
			if pt.Alert != "" {
				alerts.Points = append(alerts.Points, point{X: float64(pt.Time.Unix()), Y: pt.Value, Label: pt.Label + ": " + pt.Alert})
			}
		}
		ms[i] = s
	}
	if len(alerts.Points) > 0 {
		ms = append(ms, alerts)
	}
	c := build(name, title, p, &plotter.Grid{Vertical: gridLine, Horizontal: gridLine}, ms...)
	p.Y.Min, p.Y.Max = 0, p.Y.Max*1.08
	// Runs within minutes of each other would get ticks seconds apart,
	// printed alike at the minute: an hour each side keeps them apart.
	if mid := (p.X.Min + p.X.Max) / 2; p.X.Max-p.X.Min < 2*3600 {
		p.X.Min, p.X.Max = mid-3600, mid+3600
	}
	return c
}
