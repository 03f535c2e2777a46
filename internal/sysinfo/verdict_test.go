package sysinfo_test

import (
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/ceiling"
	"github.com/thruput/thruput/internal/sysinfo"
)

// TestVerdicts reads the fixture machines as a run would and checks what
// the bottleneck verdicts say of them: a Pi 1's disk beside its Ethernet
// chip, a Pi 4's SSD on USB 3.
func TestVerdicts(t *testing.T) {
	for _, c := range []struct {
		fixture, path string
		bytesPerSec   float64
		want          []string
	}{
		// A Pi 1 with a USB disk beside the Ethernet chip.
		{"pi1", "/media/ext4", 22.5 * (1 << 20), []string{"sda", "USB 2.0", "56 %", "eth0 (smsc95xx) behind USB hub 1-1", "shared"}},
		// The Pi 4's SD card in high-speed mode: 50 MHz, 4 bit, 25 MB/s.
		{"pi4", "/", 22e6, []string{"mmcblk0", "sd high-speed", "23.8 MiB/s", "likely bottleneck"}},
		// The Pi 4's UAS SSD on USB 3 behind the VL805's one PCIe 2 lane.
		{"pi4", "/mnt/ssd", 340e6, []string{"USB 3.2 Gen 1", "likely bottleneck"}},
		// The desktop's NVMe SSD in an M.2 socket wired PCIe 2.0 x2.
		{"desktop", "/home/user/bench", 800e6, []string{"nvme0n1", "PCIe 5 GT/s x2", "likely bottleneck"}},
	} {
		fs := sysinfo.Fixture(t, c.fixture)
		target, err := fs.Target(c.path)
		if err != nil {
			t.Fatalf("%s %s: %v", c.fixture, c.path, err)
		}
		sys := fs.System(c.path)
		hops, shared := ceiling.Storage(sys, target)
		b := ceiling.Judge("read "+c.path, c.bytesPerSec, hops, shared, false)
		for _, w := range c.want {
			if !strings.Contains(b.Verdict, w) {
				t.Errorf("%s %s: verdict lacks %q: %s\nhops: %+v", c.fixture, c.path, w, b.Verdict, hops)
			}
		}
		t.Logf("%s %s: %s", c.fixture, c.path, b.Verdict)
	}
	// The Pi 1's Ethernet: 100 Mbit/s, sharing the bus with the disk.
	fs := sysinfo.Fixture(t, "pi1")
	hops, shared := ceiling.Network(fs.System(), "eth0")
	b := ceiling.Judge("net down via eth0", 11.2e6, hops, shared, true)
	for _, w := range []string{"Ethernet 100 Mbit/s", "94.1 Mbit/s", "sda"} {
		if !strings.Contains(b.Verdict, w) {
			t.Errorf("pi1 eth0: verdict lacks %q: %s", w, b.Verdict)
		}
	}
}
