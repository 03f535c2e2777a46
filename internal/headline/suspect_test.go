package headline

import (
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestSummarySuspect: the list's line of a suspect run says so and why,
// each reason once.
func TestSummarySuspect(t *testing.T) {
	d := &result.Document{Method: "net.client", Net: &result.Net{Sums: []result.NetSum{
		{Direction: "up", Sender: result.NetFigure{Bytes: 1, BitsPerSecond: 1e9}, Receiver: result.NetFigure{Bytes: 1, BitsPerSecond: 941.2e6}}}},
		Health: &result.Health{Suspect: []result.Suspect{{Reason: "under-voltage", AtS: 2}, {Reason: "kernel error", AtS: 3}, {Reason: "kernel error", AtS: 4}}}}
	if got, want := Summary(d), "up 941.2 Mbit/s ! suspect (under-voltage, kernel error)"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	d.Health.Suspect = nil
	if got := Summary(d); got != "up 941.2 Mbit/s" {
		t.Errorf("healthy Summary = %q", got)
	}
}
