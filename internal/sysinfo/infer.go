package sysinfo

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

// A capture without cpuinfo or device tree (hw-probe's dumps, most often)
// still says which Raspberry Pi it is in two places: the kernel release,
// whose suffix names the Raspberry Pi kernel build and so the SoC family
// and the architecture, and the SoC's peripheral addresses, which name the
// platform devices under /sys/devices/platform. What they give is marked
// as inferred (result.Host.Inferred), with the evidence.

// piSoCCores are the Raspberry Pi SoCs, each with its core and the widest
// architecture it runs.
var piSoCCores = map[string]struct{ core, arch string }{
	"BCM2835": {"ARM1176", "armv6l"},
	"BCM2836": {"Cortex-A7", "armv7l"},
	"BCM2837": {"Cortex-A53", "aarch64"},
	"BCM2711": {"Cortex-A72", "aarch64"},
	"BCM2712": {"Cortex-A76", "aarch64"},
}

// piKernel is what a Raspberry Pi kernel build's release suffix says: the
// SoCs it runs on and uname -m. weak marks the plain "+" of the ARMv6
// build, which any kernel built from a changed git tree also ends with:
// it counts only beside other evidence of a BCM2835.
type piKernel struct {
	suffix string
	socs   []string
	arch   string
	weak   bool
}

// piKernelSuffix reads the release of a Raspberry Pi kernel: the
// builds before Bookworm end "+" (ARMv6), "-v7+", "-v7l+" (LPAE),
// "-v8+", and the Pi 5's "-v8_16k+" or "-v8-16k+"; Bookworm's end
// "+rpt-rpi-v6", "-v7", "-v7l", "-v8" and "-2712". ok is false for any
// other release.
func piKernelSuffix(release string) (piKernel, bool) {
	any64 := []string{"BCM2837", "BCM2711", "BCM2712"}
	if _, flavour, ok := strings.Cut(release, "+rpt-rpi-"); ok {
		switch flavour {
		case "v6":
			return piKernel{"+rpt-rpi-v6", []string{"BCM2835"}, "armv6l", false}, true
		case "v7":
			return piKernel{"+rpt-rpi-v7", []string{"BCM2836", "BCM2837"}, "armv7l", false}, true
		case "v7l":
			return piKernel{"+rpt-rpi-v7l", []string{"BCM2711"}, "armv7l", false}, true
		case "v8":
			return piKernel{"+rpt-rpi-v8", any64, "aarch64", false}, true
		case "2712":
			return piKernel{"+rpt-rpi-2712", []string{"BCM2712"}, "aarch64", false}, true
		}
		return piKernel{}, false
	}
	base, ok := strings.CutSuffix(release, "+")
	if !ok {
		if strings.HasSuffix(release, "-2712") {
			return piKernel{"-2712", []string{"BCM2712"}, "aarch64", false}, true
		}
		return piKernel{}, false
	}
	switch {
	case strings.HasSuffix(base, "-v7l"):
		return piKernel{"-v7l+", []string{"BCM2711"}, "armv7l", false}, true
	case strings.HasSuffix(base, "-v7"):
		return piKernel{"-v7+", []string{"BCM2836", "BCM2837"}, "armv7l", false}, true
	case strings.HasSuffix(base, "-v8_16k"), strings.HasSuffix(base, "-v8-16k"):
		// 16 KiB pages: the Pi 5's own build.
		return piKernel{base[strings.LastIndex(base, "-v8"):] + "+", []string{"BCM2712"}, "aarch64", false}, true
	case strings.HasSuffix(base, "-v8"):
		return piKernel{"-v8+", any64, "aarch64", false}, true
	case piPlainRelease().MatchString(base):
		return piKernel{"+", []string{"BCM2835"}, "armv6l", true}, true
	}
	return piKernel{}, false
}

// piPlainRelease is a bare version before the ARMv6 build's "+":
// "5.15.30", "3.1.9".
var piPlainRelease = pattern.Lazy(`^\d+\.\d+(\.\d+)?$`)

// peripheral is a platform device name that starts with its bus address:
// "3f980000.usb", "fd500000.pcie", "1000120000.pcie".
var peripheral = pattern.Lazy(`^([0-9a-f]{8}|[0-9a-f]{10})\.[A-Za-z0-9_,-]+$`)

// piAddressSoCs names the SoC whose peripherals sit at addr: 20xxxxxx the
// BCM2835's, 3fxxxxxx the BCM2836's and BCM2837's, fexxxxxx and fd5xxxxx
// the BCM2711's, 1000xxxxxx and 1fxxxxxxxx the BCM2712's and its RP1's.
// Other SoCs use some of these ranges too (Rockchip's fe…), so an address
// is read only on a machine already known to run a Raspberry Pi kernel
// or to have one of the Pis' own devices (piNodes).
func piAddressSoCs(addr string) []string {
	switch {
	case len(addr) == 8 && strings.HasPrefix(addr, "20"):
		return []string{"BCM2835"}
	case len(addr) == 8 && strings.HasPrefix(addr, "3f"):
		return []string{"BCM2836", "BCM2837"}
	case len(addr) == 8 && (strings.HasPrefix(addr, "fe") || strings.HasPrefix(addr, "fd5")):
		return []string{"BCM2711"}
	case len(addr) == 10 && (strings.HasPrefix(addr, "1000") || strings.HasPrefix(addr, "1f")):
		return []string{"BCM2712"}
	}
	return nil
}

