package probe

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/thruput/thruput/internal/sysinfo"
	"github.com/thruput/thruput/internal/usage"
)

// Roots are where the checks read the kernel's view of devices and
// mounts: /sys and /proc, or a fixture tree in the tests.
type Roots struct{ Sys, Proc string }

// systemMounts are the mount points that make a device part of the
// running system.
var systemMounts = []string{"/", "/boot", "/boot/firmware", "/usr", "/var"}

// Refuse returns why device must not be probed, as a usage error (exit 2),
// or nil: it must be a whole block device (not a partition, not a file),
// writable, with nothing of it mounted, swapped on or built upon, and not
// holding the running system. rdev is the device's number, from stat.
func (r Roots) Refuse(device string, rdev uint64) error {
	major, minor := unix.Major(rdev), unix.Minor(rdev)
	dir, err := filepath.EvalSymlinks(filepath.Join(r.Sys, "dev/block", fmt.Sprintf("%d:%d", major, minor)))
	if err != nil {
		return usage.Errorf("%s: the kernel lists no block device %d:%d in %s/dev/block", device, major, minor, r.Sys)
	}
	if exists(filepath.Join(dir, "partition")) {
		disk := filepath.Base(filepath.Dir(dir))
		return usage.Errorf("%s is a partition of /dev/%s: the probe needs the whole device, to reach where its memory ends (name /dev/%s, with nothing of it mounted)", device, disk, disk)
	}
	if ro, _ := os.ReadFile(filepath.Join(dir, "ro")); strings.TrimSpace(string(ro)) == "1" {
		return usage.Errorf("%s is read-only (the kernel's ro flag: a card's lock switch, losetup -r, blockdev --setro): the probe must write", device)
	}
	// The device and its partitions, by number and by name.
	parts := map[string]string{fmt.Sprintf("%d:%d", major, minor): filepath.Base(dir)}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if dev, err := os.ReadFile(filepath.Join(dir, e.Name(), "dev")); err == nil && exists(filepath.Join(dir, e.Name(), "partition")) {
			parts[strings.TrimSpace(string(dev))] = e.Name()
		}
	}
	names := map[string]bool{}
	for _, n := range parts {
		names["/dev/"+n] = true
	}
	mounts, err := r.mountsOn(parts, names)
	if err != nil {
		return err
	}
	for _, m := range mounts {
		if slices.Contains(systemMounts, m.point) {
			return usage.Errorf("%s holds the running system (%s is mounted from %s): the probe would overwrite it", device, m.point, m.source)
		}
	}
	if len(mounts) > 0 {
		var on []string
		for _, m := range mounts {
			on = append(on, m.source+" on "+m.point)
		}
		return usage.Errorf("%s is mounted (%s): unmount every filesystem on it first; the probe writes below them", device, strings.Join(on, ", "))
	}
	if swaps, err := r.swapsOn(names); err != nil {
		return err
	} else if len(swaps) > 0 {
		return usage.Errorf("%s holds the running system's swap (%s): the probe would overwrite it", device, strings.Join(swaps, ", "))
	}
	for dev, name := range parts {
		held, _ := os.ReadDir(filepath.Join(r.Sys, "dev/block", dev, "holders"))
		if len(held) > 0 {
			return usage.Errorf("%s is in use: /dev/%s is part of %s (device-mapper, LVM or RAID built on it)", device, name, held[0].Name())
		}
	}
	return nil
}

type mountOn struct{ source, point string }

// mountsOn lists the mounts of any device in parts (by number) or names
// (by source path: FUSE filesystems such as fusefat show 0:N).
func (r Roots) mountsOn(parts map[string]string, names map[string]bool) ([]mountOn, error) {
	all, err := sysinfo.FS{Proc: r.Proc}.Mounts()
	if err != nil {
		return nil, err
	}
	var out []mountOn
	for _, m := range all {
		if _, ok := parts[fmt.Sprintf("%d:%d", m.Major, m.Minor)]; ok || names[m.Source] {
			out = append(out, mountOn{m.Source, m.Point})
		}
	}
	return out, nil
}

// swapsOn lists the swap areas on the devices named.
func (r Roots) swapsOn(names map[string]bool) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(r.Proc, "swaps"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil // a kernel without swap
		}
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 0 && names[f[0]] {
			out = append(out, f[0])
		}
	}
	return out, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
