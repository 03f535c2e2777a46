package suite

import (
	"slices"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestUnsettled: a figure without an interval, one still too wide at its
// bound and one with too few windows to tell are named with where their
// run measured; one that got there (converged, or as narrow as asked at
// its bound), or that ran for a fixed bound, is not.
func TestUnsettled(t *testing.T) {
	sweep := &result.Document{Method: result.MethodSweep, Targets: []result.Target{{Path: "/mnt/sweep", FSType: "ext4"}},
		Sweep: &result.Sweep{Steps: []result.SweepStep{
			{Phase: "write", BlockSize: 512},
			{Phase: "read", BlockSize: 512, Interval: &result.Interval{Mean: 1e6, HalfWidth: 5e4, Relative: 0.05, Target: 0.02}},
			{Phase: "write", BlockSize: 4096, Interval: &result.Interval{Target: 0.02}},
			{Phase: "read", BlockSize: 4096, Interval: &result.Interval{Mean: 1e6, HalfWidth: 1e4, Relative: 0.01, Target: 0.02, Converged: true}},
			{Phase: "write", BlockSize: 1 << 20, Interval: &result.Interval{Mean: 1e6, HalfWidth: 5e4, Relative: 0.05}},
			// Its bound came first, but the interval is as narrow as asked.
			{Phase: "write", BlockSize: 8192, Interval: &result.Interval{Mean: 1e6, HalfWidth: 1e4, Relative: 0.01, Target: 0.02}},
		}}}
	net := &result.Document{Method: result.MethodNetClient, Net: &result.Net{Parameters: result.NetParameters{Server: "pi4:5201"},
		Sums: []result.NetSum{{Direction: "up"}}}}
	got := Unsettled([]*result.Document{sweep, net})
	want := []string{
		"disk.sweep /mnt/sweep 512 write (too short for an interval)",
		"disk.sweep /mnt/sweep 512 read (±5.0%, wanted ±2%)",
		"disk.sweep /mnt/sweep 4k write (too few windows, wanted ±2%)",
		"net.client pi4:5201 up (too short for an interval)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
