package sysinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/ceiling"
	"github.com/thruput/thruput/internal/result"
)

// corpusFixture is the corpus machine name as an FS, unpacked on first use.
// Its tree is shared: a test must not write into it.
func corpusFixture(t testing.TB, name string) FS {
	t.Helper()
	return unpacked(t, filepath.Join("corpus", name+".txtar"))
}

// corpusHost is what each machine of testdata/corpus says about itself,
// read by hand from its capture (the header of each file names the
// source of every piece): the board from the device tree, cpuinfo's
// Model line or its Revision code; the SoC from the device tree or the
// Revision code, never a platform name; the core from CPU part.
var corpusHost = map[string]result.Host{
	"pi1-b-3.1":          {Board: "Raspberry Pi Model B Rev 1", SoC: "BCM2835", Revision: "0002", CPUCore: "ARM1176", CPUModel: "ARMv6-compatible processor rev 7 (v6l)", CPUCores: 1},
	"pi1-b-5.10":         {Board: "Raspberry Pi Model B Rev 2", SoC: "BCM2835", Revision: "000e", CPUCore: "ARM1176", CPUModel: "ARMv6-compatible processor rev 7 (v6l)", CPUCores: 1},
	"pi-zero":            {Board: "Raspberry Pi Zero Rev 1.3", SoC: "BCM2835", Revision: "900093", CPUCore: "ARM1176", CPUModel: "ARMv6-compatible processor rev 7 (v6l)", CPUCores: 1},
	"pi2-3.18":           {Board: "Raspberry Pi 2 Model B Rev 1.0", SoC: "BCM2836", Revision: "1a01040", CPUCore: "Cortex-A7", CPUModel: "ARMv7 Processor rev 5 (v7l)", CPUCores: 4},
	"pi2-5.10":           {Board: "Raspberry Pi 2 Model B Rev 1.1", SoC: "BCM2836", Revision: "a01041", CPUCore: "Cortex-A7", CPUModel: "ARMv7 Processor rev 5 (v7l)", CPUCores: 4},
	"pi3-4.1":            {Board: "Raspberry Pi 3 Model B Rev 1.2", SoC: "BCM2837", Revision: "a22082", CPUCore: "Cortex-A53", CPUModel: "ARMv7 Processor rev 4 (v7l)", CPUCores: 4},
	"pi3bplus-5.16":      {Board: "Raspberry Pi 3 Model B Plus Rev 1.3", SoC: "BCM2837", Revision: "a020d3", CPUCore: "Cortex-A53", CPUModel: "Cortex-A53", CPUCores: 4},
	"pi-zero2":           {Board: "Raspberry Pi Zero 2 Rev 1.0", SoC: "RP3A0", Revision: "902120", CPUCore: "Cortex-A53", CPUModel: "ARMv7 Processor rev 4 (v7l)", CPUCores: 4},
	"pi4-5.10":           {Board: "Raspberry Pi 4 Model B Rev 1.4", SoC: "BCM2711", Revision: "d03114", CPUCore: "Cortex-A72", CPUModel: "Cortex-A72", CPUCores: 4},
	"pi4-fedora":         {CPUCore: "Cortex-A72", CPUModel: "Cortex-A72", CPUCores: 4},
	"pi5":                {Board: "Raspberry Pi 5 Model B Rev 1.0", SoC: "BCM2712", Revision: "d04170", CPUCore: "Cortex-A76", CPUModel: "Cortex-A76", CPUCores: 4},
	"cm4":                {Board: "Raspberry Pi Compute Module 4 Rev 1.0", SoC: "BCM2711", Revision: "b03140", CPUCore: "Cortex-A72", CPUModel: "ARMv7 Processor rev 3 (v7l)", CPUCores: 4},
	"rk3399":             {CPUCore: "4x Cortex-A53 + 2x Cortex-A72", CPUModel: "4x Cortex-A53 + 2x Cortex-A72", CPUCores: 6},
	"rk3588":             {CPUCore: "4x Cortex-A55 + 4x Cortex-A76", CPUModel: "4x Cortex-A55 + 4x Cortex-A76", CPUCores: 8},
	"allwinner-h3":       {CPUCore: "Cortex-A7", CPUModel: "ARMv7 Processor rev 5 (v7l)", CPUCores: 4},
	"amlogic-s922x":      {CPUCore: "2x Cortex-A53 + 4x Cortex-A73", CPUModel: "2x Cortex-A53 + 4x Cortex-A73", CPUCores: 6},
	"pi5-rp1-sd":         {Board: "Raspberry Pi 5 Model B Rev 1.0", SoC: "BCM2712", Kernel: "6.1.47-v8_16k+", Arch: "aarch64", UserlandArch: "aarch64", UserlandBits: 64, CPUCore: "Cortex-A76", Inferred: []string{"cpu_core"}, InferredFrom: []string{"soc BCM2712"}},
	"pi4-vl805-sd":       {Board: "Raspberry Pi 4 Model B Rev 1.1", SoC: "BCM2711", Kernel: "5.15.84-v7l+", Arch: "armv7l", UserlandArch: "arm", UserlandBits: 32, CPUCore: "Cortex-A72", Inferred: []string{"cpu_core"}, InferredFrom: []string{"soc BCM2711"}},
	"cm5-nvme":           {Board: "Raspberry Pi Compute Module 5 Rev 1.0", SoC: "BCM2712", Kernel: "6.6.63-v8-16k+", Arch: "aarch64", UserlandArch: "aarch64", UserlandBits: 64, CPUCore: "Cortex-A76", Inferred: []string{"cpu_core"}, InferredFrom: []string{"soc BCM2712"}},
	"h28k-usb-hdd":       {Board: "Hlink H28K", SoC: "RK3528", Kernel: "5.10.160-rk35xx-flippy-2309a", Arch: "aarch64", UserlandArch: "aarch64", UserlandBits: 64},
	"nanopi-r5s":         {Board: "FriendlyElec NanoPi R5S", SoC: "RK3568", Kernel: "5.10.160", Arch: "aarch64", UserlandArch: "aarch64", UserlandBits: 64},
	"orangepi-zero3":     {Board: "OrangePi Zero3", SoC: "SUN50I-H616", Kernel: "6.1.31-sun50iw9", Arch: "aarch64", UserlandArch: "aarch64", UserlandBits: 64},
	"odroid-n2plus":      {Board: "Hardkernel ODROID-N2Plus", SoC: "S922X", Kernel: "6.1.11-meson64", Arch: "aarch64", UserlandArch: "aarch64", UserlandBits: 64},
	"pi4-gl827l-reader":  {Board: "Raspberry Pi 4 Model B Rev 1.1", SoC: "BCM2711", Kernel: "5.15.84-v7l+", Arch: "armv7l", UserlandArch: "arm", UserlandBits: 32, CPUCore: "Cortex-A72", Inferred: []string{"cpu_core"}, InferredFrom: []string{"soc BCM2711"}},
	"rock64-jms578-480m": {Board: "Pine64 Rock64", SoC: "RK3328", Kernel: "6.1.63-current-rockchip64", Arch: "aarch64", UserlandArch: "aarch64", UserlandBits: 64},
	"rockpi4b-wd-duo":    {Board: "Radxa ROCK Pi 4B", SoC: "RK3399", Kernel: "5.10.12-rockchip64", Arch: "aarch64", UserlandArch: "aarch64", UserlandBits: 64},
	// hw-probe captures (linuxhw/HWInfo) of Pis the probe filed under no
	// model: no cpuinfo, no device tree. The SoC, core and uname -m are
	// inferred from the kernel release suffix and the peripheral
	// addresses; a -v7+ kernel on 3fxxxxxx addresses leaves two chips.
	"hwprobe-pi-zero-w-5.15.30": {Kernel: "5.15.30+", Arch: "armv6l", SoC: "BCM2835", CPUCore: "ARM1176",
		Inferred: []string{"soc", "cpu_core", "arch"}, InferredFrom: []string{"kernel release suffix +", "peripheral address 20202000"}},
	"hwprobe-pi3bplus-5.10.63-v7": {Kernel: "5.10.63-v7+", Arch: "armv7l", SoC: "BCM2836 or BCM2837", CPUCore: "Cortex-A7 or Cortex-A53",
		Inferred: []string{"soc", "cpu_core", "arch"}, InferredFrom: []string{"kernel release suffix -v7+", "peripheral address 3f300000"}},
	"hwprobe-pi4-5.10.92-v7l": {Kernel: "5.10.92-v7l+", Arch: "armv7l", SoC: "BCM2711", CPUCore: "Cortex-A72",
		Inferred: []string{"soc", "cpu_core", "arch"}, InferredFrom: []string{"kernel release suffix -v7l+", "peripheral address fd500000"}},
	"hwprobe-bcm2711-5.10.92-v8": {Kernel: "5.10.92-v8+", Arch: "aarch64", SoC: "BCM2711", CPUCore: "Cortex-A72",
		Inferred: []string{"soc", "cpu_core", "arch"}, InferredFrom: []string{"kernel release suffix -v8+", "peripheral address fd580000"}},
	// A 64-bit kernel under a 32-bit userland: cpuinfo as a 32-bit
	// process reads it ("(v8l)") gives away both, neither recorded.
	"pi3-arm64-kernel-armhf-userland": {Kernel: "5.15.74-v8+", OS: "Raspbian GNU/Linux bookworm/sid", Arch: "aarch64", UserlandArch: "arm", UserlandBits: 32,
		Board: "Raspberry Pi 3 Model B Rev 1.2", SoC: "BCM2837", Revision: "a02082", CPUModel: "ARMv8 Processor rev 4 (v8l)", CPUCore: "Cortex-A53", CPUCores: 4,
		Inferred: []string{"arch", "userland_arch", "userland_bits"}, InferredFrom: []string{"cpuinfo model name (v8l)"}},
	// USB trees from issue threads and guides: their captures hold no
	// device tree, cpuinfo or kernel; the SoC and core are inferred from
	// the peripheral addresses of the Pis' own USB and PCIe controllers,
	// and a 3fxxxxxx address leaves two chips. The Pi 2's bcm2708_usb
	// names no address: its host reads empty.
	"pi4-uas-asm1051e":      pi4ByAddress,
	"pi4-usb-storage-quirk": pi4ByAddress,
	"pi4-jms579-bot":        pi4ByAddress,
	"pi4-jms567-bot":        pi4ByAddress,
	"pi3bplus-lan7515-disk": {SoC: "BCM2836 or BCM2837", CPUCore: "Cortex-A7 or Cortex-A53", Inferred: []string{"soc", "cpu_core"}, InferredFrom: []string{"peripheral address 3f980000"}},
	"pi2-lan9514-wifi":      {},
}

