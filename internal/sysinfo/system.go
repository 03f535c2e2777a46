package sysinfo

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/thruput/thruput/internal/pattern"
	"github.com/thruput/thruput/internal/result"
)

// System reads the hardware a run's data crosses: the CPU's clock and
// throttling, the disks, the USB tree, the network interfaces and their
// interrupts. The disks include virtual ones (loop, dm, zram) only when one
// of paths lives on them. Like Host it has no error: each fact that cannot
// be read is left out, and the rest is still worth reporting.
func (fs FS) System(paths ...string) result.System { return fs.SystemWith(nil, paths...) }

// SystemWith is System listing also the virtual disks named in keep.
func (fs FS) SystemWith(keep []string, paths ...string) result.System {
	var s result.System
	s.CPU = fs.cpu()
	backing := keep
	for _, p := range paths {
		if t, err := fs.Target(p); err == nil && t.Device != "" {
			backing = append(backing, t.Device)
		}
	}
	s.BlockDevices = fs.blockDevices(backing)
	s.USB = fs.usbTree()
	s.NetInterfaces = fs.netInterfaces()
	s.Interrupts = fs.interrupts(irqKeys(fs, s))
	return s
}

// cpu reads CPU 0's cpufreq state. CPU 0 stands for all: on the boards this
// is for, every core shares one clock, and a PC's governor is set for all.
func (fs FS) cpu() result.CPU {
	dir := filepath.Join(fs.Sys, "devices/system/cpu/cpu0/cpufreq")
	c := result.CPU{
		CurKHz:   readPositive(filepath.Join(dir, "scaling_cur_freq")),
		MinKHz:   readPositive(filepath.Join(dir, "scaling_min_freq")),
		MaxKHz:   readPositive(filepath.Join(dir, "scaling_max_freq")),
		Governor: readValue(filepath.Join(dir, "scaling_governor")),
	}
	fs.throttling(&c)
	fs.temperatures(&c)
	return c
}

// readPositive reads a decimal count, giving 0 (absent) for anything that
// is not a positive number: sysfs writes -1 or fails with EINVAL for a
// figure it does not know, and neither is a value.
func readPositive(path string) int64 {
	v, err := strconv.ParseInt(readValue(path), 10, 64)
	if err != nil || v <= 0 {
		return 0
	}
	return v
}

// readBool reads a sysfs flag ("0" or "1"), nil when it cannot be read.
func readBool(path string) *bool {
	switch readValue(path) {
	case "0":
		return new(false)
	case "1":
		return new(true)
	}
	return nil
}

// linkBase is the last element of a symlink's target: the name of the
// driver a device's "driver" link points at. The target need not exist.
func linkBase(link string) string {
	t, err := readlink(link)
	if err != nil {
		return ""
	}
	return filepath.Base(t)
}

var (
	pciAddr = pattern.Lazy(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)
	// usbDev is a USB device's sysfs name: a root hub (usb1) or a port
	// chain (1-1.2); interfaces add ":config.interface".
	usbDev   = pattern.Lazy(`^(usb[0-9]+|[0-9]+-[0-9]+(\.[0-9]+)*)$`)
	usbIface = pattern.Lazy(`^[0-9]+-[0-9]+(\.[0-9]+)*:[0-9]+\.[0-9]+$`)
)

// ancestry is where a device hangs in the sysfs tree, read from the
// directory its links resolve to.
type ancestry struct {
	// dirs are the resolved directory and each of its parents up to
	// the sysfs root, nearest first.
	dirs []string
}

func (fs FS) ancestry(dir string) ancestry {
	var a ancestry
	root := filepath.Clean(fs.Sys)
	for d := filepath.Clean(dir); d != root && len(d) > len(root); d = filepath.Dir(d) {
		a.dirs = append(a.dirs, d)
	}
	return a
}

// nearest returns the nearest directory whose name matches re (one of
// the package's lazy patterns), or "".
func (a ancestry) nearest(re func() *regexp.Regexp) string {
	for _, d := range a.dirs {
		if re().MatchString(filepath.Base(d)) {
			return d
		}
	}
	return ""
}

// has reports whether a directory of that exact name is in the chain.
func (a ancestry) has(name string) bool {
	for _, d := range a.dirs {
		if filepath.Base(d) == name {
			return true
		}
	}
	return false
}

// under reports whether the chain passes through devices/<top>.
func (fs FS) under(a ancestry, top string) bool {
	return len(a.dirs) > 0 && strings.HasPrefix(a.dirs[0], filepath.Join(fs.Sys, "devices", top)+"/")
}

// pciLink fills the PCI slot and the negotiated link of the nearest PCI
// device: for a USB or SATA disk that is its controller, whose link the
// whole bus shares (a Pi 4's VL805 has one PCIe 2 lane for all four ports).
func pciLink(a ancestry) (slot string, gts float64, width int) {
	d := a.nearest(pciAddr)
	if d == "" {
		return "", 0, 0
	}
	return filepath.Base(d), linkSpeed(filepath.Join(d, "current_link_speed")), int(readPositive(filepath.Join(d, "current_link_width")))
}

// InterfaceNames lists the network interfaces, loopback included.
func (fs FS) InterfaceNames() []string {
	entries, _ := readDir(filepath.Join(fs.Sys, "class/net"))
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// DiskOf names the whole disk of a block device or partition ("sda" for
// sda1), "" when name is not a block device here.
func (fs FS) DiskOf(name string) string {
	if name == "" || strings.ContainsAny(name, "/.") {
		return ""
	}
	// class/block lists partitions too; block, whole disks alone, is
	// all that older captures and fixtures hold.
	dir := resolve(filepath.Join(fs.Sys, "class/block", name))
	if dir == "" {
		dir = resolve(filepath.Join(fs.Sys, "block", name))
	}
	if dir == "" {
		return ""
	}
	if exists(filepath.Join(dir, "partition")) {
		return filepath.Base(filepath.Dir(dir))
	}
	return filepath.Base(dir)
}
