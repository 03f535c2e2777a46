package chart

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// latencyDoc is a download whose probes met 0.05 ms idle and a queue
// filling to about 90 ms under its 3 s of load, in 100 ms bins, one bin
// all lost; its load started 0.5 s into the probe stream.
func latencyDoc() *result.Document {
	d := netDoc()
	l := &result.LoadLatency{Probe: "udp-echo", Port: 5201, IntervalNs: 10e6, BinNs: 100e6, LoadStartNs: 500e6,
		Idle: &result.LatencyPhase{Phase: "idle", Sent: 50, Received: 50,
			RTT: &result.Delays{Samples: 50, MinNs: 30e3, P50Ns: 50e3, P90Ns: 70e3, P99Ns: 300e3, MaxNs: 400e3},
			// From 10^(196/40) ns, 79 µs, in bins 5.9 % wide: the last
			// ends at 10^5 ns.
			RTTHistogram: &result.LatencyHistogram{PerDecade: 40, First: 196, Counts: []int{10, 0, 30, 10}}},
		Loaded: []result.LatencyPhase{{Phase: "down", Sent: 500, Received: 490,
			RTT:          &result.Delays{Samples: 490, MinNs: 1e6, P50Ns: 90.5e6, P90Ns: 100.2e6, P99Ns: 102.5e6, MaxNs: 104e6},
			RTTHistogram: &result.LatencyHistogram{PerDecade: 40, First: 316, Counts: []int{100, 0, 340, 50}}}}}
	rtt := func(ns int64) *int64 { return &ns }
	for i := range 5 {
		l.Series = append(l.Series, result.LatencyPoint{AtNs: int64(i) * 100e6, Phase: "idle", RTTNs: rtt(50e3), Sent: 10})
	}
	for i := range 30 {
		p := result.LatencyPoint{AtNs: 500e6 + int64(i)*100e6, Phase: "down", RTTNs: rtt(int64(min(i+1, 10)) * 9e6), Sent: 10}
		if i == 4 {
			p.RTTNs, p.Lost = nil, 10
		}
		l.Series = append(l.Series, p)
	}
	d.LoadLatency = l
	return d
}

// TestLatencyCharts: a run with latency under load gets the round trip
// over time, a point per answered bin and a series per phase, and the
// distribution of idle against loaded from the phases' histograms, a
// point per non-empty bin; both render as standalone SVG and PNG. A run
// without, or whose probes were all lost, gets none, and a histogram a
// damaged document makes absurd is left out.
func TestLatencyCharts(t *testing.T) {
	cs := Latency(latencyDoc())
	if len(cs) != 2 || cs[0].Name != "latency" || cs[1].Name != "latency-cdf" {
		t.Fatalf("charts %v", cs)
	}
	for i, want := range []struct {
		points  int
		legend  string
		contain []string
	}{
		{34, "idle down", []string{"idle, 0 to 0.1 s: median round trip 0.05 ms of 10 probe(s)", "down, 3.4 to 3.5 s: median round trip 90 ms of 10 probe(s)"}},
		// The idle phase's three non-empty bins and the load's three,
		// each after a point at 0 % where its first bin starts.
		{8, "idle down", []string{"idle: none of 50 round trips below 0.0794328 ms", "down: none of 490 round trips below 79.4328 ms", "idle: 20 % of 50 round trips at or below 0.0841395 ms", "idle: 100 % of 50 round trips at or below 0.1 ms",
			"down: 20.4082 % of 490 round trips at or below 84.1395 ms", "down: 100 % of 490 round trips at or below 100 ms"}},
	} {
		svg, err := cs[i].SVG()
		if err != nil {
			t.Fatal(err)
		}
		titles := svgCheck(t, cs[i].Name, svg)
		if len(titles) != want.points || strings.Join(cs[i].legendNames, " ") != want.legend {
			t.Errorf("%s: %d points, legend %q; want %d, %q", cs[i].Name, len(titles), cs[i].legendNames, want.points, want.legend)
		}
		all := strings.Join(titles, "\n")
		for _, w := range want.contain {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no point %q in\n%s", cs[i].Name, w, all)
			}
		}
		png, err := cs[i].PNG()
		if err != nil {
			t.Fatal(err)
		}
		pngCheck(t, cs[i].Name, png)
	}
	if cs := Latency(netDoc()); cs != nil {
		t.Errorf("charts without the section: %v", cs)
	}
	lost := latencyDoc()
	lost.LoadLatency.Idle.Received, lost.LoadLatency.Loaded[0].Received = 0, 0
	if cs := Latency(lost); cs != nil {
		t.Errorf("charts of probes all lost: %v", cs)
	}
	bad := latencyDoc()
	bad.LoadLatency.Idle.RTTHistogram.First = math.MaxInt32 // the largest a 32-bit int holds
	bad.LoadLatency.Loaded[0].RTTHistogram = &result.LatencyHistogram{PerDecade: 1e9, Counts: make([]int, 3)}
	if cs := Latency(bad); len(cs) != 1 || cs[0].Name != "latency" {
		t.Errorf("charts of absurd histograms: %v", cs)
	}
}

var idlePath = regexp.MustCompile(`<path class="idle" [^>]*data-ms="([^"]*)"><title>([^<]*)</title>`)

// TestLatencyOnThroughput: a network run's throughput chart carries its
// loaded round trip, a point per answered bin at the test's own time
// (the load's start is its zero), on an axis of milliseconds on the right,
// and the idle median as a line across; the chart still renders as PNG.
// Without the load's start (a document from before it was kept) the
// chart is the throughput alone.
func TestLatencyOnThroughput(t *testing.T) {
	d := latencyDoc()
	d.Health = suspectHealth()
	charts, err := For([]*result.Document{d}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	var net *Chart
	for _, c := range charts {
		if c.Name == "net" {
			net = c
		}
	}
	if net == nil {
		t.Fatalf("no throughput chart in %v", charts)
	}
	b, err := net.SVG()
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	var rtt []string
	for _, title := range svgCheck(t, "net", b) {
		if strings.HasSuffix(title, "(right axis)") {
			rtt = append(rtt, title)
		}
	}
	// 30 bins of load, one all lost.
	if len(rtt) != 29 || rtt[0] != "down, 0 to 0.1 s: median round trip 9 ms of 10 probe(s) (right axis)" ||
		rtt[28] != "down, 2.9 to 3 s: median round trip 90 ms of 10 probe(s) (right axis)" {
		t.Errorf("round trips on the throughput chart: %d, %q", len(rtt), rtt)
	}
	if m := idlePath.FindAllStringSubmatch(svg, -1); len(m) != 1 || m[0][1] != "0.05" || m[0][2] != "idle median round trip 0.05 ms (right axis)" {
		t.Errorf("idle line %q", m)
	}
	// The right axis: its label and its top tick (97.2 ms up to 100).
	for _, want := range []string{">round trip under load, ms<", ">100<", "round trip (right axis)"} {
		if !strings.Contains(svg, want) {
			t.Errorf("throughput chart lacks %q", want)
		}
	}
	if evs := eventPath.FindAllStringSubmatch(svg, -1); len(evs) != 2 {
		t.Errorf("health events beside the round trip: %q", evs)
	}
	png, err := net.PNG()
	if err != nil {
		t.Fatal(err)
	}
	pngCheck(t, "net", png)

	d.LoadLatency.LoadStartNs = 0
	charts, err = For([]*result.Document{d}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		if b, _ := c.SVG(); strings.Contains(string(b), "right axis") {
			t.Errorf("%s: a round trip without the load's start", c.Name)
		}
	}
}
