package sysinfo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

func blockDev(t *testing.T, s result.System, name string) result.BlockDevice {
	t.Helper()
	for _, d := range s.BlockDevices {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no block device %s in %s", name, showJSON(s.BlockDevices))
	return result.BlockDevice{}
}

func netIf(t *testing.T, s result.System, name string) result.NetInterface {
	t.Helper()
	for _, n := range s.NetInterfaces {
		if n.Name == name {
			return n
		}
	}
	t.Fatalf("no interface %s in %s", name, showJSON(s.NetInterfaces))
	return result.NetInterface{}
}

func names[T any](list []T, name func(T) string) []string {
	var out []string
	for _, v := range list {
		out = append(out, name(v))
	}
	return out
}

func showJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// check compares a value read from a fixture with the one wanted, showing
// both in full when they differ.
func check[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s =\n%s\nwant\n%s", what, showJSON(got), showJSON(want))
	}
}

// A Pi 1 B: disk and NIC share hub 1-1 on the one 480M root hub.
func TestSystemPi1(t *testing.T) {
	s := fixture(t, "pi1").System("/media/ext4")
	check(t, "CPU", s.CPU, result.CPU{
		CurKHz: 700000, MinKHz: 700000, MaxKHz: 700000, Governor: "ondemand",
		Throttled: "0x50005", ThrottledNow: new(true), ThrottledSource: "get_throttled",
		ThrottledBits: []string{"under-voltage detected", "currently throttled", "under-voltage has occurred", "throttling has occurred"},
	})
	check(t, "USB tree", s.USB, []result.USBDevice{
		{Path: "usb1", Bus: 1, DevNum: 1, Ports: 1, SpeedMbps: 480, VendorID: "1d6b", ProductID: "0002",
			Product: "DWC OTG Controller", Class: "Hub", Drivers: []string{"dwc_otg", "hub"}},
		{Path: "1-1", Parent: "usb1", Bus: 1, Port: 1, DevNum: 2, Ports: 3, SpeedMbps: 480,
			VendorID: "0424", ProductID: "9512", Class: "Hub", Drivers: []string{"hub"}},
		{Path: "1-1.1", Parent: "1-1", Bus: 1, Port: 1, DevNum: 3, SpeedMbps: 480,
			VendorID: "0424", ProductID: "ec00", Class: "Vendor Specific Class", Drivers: []string{"smsc95xx"}},
		{Path: "1-1.2", Parent: "1-1", Bus: 1, Port: 2, DevNum: 4, SpeedMbps: 480, VendorID: "0bc2",
			ProductID: "2300", Product: "Expansion", Class: "Mass Storage", Drivers: []string{"usb-storage"}},
	})
	// The idle loop0 is left out; the target is on sda.
	if got := names(s.BlockDevices, func(d result.BlockDevice) string { return d.Name }); !slices.Equal(got, []string{"mmcblk0", "sda"}) {
		t.Errorf("block devices %v, want mmcblk0 and sda", got)
	}
	check(t, "sda", blockDev(t, s, "sda"), result.BlockDevice{
		Name: "sda", DeviceID: "usb:0bc2:2300:", Model: "Expansion", Vendor: "Seagate", SizeBytes: 2000398934016, Rotational: new(true),
		Scheduler: "mq-deadline", LogicalBlockSize: 512, PhysicalBlockSize: 512,
		Bus: "usb", Driver: "usb-storage", USBPath: "1-1.2",
	})
	// Without debugfs the card's bus mode and clock stay unknown.
	check(t, "mmcblk0", blockDev(t, s, "mmcblk0"), result.BlockDevice{
		Name: "mmcblk0", Model: "SC32G", SizeBytes: 62333952 * 512, Rotational: new(false),
		Scheduler: "mq-deadline", LogicalBlockSize: 512, PhysicalBlockSize: 512,
		Bus: "mmc", Driver: "mmcblk", MMCCardType: "SD",
	})
	check(t, "interfaces", s.NetInterfaces, []result.NetInterface{{
		Name: "eth0", Driver: "smsc95xx", SpeedMbps: 100, Duplex: "full", MTU: 1500, Carrier: new(true),
		Bus: "usb", USBPath: "1-1.1",
	}})
	// The point of the Pi 1's tree: the disk and the NIC are children of
	// the same hub, so they share its one 480M link.
	eth, disk := netIf(t, s, "eth0").USBPath, blockDev(t, s, "sda").USBPath
	parent := map[string]string{}
	for _, d := range s.USB {
		parent[d.Path] = d.Parent
	}
	if parent[eth] != "1-1" || parent[disk] != "1-1" || parent["1-1"] != "usb1" {
		t.Errorf("NIC at %s under %q and disk at %s under %q; want both under 1-1 on usb1", eth, parent[eth], disk, parent[disk])
	}
	check(t, "interrupts", s.Interrupts, []result.Interrupt{
		{IRQ: "56", Name: "dwc_otg, dwc_otg_pcd, dwc_otg_hcd:usb1", PerCPU: []int64{73916512}},
		{IRQ: "77", Name: "mmc0", PerCPU: []int64{209151}},
	})
}

