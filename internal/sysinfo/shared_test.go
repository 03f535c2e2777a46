package sysinfo

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/realdata"
)

// sharedBoards is what each board capture in ../shared/data/real-boards
// says of its SoC, core and kernel architecture, read by hand from the
// capture and the folder's README: the board its source names, the Pi's
// SoC and core, and uname -m where the capture or the kernel release
// says it ("" where the capture holds neither, as Fedora's mainline
// kernel release names no SoC and the capture has no device tree).
var sharedBoards = map[string]struct{ soc, core, arch string }{
	"rpi-cm4-32bit-kernel-host":              {"BCM2711", "Cortex-A72", ""},
	"rpi-zero-w-raspbian11-usb-hub":          {"BCM2835", "ARM1176", "armv6l"},
	"rpi-zero2-32bit-kernel-host":            {"RP3A0", "Cortex-A53", "armv7l"},
	"rpi1b-kernel-3.1.9-host":                {"BCM2835", "ARM1176", "armv6l"},
	"rpi1b-pre-devicetree-kernel":            {"BCM2835", "ARM1176", ""},
	"rpi2b-kernel-3.18-host":                 {"BCM2836", "Cortex-A7", ""},
	"rpi3b-arm64-kernel-armhf-userland-host": {"BCM2837", "Cortex-A53", "aarch64"},
	"rpi3bplus-debian11-arm64-usb-wifi":      {"BCM2837", "Cortex-A53", "aarch64"},
	"rpi3bplus-raspbian10-v7-usb-ssd":        {"BCM2836 or BCM2837", "Cortex-A7 or Cortex-A53", "armv7l"},
	"rpi4-fedora35-mainline-host":            {"", "Cortex-A72", ""},
	"rpi4-raspbian11-v7l-uas-ssd-boot":       {"BCM2711", "Cortex-A72", "armv7l"},
	"rpi4b-ubuntu2004-usb3-hdd-usb-storage":  {"BCM2711", "Cortex-A72", ""},
	"rpi5-dual-nvme-pcie-switch":             {"BCM2712", "Cortex-A76", "aarch64"},
}

// TestSharedBoards reads every board capture kept beside the repository:
// a capture without an entry above fails, so a new one is read by hand
// before it counts.
func TestSharedBoards(t *testing.T) {
	for _, path := range realdata.Files(t, realdata.Dir(t, "real-boards")) {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		want, ok := sharedBoards[name]
		if !ok {
			t.Errorf("%s: no expected SoC, core and architecture", name)
			continue
		}
		h := unpacked(t, path).Host()
		if h.SoC != want.soc || h.CPUCore != want.core || h.Arch != want.arch {
			t.Errorf("%s: SoC %q, core %q, arch %q; want %q, %q, %q", name, h.SoC, h.CPUCore, h.Arch, want.soc, want.core, want.arch)
		}
	}
}
