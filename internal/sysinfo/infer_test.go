package sysinfo

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/thruput/thruput/internal/result"
)

// TestPiKernelSuffix: every Raspberry Pi kernel build's release, before
// Bookworm and since, and releases that are no Pi's.
func TestPiKernelSuffix(t *testing.T) {
	any64 := []string{"BCM2837", "BCM2711", "BCM2712"}
	for _, tc := range []struct {
		release, suffix string
		socs            []string
		arch            string
		weak            bool
	}{
		{"5.15.30+", "+", []string{"BCM2835"}, "armv6l", true},
		{"3.1.9+", "+", []string{"BCM2835"}, "armv6l", true},
		{"5.10.63-v7+", "-v7+", []string{"BCM2836", "BCM2837"}, "armv7l", false},
		{"5.10.92-v7l+", "-v7l+", []string{"BCM2711"}, "armv7l", false},
		// Kali's Re4son kernels keep the Pi builds' suffixes.
		{"5.4.83-Re4son-v7l+", "-v7l+", []string{"BCM2711"}, "armv7l", false},
		{"5.15.61-v8+", "-v8+", any64, "aarch64", false},
		{"6.1.47-v8_16k+", "-v8_16k+", []string{"BCM2712"}, "aarch64", false},
		{"6.6.63-v8-16k+", "-v8-16k+", []string{"BCM2712"}, "aarch64", false},
		{"6.1.0-rpi7-rpi-2712", "-2712", []string{"BCM2712"}, "aarch64", false},
		{"6.6.51+rpt-rpi-v6", "+rpt-rpi-v6", []string{"BCM2835"}, "armv6l", false},
		{"6.6.51+rpt-rpi-v7", "+rpt-rpi-v7", []string{"BCM2836", "BCM2837"}, "armv7l", false},
		{"6.6.51+rpt-rpi-v7l", "+rpt-rpi-v7l", []string{"BCM2711"}, "armv7l", false},
		{"6.6.51+rpt-rpi-v8", "+rpt-rpi-v8", any64, "aarch64", false},
		{"6.6.51+rpt-rpi-2712", "+rpt-rpi-2712", []string{"BCM2712"}, "aarch64", false},
	} {
		k, ok := piKernelSuffix(tc.release)
		if !ok || k.suffix != tc.suffix || !slices.Equal(k.socs, tc.socs) || k.arch != tc.arch || k.weak != tc.weak {
			t.Errorf("%s: %+v (%v), want suffix %q, %v, %s, weak %v", tc.release, k, ok, tc.suffix, tc.socs, tc.arch, tc.weak)
		}
	}
	for _, release := range []string{"", "5.15.0-105-generic", "5.15.0-1034-raspi", "5.15.14-200.fc35.aarch64",
		"6.6.51+rpt-rpi-v9", "6.1.0-rc1+", "5.10.0-8-arm64", "+", "v7+", "4.5.4+rpi2"} {
		if k, ok := piKernelSuffix(release); ok {
			t.Errorf("%q read as a Raspberry Pi kernel: %+v", release, k)
		}
	}
}

