package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/thruput/thruput/internal/result"
)

func lat(base int64) *result.Latency {
	return &result.Latency{Count: 1000, MinNs: base, MeanNs: float64(base) * 2, MaxNs: base * 50, P50Ns: base * 2, P95Ns: base * 4, P99Ns: base * 8, P999Ns: base * 20}
}

func baseDoc(method string) *result.Document {
	t0 := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	return &result.Document{
		FormatVersion: result.FormatVersion, ID: "20261121T060000Z-123456", Method: method,
		Tool:      result.Tool{Name: "thruput", Version: "test", GoVersion: "go1.26", Platform: "linux/arm64"},
		StartedAt: t0, EndedAt: t0.Add(time.Minute), Status: result.StatusOK,
		Host:    result.Host{Hostname: "pi4", Kernel: "6.6.51", Board: "Raspberry Pi 4 Model B Rev 1.4", CPUGovernor: "ondemand"},
		Targets: []result.Target{{Path: "/mnt/ssd", FSType: "ext4", MountPoint: "/mnt/ssd", Device: "sda", Partition: "sda1", DeviceModel: "Samsung SSD 870"}},
	}
}

func methodDocs() map[string]*result.Document {
	r := baseDoc("disk.random")
	r.Random = &result.Random{
		Parameters: result.RandomParameters{Files: 128, TotalSize: 5 << 30, FileSize: 40 << 20, Mode: "rndrw", RWRatio: 1.5, BlockSize: 16 << 10,
			FsyncEvery: 100, FsyncEnd: true, FsyncMode: "fsync", Threads: 2, TimeNs: 300e9, CacheDropped: true},
		ElapsedNs: 300e9, Reads: 27810, Writes: 18540, Fsyncs: 185, EndFsyncs: 128, ReadBytes: 27810 << 14, WrittenBytes: 18540 << 14,
		RequestsPerSec: 154.5, ReadsPerSec: 92.7, WritesPerSec: 61.8, FsyncsPerSec: 0.6, ReadMiBPerSec: 1.4, WriteMiBPerSec: 0.9,
		Latency: lat(80e3), ReadLatency: lat(80e3), WriteLatency: lat(100e3), FsyncLatency: lat(5e6),
		Threads:  []result.ThreadStats{{Requests: 23300, ElapsedNs: 299e9}, {Requests: 23235, ElapsedNs: 299e9}},
		Fairness: result.Fairness{Requests: result.Spread{N: 2, Mean: 23267.5, Stddev: 46, Min: 23235, Max: 23300}, ElapsedNs: result.Spread{N: 2, Mean: 299e9, Min: 299e9, Max: 299e9}},
	}
	r.Bottlenecks = []result.Bottleneck{{Figure: "read+write /mnt/ssd", BytesPerSec: 2.4e6, Limit: 0, Share: 0.057,
		Hops: []result.Hop{
			{Name: "sda", Link: "USB 2.0 mass storage (Bulk-Only)", CeilingBytesPerSec: 42e6, Basis: "usb-storage at 480M"},
			{Name: "USB root hub usb1 (dwc_otg, hub)", Link: "USB 2.0 high speed", CeilingBytesPerSec: 53.248e6, Basis: "480M negotiated"},
		},
		SharedWith: []string{"eth0 (smsc95xx) behind USB root hub usb1 (dwc_otg, hub)"},
		Verdict:    "2.3 MiB/s is only 6 % of the USB 2.0 mass storage (Bulk-Only) ceiling of 40.1 MiB/s at sda, the lowest on the way: the device itself or the CPU is the limit, not a link."}}
	io := baseDoc("disk.io")
	run := func(iops float64) result.IORun {
		return result.IORun{ElapsedNs: 5e9, Read: &result.IODirection{IOs: int64(iops * 5), Bytes: int64(iops*5) << 12, IOPS: iops, MiBPerSec: iops / 256, Latency: lat(300e3)}}
	}
	io.IO = &result.IO{Parameters: result.IOParameters{RW: "read", MixRead: 50, BlockSize: 4096, IODepth: 64, Jobs: 1, Size: 4 << 30, Direct: true, Engine: "io_uring", Repeat: 2},
		Engine: "sync", EngineNote: "io_uring not available (test): ran the sync engine, one request at a time",
		Runs: []result.IORun{run(10100), run(10050)},
		Summary: &result.IOSummary{ReadIOPS: &result.Spread{N: 2, Mean: 10075, Stddev: 35.4, Min: 10050, Max: 10100},
			ReadMiBPerSec: &result.Spread{N: 2, Mean: 39.4, Stddev: 0.1, Min: 39.3, Max: 39.5}}}
	m := baseDoc("disk.mark")
	m.Mark = &result.Mark{MarkParameters: result.MarkParameters{Size: 1 << 30, DurationNs: 5e9, Direct: true}, Engine: "io_uring"}
	for i, p := range []string{"SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"} {
		for j, ph := range []string{"read", "write"} {
			mb := 400.0 / float64(i+1) / float64(j+1)
			m.Mark.Results = append(m.Mark.Results, result.MarkResult{Preset: p, Phase: ph, MBPerSec: mb, MiBPerSec: mb / 1.048576, IOPS: mb * 1e6 / 4096, Latency: lat(1e5)})
		}
	}
	return map[string]*result.Document{"random": r, "io": io, "mark": m, "net": netDoc(), "net-udp": netUDPDoc()}
}

func i64(v int64) *int64     { return &v }
func f64(v float64) *float64 { return &v }
func netFig(bytes int64, secs float64) result.NetFigure {
	return result.NetFigure{Bytes: bytes, Seconds: secs, BitsPerSecond: float64(bytes) * 8 / secs}
}

