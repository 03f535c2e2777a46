package sysinfo

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/result"
)

// irqKeys names what the interesting interrupt lines are called after: the
// USB host controllers' drivers, the disk controllers' drivers, the SD and
// MMC hosts, and the network interfaces. A single core busy with one of
// these is a ceiling a Pi 1 runs into (dwc_otg, its one USB controller).
func irqKeys(fs FS, s result.System) []string {
	var keys []string
	add := func(k string, driver bool) {
		if k == "" {
			return
		}
		if driver {
			k = strings.ReplaceAll(k, "-", "_")
		}
		// ehci-pci, xhci_hcd, ohci-platform: their lines read
		// "ehci_hcd:usb1", "xhci_hcd", "ohci_hcd:usb3".
		for _, hc := range []string{"ehci", "ohci", "uhci", "xhci"} {
			if strings.HasPrefix(k, hc) {
				k = hc
			}
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, d := range s.USB {
		if d.Parent == "" && len(d.Drivers) > 0 {
			add(d.Drivers[0], true)
		}
	}
	// A virtio device's lines are named after the device (virtio1-req.0,
	// virtio2-input.0), not its driver or interface: the balloon and the
	// entropy source share the driver's prefix and carry no data.
	virtio := func(link string) {
		if dev := resolve(link); virtioDev().MatchString(filepath.Base(dev)) {
			add(filepath.Base(dev), false)
		}
	}
	for _, b := range s.BlockDevices {
		switch b.Bus {
		case "sata", "nvme", "scsi":
			add(b.Driver, true)
		case "virtio":
			virtio(filepath.Join(fs.Sys, "block", b.Name, "device"))
		}
	}
	for _, n := range s.NetInterfaces {
		add(n.Name, false)
		if strings.HasPrefix(n.Driver, "virtio") {
			virtio(filepath.Join(fs.Sys, "class/net", n.Name, "device"))
		}
	}
	// Every SD/MMC host, not only those with a disk: a Pi's WiFi chip
	// sits on one.
	hosts := glob(filepath.Join(fs.Sys, "class/mmc_host/mmc*"))
	for _, h := range hosts {
		add(filepath.Base(h), false)
	}
	return keys
}

// interrupts reads the device lines of /proc/interrupts whose actions match
// one of keys:
//
//	          CPU0       CPU1
//	56:    1734811          0  armctrl-level  17 Edge  dwc_otg, dwc_otg_pcd, dwc_otg_hcd:usb1
//
// Lines of per-CPU-only counters (NMI, LOC, IPI0) name no device.
func (fs FS) interrupts(keys []string) []result.Interrupt {
	if len(keys) == 0 {
		return nil
	}
	var out []result.Interrupt
	cpus := 0
	_ = eachLine(filepath.Join(fs.Proc, "interrupts"), func(line string) error {
		f := strings.Fields(line)
		if cpus == 0 {
			for _, c := range f {
				if strings.HasPrefix(c, "CPU") {
					cpus++
				}
			}
			return nil
		}
		if len(f) < cpus+2 {
			return nil
		}
		irq, ok := strings.CutSuffix(f[0], ":")
		if _, err := strconv.Atoi(irq); !ok || err != nil {
			return nil
		}
		counts := make([]int64, cpus)
		for i := range counts {
			v, err := strconv.ParseInt(f[1+i], 10, 64)
			if err != nil {
				return nil
			}
			counts[i] = v
		}
		// The kernel joins a shared line's actions with ", ", so the
		// name runs back from the end while the words before end in ",".
		rest := f[1+cpus:]
		start := len(rest) - 1
		for start > 0 && strings.HasSuffix(rest[start-1], ",") {
			start--
		}
		name := strings.Join(rest[start:], " ")
		if !irqMatches(name, keys) {
			return nil
		}
		out = append(out, result.Interrupt{IRQ: irq, Name: name, PerCPU: counts})
		return nil
	})
	return out
}

// irqMatches reports whether one of the line's actions starts with a key
// that does not run on into more digits: eth0 matches eth0 and eth0-rx-0,
// not eth01; nvme matches nvme0q1.
func irqMatches(name string, keys []string) bool {
	for action := range strings.SplitSeq(name, ",") {
		action = strings.TrimSpace(action)
		for _, k := range keys {
			rest, ok := strings.CutPrefix(action, k)
			if !ok {
				continue
			}
			last := k[len(k)-1]
			if rest == "" || !('0' <= last && last <= '9') || !('0' <= rest[0] && rest[0] <= '9') {
				return true
			}
		}
	}
	return false
}
