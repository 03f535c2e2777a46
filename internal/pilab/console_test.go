package pilab

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// A dump as the init script prints it on a serial tty ("\r\n"), with a
// kernel message before and one slipped in between two entries.
const dump = "[    3.5] bcm2835-power bcm2835-power: ASB register ID returned 0x00000000\r\n" +
	"@@MODULE-FAILED /modules/07-x.ko\r\n" +
	"\xb2@@PILAB-BEGIN\r\n" +
	"@@F uname -m\r\naarch64\r\n\r\n@@E\r\n" +
	"@@F thruput sysinfo --json\r\n{\r\n  \"host\": {}\r\n}\r\n@@E rc=0\r\n" +
	"[   12.0] usb 1-1.2: reset full-speed USB device number 4 using dwc2\r\n" +
	"@@F /proc/device-tree/compatible\r\nraspberrypi,3-model-b\r\nbrcm,bcm2837\r\n\r\n\r\n@@E\r\n" +
	"@@L /sys/bus/usb/devices/usb1 /sys/devices/platform/soc/3f980000.usb/usb1\r\n" +
	"@@PILAB-END\r\n[   17.8] reboot: Restarting system\r\n"

func TestParseConsole(t *testing.T) {
	g, err := ParseConsole([]byte(dump))
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Value("uname -m"); got != "aarch64" {
		t.Errorf("uname -m = %q", got)
	}
	if got := g.Files["thruput sysinfo --json"]; got != "{\n  \"host\": {}\n}" {
		t.Errorf("json = %q", got)
	}
	if got := g.Status["thruput sysinfo --json"]; got != "rc=0" {
		t.Errorf("status = %q", got)
	}
	if got := g.Value("/proc/device-tree/compatible"); got != "raspberrypi,3-model-b\nbrcm,bcm2837" {
		t.Errorf("compatible = %q", got)
	}
	if got := g.Links["/sys/bus/usb/devices/usb1"]; got != "/sys/devices/platform/soc/3f980000.usb/usb1" {
		t.Errorf("usb1 link = %q", got)
	}
	if len(g.Failed) != 1 || g.Failed[0] != "/modules/07-x.ko" {
		t.Errorf("failed modules = %q", g.Failed)
	}
	if len(g.Files) != 3 || len(g.Links) != 1 {
		t.Errorf("files %d, links %d, want 3 and 1", len(g.Files), len(g.Links))
	}
}

func TestParseConsoleBad(t *testing.T) {
	for _, c := range []struct {
		name, in, err string
	}{
		{"empty", "", ErrNoMarkers.Error()},
		{"a kernel panic before init", "[    2.1] Kernel panic - not syncing: No working init found.\r\n", ErrNoMarkers.Error()},
		{"died in the dump", "@@PILAB-BEGIN\r\n@@F uname -m\r\naarch64\r\n", ErrNoMarkers.Error()},
		{"end before begin", "@@PILAB-END\r\n@@PILAB-BEGIN\r\n", ErrNoMarkers.Error()},
		{"file not closed", "@@PILAB-BEGIN\r\n@@F /proc/cpuinfo\r\nprocessor : 0\r\n@@PILAB-END\r\n", "/proc/cpuinfo has no @@E"},
		{"link without target", "@@PILAB-BEGIN\r\n@@L /sys/block/sda\r\n@@PILAB-END\r\n", "link without target"},
	} {
		_, err := ParseConsole([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.err)
		}
		if c.err == ErrNoMarkers.Error() && !errors.Is(err, ErrNoMarkers) {
			t.Errorf("%s: err = %v, want ErrNoMarkers", c.name, err)
		}
	}
}

func FuzzParseConsole(f *testing.F) {
	f.Add([]byte(dump))
	f.Add([]byte("@@PILAB-BEGIN\n@@F x\n@@E rc=1\n@@PILAB-END\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		g, err := ParseConsole(in)
		if err != nil {
			return
		}
		in = bytes.ReplaceAll(in, []byte("\r"), nil)
		for name, body := range g.Files {
			if !strings.Contains(string(in), "@@F "+name) {
				t.Fatalf("file %q not announced in %q", name, in)
			}
			if strings.Contains(body, "\r") {
				t.Fatalf("file %q keeps a CR: %q", name, body)
			}
		}
		for path := range g.Links {
			if !strings.Contains(string(in), "@@L "+path+" ") {
				t.Fatalf("link %q not announced in %q", path, in)
			}
		}
	})
}
