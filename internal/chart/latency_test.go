package chart

import (
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// latencyDoc is a download whose probes met 0.05 ms idle and about 90 ms
// through the loaded queue, in 100 ms bins, one bin all lost.
func latencyDoc() *result.Document {
	d := netDoc()
	l := &result.LoadLatency{Probe: "udp-echo", Port: 5201, IntervalNs: 10e6, BinNs: 100e6,
		Idle: &result.LatencyPhase{Phase: "idle", Sent: 50, Received: 50,
			RTT: &result.Delays{Samples: 50, MinNs: 30e3, P50Ns: 50e3, P90Ns: 70e3, P99Ns: 300e3, MaxNs: 400e3}},
		Loaded: []result.LatencyPhase{{Phase: "down", Sent: 500, Received: 490,
			RTT: &result.Delays{Samples: 490, MinNs: 1e6, P50Ns: 90.5e6, P90Ns: 100.2e6, P99Ns: 102.5e6, MaxNs: 104e6}}}}
	rtt := func(ns int64) *int64 { return &ns }
	for i := range 5 {
		l.Series = append(l.Series, result.LatencyPoint{AtNs: int64(i) * 100e6, Phase: "idle", RTTNs: rtt(50e3), Sent: 10})
	}
	for i := 5; i < 15; i++ {
		p := result.LatencyPoint{AtNs: int64(i) * 100e6, Phase: "down", RTTNs: rtt(int64(i-4) * 9e6), Sent: 10}
		if i == 9 {
			p.RTTNs, p.Lost = nil, 10
		}
		l.Series = append(l.Series, p)
	}
	d.LoadLatency = l
	return d
}

// TestLatencyCharts: a run with latency under load gets the round trip
// over time, a point per answered bin and a series per phase, and the
// distribution of idle against loaded at the section's quantiles; both
// render as standalone SVG and PNG. A run without, or whose probes were
// all lost, gets none.
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
		{14, "idle down", []string{"idle, 0 to 0.1 s: median round trip 0.05 ms of 10 probe(s)", "down, 1.4 to 1.5 s: median round trip 90 ms of 10 probe(s)"}},
		{10, "idle down", []string{"idle round trip p99: 0.3 ms (50 probes answered)", "down round trip p50: 90.5 ms (490 probes answered)"}},
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
}