// netDoc is a client's TCP test both ways with two streams each.
func netDoc() *result.Document {
	d := baseDoc("net.client")
	d.Targets = []result.Target{}
	n := &result.Net{Parameters: result.NetParameters{Role: "client", Server: "192.168.1.10:5201", Protocol: "tcp", Streams: 2,
		Direction: "bidir", DurationNs: 10e9, OmitNs: 2e9, BlockSize: 131072, Congestion: "cubic"}}
	for i, id := range []int64{1, 3, 4, 5} {
		dir, local := result.DirUp, "sender"
		if i >= 2 {
			dir, local = result.DirDown, "receiver"
		}
		snd, rcv := netFig(58e6+int64(i)*1e6, 10), netFig(57.9e6+int64(i)*1e6, 10.02)
		snd.Retransmits = i64(int64(i * 3))
		n.Streams = append(n.Streams, result.NetStream{ID: id, Direction: dir, Local: local, Sender: snd, Receiver: rcv})
	}
	up, down := netFig(117e6, 10), netFig(121e6, 10)
	up.Retransmits, down.Retransmits = i64(3), i64(15)
	n.Sums = []result.NetSum{{Direction: result.DirUp, Sender: up, Receiver: netFig(116.8e6, 10.02)},
		{Direction: result.DirDown, Sender: down, Receiver: netFig(120.8e6, 10.02)}}
	for k := range 3 {
		iv := result.NetInterval{StartNs: int64(k) * 1e9, EndNs: int64(k+1) * 1e9, Omitted: k < 2}
		for _, s := range n.Streams {
			f := result.NetIntervalFlow{ID: s.ID, Direction: s.Direction, Sender: s.Local == "sender", Bytes: 5.8e6, BitsPerSecond: 46.4e6}
			if f.Sender {
				f.Retransmits, f.CwndBytes, f.RTTUs = i64(1), 256<<10, 1800
			}
			iv.Streams = append(iv.Streams, f)
		}
		iv.Sums = []result.NetIntervalFlow{{Direction: result.DirUp, Sender: true, Bytes: 11.6e6, BitsPerSecond: 92.8e6, Retransmits: i64(2)},
			{Direction: result.DirDown, Bytes: 11.6e6, BitsPerSecond: 92.8e6}}
		n.Intervals = append(n.Intervals, iv)
	}
	n.CPU = result.NetCPU{LocalTotal: 35.5, LocalUser: 2.5, LocalSystem: 33, RemoteTotal: f64(41), RemoteUser: f64(1), RemoteSystem: f64(40)}
	d.Net = n
	return d
}

// netUDPDoc is a server's view of a UDP upload that lost datagrams and
// failed before the results exchange.
func netUDPDoc() *result.Document {
	d := baseDoc("net.server")
	d.Targets = []result.Target{}
	d.Status, d.Error = result.StatusFailed, "control connection: EOF"
	snd, rcv := netFig(11.9e6, 1), netFig(11.7e6, 1)
	snd.Packets = i64(8200)
	rcv.Packets, rcv.Lost, rcv.OutOfOrder, rcv.JitterMs = i64(8200), i64(140), i64(2), f64(0.25)
	d.Net = &result.Net{
		Parameters: result.NetParameters{Role: "server", Server: ":5201", Client: "192.168.1.20:40112", PeerVersion: "3.12", Protocol: "udp",
			Streams: 1, Direction: result.DirUp, DurationNs: 1e9, BlockSize: 1448, BitrateBps: 95e6},
		Intervals: []result.NetInterval{{StartNs: 0, EndNs: 1e9,
			Streams: []result.NetIntervalFlow{{ID: 1, Direction: result.DirUp, Bytes: 11.7e6, BitsPerSecond: 93.6e6, Packets: i64(8200), Lost: i64(140), JitterMs: f64(0.25)}},
			Sums:    []result.NetIntervalFlow{{Direction: result.DirUp, Bytes: 11.7e6, BitsPerSecond: 93.6e6, Packets: i64(8200), Lost: i64(140), JitterMs: f64(0.25)}}}},
		Streams: []result.NetStream{{ID: 1, Direction: result.DirUp, Local: "receiver", Sender: snd, Receiver: rcv}},
		Sums:    []result.NetSum{{Direction: result.DirUp, Sender: snd, Receiver: rcv}},
		CPU:     result.NetCPU{LocalTotal: 4.5, LocalUser: 1.5, LocalSystem: 3},
	}
	return d
}

func TestMethodGolden(t *testing.T) {
	for name, doc := range methodDocs() {
		for _, format := range []string{"table", "csv", "markdown"} {
			// The markdown goldens show the other unit systems.
			units := ""
			if format == "markdown" && name == "mark" {
				units = UnitsMB
			} else if format == "markdown" && name == "net" {
				units = UnitsBoth
			}
			checkGolden(t, name, doc, Options{Format: format, Units: units})
		}
	}
}

// TestOneProcessCPU: the suite's loopback test shows the CPU of its one
// process once, not as two ends that agree.
func TestOneProcessCPU(t *testing.T) {
	doc := methodDocs()["net"]
	doc.Net.CPU.OneProcess = true
	var buf bytes.Buffer
	if err := Write(&buf, doc, Options{Format: "table"}); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); !strings.Contains(s, "CPU of both ends") || !strings.Contains(s, "one process") || strings.Contains(s, "at the other end") {
		t.Errorf("one process, two CPU figures:\n%s", s)
	}
}
