package headline

import (
	"testing"

	"github.com/thruput/thruput/internal/result"
)

func TestSummary(t *testing.T) {
	io := func(rw string, runs ...result.IORun) *result.Document {
		return &result.Document{Method: "disk.io", IO: &result.IO{
			Parameters: result.IOParameters{RW: rw, BlockSize: 4096, IODepth: 32, Jobs: 1}, Runs: runs}}
	}
	dir := func(iops, mib float64) *result.IODirection { return &result.IODirection{IOPS: iops, MiBPerSec: mib} }
	sum := func(dir string, bps float64) result.NetSum {
		return result.NetSum{Direction: dir, Sender: result.NetFigure{Bytes: 1, BitsPerSecond: bps * 1.01},
			Receiver: result.NetFigure{Bytes: 1, BitsPerSecond: bps}}
	}
	for _, c := range []struct {
		name string
		doc  *result.Document
		want string
	}{
		{"sweep", &result.Document{Method: "disk.sweep", Sweep: &result.Sweep{Steps: []result.SweepStep{
			{Phase: "write", BlockSize: 4096, MiBPerSec: 3.2},
			{Phase: "read", BlockSize: 4096, MiBPerSec: 9.1, Cache: "cold"},
			{Phase: "write", BlockSize: 1 << 20, MiBPerSec: 20.94},
			{Phase: "read", BlockSize: 1 << 20, MiBPerSec: 23.66, Cache: "cold"},
			{Phase: "write", BlockSize: 8 << 20, MiBPerSec: 19.0},
		}}}, "read 23.7 MiB/s, write 20.9 MiB/s (max)"},
		{"sweep write only", &result.Document{Method: "disk.sweep", Sweep: &result.Sweep{Steps: []result.SweepStep{
			{Phase: "write", MiBPerSec: 5}}}}, "write 5.0 MiB/s (max)"},
		{"sweep cached read", &result.Document{Method: "disk.sweep", Sweep: &result.Sweep{Steps: []result.SweepStep{
			{Phase: "read", MiBPerSec: 3000, Cache: "cached"}, {Phase: "read", MiBPerSec: 20, Cache: "cold"}}}},
			"read 3000.0 MiB/s cached (max)"},
		{"sweep failed before a step", &result.Document{Method: "disk.sweep", Sweep: &result.Sweep{}}, ""},
		{"random", &result.Document{Method: "disk.random", Random: &result.Random{
			Parameters: result.RandomParameters{Mode: "rndrw", BlockSize: 16384},
			Reads:      600, Writes: 400, RequestsPerSec: 1234.4, ReadMiBPerSec: 11.55, WriteMiBPerSec: 7.72}},
			"16 KiB rndrw 1234 req/s, read 11.6 MiB/s, write 7.7 MiB/s"},
		{"random reads only", &result.Document{Method: "disk.random", Random: &result.Random{
			Parameters: result.RandomParameters{Mode: "rndrd", BlockSize: 4096},
			Reads:      50, RequestsPerSec: 45.25, ReadMiBPerSec: 0.18}},
			"4 KiB rndrd 45.2 req/s, read 0.2 MiB/s"},
		{"io", io("randread", result.IORun{Read: dir(67000, 261.7)}, result.IORun{Read: dir(68308, 266.9)}),
			"4 KiB randread Q32T1 67654 IOPS, 264.3 MiB/s (mean of 2)"},
		{"io one run", io("write", result.IORun{Write: dir(20.5, 0.08)}), "4 KiB write Q32T1 20.5 IOPS, 0.1 MiB/s"},
		{"io mixed", io("randrw", result.IORun{Read: dir(1000, 3.9), Write: dir(500, 1.96)}),
			"4 KiB randrw Q32T1 read 1000 IOPS, 3.9 MiB/s; write 500 IOPS, 2.0 MiB/s"},
		{"io no runs", io("randread"), ""},
		{"io cached", io("read", result.IORun{Read: &result.IODirection{IOPS: 900, MiBPerSec: 900, Device: &result.DeviceShare{Share: 0.02, Cached: true}}}),
			"4 KiB read Q32T1 900 IOPS, 900.0 MiB/s cached"},
		// A tmpfs has no device to count what it served: its files are
		// memory, and the read is marked so.
		{"random on tmpfs", &result.Document{Method: "disk.random", Targets: []result.Target{{Path: "/tmp", FSType: "tmpfs"}},
			Random: &result.Random{Parameters: result.RandomParameters{BlockSize: 16 << 10, Mode: "rndrd"}, Reads: 100, ReadMiBPerSec: 1200, RequestsPerSec: 76800}},
			"16 KiB rndrd 76800 req/s, read 1200.0 MiB/s cached"},
		{"mark", &result.Document{Method: "disk.mark", Mark: &result.Mark{Results: []result.MarkResult{
			{Preset: "SEQ1M Q8T1", Phase: "read", MiBPerSec: 429.38, Device: &result.DeviceShare{Share: 0.01, Cached: true}},
			{Preset: "SEQ1M Q1T1", Phase: "read", MiBPerSec: 300},
			{Preset: "RND4K Q32T1", Phase: "write", MiBPerSec: 40},
			{Preset: "SEQ1M Q8T1", Phase: "write", MiBPerSec: 362.46},
		}}}, "SEQ1M Q8T1 read 429.4 MiB/s cached, write 362.5 MiB/s"},
		{"net up", &result.Document{Method: "net.client", Net: &result.Net{Sums: []result.NetSum{sum("up", 941.2e6)}}}, "up 941.2 Mbit/s"},
		{"net bidir", &result.Document{Method: "net.server", Net: &result.Net{Sums: []result.NetSum{sum("down", 410e6), sum("up", 520.55e6)}}},
			"up 520.5 Mbit/s, down 410.0 Mbit/s"},
		{"net down with latency under load", &result.Document{Method: "net.client", Net: &result.Net{Sums: []result.NetSum{sum("down", 94.1e6)}},
			LoadLatency: &result.LoadLatency{Loaded: []result.LatencyPhase{
				{Phase: "up", RTT: &result.Delays{P50Ns: 4e6}},
				{Phase: "down", RTT: &result.Delays{P50Ns: 90.5e6}, Added: &result.Added{Ns: 90.47e6}}}}},
			"down 94.1 Mbit/s, loaded RTT 90.5 ms (+90.5 ms over idle)"},
		{"net latency without answers under load", &result.Document{Method: "net.client", Net: &result.Net{Sums: []result.NetSum{sum("down", 94.1e6)}},
			LoadLatency: &result.LoadLatency{Idle: &result.LatencyPhase{Phase: "idle", RTT: &result.Delays{P50Ns: 1e5}}, Loaded: []result.LatencyPhase{{Phase: "down", Sent: 10}}}},
			"down 94.1 Mbit/s"},
		{"net receiver reported nothing", &result.Document{Method: "net.client", Net: &result.Net{Sums: []result.NetSum{
			{Direction: "up", Sender: result.NetFigure{Bytes: 100, BitsPerSecond: 8e6}}}}}, ""},
		{"http", &result.Document{Method: "net.http", HTTP: &result.HTTP{Runs: []result.HTTPRun{
			{TransferNs: 1e9, MiBPerSec: 110}, {TransferNs: 1e9, MiBPerSec: 112.5}, {TransferNs: 1e8, MiBPerSec: 1, Error: "reset"}}}},
			"111.2 MiB/s (mean of 2)"},
		{"http one", &result.Document{Method: "net.http", HTTP: &result.HTTP{Runs: []result.HTTPRun{{TransferNs: 1e9, MiBPerSec: 11.04}}}}, "11.0 MiB/s"},
		{"http all failed", &result.Document{Method: "net.http", HTTP: &result.HTTP{Runs: []result.HTTPRun{{Error: "refused"}}}}, ""},
		{"no section", &result.Document{Method: "disk.mark"}, ""},
		{"unknown method", &result.Document{Method: "sysinfo"}, ""},
	} {
		if got := Summary(c.doc); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// widgets is a section no method has, as latency under load once was.
type widgets struct{}

func (widgets) Measured() bool               { return true }
func (widgets) Figures() []result.Figure     { return nil }
func (widgets) Params() any                  { return nil }
func (widgets) Brief([]result.Target) string { return "3.5 widgets/s" }

// TestSectionBrief: a section the headline knows nothing of adds its
// words after the method's, and never stands in for them.
func TestSectionBrief(t *testing.T) {
	d := &result.Document{Method: result.MethodNetClient, Net: &result.Net{Sums: []result.NetSum{
		{Direction: "up", Receiver: result.NetFigure{Bytes: 1, BitsPerSecond: 941.2e6}}}}}
	if got, want := brief(d, append(d.Sections(), widgets{})), "up 941.2 Mbit/s, 3.5 widgets/s"; got != want {
		t.Errorf("brief = %q, want %q", got, want)
	}
	d.Net.Sums = nil
	if got := brief(d, append(d.Sections(), widgets{})); got != "" {
		t.Errorf("a run whose method measured nothing: brief %q, want none", got)
	}
}