// piNodes are platform devices only a Raspberry Pi has: its dwc_otg USB
// controller, the BCM2711's PCIe and the BCM2712's, and the WiFi's SDIO
// host, which its device tree names "mmcnr".
var piNodes = []string{"20980000.usb", "3f980000.usb", "fe980000.usb", "fd500000.pcie", "1000120000.pcie"}

// platformAddresses lists the platform devices named by address, on the
// platform bus and one bus below it (soc, scb, axi, emmc2bus).
func (fs FS) platformAddresses() []string {
	var names []string
	root := filepath.Join(fs.Sys, "devices/platform")
	top, _ := readDir(root)
	for _, e := range top {
		if !e.IsDir() {
			continue
		}
		if peripheral().MatchString(e.Name()) {
			names = append(names, e.Name())
			continue
		}
		below, _ := readDir(filepath.Join(root, e.Name()))
		for _, b := range below {
			if b.IsDir() && peripheral().MatchString(b.Name()) {
				names = append(names, b.Name())
			}
		}
	}
	slices.Sort(names)
	return names
}

// inferPi fills what h lacks of a Raspberry Pi's SoC, core and
// architecture from the kernel release and the peripheral addresses, and
// the architecture and userland that cpuinfo's "(v8l)" gives away: only
// a 32-bit process on a 64-bit kernel reads that.
func (fs FS) inferPi(h *result.Host, ci cpuFacts) {
	if h.Arch != "" && !strings.HasPrefix(h.Arch, "arm") && h.Arch != "aarch64" {
		// Another architecture's machine: no Pi.
		return
	}
	var from []string
	var inferred []string
	mark := func(field string) {
		if !slices.Contains(inferred, field) {
			inferred = append(inferred, field)
		}
	}
	if strings.HasSuffix(ci.model, "(v8l)") {
		if h.Arch == "" {
			h.Arch = "aarch64"
			mark("arch")
		}
		if h.UserlandArch == "" {
			h.UserlandArch, h.UserlandBits = "arm", 32
			mark("userland_arch")
			mark("userland_bits")
		}
		if len(inferred) > 0 {
			from = append(from, "cpuinfo model name "+ci.model[strings.LastIndexByte(ci.model, '('):])
		}
	}

	k, isPiKernel := piKernelSuffix(h.Kernel)
	var addrSoCs []string
	addrEvidence := ""
	if h.SoC == "" || ci.core == "" || h.Arch == "" {
		addrs := fs.platformAddresses()
		piHardware := slices.ContainsFunc(addrs, func(a string) bool {
			return slices.Contains(piNodes, a) || strings.HasSuffix(a, ".mmcnr")
		})
		if isPiKernel || piHardware {
			for _, a := range addrs {
				addr, _, _ := strings.Cut(a, ".")
				socs := piAddressSoCs(addr)
				if socs == nil {
					continue
				}
				if addrSoCs != nil && !slices.Equal(socs, addrSoCs) {
					// Two families' addresses: no answer.
					addrSoCs, addrEvidence = nil, ""
					break
				}
				if addrSoCs == nil {
					addrSoCs, addrEvidence = socs, addr
				}
			}
		}
	}
	if k.weak && !slices.Equal(addrSoCs, k.socs) && ci.core != "ARM1176" {
		// A bare "+" alone is any kernel built from a changed tree.
		isPiKernel = false
	}

	socs := addrSoCs
	switch {
	case isPiKernel && socs == nil:
		socs = k.socs
	case isPiKernel:
		socs = intersect(socs, k.socs)
	}
	arch := h.Arch
	if arch == "" && isPiKernel {
		arch = k.arch
	}
	// An arm64 kernel rules out the 32-bit-only BCM2836.
	if arch == "aarch64" && len(socs) > 1 {
		socs = slices.DeleteFunc(slices.Clone(socs), func(s string) bool { return piSoCCores[s].arch != "aarch64" })
	}
	socFrom := ""
	if h.SoC != "" {
		// A SoC the device tree named gives its core; another chip
		// leaves the Pis' evidence unused.
		socs = nil
		if _, ok := piSoCCores[h.SoC]; ok {
			socs, socFrom = []string{h.SoC}, "soc "+h.SoC
		}
	}

	fromKernel, fromAddress := false, false
	if h.SoC == "" && len(socs) > 0 && len(socs) <= 2 {
		h.SoC = strings.Join(socs, " or ")
		mark("soc")
		fromKernel, fromAddress = isPiKernel, addrSoCs != nil
	}
	if ci.core == "" && h.CPUCore == "" && len(socs) > 0 && len(socs) <= 2 {
		var cores []string
		for _, s := range socs {
			cores = append(cores, piSoCCores[s].core)
		}
		h.CPUCore = strings.Join(cores, " or ")
		mark("cpu_core")
		if socFrom != "" {
			from = append(from, socFrom)
		} else {
			fromKernel, fromAddress = isPiKernel, addrSoCs != nil
		}
	}
	if h.Arch == "" && arch != "" {
		h.Arch = arch
		mark("arch")
		fromKernel = true
	}
	if fromKernel {
		from = append(from, "kernel release suffix "+k.suffix)
	}
	if fromAddress {
		from = append(from, "peripheral address "+addrEvidence)
	}
	if len(inferred) > 0 {
		h.Inferred, h.InferredFrom = inferred, from
	}
}

// intersect keeps the entries of a that b holds too.
func intersect(a, b []string) []string {
	var out []string
	for _, s := range a {
		if slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}
