package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

func TestGroupOutputs(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	g := result.NewClientGroup("srv", []result.GroupClient{
		{Client: "a", MbitPerSecond: f(30), Run: "r1"},
		{Client: "b", MbitPerSecond: f(10), Run: "r2"},
		{Client: "c", Error: "the server is busy running a test; try again later"},
	})
	if g.AggregateMbitPerSecond != 40 || g.Jain == nil || math.Abs(*g.Jain-0.8) > 1e-12 || g.Failed() != 1 {
		t.Fatalf("group: %+v", g)
	}
	var tbl, md, js bytes.Buffer
	if err := WriteFairness(&tbl, []result.ClientGroup{g}, "table"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"30.00", "failed: the server is busy", "aggregate", "40.00", "Jain's fairness index 0.800"} {
		if !strings.Contains(tbl.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, tbl.String())
		}
	}
	if err := WriteFairness(&md, []result.ClientGroup{g}, "markdown"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.String(), "| client | server | Mbit/s | status |\n|---|---|---|---|\n") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if err := WriteFairness(&js, []result.ClientGroup{g}, "json"); err != nil {
		t.Fatal(err)
	}
	var back []map[string]any
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back[0]["jain_fairness_index"] != 0.8 || back[0]["aggregate_mbit_per_second"] != 40.0 {
		t.Errorf("json: %s", js.String())
	}
}

// TestGroupLatency: a group measured with latency under its load prints
// the latency block under the clients' table, as text and markdown, and
// keeps the section in its JSON; a group without has neither.
func TestGroupLatency(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	g := result.NewClientGroup("srv", []result.GroupClient{{Client: "1", MbitPerSecond: f(47)}, {Client: "2", MbitPerSecond: f(46)}})
	g.LoadLatency = &result.LoadLatency{Probe: "udp-echo", Port: 5201, IntervalNs: 10e6,
		Idle:   &result.LatencyPhase{Phase: "idle", Sent: 50, Received: 50, RTT: &result.Delays{Samples: 50, P50Ns: 50e3, P50LowNs: 48e3, P50HighNs: 52e3}},
		Loaded: []result.LatencyPhase{{Phase: "up", Sent: 200, Received: 200, RTT: &result.Delays{Samples: 200, P50Ns: 91e6, P50LowNs: 90e6, P50HighNs: 92e6}}}}
	for _, format := range []string{"table", "markdown"} {
		var b bytes.Buffer
		if err := WriteFairness(&b, []result.ClientGroup{g}, format); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		i, j := strings.Index(out, "Jain's fairness index"), strings.Index(out, "Latency under load (UDP echo to port 5201, every 10ms)")
		if i < 0 || j < i || !strings.Contains(out[j:], "91.0") {
			t.Errorf("%s: no latency block under the clients:\n%s", format, out)
		}
	}
	var js bytes.Buffer
	if err := WriteFairness(&js, []result.ClientGroup{g}, "json"); err != nil {
		t.Fatal(err)
	}
	var back []struct {
		LoadLatency *result.LoadLatency `json:"latency_under_load"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back[0].LoadLatency == nil || back[0].LoadLatency.Loaded[0].RTT.P50Ns != 91e6 {
		t.Errorf("json: %v\n%s", err, js.String())
	}
	g.LoadLatency = nil
	var b bytes.Buffer
	if err := WriteFairness(&b, []result.ClientGroup{g}, "table"); err != nil || strings.Contains(b.String(), "Latency") {
		t.Errorf("a group without latency: %v\n%s", err, b.String())
	}
}
