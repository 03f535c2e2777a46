package ceiling

import (
	"math"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// pi1 is a Raspberry Pi 1 Model B as the seed's lsusb -t shows it: the
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
	// 22.5 MiB/s, the seed's ext4 read.
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
