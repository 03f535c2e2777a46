package sqlite

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/thruput/thruput/internal/result"
)

// t0 is the start of the test history.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// runID makes an id the way thruput run does: start time, then random hex.
func runID(start time.Time, n int) string {
	return fmt.Sprintf("%s-%06x", start.UTC().Format("20060102T150405Z"), n&0xffffff)
}

func bptr(b bool) *bool { return &b }

// doc is a small document of any method, for the round-trip tests.
func doc(id, method, host string, start time.Time, labels map[string]string) *result.Document {
	d := &result.Document{
		FormatVersion: result.FormatVersion,
		Tool:          result.Tool{Name: "thruput", Version: "test", GoVersion: "go1.26.8", Platform: "linux/arm/v6"},
		ID:            id,
		Method:        result.Method(method),
		Argv:          []string{"thruput", method},
		StartedAt:     start,
		EndedAt:       start.Add(30 * time.Second),
		Status:        result.StatusOK,
		Host:          result.Host{Hostname: host, Arch: "armv6l", CPUCores: 1},
		Labels:        labels,
	}
	switch method {
	case "disk.sweep":
		d.Targets = []result.Target{{Path: "/mnt/usb", FSType: "ext4", Device: "sda"}}
		d.Sweep = &result.Sweep{Steps: []result.SweepStep{
			{Phase: "write", BlockSize: 4096, MiBPerSec: 12.5},
			{Phase: "write", BlockSize: 1 << 20, MiBPerSec: 20.94},
			{Phase: "read", BlockSize: 4096, MiBPerSec: 18, Cache: "cold"},
			{Phase: "read", BlockSize: 1 << 20, MiBPerSec: 23.71, Cache: "cold"},
		}}
	case "disk.random":
		d.Targets = []result.Target{{Path: "/srv/data", FSType: "xfs"}}
		d.Random = &result.Random{Parameters: result.RandomParameters{Mode: "rndrw", BlockSize: 16384},
			Reads: 600, Writes: 400, RequestsPerSec: 1234.4, ReadMiBPerSec: 11.55, WriteMiBPerSec: 7.72}
	case "disk.io":
		d.Targets = []result.Target{{Path: "/mnt/nvme", FSType: "ext4"}}
		d.IO = &result.IO{Parameters: result.IOParameters{RW: "randread", BlockSize: 4096, IODepth: 32, Jobs: 1},
			Runs: []result.IORun{{Read: &result.IODirection{IOPS: 67654, MiBPerSec: 264.27}}}}
	case "net.client", "net.server":
		d.Net = &result.Net{Parameters: result.NetParameters{Role: "client", Server: "pi4.lan:5201", Protocol: "tcp", Direction: "up"},
			Sums: []result.NetSum{{Direction: "up", Receiver: result.NetFigure{Bytes: 1 << 30, BitsPerSecond: 941.2e6}}}}
	case "net.http":
		d.HTTP = &result.HTTP{Parameters: result.HTTPParameters{URL: "http://mirror.lan/1G.bin"},
			Runs: []result.HTTPRun{{Bytes: 1 << 30, TransferNs: 9e9, MiBPerSec: 113.8}}}
	}
	return d
}