func TestSystemPi4(t *testing.T) {
	s := fixture(t, "pi4").System()
	check(t, "CPU", s.CPU, result.CPU{
		CurKHz: 600000, MinKHz: 600000, MaxKHz: 1800000, Governor: "ondemand",
		Throttled: "0x0", ThrottledNow: new(false), ThrottledSource: "get_throttled",
		// The second zone's sensor reads nothing: no temperature, not 0.
		Temperatures: []result.ZoneTemperature{{Zone: "thermal_zone0", Type: "cpu-thermal", Celsius: 48.699}},
	})
	// The SSD's bus is the VL805's one PCIe 2 lane as well as USB 3.
	check(t, "sda", blockDev(t, s, "sda"), result.BlockDevice{
		Name: "sda", DeviceID: "usb:04e8:61f5:", Model: "Portable SSD T5", Vendor: "Samsung", SizeBytes: 976773168 * 512, Rotational: new(false),
		Scheduler: "mq-deadline", LogicalBlockSize: 512, PhysicalBlockSize: 512,
		Bus: "usb", Driver: "uas", USBPath: "2-2", PCISlot: "0000:01:00.0", PCIeLinkGTs: 5, PCIeLinkWidth: 1,
		PCIePath: []result.PCIeLink{{Slot: "0000:01:00.0", Driver: "xhci_hcd", GTs: 5, Width: 1}},
	})
	check(t, "mmcblk0", blockDev(t, s, "mmcblk0"), result.BlockDevice{
		Name: "mmcblk0", Model: "SN32G", SizeBytes: 62333952 * 512, Rotational: new(false),
		Scheduler: "mq-deadline", LogicalBlockSize: 512, PhysicalBlockSize: 512,
		Bus: "mmc", Driver: "mmcblk", MMCCardType: "SD",
		MMCTiming: "sd high-speed", MMCClockHz: 50000000, MMCBusWidth: 4,
	})
	var ssd result.USBDevice
	for _, d := range s.USB {
		if d.Path == "2-2" {
			ssd = d
		}
	}
	if ssd.SpeedMbps != 5000 || ssd.Parent != "usb2" || !slices.Equal(ssd.Drivers, []string{"uas"}) {
		t.Errorf("SSD's USB node = %+v; want 5000M, uas, on usb2", ssd)
	}
	if got := names(s.USB, func(d result.USBDevice) string { return d.Path }); !slices.Equal(got, []string{"usb1", "1-1", "usb2", "2-2"}) {
		t.Errorf("USB order %v", got)
	}
	check(t, "interfaces", s.NetInterfaces, []result.NetInterface{
		{Name: "eth0", Driver: "bcmgenet", SpeedMbps: 1000, Duplex: "full", MTU: 1500, Carrier: new(true), Bus: "platform"},
		// A fixture is not the live kernel: no nl80211, so no rate or
		// frequency, only what /proc/net/wireless holds.
		{Name: "wlan0", Driver: "brcmfmac", MTU: 1500, Carrier: new(true), Bus: "sdio",
			WiFi: &result.WiFiLink{SignalDBm: -52, LinkQuality: 58}, SDIOHost: "mmc1"},
	})
	check(t, "interrupts", names(s.Interrupts, func(i result.Interrupt) string { return i.IRQ + " " + i.Name }),
		[]string{"28 mmc1, mmc0", "29 eth0", "30 eth0", "35 xhci_hcd"})
	if got := s.Interrupts[0].PerCPU; !slices.Equal(got, []int64{288764, 0, 0, 0}) {
		t.Errorf("per-CPU counts %v", got)
	}
}

