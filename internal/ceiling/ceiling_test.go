package ceiling

import (
	"math"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// pi1 is a Raspberry Pi 1 Model B as lsusb -t shows it: the
// LAN9512's hub on the dwc_otg root hub, its Ethernet and a USB disk
// behind it, all at 480M.
func pi1() result.System {
	return result.System{
		USB: []result.USBDevice{
			{Path: "usb1", Bus: 1, SpeedMbps: 480, Class: "Hub", Drivers: []string{"dwc_otg", "hub"}},
			{Path: "1-1", Parent: "usb1", Bus: 1, Port: 1, SpeedMbps: 480, Class: "Hub", Drivers: []string{"hub"}},
			{Path: "1-1.1", Parent: "1-1", Bus: 1, Port: 1, SpeedMbps: 480, Class: "Vendor Specific Class", Drivers: []string{"smsc95xx"}},
			{Path: "1-1.2", Parent: "1-1", Bus: 1, Port: 2, SpeedMbps: 480, Class: "Mass Storage", Drivers: []string{"usb-storage"}},
		},
		BlockDevices: []result.BlockDevice{
			{Name: "sda", Bus: "usb", Driver: "usb-storage", USBPath: "1-1.2"},
			{Name: "mmcblk0", Bus: "mmc", MMCTiming: "sd high-speed", MMCClockHz: 50e6, MMCBusWidth: 4},
		},
		NetInterfaces: []result.NetInterface{{Name: "eth0", Driver: "smsc95xx", SpeedMbps: 100, MTU: 1500, Bus: "usb", USBPath: "1-1.1"}},
	}
}

func TestPi1USBDiskNamesSharedBus(t *testing.T) {
	sys := pi1()
	sys.Activity = []result.DeviceActivity{{Device: "eth0", BytesPerSec: 11e6}, {Device: "sda", BytesPerSec: 23e6}}
	hops, shared := Storage(sys, result.Target{Path: "/media/usb", Device: "sda"})
	// 22.5 MiB/s, an ext4 read of a USB disk on a Pi 1 by the dd loop.
	b := Judge("read /media/usb", 22.5*(1<<20), hops, shared, false)
	if len(hops) != 4 || b.Limit != 0 || hops[0].CeilingBytesPerSec != bulkOnlyUSB2 {
		t.Fatalf("hops %+v, limit %d", hops, b.Limit)
	}
	if math.Abs(b.Share-0.56) > 0.01 {
		t.Errorf("share %.3f, want 0.56 (22.5 MiB/s of 42 MB/s)", b.Share)
	}
	for _, want := range []string{"56 %", "USB 2.0", "eth0 (smsc95xx) behind USB hub 1-1 (hub), busy at 10.5 MiB/s during the run", "shared"} {
		if !strings.Contains(b.Verdict, want) {
			t.Errorf("verdict lacks %q: %s", want, b.Verdict)
		}
	}
	// The NIC's view: its 100 Mbit/s link is the ceiling, and the disk
	// shares its bus.
	hops, shared = Network(sys, "eth0")
	b = Judge("net up via eth0", 11.2e6, hops, shared, true)
	if b.Limit != 0 || math.Abs(hops[0].CeilingBytesPerSec*8/1e6-94.15) > 0.05 {
		t.Fatalf("eth0 ceiling %+v", hops[0])
	}
	if !strings.Contains(b.Verdict, "likely bottleneck") || !strings.Contains(b.Verdict, "sda (usb-storage)") {
		t.Errorf("eth0 verdict: %s", b.Verdict)
	}
}

func TestPi4SDNamesBusMode(t *testing.T) {
	sys := result.System{BlockDevices: []result.BlockDevice{{Name: "mmcblk0", Bus: "mmc", MMCTiming: "sd high-speed", MMCClockHz: 50e6, MMCBusWidth: 4}}}
	hops, shared := Storage(sys, result.Target{Path: "/", Device: "mmcblk0"})
	b := Judge("read /", 22e6, hops, shared, false)
	if hops[0].CeilingBytesPerSec != 25e6 {
		t.Fatalf("SD high-speed at 50 MHz, 4 bit: %v B/s, want 25 MB/s", hops[0].CeilingBytesPerSec)
	}
	if !strings.Contains(b.Verdict, "sd high-speed") || !strings.Contains(b.Verdict, "likely bottleneck") {
		t.Errorf("verdict: %s", b.Verdict)
	}
}

func TestCeilingsArithmetic(t *testing.T) {
	for _, c := range []struct {
		name string
		got  float64
		want float64
	}{
		{"100 Mbit/s Ethernet, MTU 1500", EthernetGoodput(100, 1500) * 8 / 1e6, 94.15},
		{"1 Gbit/s Ethernet, MTU 1500", EthernetGoodput(1000, 1500) * 8 / 1e6, 941.5},
		{"SATA 6", must(sataCeiling(6)) / 1e6, 600},
		{"PCIe gen 3 x4", must(pcieCeiling(8, 4)) / 1e6, 3938.5},
		{"PCIe gen 2 x1", must(pcieCeiling(5, 1)) / 1e6, 500},
		{"USB 2.0", must(usbCeiling(480)) / 1e6, 53.248},
		{"UHS-I SDR104 nominal", must(mmcCeiling(result.BlockDevice{MMCTiming: "uhs sdr104"})) / 1e6, 104},
		{"DDR50 at 50 MHz", must(mmcCeiling(result.BlockDevice{MMCTiming: "uhs ddr50", MMCClockHz: 50e6})) / 1e6, 50},
	} {
		if math.Abs(c.got-c.want) > c.want*0.001 {
			t.Errorf("%s: %.2f, want %.2f", c.name, c.got, c.want)
		}
	}
}

func must(_ string, v float64, ok bool) float64 {
	if !ok {
		return math.NaN()
	}
	return v
}

func TestUnknownAndVirtual(t *testing.T) {
	sys := result.System{BlockDevices: []result.BlockDevice{{Name: "vda", Bus: "virtio"}}}
	hops, shared := Storage(sys, result.Target{Path: "/", Device: "vda"})
	b := Judge("read /", 1e9, hops, shared, false)
	if b.Limit != -1 || !strings.Contains(b.Verdict, "virtual disk") {
		t.Errorf("virtio: %+v", b)
	}
	hops, _ = Storage(sys, result.Target{Path: "/x"})
	if b := Judge("read /x", 1e6, hops, nil, false); b.Limit != -1 || !strings.Contains(b.Verdict, "could not be read") {
		t.Errorf("unknown device: %s", b.Verdict)
	}
	w := result.System{NetInterfaces: []result.NetInterface{{Name: "wlan0", WiFi: &result.WiFiLink{TxBitrateMbps: 150}}}}
	hops, _ = Network(w, "wlan0")
	if b := Judge("net down via wlan0", 60e6/8, hops, nil, true); math.Abs(b.Share-60/97.5) > 0.01 {
		t.Errorf("WiFi at 150 Mbit/s PHY: share %.3f of %v", b.Share, hops[0].CeilingBytesPerSec)
	}
}

// names lists each hop's name and link, the lowest starred.
func names(hops []result.Hop) string {
	var s []string
	for i, h := range hops {
		mark := ""
		if i == Lowest(hops) {
			mark = "*"
		}
		s = append(s, mark+h.Name+" ["+h.Link+"]")
	}
	return strings.Join(s, " / ")
}

// TestStackedInterfaces: a bridge over a bond over two NICs, and a VLAN
// on one of them, are walked down to the hardware.
func TestStackedInterfaces(t *testing.T) {
	sys := result.System{NetInterfaces: []result.NetInterface{
		{Name: "br0", Bus: "virtual", Kind: "bridge", Lower: []string{"veth1", "bond0"}},
		{Name: "veth1", Bus: "virtual", Kind: "veth", Master: "br0"},
		{Name: "bond0", Bus: "virtual", Kind: "bond", Master: "br0", Lower: []string{"eth0", "eth1"}},
		{Name: "eth0", Bus: "platform", Driver: "bcmgenet", SpeedMbps: 1000, MTU: 1500, Master: "bond0"},
		{Name: "eth1", Bus: "platform", Driver: "bcmgenet", SpeedMbps: 100, MTU: 1500, Master: "bond0"},
		{Name: "eth0.10", Bus: "virtual", Kind: "vlan", Lower: []string{"eth0"}},
		{Name: "veth2", Bus: "virtual", Kind: "veth", Peer: "veth1"},
	}}
	// The bond has no hardware itself: the bridge goes on to it, not to
	// its veth port.
	hops, _ := Network(sys, "br0")
	if got := names(hops); got != "br0 [bridge] / bond0 [bond] / *eth0 [Ethernet 1000 Mbit/s]" {
		t.Errorf("br0: %s", got)
	}
	hops, _ = Network(sys, "eth0.10")
	if got := names(hops); got != "eth0.10 [vlan] / *eth0 [Ethernet 1000 Mbit/s]" {
		t.Errorf("eth0.10: %s", got)
	}
	hops, _ = Network(sys, "veth2")
	if len(hops) != 1 || !strings.Contains(hops[0].Basis, "veth1, a port of br0") {
		t.Errorf("veth2: %+v", hops)
	}
}

// TestUSBSpeedsAndChips: Bulk-Only at 5 Gbit/s has its own ceiling, a
// UAS quirk and a USB 3 disk held at 480M are said, and the Pi 3B+'s
// LAN7515 behind USB 2.0 tops at 300 Mbit/s.
func TestUSBSpeedsAndChips(t *testing.T) {
	sys := result.System{
		USB: []result.USBDevice{
			{Path: "usb2", Bus: 2, SpeedMbps: 5000, Class: "Hub"},
			{Path: "2-1", Parent: "usb2", Bus: 2, SpeedMbps: 5000, VendorID: "152d", ProductID: "0578", USBVersion: "3.20", Bridge: "JMicron JMS578 SATA 6Gb/s bridge", UASIgnored: true},
			{Path: "usb1", Bus: 1, SpeedMbps: 480, Class: "Hub"},
			{Path: "1-1", Parent: "usb1", Bus: 1, SpeedMbps: 480, USBVersion: "3.10"},
			{Path: "1-2", Parent: "usb1", Bus: 1, SpeedMbps: 480, VendorID: "0424", ProductID: "7800"},
		},
		BlockDevices: []result.BlockDevice{
			{Name: "sda", Bus: "usb", Driver: "usb-storage", USBPath: "2-1"},
			{Name: "sdb", Bus: "usb", Driver: "uas", USBPath: "1-1"},
		},
		NetInterfaces: []result.NetInterface{{Name: "eth0", Bus: "usb", Driver: "lan78xx", SpeedMbps: 1000, MTU: 1500, USBPath: "1-2"}},
	}
	hops, _ := Storage(sys, result.Target{Device: "sda"})
	if hops[0].CeilingBytesPerSec != bulkOnlySuper || !strings.Contains(hops[0].Basis, "UAS is disabled") || !strings.Contains(hops[0].Name, "JMS578") {
		t.Errorf("sda: %+v", hops[0])
	}
	// 186 MB/s read over Bulk-Only is 62 % of its ceiling: the verdict
	// names Bulk-Only, not the device.
	if b := Judge("read", 186e6, hops, nil, false); !strings.Contains(b.Verdict, "Bulk-Only") {
		t.Errorf("verdict %s", b.Verdict)
	}
	hops, shared := Storage(sys, result.Target{Device: "sdb"})
	if !strings.Contains(hops[0].Basis, "USB 3.1 device running at 480M") || len(shared) != 1 {
		t.Errorf("sdb: %+v shared %v", hops, shared)
	}
	hops, _ = Network(sys, "eth0")
	if got := names(hops); !strings.HasPrefix(got, "eth0 [Ethernet 1000 Mbit/s] / *USB network chip 0424:7800 (lan78xx) [Microchip LAN7800/LAN7515]") {
		t.Errorf("eth0: %s", got)
	}
}

// TestPCIeSharing: two NVMe drives behind one switch on a Pi 5's x1
// connector share its uplink; a Pi 5's Ethernet and USB share RP1's.
func TestPCIeSharing(t *testing.T) {
	up := result.PCIeLink{Slot: "0001:01:00.0", Driver: "pcieport", GTs: 5, Width: 1, MaxGTs: 8, MaxWidth: 1, Downgraded: true,
		Hint: "the Raspberry Pi 5 runs this connector at Gen 2: dtparam=pciex1_gen=3 in config.txt allows Gen 3"}
	rp1 := result.PCIeLink{Slot: "0002:01:00.0", Driver: "rp1", GTs: 5, Width: 4}
	sys := result.System{
		BlockDevices: []result.BlockDevice{
			{Name: "nvme0n1", Bus: "nvme", PCIePath: []result.PCIeLink{{Slot: "0001:03:00.0", Driver: "nvme", GTs: 8, Width: 1}, up}},
			{Name: "nvme1n1", Bus: "nvme", PCIePath: []result.PCIeLink{{Slot: "0001:04:00.0", Driver: "nvme", GTs: 8, Width: 1}, up}},
			{Name: "sda", Bus: "usb", Driver: "uas", USBPath: "4-1", PCIePath: []result.PCIeLink{rp1}},
		},
		USB:           []result.USBDevice{{Path: "usb4", Bus: 4, SpeedMbps: 5000}, {Path: "4-1", Parent: "usb4", Bus: 4, SpeedMbps: 5000}},
		NetInterfaces: []result.NetInterface{{Name: "eth0", Bus: "platform", Driver: "macb", SpeedMbps: 1000, MTU: 1500, PCIePath: []result.PCIeLink{rp1}}},
	}
	hops, shared := Storage(sys, result.Target{Device: "nvme0n1"})
	if got := names(hops); got != "nvme0n1 [PCIe 8 GT/s x1] / *PCIe switch port 0001:01:00.0 [PCIe 5 GT/s x1]" {
		t.Errorf("nvme0n1: %s", got)
	}
	if !strings.Contains(hops[1].Basis, "downgraded") || !strings.Contains(hops[1].Basis, "pciex1_gen=3") {
		t.Errorf("uplink basis %q", hops[1].Basis)
	}
	if len(shared) != 1 || !strings.HasPrefix(shared[0], "nvme1n1 (disk) behind PCIe 0001:01:00.0") {
		t.Errorf("nvme0n1 shared with %v", shared)
	}
	_, shared = Network(sys, "eth0")
	if len(shared) != 1 || !strings.HasPrefix(shared[0], "sda (uas) behind PCIe 0002:01:00.0") {
		t.Errorf("eth0 shared with %v", shared)
	}
}

// TestSDIOAndMemory: a WiFi chip's SDIO bus is a hop; an overlay whose
// upper directory is on a tmpfs is RAM.
func TestSDIOAndMemory(t *testing.T) {
	sys := result.System{NetInterfaces: []result.NetInterface{
		{Name: "wlan0", Bus: "sdio", Driver: "brcmfmac", WiFi: &result.WiFiLink{TxBitrateMbps: 433.3}, SDIOHost: "mmc1", SDIOClockHz: 50e6, SDIOBusWidth: 4},
		{Name: "wlan1", Bus: "sdio", Driver: "brcmfmac", WiFi: &result.WiFiLink{}, SDIOHost: "mmc1"},
	}}
	hops, _ := Network(sys, "wlan0")
	if got := names(hops); got != "wlan0 [WiFi, PHY rate 433.3 Mbit/s] / *SDIO mmc1 [SDIO at 50 MHz, 4 bit]" || hops[1].CeilingBytesPerSec != 25e6 {
		t.Errorf("wlan0: %s %+v", got, hops)
	}
	hops, _ = Network(sys, "wlan1")
	if hops[1].CeilingBytesPerSec != 0 || !strings.Contains(hops[1].Basis, "200 Mbit/s") {
		t.Errorf("wlan1 SDIO hop %+v", hops[1])
	}
	hops, _ = Storage(sys, result.Target{Path: "/", FSType: "overlay", OverlayUpperFS: "tmpfs"})
	if len(hops) != 1 || hops[0].Link != "memory" {
		t.Errorf("overlay on tmpfs: %+v", hops)
	}
}

// TestBulkOnlyFullSpeed: a usb-storage disk at 12M (QEMU's usb-storage,
// an old stick on a USB 1.1 port) gets the Bulk-Only hop too, at the
// full-speed link's figure, and the verdict names Bulk-Only.
func TestBulkOnlyFullSpeed(t *testing.T) {
	sys := result.System{
		USB: []result.USBDevice{
			{Path: "usb1", Bus: 1, SpeedMbps: 12, Class: "Hub"},
			{Path: "1-1", Parent: "usb1", Bus: 1, SpeedMbps: 12, USBVersion: "2.00"},
		},
		BlockDevices: []result.BlockDevice{{Name: "sda", Bus: "usb", Driver: "usb-storage", USBPath: "1-1"}},
	}
	hops, _ := Storage(sys, result.Target{Device: "sda"})
	if got := names(hops); !strings.HasPrefix(got, "*sda [USB 1.1 full speed mass storage (Bulk-Only)]") || hops[0].CeilingBytesPerSec != usbFull {
		t.Errorf("sda at 12M: %s (%+v)", got, hops[0])
	}
	if !strings.Contains(hops[0].Basis, "USB 2.0 device running at 12M: a USB 1.1 port or hub") {
		t.Errorf("sda at 12M: basis %q", hops[0].Basis)
	}
	if b := Judge("read", 0.9e6, hops, nil, false); !strings.Contains(b.Verdict, "Bulk-Only") {
		t.Errorf("verdict %s", b.Verdict)
	}
}