// realisticDoc is a full-size disk.sweep or net.client document with the
// system description thruput attaches, for the benchmarks: about what a
// real run stores.
func realisticDoc(i int, rng *rand.Rand) *result.Document {
	start := t0.Add(time.Duration(i) * 17 * time.Minute)
	hosts := []string{"pi1", "pi3", "pi4", "pi5", "zero2"}
	devices := []string{"sandisk-extreme", "samsung-evo", "kingston-a400", "wd-blue", "intenso"}
	method := "disk.sweep"
	if i%4 == 3 {
		method = "net.client"
	}
	d := doc(runID(start, i), method, hosts[i%len(hosts)], start, map[string]string{
		"device":  devices[i%len(devices)],
		"site":    []string{"lab", "home"}[i%2],
		"channel": fmt.Sprint(1 + i%11),
	})
	d.Host = result.Host{Hostname: d.Host.Hostname, Kernel: "6.6.51+rpt-rpi-v6", OS: "Raspbian GNU/Linux 12 (bookworm)",
		Arch: "armv6l", Board: "Raspberry Pi Model B Rev 2", CPUModel: "ARMv6-compatible processor rev 7 (v6l)",
		CPUCores: 1, MemoryBytes: 478 << 20, CPUGovernor: "ondemand"}
	if method == "disk.sweep" {
		d.Targets = []result.Target{{Path: "/mnt/usb", FSType: "ext4", MountPoint: "/mnt/usb", MountOptions: "rw,relatime",
			MountSource: "/dev/sda1", Device: "sda", Partition: "sda1", DeviceModel: "SanDisk Extreme", LogicalBlockSize: 512,
			Rotational: bptr(false), FreeBytes: 60 << 30}}
		sw := &result.Sweep{Parameters: result.SweepParameters{FileSize: 64 << 20, MaxTimeNs: 10e9, Write: true, Read: true, Data: "random"}}
		for bs := int64(512); bs <= 4<<20; bs *= 2 {
			sw.Parameters.BlockSizes = append(sw.Parameters.BlockSizes, bs)
			for _, ph := range []string{"write", "read"} {
				frac := rng.Float64() * 0.01
				sw.Steps = append(sw.Steps, result.SweepStep{Phase: ph, BlockSize: bs, Bytes: 64 << 20, Ops: (64 << 20) / bs,
					ElapsedNs: 3e9 + rng.Int64N(1e9), FsyncNs: rng.Int64N(1e8), MiBPerSec: 5 + rng.Float64()*30,
					Eviction: "fadvise", Cache: "cold", CachedFraction: &frac})
			}
		}
		d.Sweep = sw
	} else {
		n := d.Net
		for k := range 10 {
			n.Intervals = append(n.Intervals, result.NetInterval{StartNs: int64(k) * 1e9, EndNs: int64(k+1) * 1e9,
				Streams: []result.NetIntervalFlow{{ID: 5, Direction: "up", Sender: true, Bytes: 117e6, BitsPerSecond: 936e6, CwndBytes: 400000, RTTUs: 700}},
				Sums:    []result.NetIntervalFlow{{Direction: "up", Sender: true, Bytes: 117e6, BitsPerSecond: 936e6}}})
		}
		n.Streams = []result.NetStream{{ID: 5, Direction: "up", Local: "sender", LocalAddr: "10.0.0.2:40000", RemoteAddr: "10.0.0.1:5201",
			Sender: result.NetFigure{Bytes: 1170e6, Seconds: 10, BitsPerSecond: 936e6}, Receiver: result.NetFigure{Bytes: 1170e6, Seconds: 10, BitsPerSecond: 935e6}}}
	}
	d.System = &result.System{
		CPU: result.CPU{CurKHz: 700000, MinKHz: 700000, MaxKHz: 1000000, Governor: "ondemand", Throttled: "0x0", ThrottledNow: bptr(false)},
		BlockDevices: []result.BlockDevice{
			{Name: "mmcblk0", Model: "SC16G", SizeBytes: 16 << 30, Rotational: bptr(false), Scheduler: "mq-deadline", Bus: "mmc", MMCTiming: "sd high-speed", MMCClockHz: 50e6, MMCBusWidth: 4},
			{Name: "sda", Model: "Extreme", Vendor: "SanDisk", SizeBytes: 64 << 30, Rotational: bptr(false), Scheduler: "mq-deadline", Bus: "usb", Driver: "usb-storage", USBPath: "1-1.2"},
		},
		USB: []result.USBDevice{
			{Path: "usb1", Bus: 1, Ports: 1, SpeedMbps: 480, VendorID: "1d6b", ProductID: "0002", Product: "DWC OTG Controller", Class: "hub", Drivers: []string{"hub"}},
			{Path: "1-1", Parent: "usb1", Bus: 1, Port: 1, DevNum: 2, Ports: 3, SpeedMbps: 480, VendorID: "0424", ProductID: "9512", Class: "hub", Drivers: []string{"hub"}},
			{Path: "1-1.1", Parent: "1-1", Bus: 1, Port: 1, DevNum: 3, SpeedMbps: 480, VendorID: "0424", ProductID: "ec00", Class: "vendor", Drivers: []string{"smsc95xx"}},
			{Path: "1-1.2", Parent: "1-1", Bus: 1, Port: 2, DevNum: 4, SpeedMbps: 480, VendorID: "0781", ProductID: "5581", Product: "Extreme", Class: "mass-storage", Drivers: []string{"usb-storage"}},
		},
		NetInterfaces: []result.NetInterface{{Name: "eth0", Driver: "smsc95xx", SpeedMbps: 100, Duplex: "full", MTU: 1500, Carrier: bptr(true), Bus: "usb", USBPath: "1-1.1"}},
		Interrupts:    []result.Interrupt{{IRQ: "56", Name: "dwc_otg", PerCPU: []int64{123456789}}, {IRQ: "86", Name: "mmc0", PerCPU: []int64{4567}}},
	}
	d.Bottlenecks = []result.Bottleneck{{Figure: "read", BytesPerSec: 24e6, Limit: 1, Share: 0.6, Verdict: "the USB 2.0 bus limits this run",
		Hops: []result.Hop{{Name: "sda", Link: "usb-storage"}, {Name: "1-1.2", Link: "USB 2.0 high speed", CeilingBytesPerSec: 40e6, Basis: "480 Mbit/s less protocol overhead"}, {Name: "usb1", Link: "DWC OTG"}}}}
	return d
}

// rngFor makes the random figures of document i the same in every process.
func rngFor(i int) *rand.Rand { return rand.New(rand.NewPCG(uint64(i), 1)) }