func TestSystemDesktop(t *testing.T) {
	s := fixture(t, "desktop").System()
	// No cpufreq files, no Pi firmware: nothing to say.
	check(t, "CPU", s.CPU, result.CPU{})
	// loop3 is only listed when a target is on it.
	if got := names(s.BlockDevices, func(d result.BlockDevice) string { return d.Name }); !slices.Equal(got, []string{"nvme0n1", "nvme1n1", "sda", "sdb", "sdc"}) {
		t.Errorf("block devices %v", got)
	}
	check(t, "sdc", blockDev(t, s, "sdc"), result.BlockDevice{
		Name: "sdc", Model: "Samsung SSD 860", SizeBytes: 976773168 * 512, Rotational: new(false),
		Scheduler: "mq-deadline", LogicalBlockSize: 512, PhysicalBlockSize: 512,
		Bus: "sata", Driver: "ahci", PCISlot: "0000:00:1f.2", SATALinkGbps: 6,
	})
	// sda's speed is only under /sys/class/ata_link; sdb's is nowhere.
	if got := blockDev(t, s, "sda").SATALinkGbps; got != 6 {
		t.Errorf("sda SATA link %v, want 6 from /sys/class/ata_link", got)
	}
	if got := blockDev(t, s, "sdb").SATALinkGbps; got != 0 {
		t.Errorf("sdb SATA link %v, want unknown", got)
	}
	check(t, "nvme1n1", blockDev(t, s, "nvme1n1"), result.BlockDevice{
		Name: "nvme1n1", Model: "Samsung SSD 980 PRO 1TB", SizeBytes: 1953525168 * 512, Rotational: new(false),
		Scheduler: "none", LogicalBlockSize: 512, PhysicalBlockSize: 512,
		Bus: "nvme", Driver: "nvme", PCISlot: "0000:01:00.0", PCIeLinkGTs: 8, PCIeLinkWidth: 4,
		PCIePath: []result.PCIeLink{{Slot: "0000:01:00.0", Driver: "nvme", GTs: 8, Width: 4}},
	})
	if d := blockDev(t, s, "nvme0n1"); d.PCIeLinkGTs != 5 || d.PCIeLinkWidth != 2 || d.PCISlot != "0000:04:00.0" {
		t.Errorf("nvme0n1 = %+v; want 5 GT/s x2 at 0000:04:00.0", d)
	}
	check(t, "interfaces", s.NetInterfaces, []result.NetInterface{
		// Down: its speed of -1 and duplex "unknown" are no figures.
		{Name: "docker0", MTU: 1500, Carrier: new(false), Bus: "virtual"},
		{Name: "eno1", Driver: "e1000e", SpeedMbps: 1000, Duplex: "full", MTU: 1500, Carrier: new(true),
			Bus: "pci", PCISlot: "0000:00:19.0"},
	})
	check(t, "USB", names(s.USB, func(d result.USBDevice) string {
		return strings.Join(append([]string{d.Path, d.Class}, d.Drivers...), " ")
	}), []string{"usb1 Hub xhci_hcd hub", "1-4 Human Interface Device usbhid", "usb2 Hub xhci_hcd hub"})
	if s.USB[1].SpeedMbps != 1.5 {
		t.Errorf("keyboard at %vM, want 1.5", s.USB[1].SpeedMbps)
	}
	check(t, "interrupts", names(s.Interrupts, func(i result.Interrupt) string { return i.Name }),
		[]string{"xhci_hcd", "ahci[0000:00:1f.2]", "eno1", "nvme0q0", "nvme0q1", "nvme1q0", "nvme1q1"})

	// A target on a loop device brings it in.
	s = fixture(t, "desktop").System("/mnt/win data/x")
	if got := blockDev(t, s, "loop3"); got.Bus != "loop" || got.SizeBytes != 41943040*512 {
		t.Errorf("loop3 = %+v", got)
	}
}