// pi4ByAddress is what the BCM2711's fd500000.pcie alone says.
var pi4ByAddress = result.Host{SoC: "BCM2711", CPUCore: "Cortex-A72", Inferred: []string{"soc", "cpu_core"}, InferredFrom: []string{"peripheral address fd500000"}}

// TestCorpusHosts reads every machine of the corpus; a file without an
// entry above, or an entry without a file, fails.
func TestCorpusHosts(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.txtar")
	if err != nil || len(files) < 20 {
		t.Fatalf("corpus has %d machines (%v), want at least 20", len(files), err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		seen[name] = true
		want, ok := corpusHost[name]
		if !ok {
			t.Errorf("%s has no expected host", name)
			continue
		}
		if got := corpusFixture(t, name).Host(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
	for name := range corpusHost {
		if !seen[name] {
			t.Errorf("no testdata/corpus/%s.txtar", name)
		}
	}
}

// chainOf is a disk's or interface's chain in one line: each hop's name
// and link, the lowest marked with a star.
func chainOf(hops []result.Hop) string {
	low := ceiling.Lowest(hops)
	var parts []string
	for i, h := range hops {
		s := h.Name + " [" + h.Link + "]"
		if i == low {
			s = "*" + s
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " / ")
}

// TestCorpusChains: the disks and NICs of the machines whose captures
// show their buses, with the limiting hop and what shares it.
func TestCorpusChains(t *testing.T) {
	for _, tc := range []struct {
		machine, of string
		want        string
		basis       []string // in the limiting hop's or the device's own hop's basis
		shared      []string
	}{
		{"pi5-rp1-sd", "mmcblk0", "*mmcblk0 (SanDisk SR128) [SD/MMC bus, sd uhs SDR104]", nil, nil},
		{"pi4-vl805-sd", "mmcblk0", "*mmcblk0 (SanDisk SR64G) [SD/MMC bus, sd uhs DDR50]", nil, nil},
		// Only the drive's end of its link was captured, so the link is
		// not called downgraded; the Gen 2 connector is still named.
		{"cm5-nvme", "nvme0n1", "*nvme0n1 [PCIe 5 GT/s x1]", []string{"dtparam=pciex1_gen=3"}, nil},
		{"cm5-nvme", "mmcblk0", "*mmcblk0 (Samsung BJTD4R) [SD/MMC bus, mmc HS400 enhanced strobe]", nil, nil},
		// The soldered eMMCs the captures list beside the other disks.
		{"h28k-usb-hdd", "mmcblk1", "*mmcblk1 (Samsung 8GSD4R) [SD/MMC bus, mmc HS200]", nil, nil},
		{"nanopi-r5s", "mmcblk2", "*mmcblk2 (Samsung 8GTF4R) [SD/MMC bus, mmc HS200]", nil, nil},
		{"rockpi4b-wd-duo", "mmcblk2", "*mmcblk2 (SanDisk/Toshiba DG4008) [SD/MMC bus, mmc HS400 enhanced strobe]", nil, nil},
		{"h28k-usb-hdd", "sda", "*sda [USB 2.0 high speed mass storage (Bulk-Only)] / USB device 1-1 (usb-storage) [USB 2.0 high speed] / USB root hub usb1 [USB 2.0 high speed]",
			[]string{"usb-storage", "USB 3.0 device running at 480M: a USB 2 port, hub or cable"}, nil},
		{"h28k-usb-hdd", "eth0", "eth0 [r8168] / *PCIe 0000:01:00.0 (r8168) [PCIe 2.5 GT/s x1]", nil, nil},
		{"nanopi-r5s", "sda", "sda (ASMedia SATA 6Gb/s bridge) [USB disk (uas)] / *USB device 2-1 (uas) [USB 3.2 Gen 1 (5 Gbit/s)] / USB root hub usb2 [USB 3.2 Gen 1 (5 Gbit/s)]", nil, nil},
		{"nanopi-r5s", "eth1", "eth1 [r8169] / *PCIe 0000:01:00.0 (r8169) [PCIe 5 GT/s x1]", nil, nil},
		{"nanopi-r5s", "eth2", "eth2 [r8169] / *PCIe 0001:01:00.0 (r8169) [PCIe 5 GT/s x1]", nil, nil},
		{"nanopi-r5s", "mmcblk0", "*mmcblk0 (SanDisk SN64G) [SD/MMC bus, sd uhs SDR104]", nil, nil},
		// A UAS SSD on the Pi 4's USB 3 root hub: the 5 Gbit/s link limits
		// it; the keyboard and mouse on the USB 2 bus are not disks or NICs.
		{"pi4-uas-asm1051e", "sda", "sda (ASMedia SATA 6Gb/s bridge) [USB disk (uas)] / *USB device 2-1 (uas) [USB 3.2 Gen 1 (5 Gbit/s)] / USB root hub usb2 (xhci_hcd) [USB 3.2 Gen 1 (5 Gbit/s)]",
			[]string{"5000M negotiated"}, nil},
		// UAS turned off by usb-storage.quirks at 5 Gbit/s: Bulk-Only is
		// the limit, not the USB 3 link.
		{"pi4-usb-storage-quirk", "sda", "*sda [USB 3.2 Gen 1 (5 Gbit/s) mass storage (Bulk-Only)] / USB device 2-1 (usb-storage) [USB 3.2 Gen 1 (5 Gbit/s)] / USB root hub usb2 (xhci_hcd) [USB 3.2 Gen 1 (5 Gbit/s)]",
			[]string{"usb-storage: one command", "UAS is disabled for this device by a usb-storage quirk"}, nil},
		// UAS turned off by the kernel's own quirk list: Bulk-Only all the
		// same, and no usb-storage.quirks entry to blame.
		{"pi4-jms579-bot", "sda", "*sda (JMicron JMS578/JMS579 SATA 6Gb/s bridge) [USB 3.2 Gen 1 (5 Gbit/s) mass storage (Bulk-Only)] / USB device 2-1 (usb-storage) [USB 3.2 Gen 1 (5 Gbit/s)] / USB root hub usb2 (xhci_hcd) [USB 3.2 Gen 1 (5 Gbit/s)]",
			[]string{"usb-storage: one command"}, nil},
		{"pi4-jms567-bot", "sda", "*sda [USB 3.2 Gen 1 (5 Gbit/s) mass storage (Bulk-Only)] / USB device 2-1 (usb-storage) [USB 3.2 Gen 1 (5 Gbit/s)] / USB root hub usb2 (xhci_hcd) [USB 3.2 Gen 1 (5 Gbit/s)]",
			[]string{"usb-storage: one command"}, nil},
		// A Pi 4's USB 2 bus is the VL805's too: its PCIe lane is a hop,
		// trained at what both ends allow.
		{"pi4-gl827l-reader", "sda", "*sda [USB 2.0 high speed mass storage (Bulk-Only)] / USB device 1-1.1 (usb-storage) [USB 2.0 high speed] / USB hub 1-1 (hub) [USB 2.0 high speed] / USB root hub usb1 (xhci_hcd) [USB 2.0 high speed] / PCIe 0000:01:00.0 (xhci_hcd) [PCIe 5 GT/s x1]",
			[]string{"usb-storage: one command"}, nil},
		// UAS over a USB 2 port: the 480M link limits it, not Bulk-Only,
		// and the bridge's USB 3 is reported unused.
		{"rock64-jms578-480m", "sda", "sda (JMicron JMS578/JMS579 SATA 6Gb/s bridge) [USB disk (uas)] / *USB device 1-1 (uas) [USB 2.0 high speed] / USB root hub usb1 [USB 2.0 high speed]",
			[]string{"480M negotiated", "USB 3.0 device running at 480M: a USB 2 port, hub or cable"}, nil},
		// Two drives in one dual-bay enclosure are two LUNs of one USB
		// device: they share all of it. Armbian's "0x"-prefixed quirk ids
		// turn UAS off for it.
		{"rockpi4b-wd-duo", "sda", "*sda (JMicron JMS56x dual SATA 6Gb/s bridge (Western Digital firmware)) [USB 3.2 Gen 1 (5 Gbit/s) mass storage (Bulk-Only)] / USB device 8-1.3 (usb-storage) [USB 3.2 Gen 1 (5 Gbit/s)] / USB hub 8-1 (hub) [USB 3.2 Gen 1 (5 Gbit/s)] / USB root hub usb8 (xhci-hcd) [USB 3.2 Gen 1 (5 Gbit/s)]",
			[]string{"UAS is disabled for this device by a usb-storage quirk"}, []string{"sdb (usb-storage) behind USB device 8-1.3 (usb-storage)"}},
		{"rockpi4b-wd-duo", "sdb", "*sdb (JMicron JMS56x dual SATA 6Gb/s bridge (Western Digital firmware)) [USB 3.2 Gen 1 (5 Gbit/s) mass storage (Bulk-Only)] / USB device 8-1.3 (usb-storage) [USB 3.2 Gen 1 (5 Gbit/s)] / USB hub 8-1 (hub) [USB 3.2 Gen 1 (5 Gbit/s)] / USB root hub usb8 (xhci-hcd) [USB 3.2 Gen 1 (5 Gbit/s)]",
			[]string{"UAS is disabled for this device by a usb-storage quirk"}, []string{"sda (usb-storage) behind USB device 8-1.3 (usb-storage)"}},
		// A Pi 3B+: the disk sits on the LAN7515's own hub, beside the
		// gigabit Ethernet, on the one USB 2.0 bus.
		{"pi3bplus-lan7515-disk", "sda", "*sda [USB 2.0 high speed mass storage (Bulk-Only)] / USB device 1-1.1.3 (usb-storage) [USB 2.0 high speed] / USB hub 1-1.1 (hub) [USB 2.0 high speed] / USB hub 1-1 (hub) [USB 2.0 high speed] / USB root hub usb1 (dwc_otg) [USB 2.0 high speed]",
			[]string{"usb-storage: one command"}, []string{"eth0 (lan78xx) behind USB hub 1-1.1 (hub)"}},
		{"pi3bplus-lan7515-disk", "eth0", "eth0 [lan78xx] / *USB network chip 0424:7800 (lan78xx) [Microchip LAN7800/LAN7515] / USB device 1-1.1.1 (lan78xx) [USB 2.0 high speed] / USB hub 1-1.1 (hub) [USB 2.0 high speed] / USB hub 1-1 (hub) [USB 2.0 high speed] / USB root hub usb1 (dwc_otg) [USB 2.0 high speed]",
			[]string{"300 Mbit/s"}, []string{"sda (usb-storage) behind USB hub 1-1.1 (hub)"}},
		// A Pi 2: the LAN9514's Fast Ethernet is 100 Mbit/s although its
		// link speed is not in the log, and a WiFi adapter shares its hub.
		{"pi2-lan9514-wifi", "eth0", "eth0 [smsc95xx] / *USB network chip 0424:ec00 (smsc95xx) [Microchip LAN9512/LAN9514] / USB device 1-1.1 (smsc95xx) [USB 2.0 high speed] / USB hub 1-1 (hub) [USB 2.0 high speed] / USB root hub usb1 (dwc_otg) [USB 2.0 high speed]",
			[]string{"94.1 Mbit/s"}, []string{"wlan0 (network) behind USB hub 1-1 (hub)"}},
		{"pi2-lan9514-wifi", "wlan0", "wlan0 [interface] / *USB device 1-1.2 [USB 2.0 high speed] / USB hub 1-1 (hub) [USB 2.0 high speed] / USB root hub usb1 (dwc_otg) [USB 2.0 high speed]",
			nil, []string{"eth0 (smsc95xx) behind USB hub 1-1 (hub)"}},
	} {
		sys := corpusFixture(t, tc.machine).System()
		var hops []result.Hop
		var shared []string
		if strings.HasPrefix(tc.of, "eth") || strings.HasPrefix(tc.of, "wlan") {
			hops, shared = ceiling.Network(sys, tc.of)
		} else {
			hops, shared = ceiling.Storage(sys, result.Target{Device: tc.of})
		}
		if got := chainOf(hops); got != tc.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tc.machine, tc.of, got, tc.want)
			continue
		}
		basis := hops[ceiling.Lowest(hops)].Basis + "; " + hops[0].Basis
		for _, b := range tc.basis {
			if !strings.Contains(basis, b) {
				t.Errorf("%s %s: basis %q lacks %q", tc.machine, tc.of, basis, b)
			}
		}
		if !slices.Equal(shared, tc.shared) {
			t.Errorf("%s %s: shared with %q, want %q", tc.machine, tc.of, shared, tc.shared)
		}
	}
}

// TestCorpusUSBAndCards: the USB trees' drivers and versions, and the
// SD cards' identities, as the captures give them.
func TestCorpusUSBAndCards(t *testing.T) {
	h28k := corpusFixture(t, "h28k-usb-hdd").System()
	if len(h28k.USB) != 2 || h28k.USB[1].Path != "1-1" || h28k.USB[1].USBVersion != "3.00" || h28k.USB[1].Drivers[0] != "usb-storage" {
		t.Errorf("h28k USB %+v", h28k.USB)
	}
	r5s := corpusFixture(t, "nanopi-r5s").System()
	if u := r5s.USB[1]; u.Bridge != "ASMedia SATA 6Gb/s bridge" || u.SlowerThanDeclared() != "" || u.Drivers[0] != "uas" {
		t.Errorf("r5s bridge %+v", u)
	}
	for _, tc := range []struct {
		machine, disk string
		want          result.CardIdentity
	}{
		{"pi5-rp1-sd", "mmcblk0", result.CardIdentity{ManufacturerID: "0x03", OEMID: "0x5344", Maker: "SanDisk", Name: "SR128", Date: "10/2019"}},
		{"pi4-vl805-sd", "mmcblk0", result.CardIdentity{ManufacturerID: "0x03", OEMID: "0x5344", Maker: "SanDisk", Name: "SR64G", Date: "08/2018"}},
		{"pi4-gl827l-reader", "mmcblk0", result.CardIdentity{ManufacturerID: "0x03", OEMID: "0x5344", Maker: "SanDisk", Name: "SR64G", Date: "08/2018"}},
		{"rock64-jms578-480m", "mmcblk0", result.CardIdentity{ManufacturerID: "0x03", OEMID: "0x5344", Maker: "SanDisk", Name: "SP16G", Date: "07/2015"}},
		{"cm5-nvme", "mmcblk0", result.CardIdentity{ManufacturerID: "0x15", OEMID: "0x0100", Maker: "Samsung", Name: "BJTD4R", Date: "07/2024"}},
		{"h28k-usb-hdd", "mmcblk1", result.CardIdentity{ManufacturerID: "0x15", OEMID: "0x0100", Maker: "Samsung", Name: "8GSD4R", Date: "09/2021"}},
		{"nanopi-r5s", "mmcblk2", result.CardIdentity{ManufacturerID: "0x15", OEMID: "0x0100", Maker: "Samsung", Name: "8GTF4R", Date: "03/2022"}},
		{"rockpi4b-wd-duo", "mmcblk2", result.CardIdentity{ManufacturerID: "0x45", OEMID: "0x0100", Maker: "SanDisk/Toshiba", Name: "DG4008", Date: "04/2018"}},
	} {
		sys := corpusFixture(t, tc.machine).System()
		found := false
		for _, d := range sys.BlockDevices {
			if d.Name != tc.disk {
				continue
			}
			found = true
			if d.Card == nil || *d.Card != tc.want {
				t.Errorf("%s %s card %+v, want %+v", tc.machine, tc.disk, d.Card, tc.want)
			}
		}
		if !found {
			t.Errorf("%s has no disk %s", tc.machine, tc.disk)
		}
	}
	if _, err := os.Stat("testdata/corpus"); err != nil {
		t.Fatal(err)
	}
}

// lsusbTree draws a USB tree one device a line, as lsusb -t names them:
// the device, its class, its drivers and ports, and its speed.
func lsusbTree(devs []result.USBDevice) []string {
	var out []string
	for _, u := range devs {
		depth := strings.Count(u.Path, ".")
		if u.Parent != "" {
			depth++
		}
		s := strings.Repeat("  ", depth) + u.Path
		if u.Class != "" {
			s += " " + u.Class
		}
		if u.VendorID != "" {
			s += " " + u.VendorID + ":" + u.ProductID
		}
		s += " Driver=" + strings.Join(u.Drivers, ",")
		if u.Ports > 0 {
			s += fmt.Sprintf("/%dp", u.Ports)
		}
		out = append(out, fmt.Sprintf("%s, %gM", s, u.SpeedMbps))
	}
	return out
}

// TestCorpusUSBTrees: the trees the captures' lsusb -t, lsusb and kernel
// logs show, device by device, with what is built from them.
func TestCorpusUSBTrees(t *testing.T) {
	for _, tc := range []struct {
		machine string
		want    []string
	}{
		{"pi4-uas-asm1051e", []string{
			"usb1 Hub 1d6b:0002 Driver=xhci_hcd/1p, 480M",
			"  1-1 Hub 2109:3431 Driver=hub/4p, 480M",
			"    1-1.3 Human Interface Device 145f:02c9 Driver=usbhid, 1.5M",
			"    1-1.4 Human Interface Device 0000:3825 Driver=usbhid, 1.5M",
			"usb2 Hub 1d6b:0003 Driver=xhci_hcd/4p, 5000M",
			"  2-1 Mass Storage 174c:55aa Driver=uas, 5000M",
		}},
		{"pi4-usb-storage-quirk", []string{
			"usb2 Hub 1d6b:0003 Driver=xhci_hcd/4p, 5000M",
			"  2-1 Mass Storage 152d:1561 Driver=usb-storage, 5000M",
		}},
		{"pi4-jms579-bot", []string{
			"usb2 Hub 1d6b:0003 Driver=xhci_hcd/4p, 5000M",
			"  2-1 Mass Storage 152d:0578 Driver=usb-storage, 5000M",
		}},
		{"pi4-jms567-bot", []string{
			"usb1 Hub 1d6b:0002 Driver=xhci_hcd/1p, 480M",
			"  1-1 Hub Driver=hub/4p, 480M",
			"usb2 Hub 1d6b:0003 Driver=xhci_hcd/4p, 5000M",
			"  2-1 Mass Storage 152d:0567 Driver=usb-storage, 5000M",
		}},
		{"pi4-gl827l-reader", []string{
			"usb1 Hub 1d6b:0002 Driver=xhci_hcd/1p, 480M",
			"  1-1 Hub Driver=hub/4p, 480M",
			"    1-1.1 Mass Storage Driver=usb-storage, 480M",
		}},
		{"rock64-jms578-480m", []string{
			"usb1 Hub 1d6b:0002 Driver=/1p, 480M",
			"  1-1 Mass Storage 152d:0578 Driver=uas, 480M",
		}},
		{"rockpi4b-wd-duo", []string{
			"usb8 Hub 1d6b:0003 Driver=xhci-hcd/1p, 5000M",
			"  8-1 Hub Driver=hub, 5000M",
			"    8-1.3 Mass Storage 1058:0a10 Driver=usb-storage, 5000M",
		}},
		{"pi3bplus-lan7515-disk", []string{
			"usb1 Hub 1d6b:0002 Driver=dwc_otg/1p, 480M",
			"  1-1 Hub 0424:2514 Driver=hub/4p, 480M",
			"    1-1.1 Hub 0424:2514 Driver=hub/3p, 480M",
			"      1-1.1.1 Vendor Specific Class 0424:7800 Driver=lan78xx, 480M",
			"      1-1.1.3 Mass Storage 152d:2509 Driver=usb-storage, 480M",
			"    1-1.2 Hub 214b:7000 Driver=hub/4p, 480M",
			"      1-1.2.1 093a:2700 Driver=, 480M",
		}},
		{"pi2-lan9514-wifi", []string{
			"usb1 Hub 1d6b:0002 Driver=dwc_otg/1p, 480M",
			"  1-1 Hub 0424:9514 Driver=hub/5p, 480M",
			"    1-1.1 Vendor Specific Class 0424:ec00 Driver=smsc95xx, 480M",
			"    1-1.2 Vendor Specific Class 07d1:3c16 Driver=, 480M",
		}},
	} {
		got := lsusbTree(corpusFixture(t, tc.machine).System().USB)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s USB tree:\n%s\nwant\n%s", tc.machine, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}

	// The reading the pi4-usb-storage-quirk thread reports, 186 MB/s, is
	// held by Bulk-Only: the verdict names that hop, not the USB 3 link.
	quirk := corpusFixture(t, "pi4-usb-storage-quirk").System()
	hops, shared := ceiling.Storage(quirk, result.Target{Device: "sda"})
	b := ceiling.Judge("read", 186e6, hops, shared, false)
	if b.Limit != 0 || !strings.Contains(b.Verdict, "mass storage (Bulk-Only) ceiling") || quirk.USB[1].UASIgnored != true {
		t.Errorf("186 MB/s behind a UAS quirk: limit %d, %q", b.Limit, b.Verdict)
	}
	// The JMS579 log: the kernel's built-in quirk is no usb-storage.quirks
	// entry; the SCSI strings are the bridge's split of the ATA model.
	jms := corpusFixture(t, "pi4-jms579-bot").System()
	if u := jms.USB[1]; u.UASIgnored || u.Product != "JMS579" || u.Bridge != "JMicron JMS578/JMS579 SATA 6Gb/s bridge" {
		t.Errorf("JMS579 %+v", u)
	}
	// Armbian's "0x"-prefixed quirk list names the WD enclosure, and not
	// the Rock64's JMS578.
	if u := corpusFixture(t, "rockpi4b-wd-duo").System().USB[2]; !u.UASIgnored {
		t.Errorf("WD enclosure %+v: its 0x1058:0x0a10:u quirk is not read", u)
	}
	if u := corpusFixture(t, "rock64-jms578-480m").System().USB[1]; u.UASIgnored {
		t.Errorf("Rock64 bridge %+v: no quirk names it", u)
	}
	reader := corpusFixture(t, "pi4-gl827l-reader").System()
	if hops, _ := ceiling.Storage(reader, result.Target{Device: "sda"}); strings.Contains(hops[len(hops)-1].Basis, "downgraded") {
		t.Errorf("the VL805's lane trained at its maximum: %+v", hops[len(hops)-1])
	}
	// A USB 3.0 device (bcdUSB 3.00) at 5000M is where it belongs.
	if u := corpusFixture(t, "pi4-jms567-bot").System().USB[3]; u.USBVersion != "3.00" || u.SlowerThanDeclared() != "" {
		t.Errorf("JMS567 %+v", u)
	}
	if d := jms.BlockDevices[0]; d.Vendor != "CT240BX5" || d.Model != "00SSD1" || d.SizeBytes != 468862128*512 {
		t.Errorf("JMS579 disk %+v", d)
	}
}
