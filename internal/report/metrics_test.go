package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/promtest"
	"github.com/thruput/thruput/internal/result"
)

// TestMetrics: the latest run of each series wins, no label names a run,
// and Prometheus' own linter accepts the page.
func TestMetrics(t *testing.T) {
	old, newer := sweepDoc(), sweepDoc()
	old.Status, newer.Status = result.StatusOK, result.StatusOK
	newer.EndedAt = old.EndedAt.Add(time.Hour)
	for i := range newer.Sweep.Steps {
		newer.Sweep.Steps[i].MiBPerSec = 100
	}
	var docs []*result.Document
	docs = append(docs, old, newer)
	for _, name := range []string{"random", "io", "mark", "net", "net-udp"} {
		d := methodDocs()[name]
		d.Status = result.StatusOK
		docs = append(docs, d)
	}
	failed := sweepDoc()
	failed.Status = result.StatusPartial
	failed.Host.Hostname = "elsewhere"
	docs = append(docs, failed, httpDoc())
	var buf bytes.Buffer
	if err := WriteMetrics(&buf, docs); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		`# TYPE thruput_disk_sweep_bytes_per_second gauge`,
		`thruput_disk_sweep_bytes_per_second{block_size="4k",host="raspberrypi",phase="write",target="/media/ext4"} 1.048576e+08`,
		`thruput_disk_mark_bytes_per_second{`, `thruput_disk_io_operations_per_second{`, `thruput_net_bytes_per_second{`,
		`thruput_last_run_timestamp_seconds{host="raspberrypi",method="disk.sweep"}`, "# EOF\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("metrics lack %q:\n%s", want, page)
		}
	}
	for _, bad := range []string{old.ID, "elsewhere", "run="} {
		if strings.Contains(page, bad) {
			t.Errorf("metrics hold %q: a run id, or a run that did not end ok", bad)
		}
	}
	promtest.Check(t, []byte(page))
}

// TestLatencyMetrics: a network run's latency under load gives its round
// trip per phase and quantile in seconds, the added latency, the probe
// loss and RPM, each with a help line, and promtool accepts the page.
func TestLatencyMetrics(t *testing.T) {
	d := netDoc()
	d.Status = result.StatusOK
	d.LoadLatency = loadLatency()
	var buf bytes.Buffer
	if err := WriteMetrics(&buf, []*result.Document{d}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		`thruput_net_latency_rtt_seconds{host="pi4",peer="192.168.1.10:5201",percentile="50",phase="idle",role="client"} 8.4e-05`,
		`thruput_net_latency_rtt_seconds{host="pi4",peer="192.168.1.10:5201",percentile="99",phase="down",role="client"} 0.0981`,
		`thruput_net_latency_added_seconds{host="pi4",peer="192.168.1.10:5201",phase="down",role="client"} 0.096`,
		`thruput_net_latency_probe_loss_ratio{host="pi4",peer="192.168.1.10:5201",phase="down",role="client"} 0.005`,
		`thruput_net_latency_rpm{host="pi4",peer="192.168.1.10:5201",phase="down",role="client"} 624`,
		"# HELP thruput_net_latency_added_seconds Latency a network test's load added",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("metrics lack %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, `thruput_net_latency_added_seconds{host="pi4",peer="192.168.1.10:5201",phase="idle"`) {
		t.Errorf("an added latency for the idle phase:\n%s", page)
	}
	promtest.Check(t, []byte(page))
}

// widgets is a section no method has: what a section added later (health,
// latency under load once) gives the metrics and a list's headline
// without a change in either.
type widgets struct{}

var widgetRate = result.Gauge{Name: "thruput_widgets_per_second", Help: "Widgets a test section counted, the latest run's."}

func (widgets) Measured() bool { return true }
func (widgets) Params() any    { return nil }
func (widgets) Figures() []result.Figure {
	fig := func(step string, repeat int, v float64) result.Figure {
		return result.Figure{Group: "widgets", Step: step, Metric: "widgets/s", Repeat: repeat, Value: v,
			Series: widgetRate.Sample(v, "kind", step)}
	}
	// Repeats of a figure are averaged; a step measured twice without
	// repeats gives its later figure.
	return []result.Figure{fig("round", 1, 3), fig("round", 2, 4), fig("square", 0, 1), fig("square", 0, 2),
		{Group: "widgets", Step: "round", Metric: "peak widgets/s", Value: 9}}
}
func (widgets) Brief([]result.Target) string { return "3.5 widgets/s" }

// TestSectionMetrics: a section the metrics know nothing of gives its
// series with their help line, labelled with the run's host and what the
// run measured, its repeats as their mean.
func TestSectionMetrics(t *testing.T) {
	d := netDoc()
	var buf bytes.Buffer
	if err := writeSamples(&buf, samples(d, append(d.Sections(), widgets{}))); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		"# HELP thruput_widgets_per_second Widgets a test section counted, the latest run's.\n# TYPE thruput_widgets_per_second gauge\n",
		`thruput_widgets_per_second{host="pi4",kind="round",peer="192.168.1.10:5201",role="client"} 3.5` + "\n",
		`thruput_widgets_per_second{host="pi4",kind="square",peer="192.168.1.10:5201",role="client"} 2` + "\n",
		`thruput_net_bytes_per_second{`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("metrics lack %q:\n%s", want, page)
		}
	}
	if strings.Count(page, "thruput_widgets_per_second{") != 2 {
		t.Errorf("a figure without a series gave one, or a repeat a series of its own:\n%s", page)
	}
	promtest.Check(t, []byte(page))
}