func TestNVMeMultipath(t *testing.T) {
	sys := t.TempDir()
	mk := func(p, v string) {
		_ = os.MkdirAll(filepath.Dir(filepath.Join(sys, p)), 0o755)
		if err := os.WriteFile(filepath.Join(sys, p), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(p, target string) {
		_ = os.MkdirAll(filepath.Dir(filepath.Join(sys, p)), 0o755)
		if err := os.Symlink(target, filepath.Join(sys, p)); err != nil {
			t.Fatal(err)
		}
	}
	// Native multipath (Fedora, Ubuntu's default kernels): the disk is
	// under a virtual subsystem that links to its controllers.
	mk("devices/virtual/nvme-subsystem/nvme-subsys0/model", "WD Blue SN570 1TB")
	mk("devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1/size", "8")
	ln("devices/virtual/nvme-subsystem/nvme-subsys0/nvme0", "../../../pci0000:00/0000:00:1d.0/0000:03:00.0/nvme/nvme0")
	mk("devices/pci0000:00/0000:00:1d.0/0000:03:00.0/nvme/nvme0/model", "WD Blue SN570 1TB")
	mk("devices/pci0000:00/0000:00:1d.0/0000:03:00.0/current_link_speed", "8.0 GT/s PCIe")
	mk("devices/pci0000:00/0000:00:1d.0/0000:03:00.0/current_link_width", "4")
	ln("devices/pci0000:00/0000:00:1d.0/0000:03:00.0/driver", "../../../../bus/pci/drivers/nvme")
	ln("block/nvme0n1", "../devices/virtual/nvme-subsystem/nvme-subsys0/nvme0n1")
	got := FS{Proc: t.TempDir(), Sys: sys}.System().BlockDevices
	if len(got) != 1 || got[0].Bus != "nvme" || got[0].Model != "WD Blue SN570 1TB" || got[0].Driver != "nvme" ||
		got[0].PCISlot != "0000:03:00.0" || got[0].PCIeLinkGTs != 8 || got[0].PCIeLinkWidth != 4 {
		t.Errorf("multipath NVMe = %s", showJSON(got))
	}
}

func TestSystemNothingReadable(t *testing.T) {
	roots := FS{Proc: t.TempDir(), Sys: t.TempDir(), Etc: t.TempDir()}
	check(t, "System", roots.System("/srv"), result.System{})
}

func TestScheduler(t *testing.T) {
	for in, want := range map[string]string{
		"[mq-deadline] kyber bfq none": "mq-deadline",
		"mq-deadline kyber [bfq] none": "bfq",
		"[none] mq-deadline":           "none",
		"none":                         "none",
		"":                             "",
		"a b":                          "",
		"[broken":                      "",
	} {
		if got := scheduler(in); got != want {
			t.Errorf("scheduler(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestChannel(t *testing.T) {
	for mhz, want := range map[int]int{2412: 1, 2437: 6, 2472: 13, 2484: 14, 5180: 36, 5500: 100, 5825: 165, 5955: 1, 6115: 33, 5935: 2, 900: 0} {
		if got := channel(mhz); got != want {
			t.Errorf("channel(%d) = %d, want %d", mhz, got, want)
		}
	}
}

func TestIRQMatches(t *testing.T) {
	keys := []string{"eth0", "nvme", "xhci", "mmc1"}
	for name, want := range map[string]bool{
		"eth0": true, "eth0-rx-0": true, "eth01": false,
		"nvme0q3": true, "xhci_hcd": true, "ehci_hcd:usb1": false,
		"mmc1, mmc0": true, "mmc10": false, "mmc0, mmc1": true,
	} {
		if got := irqMatches(name, keys); got != want {
			t.Errorf("irqMatches(%q) = %v, want %v", name, got, want)
		}
	}
}

// On the machine running the test, System must return whatever it can
// read, and each field must be a value or absent: no placeholders, no
// negative sentinels passed on from sysfs.
func TestSystemLive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads Linux's /proc and /sys")
	}
	s := Default().System(t.TempDir())
	c := s.CPU
	if c.CurKHz < 0 || c.MinKHz < 0 || c.MaxKHz < 0 || (c.Throttled == "") != (c.ThrottledNow == nil) {
		t.Errorf("CPU %+v", c)
	}
	for _, d := range s.BlockDevices {
		if d.Name == "" || d.SizeBytes < 0 || d.LogicalBlockSize < 0 || d.PCIeLinkGTs < 0 || strings.ContainsAny(d.Scheduler, "[] ") {
			t.Errorf("block device %+v", d)
		}
	}
	for _, d := range s.USB {
		if d.Path == "" || d.Bus <= 0 || d.SpeedMbps < 0 || (d.Parent == "") != strings.HasPrefix(d.Path, "usb") {
			t.Errorf("USB device %+v", d)
		}
	}
	for _, n := range s.NetInterfaces {
		if n.Name == "" || n.Name == "lo" || n.SpeedMbps < 0 || (n.Duplex != "" && n.Duplex != "full" && n.Duplex != "half") {
			t.Errorf("interface %+v", n)
		}
	}
	for _, i := range s.Interrupts {
		if i.IRQ == "" || i.Name == "" || len(i.PerCPU) == 0 {
			t.Errorf("interrupt %+v", i)
		}
	}
	if _, err := json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	t.Logf("system %s", showJSON(s))
}
