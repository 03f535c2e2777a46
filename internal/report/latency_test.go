package report

import (
	"bytes"
	"encoding/csv"
	"regexp"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestLatencyBlock: the block under a network test's table names its
// probe, prints a row per phase and ends with what was lost and the
// verdict; a stock server's handshake probes say so.
func TestLatencyBlock(t *testing.T) {
	l := loadLatency()
	var b strings.Builder
	if err := latencyTable(l).text(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Latency under load (TCP handshakes to port 5201, every 10ms)",
		"idle (after)  ", "0.084  [0.080, 0.088]",
		"down   ", "0.5 %", "96.1", "+96.0 [+95.9, +96.2]", "624 [623, 625]",
		"probes are TCP handshakes (the server offered no UDP echo)",
		"  latency probes lost: the path drops UDP to port 5201\n",
		"  " + l.Verdict + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if latencyTable(nil) != nil {
		t.Error("a table without the section")
	}
	// A slow paced test's load probed less often than its idle path.
	l.IntervalNs, l.IdleIntervalNs = 100e6, 10e6
	b.Reset()
	if err := latencyTable(l).text(&b); err != nil {
		t.Fatal(err)
	}
	if want := "Latency under load (TCP handshakes to port 5201, idle every 10ms, loaded every 100ms)"; !strings.Contains(b.String(), want) {
		t.Errorf("no %q in\n%s", want, b.String())
	}
}

// loadLatency is a download's latency under load through a deep queue,
// probed with handshakes after a UDP echo was dropped.
func loadLatency() *result.LoadLatency {
	d := func(p50, spread int64) *result.Delays {
		return &result.Delays{Samples: 100, MinNs: p50 / 2, P50Ns: p50, P90Ns: p50 + 10*spread, P99Ns: p50 + 20*spread, MaxNs: p50 + 30*spread, P50LowNs: p50 - spread, P50HighNs: p50 + spread}
	}
	return &result.LoadLatency{Probe: "tcp-connect", Port: 5201, IntervalNs: 10e6, IdleAfter: true,
		Idle:    &result.LatencyPhase{Phase: "idle", Sent: 100, Received: 100, RTT: d(84e3, 4e3)},
		Loaded:  []result.LatencyPhase{{Phase: "down", Sent: 400, Received: 398, Loss: 0.005, RTT: d(96.1e6, 1e5), Added: &result.Added{Ns: 96e6, LowNs: 95.9e6, HighNs: 96.2e6}, RPM: &result.RPM{Value: 624, Low: 623, High: 625}}},
		Lost:    "latency probes lost: the path drops UDP to port 5201",
		Verdict: "the link added 96 ms under load in the download direction: a deep queue (bufferbloat) in front of the slowest hop"}
}

// TestLatencyCSVMarkdown: a network run's CSV gains the latency columns
// and a row per probe phase, every row as wide as the header; a run
// without the section keeps the throughput columns alone; markdown
// carries the latency block as a table.
func TestLatencyCSVMarkdown(t *testing.T) {
	d := netDoc()
	d.LoadLatency = loadLatency()
	var b bytes.Buffer
	if err := Write(&b, d, Options{Format: "csv"}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll() // fails on a row of another width
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var lat [][]string
	for _, r := range rows[1:] {
		if r[col["stream"]] == "latency" {
			lat = append(lat, r)
		} else if r[col["rtt_p50_ns"]] != "" {
			t.Errorf("a throughput row with latency cells: %q", r)
		}
	}
	if len(lat) != 2 {
		t.Fatalf("latency rows %q, want idle and down", lat)
	}
	for name, want := range map[string]string{"direction": "down", "side": "tcp-connect", "probes_sent": "400", "probes_received": "398", "probe_loss": "0.005",
		"rtt_p50_ns": "96100000", "rtt_p50_low_ns": "96000000", "rtt_p50_high_ns": "96200000", "rtt_p99_ns": "98100000",
		"up_p50_ns": "", "added_ns": "96000000", "added_low_ns": "95900000", "rpm": "624.0", "rpm_high": "625.0", "bits_per_second": ""} {
		if got := lat[1][col[name]]; got != want {
			t.Errorf("down's %s = %q, want %q", name, got, want)
		}
	}
	if lat[0][col["direction"]] != "idle" || lat[0][col["rtt_p50_ns"]] != "84000" || lat[0][col["added_ns"]] != "" {
		t.Errorf("idle row %q", lat[0])
	}

	b.Reset()
	if err := Write(&b, netDoc(), Options{Format: "csv"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "rtt_p50_ns") {
		t.Errorf("latency columns without the section:\n%s", b.String())
	}

	b.Reset()
	if err := Write(&b, d, Options{Format: "markdown"}); err != nil {
		t.Fatal(err)
	}
	if md := b.String(); !strings.Contains(md, "Latency under load (TCP handshakes to port 5201, every 10ms)") || !strings.Contains(md, "| down ") {
		t.Errorf("markdown lacks the latency block:\n%s", md)
	}
}

// TestLatencyHTML: a network run's page draws its loaded round trip on
// its throughput chart, on an axis of its own at the test's time, and
// under it the round trip over the probe stream and the distribution of
// idle against loaded, a point per non-empty bin of each phase's
// histogram and one where it starts.
func TestLatencyHTML(t *testing.T) {
	d := netDoc()
	d.LoadLatency = loadLatency()
	l := d.LoadLatency
	l.BinNs, l.LoadStartNs = 100e6, 20e6
	for i := range 4 {
		ns := int64(i+1) * 20e6
		l.Series = append(l.Series, result.LatencyPoint{AtNs: 20e6 + int64(i)*100e6, Phase: "down", RTTNs: &ns, Sent: 10})
	}
	l.Idle.RTTHistogram = &result.LatencyHistogram{PerDecade: 40, First: 196, Counts: []int{20, 70, 10}}
	l.Loaded[0].RTTHistogram = &result.LatencyHistogram{PerDecade: 40, First: 317, Counts: []int{30, 0, 300, 68}}
	var b bytes.Buffer
	if err := WriteHTML(&b, []*result.Document{d}, nil, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	ss := svgs(page)
	if len(ss) != 3 {
		t.Fatalf("%d charts, want the throughput's and two of latency", len(ss))
	}
	points := func(svg, suffix string) int {
		n := 0
		for _, m := range pointTitle.FindAllStringSubmatch(svg, -1) {
			if strings.HasSuffix(m[1], suffix) {
				n++
			}
		}
		return n
	}
	if !strings.Contains(ss[0], `data-chart="net"`) || points(ss[0], "(right axis)") != 4 ||
		!strings.Contains(ss[0], "down, 0.3 to 0.4 s: median round trip 80 ms of 10 probe(s) (right axis)") ||
		!strings.Contains(ss[0], `<path class="idle"`) || !strings.Contains(ss[0], ">round trip under load, ms<") {
		t.Errorf("the throughput chart does not carry the round trip: %d points of it", points(ss[0], "(right axis)"))
	}
	if !strings.Contains(ss[2], `data-chart="latency-cdf"`) || points(ss[2], "") != 3+1+3+1 ||
		!strings.Contains(ss[2], "down: 100 % of 398 round trips at or below 105.925 ms") {
		t.Errorf("the distribution has %d points, want 8:\n%s", points(ss[2], ""), ss[2])
	}
	for _, want := range []string{"Latency under load, median round trip per 100 ms, ms", "Round trips idle and under load, share at or below", "down, 0.32 to 0.42 s: median round trip 80 ms"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	checkLoadsNothing(t, page)
}

var pointTitle = regexp.MustCompile(`<path class="point" [^>]*><title>([^<]*)</title>`)
