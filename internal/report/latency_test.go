package report

import (
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestLatencyBlock: the block under a network test's table names its
// probe, prints a row per phase and ends with what was lost and the
// verdict; a stock server's handshake probes say so.
func TestLatencyBlock(t *testing.T) {
	d := func(p50, spread int64) *result.Delays {
		return &result.Delays{Samples: 100, P50Ns: p50, P90Ns: p50 + 10*spread, P99Ns: p50 + 20*spread, P50LowNs: p50 - spread, P50HighNs: p50 + spread}
	}
	l := &result.LoadLatency{Probe: "tcp-connect", Port: 5201, IntervalNs: 10e6, IdleAfter: true,
		Idle:    &result.LatencyPhase{Phase: "idle", Sent: 100, Received: 100, RTT: d(84e3, 4e3)},
		Loaded:  []result.LatencyPhase{{Phase: "down", Sent: 400, Received: 398, Loss: 0.005, RTT: d(96.1e6, 1e5), Added: &result.Added{Ns: 96e6, LowNs: 95.9e6, HighNs: 96.2e6}, RPM: &result.RPM{Value: 624, Low: 623, High: 625}}},
		Lost:    "latency probes lost: the path drops UDP to port 5201",
		Verdict: "the link added 96 ms under load in the download direction: a deep queue (bufferbloat) in front of the slowest hop"}
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
}
