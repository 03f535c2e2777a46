package report

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/thruput/thruput/internal/chart"
	"github.com/thruput/thruput/internal/result"
)

// trendUnit is the unit a trend chart of gauge g draws in on a page with
// --units units, and the factor from the gauge's base unit.
func trendUnit(g result.Gauge, units string) (string, float64) {
	if g.Trend.Count != "" {
		return g.Trend.Count, 1
	}
	rate := chart.MiBps
	if g.Trend.Bits {
		rate = chart.Mbitps
	}
	u := chart.UnitOf(units, rate)
	return u.Name, 1 / u.Bytes
}

// lineKind is a section whose runs differ in kind beyond what their
// series' labels say: a capped UDP test and an uncapped TCP one to the
// same peer are different figures, and on one line the cap reads as a
// collapse. The kind leads the line's name, where the legend, which
// shortens long names, still shows it.
type lineKind interface{ LineKind() string }

// maxTrendLines keeps a chart readable: the figures with the most runs.
const maxTrendLines = 8

// Trend charts every figure of docs (oldest first) over the runs' start
// times, a chart per kind of figure and a line per step, target, device
// or direction: the same figures /metrics and the textfile export give,
// followed through time; rates are in the unit --units names (units).
// alerts, by run id, mark the runs alert rules are about (serve
// --alerts).
func Trend(docs []*result.Document, units string, alerts map[string]string) []*chart.Chart {
	// A line is keyed by its name and the hardware it measured, so a card
	// swapped under one path is a line of its own; device holds each
	// line's, to name it where a chart's lines measured several.
	type line struct {
		chart.TrendLine
		device string
	}
	lines := map[string]map[string]*line{}
	gauges := map[string]result.Gauge{}
	for _, d := range docs {
		if d.Status != result.StatusOK || d.StartedAt.IsZero() {
			continue
		}
		sections := d.Sections()
		var kind []string
		for _, sec := range sections {
			if k, ok := sec.(lineKind); ok {
				kind = append(kind, k.LineKind())
			}
		}
		for _, s := range samples(d, sections) {
			if s.gauge.Trend.Title == "" {
				continue
			}
			unit, scale := trendUnit(s.gauge, units)
			parts := slices.Clone(kind)
			for _, k := range slices.Sorted(maps.Keys(s.labels)) {
				if k != "host" && k != "device_id" {
					parts = append(parts, s.labels[k])
				}
			}
			name, device := strings.Join(parts, " "), s.labels["device_id"]
			key := name + "\x00" + device
			if lines[s.gauge.Name] == nil {
				lines[s.gauge.Name] = map[string]*line{}
				gauges[s.gauge.Name] = s.gauge
			}
			l := lines[s.gauge.Name][key]
			if l == nil {
				l = &line{TrendLine: chart.TrendLine{Name: name}, device: device}
				lines[s.gauge.Name][key] = l
			}
			l.Points = append(l.Points, chart.TrendPoint{Time: d.StartedAt, Value: s.value * scale,
				Label: d.ID + ": " + f1(s.value*scale) + " " + unit, Alert: alerts[d.ID]})
		}
	}
	var out []*chart.Chart
	for _, name := range slices.Sorted(maps.Keys(lines)) {
		ls := slices.Collect(maps.Values(lines[name]))
		devices := map[string]bool{}
		for _, l := range ls {
			devices[l.device] = true
		}
		// The device leads the name only where it tells lines apart: a
		// legend shortens long names from the end.
		if len(devices) > 1 {
			for _, l := range ls {
				if l.device != "" {
					l.Name = result.ShortDeviceID(l.device) + " " + l.Name
				}
			}
		}
		slices.SortFunc(ls, func(a, b *line) int {
			return cmp.Or(cmp.Compare(len(b.Points), len(a.Points)), strings.Compare(a.Name, b.Name))
		})
		ls = ls[:min(len(ls), maxTrendLines)]
		slices.SortFunc(ls, func(a, b *line) int { return strings.Compare(a.Name, b.Name) })
		kept := make([]chart.TrendLine, len(ls))
		for i, l := range ls {
			kept[i] = l.TrendLine
		}
		g := gauges[name]
		unit, _ := trendUnit(g, units)
		out = append(out, chart.Trend("trend-"+strings.TrimPrefix(name, "thruput_"), g.Trend.Title+", "+unit+" per run\n"+chart.Context(docs), unit, kept))
	}
	return out
}
