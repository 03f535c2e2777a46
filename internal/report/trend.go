package report

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/chart"
	"github.com/thruput/thruput/internal/result"
)

// trendCharts names what each figure is drawn as: its chart's title, and
// the unit of a rate in bytes per second unless the page names another
// (chart.UnitOf), or the unit of a count, drawn as it is.
var trendCharts = map[string]struct {
	title string
	rate  chart.Unit
	count string
}{
	"thruput_disk_sweep_bytes_per_second":     {title: "Sequential I/O (sweep)", rate: chart.MiBps},
	"thruput_disk_random_bytes_per_second":    {title: "Random file I/O", rate: chart.MiBps},
	"thruput_disk_io_bytes_per_second":        {title: "Queue-depth I/O", rate: chart.MiBps},
	"thruput_disk_io_operations_per_second":   {title: "Queue-depth I/O operations", count: "IOPS"},
	"thruput_disk_mark_bytes_per_second":      {title: "The four presets (disk mark)", rate: chart.MiBps},
	"thruput_disk_random_requests_per_second": {title: "Random file I/O requests", count: "req/s"},
	"thruput_net_bytes_per_second":            {title: "Network, the receiver's rate", rate: chart.Mbitps},
	"thruput_http_bytes_per_second":           {title: "HTTP download", rate: chart.MiBps},
}

// trendUnit is the unit a trend chart of the metric name draws in on a
// page with --units units, and the factor from the metric's base unit.
func trendUnit(name, units string) (string, float64) {
	spec := trendCharts[name]
	if spec.count != "" {
		return spec.count, 1
	}
	u := chart.UnitOf(units, spec.rate)
	return u.Name, 1 / u.Bytes
}

// maxTrendLines keeps a chart readable: the figures with the most runs.
const maxTrendLines = 8

// Trend charts every figure of docs (oldest first) over the runs' start
// times, a chart per kind of figure and a line per step, target or
// direction: the same figures /metrics and the textfile export give,
// followed through time; rates are in the unit --units names (units).
func Trend(docs []*result.Document, units string) []*chart.Chart {
	lines := map[string]map[string]*chart.TrendLine{}
	for _, d := range docs {
		if d.Status != result.StatusOK || d.StartedAt.IsZero() {
			continue
		}
		for _, s := range samples(d, d.Sections()) {
			if _, ok := trendCharts[s.gauge.Name]; !ok {
				continue
			}
			unit, scale := trendUnit(s.gauge.Name, units)
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(s.labels)) {
				if k != "host" {
					parts = append(parts, s.labels[k])
				}
			}
			// A capped UDP test and an uncapped TCP one to the same peer
			// are different figures: on one line the cap reads as a
			// collapse. The kind comes first, where the legend, which
			// shortens long names, still shows it.
			if n := d.Net; n != nil {
				parts = append([]string{netKind(n.Parameters)}, parts...)
			}
			key := strings.Join(parts, " ")
			if lines[s.gauge.Name] == nil {
				lines[s.gauge.Name] = map[string]*chart.TrendLine{}
			}
			l := lines[s.gauge.Name][key]
			if l == nil {
				l = &chart.TrendLine{Name: key}
				lines[s.gauge.Name][key] = l
			}
			l.Points = append(l.Points, chart.TrendPoint{Time: d.StartedAt, Value: s.value * scale,
				Label: d.ID + ": " + f1(s.value*scale) + " " + unit})
		}
	}
	var out []*chart.Chart
	for _, name := range slices.Sorted(maps.Keys(lines)) {
		ls := slices.Collect(maps.Values(lines[name]))
		slices.SortFunc(ls, func(a, b *chart.TrendLine) int {
			return cmp.Or(cmp.Compare(len(b.Points), len(a.Points)), strings.Compare(a.Name, b.Name))
		})
		ls = ls[:min(len(ls), maxTrendLines)]
		slices.SortFunc(ls, func(a, b *chart.TrendLine) int { return strings.Compare(a.Name, b.Name) })
		kept := make([]chart.TrendLine, len(ls))
		for i, l := range ls {
			kept[i] = *l
		}
		unit, _ := trendUnit(name, units)
		out = append(out, chart.Trend("trend-"+strings.TrimPrefix(name, "thruput_"), trendCharts[name].title+", "+unit+" per run\n"+chart.Context(docs), unit, kept))
	}
	return out
}

// netKind names a network test's protocol and cap: "TCP", "UDP -b 50M".
func netKind(p result.NetParameters) string {
	k := "TCP"
	if p.Protocol != "" {
		k = strings.ToUpper(p.Protocol)
	}
	if p.BitrateBps > 0 {
		k += " -b " + strconv.FormatFloat(float64(p.BitrateBps)/1e6, 'f', -1, 64) + "M"
	}
	return k
}