// machine writes a capture of only a kernel release, a machine name and
// platform devices (empty directories, as a capture keeps them).
func machine(t *testing.T, release, arch string, devices ...string) FS {
	t.Helper()
	root := t.TempDir()
	fs := AtRoot(root)
	write := func(path, value string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(value+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if release != "" {
		write(filepath.Join(fs.Proc, "sys/kernel/osrelease"), release)
	}
	if arch != "" {
		write(filepath.Join(fs.Proc, "sys/kernel/arch"), arch)
	}
	for _, d := range devices {
		if err := os.MkdirAll(filepath.Join(fs.Sys, "devices/platform", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return fs
}

// TestInferPi: what the kernel release and the addresses give together,
// and what they must not be taken to say.
func TestInferPi(t *testing.T) {
	for _, tc := range []struct {
		name, release, arch string
		devices             []string
		soc, core, wantArch string
		from                string
	}{
		// An arm64 kernel on 3f… addresses is a BCM2837: the BCM2836
		// runs only 32-bit code.
		{"pi3 arm64", "5.15.61-v8+", "", []string{"soc/3f980000.usb"}, "BCM2837", "Cortex-A53", "aarch64", "kernel release suffix -v8+; peripheral address 3f980000"},
		{"pi5 by addresses", "6.6.51+rpt-rpi-v8", "", []string{"axi/1000120000.pcie", "axi/1000120000.pcie/1f00100000.ethernet"}, "BCM2712", "Cortex-A76", "aarch64", "kernel release suffix +rpt-rpi-v8; peripheral address 1000120000"},
		{"bookworm pi5 kernel alone", "6.6.51+rpt-rpi-2712", "", nil, "BCM2712", "Cortex-A76", "aarch64", "kernel release suffix +rpt-rpi-2712"},
		// -v8+ alone runs on three chips: only the architecture.
		{"v8 alone", "6.1.21-v8+", "", nil, "", "", "aarch64", "kernel release suffix -v8+"},
		// The suffix and the addresses disagree: no chip.
		{"v7l on 3f", "5.10.92-v7l+", "", []string{"soc/3f980000.usb"}, "", "", "armv7l", "kernel release suffix -v7l+"},
		// A bare "+" is any kernel built from a changed tree.
		{"bare plus alone", "6.1.0+", "", nil, "", "", "", ""},
		{"bare plus on x86", "6.1.0+", "x86_64", []string{"soc/20980000.usb"}, "", "", "x86_64", ""},
		// Rockchip's peripherals sit at fe… too.
		{"rockchip", "5.10.160-rockchip64", "aarch64", []string{"fe330000.mmc", "fe380000.usb"}, "", "", "aarch64", ""},
		// A Pi's own device names the family without a kernel.
		{"pi4 pcie alone", "", "", []string{"scb/fd500000.pcie", "soc/fe300000.mmcnr"}, "BCM2711", "Cortex-A72", "", "peripheral address fd500000"},
		{"two families", "", "", []string{"soc/3f980000.usb", "scb/fd500000.pcie"}, "", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := machine(t, tc.release, tc.arch, tc.devices...).Host()
			if h.SoC != tc.soc || h.CPUCore != tc.core || h.Arch != tc.wantArch || strings.Join(h.InferredFrom, "; ") != tc.from {
				t.Errorf("soc %q, core %q, arch %q, from %q; want %q, %q, %q, %q", h.SoC, h.CPUCore, h.Arch, h.InferredFrom, tc.soc, tc.core, tc.wantArch, tc.from)
			}
			// What was read is never marked as inferred, and what was
			// inferred always is.
			for field, value := range map[string]string{"soc": h.SoC, "cpu_core": h.CPUCore, "arch": h.Arch} {
				inferred := slices.Contains(h.Inferred, field)
				read := (field == "arch" && tc.arch != "") || value == ""
				if inferred == read {
					t.Errorf("%s %q: inferred %v", field, value, inferred)
				}
			}
			if h.CPUModel != "" {
				t.Errorf("an inferred core is no model name: %q", h.CPUModel)
			}
		})
	}
	// Nothing to go on: nothing inferred, no empty lists in the JSON.
	if h := machine(t, "", "").Host(); !reflect.DeepEqual(h, result.Host{}) {
		t.Errorf("empty capture: %+v", h)
	}
}

// FuzzPiKernelSuffix: any release is read without a panic, and what is
// read names known chips and an architecture.
func FuzzPiKernelSuffix(f *testing.F) {
	for _, s := range []string{"5.15.30+", "5.10.63-v7+", "6.6.51+rpt-rpi-2712", "6.1.47-v8_16k+", "+rpt-rpi-", "-v8+", "6.1.0-rpi7-rpi-2712"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, release string) {
		k, ok := piKernelSuffix(release)
		if !ok {
			return
		}
		if len(k.socs) == 0 || k.arch == "" || !strings.Contains(release, strings.TrimSuffix(k.suffix, "+")) {
			t.Errorf("%q: %+v", release, k)
		}
		for _, s := range k.socs {
			if _, known := piSoCCores[s]; !known {
				t.Errorf("%q: unknown chip %q", release, s)
			}
		}
	})
}
