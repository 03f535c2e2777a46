package result

import (
	"testing"
)

func TestSummary(t *testing.T) {
	io := func(rw string, runs ...IORun) *Document {
		return &Document{Method: "disk.io", IO: &IO{
			Parameters: IOParameters{RW: rw, BlockSize: 4096, IODepth: 32, Jobs: 1}, Runs: runs}}
	}
	dir := func(iops, mib float64) *IODirection { return &IODirection{IOPS: iops, MiBPerSec: mib} }
	sum := func(dir string, bps float64) NetSum {
		return NetSum{Direction: dir, Sender: NetFigure{Bytes: 1, BitsPerSecond: bps * 1.01},
			Receiver: NetFigure{Bytes: 1, BitsPerSecond: bps}}
	}
	for _, c := range []struct {
		name string
		doc  *Document
		want string
	}{
		{"sweep", &Document{Method: "disk.sweep", Sweep: &Sweep{Steps: []SweepStep{
			{Phase: "write", BlockSize: 4096, MiBPerSec: 3.2},
			{Phase: "read", BlockSize: 4096, MiBPerSec: 9.1, Cache: "cold"},
			{Phase: "write", BlockSize: 1 << 20, MiBPerSec: 20.94},
			{Phase: "read", BlockSize: 1 << 20, MiBPerSec: 23.66, Cache: "cold"},
			{Phase: "write", BlockSize: 8 << 20, MiBPerSec: 19.0},
		}}}, "read 23.7 MiB/s, write 20.9 MiB/s (max)"},
		{"sweep write only", &Document{Method: "disk.sweep", Sweep: &Sweep{Steps: []SweepStep{
			{Phase: "write", MiBPerSec: 5}}}}, "write 5.0 MiB/s (max)"},
		{"sweep cached read", &Document{Method: "disk.sweep", Sweep: &Sweep{Steps: []SweepStep{
			{Phase: "read", MiBPerSec: 3000, Cache: "cached"}, {Phase: "read", MiBPerSec: 20, Cache: "cold"}}}},
			"read 3000.0 MiB/s cached (max)"},
		{"sweep failed before a step", &Document{Method: "disk.sweep", Sweep: &Sweep{}}, ""},
		{"random", &Document{Method: "disk.random", Random: &Random{
			Parameters: RandomParameters{Mode: "rndrw", BlockSize: 16384},
			Reads:      600, Writes: 400, RequestsPerSec: 1234.4, ReadMiBPerSec: 11.55, WriteMiBPerSec: 7.72}},
			"16 KiB rndrw 1234 req/s, read 11.6 MiB/s, write 7.7 MiB/s"},
		{"random reads only", &Document{Method: "disk.random", Random: &Random{
			Parameters: RandomParameters{Mode: "rndrd", BlockSize: 4096},
			Reads:      50, RequestsPerSec: 45.25, ReadMiBPerSec: 0.18}},
			"4 KiB rndrd 45.2 req/s, read 0.2 MiB/s"},
		{"io", io("randread", IORun{Read: dir(67000, 261.7)}, IORun{Read: dir(68308, 266.9)}),
			"4 KiB randread Q32T1 67654 IOPS, 264.3 MiB/s (mean of 2)"},
		{"io one run", io("write", IORun{Write: dir(20.5, 0.08)}), "4 KiB write Q32T1 20.5 IOPS, 0.1 MiB/s"},
		{"io mixed", io("randrw", IORun{Read: dir(1000, 3.9), Write: dir(500, 1.96)}),
			"4 KiB randrw Q32T1 read 1000 IOPS, 3.9 MiB/s; write 500 IOPS, 2.0 MiB/s"},
		{"io no runs", io("randread"), ""},
		{"io cached", io("read", IORun{Read: &IODirection{IOPS: 900, MiBPerSec: 900, Device: &DeviceShare{Share: 0.02, Cached: true}}}),
			"4 KiB read Q32T1 900 IOPS, 900.0 MiB/s cached"},
		// A tmpfs has no device to count what it served: its files are
		// memory, and the read is marked so.
		{"random on tmpfs", &Document{Method: "disk.random", Targets: []Target{{Path: "/tmp", FSType: "tmpfs"}},
			Random: &Random{Parameters: RandomParameters{BlockSize: 16 << 10, Mode: "rndrd"}, Reads: 100, ReadMiBPerSec: 1200, RequestsPerSec: 76800}},
			"16 KiB rndrd 76800 req/s, read 1200.0 MiB/s cached"},
		{"mark", &Document{Method: "disk.mark", Mark: &Mark{Results: []MarkResult{
			{Preset: "SEQ1M Q8T1", Phase: "read", MiBPerSec: 429.38, Device: &DeviceShare{Share: 0.01, Cached: true}},
			{Preset: "SEQ1M Q1T1", Phase: "read", MiBPerSec: 300},
			{Preset: "RND4K Q32T1", Phase: "write", MiBPerSec: 40},
			{Preset: "SEQ1M Q8T1", Phase: "write", MiBPerSec: 362.46},
		}}}, "SEQ1M Q8T1 read 429.4 MiB/s cached, write 362.5 MiB/s"},
		{"net up", &Document{Method: "net.client", Net: &Net{Sums: []NetSum{sum("up", 941.2e6)}}}, "up 941.2 Mbit/s"},
		{"net bidir", &Document{Method: "net.server", Net: &Net{Sums: []NetSum{sum("down", 410e6), sum("up", 520.55e6)}}},
			"up 520.5 Mbit/s, down 410.0 Mbit/s"},
		{"net down with latency under load", &Document{Method: "net.client", Net: &Net{Sums: []NetSum{sum("down", 94.1e6)}},
			LoadLatency: &LoadLatency{Loaded: []LatencyPhase{
				{Phase: "up", RTT: &Delays{P50Ns: 4e6}},
				{Phase: "down", RTT: &Delays{P50Ns: 90.5e6}, Added: &Added{Ns: 90.47e6}}}}},
			"down 94.1 Mbit/s, loaded RTT 90.5 ms (+90.5 ms over idle)"},
		// Loopback: tens of microseconds, and a loaded median a hair
		// under the idle one.
		{"net loopback latency", &Document{Method: "net.client", Net: &Net{Sums: []NetSum{sum("up", 9.5e9)}},
			LoadLatency: &LoadLatency{Loaded: []LatencyPhase{
				{Phase: "up", RTT: &Delays{P50Ns: 41_000}, Added: &Added{Ns: -300}}}}},
			"up 9500.0 Mbit/s, loaded RTT 0.041 ms (0.000 ms over idle)"},
		{"net lan latency", &Document{Method: "net.client", Net: &Net{Sums: []NetSum{sum("up", 941e6)}},
			LoadLatency: &LoadLatency{Loaded: []LatencyPhase{
				{Phase: "up", RTT: &Delays{P50Ns: 2_470_000}, Added: &Added{Ns: 2_310_000}}}}},
			"up 941.0 Mbit/s, loaded RTT 2.47 ms (+2.31 ms over idle)"},
		{"net latency without answers under load", &Document{Method: "net.client", Net: &Net{Sums: []NetSum{sum("down", 94.1e6)}},
			LoadLatency: &LoadLatency{Idle: &LatencyPhase{Phase: "idle", RTT: &Delays{P50Ns: 1e5}}, Loaded: []LatencyPhase{{Phase: "down", Sent: 10}}}},
			"down 94.1 Mbit/s"},
		{"net receiver reported nothing", &Document{Method: "net.client", Net: &Net{Sums: []NetSum{
			{Direction: "up", Sender: NetFigure{Bytes: 100, BitsPerSecond: 8e6}}}}}, ""},
		{"http", &Document{Method: "net.http", HTTP: &HTTP{Runs: []HTTPRun{
			{TransferNs: 1e9, MiBPerSec: 110}, {TransferNs: 1e9, MiBPerSec: 112.5}, {TransferNs: 1e8, MiBPerSec: 1, Error: "reset"}}}},
			"111.2 MiB/s (mean of 2)"},
		{"http one", &Document{Method: "net.http", HTTP: &HTTP{Runs: []HTTPRun{{TransferNs: 1e9, MiBPerSec: 11.04}}}}, "11.0 MiB/s"},
		{"http all failed", &Document{Method: "net.http", HTTP: &HTTP{Runs: []HTTPRun{{Error: "refused"}}}}, ""},
		{"no section", &Document{Method: "disk.mark"}, ""},
		{"unknown method", &Document{Method: "sysinfo"}, ""},
	} {
		if got := c.doc.Summary(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// widgets is a section no method has, as latency under load once was.
type widgets struct{}

func (widgets) Measured() bool        { return true }
func (widgets) Figures() []Figure     { return nil }
func (widgets) Params() any           { return nil }
func (widgets) Brief([]Target) string { return "3.5 widgets/s" }

// TestSectionBrief: a section the headline knows nothing of adds its
// words after the method's, and never stands in for them.
func TestSectionBrief(t *testing.T) {
	d := &Document{Method: MethodNetClient, Net: &Net{Sums: []NetSum{
		{Direction: "up", Receiver: NetFigure{Bytes: 1, BitsPerSecond: 941.2e6}}}}}
	if got, want := brief(d, append(d.Sections(), widgets{})), "up 941.2 Mbit/s, 3.5 widgets/s"; got != want {
		t.Errorf("brief = %q, want %q", got, want)
	}
	d.Net.Sums = nil
	if got := brief(d, append(d.Sections(), widgets{})); got != "" {
		t.Errorf("a run whose method measured nothing: brief %q, want none", got)
	}
}

// TestSummarySuspect: the list's line of a suspect run says so and why,
// each reason once.
func TestSummarySuspect(t *testing.T) {
	d := &Document{Method: "net.client", Net: &Net{Sums: []NetSum{
		{Direction: "up", Sender: NetFigure{Bytes: 1, BitsPerSecond: 1e9}, Receiver: NetFigure{Bytes: 1, BitsPerSecond: 941.2e6}}}},
		Health: &Health{Suspect: []Suspect{{Reason: "under-voltage", AtS: 2}, {Reason: "kernel error", AtS: 3}, {Reason: "kernel error", AtS: 4}}}}
	if got, want := d.Summary(), "up 941.2 Mbit/s ! suspect (under-voltage, kernel error)"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	d.Health.Suspect = nil
	if got := d.Summary(); got != "up 941.2 Mbit/s" {
		t.Errorf("healthy Summary = %q", got)
	}
}
