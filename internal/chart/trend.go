package chart

import (
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// TrendLine is one figure over successive runs: a host's sequential read
// of 1 MiB blocks on one target, say.
type TrendLine struct {
	Name   string
	Points []TrendPoint
}

// TrendPoint is a run's value of the figure and what its tooltip says.
type TrendPoint struct {
	Time  time.Time
	Value float64
	Label string
}

// Trend draws figures over calendar time, one line each, from zero: how
// a machine's storage or link has held up across weeks of runs.
func Trend(name, title, unit string, lines []TrendLine) *Chart {
	p := newPlot(strings.Join(wrap(title, titleWidth), "\n"), "time (UTC)", unit)
	p.X.Tick.Marker = plot.TimeTicks{Format: "2006-01-02\n15:04", Time: func(t float64) time.Time { return time.Unix(int64(t), 0).UTC() }}
	ms := make([]marked, len(lines))
	for i, l := range lines {
		s := newSeries(l.Name, i, vg.Points(1.5))
		for _, pt := range l.Points {
			s.Points = append(s.Points, point{X: float64(pt.Time.Unix()), Y: pt.Value, Label: pt.Label})
		}
		ms[i] = s
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
