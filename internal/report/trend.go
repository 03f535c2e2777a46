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

// trendCharts names what each figure is drawn as: its chart's title and
// unit, and the factor from the metric's base unit.
var trendCharts = map[string]struct {
	title, unit string
	scale       float64
}{
	"thruput_disk_sweep_bytes_per_second":     {"Sequential I/O (sweep)", "MiB/s", 1.0 / (1 << 20)},
	"thruput_disk_random_bytes_per_second":    {"Random file I/O", "MiB/s", 1.0 / (1 << 20)},
	"thruput_disk_io_bytes_per_second":        {"Queue-depth I/O", "MiB/s", 1.0 / (1 << 20)},
	"thruput_disk_io_operations_per_second":   {"Queue-depth I/O operations", "IOPS", 1},
	"thruput_disk_mark_bytes_per_second":      {"The four presets (disk mark)", "MiB/s", 1.0 / (1 << 20)},
	"thruput_disk_random_requests_per_second": {"Random file I/O requests", "req/s", 1},
	"thruput_net_bytes_per_second":            {"Network, the receiver's rate", "Mbit/s", 8 / 1e6},
	"thruput_http_bytes_per_second":           {"HTTP download", "MiB/s", 1.0 / (1 << 20)},
}

// maxTrendLines keeps a chart readable: the figures with the most runs.
const maxTrendLines = 8

// Trend charts every figure of docs (oldest first) over the runs' start
// times, a chart per kind of figure and a line per step, target or
// direction: the same figures /metrics and the textfile export give,
// followed through time.
func Trend(docs []*result.Document) []*chart.Chart {
	lines := map[string]map[string]*chart.TrendLine{}
	for _, d := range docs {
		if d.Status != result.StatusOK || d.StartedAt.IsZero() {
			continue
		}
		for _, s := range samples(d) {
			spec, ok := trendCharts[s.name]
			if !ok {
				continue
			}
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(s.labels)) {
				if k != "host" {
					parts = append(parts, s.labels[k])
				}
			}
			// A capped UDP test and an uncapped TCP one to the same peer
			// are different figures: on one line the cap reads as a
			// collapse.
			if n := d.Net; n != nil {
				parts = append(parts, netKind(n.Parameters))
			}
			key := strings.Join(parts, " ")
			if lines[s.name] == nil {
				lines[s.name] = map[string]*chart.TrendLine{}
			}
			l := lines[s.name][key]
			if l == nil {
				l = &chart.TrendLine{Name: key}
				lines[s.name][key] = l
			}
			l.Points = append(l.Points, chart.TrendPoint{Time: d.StartedAt, Value: s.value * spec.scale,
				Label: d.ID + ": " + f1(s.value*spec.scale) + " " + spec.unit})
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
		spec := trendCharts[name]
		out = append(out, chart.Trend("trend-"+strings.TrimPrefix(name, "thruput_"), spec.title+", "+spec.unit+" per run\n"+chart.Context(docs), spec.unit, kept))
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
