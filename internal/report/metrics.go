package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// lastRun is the one gauge of a run rather than of a figure: when it
// ended.
var lastRun = result.Gauge{Name: "thruput_last_run_timestamp_seconds", Help: "When the latest run of a method on a host ended, in seconds since 1970."}

type metricSample struct {
	gauge  result.Gauge
	labels map[string]string
	value  float64
}

// key names the sample's series.
func (s metricSample) key() string { return s.gauge.Name + "{" + labelText(s.labels) + "}" }

// WriteMetrics writes the latest figure of every series in docs in the
// Prometheus text format, ending with OpenMetrics' # EOF (a comment to
// Prometheus' parser): what node_exporter's textfile collector reads and
// thruput serve's /metrics sends. A series is a host, a method, a target
// and a step; its labels never name a run, so they stay few. docs are
// oldest first; a later run of a series replaces an earlier one.
func WriteMetrics(w io.Writer, docs []*result.Document) error {
	var all []metricSample
	for _, d := range docs {
		if d.Status == result.StatusOK {
			all = append(all, samples(d, d.Sections())...)
		}
	}
	return writeSamples(w, all)
}

// writeSamples writes samples as a page of gauges, each with its help
// line; a later sample of a series replaces an earlier one.
func writeSamples(w io.Writer, all []metricSample) error {
	latest := map[string]metricSample{}
	byName := map[string][]string{}
	help := map[string]string{}
	for _, s := range all {
		k := s.key()
		if _, ok := latest[k]; !ok {
			byName[s.gauge.Name] = append(byName[s.gauge.Name], k)
		}
		latest[k] = s
		if _, ok := help[s.gauge.Name]; !ok {
			help[s.gauge.Name] = s.gauge.Help
		}
	}
	ew := &errWriter{w: w}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		ew.printf("# HELP %s %s\n# TYPE %s gauge\n", name, help[name], name)
		keys := byName[name]
		slices.Sort(keys)
		for _, k := range keys {
			ew.printf("%s %s\n", k, strconv.FormatFloat(latest[k].value, 'g', -1, 64))
		}
	}
	ew.printf("# EOF\n")
	return ew.err
}

// samples are the series of d's sections' figures, labelled with d's host
// and what it measured, a figure's repeats as their mean; then, when
// there is one, when d ended.
func samples(d *result.Document, sections []result.Section) []metricSample {
	var out []metricSample
	var n []int
	at := map[string]int{}
	for _, s := range sections {
		for _, f := range s.Figures() {
			x := f.Series
			if x == nil {
				continue
			}
			m := sample(d, x.Gauge, x.Value, append(d.SeriesLabels(f), x.Labels...))
			k := m.key()
			i, seen := at[k]
			switch {
			case !seen:
				at[k] = len(out)
				out, n = append(out, m), append(n, 1)
			case f.Repeat > 0:
				out[i].value += m.value
				n[i]++
			default:
				// A step the run measured twice (an imported dd
				// transcript's): the later is the latest, as a later
				// run's is.
				out[i] = m
			}
		}
	}
	for i := range out {
		out[i].value /= float64(n[i])
	}
	if len(out) > 0 && !d.EndedAt.IsZero() {
		out = append(out, sample(d, lastRun, float64(d.EndedAt.UnixNano())/1e9, []string{"method", string(d.Method)}))
	}
	return out
}

// sample is v as a sample of g on d's host, with the labels kv (name,
// value, name, value ...).
func sample(d *result.Document, g result.Gauge, v float64, kv []string) metricSample {
	l := map[string]string{"host": d.Host.Hostname}
	for i := 0; i+1 < len(kv); i += 2 {
		l[kv[i]] = kv[i+1]
	}
	return metricSample{g, l, v}
}

// labelText prints labels sorted by name, values escaped as the text
// format wants.
func labelText(l map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(l)) {
		v := strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`).Replace(l[k])
		parts = append(parts, fmt.Sprintf(`%s="%s"`, k, v))
	}
	return strings.Join(parts, ",")
}
